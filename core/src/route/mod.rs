//! The route tables (Java's `RouteInfoManager`), with 5.x semantics (PROTOCOL.md §10).
//!
//! Table and field names mirror the Java ones so behaviour can be compared line by line.
//! Every method takes the time it needs as an argument and logs into an event sink; nothing
//! here reads a clock or knows about sockets (connections are [`ConnId`]s).

mod query;
mod queues;
mod recipe;
mod register;
mod unregister;

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;
use core::time::Duration;

pub use query::{RouteFilter, RouteShape, ShapeKey};
pub use queues::TopicQueues;
pub use recipe::{GroupRoute, RouteRecipe};
pub use register::{RegisterOutcome, Registration};
pub use unregister::UnregisterItem;

use crate::names::{BrokerAddr, BrokerId, BrokerName, ClusterName, ConnId, TopicName};
use crate::protocol::body::{BrokerData, DataVersion, TopicQueueMappingInfo};
use crate::time::Instant;

/// The default broker heartbeat timeout (Java: `DEFAULT_BROKER_CHANNEL_EXPIRED_TIME`).
pub const DEFAULT_BROKER_TIMEOUT: Duration = Duration::from_millis(120_000);

/// Key of the live and filter-server tables: (clusterName, brokerAddr).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BrokerAddrInfo {
    /// Cluster.
    pub cluster: ClusterName,
    /// Address.
    pub broker_addr: BrokerAddr,
}

/// A live broker instance (`BrokerLiveInfo`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BrokerLiveInfo {
    /// When its last registration or heartbeat arrived.
    pub last_update: Instant,
    /// How long it may stay silent.
    pub heartbeat_timeout: Duration,
    /// Its topic-config data version.
    pub data_version: DataVersion,
    /// The connection its latest registration arrived on.
    pub conn: ConnId,
    /// Its HA address (absent when the registration had none).
    pub ha_server_addr: Option<String>,
    /// Its group (kept here so a closed connection needs no table scan).
    pub broker_name: BrokerName,
    /// Its id.
    pub broker_id: BrokerId,
}

impl BrokerLiveInfo {
    /// When this entry expires if nothing refreshes it.
    #[must_use]
    pub fn expires_at(&self) -> Instant {
        self.last_update + self.heartbeat_timeout
    }

    /// The first instant at which a scan removes this entry (Java's test is
    /// `last + timeout < now`, so one millisecond after [`Self::expires_at`]).
    #[must_use]
    pub fn expired_from(&self) -> Instant {
        self.expires_at() + Duration::from_millis(1)
    }
}

/// Topics whose route answer may have changed since the last [`RouteTable::take_changes`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RouteChanges {
    /// The topics.
    pub topics: BTreeSet<TopicName>,
    /// The groups whose [`RouteTable::group_route`] may have changed (every topic with queues
    /// on one of them is in `topics`).
    pub groups: BTreeSet<BrokerName>,
}

/// Hashes the topics alone, as before `groups` existed: the simulation's state hashes, which
/// take in the tables' pending changes, stay what they were.
impl core::hash::Hash for RouteChanges {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.topics.hash(state);
    }
}

/// The five route tables plus static-topic mappings.
///
/// Not `Serialize` on purpose: views for the wire and for the page are built from it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RouteTable {
    pub(crate) topic_queue_table: BTreeMap<TopicName, TopicQueues>,
    pub(crate) broker_addr_table: BTreeMap<BrokerName, BrokerData>,
    pub(crate) cluster_addr_table: BTreeMap<ClusterName, BTreeSet<BrokerName>>,
    pub(crate) broker_live_table: BTreeMap<BrokerAddrInfo, BrokerLiveInfo>,
    pub(crate) filter_server_table: BTreeMap<BrokerAddrInfo, Vec<String>>,
    pub(crate) topic_queue_mapping_info_table: BTreeMap<TopicName, BTreeMap<BrokerName, TopicQueueMappingInfo>>,
    /// Connections still open whose registration of a live broker was replaced by one on
    /// another connection: their UNREGISTER_BROKER for it is stale (#11043).
    pub(crate) superseded: BTreeMap<BrokerAddrInfo, BTreeSet<ConnId>>,
    changes: RouteChanges,
    epoch: u64,
}

impl RouteTable {
    /// Empty tables.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Increases whenever a route answer may have changed.
    #[must_use]
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Takes the set of topics whose routes may have changed.
    pub fn take_changes(&mut self) -> RouteChanges {
        core::mem::take(&mut self.changes)
    }

    /// `topicQueueTable`: topic → broker group → queues.
    #[must_use]
    pub fn topic_queue_table(&self) -> &BTreeMap<TopicName, TopicQueues> {
        &self.topic_queue_table
    }

    /// `brokerAddrTable`: broker group → members.
    #[must_use]
    pub fn broker_addr_table(&self) -> &BTreeMap<BrokerName, BrokerData> {
        &self.broker_addr_table
    }

    /// `clusterAddrTable`: cluster → broker groups.
    #[must_use]
    pub fn cluster_addr_table(&self) -> &BTreeMap<ClusterName, BTreeSet<BrokerName>> {
        &self.cluster_addr_table
    }

    /// `brokerLiveTable`: (cluster, address) → liveness.
    #[must_use]
    pub fn broker_live_table(&self) -> &BTreeMap<BrokerAddrInfo, BrokerLiveInfo> {
        &self.broker_live_table
    }

    /// `filterServerTable`: (cluster, address) → filter servers.
    #[must_use]
    pub fn filter_server_table(&self) -> &BTreeMap<BrokerAddrInfo, Vec<String>> {
        &self.filter_server_table
    }

    /// The earliest instant at which some live entry expires.
    #[must_use]
    pub fn next_expiry(&self) -> Option<Instant> {
        self.broker_live_table.values().map(BrokerLiveInfo::expires_at).min()
    }

    /// Refreshes a live entry's timestamp (BROKER_HEARTBEAT, QUERY_DATA_VERSION).
    /// Returns whether the entry exists.
    pub fn refresh(&mut self, cluster: &ClusterName, broker_addr: &BrokerAddr, now: Instant) -> bool {
        let key = BrokerAddrInfo { cluster: cluster.clone(), broker_addr: broker_addr.clone() };
        match self.broker_live_table.get_mut(&key) {
            Some(live) => {
                live.last_update = now;
                true
            }
            None => false,
        }
    }

    /// The live entry of one broker instance.
    #[must_use]
    pub fn live(&self, cluster: &ClusterName, broker_addr: &BrokerAddr) -> Option<&BrokerLiveInfo> {
        self.broker_live_table.get(&BrokerAddrInfo { cluster: cluster.clone(), broker_addr: broker_addr.clone() })
    }

    fn touch_topic(&mut self, topic: &TopicName) {
        self.epoch += 1;
        self.changes.topics.insert(topic.clone());
    }

    /// [`Self::touch_topic`] for each of `topics`, given in name order: one bulk merge rather
    /// than a tree insertion per topic (a registration may bring a million).
    fn touch_sorted_topics(&mut self, topics: Vec<TopicName>) {
        self.epoch += topics.len() as u64;
        let mut set: BTreeSet<TopicName> = topics.into_iter().collect();
        self.changes.topics.append(&mut set);
    }

    /// Marks every topic served by `broker_name` as changed (its addresses changed).
    fn touch_broker(&mut self, broker_name: &BrokerName) {
        self.epoch += 1;
        self.changes.groups.insert(broker_name.clone());
        for (topic, queues) in &self.topic_queue_table {
            if queues.contains_key(broker_name) {
                self.changes.topics.insert(topic.clone());
            }
        }
    }

    /// Marks the topics of many groups in one pass over the topics (a scan may expire
    /// thousands of brokers at once). The caller moves the epoch once per change, as
    /// [`Self::touch_broker`] would.
    fn touch_brokers(&mut self, broker_names: &BTreeSet<BrokerName>) {
        if broker_names.is_empty() {
            return;
        }
        self.changes.groups.extend(broker_names.iter().cloned());
        let mut topics: BTreeSet<TopicName> = self
            .topic_queue_table
            .iter()
            .filter(|(_, queues)| queues.has_any_of(broker_names))
            .map(|(topic, _)| topic.clone())
            .collect();
        self.changes.topics.append(&mut topics);
    }
}

#[cfg(test)]
pub(crate) mod tests;
