//! A push consumer in clustering mode: polls its route every 30 s, rebalances every 20 s
//! (and at once when its route changes), long-polls each assigned broker group, and reads
//! from a slave when the group's master is gone (`findBrokerAddressInSubscribe`).

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::time::Duration;

use super::broker::failure_text;
use super::client::{CLIENT_API_TIMEOUT_MS, ClientCore, heartbeat_failed};
use super::node::{Cx, Failure, GroupId, Purpose, TimerKind};
use super::trace::{NodeId, TraceKind};
use crate::names::TopicName;
use crate::protocol::body::perm;
use crate::protocol::{RemotingCommand, RequestCode, ResponseCode};

pub(crate) const POLL_PERIOD: Duration = Duration::from_secs(30);
const FIRST_POLL: Duration = Duration::from_millis(10);
pub(crate) const REBALANCE_PERIOD: Duration = Duration::from_secs(20);
pub(crate) const HEARTBEAT_PERIOD: Duration = Duration::from_secs(30);
const FIRST_HEARTBEAT: Duration = Duration::from_secs(1);
/// `PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION`.
pub(crate) const PULL_RETRY: Duration = Duration::from_secs(3);
/// `CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND`.
const PULL_TIMEOUT_MS: u64 = 30_000;

/// Pull progress on one broker group.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PullState {
    /// Next offset to read.
    pub offset: u64,
    /// Whether a pull is outstanding.
    pub in_flight: bool,
    /// The instance last pulled from.
    pub from: Option<NodeId>,
}

/// One consumer process.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SimConsumer {
    /// Binding and route cache.
    pub client: ClientCore,
    /// Consumer group.
    pub group: String,
    /// Groups it reads, with progress.
    pub assigned: BTreeMap<GroupId, PullState>,
    /// Messages consumed so far.
    pub consumed: u64,
}

impl SimConsumer {
    /// A consumer of `topic` in `group`, bound first to NameServer `ns_index`.
    #[must_use]
    pub fn new(topic: TopicName, group: String, ns_index: usize) -> Self {
        Self { client: ClientCore::new(topic, ns_index), group, assigned: BTreeMap::new(), consumed: 0 }
    }

    /// Starts the poll, rebalance and heartbeat timers.
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
            TimerKind::PullRetry(group) => self.pull(group, cx),
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

    /// Assigns every readable group of the route (one consumer takes all queues).
    fn rebalance(&mut self, cx: &mut Cx<'_>) {
        let wanted: Vec<GroupId> = self
            .client
            .route
            .iter()
            .flat_map(|r| r.queue_datas.iter())
            .filter(|q| perm::is_readable(q.perm) && q.read_queue_nums > 0)
            .filter_map(|q| cx.dir.group(&q.broker_name))
            .collect();
        let before: Vec<GroupId> = self.assigned.keys().copied().collect();
        self.assigned.retain(|g, _| wanted.contains(g));
        for g in &wanted {
            self.assigned.entry(*g).or_default();
        }
        let after: Vec<GroupId> = self.assigned.keys().copied().collect();
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
        for g in after {
            if !self.assigned[&g].in_flight {
                self.pull(g, cx);
            }
        }
    }

    /// The instance to read `group` from: its master, else its lowest slave.
    fn source(&self, group: GroupId, cx: &Cx<'_>) -> Option<NodeId> {
        let name = cx.dir.group_name(group);
        let data = self.client.route.as_ref()?.broker_datas.iter().find(|b| &b.broker_name == name)?;
        let addr = data.master_addr().or_else(|| data.broker_addrs.values().next())?;
        cx.dir.by_addr.get(addr.as_str()).copied()
    }

    fn pull(&mut self, group: GroupId, cx: &mut Cx<'_>) {
        let Some(source) = self.source(group, cx) else { return };
        let Some(state) = self.assigned.get_mut(&group) else { return };
        if state.in_flight {
            return;
        }
        state.in_flight = true;
        state.from = Some(source);
        let cmd = RemotingCommand::request(RequestCode::PullMessage)
            .with_field("consumerGroup", self.group.as_str())
            .with_field("topic", self.client.topic.as_str())
            .with_field("queueId", "-1")
            .with_field("queueOffset", state.offset.to_string())
            .with_field("suspendTimeoutMillis", "15000");
        cx.request(source, cmd, Purpose::Pull(group), PULL_TIMEOUT_MS);
    }

    /// An answer to one of this consumer's requests.
    pub fn on_response(
        &mut self,
        purpose: Purpose,
        result: Result<RemotingCommand, Failure>,
        from: NodeId,
        cx: &mut Cx<'_>,
    ) {
        match purpose {
            Purpose::RoutePoll => {
                let topic = self.client.topic.to_string();
                if let Some(route) = self.client.on_route_answer(&topic, &result, cx) {
                    if self.client.apply_route(route, cx) {
                        self.rebalance(cx);
                    }
                }
            }
            Purpose::Pull(group) => {
                let Some(state) = self.assigned.get_mut(&group) else { return };
                state.in_flight = false;
                match result {
                    Ok(reply)
                        if matches!(reply.response_code(), ResponseCode::Success | ResponseCode::PullNotFound) =>
                    {
                        let next: u64 =
                            reply.field("nextBeginOffset").and_then(|n| n.parse().ok()).unwrap_or(state.offset);
                        let found = next.saturating_sub(state.offset);
                        state.offset = state.offset.max(next);
                        if found > 0 {
                            self.consumed += found;
                            cx.trace(
                                TraceKind::Pull,
                                alloc::format!(
                                    "pull {found} messages of {} from {} ({})",
                                    self.client.topic,
                                    cx.dir.name(from),
                                    cx.dir.addr(from)
                                ),
                            );
                        }
                        self.pull(group, cx);
                    }
                    Ok(reply) => {
                        cx.trace(
                            TraceKind::Info,
                            alloc::format!("pull from {} failed: code {}", cx.dir.name(from), reply.code),
                        );
                        cx.timer(TimerKind::PullRetry(group), cx.now + PULL_RETRY);
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
                        cx.timer(TimerKind::PullRetry(group), cx.now + PULL_RETRY);
                    }
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
}
