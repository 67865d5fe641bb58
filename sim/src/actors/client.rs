//! What producers and consumers share: the NameServer they are bound to, their cached route,
//! the 30 s route poll (`MQClientInstance.updateTopicRouteInfoFromNameServer`), and the
//! broker addresses learned from routes (`brokerAddrTable`).

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::node::operands::Operands;
use crate::node::trace::{NodeId, TraceKind};
use crate::node::{Cx, Directory, Failure, Purpose};
use nameserver_core::json::from_fastjson;
use nameserver_core::names::{BrokerAddr, BrokerId, BrokerName, TopicName};
use nameserver_core::protocol::body::{TopicRouteData, perm};
use nameserver_core::protocol::{RemotingCommand, RequestCode, ResponseCode};
use nameserver_core::time::Instant;

/// `mqClientApiTimeout`.
pub(crate) const CLIENT_API_TIMEOUT_MS: u64 = 3000;

/// A client's NameServer binding and route cache.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ClientCore {
    /// The topic the client uses.
    pub(crate) topic: TopicName,
    /// Index into the NameServer list of the one in use.
    pub(crate) ns_index: usize,
    /// The cached route, sorted by broker name.
    pub(crate) route: Option<TopicRouteData>,
    /// When the cached route last changed.
    pub(crate) route_changed_at: Option<Instant>,
    /// The NameServer that gave the cached route.
    pub(crate) route_from: Option<NodeId>,
    /// Route queries sent so far (periodic and on demand).
    pub(crate) route_queries: u64,
    /// `brokerAddrTable`: every group's members from the routes seen. A route change replaces
    /// a group's entry; a group that leaves the route stays until the next heartbeat tick
    /// (`cleanOfflineBroker`).
    pub(crate) broker_addrs: BTreeMap<BrokerName, BTreeMap<BrokerId, BrokerAddr>>,
}

impl ClientCore {
    /// The topic the client uses.
    #[must_use]
    pub fn topic(&self) -> &TopicName {
        &self.topic
    }

    /// Index into the NameServer list of the one in use.
    #[must_use]
    pub fn ns_index(&self) -> usize {
        self.ns_index
    }

    /// The cached route, sorted by broker name.
    #[must_use]
    pub fn route(&self) -> Option<&TopicRouteData> {
        self.route.as_ref()
    }

    /// When the cached route last changed.
    #[must_use]
    pub fn route_changed_at(&self) -> Option<Instant> {
        self.route_changed_at
    }

    /// Route queries sent so far (periodic and on demand).
    #[must_use]
    pub fn route_queries(&self) -> u64 {
        self.route_queries
    }
}

impl ClientCore {
    /// A client of `topic` bound first to NameServer `ns_index`.
    #[must_use]
    pub fn new(topic: TopicName, ns_index: usize) -> Self {
        Self {
            topic,
            ns_index,
            route: None,
            route_changed_at: None,
            route_from: None,
            route_queries: 0,
            broker_addrs: BTreeMap::new(),
        }
    }

    /// The NameServer in use.
    #[must_use]
    pub fn nameserver(&self, cx: &Cx<'_>) -> NodeId {
        cx.dir.client_nameserver(self.ns_index)
    }

    /// Sends a GET_ROUTEINFO_BY_TOPIC for `topic` to the bound NameServer.
    pub fn query_route(&mut self, topic: &str, purpose: Purpose, cx: &mut Cx<'_>) {
        self.route_queries += 1;
        let ns = self.nameserver(cx);
        let cmd = RemotingCommand::request(RequestCode::GetRouteInfoByTopic).with_field("topic", topic);
        cx.request(ns, cmd, purpose, CLIENT_API_TIMEOUT_MS);
    }

    /// Handles a route answer. Returns the route if the NameServer had one; on a transport
    /// failure, moves to the next NameServer (the channel was closed, so the next request
    /// picks another one).
    pub fn on_route_answer(
        &mut self,
        topic: &str,
        result: &Result<RemotingCommand, Failure>,
        cx: &mut Cx<'_>,
    ) -> Option<TopicRouteData> {
        let ns = self.nameserver(cx);
        let ns_addr = cx.dir.addr(ns).to_string();
        match result {
            Ok(reply) if reply.response_code() == ResponseCode::Success => {
                match from_fastjson::<TopicRouteData>(&reply.body) {
                    Ok(route) => Some(sorted(route)),
                    Err(e) => {
                        cx.trace(TraceKind::RouteQueryFailed, alloc::format!("bad route body from {ns_addr}: {e}"));
                        None
                    }
                }
            }
            Ok(reply) if reply.response_code() == ResponseCode::TopicNotExist => {
                cx.trace_rule(
                    TraceKind::RouteNotFound,
                    alloc::format!("get Topic [{topic}] RouteInfoFromNameServer is not exist value ({ns_addr})"),
                    Operands::TopicNotExist,
                );
                None
            }
            Ok(reply) => {
                let remark = reply.remark.clone().unwrap_or_default();
                cx.trace(
                    TraceKind::RouteQueryFailed,
                    alloc::format!(
                        "getTopicRouteInfoFromNameServer {topic} from {ns_addr}: code {} {remark}",
                        reply.code
                    ),
                );
                None
            }
            Err(failure) => {
                let n = cx.dir.nameservers.len().max(1);
                self.ns_index = (self.ns_index + 1) % n;
                let next = cx.dir.addr(self.nameserver(cx)).to_string();
                cx.trace(
                    TraceKind::RouteQueryFailed,
                    alloc::format!(
                        "updateTopicRouteInfoFromNameServer Exception, {}; switch name server to {next}",
                        crate::actors::common::failure_text(*failure, &ns_addr)
                    ),
                );
                None
            }
        }
    }

    /// Applies a fresh route for the client's topic if it differs from the cache.
    /// Returns whether it changed.
    pub fn apply_route(&mut self, route: TopicRouteData, cx: &mut Cx<'_>) -> bool {
        if self.route.as_ref() == Some(&route) {
            return false;
        }
        // The NameServer's answer, as the route it carried: how many broker groups it listed.
        let groups = u32::try_from(route.broker_datas.len()).unwrap_or(u32::MAX);
        cx.trace_rule(
            TraceKind::RouteUpdated,
            alloc::format!("topicRouteTable.put. Topic = {}, {}", self.topic, describe(&route)),
            Operands::Route { groups },
        );
        for data in &route.broker_datas {
            self.broker_addrs.insert(data.broker_name.clone(), data.broker_addrs.clone());
        }
        self.route = Some(route);
        self.route_changed_at = Some(cx.now);
        self.route_from = Some(self.nameserver(cx));
        true
    }
}

impl ClientCore {
    /// `cleanOfflineBroker`: forgets addresses no cached route names any more.
    pub fn clean_offline_brokers(&mut self, cx: &mut Cx<'_>) {
        let listed = |addr: &BrokerAddr, route: Option<&TopicRouteData>| {
            route.is_some_and(|r| r.broker_datas.iter().any(|b| b.broker_addrs.values().any(|a| a == addr)))
        };
        let route = self.route.as_ref();
        let mut gone = Vec::new();
        for (name, members) in &mut self.broker_addrs {
            members.retain(|_, addr| {
                let keep = listed(addr, route);
                if !keep {
                    cx.trace(TraceKind::Info, alloc::format!("the broker addr[{name} {addr}] is offline, remove it"));
                }
                keep
            });
            if members.is_empty() {
                gone.push(name.clone());
            }
        }
        for name in gone {
            cx.trace(TraceKind::Info, alloc::format!("the broker[{name}] name's host is offline, remove it"));
            self.broker_addrs.remove(&name);
        }
    }

    /// `findBrokerAddressInSubscribe(brokerName, MASTER_ID, onlyThisBroker)`: the master, or
    /// (unless `only_master`) the group's first member; with whether it is the master.
    #[must_use]
    pub fn find_in_subscribe(&self, group: &BrokerName, only_master: bool, dir: &Directory) -> Option<(NodeId, bool)> {
        let members = self.broker_addrs.get(group)?;
        let (id, addr) = members
            .get_key_value(&BrokerId::MASTER)
            .or_else(|| if only_master { None } else { members.iter().next() })?;
        dir.by_addr.get(addr.as_str()).map(|node| (*node, id.is_master()))
    }
}

/// Logs a failed client heartbeat to a broker in Java's words.
pub(crate) fn heartbeat_failed(broker: NodeId, failure: Failure, cx: &mut Cx<'_>) {
    let addr = cx.dir.addr(broker).to_string();
    let text = alloc::format!(
        "send heart beat to broker[{} {addr}] exception, {}",
        cx.dir.name(broker),
        crate::actors::common::failure_text(failure, &addr)
    );
    cx.trace(TraceKind::Info, text);
}

/// Java clients sort both lists by broker name before comparing routes.
#[must_use]
pub(crate) fn sorted(mut route: TopicRouteData) -> TopicRouteData {
    route.broker_datas.sort_by(|a, b| a.broker_name.cmp(&b.broker_name));
    route.queue_datas.sort_by(|a, b| a.broker_name.cmp(&b.broker_name));
    route
}

/// `TopicRouteData [brokerDatas=…, queueDatas=…]`, shortened for the log.
#[must_use]
pub(crate) fn describe(route: &TopicRouteData) -> String {
    let brokers: Vec<String> = route
        .broker_datas
        .iter()
        .map(|b| {
            let addrs: Vec<String> = b.broker_addrs.iter().map(|(id, a)| alloc::format!("{}={a}", id.0)).collect();
            alloc::format!("{} {{{}}}", b.broker_name, addrs.join(", "))
        })
        .collect();
    let queues: Vec<String> = route
        .queue_datas
        .iter()
        .map(|q| {
            let mode = if perm::is_writeable(q.perm) { "RW" } else { "R" };
            alloc::format!("{} r{}/w{} {mode}", q.broker_name, q.read_queue_nums, q.write_queue_nums)
        })
        .collect();
    alloc::format!("TopicRouteData [brokerDatas=[{}], queueDatas=[{}]]", brokers.join("; "), queues.join("; "))
}
