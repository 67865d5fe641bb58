//! Nodes and links as the page shows them: every node with its timers, links that are not
//! up, producers' isolated brokers and consumers' queues.

use alloc::borrow::ToOwned;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use nameserver_core::time::millis;
use serde::Serialize;

use crate::actors::offsets::table_key;
use crate::{Actor, BrokerActor, Link, NodeId, NodeSpec, NodeState, Sim, StartFrom, observe};

/// The kind of the idle-close timers a NameServer keeps per connection (not a [`TimerKind`](crate::TimerKind):
/// the socket layer, not the actor, runs them).
pub const IDLE_CLOSE: &str = "idle-close";

/// An armed timer. `kind` is a stable id ([`TimerKind::name`](crate::TimerKind::name) or
/// [`IDLE_CLOSE`](crate::IDLE_CLOSE)); `period_ms` the period (for one-shot waits, the wait)
/// the model uses; `peer` the node at the other end of an idle-close timer's connection.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TimerInfo {
    /// What it does.
    pub label: String,
    /// Its stable id.
    #[cfg_attr(feature = "ts", ts(type = "TimerKind"))]
    pub kind: &'static str,
    /// When it fires (ms).
    pub at: u64,
    /// Its period.
    pub period_ms: Option<u64>,
    /// The other end of an idle close.
    pub peer: Option<String>,
}

/// A node with its state and timers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct NodeInfo {
    /// Its index in the scenario.
    pub id: u16,
    /// Its name (`NS-1`, `broker-a`, `P1`…).
    pub name: String,
    /// `nameserver`, `broker`, `producer` or `consumer`.
    #[cfg_attr(feature = "ts", ts(type = "NodeRole"))]
    pub role: &'static str,
    /// Its [`NodeState`](crate::NodeState) name.
    #[cfg_attr(feature = "ts", ts(type = "NodeState"))]
    pub state: &'static str,
    /// Listen address.
    pub addr: String,
    /// Broker group, for brokers.
    pub group: Option<String>,
    /// Broker id, for brokers.
    pub broker_id: Option<i64>,
    /// The NameServer a running client asks.
    pub bound_to: Option<String>,
    /// Armed timers, soonest first.
    pub timers: Vec<TimerInfo>,
    /// For clients: since when their route differs from their NameServer's.
    pub stale_since: Option<u64>,
}

impl NodeInfo {
    /// Every node.
    #[must_use]
    pub fn all(sim: &Sim) -> Vec<Self> {
        (0..sim.nodes().len()).map(|i| Self::of(sim, NodeId(i as u16))).collect()
    }

    /// Node `id`.
    #[must_use]
    pub fn of(sim: &Sim, id: NodeId) -> Self {
        let node = &sim.nodes()[usize::from(id.0)];
        let name = |n: NodeId| sim.directory().name(n).to_owned();
        let (group, broker_id) = match &sim.scenario().nodes[usize::from(id.0)] {
            NodeSpec::Broker { group, id, .. } => (Some(group.clone()), Some(*id)),
            _ => (None, None),
        };
        let bound_to = match node.actor() {
            Actor::Producer(p) => Some(sim.directory().client_nameserver(p.client.ns_index)),
            Actor::Consumer(c) => Some(sim.directory().client_nameserver(c.client.ns_index)),
            _ => None,
        };
        let mut timers: Vec<TimerInfo> = node
            .timers()
            .iter()
            .map(|(kind, at)| TimerInfo {
                label: String::from(kind.label()),
                kind: kind.name(),
                at: at.as_millis(),
                period_ms: node.actor().timer_period(*kind).map(millis),
                peer: None,
            })
            .collect();
        if let Actor::NameServer(ns) = node.actor() {
            if let Some(idle) = sim.scenario().idle_close_after(ns.ns.config()) {
                for (conn, clock) in &ns.idle_clocks {
                    let peer = sim.net().conns().get(conn).map(|c| c.client());
                    timers.push(TimerInfo {
                        label: alloc::format!("idle close of {}", peer.map_or("?", |p| sim.directory().name(p))),
                        kind: IDLE_CLOSE,
                        at: clock.deadline(idle).as_millis(),
                        period_ms: Some(millis(idle)),
                        peer: peer.map(name),
                    });
                }
            }
        }
        timers.sort_by_key(|t| t.at);
        Self {
            id: id.0,
            name: name(id),
            role: node.role().name(),
            state: node.state().name(),
            addr: String::from(sim.directory().addr(id)),
            group,
            broker_id,
            bound_to: bound_to.map(name),
            timers,
            stale_since: observe::stale_since(sim, id).map(|t| t.as_millis()),
        }
    }
}

/// A link that is not up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LinkInfo {
    /// One end.
    pub a: String,
    /// The other end.
    pub b: String,
    /// `cut` or `reset`.
    #[cfg_attr(feature = "ts", ts(type = "\"cut\" | \"reset\""))]
    pub state: &'static str,
}

impl LinkInfo {
    /// Every link that is not up.
    #[must_use]
    pub fn all(sim: &Sim) -> Vec<Self> {
        let name = |n: &NodeId| sim.directory().name(*n).to_owned();
        sim.net()
            .links()
            .iter()
            .map(|((a, b), link)| Self {
                a: name(a),
                b: name(b),
                state: match link {
                    Link::Cut => "cut",
                    Link::Reset => "reset",
                    Link::Up => "up",
                },
            })
            .collect()
    }
}

/// A broker a producer's fault strategy isolates, until when (entries in the past are kept,
/// as the client keeps them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct IsolationInfo {
    /// The producer.
    pub producer: String,
    /// The broker group.
    pub broker: String,
    /// Available again at (ms).
    pub until: u64,
}

impl IsolationInfo {
    /// Every running producer's isolated brokers.
    #[must_use]
    pub fn all(sim: &Sim) -> Vec<Self> {
        let mut list = Vec::new();
        for (i, node) in sim.nodes().iter().enumerate() {
            if let Actor::Producer(p) = node.actor() {
                for (broker, until) in p.faults() {
                    list.push(Self {
                        producer: sim.directory().name(NodeId(i as u16)).to_owned(),
                        broker: broker.to_string(),
                        until: until.as_millis(),
                    });
                }
            }
        }
        list
    }
}

/// One queue a consumer holds. `next_offset` is `None` while it asks the broker where to
/// start; `committed_offset` is what the instance it commits to holds for its group;
/// `max_offset` the queue's max offset on the instance it reads; `from` where the start
/// offset came from (`committed`, `first` or `max`); `pulling_from` the instance pulls go to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ConsumerQueue {
    /// The broker group.
    pub broker: String,
    /// The queue.
    pub queue_id: i32,
    /// The next offset to pull.
    pub next_offset: Option<u64>,
    /// The group's committed offset on the broker.
    pub committed_offset: Option<u64>,
    /// The queue's max offset.
    pub max_offset: Option<u64>,
    /// Where the start offset came from.
    #[cfg_attr(feature = "ts", ts(type = "\"committed\" | \"first\" | \"max\" | null"))]
    pub from: Option<&'static str>,
    /// The instance pulls go to.
    pub pulling_from: Option<String>,
}

/// A consumer: its queues (empty while it is not running) and what its machine consumed
/// across restarts, with how many of those a second time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "ConsumerView"))]
#[serde(rename_all = "camelCase")]
pub struct ConsumerInfo {
    /// The consumer.
    pub name: String,
    /// Its group.
    pub group: String,
    /// Its topic.
    pub topic: String,
    /// Whether it runs.
    pub running: bool,
    /// Its queues.
    pub queues: Vec<ConsumerQueue>,
    /// Messages consumed.
    pub consumed: u64,
    /// Of which consumed again.
    pub duplicates: u64,
}

impl ConsumerInfo {
    /// Consumer `id`'s queues with the broker's committed and max offsets, and what its
    /// machine consumed; `None` if `id` is not a consumer.
    #[must_use]
    pub fn of(sim: &Sim, id: NodeId) -> Option<Self> {
        let node = sim.nodes().get(usize::from(id.0))?;
        let NodeSpec::Consumer { group, topic, .. } = sim.scenario().nodes.get(usize::from(id.0))? else {
            return None;
        };
        let name = String::from(sim.directory().name(id));
        let Actor::Consumer(c) = node.actor() else {
            let log = node.consume_log().cloned().unwrap_or_default();
            return Some(Self {
                name,
                group: group.clone(),
                topic: topic.clone(),
                running: false,
                queues: Vec::new(),
                consumed: log.consumed,
                duplicates: log.duplicates,
            });
        };
        let broker = |node: Option<NodeId>| -> Option<&BrokerActor> {
            match node.map(|n| &sim.nodes()[usize::from(n.0)]) {
                Some(n) if matches!(n.state(), NodeState::Up | NodeState::ShuttingDown) => match n.actor() {
                    Actor::Broker(b) => Some(b),
                    _ => None,
                },
                _ => None,
            }
        };
        let key = table_key(c.client.topic.as_str(), &c.group);
        let queues = c
            .assigned
            .iter()
            .map(|(&(g, q), state)| {
                let group = sim.directory().group_name(g);
                let subscribed = c.client.find_in_subscribe(group, false, sim.directory()).map(|f| f.0);
                let commit_to = broker(subscribed);
                let reads = broker(state.from.or(subscribed));
                ConsumerQueue {
                    broker: group.to_string(),
                    queue_id: q,
                    next_offset: state.next_offset(),
                    committed_offset: commit_to.and_then(|b| b.offsets.get(&key)?.get(&q).copied()),
                    max_offset: reads.map(|b| b.max_offset(&c.client.topic, q)),
                    from: state.start_from().map(StartFrom::name),
                    pulling_from: state.from.map(|n| sim.directory().name(n).to_owned()),
                }
            })
            .collect();
        Some(Self {
            name,
            group: c.group.clone(),
            topic: c.client.topic.to_string(),
            running: true,
            queues,
            consumed: c.log.consumed,
            duplicates: c.log.duplicates,
        })
    }
}
