//! The owner's side of the console: after every turn of its loop the owner calls
//! [`OwnerHooks::publish`]. It fingerprints the small tables (brokerLiveTable,
//! brokerAddrTable, clusterAddrTable: one entry per broker, hashed without allocating) and
//! builds a new [`View`] only when they, the KV table or the configuration changed. Events
//! are counted and streamed from here too.

use std::collections::BTreeMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;

use nameserver_core::event::{Event, EventCategory, Severity};
use nameserver_core::protocol::{RemotingCommand, RequestCode};
use nameserver_core::{ConnId, KvConfig, NameServer};

use super::metrics::reason_index;
use super::observer::Observer;
use super::view::View;

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

    /// A connection reached the owner; `open` are open now.
    pub(crate) fn connected(&self, open: usize) {
        if !self.observer.on {
            return;
        }
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

    /// After the owner answered a request with `code` that arrived at `at` on `conn` (`None`:
    /// a console request); `response` is the reply's code (`None`: no reply yet, or none at
    /// all).
    pub(crate) fn answered(
        &self,
        conn: Option<ConnId>,
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
        self.observer.events.event(now, event);
    }

    /// After a step: the summary of the lines it left out, and a new allowance for the next
    /// step (one turn of the owner's loop has many: each gets its own).
    pub(crate) fn step_done(&mut self, now: nameserver_core::Instant) {
        if !self.observer.on {
            return;
        }
        self.streamed = 0;
        if self.skipped > 0 {
            let text =
                format!("... and {} more lines of this step, in the daemon's log", std::mem::take(&mut self.skipped));
            self.observer.events.push(now, EventCategory::Info.name(), None, Severity::Info, text);
        }
    }

    /// After a step or a turn of steps: publishes a new view if a table it shows changed.
    pub(crate) fn publish(&mut self, ns: &NameServer) {
        if !self.observer.on {
            return;
        }
        self.step_done(ns.now());
        let routes = ns.routes();
        let mut hasher = DefaultHasher::new();
        ns.serving_routes().hash(&mut hasher);
        ns.poll_timeout().hash(&mut hasher);
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
        let view = View::build(
            ns,
            &self.observer.channels,
            self.observer.idle,
            version,
            Arc::clone(&self.kv),
            Arc::clone(&self.config),
        );
        self.observer.view.store(Arc::new(view));
        self.observer.view_version.send_replace(version);
    }
}
