//! Read-only views for the page: nodes with their timers, messages in flight, and how soon
//! each NameServer will drop each broker it lists.

use alloc::string::String;
use alloc::vec::Vec;

use core::time::Duration;

use crate::actors::broker::REGISTER_PERIOD;
use crate::actors::offsets::table_key;
use crate::actors::producer::POLL_PERIOD;
use crate::engine::frame::Frame;
use crate::engine::history::WireRecord;
use crate::engine::net::{Category, Flight, Payload, WireType};
use crate::node::trace::NodeId;
use crate::node::{NodeState, Role};
use crate::scenario::Scenario;
use crate::{Actor, ConsumerQueueView, ConsumerView, Sim};
use nameserver_core::names::TopicName;
use nameserver_core::names::{BrokerAddr, ClusterName};
use nameserver_core::protocol::{RequestCode, ResponseCode};
use nameserver_core::route::DEFAULT_BROKER_TIMEOUT;
use nameserver_core::server::RemovalPath;
use nameserver_core::time::{Instant, millis};

/// The kind of the idle-close timers a NameServer keeps per connection (not a [`TimerKind`](crate::TimerKind):
/// the socket layer, not the actor, runs them).
pub const IDLE_CLOSE: &str = "idle-close";

/// The periods and timeouts a scenario's model runs with, for the page to show and teach from
/// (each read from where the model keeps it, so the page never types one in).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timings {
    /// `scanNotActiveBrokerInterval`: the profile's, or the scenario's `namesrv` line.
    pub scan_interval: Duration,
    /// The idle close of a silent NameServer connection (`None`: off).
    pub idle_close: Option<Duration>,
    /// How long a broker's registration stays valid (brokers send no `heartbeatTimeoutMillis`).
    pub broker_timeout: Duration,
    /// A broker's registration period.
    pub register_period: Duration,
    /// A client's route poll period (`pollNameServerInterval`).
    pub route_poll_period: Duration,
    /// How long `sendLatencyFaultEnable` isolates a broker after a failure.
    pub isolation: Duration,
}

impl Scenario {
    /// The model's periods and timeouts for this scenario.
    #[must_use]
    pub fn timings(&self) -> Timings {
        let config = self.namesrv_config();
        Timings {
            scan_interval: config.scan_not_active_broker_interval,
            idle_close: self.idle_close_after(&config),
            broker_timeout: DEFAULT_BROKER_TIMEOUT,
            register_period: REGISTER_PERIOD,
            route_poll_period: POLL_PERIOD,
            isolation: Duration::from_millis(self.profile.isolation_ms()),
        }
    }
}

/// A timer as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimerView {
    /// What it does.
    pub label: String,
    /// A stable machine id: [`TimerKind::name`](crate::TimerKind::name) or [`IDLE_CLOSE`].
    pub kind: &'static str,
    /// When it fires.
    pub at: Instant,
    /// The period (or, for one-shot waits, the timeout) the model uses for it.
    pub period_ms: Option<u64>,
    /// For an idle close: the node at the other end of the connection.
    pub peer: Option<NodeId>,
}

/// A node as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeView {
    /// Its index in the simulation (stable for a scenario).
    pub id: NodeId,
    /// Its name in the scenario (`NS-1`, `broker-a`, `P1`…).
    pub name: String,
    /// What it is: NameServer, broker, producer or consumer.
    pub role: Role,
    /// Process state.
    pub state: NodeState,
    /// Listen address.
    pub addr: String,
    /// Broker group, for brokers.
    pub group: Option<String>,
    /// Broker id, for brokers.
    pub broker_id: Option<i64>,
    /// The NameServer a client is bound to.
    pub bound_to: Option<NodeId>,
    /// Armed timers, soonest first.
    pub timers: Vec<TimerView>,
    /// For clients: since when their route differs from their NameServer's.
    pub stale_since: Option<Instant>,
}

/// A message on the wire as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlightView {
    /// Id (scripts can drop or delay it by this id).
    pub id: u64,
    /// The node that sent it.
    pub from: NodeId,
    /// The node it is addressed to.
    pub to: NodeId,
    /// Sent at.
    pub sent_at: Instant,
    /// Arrives at.
    pub arrive_at: Instant,
    /// What glyph to draw.
    pub category: Category,
    /// Whether it is an answer.
    pub response: bool,
    /// One-line description.
    pub summary: String,
    /// Whether it waits at a frozen receiver.
    pub held: bool,
}

/// When a NameServer will drop a broker it lists, if nothing from the broker refreshes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemovalClock {
    /// The live-table key: cluster.
    pub cluster: ClusterName,
    /// The live-table key: the broker's address.
    pub broker_addr: BrokerAddr,
    /// When the idle close of the broker's channel fires (`None`: idle close off, or the
    /// channel is not tracked).
    pub idle_close_at: Option<Instant>,
    /// The first scan that finds the entry expired.
    pub scan_expire_at: Instant,
    /// The earlier of the two.
    pub removal_at: Instant,
    /// Which one that is (the idle close on a tie).
    pub removal_by: RemovalPath,
}

/// Every node.
#[must_use]
pub fn node_views(sim: &Sim) -> Vec<NodeView> {
    (0..sim.nodes().len()).map(|i| node_view(sim, NodeId(i as u16))).collect()
}

/// One node.
#[must_use]
pub fn node_view(sim: &Sim, id: NodeId) -> NodeView {
    let node = &sim.nodes()[usize::from(id.0)];
    let (group, broker_id) = match &sim.scenario().nodes[usize::from(id.0)] {
        crate::NodeSpec::Broker { group, id, .. } => (Some(group.clone()), Some(*id)),
        _ => (None, None),
    };
    let bound_to = match &node.actor {
        Actor::Producer(p) => Some(sim.directory().client_nameserver(p.client.ns_index)),
        Actor::Consumer(c) => Some(sim.directory().client_nameserver(c.client.ns_index)),
        _ => None,
    };
    let mut timers: Vec<TimerView> = node
        .timers
        .iter()
        .map(|(kind, at)| TimerView {
            label: String::from(kind.label()),
            kind: kind.name(),
            at: *at,
            period_ms: node.actor.timer_period(*kind).map(millis),
            peer: None,
        })
        .collect();
    if let Actor::NameServer(ns) = &node.actor {
        if let Some(idle) = sim.scenario().idle_close_after(ns.ns.config()) {
            for (conn, clock) in &ns.idle_clocks {
                let peer = sim.net().conns.get(conn).map(|c| c.client);
                let name = peer.map_or("?", |p| sim.directory().name(p));
                timers.push(TimerView {
                    label: alloc::format!("idle close of {name}"),
                    kind: IDLE_CLOSE,
                    at: clock.deadline(idle),
                    period_ms: Some(millis(idle)),
                    peer,
                });
            }
        }
    }
    timers.sort_by_key(|t| t.at);
    NodeView {
        id,
        name: String::from(sim.directory().name(id)),
        role: node.role,
        state: node.state,
        addr: String::from(sim.directory().addr(id)),
        group,
        broker_id,
        bound_to,
        timers,
        stale_since: crate::observe::stale_since(sim, id),
    }
}

/// Messages on the wire now.
#[must_use]
pub fn flights(sim: &Sim) -> Vec<FlightView> {
    sim.net()
        .flights
        .values()
        .map(|f| {
            let record = wire_record(sim, f);
            let (category, summary) = match &f.payload {
                Payload::Fin => (Category::Close, String::from("FIN (connection closed)")),
                Payload::Rst => (Category::Reset, String::from("RST (connection refused or reset)")),
                Payload::Frame(frame) => {
                    let answers = record.map(|r| r.what).filter(|w| matches!(w, WireType::Command(_)));
                    (record.map_or(Category::Other, |r| r.category), summary(frame, answers))
                }
            };
            let held = sim.nodes()[usize::from(f.to.0)].state == NodeState::Frozen && f.arrive_at <= sim.now();
            FlightView {
                id: f.id,
                from: f.from,
                to: f.to,
                sent_at: f.sent_at,
                arrive_at: f.arrive_at,
                category,
                response: f.label.as_ref().is_some_and(|l| l.response),
                summary,
                held,
            }
        })
        .collect()
}

/// The wire log's record of a flight (the log is in sending order).
fn wire_record<'s>(sim: &'s Sim, flight: &Flight) -> Option<&'s WireRecord> {
    let wire = &sim.history().wire;
    let first = wire.partition_point(|r| r.sent_at < flight.sent_at);
    wire[first..]
        .iter()
        .take_while(|r| r.sent_at == flight.sent_at)
        .find(|r| r.id.is_some_and(|id| id.get() == flight.id))
}

/// How soon NameServer `ns` drops each broker it lists, in live-table order (empty if it
/// is not running): the idle close of the broker's channel (when the NameServer last read
/// or wrote on it, plus the idle time) or the first scan that finds its heartbeat
/// expired, whichever comes first.
#[must_use]
pub fn removal_clocks(sim: &Sim, ns: NodeId) -> Vec<RemovalClock> {
    let Actor::NameServer(node) = &sim.nodes()[usize::from(ns.0)].actor else { return Vec::new() };
    node.ns
        .routes()
        .broker_live_table()
        .iter()
        .map(|(key, live)| {
            let idle_close_at = sim
                .scenario()
                .idle_close_after(node.ns.config())
                .and_then(|idle| node.idle_clocks.get(&live.conn).map(|clock| clock.deadline(idle)));
            let removal = node.ns.removal(live, idle_close_at);
            RemovalClock {
                cluster: key.cluster.clone(),
                broker_addr: key.broker_addr.clone(),
                idle_close_at: removal.idle_close_at,
                scan_expire_at: removal.scan_expire_at,
                removal_at: removal.at,
                removal_by: removal.by,
            }
        })
        .collect()
}

/// One line describing a frame on the wire, as its receiver reads it; an answer names the
/// request it answers when that is known.
fn summary(frame: &Frame, answers: Option<WireType>) -> String {
    let Some(cmd) = frame.command() else {
        return String::from("frame");
    };
    if cmd.is_response() {
        let name = response_name(cmd.response_code());
        return match answers {
            Some(what) => alloc::format!("{name} ({})", what.name()),
            None => String::from(name),
        };
    }
    let code = cmd.request_code();
    let name = code.java_name().unwrap_or("UNKNOWN");
    let detail = match code {
        RequestCode::RegisterBroker | RequestCode::UnregisterBroker => cmd.field("brokerName"),
        RequestCode::GetRouteInfoByTopic | RequestCode::SendMessage | RequestCode::PullMessage => cmd.field("topic"),
        _ => None,
    };
    detail.map_or_else(|| String::from(name), |d| alloc::format!("{name} {d}"))
}

fn response_name(code: ResponseCode) -> &'static str {
    match code {
        ResponseCode::Success => "SUCCESS",
        ResponseCode::SystemError => "SYSTEM_ERROR",
        ResponseCode::TopicNotExist => "TOPIC_NOT_EXIST",
        ResponseCode::PullNotFound => "PULL_NOT_FOUND",
        ResponseCode::QueryNotFound => "QUERY_NOT_FOUND",
        ResponseCode::NoPermission => "NO_PERMISSION",
        ResponseCode::RequestCodeNotSupported => "REQUEST_CODE_NOT_SUPPORTED",
        _ => "ERROR",
    }
}

/// A consumer's queues with the broker's committed and max offsets, and what it consumed;
/// `None` if `id` is not a consumer.
#[must_use]
pub fn consumer_view(sim: &Sim, id: NodeId) -> Option<ConsumerView> {
    let node = sim.nodes().get(usize::from(id.0))?;
    let crate::NodeSpec::Consumer { group, topic, .. } = sim.scenario().nodes.get(usize::from(id.0))? else {
        return None;
    };
    let Actor::Consumer(c) = &node.actor else {
        let log = node.consume_log().cloned().unwrap_or_default();
        return Some(ConsumerView {
            group: group.clone(),
            topic: TopicName::from(topic.as_str()),
            running: false,
            queues: Vec::new(),
            consumed: log.consumed,
            duplicates: log.duplicates,
        });
    };
    let broker = |node: Option<NodeId>| match node.map(|n| &sim.nodes()[usize::from(n.0)]) {
        Some(n) if matches!(n.state, crate::NodeState::Up | crate::NodeState::ShuttingDown) => match &n.actor {
            Actor::Broker(b) => Some(b),
            _ => None,
        },
        _ => None,
    };
    let key = table_key(c.client.topic.as_str(), &c.group);
    let queues = c
        .assigned
        .iter()
        .map(|(&(g, q), state)| {
            let name = sim.directory().group_name(g).clone();
            let commit_to = broker(c.client.find_in_subscribe(&name, false, sim.directory()).map(|f| f.0));
            let reads =
                broker(state.from.or_else(|| c.client.find_in_subscribe(&name, false, sim.directory()).map(|f| f.0)));
            ConsumerQueueView {
                broker: name,
                queue_id: q,
                next_offset: state.next_offset(),
                committed_offset: commit_to.and_then(|b| b.offsets.get(&key)?.get(&q).copied()),
                max_offset: reads.map(|b| b.max_offset(&c.client.topic, q)),
                from: state.start_from(),
                pulling_from: state.from,
            }
        })
        .collect();
    Some(ConsumerView {
        group: c.group.clone(),
        topic: c.client.topic.clone(),
        running: true,
        queues,
        consumed: c.log.consumed,
        duplicates: c.log.duplicates,
    })
}
