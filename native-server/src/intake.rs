//! The owner's intake: what the connection tasks hand the owner, one FIFO lane per connection,
//! taken round robin, so that one peer's flood delays another peer's request by at most one
//! request per connection with work (issue 28).
//!
//! - A lane holds at most [`LANE_REQUESTS`] requests, oneway ones included. A request that
//!   does not fit goes back to its connection task, which stops reading from that peer until the
//!   owner takes one of its requests ([`Admission::Full`], [`Intake::room`]): back-pressure on
//!   that connection only.
//! - All lanes together hold at most [`MAX_REQUESTS`] requests and [`MAX_BYTES`] of them. Past
//!   either bound a connection that already has requests queued is refused
//!   ([`Admission::Busy`]: SYSTEM_BUSY for a two-way request, as Java's full executor queue
//!   answers; a oneway one is dropped; both counted), and a connection with nothing queued is
//!   always admitted: brokers send one request at a time, so no flood refuses a registration
//!   or a heartbeat. The bounds are exceeded by at most one request per connection.
//! - The owner takes one item per connection per turn ([`Intake::next`]; the rest of a batch,
//!   one item from each of other connections: [`Intake::try_next_except`]).
//!
//! A lane also carries its connection's `Idle`, `Drained` and `Disconnected`, after what it
//! sent before them and outside the bounds. `Connected` and the console's requests come on the
//! owner's channel, which the owner empties before taking from a lane.
//!
//! Why lanes of `VecDeque`s behind one mutex rather than a bounded channel per connection: the
//! admission rule reads a connection's count and the totals together, and the owner must find
//! the next connection with work without polling every channel; a ring of connections with
//! work (each in it once) under the same mutex gives both, a [`Notify`] wakes the owner, and
//! the lock is held for one push or pop, never across an await.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex, MutexGuard};

use nameserver_core::ConnId;
use nameserver_core::protocol::{RemotingCommand, Request};
use tokio::sync::Notify;

use crate::messages::{Handed, Inbound, queued_size};
use crate::observe::Observer;

/// Requests one connection may have waiting for the owner.
pub(crate) const LANE_REQUESTS: usize = 64;
/// Requests all connections together may have waiting (the depth of the one queue before).
pub(crate) const MAX_REQUESTS: usize = 4096;
/// Bytes of requests all connections together may have waiting (the inflate limit).
pub(crate) const MAX_BYTES: usize = 64 * 1024 * 1024;
/// Queued bytes from which a request counts as heavy (a registration of thousands of topics):
/// one that follows lighter requests in a turn waits for the next turn, so that their replies,
/// held until the turn's end, do not wait for it too. A compressed registration is heavy
/// whatever its size: a few KiB may inflate to the decompression limit ([`heavy`]).
pub(crate) const HEAVY_BYTES: usize = 16 * 1024;
/// Java 5.5.0's remark with SYSTEM_BUSY when its executor's queue is full.
pub(crate) const BUSY_REMARK: &str = "[OVERLOAD]system busy, start flow control for a while";

/// Whether `cmd` is a heavy request: [`HEAVY_BYTES`] or more queued, or a body to inflate.
fn heavy(cmd: &RemotingCommand) -> bool {
    queued_size(cmd) >= HEAVY_BYTES || Request::inflates(cmd)
}

/// What became of a request handed to [`Intake::request`].
#[derive(Debug)]
pub(crate) enum Admission {
    /// In its connection's lane.
    Queued,
    /// The lane is full: the request comes back, to be handed over again once
    /// [`Intake::room`] is notified.
    Full(Handed),
    /// Refused (counted): the caller answers a two-way request with SYSTEM_BUSY.
    Busy(RemotingCommand),
    /// The owner has stopped.
    Closed,
}

/// The lanes and the owner's side of them; shared by the connection tasks and the owner.
#[derive(Debug)]
pub(crate) struct Intake {
    lanes: Mutex<Lanes>,
    /// Wakes the owner when an item arrives.
    work: Notify,
    observe: Arc<Observer>,
}

#[derive(Debug, Default)]
struct Lanes {
    by_conn: HashMap<ConnId, Lane>,
    /// Connections with items, in the order of their turns; each at most once.
    turns: VecDeque<ConnId>,
    requests: usize,
    bytes: usize,
    /// The owner has stopped: nothing more is taken.
    closed: bool,
}

/// A queued request as the lanes count it, worked out before the lock is taken.
#[derive(Clone, Copy, Debug)]
struct Queued {
    size: usize,
    heavy: bool,
}

#[derive(Debug, Default)]
struct Lane {
    /// Each item, with what the lanes count of it if it is a request.
    items: VecDeque<(Inbound, Option<Queued>)>,
    requests: usize,
    /// Notified when the owner takes one of this lane's requests.
    room: Arc<Notify>,
}

impl Intake {
    pub(crate) fn new(observe: Arc<Observer>) -> Self {
        Self { lanes: Mutex::default(), work: Notify::new(), observe }
    }

    fn lock(&self) -> MutexGuard<'_, Lanes> {
        // Nothing panics while holding it; a poisoned lock still holds consistent lanes.
        self.lanes.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// What connection `conn` waits on after [`Admission::Full`].
    pub(crate) fn room(&self, conn: ConnId) -> Arc<Notify> {
        Arc::clone(&self.lock().by_conn.entry(conn).or_default().room)
    }

    /// Hands the owner a command connection `conn` received, under the rules of the module.
    pub(crate) fn request(&self, conn: ConnId, handed: Handed) -> Admission {
        let queued = Queued { size: handed.queued_size(), heavy: heavy(&handed.cmd) };
        let size = queued.size;
        let mut guard = self.lock();
        let lanes = &mut *guard;
        if lanes.closed {
            return Admission::Closed;
        }
        let lane = lanes.by_conn.entry(conn).or_default();
        if lane.requests >= LANE_REQUESTS {
            return Admission::Full(handed);
        }
        if lane.requests > 0 && (lanes.requests >= MAX_REQUESTS || lanes.bytes + size > MAX_BYTES) {
            drop(guard);
            let metrics = &self.observe.metrics;
            let counter = if handed.cmd.is_oneway() || handed.cmd.is_response() {
                &metrics.owner_queue_dropped
            } else {
                &metrics.owner_queue_busy
            };
            counter.fetch_add(1, Relaxed);
            return Admission::Busy(handed.cmd);
        }
        #[cfg(feature = "test-hooks")]
        self.observe.test_hooks.arrived(conn, &handed.cmd);
        lane.requests += 1;
        if lane.items.is_empty() {
            lanes.turns.push_back(conn);
        }
        let Handed { cmd, parsed, at } = handed;
        lane.items.push_back((Inbound::Received { conn, cmd, parsed, at }, Some(queued)));
        lanes.requests += 1;
        lanes.bytes += size;
        self.publish(lanes);
        drop(guard);
        self.work.notify_one();
        Admission::Queued
    }

    /// Hands the owner `Idle`, `Drained` or `Disconnected` of `conn`, after its requests and
    /// whatever the bounds; `false` once the owner has stopped.
    pub(crate) fn push(&self, conn: ConnId, message: Inbound) -> bool {
        let mut guard = self.lock();
        let lanes = &mut *guard;
        if lanes.closed {
            return false;
        }
        let lane = lanes.by_conn.entry(conn).or_default();
        if lane.items.is_empty() {
            lanes.turns.push_back(conn);
        }
        lane.items.push_back((message, None));
        drop(guard);
        self.work.notify_one();
        true
    }

    /// The next item, one connection per turn; waits for one (and, with the test hooks, while
    /// the intake is paused).
    pub(crate) async fn next(&self) -> Inbound {
        loop {
            // Taken before looking, so that a resume after the look wakes the wait below.
            #[cfg(feature = "test-hooks")]
            let mut paused = self.observe.test_hooks.subscribe();
            if let Some(message) = self.pop(&[], false) {
                return message;
            }
            // One waiter (the owner): a push before this wait leaves a permit.
            #[cfg(feature = "test-hooks")]
            tokio::select! {
                () = self.work.notified() => {}
                _ = paused.changed() => {}
            }
            #[cfg(not(feature = "test-hooks"))]
            self.work.notified().await;
        }
    }

    /// The next item if one is waiting and its connection is not one of `taken` (see
    /// [`Self::next`]), without waiting; not a [`heavy`] one if `light_taken`.
    pub(crate) fn try_next_except(&self, taken: &[ConnId], light_taken: bool) -> Option<Inbound> {
        self.pop(taken, light_taken)
    }

    /// Whether `message`, taken, was a light one (not a [`heavy`] request).
    pub(crate) fn light(message: &Inbound) -> bool {
        !matches!(message, Inbound::Received { cmd, .. } if heavy(cmd))
    }

    /// The item of the next connection's turn, unless that connection is one of `skip`, or
    /// the item is heavy and `no_heavy`.
    fn pop(&self, skip: &[ConnId], no_heavy: bool) -> Option<Inbound> {
        let mut guard = self.lock();
        let lanes = &mut *guard;
        #[cfg(feature = "test-hooks")]
        if self.observe.test_hooks.paused() {
            return None;
        }
        while let Some(&conn) = lanes.turns.front() {
            if skip.contains(&conn) {
                return None;
            }
            let heavy = |lane: &Lane| lane.items.front().is_some_and(|(_, queued)| queued.is_some_and(|q| q.heavy));
            if no_heavy && lanes.by_conn.get(&conn).is_some_and(heavy) {
                return None;
            }
            lanes.turns.pop_front();
            let Some(lane) = lanes.by_conn.get_mut(&conn) else { continue };
            let Some((message, queued)) = lane.items.pop_front() else { continue };
            if let Some(Queued { size, .. }) = queued {
                lane.requests -= 1;
                lanes.requests -= 1;
                lanes.bytes -= size;
                lane.room.notify_one();
            }
            if matches!(message, Inbound::Disconnected { .. }) {
                // Its last item: the task has ended.
                lanes.by_conn.remove(&conn);
            } else if !lane.items.is_empty() {
                lanes.turns.push_back(conn);
            }
            self.publish(lanes);
            #[cfg(feature = "test-hooks")]
            if let Inbound::Received { conn, cmd, .. } = &message {
                self.observe.test_hooks.handled(*conn, cmd);
            }
            return Some(message);
        }
        None
    }

    /// The owner has stopped: later items are refused, and what waits is dropped.
    pub(crate) fn close(&self) {
        let mut lanes = self.lock();
        lanes.closed = true;
        for lane in lanes.by_conn.values() {
            // A connection waiting for room learns that the owner is gone.
            lane.room.notify_one();
        }
        lanes.by_conn.clear();
        lanes.turns.clear();
        lanes.requests = 0;
        lanes.bytes = 0;
        self.publish(&lanes);
    }

    fn publish(&self, lanes: &Lanes) {
        let metrics = &self.observe.metrics;
        metrics.owner_queue_requests.store(lanes.requests as u64, Relaxed);
        metrics.owner_queue_bytes.store(lanes.bytes as u64, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nameserver_core::protocol::{FLAG_ONEWAY, RequestCode};

    fn intake() -> Intake {
        let routes = Arc::new(arc_swap::ArcSwap::from_pointee(crate::snapshot::RouteSnapshot::empty()));
        Intake::new(Arc::new(Observer::new(false, routes, crate::clock::Clock::start(), None, Vec::new())))
    }

    fn cmd(opaque: i32, oneway: bool) -> RemotingCommand {
        let mut cmd = RemotingCommand::request(RequestCode::GetAllTopicListFromNameserver);
        cmd.opaque = opaque;
        if oneway {
            cmd.flag |= FLAG_ONEWAY;
        }
        cmd
    }

    fn taken(intake: &Intake) -> Vec<(u64, i32)> {
        std::iter::from_fn(|| intake.pop(&[], false))
            .map(|message| match message {
                Inbound::Received { conn, cmd, .. } => (conn.0, cmd.opaque),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn lanes_are_taken_round_robin_and_a_full_lane_gives_the_request_back() {
        let intake = intake();
        for opaque in 0..70 {
            let admitted = intake.request(ConnId(1), Handed::unread(cmd(opaque, false), None));
            assert_eq!(matches!(admitted, Admission::Queued), opaque < 64, "{opaque}: {admitted:?}");
        }
        assert!(matches!(intake.request(ConnId(2), Handed::unread(cmd(100, false), None)), Admission::Queued));
        assert!(matches!(intake.request(ConnId(2), Handed::unread(cmd(101, true), None)), Admission::Queued));
        let order = taken(&intake);
        assert_eq!(&order[..4], &[(1, 0), (2, 100), (1, 1), (2, 101)]);
        assert_eq!(order.len(), 66);
        assert!(matches!(intake.request(ConnId(1), Handed::unread(cmd(64, false), None)), Admission::Queued));
    }

    #[test]
    fn a_batch_takes_one_item_per_connection() {
        let intake = intake();
        for (conn, opaque) in [(1, 0), (1, 1), (2, 10), (3, 20), (3, 21)] {
            assert!(matches!(
                intake.request(ConnId(conn), Handed::unread(cmd(opaque, false), None)),
                Admission::Queued
            ));
        }
        let mut batch = Vec::new();
        while let Some(Inbound::Received { conn, cmd, .. }) = intake.try_next_except(&batch, true) {
            batch.push(conn);
            assert_ne!(cmd.opaque % 10, 1, "a connection's second request waits for the next turn");
        }
        assert_eq!(batch, [ConnId(1), ConnId(2), ConnId(3)]);
        assert_eq!(taken(&intake), [(1, 1), (3, 21)], "the next turn starts where this one stopped");
    }

    #[test]
    fn a_heavy_request_joins_a_turn_only_behind_heavy_ones() {
        let intake = intake();
        let heavy = |opaque| cmd(opaque, false).with_body(vec![b'x'; HEAVY_BYTES]);
        let queued = [(1, heavy(0)), (2, heavy(10)), (3, cmd(20, false)), (4, heavy(30)), (5, cmd(40, false))];
        for (conn, cmd) in queued {
            assert!(matches!(intake.request(ConnId(conn), Handed::unread(cmd, None)), Admission::Queued));
        }
        let turn = || {
            let mut batch = Vec::new();
            let mut light = false;
            while let Some(message) = intake.try_next_except(&batch, light) {
                light |= Intake::light(&message);
                batch.extend(message.conn());
            }
            batch
        };
        // Heavy ones batch; a light one may follow; a heavy one after it waits.
        assert_eq!(turn(), [ConnId(1), ConnId(2), ConnId(3)]);
        assert_eq!(turn(), [ConnId(4), ConnId(5)]);

        // A compressed registration is heavy however small: it may inflate to the limit.
        let register = |opaque, compressed: &str| {
            let mut cmd = RemotingCommand::request(RequestCode::RegisterBroker).with_field("compressed", compressed);
            cmd.opaque = opaque;
            cmd.with_body(vec![b'x'; 64])
        };
        let queued = [(6, cmd(50, false)), (7, register(60, "false")), (8, register(70, "TRUE")), (9, cmd(80, false))];
        for (conn, cmd) in queued {
            assert!(matches!(intake.request(ConnId(conn), Handed::unread(cmd, None)), Admission::Queued));
        }
        assert_eq!(turn(), [ConnId(6), ConnId(7)]);
        assert_eq!(turn(), [ConnId(8), ConnId(9)]);
    }

    #[test]
    fn past_the_total_a_loaded_connection_is_refused_and_an_empty_one_admitted() {
        let intake = intake();
        for conn in 0..128 {
            for opaque in 0..32 {
                assert!(matches!(
                    intake.request(ConnId(conn), Handed::unread(cmd(opaque, false), None)),
                    Admission::Queued
                ));
            }
        }
        assert!(matches!(intake.request(ConnId(500), Handed::unread(cmd(1, false), None)), Admission::Queued));
        assert!(matches!(intake.request(ConnId(3), Handed::unread(cmd(32, false), None)), Admission::Busy(_)));
        assert!(matches!(intake.request(ConnId(3), Handed::unread(cmd(33, true), None)), Admission::Busy(_)));
        let metrics = &intake.observe.metrics;
        assert_eq!((metrics.owner_queue_busy.load(Relaxed), metrics.owner_queue_dropped.load(Relaxed)), (1, 1));
        assert_eq!(metrics.owner_queue_requests.load(Relaxed), 4097);
        assert_eq!(taken(&intake).len(), 4097);
        assert_eq!(metrics.owner_queue_requests.load(Relaxed), 0);
    }
}
