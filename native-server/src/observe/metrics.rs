//! Counters and latency histograms, written by the connection and owner tasks; `/metrics`
//! (`http/metrics.rs`) reads them.
//!
//! Connection tasks record every route query they answer, so recording must cost next to
//! nothing and never wait: each connection writes relaxed atomics in one of [`SHARDS`]
//! cache-aligned shards (chosen by its id), and a scrape adds the shards up. Nothing here
//! takes a lock on the request path.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use nameserver_core::ConnId;
use nameserver_core::auth::RequestClass;
use nameserver_core::event::UnregisterReason;
use nameserver_core::protocol::{RequestCode, ResponseCode};

/// Independent copies of the request counters; a connection writes to `id % SHARDS`.
const SHARDS: usize = 8;
/// One slot per known request code, plus one for every other code.
pub(crate) const SLOTS: usize = RequestCode::KNOWN.len() + 1;
/// One slot per known response code, one for every other code, one for "no reply".
const RESPONSE_SLOTS: usize = ResponseCode::KNOWN.len() + 2;
const OTHER_RESPONSE: usize = ResponseCode::KNOWN.len();
const NO_RESPONSE: usize = ResponseCode::KNOWN.len() + 1;
/// Histogram upper bounds in seconds: route queries take microseconds, registrations more.
pub(crate) const BOUNDS: [f64; 15] = [
    0.000_01, 0.000_025, 0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0,
];
const BOUNDS_NANOS: [u64; 15] = [
    10_000,
    25_000,
    50_000,
    100_000,
    250_000,
    500_000,
    1_000_000,
    2_500_000,
    5_000_000,
    10_000_000,
    25_000_000,
    50_000_000,
    100_000_000,
    250_000_000,
    1_000_000_000,
];

#[derive(Debug, Default)]
struct Slot {
    sum_nanos: AtomicU64,
    /// Per bucket (not cumulative); the last one is `+Inf`.
    buckets: [AtomicU64; BOUNDS.len() + 1],
    /// Requests by the response code of their reply (see [`response_slot`]).
    responses: [AtomicU64; RESPONSE_SLOTS],
}

#[derive(Debug)]
#[repr(align(128))]
struct Shard([Slot; SLOTS]);

/// Everything counted by the daemon while the HTTP side is on.
#[derive(Debug)]
pub(crate) struct Metrics {
    shards: Box<[Shard]>,
    pub(crate) accepted: AtomicU64,
    pub(crate) open: AtomicU64,
    pub(crate) frame_errors: AtomicU64,
    pub(crate) registrations: AtomicU64,
    /// Indexed like [`REASONS`].
    pub(crate) unregistrations: [AtomicU64; 4],
    pub(crate) expiries: AtomicU64,
    pub(crate) idle_closes: AtomicU64,
    pub(crate) events_dropped: AtomicU64,
    /// Oneway reads (nobody reads their answer) dropped by the connection tasks.
    pub(crate) oneway_reads_dropped: AtomicU64,
    /// Requests and their bytes waiting for the owner in the connections' lanes (`intake.rs`).
    pub(crate) owner_queue_requests: AtomicU64,
    pub(crate) owner_queue_bytes: AtomicU64,
    /// Two-way requests answered SYSTEM_BUSY, and oneway ones dropped, for a full owner queue.
    pub(crate) owner_queue_busy: AtomicU64,
    pub(crate) owner_queue_dropped: AtomicU64,
    /// Indexed by [`Refused`].
    pub(crate) refused: [AtomicU64; Refused::ALL.len()],
    /// Indexed by [`Deadline`].
    pub(crate) deadline_closes: [AtomicU64; Deadline::ALL.len()],
    /// Requests refused by authentication, indexed by `RequestClass as usize`.
    pub(crate) auth_refused: [AtomicU64; RequestClass::ALL.len()],
}

/// Why a connection was refused before it was served (`nameserver_connections_refused`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Its source already held `--max-connections-per-source`.
    PerSource,
    /// It opened with a PROXY signature from a peer `--proxy-protocol-from` does not list.
    ProxyUnlisted,
    /// A listed proxy sent no PROXY header.
    ProxyMissing,
}

impl Refused {
    pub(crate) const ALL: [Self; 3] = [Self::PerSource, Self::ProxyUnlisted, Self::ProxyMissing];

    pub(crate) fn label(self) -> &'static str {
        match self {
            Self::PerSource => "per_source",
            Self::ProxyUnlisted => "proxy_unlisted",
            Self::ProxyMissing => "proxy_missing",
        }
    }
}

/// Which deadline closed a connection (`nameserver_deadline_closes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Deadline {
    /// The PROXY header or TLS handshake took too long.
    Handshake,
    /// A frame was not complete in time.
    Frame,
    /// The peer left replies unread for a whole idle period.
    SlowReader,
}

impl Deadline {
    pub(crate) const ALL: [Self; 3] = [Self::Handshake, Self::Frame, Self::SlowReader];

    pub(crate) fn label(self) -> &'static str {
        match self {
            Self::Handshake => "handshake",
            Self::Frame => "frame",
            Self::SlowReader => "slow_reader",
        }
    }
}

/// Label values of `nameserver_broker_unregistrations_total`.
pub(crate) const REASONS: [&str; 4] = ["request", "channel_closed", "channel_idle", "expired"];

pub(crate) fn reason_index(reason: UnregisterReason) -> usize {
    match reason {
        UnregisterReason::Request { .. } => 0,
        UnregisterReason::ChannelClosed => 1,
        UnregisterReason::ChannelIdle { .. } => 2,
        UnregisterReason::Expired { .. } => 3,
    }
}

fn slot_of(code: i32) -> usize {
    RequestCode::KNOWN.iter().position(|known| known.raw() == code).unwrap_or(SLOTS - 1)
}

fn response_slot(response: Option<i32>) -> usize {
    match response {
        None => NO_RESPONSE,
        Some(code) => ResponseCode::KNOWN.iter().position(|known| known.raw() == code).unwrap_or(OTHER_RESPONSE),
    }
}

/// `response_code` and `response` label values of a response slot.
pub(crate) fn response_labels(slot: usize) -> (String, &'static str) {
    match ResponseCode::KNOWN.get(slot) {
        Some(known) => (known.raw().to_string(), known.java_name().unwrap_or("UNKNOWN")),
        None if slot == OTHER_RESPONSE => (String::from("other"), "OTHER"),
        None => (String::from("none"), "NONE"),
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self {
            shards: (0..SHARDS).map(|_| Shard(std::array::from_fn(|_| Slot::default()))).collect(),
            accepted: AtomicU64::new(0),
            open: AtomicU64::new(0),
            frame_errors: AtomicU64::new(0),
            registrations: AtomicU64::new(0),
            unregistrations: Default::default(),
            expiries: AtomicU64::new(0),
            idle_closes: AtomicU64::new(0),
            events_dropped: AtomicU64::new(0),
            oneway_reads_dropped: AtomicU64::new(0),
            owner_queue_requests: AtomicU64::new(0),
            owner_queue_bytes: AtomicU64::new(0),
            owner_queue_busy: AtomicU64::new(0),
            owner_queue_dropped: AtomicU64::new(0),
            refused: Default::default(),
            deadline_closes: Default::default(),
            auth_refused: Default::default(),
        }
    }
}

impl Metrics {
    /// One request with `code` on `conn` (`None`: a console request, on no connection),
    /// answered with `response` (`None`: no reply) after `elapsed`.
    pub(crate) fn record(&self, conn: Option<ConnId>, code: i32, response: Option<i32>, elapsed: Duration) {
        self.record_many(conn, code, response, 1, elapsed);
    }

    /// [`Self::record`] for `count` requests answered alike, each after `elapsed`.
    pub(crate) fn record_many(
        &self,
        conn: Option<ConnId>,
        code: i32,
        response: Option<i32>,
        count: u64,
        elapsed: Duration,
    ) {
        let shard = usize::try_from(conn.map_or(0, |conn| conn.0) % SHARDS as u64).unwrap_or(0);
        let slot = &self.shards[shard].0[slot_of(code)];
        let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        slot.sum_nanos.fetch_add(nanos.saturating_mul(count), Relaxed);
        slot.responses[response_slot(response)].fetch_add(count, Relaxed);
        slot.buckets[BOUNDS_NANOS.partition_point(|&bound| bound < nanos)].fetch_add(count, Relaxed);
    }

    /// The shards added up for one slot.
    pub(crate) fn totals(&self, slot: usize) -> Totals {
        let mut buckets = [0; BOUNDS.len() + 1];
        let mut responses = [0; RESPONSE_SLOTS];
        let mut sum = 0u64;
        for shard in &*self.shards {
            let s = &shard.0[slot];
            sum = sum.wrapping_add(s.sum_nanos.load(Relaxed));
            for (total, bucket) in buckets.iter_mut().zip(&s.buckets) {
                *total += bucket.load(Relaxed);
            }
            for (total, count) in responses.iter_mut().zip(&s.responses) {
                *total += count.load(Relaxed);
            }
        }
        #[allow(clippy::cast_precision_loss)]
        let seconds = sum as f64 / 1e9;
        Totals { count: buckets.iter().sum(), seconds, buckets, responses }
    }
}

/// One request code's histogram, all shards added up.
pub(crate) struct Totals {
    pub(crate) count: u64,
    pub(crate) seconds: f64,
    /// Per bucket (not cumulative); the last one is `+Inf`.
    pub(crate) buckets: [u64; BOUNDS.len() + 1],
    /// By response slot.
    pub(crate) responses: [u64; RESPONSE_SLOTS],
}
