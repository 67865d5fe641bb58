//! What the engine records for the observers as it runs: when each client's route is stale
//! (measured after every event), and every route a NameServer answered (for the checks).

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;
use core::hash::{Hash, Hasher};

use crate::actors::client::sorted;
use crate::engine::history::{RouteChange, StaleMark};
use crate::node::trace::{Fnv64, NodeId};
use crate::{Actor, Sim};
use nameserver_core::protocol::body::TopicRouteData;
use nameserver_core::time::Instant;

/// What staleness was last computed from: (NameServer, its incarnation, its route epoch,
/// the client's last route change).
pub(crate) type StaleKey = (NodeId, u32, u64, Option<Instant>);

impl Sim {
    /// Recomputes each client's staleness when its route or its NameServer's routes changed.
    pub(crate) fn update_staleness(&mut self) {
        if !core::mem::take(&mut self.stale_dirty) {
            return;
        }
        for index in 0..self.nodes.len() {
            let client = NodeId(index as u16);
            let core = match &self.nodes[index].actor {
                Actor::Producer(p) => &p.client,
                Actor::Consumer(c) => &c.client,
                _ => continue,
            };
            let ns = self.dir.client_nameserver(core.ns_index);
            let ns_node = &self.nodes[usize::from(ns.0)];
            let (epoch, ns_route) = match &ns_node.actor {
                Actor::NameServer(n) => (n.ns.routes().epoch(), Some(n)),
                _ => (0, None),
            };
            let key: StaleKey = (ns, ns_node.incarnation, epoch, core.route_changed_at);
            if self.stale_keys.get(&client) == Some(&key) {
                continue;
            }
            let changed_route = self.stale_keys.get(&client).is_none_or(|k| k.3 != key.3);
            let client_route = core.route.clone();
            let truth = ns_route.and_then(|n| n.ns.route_data(&core.topic)).map(sorted);
            self.stale_keys.insert(client, key);
            if changed_route && key.3.is_some() {
                self.history.route_changes.push(RouteChange {
                    at: self.now,
                    client,
                    addrs: route_addrs(client_route.as_ref()),
                });
            }
            let stale = match (&client_route, &truth, ns_route.is_some()) {
                (_, _, false) => false,
                (Some(c), Some(t), true) => c.broker_datas != t.broker_datas || c.queue_datas != t.queue_datas,
                (None, None, true) => false,
                _ => true,
            };
            if self.stale_now.get(&client).copied().unwrap_or(false) != stale {
                self.stale_now.insert(client, stale);
                self.history.stale.push(StaleMark { at: self.now, client, stale });
            }
        }
    }

    /// Whether `client`'s route differs from its NameServer's right now.
    #[must_use]
    pub fn is_stale(&self, client: NodeId) -> bool {
        self.stale_now.get(&client).copied().unwrap_or(false)
    }

    /// Remembers a route a NameServer answered, for [`Sim::check`].
    pub(crate) fn remember_route_answer(&mut self, body: &[u8]) {
        // The same answer comes back at every poll: parse each distinct body once.
        let mut h = Fnv64::default();
        h.write(body);
        if !self.said_bodies.insert(h.finish()) {
            return;
        }
        if let Ok(route) = nameserver_core::json::from_fastjson::<nameserver_core::protocol::body::TopicRouteData>(body)
        {
            self.said.insert(route_fingerprint(&sorted(route)));
        }
    }

    /// The fingerprints of every route a NameServer answered.
    pub(crate) fn said_routes(&self) -> &BTreeSet<u64> {
        &self.said
    }
}

/// The broker addresses of a route, sorted.
pub(crate) fn route_addrs(route: Option<&TopicRouteData>) -> Vec<String> {
    let mut addrs: Vec<String> = route
        .iter()
        .flat_map(|r| r.broker_datas.iter())
        .flat_map(|b| b.broker_addrs.values())
        .map(|a| String::from(a.as_str()))
        .collect();
    addrs.sort();
    addrs
}

/// A fingerprint of a route as clients compare it.
pub(crate) fn route_fingerprint(route: &TopicRouteData) -> u64 {
    let mut h = Fnv64::default();
    route.broker_datas.hash(&mut h);
    route.queue_datas.hash(&mut h);
    h.finish()
}
