//! The read-only view of the small tables the owner publishes ([`super::OwnerHooks`]).
//! Topics are never copied: readers take them from the route snapshot the connections
//! already use.

use std::collections::BTreeMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use nameserver_core::server::Removal;
use nameserver_core::{KvConfig, NameServer};
use serde::Serialize;

use super::activity::{Channels, LastIo};

/// The tables of one moment, as the HTTP side shows them.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct View {
    /// Increases by one with every published change.
    pub(crate) version: u64,
    /// The NameServer's clock when the view was built (milliseconds since start).
    pub(crate) uptime_ms: u64,
    /// Wall-clock milliseconds since 1970 when the view was built.
    pub(crate) wall_ms: u64,
    /// Whether route queries are answered (`needWaitForService`).
    pub(crate) serving: bool,
    /// When the next expiry scan runs (NameServer clock).
    pub(crate) next_scan_ms: u64,
    /// `brokerLiveTable` (serialized with each row's removal clock: [`View::broker_rows`]).
    #[serde(skip)]
    pub(crate) brokers: Vec<LiveBroker>,
    /// `clusterAddrTable`: cluster → broker groups.
    pub(crate) cluster_addr_table: BTreeMap<String, Vec<String>>,
    /// `brokerAddrTable`: broker group → members (GET_BROKER_CLUSTER_INFO's shape).
    pub(crate) broker_addr_table: BTreeMap<String, BrokerGroup>,
    #[serde(skip)]
    pub(crate) kv: Arc<KvConfig>,
    #[serde(skip)]
    pub(crate) config: Arc<BTreeMap<String, String>>,
}

/// One `brokerLiveTable` row.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LiveBroker {
    pub(crate) cluster: String,
    pub(crate) broker_addr: String,
    pub(crate) broker_name: String,
    pub(crate) broker_id: i64,
    /// Empty when the registration had none (Java's null).
    pub(crate) ha_server_addr: String,
    /// Its last registration or heartbeat (NameServer clock, milliseconds).
    pub(crate) last_update: u64,
    pub(crate) timeout_ms: u64,
    pub(crate) expires_at: u64,
    pub(crate) data_version: DataVersion,
    /// The first expiry scan that finds it expired (NameServer clock).
    pub(crate) scan_expire_at: u64,
    /// Its channel's last read or write, if the channel is open.
    #[serde(skip)]
    pub(crate) last_io: Option<Arc<LastIo>>,
}

/// A `brokerLiveTable` row with its removal clock as of now, the shape of the simulation's
/// live rows: `removalAt` (NameServer clock), `removalBy` (`idle` or `scan`), `idleCloseAt`
/// (`null` when idle close is off) and `scanExpireAt`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BrokerRow<'a> {
    #[serde(flatten)]
    pub(crate) broker: &'a LiveBroker,
    pub(crate) idle_close_at: Option<u64>,
    pub(crate) removal_at: u64,
    pub(crate) removal_by: &'static str,
}

impl LiveBroker {
    /// When this NameServer removes the broker if it stays silent: the idle close of its
    /// channel (its last read or write plus `idle`) or the first scan that finds it expired.
    pub(crate) fn removal(&self, idle: Option<Duration>) -> Removal {
        let idle_close_at = idle.zip(self.last_io.as_ref()).map(|(idle, last)| last.get().deadline(idle));
        Removal::first_of(idle_close_at, nameserver_core::Instant::from_millis(self.scan_expire_at))
    }

    pub(crate) fn row(&self, idle: Option<Duration>) -> BrokerRow<'_> {
        let removal = self.removal(idle);
        BrokerRow {
            broker: self,
            idle_close_at: removal.idle_close_at.map(nameserver_core::Instant::as_millis),
            removal_at: removal.at.as_millis(),
            removal_by: removal.by.name(),
        }
    }
}

/// A broker's topic-config data version.
#[derive(Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DataVersion {
    pub(crate) counter: i64,
    pub(crate) state_version: i64,
    pub(crate) timestamp: i64,
}

/// One `brokerAddrTable` entry (`BrokerData`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BrokerGroup {
    pub(crate) cluster: String,
    pub(crate) broker_name: String,
    /// Broker id (as a string key, as in standard JSON) → address.
    pub(crate) broker_addrs: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) zone_name: Option<String>,
    pub(crate) enable_acting_master: bool,
}

fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

pub(crate) fn wall_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, millis)
}

impl View {
    pub(crate) fn build(
        ns: &NameServer,
        channels: &Channels,
        version: u64,
        kv: Arc<KvConfig>,
        config: Arc<BTreeMap<String, String>>,
    ) -> Self {
        let routes = ns.routes();
        let last_io = channels.get_all(routes.broker_live_table().values().map(|live| live.conn));
        let brokers = routes
            .broker_live_table()
            .iter()
            .zip(last_io)
            .map(|((key, live), last_io)| LiveBroker {
                cluster: key.cluster.to_string(),
                broker_addr: key.broker_addr.to_string(),
                broker_name: live.broker_name.to_string(),
                broker_id: live.broker_id.0,
                ha_server_addr: live.ha_server_addr.clone().unwrap_or_default(),
                last_update: live.last_update.as_millis(),
                timeout_ms: millis(live.heartbeat_timeout),
                expires_at: live.expires_at().as_millis(),
                data_version: DataVersion {
                    counter: live.data_version.counter,
                    state_version: live.data_version.state_version,
                    timestamp: live.data_version.timestamp,
                },
                scan_expire_at: ns.removal(live, None).scan_expire_at.as_millis(),
                last_io,
            })
            .collect();
        let cluster_addr_table = routes
            .cluster_addr_table()
            .iter()
            .map(|(cluster, names)| (cluster.to_string(), names.iter().map(ToString::to_string).collect()))
            .collect();
        let broker_addr_table = routes
            .broker_addr_table()
            .iter()
            .map(|(name, data)| {
                let group = BrokerGroup {
                    cluster: data.cluster.to_string(),
                    broker_name: data.broker_name.to_string(),
                    broker_addrs: data
                        .broker_addrs
                        .iter()
                        .map(|(id, addr)| (id.to_string(), addr.to_string()))
                        .collect(),
                    zone_name: data.zone_name.clone(),
                    enable_acting_master: data.enable_acting_master,
                };
                (name.to_string(), group)
            })
            .collect();
        Self {
            version,
            uptime_ms: ns.now().as_millis(),
            wall_ms: wall_ms(),
            serving: ns.serving_routes(),
            next_scan_ms: ns.next_scan().as_millis(),
            brokers,
            cluster_addr_table,
            broker_addr_table,
            kv,
            config,
        }
    }
}

impl View {
    /// Every `brokerLiveTable` row with its removal clock as of now.
    pub(crate) fn broker_rows(&self, idle: Option<Duration>) -> Vec<BrokerRow<'_>> {
        self.brokers.iter().map(|broker| broker.row(idle)).collect()
    }

    /// Changes when a broker's channel has been read or written (its idle close moved)
    /// although the tables did not change.
    pub(crate) fn channel_mark(&self) -> u64 {
        let mut hasher = DefaultHasher::new();
        for broker in &self.brokers {
            broker.last_io.as_ref().map(|last| last.get()).hash(&mut hasher);
        }
        hasher.finish()
    }
}
