//! HA replication between the brokers of a group: slaves copy what their running master
//! stored, instantly.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use crate::Sim;
use crate::engine::actor::Actor;
use crate::node::trace::NodeId;
use crate::node::{GroupId, NodeState};
use nameserver_core::names::TopicName;

impl Sim {
    /// What the running master of `group` has stored, per queue.
    pub(crate) fn master_store(&self, group: GroupId) -> Option<&BTreeMap<(TopicName, i32), u64>> {
        self.nodes.iter().find_map(|n| match &n.actor {
            Actor::Broker(b)
                if b.group_id == group
                    && b.is_master()
                    && matches!(n.state, NodeState::Up | NodeState::ShuttingDown) =>
            {
                Some(&b.stored)
            }
            _ => None,
        })
    }

    /// A slave that starts or resumes copies what its running master stored meanwhile (HA
    /// catch-up, instantly, like the replication of each message).
    pub(crate) fn catch_up_from_master(&mut self, id: NodeId) {
        let Actor::Broker(slave) = &self.node(id).actor else { return };
        if slave.is_master() || !self.is_running(id) {
            return;
        }
        let Some(stored) = self.master_store(slave.group_id).cloned() else { return };
        self.with_actor(id, |actor, cx| {
            if let Actor::Broker(b) = actor {
                for ((topic, queue), count) in stored {
                    b.replicated(&topic, queue, count, cx);
                }
            }
        });
    }

    /// Running slaves of `group` copy a message stored on the master (HA replication,
    /// instantly).
    pub(crate) fn replicate(&mut self, group: GroupId, topic: &TopicName) {
        let Some(store) = self.master_store(group) else { return };
        let counts: Vec<(i32, u64)> =
            store.iter().filter(|((t, _), _)| t == topic).map(|((_, queue), count)| (*queue, *count)).collect();
        let slaves: Vec<NodeId> = (0..self.nodes.len())
            .map(|i| NodeId(i as u16))
            .filter(|id| self.is_running(*id))
            .filter(|id| matches!(&self.node(*id).actor, Actor::Broker(b) if b.group_id == group && !b.is_master()))
            .collect();
        for slave in slaves {
            self.with_actor(slave, |actor, cx| {
                if let Actor::Broker(b) = actor {
                    for (queue, count) in &counts {
                        b.replicated(topic, *queue, *count, cx);
                    }
                }
            });
        }
    }
}
