//! Invariants checked after every step in tests.

use alloc::string::String;

use crate::engine::record::route_fingerprint;
use crate::node::NodeState;
use crate::node::trace::NodeId;
use crate::{Actor, Sim};
use nameserver_core::time::Instant;

/// A broken invariant, with the node and a description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The node it happened on.
    pub(crate) node: NodeId,
    /// The broken invariant, in words.
    pub(crate) message: String,
}

impl Violation {
    /// The node it happened on.
    #[must_use]
    pub fn node(&self) -> NodeId {
        self.node
    }

    /// The broken invariant, in words.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// Checks the model's invariants:
/// - every queue entry of every running NameServer names a known broker group;
/// - no live entry outlives its timeout by more than one scan interval (counted from
///   when the NameServer last resumed, if it was frozen);
/// - every client's cached route is one some NameServer answered (except a producer's
///   provisional TBW102 route);
/// - a process that is not running holds no timers, requests or connections;
/// - nothing a running process waits for (timer, answer, frame) is overdue.
///
/// # Errors
/// The first violation found.
pub fn check(sim: &Sim) -> Result<(), Violation> {
    let scan = sim.scenario().profile.scan_interval_ms();
    for (index, node) in sim.nodes().iter().enumerate() {
        let id = NodeId(index as u16);
        let fail = |message: String| Err(Violation { node: id, message });
        match node.state {
            NodeState::NotStarted | NodeState::Down | NodeState::PoweredOff => {
                if !node.timers.is_empty() || !node.pending().is_empty() || !node.conns().is_empty() {
                    return fail(alloc::format!("{} process keeps timers, requests or connections", node.state.name()));
                }
                if !matches!(node.actor, Actor::None) {
                    return fail(alloc::format!("{} process still has an actor", node.state.name()));
                }
            }
            NodeState::Up | NodeState::ShuttingDown => {
                if let Some((kind, at)) = node.timers.iter().find(|(_, at)| **at < sim.now()) {
                    return fail(alloc::format!("timer {} was due at {at} and did not fire", kind.label()));
                }
                if let Some((opaque, p)) = node.pending().iter().find(|(_, p)| p.deadline < sim.now()) {
                    return fail(alloc::format!("request {opaque} timed out at {} and is still pending", p.deadline));
                }
            }
            NodeState::Frozen => {}
        }
        match &node.actor {
            Actor::NameServer(ns) if node.state == NodeState::Up => {
                let routes = ns.ns.routes();
                for (topic, queues) in routes.topic_queue_table() {
                    for name in queues.keys() {
                        if !routes.broker_addr_table().contains_key(name) {
                            return fail(alloc::format!("topic {topic} has queues on unknown group {name}"));
                        }
                    }
                }
                let resumed = node.resumed_at().map_or(0, Instant::as_millis);
                for (key, live) in routes.broker_live_table() {
                    let limit = live.expires_at().as_millis().max(resumed) + scan + 1;
                    if sim.now().as_millis() > limit {
                        return fail(alloc::format!(
                            "{} outlived its timeout: last update {}",
                            key.broker_addr,
                            live.last_update
                        ));
                    }
                }
            }
            Actor::Producer(p) if !p.provisional => {
                if let Some(route) = &p.client.route {
                    if !sim.said_routes().contains(&route_fingerprint(route)) {
                        return fail(String::from("the producer holds a route no NameServer answered"));
                    }
                }
            }
            Actor::Consumer(c) => {
                if let Some(route) = &c.client.route {
                    if !sim.said_routes().contains(&route_fingerprint(route)) {
                        return fail(String::from("the consumer holds a route no NameServer answered"));
                    }
                }
            }
            _ => {}
        }
    }
    for flight in sim.net().flights.values() {
        let receiver = &sim.nodes()[usize::from(flight.to.0)];
        if flight.arrive_at < sim.now() && receiver.state != NodeState::Frozen {
            let to = sim.directory().name(flight.to);
            return Err(Violation {
                node: flight.from,
                message: alloc::format!(
                    "flight {} to {to} was due at {} and never arrived",
                    flight.id,
                    flight.arrive_at
                ),
            });
        }
    }
    Ok(())
}
