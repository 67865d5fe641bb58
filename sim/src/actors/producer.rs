//! A producer (`DefaultMQProducerImpl`): polls its route every 30 s, queries on demand only
//! when it has no route (then falls back to TBW102), sends synchronously with up to three
//! attempts inside `sendMsgTimeout`, avoids the last broker on retries, and applies
//! `sendLatencyFaultEnable` when it is on. Besides its periodic sends, a script can ask it
//! for a burst (`send P1 5`): that many sends one after another, as a loop of `send()`
//! calls would make them.

use alloc::collections::BTreeMap;
use alloc::string::ToString;
use alloc::vec::Vec;
use core::time::Duration;

use crate::actors::broker::DEFAULT_TOPIC;
use crate::actors::client::{CLIENT_API_TIMEOUT_MS, ClientCore, heartbeat_failed};
use crate::node::message::{Message, SendAnswer, SendHeader};
use crate::node::trace::{NodeId, TraceKind};
use crate::node::{Cx, Effect, Failure, GroupId, Purpose, SendAttempt, SendOutcome, SendRecord, TimerKind};
use crate::scenario::Profile;
use nameserver_core::names::{BrokerName, TopicName};
use nameserver_core::protocol::body::{QueueData, TopicRouteData, perm};
use nameserver_core::protocol::{RemotingCommand, RequestCode, ResponseCode};
use nameserver_core::time::Instant;

/// `sendMsgTimeout`.
pub(crate) const SEND_TIMEOUT_MS: u64 = 3000;
/// `1 + retryTimesWhenSendFailed`.
const TIMES_TOTAL: u32 = 3;
/// `defaultTopicQueueNums`.
const DEFAULT_TOPIC_QUEUE_NUMS: i32 = 4;
pub(crate) const POLL_PERIOD: Duration = Duration::from_secs(30);
const FIRST_POLL: Duration = Duration::from_millis(10);
const HEARTBEAT_PERIOD: Duration = Duration::from_secs(30);
const FIRST_HEARTBEAT: Duration = Duration::from_secs(1);

/// One queue a producer can write to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PublishQueue {
    /// Its group.
    pub(crate) broker: BrokerName,
    /// The group's index.
    pub(crate) group: GroupId,
    /// Queue id.
    pub(crate) queue: i32,
    /// The master's node.
    pub(crate) master: NodeId,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct SendCall {
    id: u64,
    /// A periodic send (it arms the next one), not one of a burst.
    periodic: bool,
    scheduled: Instant,
    started: Instant,
    last_broker: Option<BrokerName>,
    attempts: Vec<SendAttempt>,
    brokers_sent: Vec<BrokerName>,
}

/// One producer process.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ProducerActor {
    /// Binding and route cache.
    pub(crate) client: ClientCore,
    /// Milliseconds between sends.
    pub(crate) every_ms: u64,
    /// `sendLatencyFaultEnable`.
    pub(crate) fault_tolerance: bool,
    /// Brokers isolated by the fault strategy, with when they become available again.
    pub(crate) faults: BTreeMap<BrokerName, Instant>,
    /// The write queues from the cached route.
    pub(crate) publish: Vec<PublishQueue>,
    /// Whether the cached route is the provisional one built from TBW102.
    pub(crate) provisional: bool,
    /// Sends of a burst still to make.
    pub(crate) burst: u32,
    /// A periodic send that came due during another send, with when it was due.
    periodic_due: Option<Instant>,
    send_which_queue: u64,
    current: Option<SendCall>,
    next_send_id: u64,
}

impl ProducerActor {
    /// Binding and route cache.
    #[must_use]
    pub fn client(&self) -> &ClientCore {
        &self.client
    }

    /// Brokers isolated by the fault strategy, with when they become available again.
    #[must_use]
    pub fn faults(&self) -> &BTreeMap<BrokerName, Instant> {
        &self.faults
    }

    /// Its cached route, for tests that forge one (see `Sim::nodes_mut_for_test`).
    #[doc(hidden)]
    pub fn route_mut_for_test(&mut self) -> Option<&mut TopicRouteData> {
        self.client.route.as_mut()
    }
}

impl ProducerActor {
    /// The period of one of its timers, as it arms them.
    #[must_use]
    pub(crate) fn timer_period(&self, kind: TimerKind) -> Option<Duration> {
        match kind {
            TimerKind::RoutePoll => Some(POLL_PERIOD),
            TimerKind::Heartbeat => Some(HEARTBEAT_PERIOD),
            TimerKind::Send => Some(Duration::from_millis(self.every_ms)),
            _ => None,
        }
    }

    /// A producer of `topic` bound first to NameServer `ns_index`.
    #[must_use]
    pub fn new(topic: TopicName, ns_index: usize, every_ms: u64, fault_tolerance: bool, first_queue: u64) -> Self {
        Self {
            client: ClientCore::new(topic, ns_index),
            every_ms,
            fault_tolerance,
            faults: BTreeMap::new(),
            publish: Vec::new(),
            provisional: false,
            burst: 0,
            periodic_due: None,
            send_which_queue: first_queue,
            current: None,
            next_send_id: 0,
        }
    }

    /// Starts the poll, heartbeat and send timers.
    pub fn on_start(&mut self, cx: &mut Cx<'_>) {
        let ns = self.client.nameserver(cx);
        cx.trace(
            TraceKind::Lifecycle,
            alloc::format!(
                "producer started, topic {}, using name server {} ({})",
                self.client.topic,
                cx.dir.name(ns),
                cx.dir.addr(ns)
            ),
        );
        cx.timer(TimerKind::RoutePoll, cx.now + FIRST_POLL);
        cx.timer(TimerKind::Heartbeat, cx.now + FIRST_HEARTBEAT);
        cx.timer(TimerKind::Send, cx.now + Duration::from_millis(self.every_ms));
    }

    /// A timer fired.
    pub fn on_timer(&mut self, kind: TimerKind, cx: &mut Cx<'_>) {
        match kind {
            TimerKind::RoutePoll => {
                let topic = self.client.topic.to_string();
                self.client.query_route(&topic, Purpose::RoutePoll, cx);
                cx.timer(TimerKind::RoutePoll, cx.now + POLL_PERIOD);
            }
            TimerKind::Heartbeat => {
                self.client.clean_offline_brokers(cx);
                let masters: Vec<NodeId> = self.masters(cx);
                for master in masters {
                    let cmd = RemotingCommand::request(RequestCode::HeartBeat)
                        .with_body(alloc::format!("{{\"clientID\":\"{}\"}}", cx.dir.name(cx.me)));
                    cx.request(master, cmd, Purpose::Heartbeat, CLIENT_API_TIMEOUT_MS);
                }
                cx.timer(TimerKind::Heartbeat, cx.now + HEARTBEAT_PERIOD);
            }
            TimerKind::Send if self.current.is_some() => self.periodic_due = Some(cx.now),
            TimerKind::Send => self.start_send(true, cx.now, cx),
            _ => {}
        }
    }

    /// Makes `count` more sends, one after another, starting now if it is idle.
    pub fn send_burst(&mut self, count: u32, cx: &mut Cx<'_>) {
        self.burst = self.burst.saturating_add(count);
        if self.current.is_none() {
            self.start_next(cx);
        }
    }

    /// Graceful shutdown (`DefaultMQProducerImpl.shutdown`): a send in progress is abandoned.
    pub fn shutdown(&mut self, cx: &mut Cx<'_>) {
        let group = alloc::format!("{}_GROUP", cx.dir.name(cx.me));
        cx.trace(TraceKind::Lifecycle, alloc::format!("the producer [{group}] shutdown OK"));
        cx.effect(Effect::Exit);
    }

    /// Starts the next burst send, or a periodic one that came due meanwhile.
    fn start_next(&mut self, cx: &mut Cx<'_>) {
        if self.burst > 0 {
            self.burst -= 1;
            self.start_send(false, cx.now, cx);
        } else if let Some(due) = self.periodic_due.take() {
            self.start_send(true, due, cx);
        }
    }

    fn masters(&self, cx: &Cx<'_>) -> Vec<NodeId> {
        let Some(route) = &self.client.route else { return Vec::new() };
        route
            .broker_datas
            .iter()
            .filter_map(|b| b.master_addr())
            .filter_map(|a| cx.dir.by_addr.get(a.as_str()).copied())
            .collect()
    }

    fn start_send(&mut self, periodic: bool, scheduled: Instant, cx: &mut Cx<'_>) {
        let call = SendCall {
            id: self.next_send_id,
            periodic,
            scheduled,
            started: cx.now,
            last_broker: None,
            attempts: Vec::new(),
            brokers_sent: Vec::new(),
        };
        self.next_send_id += 1;
        self.current = Some(call);
        if self.publish.is_empty() {
            let topic = self.client.topic.to_string();
            self.client.query_route(&topic, Purpose::RouteOnDemand { default_topic: false }, cx);
        } else {
            self.attempt(cx);
        }
    }

    /// One attempt of the current send, or its end when the budget or attempts are used up.
    fn attempt(&mut self, cx: &mut Cx<'_>) {
        let Some(call) = &self.current else { return };
        let elapsed = cx.now.saturating_since(call.started).as_millis() as u64;
        let timed_out = call.attempts.iter().any(|a| a.failure == Some(Failure::Timeout));
        if elapsed >= SEND_TIMEOUT_MS {
            cx.trace(
                TraceKind::SendFailed,
                alloc::format!("sendDefaultImpl call timeout, cost {elapsed}ms, Topic: {}", self.client.topic),
            );
            return self.finish(SendOutcome::Indeterminate, cx);
        }
        if call.attempts.len() as u32 >= TIMES_TOTAL {
            let outcome = if timed_out { SendOutcome::Indeterminate } else { SendOutcome::Failed };
            let sent: Vec<&str> = call.brokers_sent.iter().map(BrokerName::as_str).collect();
            cx.trace(
                TraceKind::SendFailed,
                alloc::format!(
                    "Send [{TIMES_TOTAL}] times, still failed, cost [{elapsed}]ms, Topic: {}, BrokersSent: [{}]",
                    self.client.topic,
                    sent.join(", ")
                ),
            );
            return self.finish(outcome, cx);
        }
        let last = call.last_broker.clone();
        let call_id = call.id;
        let Some(queue) = self.select_queue(last.as_ref(), cx.now, cx.dir.profile) else {
            self.no_route(cx);
            return;
        };
        let header = SendHeader {
            producer_group: [cx.dir.name(cx.me), "_GROUP"].concat(),
            topic: self.client.topic.clone(),
            default_topic: TopicName::from(DEFAULT_TOPIC),
            default_queue_nums: Some(DEFAULT_TOPIC_QUEUE_NUMS),
            queue: Some(queue.queue),
        };
        let cmd = header.request(alloc::format!("message {call_id} from {}", cx.dir.name(cx.me)));
        let call = self.current.as_mut().expect("checked above");
        call.attempts.push(SendAttempt { group: queue.group, at: cx.now, failure: None });
        call.brokers_sent.push(queue.broker.clone());
        let purpose = Purpose::Send { send: call.id, group: queue.group, queue: queue.queue };
        cx.request(queue.master, cmd, purpose, SEND_TIMEOUT_MS - elapsed);
    }

    fn no_route(&mut self, cx: &mut Cx<'_>) {
        cx.trace(
            TraceKind::SendFailed,
            alloc::format!(
                "No route info of this topic: {}, See http://rocketmq.apache.org/docs/faq/ for further details.",
                self.client.topic
            ),
        );
        self.finish(SendOutcome::Failed, cx);
    }

    fn finish(&mut self, outcome: SendOutcome, cx: &mut Cx<'_>) {
        let Some(call) = self.current.take() else { return };
        cx.effect(Effect::SendFinished(SendRecord {
            producer: cx.me,
            id: call.id,
            started: call.started,
            finished: cx.now,
            outcome,
            attempts: call.attempts,
        }));
        if call.periodic {
            let next = (call.scheduled + Duration::from_millis(self.every_ms)).max(cx.now);
            cx.timer(TimerKind::Send, next);
        }
        self.start_next(cx);
    }

    /// `MQFaultStrategy.selectOneMessageQueue`.
    fn select_queue(&mut self, last: Option<&BrokerName>, now: Instant, profile: Profile) -> Option<PublishQueue> {
        let n = self.publish.len() as u64;
        if n == 0 {
            return None;
        }
        if self.fault_tolerance && profile == Profile::Classic {
            // 4.9.x: one increment, then the first available queue from there on, so the queue
            // after an isolated broker's queues takes their turns too.
            self.send_which_queue += 1;
            let start = self.send_which_queue;
            for i in 0..n {
                let q = &self.publish[((start + i) % n) as usize];
                if self.faults.get(&q.broker).is_none_or(|until| now >= *until) {
                    return Some(q.clone());
                }
            }
            self.send_which_queue += 1;
            return Some(self.publish[(self.send_which_queue % n) as usize].clone());
        }
        if self.fault_tolerance {
            // 5.x: each candidate takes its own increment (TopicPublishInfo with filters).
            for _ in 0..n {
                self.send_which_queue += 1;
                let q = &self.publish[(self.send_which_queue % n) as usize];
                if self.faults.get(&q.broker).is_none_or(|until| now >= *until) {
                    return Some(q.clone());
                }
            }
            self.send_which_queue += 1;
            return Some(self.publish[(self.send_which_queue % n) as usize].clone());
        }
        if let Some(last) = last {
            for _ in 0..n {
                self.send_which_queue += 1;
                let q = &self.publish[(self.send_which_queue % n) as usize];
                if &q.broker != last {
                    return Some(q.clone());
                }
            }
        }
        self.send_which_queue += 1;
        Some(self.publish[(self.send_which_queue % n) as usize].clone())
    }

    /// `updateFaultItem`: isolation after a failure, latency-based otherwise.
    fn update_fault_item(&mut self, broker: &BrokerName, latency_ms: u64, isolation: bool, cx: &Cx<'_>) {
        if !self.fault_tolerance {
            return;
        }
        let duration =
            if isolation { cx.dir.profile.isolation_ms() } else { not_available_duration(cx.dir.profile, latency_ms) };
        self.faults.insert(broker.clone(), cx.now + Duration::from_millis(duration));
    }

    /// An answer to one of this producer's requests.
    pub fn on_response(&mut self, purpose: Purpose, result: Result<Message, Failure>, from: NodeId, cx: &mut Cx<'_>) {
        if let Purpose::Send { send, group, queue } = purpose {
            return self.on_send_answer(send, group, queue, result, cx);
        }
        let result = result.map(Message::into_command);
        match purpose {
            Purpose::RoutePoll => {
                let topic = self.client.topic.to_string();
                if let Some(route) = self.client.on_route_answer(&topic, &result, cx) {
                    self.set_route(route, false, cx);
                }
            }
            Purpose::RouteOnDemand { default_topic: false } => {
                let topic = self.client.topic.to_string();
                if let Some(route) = self.client.on_route_answer(&topic, &result, cx) {
                    self.set_route(route, false, cx);
                }
                if self.publish.is_empty() {
                    self.client.query_route(DEFAULT_TOPIC, Purpose::RouteOnDemand { default_topic: true }, cx);
                } else {
                    self.attempt(cx);
                }
            }
            Purpose::RouteOnDemand { default_topic: true } => {
                if let Some(route) = self.client.on_route_answer(DEFAULT_TOPIC, &result, cx) {
                    self.set_route(provisional_route(route), true, cx);
                }
                if self.publish.is_empty() {
                    self.no_route(cx);
                } else {
                    self.attempt(cx);
                }
            }
            Purpose::Heartbeat => {
                if let Err(failure) = result {
                    heartbeat_failed(from, failure, cx);
                }
            }
            _ => {}
        }
    }

    fn on_send_answer(
        &mut self,
        send: u64,
        group: GroupId,
        queue: i32,
        result: Result<Message, Failure>,
        cx: &mut Cx<'_>,
    ) {
        let Some(call) = self.current.as_mut().filter(|c| c.id == send) else { return };
        let broker = cx.dir.group_name(group).clone();
        let attempt_started = call.attempts.last().map_or(cx.now, |a| a.at);
        let latency = cx.now.saturating_since(attempt_started).as_millis() as u64;
        let topic = &self.client.topic;
        match result {
            Ok(reply) if reply.head().response_code() == ResponseCode::Success => {
                // The commonest line of all, written in one go.
                let answer = reply.header::<SendAnswer>();
                let offset = answer.offset.unwrap_or(0);
                let msg_id = answer.msg_id.as_deref().unwrap_or("");
                cx.trace(
                    TraceKind::SendOk,
                    alloc::format!(
                        "SendResult [sendStatus=SEND_OK, msgId={msg_id}, messageQueue=MessageQueue [topic={topic}, \
                         brokerName={broker}, queueId={queue}], queueOffset={offset}]"
                    ),
                );
                self.update_fault_item(&broker, latency, false, cx);
                self.finish(SendOutcome::Ok, cx);
            }
            Ok(reply) => {
                let mq = alloc::format!("MessageQueue [topic={topic}, brokerName={broker}, queueId={queue}]");
                let remark = reply.head().remark.clone().unwrap_or_default();
                call.last_broker = Some(broker.clone());
                cx.trace(
                    TraceKind::SendRetry,
                    alloc::format!("send to {mq} failed: code {} {remark}, resend at once", reply.head().code),
                );
                self.update_fault_item(&broker, latency, false, cx);
                self.attempt(cx);
            }
            Err(failure) => {
                let mq = alloc::format!("MessageQueue [topic={topic}, brokerName={broker}, queueId={queue}]");
                if let Some(last) = call.attempts.last_mut() {
                    last.failure = Some(failure);
                }
                call.last_broker = Some(broker.clone());
                cx.trace(
                    TraceKind::SendRetry,
                    alloc::format!(
                        "sendKernelImpl exception, resend at once, InvokeID: {send}, RT: {latency}ms, Broker: {mq}, {}",
                        failure_name(failure)
                    ),
                );
                self.update_fault_item(&broker, latency, true, cx);
                self.attempt(cx);
            }
        }
    }

    fn set_route(&mut self, route: TopicRouteData, provisional: bool, cx: &mut Cx<'_>) {
        // A real route replaces a provisional one even if the queues look the same.
        if self.client.apply_route(route, cx) || self.provisional != provisional {
            self.provisional = provisional;
            self.publish = publish_queues(self.client.route.as_ref(), cx);
        }
    }
}

/// `topicRouteData2TopicPublishInfo`: writable queues of groups that have a master.
fn publish_queues(route: Option<&TopicRouteData>, cx: &Cx<'_>) -> Vec<PublishQueue> {
    let Some(route) = route else { return Vec::new() };
    let mut out = Vec::new();
    for q in &route.queue_datas {
        if !perm::is_writeable(q.perm) {
            continue;
        }
        let Some(data) = route.broker_datas.iter().find(|b| b.broker_name == q.broker_name) else { continue };
        let Some(master) = data.master_addr().and_then(|a| cx.dir.by_addr.get(a.as_str())) else { continue };
        let Some(group) = cx.dir.group(&q.broker_name) else { continue };
        for queue in 0..q.write_queue_nums {
            out.push(PublishQueue { broker: q.broker_name.clone(), group, queue, master: *master });
        }
    }
    out
}

/// The TBW102 route turned into a provisional route for a new topic
/// (queues = min(defaultTopicQueueNums, readQueueNums)).
fn provisional_route(mut route: TopicRouteData) -> TopicRouteData {
    for q in &mut route.queue_datas {
        let n = DEFAULT_TOPIC_QUEUE_NUMS.min(q.read_queue_nums);
        *q = QueueData { read_queue_nums: n, write_queue_nums: n, ..q.clone() };
    }
    route
}

fn failure_name(failure: Failure) -> &'static str {
    match failure {
        Failure::ConnectFailed => "RemotingConnectException",
        Failure::Closed => "RemotingSendRequestException",
        Failure::Timeout => "RemotingTimeoutException",
    }
}

/// `MQFaultStrategy.computeNotAvailableDuration`.
fn not_available_duration(profile: Profile, latency_ms: u64) -> u64 {
    let (max, duration): ([u64; 7], [u64; 7]) = match profile {
        Profile::Classic => ([50, 100, 550, 1000, 2000, 3000, 15000], [0, 0, 30000, 60000, 120_000, 180_000, 600_000]),
        Profile::Modern => ([50, 100, 550, 1800, 3000, 5000, 15000], [0, 0, 2000, 5000, 6000, 10000, 30000]),
    };
    (0..7).rev().find(|i| latency_ms >= max[*i]).map_or(0, |i| duration[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_tables() {
        assert_eq!(not_available_duration(Profile::Classic, 3), 0);
        assert_eq!(not_available_duration(Profile::Classic, 600), 30000);
        assert_eq!(not_available_duration(Profile::Classic, 30000), 600_000);
        assert_eq!(not_available_duration(Profile::Modern, 10000), 10000);
    }
}
