//! The process behind a node: building and starting it, running it with a context, applying
//! the effects it asks for, and answering its requests and timers.

use alloc::string::String;
use alloc::vec::Vec;
use core::time::Duration;

use crate::Sim;
use crate::actors::broker::{self, BrokerActor};
use crate::actors::consumer::ConsumerActor;
use crate::actors::producer::ProducerActor;
use crate::engine::namesrv::NsNode;
use crate::engine::net::Payload;
use crate::engine::queue::{CLASS_NORMAL, Ev};
use crate::node::message::Message;
use crate::node::trace::{NodeId, TraceKind};
use crate::node::{Cx, Effect, Failure, GroupId, NodeState, Purpose, Role, TimerKind};
use crate::scenario::NodeSpec;
use nameserver_core::names::{BrokerName, ConnId, TopicName};
use nameserver_core::protocol::body::TopicConfig;
use nameserver_core::time::Instant;

/// A request waiting for its answer.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Pending {
    pub(crate) conn: ConnId,
    pub(crate) to: NodeId,
    pub(crate) purpose: Purpose,
    pub(crate) deadline: Instant,
}

/// The process behind a node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Actor {
    /// A NameServer (the real one).
    NameServer(alloc::boxed::Box<NsNode>),
    /// A broker.
    Broker(BrokerActor),
    /// A producer.
    Producer(ProducerActor),
    /// A consumer.
    Consumer(ConsumerActor),
    /// Not running.
    None,
}

impl Actor {
    /// The period of one of this process's timers (for one-shot waits, how long they wait),
    /// as the process itself uses it.
    #[must_use]
    pub fn timer_period(&self, kind: TimerKind) -> Option<Duration> {
        match self {
            Self::NameServer(n) => n.timer_period(kind),
            Self::Broker(b) => b.timer_period(kind),
            Self::Producer(p) => p.timer_period(kind),
            Self::Consumer(c) => c.timer_period(kind),
            Self::None => None,
        }
    }
}

impl Sim {
    pub(crate) fn start_node(&mut self, id: NodeId) {
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

    pub(crate) fn make_actor(&mut self, id: NodeId) -> Actor {
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
                Actor::NameServer(alloc::boxed::Box::new(NsNode::new(nameserver_core::NameServer::new(
                    self.scenario.namesrv_config(),
                    nameserver_core::KvConfig::default(),
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
                let mut b = BrokerActor::new(
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
                Actor::Producer(ProducerActor::new(
                    TopicName::from(topic.as_str()),
                    index,
                    every_ms,
                    fault_tolerance,
                    first,
                ))
            }
            NodeSpec::Consumer { ns, group, topic, .. } => {
                let index = pick(&ns, self);
                // What earlier processes on this machine consumed, to tell a second consumption.
                let log = self.node(id).consume_log.clone().unwrap_or_default();
                Actor::Consumer(ConsumerActor::new(TopicName::from(topic.as_str()), group, index, log))
            }
        }
    }

    /// Runs `f` on the node's actor with a context, then applies the effects it asked for.
    pub(crate) fn with_actor(&mut self, id: NodeId, f: impl FnOnce(&mut Actor, &mut Cx<'_>)) {
        let Self { nodes, dir, now, .. } = self;
        let node = &mut nodes[usize::from(id.0)];
        if matches!(node.actor, Actor::Producer(_) | Actor::Consumer(_)) {
            self.stale_dirty = true;
        }
        let mut cx = Cx { now: *now, me: id, dir, effects: Vec::new(), next_opaque: &mut node.next_opaque };
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

    pub(crate) fn apply_effect(&mut self, me: NodeId, effect: Effect) {
        match effect {
            Effect::Request { to, msg, purpose, timeout_ms } => {
                let opaque = msg.cmd.opaque;
                let Some(conn) = self.send_to(me, to, msg) else { return };
                let deadline = self.now + Duration::from_millis(timeout_ms);
                let incarnation = self.node(me).incarnation;
                self.node_mut(me).pending.insert(opaque, Pending { conn, to, purpose, deadline });
                self.schedule(deadline, CLASS_NORMAL, Ev::Timeout(me, opaque, incarnation));
            }
            Effect::Oneway { to, msg } => {
                self.send_to(me, to, msg);
            }
            Effect::Reply { conn, msg } => self.send_on(conn, me, msg),
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
            Effect::Trace(kind, text, operands) => self.trace_rule(me, kind, text, operands),
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

    pub(crate) fn respond(&mut self, node: NodeId, purpose: Purpose, result: Result<Message, Failure>, from: NodeId) {
        self.with_actor(node, |actor, cx| match actor {
            Actor::Broker(b) => b.on_response(purpose, result, cx),
            Actor::Producer(p) => p.on_response(purpose, result, from, cx),
            Actor::Consumer(c) => c.on_response(purpose, result, from, cx),
            Actor::NameServer(_) | Actor::None => {}
        });
    }

    pub(crate) fn fail_pending(&mut self, node: NodeId, conn: ConnId, failure: Failure) {
        let failed: Vec<(i32, Pending)> =
            self.node(node).pending.iter().filter(|(_, p)| p.conn == conn).map(|(o, p)| (*o, p.clone())).collect();
        for (opaque, pending) in failed {
            self.node_mut(node).pending.remove(&opaque);
            if self.is_running(node) {
                self.respond(node, pending.purpose, Err(failure), pending.to);
            }
        }
    }

    pub(crate) fn fire_timer(&mut self, node: NodeId, kind: TimerKind, incarnation: u32) {
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

    pub(crate) fn fire_timeout(&mut self, node: NodeId, opaque: i32, incarnation: u32) {
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
}
