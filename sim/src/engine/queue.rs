//! The event queue: what can be scheduled, the (time, class, sequence number) order events
//! run in, and taking the next one off.

use alloc::boxed::Box;
use alloc::collections::BinaryHeap;
use alloc::vec::Vec;
use core::cmp::Ordering;

use crate::Sim;
use crate::node::trace::NodeId;
use crate::node::{NodeState, TimerKind};
use crate::scenario::Action;
use nameserver_core::names::ConnId;
use nameserver_core::time::Instant;

/// Ordering class of events at the same millisecond: everything else first, then script
/// actions, so an action injected live at `now` replays at the same point.
pub(crate) const CLASS_NORMAL: u8 = 1;
pub(crate) const CLASS_SCRIPT: u8 = 2;

/// Something scheduled.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Ev {
    Start(NodeId),
    /// Boxed: rare, and the other events are small (the queue moves them on every push and pop).
    Script(Box<Action>),
    Arrive(u64),
    Timer(NodeId, TimerKind, u32),
    Timeout(NodeId, i32, u32),
    Idle(NodeId, ConnId, u32),
}

/// When an event runs: its time, its class, and the sequence number it was scheduled with
/// (unique, so no two events compare equal).
pub(crate) type Key = (Instant, u8, u64);

/// The events scheduled. A binary heap: the run only ever takes the first one, which costs a
/// few moves of small entries instead of a sorted map's insert and removal (the commonest
/// work of a run after the actors' own: about two per event). The state hash and the time
/// machine, which need the whole order or a search, are rare and sort or scan a copy.
#[derive(Clone, Debug, Default)]
pub(crate) struct EventQueue(BinaryHeap<Queued>);

#[derive(Clone, Debug)]
struct Queued {
    key: Key,
    ev: Ev,
}

impl PartialEq for Queued {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for Queued {}

impl Ord for Queued {
    /// Reversed, so the heap's greatest entry is the earliest event.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl EventQueue {
    fn push(&mut self, key: Key, ev: Ev) {
        self.0.push(Queued { key, ev });
    }

    fn pop(&mut self) -> Option<(Key, Ev)> {
        self.0.pop().map(|q| (q.key, q.ev))
    }

    /// When the first event is due.
    pub(crate) fn first_time(&self) -> Option<Instant> {
        self.0.peek().map(|q| q.key.0)
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Every event, in the order they will run.
    pub(crate) fn in_order(&self) -> Vec<(&Key, &Ev)> {
        let mut all: Vec<(&Key, &Ev)> = self.0.iter().map(|q| (&q.key, &q.ev)).collect();
        all.sort_unstable_by_key(|(key, _)| **key);
        all
    }

    /// Takes out the last (in run order) of the script events at `at` that apply `action`;
    /// returns whether there was one.
    pub(crate) fn remove_last_script(&mut self, at: Instant, action: &Action) -> bool {
        let last = self
            .0
            .iter()
            .filter(|q| q.key.0 == at && q.key.1 == CLASS_SCRIPT)
            .filter(|q| matches!(&q.ev, Ev::Script(a) if **a == *action))
            .map(|q| q.key)
            .max();
        let Some(key) = last else { return false };
        self.0.retain(|q| q.key != key);
        true
    }
}

impl Sim {
    pub(crate) fn schedule(&mut self, at: Instant, class: u8, ev: Ev) {
        self.next_seq += 1;
        self.queue.push((at.max(self.now), class, self.next_seq), ev);
    }

    pub(crate) fn process_next(&mut self) {
        let Some(((at, _, _), ev)) = self.queue.pop() else { return };
        self.now = self.now.max(at);
        self.events += 1;
        match ev {
            Ev::Start(node) => self.start_node(node),
            Ev::Script(action) => self.apply_action(&action),
            Ev::Arrive(id) => self.arrive(id),
            Ev::Timer(node, kind, incarnation) => self.fire_timer(node, kind, incarnation),
            Ev::Timeout(node, opaque, incarnation) => self.fire_timeout(node, opaque, incarnation),
            Ev::Idle(node, conn, incarnation) => self.idle_check(node, conn, incarnation),
        }
        self.after_event();
    }

    /// Whether events for `node` must wait (it is frozen); if so they are kept for later.
    pub(crate) fn defer_if_frozen(&mut self, node: NodeId, ev: Ev) -> bool {
        let n = &mut self.nodes[usize::from(node.0)];
        if n.state == NodeState::Frozen {
            n.deferred.push(ev);
            return true;
        }
        false
    }
}
