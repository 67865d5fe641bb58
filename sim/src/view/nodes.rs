//! Nodes, messages and links as the page shows them: every node with its timers, what is on
//! the wire, links that are not up, producers' isolated brokers and consumers' queues.

use alloc::borrow::ToOwned;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::Serialize;

use crate::observe::{FlightView, NodeView};
use crate::{Actor, ConsumerView, Link, NodeId, Sim, StartFrom, WireRecord};

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
    /// `v` with its nodes named.
    #[must_use]
    pub fn of(sim: &Sim, v: NodeView) -> Self {
        let name = |n: NodeId| sim.directory().name(n).to_owned();
        Self {
            id: v.id.0,
            name: v.name,
            role: v.role.name(),
            state: v.state.name(),
            addr: v.addr,
            group: v.group,
            broker_id: v.broker_id,
            bound_to: v.bound_to.map(name),
            timers: v
                .timers
                .into_iter()
                .map(|t| TimerInfo {
                    label: t.label,
                    kind: t.kind,
                    at: t.at.as_millis(),
                    period_ms: t.period_ms,
                    peer: t.peer.map(name),
                })
                .collect(),
            stale_since: v.stale_since.map(|t| t.as_millis()),
        }
    }
}

/// A message on the wire now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FlightInfo {
    /// Its id (scripts drop or delay it by this id).
    pub id: u64,
    /// Sender.
    pub from: String,
    /// Receiver.
    pub to: String,
    /// Sent at (ms).
    pub sent_at: u64,
    /// Arrives at (ms).
    pub arrive_at: u64,
    /// Its [`Category`](crate::Category) name.
    #[cfg_attr(feature = "ts", ts(type = "MessageCategory"))]
    pub category: &'static str,
    /// Whether it is an answer.
    pub response: bool,
    /// One-line description.
    pub summary: String,
    /// Whether it waits at a frozen receiver.
    pub held: bool,
}

impl FlightInfo {
    /// `f` with its nodes named.
    #[must_use]
    pub fn of(sim: &Sim, f: FlightView) -> Self {
        let name = |n: NodeId| sim.directory().name(n).to_owned();
        Self {
            id: f.id,
            from: name(f.from),
            to: name(f.to),
            sent_at: f.sent_at.as_millis(),
            arrive_at: f.arrive_at.as_millis(),
            category: f.category.name(),
            response: f.response,
            summary: f.summary,
            held: f.held,
        }
    }
}

/// A message put on the wire, as it was sent. `id` is its flight id, or `None` when a cut
/// link swallowed it; `what` (`type` in JSON) is the request code's Java name (for an answer,
/// the request it answers), `FIN` or `RST`; `lost`: the network will not deliver it as sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct WireEvent {
    /// Its flight id.
    pub id: Option<u64>,
    /// Sender.
    pub from: String,
    /// Receiver.
    pub to: String,
    /// Sent at (ms).
    pub sent_at: u64,
    /// When it arrives (or would have, at the base latency).
    pub arrive_at: u64,
    /// Its [`Category`](crate::Category) name.
    #[cfg_attr(feature = "ts", ts(type = "MessageCategory"))]
    pub category: &'static str,
    /// Whether it is an answer.
    pub response: bool,
    /// What it is.
    #[serde(rename = "type")]
    pub what: &'static str,
    /// Whether the network loses it.
    pub lost: bool,
}

impl WireEvent {
    /// `r` with its nodes named.
    #[must_use]
    pub fn of(sim: &Sim, r: &WireRecord) -> Self {
        let name = |n: NodeId| sim.directory().name(n).to_owned();
        Self {
            id: r.id().map(core::num::NonZeroU64::get),
            from: name(r.from()),
            to: name(r.to()),
            sent_at: r.sent_at().as_millis(),
            arrive_at: r.arrive_at().as_millis(),
            category: r.category().name(),
            response: r.response(),
            what: r.what().name(),
            lost: r.lost(),
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
    /// `v`, consumer `name`'s view, with its nodes named.
    #[must_use]
    pub fn of(sim: &Sim, name: String, v: &ConsumerView) -> Self {
        Self {
            name,
            group: v.group().to_owned(),
            topic: v.topic().to_string(),
            running: v.running(),
            queues: v
                .queues()
                .iter()
                .map(|q| ConsumerQueue {
                    broker: q.broker().to_string(),
                    queue_id: q.queue_id(),
                    next_offset: q.next_offset(),
                    committed_offset: q.committed_offset(),
                    max_offset: q.max_offset(),
                    from: q.from().map(StartFrom::name),
                    pulling_from: q.pulling_from().map(|n| sim.directory().name(n).to_owned()),
                })
                .collect(),
            consumed: v.consumed(),
            duplicates: v.duplicates(),
        }
    }
}
