//! The node API: what every simulated process shares (its identity, the context its actor acts
//! through, the effects an actor can ask for, its trace lines). The actors are written against
//! it and the engine carries it out, so it sits below both.

pub(crate) mod message;
pub(crate) mod operands;
pub(crate) mod trace;

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use crate::scenario::{NodeSpec, Profile, Scenario};
use message::Message;
use nameserver_core::names::{BrokerName, ConnId, TopicName};
use nameserver_core::time::Instant;
use operands::Operands;
use trace::{NodeId, TraceKind};

/// A broker group, by index in the directory's groups ([`Directory::group_name`] names it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GroupId(pub u16);

/// What kind of process a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, strum::VariantArray)]
pub enum Role {
    /// A NameServer.
    NameServer,
    /// A broker instance.
    Broker,
    /// A producer.
    Producer,
    /// A consumer.
    Consumer,
}

impl Role {
    /// Every variant, in declaration order (the TypeScript union is written from it).
    pub const ALL: &'static [Self] = <Self as strum::VariantArray>::VARIANTS;

    /// Lowercase name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::NameServer => "nameserver",
            Self::Broker => "broker",
            Self::Producer => "producer",
            Self::Consumer => "consumer",
        }
    }
}

/// A node's process state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, strum::VariantArray)]
pub enum NodeState {
    /// Not started yet.
    NotStarted,
    /// Running: it reads, sends and keeps its timers.
    Up,
    /// Hung with its sockets open: it reads and sends nothing, its timers wait.
    Frozen,
    /// Shutting down gracefully.
    ShuttingDown,
    /// The process is gone; the machine still answers with resets.
    Down,
    /// The machine is off: silence.
    PoweredOff,
}

impl NodeState {
    /// Every variant, in declaration order (the TypeScript union is written from it).
    pub const ALL: &'static [Self] = <Self as strum::VariantArray>::VARIANTS;

    /// Lowercase name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::NotStarted => "not-started",
            Self::Up => "up",
            Self::Frozen => "frozen",
            Self::ShuttingDown => "shutting-down",
            Self::Down => "down",
            Self::PoweredOff => "powered-off",
        }
    }
}

/// The periodic or one-shot timers of actors; the page shows each with its deadline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TimerKind {
    /// Broker: `registerBrokerAll` every 30 s.
    Register,
    /// NameServer: `scanNotActiveBroker`, or the end of `needWaitForService` if sooner.
    Scan,
    /// Client: route poll every `pollNameServerInterval` (30 s).
    RoutePoll,
    /// Client: heartbeat to brokers every 30 s.
    Heartbeat,
    /// Producer: the next send.
    Send,
    /// Consumer: rebalance every 20 s.
    Rebalance,
    /// Consumer: retry a failed pull from this group after 3 s.
    PullRetry(GroupId),
    /// Broker: answer held pulls that waited 15 s.
    PullHold,
    /// Consumer: `persistAllConsumerOffset` every 5 s.
    PersistOffsets,
    /// Slave broker: `SlaveSynchronize.syncAll` every 10 s.
    SlaveSync,
}

impl TimerKind {
    /// A stable machine id for the page: `register`, `scan`, `route-poll`, `heartbeat`,
    /// `send`, `rebalance`, `pull-retry`, `long-poll`, `commit-offsets` or `slave-sync`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Register => "register",
            Self::Scan => "scan",
            Self::RoutePoll => "route-poll",
            Self::Heartbeat => "heartbeat",
            Self::Send => "send",
            Self::Rebalance => "rebalance",
            Self::PullRetry(_) => "pull-retry",
            Self::PullHold => "long-poll",
            Self::PersistOffsets => "commit-offsets",
            Self::SlaveSync => "slave-sync",
        }
    }

    /// A label for the page.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Register => "register to NameServers",
            Self::Scan => "scan for expired brokers",
            Self::RoutePoll => "route poll",
            Self::Heartbeat => "heartbeat to brokers",
            Self::Send => "next send",
            Self::Rebalance => "rebalance",
            Self::PullRetry(_) => "pull retry",
            Self::PullHold => "long-poll hold",
            Self::PersistOffsets => "commit consumer offsets",
            Self::SlaveSync => "sync offsets from master",
        }
    }
}

/// Why a request got no response.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Failure {
    /// The connection was refused or reset before an answer.
    ConnectFailed,
    /// The connection closed before an answer.
    Closed,
    /// No answer within the timeout.
    Timeout,
}

/// One queue a consumer holds, and which taking of it (an answer for a queue dropped and
/// taken again since is ignored, as Java ignores answers for a dropped `ProcessQueue`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct QueueRef {
    /// The broker group.
    pub(crate) group: GroupId,
    /// Queue id.
    pub(crate) queue: i32,
    /// Which taking of the queue by this process.
    pub(crate) take: u32,
}

/// What a client request was for, so its answer can be routed back to the right logic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Purpose {
    /// Broker: REGISTER_BROKER to this NameServer.
    Register(NodeId),
    /// Broker: UNREGISTER_BROKER to this NameServer.
    Unregister(NodeId),
    /// Client: periodic route query.
    RoutePoll,
    /// Producer: on-demand route query for a send; `default_topic` for the TBW102 fallback.
    RouteOnDemand {
        /// Whether this is the TBW102 query.
        default_topic: bool,
    },
    /// Producer: one attempt of one send.
    Send {
        /// The send.
        send: u64,
        /// The group written to.
        group: GroupId,
        /// The queue.
        queue: i32,
    },
    /// Client: heartbeat to a broker.
    Heartbeat,
    /// Consumer: pull one queue.
    Pull(QueueRef),
    /// Consumer: QUERY_CONSUMER_OFFSET of a queue it takes.
    QueryOffset(QueueRef),
    /// Consumer: GET_MAX_OFFSET of a queue it takes, when the broker holds no offset for it.
    MaxOffset(QueueRef),
    /// Slave broker: GET_ALL_CONSUMER_OFFSET from its master.
    SyncOffsets,
}

/// How a send ended (Jepsen's ok / fail / info).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SendOutcome {
    /// SEND_OK.
    Ok,
    /// Failed, and no attempt can have stored the message.
    Failed,
    /// Failed after an attempt timed out: the message may or may not have been stored.
    Indeterminate,
}

/// One attempt of a send.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SendAttempt {
    /// The group written to.
    pub(crate) group: GroupId,
    /// When the attempt started.
    pub(crate) at: Instant,
    /// How it ended: `None` on success.
    pub(crate) failure: Option<Failure>,
}

impl SendAttempt {
    /// The group written to.
    #[must_use]
    pub fn group(&self) -> GroupId {
        self.group
    }

    /// When the attempt started.
    #[must_use]
    pub fn at(&self) -> Instant {
        self.at
    }

    /// How it ended: `None` on success.
    #[must_use]
    pub fn failure(&self) -> Option<Failure> {
        self.failure
    }
}

/// One send call (`DefaultMQProducer.send`), with its attempts.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SendRecord {
    /// The producer.
    pub(crate) producer: NodeId,
    /// Its send number.
    pub(crate) id: u64,
    /// When the call started.
    pub(crate) started: Instant,
    /// When it returned.
    pub(crate) finished: Instant,
    /// How it ended.
    pub(crate) outcome: SendOutcome,
    /// Every attempt, in order.
    pub(crate) attempts: Vec<SendAttempt>,
}

impl SendRecord {
    /// The producer.
    #[must_use]
    pub fn producer(&self) -> NodeId {
        self.producer
    }

    /// Its send number.
    #[must_use]
    pub fn id(&self) -> u64 {
        self.id
    }

    /// When the call started.
    #[must_use]
    pub fn started(&self) -> Instant {
        self.started
    }

    /// When it returned.
    #[must_use]
    pub fn finished(&self) -> Instant {
        self.finished
    }

    /// How it ended.
    #[must_use]
    pub fn outcome(&self) -> SendOutcome {
        self.outcome
    }

    /// Every attempt, in order.
    #[must_use]
    pub fn attempts(&self) -> &[SendAttempt] {
        &self.attempts
    }
}

/// Names and addresses of everything in the model; fixed for a run.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Directory {
    /// Node names by id.
    pub(crate) names: Vec<String>,
    /// Node roles by id.
    pub(crate) roles: Vec<Role>,
    /// Listen addresses by id.
    pub(crate) addrs: Vec<String>,
    /// Node by listen address.
    pub(crate) by_addr: BTreeMap<String, NodeId>,
    /// Broker group names.
    pub(crate) groups: Vec<BrokerName>,
    /// The NameServers, in declaration order (clients' `namesrvAddr` list).
    pub(crate) nameservers: Vec<NodeId>,
    /// The timing profile.
    pub(crate) profile: Profile,
}

impl Directory {
    /// Node names by id.
    #[must_use]
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Node roles by id.
    #[must_use]
    pub fn roles(&self) -> &[Role] {
        &self.roles
    }

    /// The NameServers, in declaration order (clients' `namesrvAddr` list).
    #[must_use]
    pub fn nameservers(&self) -> &[NodeId] {
        &self.nameservers
    }
}

impl Directory {
    /// The NameServer a client bound first to `ns_index` asks: its index into the list,
    /// wrapping. A scenario with clients always has a NameServer (`Scenario::validate`).
    #[must_use]
    pub fn client_nameserver(&self, ns_index: usize) -> NodeId {
        self.nameservers[ns_index % self.nameservers.len().max(1)]
    }

    /// A node's name.
    #[must_use]
    pub fn name(&self, node: NodeId) -> &str {
        &self.names[usize::from(node.0)]
    }

    /// A node's listen address.
    #[must_use]
    pub fn addr(&self, node: NodeId) -> &str {
        &self.addrs[usize::from(node.0)]
    }

    /// The group with this name.
    #[must_use]
    pub fn group(&self, name: &BrokerName) -> Option<GroupId> {
        self.groups.iter().position(|g| g == name).map(|i| GroupId(i as u16))
    }

    /// A group's name.
    #[must_use]
    pub fn group_name(&self, group: GroupId) -> &BrokerName {
        &self.groups[usize::from(group.0)]
    }
}

/// An effect an actor asks the engine for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Effect {
    /// Send a request and track its answer.
    Request {
        /// To whom.
        to: NodeId,
        /// The request (its opaque already assigned).
        msg: Message,
        /// What it is for.
        purpose: Purpose,
        /// Milliseconds to wait for the answer.
        timeout_ms: u64,
    },
    /// Send a request that gets no answer.
    Oneway {
        /// To whom.
        to: NodeId,
        /// The request.
        msg: Message,
    },
    /// Answer on a connection.
    Reply {
        /// The connection the request came on.
        conn: ConnId,
        /// The response.
        msg: Message,
    },
    /// Arm (or move) a timer.
    Timer(TimerKind, Instant),
    /// Disarm a timer.
    CancelTimer(TimerKind),
    /// Write a trace line, with the operands of the rule behind it if one decided it.
    Trace(TraceKind, String, Option<Operands>),
    /// Close the client connection to this node (e.g. after a timeout).
    CloseTo(NodeId),
    /// The process exits (graceful shutdown done).
    Exit,
    /// A send finished; the engine keeps the record for measurements and lanes.
    SendFinished(SendRecord),
    /// A message was stored on a master: slaves of the group copy it.
    Replicate {
        /// The group.
        group: GroupId,
        /// The topic.
        topic: TopicName,
    },
}

/// The context an actor acts through: time, its identity, the directory, and a buffer
/// of effects the engine applies after the actor returns.
#[derive(Debug)]
pub struct Cx<'a> {
    /// The simulated time of the step.
    pub(crate) now: Instant,
    /// The acting node.
    pub(crate) me: NodeId,
    /// Names and addresses.
    pub(crate) dir: &'a Directory,
    pub(crate) effects: Vec<Effect>,
    pub(crate) next_opaque: &'a mut i32,
}

impl Cx<'_> {
    /// Sends a request; the answer comes back through the actor's response handler with
    /// `purpose`. Returns the opaque used.
    pub fn request(&mut self, to: NodeId, msg: impl Into<Message>, purpose: Purpose, timeout_ms: u64) -> i32 {
        let msg = self.stamped(msg.into());
        let opaque = msg.cmd.opaque;
        self.effects.push(Effect::Request { to, msg, purpose, timeout_ms });
        opaque
    }

    /// Sends a oneway request.
    pub fn oneway(&mut self, to: NodeId, msg: impl Into<Message>) {
        let mut msg = self.stamped(msg.into());
        msg.cmd.flag |= nameserver_core::protocol::FLAG_ONEWAY;
        self.effects.push(Effect::Oneway { to, msg });
    }

    /// Answers a request.
    pub fn reply(&mut self, conn: ConnId, msg: impl Into<Message>) {
        self.effects.push(Effect::Reply { conn, msg: msg.into() });
    }

    /// A request with the next opaque and the profile's version.
    fn stamped(&mut self, mut msg: Message) -> Message {
        msg.cmd.opaque = *self.next_opaque;
        *self.next_opaque = self.next_opaque.wrapping_add(1);
        msg.cmd.version = self.dir.profile.wire_version();
        msg
    }

    /// Arms a timer at `at`.
    pub fn timer(&mut self, kind: TimerKind, at: Instant) {
        self.effects.push(Effect::Timer(kind, at));
    }

    /// Disarms a timer.
    pub fn cancel_timer(&mut self, kind: TimerKind) {
        self.effects.push(Effect::CancelTimer(kind));
    }

    /// Writes a trace line.
    pub fn trace(&mut self, kind: TraceKind, text: String) {
        self.effects.push(Effect::Trace(kind, text, None));
    }

    /// Writes a trace line with the operands of the rule behind it.
    pub fn trace_rule(&mut self, kind: TraceKind, text: String, operands: Operands) {
        self.effects.push(Effect::Trace(kind, text, Some(operands)));
    }

    /// Asks for another effect.
    pub fn effect(&mut self, effect: Effect) {
        self.effects.push(effect);
    }
}

/// Builds the directory: addresses by role, groups in order of appearance.
pub(crate) fn directory(scenario: &Scenario) -> Directory {
    let mut names = Vec::new();
    let mut roles = Vec::new();
    let mut addrs = Vec::new();
    let mut groups: Vec<BrokerName> = Vec::new();
    let mut nameservers = Vec::new();
    let (mut ns_n, mut broker_n, mut client_n) = (0u32, 0u32, 0u32);
    for (i, spec) in scenario.nodes.iter().enumerate() {
        names.push(String::from(spec.name()));
        let (role, addr) = match spec {
            NodeSpec::NameServer { .. } => {
                ns_n += 1;
                nameservers.push(NodeId(i as u16));
                (Role::NameServer, alloc::format!("10.0.0.{ns_n}:9876"))
            }
            NodeSpec::Broker { group, .. } => {
                broker_n += 1;
                let name = BrokerName::from(group.as_str());
                if !groups.contains(&name) {
                    groups.push(name);
                }
                (Role::Broker, alloc::format!("10.0.1.{broker_n}:10911"))
            }
            NodeSpec::Producer { .. } => {
                client_n += 1;
                (Role::Producer, alloc::format!("10.0.2.{client_n}:0"))
            }
            NodeSpec::Consumer { .. } => {
                client_n += 1;
                (Role::Consumer, alloc::format!("10.0.2.{client_n}:0"))
            }
        };
        roles.push(role);
        addrs.push(addr);
    }
    let by_addr = addrs.iter().enumerate().map(|(i, a)| (a.clone(), NodeId(i as u16))).collect();
    Directory { names, roles, addrs, by_addr, groups, nameservers, profile: scenario.profile }
}
