//! Read-only views for the page: nodes with their timers, messages in flight, labels.

use alloc::string::String;
use alloc::vec::Vec;

use super::net::{Label, Payload};
use super::node::{NodeState, Purpose, Role, TimerKind};
use super::trace::NodeId;
use super::{Actor, Sim};
use crate::protocol::{RemotingCommand, RequestCode, ResponseCode};
use crate::time::Instant;

/// A timer as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimerView {
    /// What it does.
    pub label: String,
    /// When it fires.
    pub at: Instant,
}

/// A node as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeView {
    /// Id.
    pub id: NodeId,
    /// Name.
    pub name: String,
    /// Role.
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
    /// Sender.
    pub from: NodeId,
    /// Receiver.
    pub to: NodeId,
    /// Sent at.
    pub sent_at: Instant,
    /// Arrives at.
    pub arrive_at: Instant,
    /// `register`, `unregister`, `route`, `send`, `pull`, `heartbeat`, `close`, `reset`,
    /// `failure` or `other`: what glyph to draw.
    pub category: &'static str,
    /// Whether it is an answer.
    pub response: bool,
    /// One-line description.
    pub summary: String,
    /// Whether it waits at a frozen receiver.
    pub held: bool,
}

impl Sim {
    /// Every node.
    #[must_use]
    pub fn node_views(&self) -> Vec<NodeView> {
        (0..self.nodes.len()).map(|i| self.node_view(NodeId(i as u16))).collect()
    }

    /// One node.
    #[must_use]
    pub fn node_view(&self, id: NodeId) -> NodeView {
        let node = &self.nodes[usize::from(id.0)];
        let (group, broker_id) = match &self.scenario.nodes[usize::from(id.0)] {
            super::NodeSpec::Broker { group, id, .. } => (Some(group.clone()), Some(*id)),
            _ => (None, None),
        };
        let bound_to = match &node.actor {
            Actor::Producer(p) => Some(self.dir.nameservers[p.client.ns_index % self.dir.nameservers.len().max(1)]),
            Actor::Consumer(c) => Some(self.dir.nameservers[c.client.ns_index % self.dir.nameservers.len().max(1)]),
            _ => None,
        };
        let mut timers: Vec<TimerView> =
            node.timers.iter().map(|(kind, at)| TimerView { label: String::from(kind.label()), at: *at }).collect();
        if let Actor::NameServer(ns) = &node.actor {
            if self.scenario.idle_close {
                for (conn, last) in &ns.last_activity {
                    let peer = self.net.conns.get(conn).map_or("?", |c| self.dir.name(c.client));
                    timers.push(TimerView {
                        label: alloc::format!("idle close of {peer}"),
                        at: *last + core::time::Duration::from_secs(120),
                    });
                }
            }
        }
        timers.sort_by_key(|t| t.at);
        NodeView {
            id,
            name: String::from(self.dir.name(id)),
            role: node.role,
            state: node.state,
            addr: String::from(self.dir.addr(id)),
            group,
            broker_id,
            bound_to,
            timers,
            stale_since: self.stale_since(id),
        }
    }

    /// Messages on the wire now.
    #[must_use]
    pub fn flights(&self) -> Vec<FlightView> {
        self.net
            .flights
            .values()
            .map(|f| {
                let (category, response, summary) = match (&f.payload, &f.label) {
                    (Payload::Fin, _) => ("close", false, String::from("FIN (connection closed)")),
                    (Payload::Rst, _) => ("reset", false, String::from("RST (connection refused or reset)")),
                    (Payload::Frame(bytes), Some(label)) => {
                        let (answered, summary) = self.summary(f.from, f.to, bytes);
                        (category(label, answered), label.response, summary)
                    }
                    (Payload::Frame(_), None) => ("other", false, String::from("frame")),
                };
                let held = self.nodes[usize::from(f.to.0)].state == NodeState::Frozen && f.arrive_at <= self.now;
                FlightView {
                    id: f.id,
                    from: f.from,
                    to: f.to,
                    sent_at: f.sent_at,
                    arrive_at: f.arrive_at,
                    category,
                    response,
                    summary,
                    held,
                }
            })
            .collect()
    }

    /// Describes a frame `from` is about to send (kept small: views decode the rest).
    pub(super) fn label(&self, _from: NodeId, cmd: &RemotingCommand) -> Label {
        Label { code: cmd.code, response: cmd.is_response(), oneway: cmd.is_oneway(), opaque: cmd.opaque }
    }

    /// One line describing a frame on the wire, decoded again from its bytes.
    fn summary(&self, from: NodeId, to: NodeId, bytes: &[u8]) -> (Option<&'static str>, String) {
        let Ok(Some((cmd, _))) = crate::codec::decode(bytes, &crate::codec::Limits::DEFAULT) else {
            return (None, String::from("frame"));
        };
        if cmd.is_response() {
            let answered = self.nodes[usize::from(to.0)]
                .pending
                .get(&cmd.opaque)
                .filter(|p| p.to == from)
                .map(|p| purpose_name(p.purpose));
            let name = response_name(cmd.response_code());
            return match answered {
                Some(what) => (Some(what), alloc::format!("{name} ({what})")),
                None => (None, String::from(name)),
            };
        }
        let code = cmd.request_code();
        let name = code.java_name().unwrap_or("UNKNOWN");
        let detail = match code {
            RequestCode::RegisterBroker | RequestCode::UnregisterBroker => cmd.field("brokerName"),
            RequestCode::GetRouteInfoByTopic | RequestCode::SendMessage | RequestCode::PullMessage => {
                cmd.field("topic")
            }
            _ => None,
        };
        (None, detail.map_or_else(|| String::from(name), |d| alloc::format!("{name} {d}")))
    }

    /// A client's timer deadline, for tests and lessons.
    #[must_use]
    pub fn timer_of(&self, node: NodeId, kind: TimerKind) -> Option<Instant> {
        self.nodes[usize::from(node.0)].timers.get(&kind).copied()
    }
}

fn purpose_name(purpose: Purpose) -> &'static str {
    match purpose {
        Purpose::Register(_) => "REGISTER_BROKER",
        Purpose::Unregister(_) => "UNREGISTER_BROKER",
        Purpose::RoutePoll | Purpose::RouteOnDemand { .. } => "GET_ROUTEINFO_BY_TOPIC",
        Purpose::Send { .. } => "SEND_MESSAGE",
        Purpose::Heartbeat => "HEART_BEAT",
        Purpose::Pull(..) => "PULL_MESSAGE",
        Purpose::QueryOffset(..) => "QUERY_CONSUMER_OFFSET",
        Purpose::MaxOffset(..) => "GET_MAX_OFFSET",
        Purpose::SyncOffsets => "GET_ALL_CONSUMER_OFFSET",
    }
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

fn category(label: &Label, answered: Option<&'static str>) -> &'static str {
    if label.response && label.code != 0 && label.code != ResponseCode::PullNotFound.raw() {
        return "failure";
    }
    let request = if label.response {
        answered.map_or(RequestCode::Unknown(-1), |name| {
            RequestCode::KNOWN.iter().copied().find(|c| c.java_name() == Some(name)).unwrap_or(RequestCode::Unknown(-1))
        })
    } else {
        RequestCode::from(label.code)
    };
    match request {
        RequestCode::RegisterBroker | RequestCode::BrokerHeartbeat | RequestCode::QueryDataVersion => "register",
        RequestCode::UnregisterBroker => "unregister",
        RequestCode::GetRouteInfoByTopic => "route",
        RequestCode::SendMessage | RequestCode::SendMessageV2 => "send",
        RequestCode::PullMessage => "pull",
        RequestCode::HeartBeat => "heartbeat",
        _ => "other",
    }
}
