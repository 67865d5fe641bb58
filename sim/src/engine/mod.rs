//! The engine: `Sim`, its clock and event queue, the network and transport, the actors'
//! processes run through the node API, the NameServer driver, faults and replication, and the
//! record it writes as it runs (`history.rs`). The only place that changes a `Sim`.

pub(crate) mod actor;
mod checkpoint;
pub(crate) mod faults;
pub(crate) mod frame;
pub(crate) mod history;
pub(crate) mod namesrv;
pub(crate) mod net;
pub(crate) mod queue;
pub(crate) mod record;
pub(crate) mod replication;
pub(crate) mod rng;
pub(crate) mod transport;

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::hash::{Hash, Hasher};
use core::time::Duration;

use crate::Action;
use crate::Scenario;
use crate::actors::broker;
use crate::actors::offsets;
use crate::engine::history::History;
use crate::node::operands::Operands;
use crate::node::trace::{self, Fnv64, NodeId, TraceEntry, TraceKind};
use crate::node::{Directory, NodeState, Role, TimerKind, directory};
use actor::{Actor, Pending};
use nameserver_core::names::ConnId;
use nameserver_core::time::Instant;
use net::Net;
use queue::{CLASS_NORMAL, CLASS_SCRIPT, Ev, EventQueue};
use rng::Rng;

/// One simulated process and its machine.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Node {
    /// Its kind.
    pub(crate) role: Role,
    /// Process state.
    pub(crate) state: NodeState,
    /// Bumped on every start and death, so events of an old process are ignored.
    pub(crate) incarnation: u32,
    /// The process.
    pub(crate) actor: Actor,
    /// Armed timers and their deadlines.
    pub(crate) timers: BTreeMap<TimerKind, Instant>,
    /// When the current process started.
    pub(crate) started_at: Option<Instant>,
    rng: Rng,
    next_opaque: i32,
    pending: BTreeMap<i32, Pending>,
    conns: BTreeMap<NodeId, ConnId>,
    deferred: Vec<Ev>,
    /// What survives a restart on this machine's disk (a broker's topics and commit log).
    disk: Option<broker::BrokerDisk>,
    /// What a consumer machine's processes consumed (kept across restarts).
    consume_log: Option<offsets::ConsumeLog>,
    /// When the process last resumed from a freeze.
    resumed_at: Option<Instant>,
}

impl Node {
    /// Process state.
    #[must_use]
    pub fn state(&self) -> NodeState {
        self.state
    }

    /// The process.
    #[must_use]
    pub fn actor(&self) -> &Actor {
        &self.actor
    }

    /// Armed timers and their deadlines.
    #[must_use]
    pub fn timers(&self) -> &BTreeMap<TimerKind, Instant> {
        &self.timers
    }

    /// When the current process started.
    #[must_use]
    pub fn started_at(&self) -> Option<Instant> {
        self.started_at
    }

    /// Its kind.
    #[must_use]
    pub fn role(&self) -> Role {
        self.role
    }
}

impl Node {
    /// Requests it sent whose answers it still waits for, by opaque.
    pub(crate) fn pending(&self) -> &BTreeMap<i32, Pending> {
        &self.pending
    }

    /// Its connections, by peer.
    pub(crate) fn conns(&self) -> &BTreeMap<NodeId, ConnId> {
        &self.conns
    }

    /// When the process last resumed from a freeze.
    pub(crate) fn resumed_at(&self) -> Option<Instant> {
        self.resumed_at
    }

    /// Its process, for tests that build broken states (see [`Sim::nodes_mut_for_test`]).
    #[doc(hidden)]
    pub fn actor_mut_for_test(&mut self) -> &mut Actor {
        &mut self.actor
    }

    /// Its timers, for tests that build broken states (see [`Sim::nodes_mut_for_test`]).
    #[doc(hidden)]
    pub fn timers_mut_for_test(&mut self) -> &mut BTreeMap<TimerKind, Instant> {
        &mut self.timers
    }

    /// What this consumer machine's processes consumed.
    pub(crate) fn consume_log(&self) -> Option<&offsets::ConsumeLog> {
        self.consume_log.as_ref()
    }
}

/// A running simulation.
#[derive(Clone, Debug)]
pub struct Sim {
    scenario: Scenario,
    dir: Directory,
    now: Instant,
    queue: EventQueue,
    next_seq: u64,
    rng: Rng,
    nodes: Vec<Node>,
    net: Net,
    history: History,
    trace_hash: u64,
    stale_now: BTreeMap<NodeId, bool>,
    stale_keys: BTreeMap<NodeId, record::StaleKey>,
    /// Whether a route table, a client's route or a process changed since staleness was last
    /// measured.
    stale_dirty: bool,
    /// Fingerprints of every route a NameServer answered (for [`Self::check`]), and of the
    /// answer bodies already parsed for it.
    said: alloc::collections::BTreeSet<u64>,
    said_bodies: alloc::collections::BTreeSet<u64>,
    events: u64,
    /// The code of every request on the wire whose answer may still come, by (connection,
    /// requester, opaque), so the wire log can name answers; pruned when it reaches the limit.
    asked: BTreeMap<(ConnId, NodeId, i32), nameserver_core::protocol::RequestCode>,
    asked_limit: usize,
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
                consume_log: None,
                resumed_at: None,
            })
            .collect();
        let mut sim = Self {
            scenario: scenario.clone(),
            dir,
            now: Instant::ZERO,
            queue: EventQueue::default(),
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
            asked: BTreeMap::new(),
            asked_limit: 64,
        };
        for (i, spec) in scenario.nodes.iter().enumerate() {
            sim.schedule(spec.start(), CLASS_NORMAL, Ev::Start(NodeId(i as u16)));
        }
        for event in &scenario.script {
            sim.schedule(event.at, CLASS_SCRIPT, Ev::Script(alloc::boxed::Box::new(event.action.clone())));
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
        for ((at, class, _), ev) in self.queue.in_order() {
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

    /// A node's timer deadline, for tests and lessons.
    #[must_use]
    pub fn timer_of(&self, node: NodeId, kind: TimerKind) -> Option<Instant> {
        self.node(node).timers.get(&kind).copied()
    }

    /// When the next event is due.
    #[must_use]
    pub fn next_event_time(&self) -> Option<Instant> {
        self.queue.first_time()
    }

    /// Runs every event due at or before `until`, then sets the clock to `until`.
    pub fn run_until(&mut self, until: Instant) {
        while let Some(at) = self.queue.first_time() {
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
    /// The clock moves to that event's time, not to `limit`. Tests call `observe::check` after
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
        self.schedule(at, CLASS_SCRIPT, Ev::Script(alloc::boxed::Box::new(action)));
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
        self.trace_rule(node, kind, text, None);
    }

    /// A trace line with the operands of the rule behind it (not part of the trace hash).
    pub(crate) fn trace_rule(&mut self, node: NodeId, kind: TraceKind, text: String, operands: Option<Operands>) {
        let entry = TraceEntry { seq: self.history.trace.len() as u64, at: self.now, node, kind, text, operands };
        let mut h = Fnv64(self.trace_hash);
        trace::hash_entry(&mut h, &entry);
        self.trace_hash = h.finish();
        self.history.trace.push(entry);
    }

    /// After every event: measure client staleness (cheap unless routes changed).
    pub(crate) fn after_event(&mut self) {
        self.update_staleness();
    }
}
