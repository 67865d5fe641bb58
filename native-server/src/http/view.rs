//! The read-only view the owner publishes for the HTTP side, and the owner's hooks.
//!
//! After every step the owner calls [`OwnerHooks::publish`]. It fingerprints the small tables
//! (brokerLiveTable, brokerAddrTable, clusterAddrTable: one entry per broker, hashed without
//! allocating) and builds a new [`View`] only when they, the KV table or the configuration
//! changed. Topics are never copied: the HTTP side reads them from the route snapshot the
//! connections already use. HTTP handlers load the view and never talk to the owner.

use std::collections::BTreeMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use nameserver_core::event::Event;
use nameserver_core::protocol::{RemotingCommand, RequestCode};
use nameserver_core::server::Removal;
use nameserver_core::{ConnId, KvConfig, NameServer};
use serde::Serialize;

use super::Observer;
use super::activity::{Channels, LastIo};
use super::events::kind_of;
use super::metrics::reason_index;

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
        let idle_close_at = idle.zip(self.last_io.as_ref()).map(|(idle, last)| last.get() + idle);
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
    fn build(
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

/// Lines one step may send to `/api/events`; a registration can change a million topics, and
/// the stream must not cost the owner more than a few microseconds per step.
const STREAMED_PER_STEP: usize = 100;

/// A route query to report once it has been answered.
#[derive(Debug)]
pub(crate) struct RouteSample {
    conn: ConnId,
    topic: String,
}

/// The owner's side of the HTTP console: metrics, events and view publication. Every method
/// returns at once when the HTTP side is off.
#[derive(Debug)]
pub(crate) struct OwnerHooks {
    observer: Arc<Observer>,
    fingerprint: Option<u64>,
    kv_changed: bool,
    config_changed: bool,
    kv: Arc<KvConfig>,
    config: Arc<BTreeMap<String, String>>,
    /// Lines this step sent, and lines it left out.
    streamed: usize,
    skipped: usize,
}

impl OwnerHooks {
    pub(crate) fn new(observer: Arc<Observer>) -> Self {
        Self {
            observer,
            fingerprint: None,
            kv_changed: true,
            config_changed: true,
            kv: Arc::default(),
            config: Arc::default(),
            streamed: 0,
            skipped: 0,
        }
    }

    /// A connection was accepted; `open` are open now.
    pub(crate) fn connected(&self, open: usize) {
        if !self.observer.on {
            return;
        }
        self.observer.metrics.accepted.fetch_add(1, Relaxed);
        self.observer.metrics.open.store(open as u64, Relaxed);
    }

    /// A connection is gone (or handed over at shutdown); `open` remain.
    pub(crate) fn disconnected(&self, conn: ConnId, open: usize) {
        if !self.observer.on {
            return;
        }
        self.observer.metrics.open.store(open as u64, Relaxed);
        self.observer.events.disconnected(conn);
        self.observer.channels.close(conn);
    }

    /// Before the owner answers `cmd`: whether to report it as a route query sample.
    pub(crate) fn sample(
        &self,
        conn: ConnId,
        cmd: &RemotingCommand,
        at: Option<std::time::Instant>,
    ) -> Option<RouteSample> {
        let at = at?;
        if cmd.request_code() != RequestCode::GetRouteInfoByTopic || !self.observer.events.want_sample(at) {
            return None;
        }
        Some(RouteSample { conn, topic: cmd.field("topic").unwrap_or_default().to_string() })
    }

    /// After the owner answered a request with `code` that arrived at `at`; `response` is
    /// the reply's code (`None`: no reply yet, or none at all).
    pub(crate) fn answered(
        &self,
        conn: ConnId,
        code: i32,
        response: Option<i32>,
        at: Option<std::time::Instant>,
        sample: Option<RouteSample>,
    ) {
        let Some(at) = at else { return };
        self.observer.metrics.record(conn, code, response, at.elapsed());
        if let Some(RouteSample { conn, topic }) = sample {
            let found = self.observer.routes.load().has_topic(&topic);
            self.observer.events.route_query(self.observer.now(), conn, &topic, found);
        }
    }

    /// One core event: counted, and sent to `/api/events` readers.
    pub(crate) fn event(&mut self, event: &Event, now: nameserver_core::Instant) {
        if !self.observer.on {
            return;
        }
        let m = &self.observer.metrics;
        match event {
            Event::BrokerRegistered { .. } => {
                m.registrations.fetch_add(1, Relaxed);
            }
            Event::BrokerUnregistered { reason, .. } => {
                m.unregistrations[reason_index(*reason)].fetch_add(1, Relaxed);
            }
            Event::BrokerExpired { .. } => {
                m.expiries.fetch_add(1, Relaxed);
            }
            Event::ChannelIdle { .. } => {
                m.idle_closes.fetch_add(1, Relaxed);
            }
            Event::KvPut { .. } | Event::KvDeleted { .. } => self.kv_changed = true,
            Event::ConfigUpdated { .. } => self.config_changed = true,
            _ => {}
        }
        if self.streamed == STREAMED_PER_STEP {
            self.skipped += 1;
            return;
        }
        self.streamed += 1;
        let (kind, level) = kind_of(event);
        self.observer.events.push(now, kind, level, event.to_string());
    }

    /// After a step: publishes a new view if a table it shows changed.
    pub(crate) fn publish(&mut self, ns: &NameServer) {
        if !self.observer.on {
            return;
        }
        self.streamed = 0;
        if self.skipped > 0 {
            let text =
                format!("... and {} more lines of this step, in the daemon's log", std::mem::take(&mut self.skipped));
            self.observer.events.push(ns.now(), "info", "info", text);
        }
        let routes = ns.routes();
        let mut hasher = DefaultHasher::new();
        ns.serving_routes().hash(&mut hasher);
        ns.next_scan().hash(&mut hasher);
        routes.broker_live_table().hash(&mut hasher);
        routes.broker_addr_table().hash(&mut hasher);
        routes.cluster_addr_table().hash(&mut hasher);
        let fingerprint = hasher.finish();
        if self.fingerprint == Some(fingerprint) && !self.kv_changed && !self.config_changed {
            return;
        }
        self.fingerprint = Some(fingerprint);
        if std::mem::take(&mut self.kv_changed) {
            self.kv = Arc::new(ns.kv().clone());
        }
        if std::mem::take(&mut self.config_changed) {
            self.config = Arc::new(ns.config().to_properties());
        }
        let version = self.observer.view.load().version + 1;
        let view = View::build(ns, &self.observer.channels, version, Arc::clone(&self.kv), Arc::clone(&self.config));
        self.observer.view.store(Arc::new(view));
        self.observer.view_version.send_replace(version);
    }
}
