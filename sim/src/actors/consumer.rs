//! A push consumer in clustering mode (`DefaultMQPushConsumerImpl`): polls its route every
//! 30 s, rebalances every 20 s (and at once when its route changes), long-polls each queue it
//! holds, and reads from a slave when the group's master is gone
//! (`findBrokerAddressInSubscribe`).
//!
//! Its offsets live on the brokers (`RemoteBrokerOffsetStore`): a queue it takes starts at the
//! offset the broker has committed for the group (QUERY_CONSUMER_OFFSET); what it consumed is
//! committed every 5 s (UPDATE_CONSUMER_OFFSET, oneway), with each pull to a master (the
//! pull's `commitOffset`, one batch behind: the next pull leaves before the batch it follows
//! is consumed), when a queue is dropped, and on a graceful shutdown. A process killed between
//! consuming and committing leaves its successor to consume those messages again; the trace
//! says so.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::time::Duration;

use crate::actors::broker_consume::FLAG_COMMIT_OFFSET;
use crate::actors::client::{CLIENT_API_TIMEOUT_MS, ClientCore, heartbeat_failed};
use crate::actors::common::failure_text;
use crate::actors::offsets::{ConsumeLog, QueueName, StartFrom};
use crate::node::message::{CommitHeader, Message, PullAnswer, PullHeader};
use crate::node::trace::{NodeId, TraceKind};
use crate::node::{Cx, Effect, Failure, GroupId, Purpose, QueueRef, TimerKind};
use nameserver_core::names::TopicName;
use nameserver_core::protocol::body::perm;
use nameserver_core::protocol::{RemotingCommand, RequestCode, ResponseCode};

const POLL_PERIOD: Duration = Duration::from_secs(30);
const FIRST_POLL: Duration = Duration::from_millis(10);
const REBALANCE_PERIOD: Duration = Duration::from_secs(20);
const HEARTBEAT_PERIOD: Duration = Duration::from_secs(30);
const FIRST_HEARTBEAT: Duration = Duration::from_secs(1);
/// `persistConsumerOffsetInterval`, first run 10 s after start.
const PERSIST_PERIOD: Duration = Duration::from_secs(5);
const FIRST_PERSIST: Duration = Duration::from_secs(10);
/// `PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION`.
const PULL_RETRY: Duration = Duration::from_secs(3);
/// `CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND`.
const PULL_TIMEOUT_MS: u64 = 30_000;
/// `pullBatchSize`.
const PULL_BATCH: u64 = 32;
/// The offset store's broker calls wait 5 s.
const OFFSET_TIMEOUT_MS: u64 = 5000;
/// `PullSysFlag`: suspend (long polling) and subscription.
const FLAG_SUSPEND_SUBSCRIPTION: i32 = 0x2 | 0x4;

/// One queue a consumer holds (`ProcessQueue` with its pull request and stored offset).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct QueueState {
    /// Which taking of the queue this is.
    pub(crate) take: u32,
    /// Where the start offset came from; `None` while it is being asked for.
    pub(crate) start: Option<StartFrom>,
    /// Next offset to pull.
    pub(crate) next: u64,
    /// The offset store's value: everything before it is consumed.
    pub(crate) consumed: u64,
    /// The value last committed by a periodic persist (to log only what moved).
    pub(crate) persisted: Option<u64>,
    /// Whether a pull is outstanding.
    pub(crate) in_flight: bool,
    /// The instance last pulled from.
    pub(crate) from: Option<NodeId>,
}

impl QueueState {
    /// The instance last pulled from.
    #[must_use]
    pub fn from(&self) -> Option<NodeId> {
        self.from
    }

    /// The offset store's value: everything before it is consumed.
    #[must_use]
    pub fn consumed(&self) -> u64 {
        self.consumed
    }
}

impl QueueState {
    /// The next offset to pull, once the start offset is known.
    #[must_use]
    pub fn next_offset(&self) -> Option<u64> {
        self.start.map(|_| self.next)
    }

    /// Where the start offset came from, once known.
    #[must_use]
    pub fn start_from(&self) -> Option<StartFrom> {
        self.start
    }
}

/// One consumer process.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConsumerActor {
    /// Binding and route cache.
    pub(crate) client: ClientCore,
    /// Consumer group.
    pub(crate) group: String,
    /// The queues it holds (`processQueueTable`), by broker group and queue id.
    pub(crate) assigned: BTreeMap<(GroupId, i32), QueueState>,
    /// What this machine consumed, this process and those before it.
    pub(crate) log: ConsumeLog,
    /// What earlier processes had consumed when this one started.
    inherited: ConsumeLog,
    /// The instance each broker group is read from, so a switch can be logged.
    sources: BTreeMap<GroupId, NodeId>,
    retry_armed: BTreeSet<GroupId>,
    takes: u32,
}

impl ConsumerActor {
    /// Binding and route cache.
    #[must_use]
    pub fn client(&self) -> &ClientCore {
        &self.client
    }

    /// The queues it holds (`processQueueTable`), by broker group and queue id.
    #[must_use]
    pub fn assigned(&self) -> &BTreeMap<(GroupId, i32), QueueState> {
        &self.assigned
    }

    /// What this machine consumed, this process and those before it.
    #[must_use]
    pub fn log(&self) -> &ConsumeLog {
        &self.log
    }
}

impl ConsumerActor {
    /// The period of one of its timers (for one-shot waits, how long they wait), as it arms
    /// them.
    #[must_use]
    pub(crate) fn timer_period(&self, kind: TimerKind) -> Option<Duration> {
        match kind {
            TimerKind::RoutePoll => Some(POLL_PERIOD),
            TimerKind::Heartbeat => Some(HEARTBEAT_PERIOD),
            TimerKind::Rebalance => Some(REBALANCE_PERIOD),
            TimerKind::PullRetry(_) => Some(PULL_RETRY),
            TimerKind::PersistOffsets => Some(PERSIST_PERIOD),
            _ => None,
        }
    }

    /// A consumer of `topic` in `group`, bound first to NameServer `ns_index`, on a machine
    /// whose processes consumed `log` so far.
    #[must_use]
    pub fn new(topic: TopicName, group: String, ns_index: usize, log: ConsumeLog) -> Self {
        Self {
            client: ClientCore::new(topic, ns_index),
            group,
            assigned: BTreeMap::new(),
            inherited: log.clone(),
            log,
            sources: BTreeMap::new(),
            retry_armed: BTreeSet::new(),
            takes: 0,
        }
    }

    /// Starts the poll, rebalance, heartbeat and offset-persist timers.
    pub fn on_start(&mut self, cx: &mut Cx<'_>) {
        let ns = self.client.nameserver(cx);
        cx.trace(
            TraceKind::Lifecycle,
            alloc::format!(
                "consumer started, group {}, topic {}, using name server {} ({})",
                self.group,
                self.client.topic,
                cx.dir.name(ns),
                cx.dir.addr(ns)
            ),
        );
        cx.timer(TimerKind::RoutePoll, cx.now + FIRST_POLL);
        cx.timer(TimerKind::Rebalance, cx.now + REBALANCE_PERIOD);
        cx.timer(TimerKind::Heartbeat, cx.now + FIRST_HEARTBEAT);
        cx.timer(TimerKind::PersistOffsets, cx.now + FIRST_PERSIST);
    }

    /// Graceful shutdown: commit every offset, then exit.
    pub fn shutdown(&mut self, cx: &mut Cx<'_>) {
        self.persist_all(cx);
        cx.trace(TraceKind::Lifecycle, alloc::format!("the consumer [{}] shutdown OK", self.group));
        cx.effect(Effect::Exit);
    }

    /// A timer fired.
    pub fn on_timer(&mut self, kind: TimerKind, cx: &mut Cx<'_>) {
        match kind {
            TimerKind::RoutePoll => {
                let topic = self.client.topic.to_string();
                self.client.query_route(&topic, Purpose::RoutePoll, cx);
                cx.timer(TimerKind::RoutePoll, cx.now + POLL_PERIOD);
            }
            TimerKind::Rebalance => {
                self.rebalance(cx);
                cx.timer(TimerKind::Rebalance, cx.now + REBALANCE_PERIOD);
            }
            TimerKind::Heartbeat => {
                self.client.clean_offline_brokers(cx);
                for broker in self.all_instances(cx) {
                    let body = alloc::format!(
                        "{{\"clientID\":\"{}\",\"consumerGroup\":\"{}\"}}",
                        cx.dir.name(cx.me),
                        self.group
                    );
                    cx.request(
                        broker,
                        RemotingCommand::request(RequestCode::HeartBeat).with_body(body),
                        Purpose::Heartbeat,
                        CLIENT_API_TIMEOUT_MS,
                    );
                }
                cx.timer(TimerKind::Heartbeat, cx.now + HEARTBEAT_PERIOD);
            }
            TimerKind::PersistOffsets => {
                self.persist_all(cx);
                cx.timer(TimerKind::PersistOffsets, cx.now + PERSIST_PERIOD);
            }
            TimerKind::PullRetry(group) => {
                self.retry_armed.remove(&group);
                let idle: Vec<(GroupId, i32)> = self
                    .assigned
                    .iter()
                    .filter(|((g, _), s)| *g == group && s.start.is_some() && !s.in_flight)
                    .map(|(q, _)| *q)
                    .collect();
                for q in idle {
                    self.pull(q, None, cx);
                }
            }
            _ => {}
        }
    }

    fn all_instances(&self, cx: &Cx<'_>) -> Vec<NodeId> {
        let Some(route) = &self.client.route else { return Vec::new() };
        route
            .broker_datas
            .iter()
            .flat_map(|b| b.broker_addrs.values())
            .filter_map(|a| cx.dir.by_addr.get(a.as_str()).copied())
            .collect()
    }

    fn queue_name(&self, q: (GroupId, i32), cx: &Cx<'_>) -> String {
        QueueName(&self.client.topic, cx.dir.group_name(q.0), q.1).to_string()
    }

    /// Takes every readable queue of the route (one consumer of a group takes them all):
    /// drops queues that left it (committing their offsets first), and asks the broker where
    /// to start each new one.
    fn rebalance(&mut self, cx: &mut Cx<'_>) {
        let wanted: BTreeSet<(GroupId, i32)> = self
            .client
            .route
            .iter()
            .flat_map(|r| r.queue_datas.iter())
            .filter(|q| perm::is_readable(q.perm))
            .filter_map(|q| Some((cx.dir.group(&q.broker_name)?, q.read_queue_nums)))
            .flat_map(|(g, n)| (0..n).map(move |i| (g, i)))
            .collect();
        let groups = |assigned: &BTreeMap<(GroupId, i32), QueueState>| -> Vec<GroupId> {
            let set: BTreeSet<GroupId> = assigned.keys().map(|(g, _)| *g).collect();
            set.into_iter().collect()
        };
        let before = groups(&self.assigned);
        let dropped: Vec<(GroupId, i32)> = self.assigned.keys().filter(|q| !wanted.contains(q)).copied().collect();
        for q in dropped {
            if let Some(state) = self.assigned.remove(&q) {
                // `removeUnnecessaryMessageQueue`: commit, then forget the queue.
                if state.start.is_some() && self.commit(q, state.consumed, cx) {
                    let line = alloc::format!(
                        "[persist] Group: {} ClientId: {} updateConsumeOffsetToBroker {} {}",
                        self.group,
                        cx.dir.name(cx.me),
                        self.queue_name(q, cx),
                        state.consumed
                    );
                    cx.trace(TraceKind::Offset, line);
                }
            }
            let line = alloc::format!("doRebalance, {}, remove unnecessary mq, {}", self.group, self.queue_name(q, cx));
            cx.trace(TraceKind::Rebalance, line);
        }
        let added: Vec<(GroupId, i32)> = wanted.iter().filter(|q| !self.assigned.contains_key(q)).copied().collect();
        for q in &added {
            self.takes += 1;
            self.assigned.insert(*q, QueueState { take: self.takes, ..QueueState::default() });
        }
        let after = groups(&self.assigned);
        if before != after {
            let names: Vec<&str> = after.iter().map(|g| cx.dir.group_name(*g).as_str()).collect();
            cx.trace(
                TraceKind::Rebalance,
                alloc::format!(
                    "rebalance topic {} in group {}: pull from [{}]",
                    self.client.topic,
                    self.group,
                    names.join(", ")
                ),
            );
        }
        for q in added {
            self.query_offset(q, cx);
        }
        let idle: Vec<(GroupId, i32)> =
            self.assigned.iter().filter(|(_, s)| s.start.is_some() && !s.in_flight).map(|(q, _)| *q).collect();
        for q in idle {
            self.pull(q, None, cx);
        }
    }

    fn queue_ref(&self, q: (GroupId, i32)) -> Option<QueueRef> {
        self.assigned.get(&q).map(|s| QueueRef { group: q.0, queue: q.1, take: s.take })
    }

    /// The state of the queue an answer is for, if this taking of it is still held.
    fn state_for(&mut self, r: QueueRef) -> Option<&mut QueueState> {
        self.assigned.get_mut(&(r.group, r.queue)).filter(|s| s.take == r.take)
    }

    /// `computePullFromWhere` with `CONSUME_FROM_LAST_OFFSET`: QUERY_CONSUMER_OFFSET to the
    /// master (any member when the route has none).
    fn query_offset(&mut self, q: (GroupId, i32), cx: &mut Cx<'_>) {
        let Some(r) = self.queue_ref(q) else { return };
        let name = cx.dir.group_name(q.0).clone();
        let Some((broker, _)) = self.client.find_in_subscribe(&name, false, cx.dir) else {
            return self.add_failed(q, cx);
        };
        let cmd = RemotingCommand::request(RequestCode::QueryConsumerOffset)
            .with_field("consumerGroup", self.group.as_str())
            .with_field("topic", self.client.topic.as_str())
            .with_field("queueId", q.1.to_string());
        cx.request(broker, cmd, Purpose::QueryOffset(r), OFFSET_TIMEOUT_MS);
    }

    /// `doRebalance, …, add new mq failed`: the queue is left for the next rebalance.
    fn add_failed(&mut self, q: (GroupId, i32), cx: &mut Cx<'_>) {
        self.assigned.remove(&q);
        let line = alloc::format!("doRebalance, {}, add new mq failed, {}", self.group, self.queue_name(q, cx));
        cx.trace(TraceKind::Rebalance, line);
    }

    /// The start offset is known: log where the queue resumes and pull it.
    fn start(&mut self, r: QueueRef, from: StartFrom, offset: u64, broker: NodeId, cx: &mut Cx<'_>) {
        let q = (r.group, r.queue);
        let Some(state) = self.state_for(r) else { return };
        state.start = Some(from);
        state.next = offset;
        state.consumed = offset;
        let broker = cx.dir.name(broker);
        let how = match from {
            StartFrom::Committed => alloc::format!("resume at offset {offset}, the offset committed on {broker}"),
            StartFrom::First => alloc::format!(
                "start at offset 0: nothing committed on {broker} yet, a new group reads from the first message"
            ),
            StartFrom::Max => alloc::format!(
                "start at the max offset {offset}: {broker} holds no offset of the group (CONSUME_FROM_LAST_OFFSET)"
            ),
        };
        let line = alloc::format!("doRebalance, {}, add a new mq, {}, {how}", self.group, self.queue_name(q, cx));
        cx.trace(TraceKind::Rebalance, line);
        self.pull(q, None, cx);
    }

    /// Pulls a queue from its master (a slave when the route has none). `commit` is the offset
    /// the pull carries; `None` takes the offset store's value.
    fn pull(&mut self, q: (GroupId, i32), commit: Option<u64>, cx: &mut Cx<'_>) {
        let name = cx.dir.group_name(q.0).clone();
        let Some((source, master)) = self.client.find_in_subscribe(&name, false, cx.dir) else {
            return self.retry_later(q.0, cx);
        };
        let Some(state) = self.assigned.get_mut(&q).filter(|s| s.start.is_some() && !s.in_flight) else { return };
        state.in_flight = true;
        state.from = Some(source);
        let commit = commit.unwrap_or(state.consumed);
        let mut sys_flag = FLAG_SUSPEND_SUBSCRIPTION;
        // A slave does not take commits (`clearCommitOffsetFlag`).
        if commit > 0 && master {
            sys_flag |= FLAG_COMMIT_OFFSET;
        }
        let pull = PullHeader {
            group: self.group.clone(),
            topic: self.client.topic.clone(),
            queue: q.1,
            offset: state.next,
            max_msgs: PULL_BATCH,
            sys_flag,
            commit: Some(commit),
        };
        let r = QueueRef { group: q.0, queue: q.1, take: state.take };
        cx.request(source, pull.request(), Purpose::Pull(r), PULL_TIMEOUT_MS);
        if let Some(previous) = self.sources.insert(q.0, source).filter(|p| *p != source) {
            let role = if master { "master" } else { "slave" };
            let why = if master { "" } else { ": the route has no master" };
            cx.trace(
                TraceKind::Info,
                alloc::format!(
                    "pulls of {name}'s queues go to {role} {} ({}) now, not {} ({}){why}",
                    cx.dir.name(source),
                    cx.dir.addr(source),
                    cx.dir.name(previous),
                    cx.dir.addr(previous)
                ),
            );
        }
    }

    fn retry_later(&mut self, group: GroupId, cx: &mut Cx<'_>) {
        if self.retry_armed.insert(group) {
            cx.timer(TimerKind::PullRetry(group), cx.now + PULL_RETRY);
        }
    }

    /// Messages `[from, to)` of a queue arrived and are consumed.
    fn consume(&mut self, q: (GroupId, i32), from: u64, to: u64, broker: NodeId, cx: &mut Cx<'_>) {
        cx.trace(
            TraceKind::Pull,
            alloc::format!(
                "pull {} messages of {} from {} ({}), queueId={}, offsets {from}-{}",
                to - from,
                self.client.topic,
                cx.dir.name(broker),
                cx.dir.addr(broker),
                q.1,
                to - 1
            ),
        );
        let after_restart = self.inherited.overlap(q, from, to);
        let again = self.log.record(q, from, to);
        if again == 0 {
            return;
        }
        let queue = self.queue_name(q, cx);
        let line = if after_restart > 0 {
            alloc::format!(
                "consumed again after restart: {again} messages of {queue} from offset {from}: the previous \
                 process consumed them but its offset commit never reached the broker"
            )
        } else {
            alloc::format!(
                "consumed again: {again} messages of {queue} from offset {from}: consumed before the queue was \
                 dropped, but not committed"
            )
        };
        cx.trace(TraceKind::Offset, line);
    }

    /// `persistAll`: every held queue's offset to its broker, oneway. Java logs one line per
    /// queue every 5 s; one line naming the queues whose offset moved is enough here.
    fn persist_all(&mut self, cx: &mut Cx<'_>) {
        let held: Vec<((GroupId, i32), u64, Option<u64>)> = self
            .assigned
            .iter()
            .filter(|(_, s)| s.start.is_some())
            .map(|(q, s)| (*q, s.consumed, s.persisted))
            .collect();
        let mut moved = Vec::new();
        for (q, offset, persisted) in held {
            if !self.commit(q, offset, cx) || persisted == Some(offset) {
                continue;
            }
            if let Some(state) = self.assigned.get_mut(&q) {
                state.persisted = Some(offset);
            }
            moved.push(alloc::format!("{}:{}={offset}", cx.dir.group_name(q.0), q.1));
        }
        if !moved.is_empty() {
            let line = alloc::format!(
                "[persistAll] Group: {} ClientId: {} updateConsumeOffsetToBroker {} {}",
                self.group,
                cx.dir.name(cx.me),
                self.client.topic,
                moved.join(" ")
            );
            cx.trace(TraceKind::Offset, line);
        }
    }

    /// `updateConsumeOffsetToBroker` (oneway) to the group's master, else any member.
    /// Returns whether a broker was found.
    fn commit(&mut self, q: (GroupId, i32), offset: u64, cx: &mut Cx<'_>) -> bool {
        let name = cx.dir.group_name(q.0).clone();
        let Some((broker, _)) = self.client.find_in_subscribe(&name, false, cx.dir) else {
            let queue = self.queue_name(q, cx);
            let line = alloc::format!("updateConsumeOffsetToBroker exception, {queue}: The broker[{name}] not exist");
            cx.trace(TraceKind::Offset, line);
            return false;
        };
        let commit = CommitHeader {
            group: self.group.clone(),
            topic: self.client.topic.clone(),
            queue: Some(q.1),
            offset: Some(offset),
            broker: name,
        };
        cx.oneway(broker, commit.request());
        true
    }

    /// An answer to one of this consumer's requests.
    pub fn on_response(&mut self, purpose: Purpose, result: Result<Message, Failure>, from: NodeId, cx: &mut Cx<'_>) {
        if let Purpose::Pull(r) = purpose {
            return self.on_pull_answer(r, result, from, cx);
        }
        let result = result.map(Message::into_command);
        match purpose {
            Purpose::RoutePoll => {
                let topic = self.client.topic.to_string();
                if let Some(route) = self.client.on_route_answer(&topic, &result, cx) {
                    if self.client.apply_route(route, cx) {
                        self.rebalance(cx);
                    }
                }
            }
            Purpose::QueryOffset(r) => self.on_offset_answer(r, result, from, cx),
            Purpose::MaxOffset(r) => match result {
                Ok(reply) if reply.response_code() == ResponseCode::Success => {
                    let offset = reply.field("offset").and_then(|o| o.parse().ok()).unwrap_or(0);
                    self.start(r, StartFrom::Max, offset, from, cx);
                }
                _ => {
                    if self.state_for(r).is_some() {
                        self.add_failed((r.group, r.queue), cx);
                    }
                }
            },
            Purpose::Heartbeat => {
                if let Err(failure) = result {
                    heartbeat_failed(from, failure, cx);
                }
            }
            _ => {}
        }
    }

    fn on_offset_answer(
        &mut self,
        r: QueueRef,
        result: Result<RemotingCommand, Failure>,
        from: NodeId,
        cx: &mut Cx<'_>,
    ) {
        if self.state_for(r).is_none() {
            return;
        }
        let q = (r.group, r.queue);
        match result {
            Ok(reply) if reply.response_code() == ResponseCode::Success => {
                let offset: u64 = reply.field("offset").and_then(|o| o.parse().ok()).unwrap_or(0);
                let how = if offset > 0 { StartFrom::Committed } else { StartFrom::First };
                self.start(r, how, offset, from, cx);
            }
            Ok(reply) if reply.response_code() == ResponseCode::QueryNotFound => {
                // `maxOffset(mq)` asks the master only (`findBrokerAddressInPublish`).
                let name = cx.dir.group_name(q.0).clone();
                let Some((master, _)) = self.client.find_in_subscribe(&name, true, cx.dir) else {
                    return self.add_failed(q, cx);
                };
                let cmd = RemotingCommand::request(RequestCode::GetMaxOffset)
                    .with_field("topic", self.client.topic.as_str())
                    .with_field("queueId", q.1.to_string());
                cx.request(master, cmd, Purpose::MaxOffset(r), OFFSET_TIMEOUT_MS);
            }
            _ => self.add_failed(q, cx),
        }
    }

    fn on_pull_answer(&mut self, r: QueueRef, result: Result<Message, Failure>, from: NodeId, cx: &mut Cx<'_>) {
        let q = (r.group, r.queue);
        // An answer for a dropped queue is not consumed (its `ProcessQueue` is dropped).
        let Some(state) = self.state_for(r).filter(|s| s.in_flight) else { return };
        state.in_flight = false;
        match result {
            Ok(reply) if matches!(reply.head().response_code(), ResponseCode::Success | ResponseCode::PullNotFound) => {
                let next = reply.header::<PullAnswer>().next_begin.unwrap_or(state.next);
                if reply.head().response_code() == ResponseCode::Success && next > state.next {
                    let (begin, commit) = (state.next, state.consumed);
                    state.next = next;
                    state.consumed = state.consumed.max(next);
                    // The next pull leaves before this batch is consumed: it commits the offset
                    // from before the batch.
                    self.pull(q, Some(commit), cx);
                    self.consume(q, begin, next, from, cx);
                } else {
                    state.next = state.next.max(next);
                    self.pull(q, None, cx);
                }
            }
            Ok(reply) => {
                cx.trace(
                    TraceKind::Info,
                    alloc::format!("pull from {} failed: code {}", cx.dir.name(from), reply.head().code),
                );
                self.retry_later(q.0, cx);
            }
            Err(failure) => {
                let addr = cx.dir.addr(from).to_string();
                cx.trace(
                    TraceKind::Info,
                    alloc::format!(
                        "execute the pull request exception, {}, retry in 3000ms",
                        failure_text(failure, &addr)
                    ),
                );
                self.retry_later(q.0, cx);
            }
        }
    }
}
