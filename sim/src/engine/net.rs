//! The network: TCP-like connections between nodes, links that can be cut or reset, and the
//! frames in flight (each a RemotingCommand, its bytes encoded when read: `frame.rs`).
//!
//! Frames on one connection arrive in order (TCP); latency is `base ± jitter` per frame.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use crate::engine::frame::Frame;
use crate::engine::rng::Rng;
use crate::node::trace::NodeId;
use nameserver_core::names::ConnId;
use nameserver_core::protocol::{RequestCode, ResponseCode};
use nameserver_core::time::Instant;

/// A link between two nodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Link {
    /// Working: messages arrive after the profile's latency.
    #[default]
    Up,
    /// Packets vanish silently (cable pulled, firewall drop).
    Cut,
    /// Every packet is answered with a reset (firewall reject, host unreachable).
    Reset,
}

/// One TCP connection; the client opened it to the server's listen port.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Conn {
    /// Id (the NameServer core sees this as its `ConnId`).
    pub(crate) id: ConnId,
    /// The side that connected.
    pub(crate) client: NodeId,
    /// The side that listens.
    pub(crate) server: NodeId,
    /// Whether the client still considers it open.
    pub(crate) client_open: bool,
    /// Whether the server still considers it open.
    pub(crate) server_open: bool,
    /// Whether the server has seen it yet (its first frame).
    pub(crate) accepted: bool,
    /// The client's ephemeral port, for log lines.
    pub(crate) port: u16,
    /// Latest scheduled arrival towards the server and towards the client (FIFO order).
    last_arrival: [Instant; 2],
}

impl Conn {
    /// The side that connected.
    #[must_use]
    pub fn client(&self) -> NodeId {
        self.client
    }
}

impl Conn {
    /// Whether `node`'s side is open.
    #[must_use]
    pub fn open_at(&self, node: NodeId) -> bool {
        if node == self.client { self.client_open } else { self.server_open }
    }

    /// The other end.
    #[must_use]
    pub fn peer(&self, node: NodeId) -> NodeId {
        if node == self.client { self.server } else { self.client }
    }
}

/// What travels.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Payload {
    /// A frame.
    Frame(Frame),
    /// An orderly close.
    Fin,
    /// A reset.
    Rst,
}

/// A description of a frame for the page.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    /// Request or response code.
    pub(crate) code: i32,
    /// Whether it is a response.
    pub(crate) response: bool,
    /// Whether it is a oneway request.
    pub(crate) oneway: bool,
    /// The opaque.
    pub(crate) opaque: i32,
}

/// What a message is about, for the page's glyphs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::VariantArray)]
pub enum Category {
    /// REGISTER_BROKER and the other broker-to-NameServer keep-alives.
    Register,
    /// UNREGISTER_BROKER.
    Unregister,
    /// GET_ROUTEINFO_BY_TOPIC.
    Route,
    /// SEND_MESSAGE.
    Send,
    /// PULL_MESSAGE.
    Pull,
    /// A client's HEART_BEAT to a broker.
    Heartbeat,
    /// A FIN.
    Close,
    /// A RST.
    Reset,
    /// An answer with an error code.
    Failure,
    /// Anything else.
    Other,
}

impl Category {
    /// Every variant, in declaration order (the TypeScript union is written from it).
    pub const ALL: &'static [Self] = <Self as strum::VariantArray>::VARIANTS;

    /// `register`, `unregister`, `route`, `send`, `pull`, `heartbeat`, `close`, `reset`,
    /// `failure` or `other`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Register => "register",
            Self::Unregister => "unregister",
            Self::Route => "route",
            Self::Send => "send",
            Self::Pull => "pull",
            Self::Heartbeat => "heartbeat",
            Self::Close => "close",
            Self::Reset => "reset",
            Self::Failure => "failure",
            Self::Other => "other",
        }
    }

    /// A frame's category: an error answer is a failure (PULL_NOT_FOUND is the normal end of
    /// a long poll, not one); anything else goes by the request it asks or answers.
    #[must_use]
    pub fn of_frame(request: Option<RequestCode>, response_code: Option<i32>) -> Self {
        if response_code.is_some_and(|c| c != ResponseCode::Success.raw() && c != ResponseCode::PullNotFound.raw()) {
            return Self::Failure;
        }
        match request {
            Some(RequestCode::RegisterBroker | RequestCode::BrokerHeartbeat | RequestCode::QueryDataVersion) => {
                Self::Register
            }
            Some(RequestCode::UnregisterBroker) => Self::Unregister,
            Some(RequestCode::GetRouteInfoByTopic) => Self::Route,
            Some(RequestCode::SendMessage | RequestCode::SendMessageV2) => Self::Send,
            Some(RequestCode::PullMessage) => Self::Pull,
            Some(RequestCode::HeartBeat) => Self::Heartbeat,
            _ => Self::Other,
        }
    }
}

/// What a message carries, by RocketMQ's names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WireType {
    /// A request of this code, or the answer to one.
    Command(RequestCode),
    /// An answer to a request the model never saw go out (not expected to happen).
    UnknownAnswer,
    /// An orderly close.
    Fin,
    /// A reset.
    Rst,
}

impl WireType {
    /// The request code's Java name (`REGISTER_BROKER`, `SEND_MESSAGE`, ...), `FIN` or `RST`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Command(code) => code.java_name().unwrap_or("UNKNOWN"),
            Self::UnknownAnswer => "UNKNOWN",
            Self::Fin => "FIN",
            Self::Rst => "RST",
        }
    }
}

/// Something on the wire.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Flight {
    /// Id, unique within a run (scripts name flights by it).
    pub(crate) id: u64,
    /// The connection.
    pub(crate) conn: ConnId,
    /// The node that sent it.
    pub(crate) from: NodeId,
    /// The node it is addressed to.
    pub(crate) to: NodeId,
    /// Sent at.
    pub(crate) sent_at: Instant,
    /// Arrives at.
    pub(crate) arrive_at: Instant,
    /// The RocketMQ request or reply it carries.
    pub(crate) payload: Payload,
    /// The short name drawn on the diagram (REG, ROUTE…), if any.
    pub(crate) label: Option<Label>,
}

impl Flight {
    /// Id, unique within a run (scripts name flights by it).
    #[must_use]
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The node that sent it.
    #[must_use]
    pub fn from(&self) -> NodeId {
        self.from
    }

    /// The node it is addressed to.
    #[must_use]
    pub fn to(&self) -> NodeId {
        self.to
    }

    /// Sent at.
    #[must_use]
    pub fn sent_at(&self) -> Instant {
        self.sent_at
    }

    /// Arrives at.
    #[must_use]
    pub fn arrive_at(&self) -> Instant {
        self.arrive_at
    }

    /// The RocketMQ request or reply it carries.
    #[must_use]
    pub fn payload(&self) -> &Payload {
        &self.payload
    }
}

/// Connections, links and flights.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Net {
    /// Every connection ever opened (closed ones stay for the record until both sides close).
    pub(crate) conns: BTreeMap<ConnId, Conn>,
    /// Frames, closes and resets on the wire.
    pub(crate) flights: BTreeMap<u64, Flight>,
    /// Link states by ordered node pair; absent = up.
    pub(crate) links: BTreeMap<(NodeId, NodeId), Link>,
    /// One-way latency.
    pub(crate) latency_ms: u64,
    /// ± jitter.
    pub(crate) jitter_ms: u64,
    next_conn: u64,
    next_flight: u64,
}

impl Net {
    /// Frames, closes and resets on the wire.
    #[must_use]
    pub fn flights(&self) -> &BTreeMap<u64, Flight> {
        &self.flights
    }

    /// Link states by ordered node pair; absent = up.
    #[must_use]
    pub fn links(&self) -> &BTreeMap<(NodeId, NodeId), Link> {
        &self.links
    }

    /// Every connection ever opened (closed ones stay for the record until both sides close).
    #[must_use]
    pub fn conns(&self) -> &BTreeMap<ConnId, Conn> {
        &self.conns
    }
}

impl Net {
    /// A network with the given latency.
    #[must_use]
    pub fn new(latency_ms: u64, jitter_ms: u64) -> Self {
        Self { latency_ms, jitter_ms, ..Self::default() }
    }

    fn key(a: NodeId, b: NodeId) -> (NodeId, NodeId) {
        if a <= b { (a, b) } else { (b, a) }
    }

    /// The state of the link between `a` and `b`.
    #[must_use]
    pub fn link(&self, a: NodeId, b: NodeId) -> Link {
        self.links.get(&Self::key(a, b)).copied().unwrap_or_default()
    }

    /// Sets the link between `a` and `b`.
    pub fn set_link(&mut self, a: NodeId, b: NodeId, link: Link) {
        if link == Link::Up {
            self.links.remove(&Self::key(a, b));
        } else {
            self.links.insert(Self::key(a, b), link);
        }
    }

    /// Opens a connection from `client` to `server` (client side only, until the first
    /// frame arrives).
    pub fn open(&mut self, client: NodeId, server: NodeId, now: Instant) -> ConnId {
        self.next_conn += 1;
        let id = ConnId(self.next_conn);
        let port = 40_000 + (self.next_conn % 20_000) as u16;
        self.conns.insert(
            id,
            Conn {
                id,
                client,
                server,
                client_open: true,
                server_open: true,
                accepted: false,
                port,
                last_arrival: [now; 2],
            },
        );
        id
    }

    /// Puts a payload on the wire from `from` over `conn`; returns the flight id and its
    /// arrival, or `None` if the link swallowed it.
    pub fn transmit(
        &mut self,
        conn: ConnId,
        from: NodeId,
        payload: Payload,
        label: Option<Label>,
        now: Instant,
        rng: &mut Rng,
    ) -> Option<(u64, Instant)> {
        let c = self.conns.get_mut(&conn)?;
        let to = c.peer(from);
        if self.links.get(&Self::key(from, to)) == Some(&Link::Cut) {
            return None;
        }
        let jitter = i64::try_from(self.jitter_ms).unwrap_or(0);
        let latency =
            (i64::try_from(self.latency_ms).unwrap_or(0) + rng.between(-jitter, jitter)).max(1).unsigned_abs();
        let dir = usize::from(to == c.client);
        let arrive_at = (now + core::time::Duration::from_millis(latency)).max(c.last_arrival[dir]);
        c.last_arrival[dir] = arrive_at;
        self.next_flight += 1;
        let id = self.next_flight;
        self.flights.insert(id, Flight { id, conn, from, to, sent_at: now, arrive_at, payload, label });
        Some((id, arrive_at))
    }

    /// Delays one flight; later frames of its connection queue behind it.
    pub fn delay(&mut self, id: u64, by_ms: u64) -> Option<Instant> {
        let flight = self.flights.get_mut(&id)?;
        flight.arrive_at = flight.arrive_at + core::time::Duration::from_millis(by_ms);
        let (conn, to, at) = (flight.conn, flight.to, flight.arrive_at);
        if let Some(c) = self.conns.get_mut(&conn) {
            let dir = usize::from(to == c.client);
            c.last_arrival[dir] = c.last_arrival[dir].max(at);
        }
        Some(at)
    }

    /// Marks `node`'s side of `conn` closed. Returns whether it was open.
    pub fn close_side(&mut self, conn: ConnId, node: NodeId) -> bool {
        let Some(c) = self.conns.get_mut(&conn) else { return false };
        let was = c.open_at(node);
        if node == c.client {
            c.client_open = false;
        } else {
            c.server_open = false;
        }
        if !c.client_open && !c.server_open && !self.flights.values().any(|f| f.conn == conn) {
            self.conns.remove(&conn);
        }
        was
    }

    /// Open connections with `node` at either end, with `node`'s side open.
    #[must_use]
    pub fn conns_of(&self, node: NodeId) -> Vec<ConnId> {
        self.conns
            .values()
            .filter(|c| (c.client == node || c.server == node) && c.open_at(node))
            .map(|c| c.id)
            .collect()
    }

    /// Connections between `a` and `b`, in either direction.
    #[must_use]
    pub fn conns_between(&self, a: NodeId, b: NodeId) -> Vec<ConnId> {
        self.conns
            .values()
            .filter(|c| (c.client == a && c.server == b) || (c.client == b && c.server == a))
            .map(|c| c.id)
            .collect()
    }
}
