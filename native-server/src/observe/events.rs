//! The event bus: what the NameServer did, in RocketMQ's words, for `GET /api/events`
//! (`http/events.rs`).
//!
//! The owner hands every core [`Event`] to the [`EventBus`]; connection tasks add a sample of
//! the route queries they answer (at most [`SAMPLES_PER_SECOND`], and only while someone is
//! listening). Sending never waits: a broadcast channel keeps the last [`CAPACITY`] events and
//! a reader that falls behind skips ahead, told how many it missed. The last [`BACKLOG`]
//! events are replayed to every new reader.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, PoisonError};

use nameserver_core::event::{Event, EventKind, Severity};
use nameserver_core::excerpt::Excerpt;
use nameserver_core::{ConnId, Instant};
use serde::Serialize;
use tokio::sync::broadcast;

use super::view::wall_ms;

/// Events kept for readers that lag; beyond this they skip ahead.
const CAPACITY: usize = 1024;
/// Events replayed to a new reader.
const BACKLOG: usize = 500;
/// Route queries answered by the snapshot are sampled, at most this often.
const SAMPLES_PER_SECOND: u64 = 10;

/// One line of the event log.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LiveEvent {
    /// Increases by one per event; starts over when the daemon restarts.
    pub(crate) seq: u64,
    /// The NameServer's clock: milliseconds since the daemon started.
    pub(crate) at: u64,
    /// Wall-clock milliseconds since 1970.
    pub(crate) wall_ms: u64,
    /// The group the page files the line under: the event's category (`registered`,
    /// `unregistered`, `expired`, `channel-idle`, …), or `route-query` for a sampled route query.
    pub(crate) kind: &'static str,
    /// The core event's [`EventKind`] name (`broker-registered`, `kv-put`, …); null for the
    /// console's own lines (route queries, lines left out).
    pub(crate) event: Option<&'static str>,
    /// `info` or `warn`, as the Java NameServer logs the line.
    pub(crate) level: &'static str,
    /// The line in RocketMQ's words.
    pub(crate) text: String,
}

/// Where events go: a lossy broadcast plus a short backlog for new readers.
#[derive(Debug)]
pub(crate) struct EventBus {
    tx: broadcast::Sender<Arc<LiveEvent>>,
    backlog: Mutex<VecDeque<Arc<LiveEvent>>>,
    seq: AtomicU64,
    subscribers: AtomicUsize,
    /// Milliseconds since `epoch` before which no route query is sampled.
    next_sample: AtomicU64,
    epoch: std::time::Instant,
    /// Peer addresses by connection, for route query lines.
    remotes: Mutex<HashMap<ConnId, Arc<str>>>,
}

impl Default for EventBus {
    fn default() -> Self {
        Self {
            tx: broadcast::channel(CAPACITY).0,
            backlog: Mutex::new(VecDeque::with_capacity(BACKLOG)),
            seq: AtomicU64::new(0),
            subscribers: AtomicUsize::new(0),
            next_sample: AtomicU64::new(0),
            epoch: std::time::Instant::now(),
            remotes: Mutex::new(HashMap::new()),
        }
    }
}

impl EventBus {
    pub(crate) fn subscribers(&self) -> usize {
        self.subscribers.load(Relaxed)
    }

    /// Publishes a core event, filed by its kind.
    pub(crate) fn event(&self, at: Instant, event: &Event) {
        let kind = event.kind();
        self.push(at, kind.category().name(), Some(kind), kind.severity(), event.to_string());
    }

    /// Publishes one line (never waits for readers).
    pub(crate) fn push(
        &self,
        at: Instant,
        kind: &'static str,
        event: Option<EventKind>,
        level: Severity,
        text: String,
    ) {
        let seq = self.seq.fetch_add(1, Relaxed) + 1;
        let event = Arc::new(LiveEvent {
            seq,
            at: at.as_millis(),
            wall_ms: wall_ms(),
            kind,
            event: event.map(EventKind::name),
            level: level.name(),
            text,
        });
        {
            let mut backlog = self.backlog.lock().unwrap_or_else(PoisonError::into_inner);
            if backlog.len() == BACKLOG {
                backlog.pop_front();
            }
            backlog.push_back(Arc::clone(&event));
        }
        // No receiver is not an error: the backlog still has it.
        let _ = self.tx.send(event);
    }

    pub(crate) fn connected(&self, conn: ConnId, remote: &str) {
        self.remotes.lock().unwrap_or_else(PoisonError::into_inner).insert(conn, Arc::from(remote));
    }

    pub(crate) fn disconnected(&self, conn: ConnId) {
        self.remotes.lock().unwrap_or_else(PoisonError::into_inner).remove(&conn);
    }

    /// Whether a route query answered at `now` should be reported: someone listens and the
    /// last sample is at least 1/[`SAMPLES_PER_SECOND`] s old.
    pub(crate) fn want_sample(&self, now: std::time::Instant) -> bool {
        if self.subscribers.load(Relaxed) == 0 {
            return false;
        }
        let ms = u64::try_from(now.saturating_duration_since(self.epoch).as_millis()).unwrap_or(u64::MAX);
        let due = self.next_sample.load(Relaxed);
        ms >= due && self.next_sample.compare_exchange(due, ms + 1000 / SAMPLES_PER_SECOND, Relaxed, Relaxed).is_ok()
    }

    /// Reports one route query (GET_ROUTEINFO_BY_TOPIC) and how it was answered.
    pub(crate) fn route_query(&self, at: Instant, conn: ConnId, topic: &str, found: bool) {
        let remote = self.remotes.lock().unwrap_or_else(PoisonError::into_inner).get(&conn).cloned();
        let remote = remote.map_or_else(|| conn.to_string(), |r| r.to_string());
        let result = if found { "SUCCESS" } else { "TOPIC_NOT_EXIST" };
        self.push(
            at,
            "route-query",
            None,
            Severity::Info,
            format!("GET_ROUTEINFO_BY_TOPIC {} from {remote}: {result}", Excerpt(topic)),
        );
    }

    /// A new reader: the live events and the backlog; it calls [`Self::unsubscribe`] when it
    /// goes.
    pub(crate) fn subscribe(&self) -> (broadcast::Receiver<Arc<LiveEvent>>, VecDeque<Arc<LiveEvent>>) {
        self.subscribers.fetch_add(1, Relaxed);
        // Subscribe first, then copy the backlog: an event in both is skipped by its seq.
        let rx = self.tx.subscribe();
        let backlog = self.backlog.lock().unwrap_or_else(PoisonError::into_inner).clone();
        (rx, backlog)
    }

    pub(crate) fn unsubscribe(&self) {
        self.subscribers.fetch_sub(1, Relaxed);
    }
}
