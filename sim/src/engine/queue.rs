//! The event queue: what can be scheduled, the (time, class, sequence number) order events
//! run in, and taking the next one off.

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
    Script(Action),
    Arrive(u64),
    Timer(NodeId, TimerKind, u32),
    Timeout(NodeId, i32, u32),
    Idle(NodeId, ConnId, u32),
}

impl Sim {
    pub(crate) fn schedule(&mut self, at: Instant, class: u8, ev: Ev) {
        self.next_seq += 1;
        self.queue.insert((at.max(self.now), class, self.next_seq), ev);
    }

    pub(crate) fn process_next(&mut self) {
        let Some(((at, _, _), ev)) = self.queue.pop_first() else { return };
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
