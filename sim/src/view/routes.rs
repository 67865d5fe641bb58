//! Topic routes as the page shows them: what each NameServer would answer and what each
//! client caches, shaped like the RocketMQ dashboard's Router view.

use alloc::borrow::ToOwned;
use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use nameserver_core::protocol::body::{BrokerData, QueueData, TopicRouteData};
use serde::{Deserialize, Serialize};

use crate::{Actor, NodeId, Sim};

/// A topic's queues on one broker group.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct QueueInfo {
    /// The broker group.
    pub broker_name: String,
    /// Read queues.
    pub read_queue_nums: i32,
    /// Write queues.
    pub write_queue_nums: i32,
    /// Permissions.
    pub perm: i32,
    /// Topic system flag.
    pub topic_sys_flag: i32,
}

impl From<&QueueData> for QueueInfo {
    fn from(q: &QueueData) -> Self {
        Self {
            broker_name: q.broker_name.to_string(),
            read_queue_nums: q.read_queue_nums,
            write_queue_nums: q.write_queue_nums,
            perm: q.perm,
            topic_sys_flag: q.topic_sys_flag,
        }
    }
}

/// A broker group in a route.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct BrokerInfo {
    /// The group.
    pub broker_name: String,
    /// Its cluster.
    pub cluster: String,
    /// Broker id (decimal, as the dashboard shows it) → address.
    pub broker_addrs: BTreeMap<String, String>,
    /// Its zone.
    pub zone_name: Option<String>,
}

impl From<&BrokerData> for BrokerInfo {
    fn from(b: &BrokerData) -> Self {
        Self {
            broker_name: b.broker_name.to_string(),
            cluster: b.cluster.to_string(),
            broker_addrs: b.broker_addrs.iter().map(|(id, a)| (id.0.to_string(), a.to_string())).collect(),
            zone_name: b.zone_name.clone(),
        }
    }
}

/// A topic route.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TopicRoute {
    /// The broker groups.
    pub broker_datas: Vec<BrokerInfo>,
    /// The queues.
    pub queue_datas: Vec<QueueInfo>,
    /// The order-topic configuration.
    pub order_topic_conf: Option<String>,
}

impl From<&TopicRouteData> for TopicRoute {
    fn from(r: &TopicRouteData) -> Self {
        Self {
            broker_datas: r.broker_datas.iter().map(BrokerInfo::from).collect(),
            queue_datas: r.queue_datas.iter().map(QueueInfo::from).collect(),
            order_topic_conf: r.order_topic_conf.clone(),
        }
    }
}

impl TopicRoute {
    /// What NameServer `ns` would answer for `topic` now (`None`: TOPIC_NOT_EXIST, or it is not
    /// running).
    #[must_use]
    pub fn answered(sim: &Sim, ns: NodeId, topic: &str) -> Option<Self> {
        let Actor::NameServer(n) = sim.nodes().get(usize::from(ns.0))?.actor() else { return None };
        n.ns().route_data(&topic.into()).as_ref().map(Self::from)
    }
}

/// A running producer's or consumer's cached route, the NameServer it asks and whether the
/// route is stale.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ClientRoute {
    /// The client.
    pub name: String,
    /// Its topic.
    pub topic: String,
    /// The NameServer it asks.
    pub bound_to: String,
    /// Its cached route.
    pub route: Option<TopicRoute>,
    /// When the route last changed (ms).
    pub changed_at: Option<u64>,
    /// Whether it differs from its NameServer's.
    pub stale: bool,
    /// Since when.
    pub stale_since: Option<u64>,
}

impl ClientRoute {
    /// Client `id`'s route; `None` if it is not a running producer or consumer.
    #[must_use]
    pub fn of(sim: &Sim, id: NodeId) -> Option<Self> {
        let client = match sim.nodes().get(usize::from(id.0))?.actor() {
            Actor::Producer(p) => p.client(),
            Actor::Consumer(c) => c.client(),
            _ => return None,
        };
        let ns = sim.directory().client_nameserver(client.ns_index());
        Some(Self {
            name: sim.directory().name(id).to_owned(),
            topic: client.topic().to_string(),
            bound_to: sim.directory().name(ns).to_owned(),
            route: client.route().map(TopicRoute::from),
            changed_at: client.route_changed_at().map(|t| t.as_millis()),
            stale: sim.is_stale(id),
            stale_since: crate::observe::stale_since(sim, id).map(|t| t.as_millis()),
        })
    }
}
