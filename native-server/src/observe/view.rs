//! The read-only view of the small tables the owner publishes ([`super::OwnerHooks`]): the
//! core's [`NsTables`], with what only the daemon knows (a version, the wall clock, the KV
//! table and configuration, each live broker's channel). Topics are never copied: readers
//! take them from the route snapshot the connections already use.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use nameserver_core::view::NsTables;
use nameserver_core::{ConnId, Instant, KvConfig, NameServer};
use serde::Serialize;

use super::activity::{Channels, LastIo};

/// The tables of one moment, as the HTTP side shows them.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct View {
    /// Increases by one with every published change.
    pub(crate) version: u64,
    /// Wall-clock milliseconds since 1970 when the view was built.
    pub(crate) wall_ms: u64,
    /// The tables, each live row's removal clock as of the publication (serialise
    /// [`View::tables_now`] instead).
    #[serde(skip)]
    pub(crate) tables: NsTables,
    /// Each live row's channel (`tables.brokers[i]`'s is `last_io[i]`), if it is open.
    #[serde(skip)]
    last_io: Vec<Option<Arc<LastIo>>>,
    #[serde(skip)]
    pub(crate) kv: Arc<KvConfig>,
    #[serde(skip)]
    pub(crate) config: Arc<BTreeMap<String, String>>,
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

pub(crate) fn wall_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, millis)
}

/// When a channel last read or written idles out (`None`: idle close off, or no channel).
fn idle_close_at(last_io: Option<&Arc<LastIo>>, idle: Option<Duration>) -> Option<Instant> {
    idle.zip(last_io).map(|(idle, last)| last.get().deadline(idle))
}

impl View {
    pub(crate) fn build(
        ns: &NameServer,
        channels: &Channels,
        idle: Option<Duration>,
        version: u64,
        kv: Arc<KvConfig>,
        config: Arc<BTreeMap<String, String>>,
    ) -> Self {
        // In brokerLiveTable's order, as the rows.
        let conns: Vec<ConnId> = ns.routes().broker_live_table().values().map(|live| live.conn).collect();
        let last_io = channels.get_all(conns.iter().copied());
        let by_conn: HashMap<ConnId, &Arc<LastIo>> =
            conns.iter().zip(&last_io).filter_map(|(conn, last)| Some((*conn, last.as_ref()?))).collect();
        let tables = NsTables::of(ns, |live| idle_close_at(by_conn.get(&live.conn).copied(), idle));
        Self { version, wall_ms: wall_ms(), tables, last_io, kv, config }
    }

    /// The tables with each live row's removal clock as of now: the connection tasks move
    /// the idle close on every read and write, which the owner never sees.
    pub(crate) fn tables_now(&self, idle: Option<Duration>) -> NsTables {
        let mut tables = self.tables.clone();
        for (row, last_io) in tables.brokers.iter_mut().zip(&self.last_io) {
            row.set_idle_close_at(idle_close_at(last_io.as_ref(), idle));
        }
        tables
    }

    /// Changes when a broker's channel has been read or written (its idle close moved)
    /// although the tables did not change.
    pub(crate) fn channel_mark(&self) -> u64 {
        let mut hasher = DefaultHasher::new();
        for last_io in &self.last_io {
            last_io.as_ref().map(|last| last.get()).hash(&mut hasher);
        }
        hasher.finish()
    }
}
