//! A deterministic, seeded model of a RocketMQ cluster that drives the real NameServer.
//!
//! Every NameServer in the model is the real [`crate::NameServer`], and every message between
//! nodes is a real `RemotingCommand` that goes through the real codec. Brokers, producers and
//! consumers are small actors with RocketMQ's timings. Time is virtual (milliseconds); events
//! are ordered by (time, class, sequence number) in a `BTreeMap`; randomness comes from a
//! seeded in-crate PRNG; every table is a `BTreeMap`. The same seed and script give the same
//! trace, byte for byte, natively and in WebAssembly.

mod broker;
mod check;
mod client;
mod consumer;
mod faults;
mod history;
mod measure;
mod namesrv;
mod net;
mod node;
mod producer;
mod rng;
pub mod scenario;
mod scenarios;
mod timeline;
mod trace;
mod view;

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::hash::{Hash, Hasher};
use core::time::Duration;

pub use broker::SimBroker;
pub use check::Violation;
pub use consumer::SimConsumer;
pub use history::{FaultRecord, History, Removal, RouteChange, StaleMark};
pub use measure::{FaultMeasurement, StaleWindow};
pub use namesrv::NsNode;
pub use net::{Conn, Flight, Label, Link, Net, Payload};
pub use node::{
    Directory, Failure, GroupId, NodeState, Purpose, Role, SendAttempt, SendOutcome, SendRecord, TimerKind,
};
pub use producer::SimProducer;
pub use rng::Rng;
pub use scenario::{Action, NodeSpec, Profile, Scenario, ScenarioError, ScriptEvent};
pub use scenarios::{BASE, BUILT_IN, built_in, built_in_text};
pub use timeline::{Branch, Timeline};
pub use trace::{Fnv64, NodeId, TraceEntry, TraceKind};
pub use view::{FlightView, NodeView, TimerView};

use crate::codec::{self, Limits};
use crate::names::{BrokerName, ConnId, TopicName};
use crate::protocol::RemotingCommand;
use crate::protocol::body::TopicConfig;
use crate::time::Instant;
use node::{Cx, Effect};

/// Ordering class of events at the same millisecond: everything else first, then script
/// actions, so an action injected live at `now` replays at the same point.
const CLASS_NORMAL: u8 = 1;
const CLASS_SCRIPT: u8 = 2;

/// Something scheduled.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Ev {
    Start(NodeId),
    Script(Action),
    Arrive(u64),
    Timer(NodeId, TimerKind, u32),
    Timeout(NodeId, i32, u32),
    Idle(NodeId, ConnId, u32),
}

/// A request waiting for its answer.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Pending {
    conn: ConnId,
    to: NodeId,
    purpose: Purpose,
    deadline: Instant,
}

/// The process behind a node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Actor {
    /// A NameServer (the real one).
    NameServer(alloc::boxed::Box<NsNode>),
    /// A broker.
    Broker(SimBroker),
    /// A producer.
    Producer(SimProducer),
    /// A consumer.
    Consumer(SimConsumer),
    /// Not running.
    None,
}

/// One simulated process and its machine.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Node {
    /// Its kind.
    pub role: Role,
    /// Process state.
    pub state: NodeState,
    /// Bumped on every start and death, so events of an old process are ignored.
    pub incarnation: u32,
    /// The process.
    pub actor: Actor,
    /// Armed timers and their deadlines.
    pub timers: BTreeMap<TimerKind, Instant>,
    /// When the current process started.
    pub started_at: Option<Instant>,
    rng: Rng,
    next_opaque: i32,
    pending: BTreeMap<i32, Pending>,
    conns: BTreeMap<NodeId, ConnId>,
    deferred: Vec<Ev>,
    /// What survives a restart on this machine's disk (a broker's topics and commit log).
    disk: Option<broker::BrokerDisk>,
    /// When the process last resumed from a freeze.
    resumed_at: Option<Instant>,
}

/// A running simulation.
#[derive(Clone, Debug)]
pub struct Sim {
    scenario: Scenario,
    dir: Directory,
    now: Instant,
    queue: BTreeMap<(Instant, u8, u64), Ev>,
    next_seq: u64,
    rng: Rng,
    nodes: Vec<Node>,
    net: Net,
    history: History,
    trace_hash: u64,
    stale_now: BTreeMap<NodeId, bool>,
    stale_keys: BTreeMap<NodeId, measure::StaleKey>,
    /// Whether a route table, a client's route or a process changed since staleness was last
    /// measured.
    stale_dirty: bool,
    /// Fingerprints of every route a NameServer answered (for [`Self::check`]), and of the
    /// answer bodies already parsed for it.
    said: alloc::collections::BTreeSet<u64>,
    said_bodies: alloc::collections::BTreeSet<u64>,
    events: u64,
}

impl Sim {
    /// A simulation of `scenario` at time zero.
    #[must_use]
    pub fn new(scenario: &Scenario) -> Self {
        let dir = directory(scenario);
        let mut rng = Rng::new(scenario.seed);
        let nodes = dir
            .roles
            .iter()
            .map(|role| Node {
                role: *role,
                state: NodeState::NotStarted,
                incarnation: 0,
                actor: Actor::None,
                timers: BTreeMap::new(),
                started_at: None,
                rng: rng.fork(),
                next_opaque: 0,
                pending: BTreeMap::new(),
                conns: BTreeMap::new(),
                deferred: Vec::new(),
                disk: None,
                resumed_at: None,
            })
            .collect();
        let mut sim = Self {
            scenario: scenario.clone(),
            dir,
            now: Instant::ZERO,
            queue: BTreeMap::new(),
            next_seq: 0,
            rng,
            nodes,
            net: Net::new(scenario.latency_ms, scenario.jitter_ms),
            history: History::default(),
            trace_hash: Fnv64::default().finish(),
            stale_now: BTreeMap::new(),
            stale_keys: BTreeMap::new(),
            stale_dirty: true,
            said: alloc::collections::BTreeSet::new(),
            said_bodies: alloc::collections::BTreeSet::new(),
            events: 0,
        };
        for (i, spec) in scenario.nodes.iter().enumerate() {
            sim.schedule(spec.start(), CLASS_NORMAL, Ev::Start(NodeId(i as u16)));
        }
        for event in &scenario.script {
            sim.schedule(event.at, CLASS_SCRIPT, Ev::Script(event.action.clone()));
        }
        sim
    }

    /// The scenario being run (including actions injected so far).
    #[must_use]
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// Names, roles and addresses.
    #[must_use]
    pub fn directory(&self) -> &Directory {
        &self.dir
    }

    /// Virtual time.
    #[must_use]
    pub fn now(&self) -> Instant {
        self.now
    }

    /// The nodes, indexed by [`NodeId`].
    #[must_use]
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The network.
    #[must_use]
    pub fn net(&self) -> &Net {
        &self.net
    }

    /// The record of the run.
    #[must_use]
    pub fn history(&self) -> &History {
        &self.history
    }

    /// The trace so far.
    #[must_use]
    pub fn trace(&self) -> &[TraceEntry] {
        &self.history.trace
    }

    /// Events processed so far.
    #[must_use]
    pub fn events_processed(&self) -> u64 {
        self.events
    }

    /// A fingerprint of the whole trace so far.
    #[must_use]
    pub fn trace_hash(&self) -> u64 {
        self.trace_hash
    }

    /// A fingerprint of the whole state (not the history).
    ///
    /// Queued events are hashed in their order without their sequence numbers: two states
    /// that will process the same events in the same order hash alike, whether an action was
    /// injected live or replayed from the script.
    #[must_use]
    pub fn state_hash(&self) -> u64 {
        let mut h = Fnv64::default();
        self.now.hash(&mut h);
        self.queue.len().hash(&mut h);
        for ((at, class, _), ev) in &self.queue {
            at.hash(&mut h);
            class.hash(&mut h);
            ev.hash(&mut h);
        }
        self.rng.hash(&mut h);
        self.nodes.hash(&mut h);
        self.net.hash(&mut h);
        self.scenario.hash(&mut h);
        h.finish()
    }

    /// When the next event is due.
    #[must_use]
    pub fn next_event_time(&self) -> Option<Instant> {
        self.queue.keys().next().map(|k| k.0)
    }

    /// Runs every event due at or before `until`, then sets the clock to `until`.
    pub fn run_until(&mut self, until: Instant) {
        while let Some((&(at, _, _), _)) = self.queue.first_key_value() {
            if at > until {
                break;
            }
            self.process_next();
        }
        self.now = self.now.max(until);
    }

    /// Advances by `by`.
    pub fn advance(&mut self, by: Duration) {
        self.run_until(self.now + by);
    }

    /// Processes exactly one event if one is due at or before `limit`; returns whether it did.
    /// The clock moves to that event's time, not to `limit`. Tests call [`Self::check`] after
    /// each one.
    pub fn step_event(&mut self, limit: Instant) -> bool {
        match self.next_event_time() {
            Some(at) if at <= limit => {
                self.process_next();
                true
            }
            _ => false,
        }
    }

    /// Mutable access to the nodes, so tests can build broken states and show that
    /// [`Self::check`] catches them. Not for drivers.
    #[doc(hidden)]
    pub fn nodes_mut_for_test(&mut self) -> &mut [Node] {
        self.stale_dirty = true;
        &mut self.nodes
    }

    /// Runs events until at least one trace line is written, then finishes that millisecond.
    /// Returns the new trace lines (none if nothing is left to happen before `limit`).
    pub fn step(&mut self, limit: Instant) -> &[TraceEntry] {
        let start = self.history.trace.len();
        while self.history.trace.len() == start {
            match self.next_event_time() {
                Some(at) if at <= limit => self.process_next(),
                _ => break,
            }
        }
        if self.history.trace.len() > start {
            let at = self.now;
            self.run_until(at);
        }
        &self.history.trace[start..]
    }

    /// Applies `action` now, after everything else due now (as a script line would).
    pub fn inject(&mut self, action: Action) {
        let now = self.now;
        self.run_until(now);
        self.scenario.push_action(now, action.clone());
        self.apply_action(&action);
        self.after_event();
    }

    /// Adds a script action at `at` (not before now) without applying anything yet.
    pub(crate) fn add_scripted(&mut self, at: Instant, action: Action) {
        self.scenario.push_action(at, action.clone());
        self.schedule(at, CLASS_SCRIPT, Ev::Script(action));
    }

    fn schedule(&mut self, at: Instant, class: u8, ev: Ev) {
        self.next_seq += 1;
        self.queue.insert((at.max(self.now), class, self.next_seq), ev);
    }

    fn process_next(&mut self) {
        let Some(((at, _, _), ev)) = self.queue.pop_first() else { return };
        self.now = self.now.max(at);
        self.events += 1;
        match ev {
            Ev::Start(node) => self.start_node(node),
            Ev::Script(action) => self.apply_action(&action),
            Ev::Arrive(id) => self.arrive(id),
            Ev::Timer(node, kind, incarnation) => self.fire_timer(node, kind, incarnation),
            Ev::Timeout(node, opaque, incarnation) => self.fire_timeout(node, opaque, incarnation),
            Ev::Idle(node, conn, incarnation) => self.idle_check(node, conn, incarnation),
        }
        self.after_event();
    }

    /// Whether events for `node` must wait (it is frozen); if so they are kept for later.
    fn defer_if_frozen(&mut self, node: NodeId, ev: Ev) -> bool {
        let n = &mut self.nodes[usize::from(node.0)];
        if n.state == NodeState::Frozen {
            n.deferred.push(ev);
            return true;
        }
        false
    }

    fn node(&self, id: NodeId) -> &Node {
        &self.nodes[usize::from(id.0)]
    }

    fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[usize::from(id.0)]
    }

    fn is_running(&self, id: NodeId) -> bool {
        matches!(self.node(id).state, NodeState::Up | NodeState::ShuttingDown)
    }

    pub(crate) fn trace_line(&mut self, node: NodeId, kind: TraceKind, text: String) {
        let entry = TraceEntry { seq: self.history.trace.len() as u64, at: self.now, node, kind, text };
        let mut h = Fnv64(self.trace_hash);
        trace::hash_entry(&mut h, &entry);
        self.trace_hash = h.finish();
        self.history.trace.push(entry);
    }

    fn start_node(&mut self, id: NodeId) {
        let index = usize::from(id.0);
        if !matches!(self.nodes[index].state, NodeState::NotStarted | NodeState::Down | NodeState::PoweredOff) {
            return;
        }
        let actor = self.make_actor(id);
        let now = self.now;
        self.stale_dirty = true;
        let node = &mut self.nodes[index];
        node.state = NodeState::Up;
        node.incarnation += 1;
        node.actor = actor;
        node.started_at = Some(now);
        node.timers.clear();
        node.pending.clear();
        node.conns.clear();
        node.deferred.clear();
        node.next_opaque = 0;
        node.resumed_at = None;
        match self.nodes[index].role {
            Role::NameServer => {
                let name = String::from(self.dir.name(id));
                self.trace_line(
                    id,
                    TraceKind::Lifecycle,
                    alloc::format!("The Name Server boot success. serializeType=JSON, {name}"),
                );
                self.sync_ns_timer(id);
            }
            _ => {
                self.with_actor(id, |actor, cx| match actor {
                    Actor::Broker(b) => b.on_start(cx),
                    Actor::Producer(p) => p.on_start(cx),
                    Actor::Consumer(c) => c.on_start(cx),
                    Actor::NameServer(_) | Actor::None => {}
                });
                self.catch_up_from_master(id);
            }
        }
    }

    fn make_actor(&mut self, id: NodeId) -> Actor {
        let spec = self.scenario.nodes[usize::from(id.0)].clone();
        let ns_count = self.dir.nameservers.len().max(1) as u64;
        let pick = |ns: &Option<String>, sim: &mut Self| -> usize {
            match ns {
                Some(name) => sim.dir.nameservers.iter().position(|n| sim.dir.name(*n) == name).unwrap_or(0),
                None => sim.node_mut(id).rng.below(ns_count) as usize,
            }
        };
        match spec {
            NodeSpec::NameServer { .. } => {
                let mut config = crate::Config::java_defaults("/home/rocketmq", "/opt/rocketmq");
                config.scan_not_active_broker_interval =
                    Duration::from_millis(self.scenario.profile.scan_interval_ms());
                Actor::NameServer(alloc::boxed::Box::new(NsNode::new(crate::NameServer::new(
                    config,
                    crate::KvConfig::default(),
                    self.now,
                ))))
            }
            NodeSpec::Broker { group, id: broker_id, .. } => {
                let group_name = BrokerName::from(group.as_str());
                let group_id = self.dir.group(&group_name).unwrap_or(GroupId(0));
                let mut topics = alloc::vec![
                    TopicConfig { perm: 7, ..TopicConfig::new(broker::DEFAULT_TOPIC, 8) },
                    TopicConfig { perm: 7, ..TopicConfig::new(self.scenario.cluster.as_str(), 16) },
                    TopicConfig { perm: 7, ..TopicConfig::new(group.as_str(), 1) },
                    TopicConfig::new("SELF_TEST_TOPIC", 1),
                    TopicConfig::new("OFFSET_MOVED_EVENT", 1),
                ];
                for topic in self.scenario.topics.iter().filter(|t| t.groups.contains(&group)) {
                    topics.push(TopicConfig::new(topic.name.as_str(), topic.queues));
                }
                let mut b = SimBroker::new(
                    group_name,
                    group_id,
                    broker_id,
                    self.scenario.cluster.clone(),
                    String::from(self.dir.addr(id)),
                    topics,
                );
                b.auto_create = self.scenario.auto_create;
                // topics.json and the commit log survive the process (and the power).
                if let Some(disk) = self.node(id).disk.clone() {
                    b.load(disk);
                }
                Actor::Broker(b)
            }
            NodeSpec::Producer { ns, topic, every_ms, fault_tolerance, .. } => {
                let index = pick(&ns, self);
                let first = self.node_mut(id).rng.below(1 << 16);
                Actor::Producer(SimProducer::new(
                    TopicName::from(topic.as_str()),
                    index,
                    every_ms,
                    fault_tolerance,
                    first,
                ))
            }
            NodeSpec::Consumer { ns, group, topic, .. } => {
                let index = pick(&ns, self);
                Actor::Consumer(SimConsumer::new(TopicName::from(topic.as_str()), group, index))
            }
        }
    }

    /// Runs `f` on the node's actor with a context, then applies the effects it asked for.
    fn with_actor(&mut self, id: NodeId, f: impl FnOnce(&mut Actor, &mut Cx<'_>)) {
        let Self { nodes, dir, now, .. } = self;
        let node = &mut nodes[usize::from(id.0)];
        if matches!(node.actor, Actor::Producer(_) | Actor::Consumer(_)) {
            self.stale_dirty = true;
        }
        let mut cx =
            Cx { now: *now, me: id, rng: &mut node.rng, dir, effects: Vec::new(), next_opaque: &mut node.next_opaque };
        f(&mut node.actor, &mut cx);
        if let Actor::Broker(b) = &node.actor {
            // Re-arm the long-poll timer only when its deadline moves.
            if b.next_pull_deadline() != node.timers.get(&TimerKind::PullHold).copied() {
                b.arm_pull_timer(&mut cx);
            }
        }
        let effects = cx.effects;
        let incarnation = node.incarnation;
        for effect in effects {
            // Nothing of a process outlives it (a graceful exit ends the list).
            if self.node(id).incarnation != incarnation {
                break;
            }
            self.apply_effect(id, effect);
        }
    }

    fn apply_effect(&mut self, me: NodeId, effect: Effect) {
        match effect {
            Effect::Request { to, cmd, purpose, timeout_ms } => {
                let opaque = cmd.opaque;
                let Some(conn) = self.send_to(me, to, &cmd) else { return };
                let deadline = self.now + Duration::from_millis(timeout_ms);
                let incarnation = self.node(me).incarnation;
                self.node_mut(me).pending.insert(opaque, Pending { conn, to, purpose, deadline });
                self.schedule(deadline, CLASS_NORMAL, Ev::Timeout(me, opaque, incarnation));
            }
            Effect::Oneway { to, cmd } => {
                self.send_to(me, to, &cmd);
            }
            Effect::Reply { conn, cmd } => self.send_on(conn, me, &cmd),
            Effect::Timer(kind, at) => {
                // A deadline that passed while the process was frozen is due now.
                let at = at.max(self.now);
                let incarnation = self.node(me).incarnation;
                self.node_mut(me).timers.insert(kind, at);
                self.schedule(at, CLASS_NORMAL, Ev::Timer(me, kind, incarnation));
            }
            Effect::CancelTimer(kind) => {
                self.node_mut(me).timers.remove(&kind);
            }
            Effect::Trace(kind, text) => self.trace_line(me, kind, text),
            Effect::CloseTo(peer) => {
                if let Some(conn) = self.node_mut(me).conns.remove(&peer) {
                    self.close_conn(conn, me, Payload::Fin);
                }
            }
            Effect::Exit => self.kill(me, true),
            Effect::SendFinished(record) => self.history.sends.push(record),
            Effect::Replicate { group, topic } => self.replicate(group, &topic),
        }
    }

    /// What the running master of `group` has stored, per topic.
    fn master_store(&self, group: GroupId) -> Option<&BTreeMap<TopicName, u64>> {
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
    fn catch_up_from_master(&mut self, id: NodeId) {
        let Actor::Broker(slave) = &self.node(id).actor else { return };
        if slave.is_master() || !self.is_running(id) {
            return;
        }
        let Some(stored) = self.master_store(slave.group_id).cloned() else { return };
        self.with_actor(id, |actor, cx| {
            if let Actor::Broker(b) = actor {
                for (topic, count) in stored {
                    b.replicated(&topic, count, cx);
                }
            }
        });
    }

    /// Running slaves of `group` copy a message stored on the master (HA replication,
    /// instantly).
    fn replicate(&mut self, group: GroupId, topic: &TopicName) {
        let Some(count) = self.master_store(group).and_then(|s| s.get(topic)).copied() else { return };
        let slaves: Vec<NodeId> = (0..self.nodes.len())
            .map(|i| NodeId(i as u16))
            .filter(|id| self.is_running(*id))
            .filter(|id| matches!(&self.node(*id).actor, Actor::Broker(b) if b.group_id == group && !b.is_master()))
            .collect();
        for slave in slaves {
            self.with_actor(slave, |actor, cx| {
                if let Actor::Broker(b) = actor {
                    b.replicated(topic, count, cx);
                }
            });
        }
    }

    /// Sends a request from `me` to `to`, opening a connection if needed.
    fn send_to(&mut self, me: NodeId, to: NodeId, cmd: &RemotingCommand) -> Option<ConnId> {
        let existing =
            self.node(me).conns.get(&to).copied().filter(|c| self.net.conns.get(c).is_some_and(|c| c.client_open));
        let conn = match existing {
            Some(conn) => conn,
            None => {
                let conn = self.net.open(me, to, self.now);
                self.node_mut(me).conns.insert(to, conn);
                conn
            }
        };
        self.send_on(conn, me, cmd);
        Some(conn)
    }

    /// Encodes `cmd` and puts it on `conn` from `me`.
    fn send_on(&mut self, conn: ConnId, me: NodeId, cmd: &RemotingCommand) {
        if !self.net.conns.get(&conn).is_some_and(|c| c.open_at(me)) {
            return;
        }
        let Ok(bytes) = codec::encode_to_vec(cmd) else { return };
        let label = self.label(me, cmd);
        self.transmit(conn, me, Payload::Frame(bytes), Some(label));
    }

    fn transmit(&mut self, conn: ConnId, from: NodeId, payload: Payload, label: Option<Label>) {
        let Some(c) = self.net.conns.get(&conn) else { return };
        let to = c.peer(from);
        if self.net.link(from, to) == Link::Reset && payload != Payload::Rst {
            // A reject: the sender gets a reset back, the receiver never hears of it.
            self.net.close_side(conn, to);
            if let Some((id, at)) = self.net.transmit(conn, to, Payload::Rst, None, self.now, &mut self.rng) {
                self.schedule(at, CLASS_NORMAL, Ev::Arrive(id));
            }
            return;
        }
        if let Some((id, at)) = self.net.transmit(conn, from, payload, label, self.now, &mut self.rng) {
            self.schedule(at, CLASS_NORMAL, Ev::Arrive(id));
        }
    }

    /// Closes `me`'s side of `conn` and tells the peer with `how` (FIN or RST).
    fn close_conn(&mut self, conn: ConnId, me: NodeId, how: Payload) {
        if self.net.conns.get(&conn).is_some_and(|c| c.open_at(me)) {
            self.transmit(conn, me, how, None);
            self.net.close_side(conn, me);
        }
        self.after_close(me, conn);
    }

    /// Bookkeeping when `node`'s side of `conn` is gone: pending requests fail, the
    /// NameServer forgets brokers registered on it.
    fn after_close(&mut self, node: NodeId, conn: ConnId) {
        self.node_mut(node).conns.retain(|_, c| *c != conn);
        if !self.is_running(node) {
            return;
        }
        match &self.node(node).actor {
            Actor::NameServer(_) => self.ns_input(node, crate::Input::Disconnected { conn }),
            Actor::Broker(_) => self.with_actor(node, |actor, _| {
                if let Actor::Broker(b) = actor {
                    b.forget_conn(conn);
                }
            }),
            _ => {}
        }
    }

    fn arrive(&mut self, id: u64) {
        let Some(flight) = self.net.flights.get(&id) else { return };
        if flight.arrive_at != self.now {
            return;
        }
        let to = flight.to;
        if self.defer_if_frozen(to, Ev::Arrive(id)) {
            return;
        }
        let Some(flight) = self.net.flights.remove(&id) else { return };
        let state = self.node(to).state;
        let receiver_open = self.net.conns.get(&flight.conn).is_some_and(|c| c.open_at(to));
        match flight.payload {
            Payload::Fin | Payload::Rst => {
                if receiver_open {
                    let failure = if flight.payload == Payload::Rst { Failure::ConnectFailed } else { Failure::Closed };
                    self.net.close_side(flight.conn, to);
                    self.fail_pending(to, flight.conn, failure);
                    self.after_close(to, flight.conn);
                }
            }
            Payload::Frame(bytes) => {
                if matches!(state, NodeState::PoweredOff) {
                    return;
                }
                if !receiver_open || matches!(state, NodeState::NotStarted | NodeState::Down) {
                    // Nobody listens on that socket any more: the OS answers with a reset.
                    if self.net.conns.get(&flight.conn).is_some_and(|c| c.open_at(flight.from)) {
                        self.net.close_side(flight.conn, to);
                        if let Some((rst, at)) =
                            self.net.transmit(flight.conn, to, Payload::Rst, None, self.now, &mut self.rng)
                        {
                            self.schedule(at, CLASS_NORMAL, Ev::Arrive(rst));
                        }
                    }
                    return;
                }
                self.deliver_frame(to, flight.from, flight.conn, &bytes);
            }
        }
    }

    fn deliver_frame(&mut self, to: NodeId, from: NodeId, conn: ConnId, bytes: &[u8]) {
        let cmd = match codec::decode(bytes, &Limits::DEFAULT) {
            Ok(Some((cmd, _))) => cmd,
            Ok(None) | Err(_) => {
                self.trace_line(to, TraceKind::Info, String::from("decode exception, close the channel"));
                self.close_conn(conn, to, Payload::Fin);
                return;
            }
        };
        let is_server = self.net.conns.get(&conn).is_some_and(|c| c.server == to);
        if is_server && !self.net.conns.get(&conn).is_some_and(|c| c.accepted) {
            if let Some(c) = self.net.conns.get_mut(&conn) {
                c.accepted = true;
            }
            if matches!(self.node(to).actor, Actor::NameServer(_)) {
                let remote = self.remote_of(conn, from);
                self.ns_input(to, crate::Input::Connected { conn, remote });
            }
        }
        if cmd.is_response() {
            let Some(pending) = self.node(to).pending.get(&cmd.opaque).cloned() else { return };
            if pending.conn != conn {
                return;
            }
            self.node_mut(to).pending.remove(&cmd.opaque);
            self.respond(to, pending.purpose, Ok(cmd), pending.to);
            return;
        }
        match self.node(to).role {
            Role::NameServer => {
                self.touch_conn(to, conn);
                self.ns_input(to, crate::Input::Received { conn, cmd });
            }
            Role::Broker => self.with_actor(to, |actor, cx| {
                if let Actor::Broker(b) = actor {
                    b.on_request(conn, &cmd, from, cx);
                }
            }),
            Role::Producer | Role::Consumer => {}
        }
    }

    /// `ip:port` of the client end of `conn`, as the server would log it.
    fn remote_of(&self, conn: ConnId, client: NodeId) -> String {
        let host = self.dir.addr(client).split(':').next().unwrap_or("");
        let port = self.net.conns.get(&conn).map_or(0, |c| c.port);
        alloc::format!("{host}:{port}")
    }

    fn respond(&mut self, node: NodeId, purpose: Purpose, result: Result<RemotingCommand, Failure>, from: NodeId) {
        self.with_actor(node, |actor, cx| match actor {
            Actor::Broker(b) => b.on_response(purpose, result, cx),
            Actor::Producer(p) => p.on_response(purpose, result, from, cx),
            Actor::Consumer(c) => c.on_response(purpose, result, from, cx),
            Actor::NameServer(_) | Actor::None => {}
        });
    }

    fn fail_pending(&mut self, node: NodeId, conn: ConnId, failure: Failure) {
        let failed: Vec<(i32, Pending)> =
            self.node(node).pending.iter().filter(|(_, p)| p.conn == conn).map(|(o, p)| (*o, p.clone())).collect();
        for (opaque, pending) in failed {
            self.node_mut(node).pending.remove(&opaque);
            if self.is_running(node) {
                self.respond(node, pending.purpose, Err(failure), pending.to);
            }
        }
    }

    fn fire_timer(&mut self, node: NodeId, kind: TimerKind, incarnation: u32) {
        let n = self.node(node);
        if n.incarnation != incarnation || n.timers.get(&kind) != Some(&self.now) {
            return;
        }
        if self.defer_if_frozen(node, Ev::Timer(node, kind, incarnation)) {
            return;
        }
        if !self.is_running(node) {
            return;
        }
        self.node_mut(node).timers.remove(&kind);
        if kind == TimerKind::Scan {
            self.ns_scan(node);
            return;
        }
        self.with_actor(node, |actor, cx| match actor {
            Actor::Broker(b) => b.on_timer(kind, cx),
            Actor::Producer(p) => p.on_timer(kind, cx),
            Actor::Consumer(c) => c.on_timer(kind, cx),
            Actor::NameServer(_) | Actor::None => {}
        });
    }

    fn fire_timeout(&mut self, node: NodeId, opaque: i32, incarnation: u32) {
        let n = self.node(node);
        if n.incarnation != incarnation || n.pending.get(&opaque).is_none_or(|p| p.deadline != self.now) {
            return;
        }
        if self.defer_if_frozen(node, Ev::Timeout(node, opaque, incarnation)) {
            return;
        }
        let Some(pending) = self.node_mut(node).pending.remove(&opaque) else { return };
        // clientCloseSocketIfTimeout (default true): a timed-out channel is closed.
        if self.node(node).conns.get(&pending.to) == Some(&pending.conn) {
            self.node_mut(node).conns.remove(&pending.to);
            self.close_conn(pending.conn, node, Payload::Fin);
            self.fail_pending(node, pending.conn, Failure::Closed);
        }
        self.respond(node, pending.purpose, Err(Failure::Timeout), pending.to);
    }

    /// After every event: measure client staleness (cheap unless routes changed).
    fn after_event(&mut self) {
        self.update_staleness();
    }
}

/// Builds the directory: addresses by role, groups in order of appearance.
fn directory(scenario: &Scenario) -> Directory {
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
