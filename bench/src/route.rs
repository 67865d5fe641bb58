//! Route-query load: N connections, each keeping D GET_ROUTEINFO_BY_TOPIC requests in flight
//! (closed loop: a reply frees its slot for the next request) over K topics.
//!
//! Each connection reads whatever replies have arrived, answers each with the next request,
//! and writes the batch in one call. A reply's latency runs from the write that carried its
//! request to the read that returned it. Only requests sent after the warm-up and answered
//! before the end count, in the histogram and in the throughput.

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use bytes::BytesMut;
use tokio::net::TcpStream;

pub use crate::closed_loop::Errors;
use crate::closed_loop::{ClosedLoop, Slots, drive};
use crate::stats::Latencies;
use crate::timeline::Timeline;
use nameserver_testkit::frames::{OPAQUE_BASE, Template};
use nameserver_testkit::scan::{Conn, Reply};

/// The shape of a route load.
#[derive(Clone, Debug)]
pub struct RouteLoad {
    /// The NameServer.
    pub addr: SocketAddr,
    /// Connections.
    pub conns: usize,
    /// Requests in flight per connection.
    pub depth: usize,
    /// Time before measuring.
    pub warmup: Duration,
    /// Time measured.
    pub duration: Duration,
    /// Longest wait for a reply before the connection counts its requests as lost.
    pub timeout: Duration,
    /// Also keep a [`Timeline`] (in the first phase's result).
    pub timeline: bool,
}

/// What one phase of a route load measured.
#[derive(Clone, Debug, Default)]
pub struct RouteResult {
    /// Replies (of any code) that arrived in the phase.
    pub completed: u64,
    /// The phase's length.
    pub window: Duration,
    /// Latencies of requests sent in the phase, whatever their reply's code.
    pub latencies: Latencies,
    /// The slowest request of the phase: its latency and when it was sent, counted from the
    /// start of the load (so a stall can be told apart from connection set-up).
    pub slowest: Option<(Duration, Duration)>,
    /// Errors: over the whole run for [`run`]; for [`run_phases`], replies other than SUCCESS
    /// by code in this phase (connection errors are reported once, in the first phase).
    pub errors: Errors,
    /// Reply bytes over the whole run.
    pub reply_bytes: u64,
    /// Replies over the whole run.
    pub replies: u64,
    /// The whole run over time, when the load asked for it (first phase only).
    pub timeline: Option<Timeline>,
}

impl RouteResult {
    /// Replies per second in the window.
    #[must_use]
    pub fn qps(&self) -> f64 {
        self.completed as f64 / self.window.as_secs_f64().max(1e-9)
    }

    /// Successful replies per second in the window.
    #[must_use]
    pub fn ok_qps(&self) -> f64 {
        let failed: u64 = self.errors.codes.values().sum();
        self.completed.saturating_sub(failed) as f64 / self.window.as_secs_f64().max(1e-9)
    }

    fn merge(&mut self, other: &Self) {
        self.completed += other.completed;
        self.latencies.merge(&other.latencies);
        self.slowest = self.slowest.max(other.slowest);
        self.errors.merge(&other.errors);
        self.reply_bytes += other.reply_bytes;
        self.replies += other.replies;
        if let Some(theirs) = &other.timeline {
            self.timeline.get_or_insert_with(Timeline::default).merge(theirs);
        }
    }
}

/// Consecutive phases from a start: the first lasts until [`Phases::end_first`] is called
/// (or a fixed time), each later one a fixed time. Shared by every connection of a load.
#[derive(Debug)]
pub struct Phases {
    start: Instant,
    first_end: OnceLock<Instant>,
    /// Lengths of the phases after the first.
    after: Vec<Duration>,
}

impl Phases {
    /// A warm-up then one measured window, as [`run`] uses.
    #[must_use]
    pub fn window(start: Instant, warmup: Duration, duration: Duration) -> Self {
        let first_end = OnceLock::new();
        let _ = first_end.set(start + warmup);
        Self { start, first_end, after: vec![duration] }
    }

    /// A measured first phase that lasts until [`Self::end_first`], then measured phases of
    /// the given lengths.
    #[must_use]
    pub fn open(start: Instant, after: Vec<Duration>) -> Self {
        Self { start, first_end: OnceLock::new(), after }
    }

    /// Ends the first phase now (once; later calls do nothing).
    pub fn end_first(&self, at: Instant) {
        let _ = self.first_end.set(at);
    }

    /// How many phases.
    #[must_use]
    pub fn len(&self) -> usize {
        self.after.len() + 1
    }

    /// Never empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The phase `t` falls in; `None` once the last phase is over.
    pub(crate) fn at(&self, t: Instant) -> Option<usize> {
        let Some(&first_end) = self.first_end.get() else { return Some(0) };
        if t < first_end {
            return Some(0);
        }
        let mut end = first_end;
        for (i, len) in self.after.iter().enumerate() {
            end += *len;
            if t < end {
                return Some(i + 1);
            }
        }
        None
    }

    /// The length of phase `i`, once known.
    #[must_use]
    pub fn length(&self, i: usize) -> Duration {
        match i {
            0 => self.first_end.get().map_or(Duration::ZERO, |end| end.saturating_duration_since(self.start)),
            i => self.after.get(i - 1).copied().unwrap_or_default(),
        }
    }
}

/// Runs the load with one template per topic and returns the merged result of its
/// measured window, and of the warm-up (its replies and latencies: a JIT's warm-up is a
/// measure of its own).
pub async fn run(load: &RouteLoad, templates: Arc<[Template]>) -> (RouteResult, RouteResult) {
    // The clock starts once the connections are open: a slow first reply (a JVM not yet
    // compiled) belongs to the warm-up, not to before it.
    let opened = open(load, &templates).await;
    let phases = Arc::new(Phases::window(Instant::now(), load.warmup, load.duration));
    let mut results = run_opened(opened, load, templates, phases).await.into_iter();
    let (warmup, mut measured) = (results.next().unwrap_or_default(), results.next().unwrap_or_default());
    // Errors and reply sizes over the whole run, as this mode has always reported them.
    measured.errors.merge(&warmup.errors);
    measured.replies += warmup.replies;
    measured.reply_bytes += warmup.reply_bytes;
    (warmup, measured)
}

/// The connections of a route load, opened ahead of it.
#[derive(Debug)]
pub struct Opened {
    /// Each connection, and what it had read past its first reply; `None`: it failed.
    conns: Vec<Option<(TcpStream, BytesMut)>>,
}

/// Opens the load's connections, each with one query answered (not measured), so that a load
/// started on them measures a server that has accepted and served every one of them, not its
/// accept loop.
pub async fn open(load: &RouteLoad, templates: &[Template]) -> Opened {
    let mut opening = tokio::task::JoinSet::new();
    for i in 0..load.conns {
        let mut frame = Vec::new();
        templates[first_topic(i, templates.len())].append(OPAQUE_BASE, &mut frame);
        let (addr, timeout) = (load.addr, load.timeout);
        opening.spawn(async move {
            let mut conn = Conn::connect(addr).await.ok()?;
            conn.call(&frame, timeout).await.ok()?;
            Some((i, conn.into_parts()))
        });
    }
    let mut conns: Vec<Option<(TcpStream, BytesMut)>> = (0..load.conns).map(|_| None).collect();
    while let Some(opened) = opening.join_next().await {
        if let Ok(Some((i, conn))) = opened {
            conns[i] = Some(conn);
        }
    }
    Opened { conns }
}

/// Topic of connection `i`'s first query: connections start spread over the topics.
fn first_topic(i: usize, topics: usize) -> usize {
    i.wrapping_mul(7919) % topics.max(1)
}

/// [`open`], then [`run_opened`].
pub async fn run_phases(load: &RouteLoad, templates: Arc<[Template]>, phases: Arc<Phases>) -> Vec<RouteResult> {
    let opened = open(load, &templates).await;
    run_opened(opened, load, templates, phases).await
}

/// Runs the load on `opened` over `phases` (`load.warmup` and `load.duration` are not used)
/// and returns one result per phase.
pub async fn run_opened(
    opened: Opened,
    load: &RouteLoad,
    templates: Arc<[Template]>,
    phases: Arc<Phases>,
) -> Vec<RouteResult> {
    let tasks: Vec<_> = opened
        .conns
        .into_iter()
        .enumerate()
        .map(|(i, conn)| {
            let templates = Arc::clone(&templates);
            let phases = Arc::clone(&phases);
            // The query after the one that opened the connection.
            let next = (first_topic(i, templates.len()) + 1) % templates.len().max(1);
            let (depth, timeout) = (load.depth.max(1), load.timeout);
            let timeline = load.timeline;
            tokio::spawn(async move {
                let mut route = RouteConn::new(templates, next, depth, phases);
                if timeline {
                    route.results[0].timeline = Some(Timeline::default());
                }
                match conn {
                    Some((stream, inbuf)) => drive(&mut route, stream, inbuf, timeout).await,
                    None => route.results[0].errors.io += 1,
                }
                route.results
            })
        })
        .collect();
    let mut total: Vec<RouteResult> = vec![RouteResult::default(); phases.len()];
    for task in tasks {
        match task.await {
            Ok(results) => {
                for (sum, one) in total.iter_mut().zip(&results) {
                    sum.merge(one);
                }
            }
            Err(_) => total[0].errors.io += 1,
        }
    }
    for (i, result) in total.iter_mut().enumerate() {
        result.window = phases.length(i);
    }
    total
}

struct RouteConn {
    templates: Arc<[Template]>,
    next_topic: usize,
    phases: Arc<Phases>,
    slots: Slots,
    /// One per phase; connection errors go to the first.
    results: Vec<RouteResult>,
}

impl RouteConn {
    fn new(templates: Arc<[Template]>, first_topic: usize, depth: usize, phases: Arc<Phases>) -> Self {
        let results = vec![RouteResult::default(); phases.len()];
        Self { templates, next_topic: first_topic, phases, slots: Slots::new(depth, 256), results }
    }

    /// Queues the next request in `slot`; its opaque says which slot it is.
    fn push(&mut self, slot: usize, now: Instant) {
        let opaque = self.slots.send(slot, now);
        self.templates[self.next_topic].append(opaque, &mut self.slots.out);
        self.next_topic = (self.next_topic + 1) % self.templates.len();
    }

    fn on_reply(&mut self, code: i32, opaque: i32, frame_len: usize, now: Instant, phase: Option<usize>) {
        self.results[0].replies += 1;
        self.results[0].reply_bytes += frame_len as u64;
        let Some((slot, sent)) = self.slots.answer(opaque) else {
            self.results[0].errors.protocol += 1;
            return;
        };
        if let Some(at) = phase {
            self.results[at].completed += 1;
        }
        if let Some(timeline) = &mut self.results[0].timeline {
            let start = self.phases.start;
            timeline.record(sent.saturating_duration_since(start), now.saturating_duration_since(start), code == 0);
        }
        let sent_in = self.phases.at(sent);
        if let Some(sent_in) = sent_in {
            let result = &mut self.results[sent_in];
            result.latencies.record(now - sent);
            let slowest = Some((now - sent, sent.saturating_duration_since(self.phases.start)));
            result.slowest = result.slowest.max(slowest);
        }
        self.results[sent_in.unwrap_or(0)].errors.reply_code(code);
        if phase.is_some() {
            self.push(slot, now);
        }
    }
}

impl ClosedLoop for RouteConn {
    fn slots(&mut self) -> &mut Slots {
        &mut self.slots
    }

    fn push(&mut self, slot: usize, now: Instant) {
        Self::push(self, slot, now);
    }

    fn errors(&mut self) -> &mut Errors {
        &mut self.results[0].errors
    }

    fn phase(&self, now: Instant) -> Option<usize> {
        self.phases.at(now)
    }

    fn reply(&mut self, reply: &Reply, now: Instant, phase: Option<usize>) {
        self.on_reply(reply.code, reply.opaque, reply.frame_len, now, phase);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nameserver_testkit::frames::route_templates;

    /// Against the floor: connections opened ahead answer from the first measured request on,
    /// and a phase's slowest request is reported with its time.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_opened_load_runs_its_phases() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(crate::floor::serve(listener, Arc::from(&b"{}"[..])));
        let templates: Arc<[Template]> = route_templates(5).into();
        let load = RouteLoad {
            addr,
            conns: 3,
            depth: 2,
            warmup: Duration::ZERO,
            duration: Duration::from_millis(100),
            timeout: Duration::from_secs(10),
            timeline: true,
        };
        let opened = open(&load, &templates).await;
        assert_eq!(opened.conns.iter().filter(|c| c.is_some()).count(), 3);
        let start = Instant::now();
        let phases = Arc::new(Phases::open(start, vec![Duration::from_millis(100)]));
        let ender = Arc::clone(&phases);
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            ender.end_first(Instant::now());
        });
        let results = run_opened(opened, &load, templates, phases).await;
        assert_eq!(results.len(), 2);
        let timeline = results[0].timeline.as_ref().expect("a timeline").fields();
        assert!(timeline.starts_with("tl_ok=") && !timeline.contains("tl_ok=-"), "{timeline}");
        for result in &results {
            assert!(result.completed > 0, "{result:?}");
            assert_eq!(result.errors.total(), 0, "{result:?}");
            let (slowest, sent) = result.slowest.expect("a slowest request");
            assert!(slowest > Duration::ZERO && sent < Duration::from_secs(5), "{slowest:?} {sent:?}");
        }
    }
}
