//! Applying script actions: process faults, link faults, message faults and admin commands.

use alloc::string::String;
use alloc::vec::Vec;
use core::mem;

use crate::engine::history::FaultRecord;
use crate::engine::net::{Link, Payload};
use crate::engine::queue::{CLASS_NORMAL, Ev};
use crate::node::NodeState;
use crate::node::trace::{NodeId, TraceKind};
use crate::scenario::Action;
use crate::scenario::text::action_text;
use crate::{Actor, Sim};
use nameserver_core::names::TopicName;

impl Sim {
    fn node_named(&self, name: &str) -> Option<NodeId> {
        self.scenario.node_index(name).map(|i| NodeId(i as u16))
    }

    /// Carries out one action now.
    pub(crate) fn apply_action(&mut self, action: &Action) {
        let target = match action {
            Action::Drop(id) | Action::Delay(id, _) => self.net.flights.get(id).map(|f| f.from),
            _ => action.node_names().first().and_then(|n| self.node_named(n)),
        };
        self.history.faults.push(FaultRecord { at: self.now, action: action.clone(), target });
        self.stale_dirty = true;
        let trace_node = target.unwrap_or(NodeId(0));
        self.trace_line(trace_node, TraceKind::Fault, action_text(action));
        match action {
            Action::Shutdown(n) => {
                let Some(id) = self.node_named(n) else { return };
                self.shutdown(id);
            }
            Action::Kill(n) => {
                if let Some(id) = self.node_named(n) {
                    self.kill(id, true);
                }
            }
            Action::PowerOff(n) => {
                if let Some(id) = self.node_named(n) {
                    self.kill(id, false);
                }
            }
            Action::Freeze(n) => {
                if let Some(id) = self.node_named(n) {
                    if self.node(id).state == NodeState::Up {
                        self.node_mut(id).state = NodeState::Frozen;
                    }
                }
            }
            Action::Unfreeze(n) => {
                let Some(id) = self.node_named(n) else { return };
                if self.node(id).state != NodeState::Frozen {
                    return;
                }
                self.node_mut(id).state = NodeState::Up;
                self.node_mut(id).resumed_at = Some(self.now);
                // What piled up while frozen happens now, in the order it came.
                let deferred = mem::take(&mut self.node_mut(id).deferred);
                let now = self.now;
                for ev in deferred {
                    if let Ev::Arrive(flight) = &ev {
                        if let Some(f) = self.net.flights.get_mut(flight) {
                            f.arrive_at = now;
                        }
                    }
                    if let Ev::Timer(_, kind, _) = &ev {
                        self.node_mut(id).timers.insert(*kind, now);
                    }
                    if let Ev::Timeout(_, opaque, _) = &ev {
                        if let Some(p) = self.node_mut(id).pending.get_mut(opaque) {
                            p.deadline = now;
                        }
                    }
                    self.schedule(now, CLASS_NORMAL, ev);
                }
                self.catch_up_from_master(id);
            }
            Action::Restart(n) => {
                let Some(id) = self.node_named(n) else { return };
                if matches!(self.node(id).state, NodeState::Up | NodeState::Frozen | NodeState::ShuttingDown) {
                    self.kill(id, true);
                }
                self.start_node(id);
            }
            Action::Cut(a, b) | Action::Reset(a, b) | Action::Heal(a, b) => {
                let (Some(a), Some(b)) = (self.node_named(a), self.node_named(b)) else { return };
                let link = match action {
                    Action::Cut(..) => Link::Cut,
                    Action::Reset(..) => Link::Reset,
                    _ => Link::Up,
                };
                self.net.set_link(a, b, link);
                if link == Link::Reset {
                    for conn in self.net.conns_between(a, b) {
                        for side in [a, b] {
                            if self.net.conns.get(&conn).is_some_and(|c| c.open_at(side)) {
                                self.net.close_side(conn, side);
                                self.fail_pending(side, conn, crate::Failure::ConnectFailed);
                                self.after_close(side, conn);
                            }
                        }
                    }
                }
            }
            Action::Drop(id) => {
                self.net.flights.remove(id);
            }
            Action::Delay(id, ms) => {
                if let Some(at) = self.net.delay(*id, *ms) {
                    self.schedule(at, CLASS_NORMAL, Ev::Arrive(*id));
                }
            }
            Action::CreateTopic { group, topic, queues } => {
                let brokers: Vec<NodeId> = (0..self.nodes.len())
                    .map(|i| NodeId(i as u16))
                    .filter(|id| self.is_running(*id))
                    .filter(|id| matches!(&self.node(*id).actor, Actor::Broker(b) if b.group.as_str() == group))
                    .collect();
                let (topic, queues) = (TopicName::from(topic.as_str()), *queues);
                for id in brokers {
                    let topic = topic.clone();
                    self.with_actor(id, |actor, cx| {
                        if let Actor::Broker(b) = actor {
                            b.create_topic(topic, queues, cx);
                        }
                    });
                }
            }
            Action::AutoCreate(on) => {
                self.scenario.auto_create = *on;
                for node in &mut self.nodes {
                    if let Actor::Broker(b) = &mut node.actor {
                        b.auto_create = *on;
                    }
                }
            }
            Action::Send(n, count) => {
                let Some(id) = self.node_named(n) else { return };
                if self.node(id).state != NodeState::Up {
                    return;
                }
                self.with_actor(id, |actor, cx| {
                    if let Actor::Producer(p) = actor {
                        p.send_burst(*count, cx);
                    }
                });
            }
            Action::FaultTolerance(n, on) => {
                let Some(id) = self.node_named(n) else { return };
                if let Some(crate::NodeSpec::Producer { fault_tolerance, .. }) =
                    self.scenario.nodes.get_mut(usize::from(id.0))
                {
                    *fault_tolerance = *on;
                }
                if let Actor::Producer(p) = &mut self.node_mut(id).actor {
                    p.fault_tolerance = *on;
                    if !*on {
                        p.faults.clear();
                    }
                }
            }
        }
    }

    /// Graceful shutdown: brokers unregister first, consumers commit their offsets first;
    /// then the process exits and its connections close.
    fn shutdown(&mut self, id: NodeId) {
        if self.node(id).state != NodeState::Up {
            return;
        }
        if matches!(self.node(id).actor, Actor::NameServer(_) | Actor::None) {
            self.kill(id, true);
            return;
        }
        self.node_mut(id).state = NodeState::ShuttingDown;
        self.with_actor(id, |actor, cx| match actor {
            Actor::Broker(b) => b.shutdown(cx),
            Actor::Producer(p) => p.shutdown(cx),
            Actor::Consumer(c) => c.shutdown(cx),
            Actor::NameServer(_) | Actor::None => {}
        });
    }

    /// The process dies. With `os_alive` (kill -9, exit) the OS closes its connections;
    /// without (power off) nothing is sent at all.
    pub(crate) fn kill(&mut self, id: NodeId, os_alive: bool) {
        if matches!(self.node(id).state, NodeState::NotStarted | NodeState::Down | NodeState::PoweredOff) {
            return;
        }
        let was = self.node(id).state;
        self.stale_dirty = true;
        for conn in self.net.conns_of(id) {
            if os_alive {
                self.transmit(conn, id, Payload::Fin, None);
            }
            self.net.close_side(conn, id);
        }
        // Frames a frozen process never read die with its socket buffers.
        for ev in mem::take(&mut self.node_mut(id).deferred) {
            if let Ev::Arrive(flight) = ev {
                self.net.flights.remove(&flight);
            }
        }
        let node = self.node_mut(id);
        match &node.actor {
            Actor::Broker(b) => node.disk = Some(b.disk()),
            Actor::Consumer(c) => node.consume_log = Some(c.log.clone()),
            _ => {}
        }
        node.state = if os_alive { NodeState::Down } else { NodeState::PoweredOff };
        node.incarnation += 1;
        node.actor = Actor::None;
        node.timers.clear();
        node.pending.clear();
        node.conns.clear();
        node.deferred.clear();
        let verb = match (was, os_alive) {
            (NodeState::ShuttingDown, _) => "exited after graceful shutdown",
            (_, true) => "process gone, its connections closed by the OS",
            (_, false) => "machine off, no packets at all",
        };
        let name = String::from(self.dir.name(id));
        self.trace_line(id, TraceKind::Lifecycle, alloc::format!("{name}: {verb}"));
    }
}
