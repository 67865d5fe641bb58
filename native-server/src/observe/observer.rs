//! [`Observer`]: the one place the connection and owner tasks publish to and the console
//! reads from.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use arc_swap::ArcSwap;
use nameserver_core::ConnId;
use nameserver_core::protocol::RequestCode;
use tokio::sync::watch;

use super::activity::{Channels, LastIo};
use super::events::EventBus;
use super::metrics::Metrics;
use super::traffic::Traffic;
use super::view::{View, wall_ms};
use crate::clock::Clock;
use crate::persist::JournalStats;
use crate::snapshot::RouteSnapshot;

/// What the connection and owner tasks publish and the console reads. When the console is
/// off (`on` false) every hook returns at once.
#[derive(Debug)]
pub(crate) struct Observer {
    pub(crate) on: bool,
    pub(crate) metrics: Metrics,
    /// The codes read and written, counted with `--log-dir` for `namesrv_traffic.log`.
    pub(crate) traffic: Traffic,
    pub(crate) events: EventBus,
    pub(crate) view: ArcSwap<View>,
    pub(crate) view_version: watch::Sender<u64>,
    pub(crate) routes: Arc<ArcSwap<RouteSnapshot>>,
    pub(crate) clock: Clock,
    /// Wall-clock milliseconds at the NameServer clock's zero: names this run of the daemon.
    pub(crate) started_wall_ms: u64,
    /// A random name of this run, so that a console polling a list of peers that includes
    /// itself knows which one it is.
    pub(crate) instance: String,
    /// Failed writes per file (`kvConfig`, `config`), counted by the file writers.
    pub(crate) write_failures: Vec<(&'static str, Arc<AtomicU64>)>,
    /// The KV journal's length and the whole writes of `kvConfig.json`, kept by its writer.
    pub(crate) kv_journal: Arc<JournalStats>,
    /// Each open connection's last read or write, published by its task.
    pub(crate) channels: Channels,
    /// `serverChannelMaxIdleTimeSeconds` as the connections apply it (`None`: off).
    pub(crate) idle: Option<Duration>,
    /// The embedded controller, when it runs (`enableControllerInNamesrv`).
    pub(crate) controller: arc_swap::ArcSwapOption<super::controller::ControllerView>,
    /// The owner's intake paused and recorded for the integration tests.
    #[cfg(feature = "test-hooks")]
    pub(crate) test_hooks: crate::test_hooks::OwnerControl,
}

impl Observer {
    pub(crate) fn new(
        on: bool,
        routes: Arc<ArcSwap<RouteSnapshot>>,
        clock: Clock,
        idle: Option<Duration>,
        write_failures: Vec<(&'static str, Arc<AtomicU64>)>,
    ) -> Self {
        Self {
            write_failures,
            kv_journal: Arc::default(),
            channels: Channels::default(),
            idle,
            controller: arc_swap::ArcSwapOption::empty(),
            on,
            metrics: Metrics::default(),
            traffic: Traffic::new(false),
            events: EventBus::default(),
            view: ArcSwap::from_pointee(View::default()),
            view_version: watch::Sender::new(0),
            routes,
            clock,
            started_wall_ms: wall_ms().saturating_sub(clock.now().as_millis()),
            instance: random_name(),
            #[cfg(feature = "test-hooks")]
            test_hooks: crate::test_hooks::OwnerControl::default(),
        }
    }

    /// When a request starts, if anyone measures it.
    #[inline]
    pub(crate) fn start(&self) -> Option<std::time::Instant> {
        self.on.then(std::time::Instant::now)
    }

    /// A connection answered a route query (for `topic`) from the snapshot.
    pub(crate) fn route_answered(
        &self,
        conn: ConnId,
        topic: &str,
        response: Option<i32>,
        started: Option<std::time::Instant>,
    ) {
        let Some(started) = started else { return };
        self.metrics.record(Some(conn), RequestCode::GetRouteInfoByTopic.raw(), response, started.elapsed());
        self.route_sample(conn, topic, started);
    }

    /// `count` route queries a connection answered from the snapshot with `response`, each
    /// measured as the `elapsed` of the batch they were read in (`None`: nobody measures).
    pub(crate) fn routes_answered(&self, conn: ConnId, response: Option<i32>, count: u64, elapsed: Option<Duration>) {
        if let Some(response) = response {
            self.traffic.written_many(conn, response, count);
        }
        if let Some(elapsed) = elapsed {
            self.metrics.record_many(Some(conn), RequestCode::GetRouteInfoByTopic.raw(), response, count, elapsed);
        }
    }

    /// A route query for `topic`, read at `started`, for the console's stream of samples.
    #[inline]
    pub(crate) fn route_sample(&self, conn: ConnId, topic: &str, started: std::time::Instant) {
        if self.events.want_sample(started) {
            let found = self.routes.load().has_topic(topic);
            self.events.route_query(self.now(), conn, topic, found);
        }
    }

    /// A connection answered a request itself with `response` (SYSTEM_BUSY), not a route query.
    pub(crate) fn answered_here(&self, conn: ConnId, code: i32, response: i32, started: Option<std::time::Instant>) {
        if let Some(started) = started {
            self.metrics.record(Some(conn), code, Some(response), started.elapsed());
        }
    }

    /// A connection was accepted (its peer names it in route query lines).
    pub(crate) fn connected(&self, conn: ConnId, remote: &str) {
        if self.on {
            self.events.connected(conn, remote);
            self.channels.open(conn, self.now());
        }
    }

    /// Where connection `conn` publishes its last read or write (`None`: nobody reads it).
    pub(crate) fn last_io(&self, conn: ConnId) -> Option<Arc<LastIo>> {
        if self.on { self.channels.get(conn) } else { None }
    }

    /// The listener accepted a connection: counted before any handshake, so that probes and
    /// refused connections are in the count too.
    pub(crate) fn accepted(&self) {
        self.metrics.accepted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// A connection was closed for a malformed frame.
    pub(crate) fn frame_error(&self) {
        self.metrics.frame_errors.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// A connection was refused before it was served.
    pub(crate) fn refused(&self, why: super::Refused) {
        self.metrics.refused[why as usize].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// A connection refused a request for its class's policy or source list.
    pub(crate) fn auth_refused(&self, class: nameserver_core::auth::RequestClass) {
        self.metrics.auth_refused[class as usize].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// A connection dropped a oneway read.
    pub(crate) fn oneway_read_dropped(&self) {
        self.metrics.oneway_reads_dropped.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// A deadline closed a connection.
    pub(crate) fn deadline_close(&self, which: super::Deadline) {
        self.metrics.deadline_closes[which as usize].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    pub(crate) fn now(&self) -> nameserver_core::Instant {
        self.clock.now()
    }
}

/// 64 random bits in hex (std's hasher keys are random per process).
fn random_name() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher
        .write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos());
    format!("{:016x}", hasher.finish())
}
