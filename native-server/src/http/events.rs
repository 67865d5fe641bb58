//! The event stream: what the NameServer did, in RocketMQ's words, for `GET /api/events`.
//!
//! The owner hands every core [`Event`] to the [`EventBus`]; connection tasks add a sample of
//! the route queries they answer (at most [`SAMPLES_PER_SECOND`], and only while someone is
//! listening). Sending never waits: a broadcast channel keeps the last [`CAPACITY`] events and
//! a reader that falls behind skips ahead, told how many it missed. The last [`BACKLOG`]
//! events are replayed to every new reader.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use futures_util::Stream;
use nameserver_core::event::Event;
use nameserver_core::{ConnId, Instant};
use serde::Serialize;
use tokio::sync::broadcast::{self, error::RecvError};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::Ctx;
use super::view::wall_ms;

/// Events kept for readers that lag; beyond this they skip ahead.
const CAPACITY: usize = 1024;
/// Events replayed to a new reader.
const BACKLOG: usize = 500;
/// Route queries answered by the snapshot are sampled, at most this often.
const SAMPLES_PER_SECOND: u64 = 10;
/// How often a reader checks whether a broker's channel was read or written (which moves its
/// idle close) without any table changing, to send the view again.
const CHANNEL_CHECK: Duration = Duration::from_secs(1);

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
    /// `registered`, `unregistered`, `expired`, `channel-idle`, `route-query`, … (the page's
    /// log kinds).
    pub(crate) kind: &'static str,
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

/// The page's log kind and Java's log level for an event.
pub(crate) fn kind_of(event: &Event) -> (&'static str, &'static str) {
    match event {
        Event::BrokerRegistered { .. } => ("registered", "info"),
        Event::RegistrationRejected { .. } | Event::RegistrationConflict { .. } => ("register-failed", "warn"),
        Event::TopicRegistered { .. }
        | Event::TopicChanged { .. }
        | Event::TopicDeleted { .. }
        | Event::WritePermChanged { .. } => ("topic-changed", "info"),
        Event::BrokerExpired { .. } => ("expired", "warn"),
        Event::ChannelDestroyed { .. } => ("channel-closed", "info"),
        Event::ChannelIdle { .. } => ("channel-idle", "warn"),
        Event::BrokerUnregistered { .. }
        | Event::BrokerNameRemoved { .. }
        | Event::ClusterRemoved { .. }
        | Event::TopicRemovedWithBroker { .. } => ("unregistered", "info"),
        Event::StaleUnregisterIgnored { .. } => ("unregistered", "warn"),
        Event::KvPut { .. } | Event::KvDeleted { .. } => ("kv", "info"),
        Event::ConfigUpdated { .. } => ("config", "info"),
        Event::ConfigUpdateRefused { .. } => ("config", "warn"),
        Event::HeaderFieldIgnored { .. } => ("request", "warn"),
        Event::MinBrokerIdChanged { .. } => ("notified", "info"),
    }
}

impl EventBus {
    pub(crate) fn subscribers(&self) -> usize {
        self.subscribers.load(Relaxed)
    }

    /// Publishes one line (never waits for readers).
    pub(crate) fn push(&self, at: Instant, kind: &'static str, level: &'static str, text: String) {
        let seq = self.seq.fetch_add(1, Relaxed) + 1;
        let event = Arc::new(LiveEvent { seq, at: at.as_millis(), wall_ms: wall_ms(), kind, level, text });
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
        self.push(at, "route-query", "info", format!("GET_ROUTEINFO_BY_TOPIC {topic} from {remote}: {result}"));
    }

    fn subscribe(&self) -> (broadcast::Receiver<Arc<LiveEvent>>, VecDeque<Arc<LiveEvent>>) {
        self.subscribers.fetch_add(1, Relaxed);
        // Subscribe first, then copy the backlog: an event in both is skipped by its seq.
        let rx = self.tx.subscribe();
        let backlog = self.backlog.lock().unwrap_or_else(PoisonError::into_inner).clone();
        (rx, backlog)
    }
}

/// Counts a reader while it lives; route queries are sampled only while someone listens.
struct Listening(Arc<super::Observer>);

impl Drop for Listening {
    fn drop(&mut self) {
        self.0.events.subscribers.fetch_sub(1, Relaxed);
    }
}

/// What one `/api/events` reader still has to be sent.
struct Reader {
    _listening: Listening,
    ctx: Ctx,
    rx: broadcast::Receiver<Arc<LiveEvent>>,
    backlog: VecDeque<Arc<LiveEvent>>,
    last_seq: u64,
    views: watch::Receiver<u64>,
    view_due: bool,
    /// [`super::view::View::channel_mark`] of the last view sent.
    channel_mark: u64,
    channel_check: tokio::time::Interval,
    stop: CancellationToken,
}

impl Reader {
    async fn next(&mut self) -> Option<SseEvent> {
        // The view first: it tells a reconnecting page whether this is the daemon it knew.
        if std::mem::take(&mut self.view_due) {
            return Some(self.view());
        }
        if let Some(event) = self.backlog.pop_front() {
            self.last_seq = event.seq;
            return Some(log_event(&event));
        }
        loop {
            tokio::select! {
                biased;
                () = self.stop.cancelled() => return None,
                received = self.rx.recv() => match received {
                    Ok(event) if event.seq <= self.last_seq => {}
                    Ok(event) => {
                        self.last_seq = event.seq;
                        return Some(log_event(&event));
                    }
                    Err(RecvError::Lagged(missed)) => {
                        self.ctx.observer.metrics.events_dropped.fetch_add(missed, Relaxed);
                        return Some(SseEvent::default().event("lagged").data(format!("{{\"missed\":{missed}}}")));
                    }
                    Err(RecvError::Closed) => return None,
                },
                changed = self.views.changed() => {
                    if changed.is_err() {
                        return None;
                    }
                    self.views.borrow_and_update();
                    return Some(self.view());
                }
                _ = self.channel_check.tick(), if self.ctx.observer.idle.is_some() => {
                    if self.ctx.observer.view.load().channel_mark() != self.channel_mark {
                        return Some(self.view());
                    }
                }
            }
        }
    }

    fn view(&mut self) -> SseEvent {
        self.channel_mark = self.ctx.observer.view.load().channel_mark();
        let body = super::api::page_view(&self.ctx);
        SseEvent::default().event("view").data(body)
    }
}

fn log_event(event: &LiveEvent) -> SseEvent {
    let body = serde_json::to_string(event).unwrap_or_default();
    SseEvent::default().event("log").id(event.seq.to_string()).data(body)
}

/// `GET /api/events`: server-sent events — `log` (one [`LiveEvent`]), `view` (the tables, on
/// every change), `lagged` (`{"missed": n}` when this reader fell behind). The current view and
/// the backlog come first.
pub(crate) async fn stream(State(ctx): State<Ctx>) -> Sse<impl Stream<Item = Result<SseEvent, Infallible>>> {
    let observer = Arc::clone(&ctx.observer);
    let (rx, backlog) = observer.events.subscribe();
    let reader = Reader {
        _listening: Listening(Arc::clone(&observer)),
        views: observer.view_version.subscribe(),
        stop: ctx.stop.clone(),
        ctx,
        rx,
        backlog,
        last_seq: 0,
        view_due: true,
        channel_mark: 0,
        channel_check: {
            let mut check = tokio::time::interval(CHANNEL_CHECK);
            check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            check
        },
    };
    let stream = futures_util::stream::unfold(reader, |mut reader| async move {
        let event = reader.next().await?;
        Some((Ok(event), reader))
    });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}
