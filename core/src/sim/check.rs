//! Invariants checked after every step in tests.

use alloc::string::String;

use super::client::sorted;
use super::measure::route_fingerprint;
use super::node::NodeState;
use super::trace::NodeId;
use super::{Actor, Sim};

/// A broken invariant, with the node and a description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Where.
    pub node: NodeId,
    /// What.
    pub message: String,
}

impl Sim {
    /// Remembers a route a NameServer answered, for [`Sim::check`].
    pub(super) fn remember_route_answer(&mut self, body: &[u8]) {
        if let Ok(route) = crate::json::from_fastjson::<crate::protocol::body::TopicRouteData>(body) {
            self.said.insert(route_fingerprint(&sorted(route)));
        }
    }

    /// Checks the model's invariants:
    /// - every queue entry of every running NameServer names a known broker group;
    /// - no live entry outlives its timeout by more than one scan interval;
    /// - every client's cached route is one some NameServer answered (except a producer's
    ///   provisional TBW102 route).
    ///
    /// # Errors
    /// The first violation found.
    pub fn check(&self) -> Result<(), Violation> {
        let scan = self.scenario.profile.scan_interval_ms();
        for (index, node) in self.nodes.iter().enumerate() {
            let id = NodeId(index as u16);
            let fail = |message: String| Err(Violation { node: id, message });
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
                    for (key, live) in routes.broker_live_table() {
                        let limit = live.expires_at().as_millis() + scan + 1;
                        if self.now.as_millis() > limit {
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
                        if !self.said.contains(&route_fingerprint(route)) {
                            return fail(String::from("the producer holds a route no NameServer answered"));
                        }
                    }
                }
                Actor::Consumer(c) => {
                    if let Some(route) = &c.client.route {
                        if !self.said.contains(&route_fingerprint(route)) {
                            return fail(String::from("the consumer holds a route no NameServer answered"));
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}
