//! Read-side queries and the admin edits of existing routes (PROTOCOL.md §7, §10.6, §10.8).

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::queues::Rewrites;
use super::{RouteTable, TopicQueues};
use crate::event::Event;
use crate::event_run::EventRun;
use crate::names::{BrokerId, BrokerName, ClusterName, TopicName};
use crate::protocol::body::{BrokerMemberGroup, ClusterInfo, TopicList, TopicRouteData, perm};
use crate::protocol::request::UnitList;

/// Topic prefix of the per-group member-sync topics, never rewritten for acting masters.
const SYNC_BROKER_MEMBER_PREFIX: &str = "rmq_sys_SYNC_BROKER_MEMBER_";

/// `topicSysFlag` bits.
const FLAG_UNIT: i32 = 1;
const FLAG_UNIT_SUB: i32 = 2;

/// Options of a route lookup that come from configuration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RouteFilter {
    /// `supportActingMaster`: present the lowest slave of a master-less read-only group as id 0.
    pub support_acting_master: bool,
}

/// What one topic's route is made of besides the broker tables that every topic shares.
/// Within one state of the tables, topics with equal shapes have byte-identical route bodies,
/// so a driver that encodes routes ahead of time can encode once per shape: in most clusters
/// thousands of topics have the same queues on the same groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RouteShape<'a> {
    pub(super) queues: &'a TopicQueues,
    /// The topic itself when its route is its own (it has static-topic queue mappings).
    pub(super) own: Option<&'a TopicName>,
    /// Member-sync topics are never rewritten for acting masters.
    pub(super) sync_member: bool,
    /// `orderTopicConf`, filled in by the NameServer from its KV table.
    pub(crate) order_conf: Option<&'a str>,
}

/// A cheap stand-in for a [`RouteShape`]: topics with equal keys have equal shapes (they
/// share one queue list and the rest), while topics with equal shapes may still have different
/// keys (equal lists of different histories). Hashing it costs the same however many groups
/// a topic has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShapeKey<'a> {
    queues: usize,
    own: Option<&'a TopicName>,
    sync_member: bool,
    order_conf: Option<&'a str>,
}

/// Hashes a summary of the queue list (its length, first and last entries), so that a topic
/// whose list is new (with every route different, each topic on each registration) is grouped
/// without reading the whole list; equality still compares whole lists.
impl core::hash::Hash for RouteShape<'_> {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.queues.len().hash(state);
        self.queues.values().next().hash(state);
        self.queues.values().next_back().hash(state);
        self.own.hash(state);
        self.sync_member.hash(state);
        self.order_conf.hash(state);
    }
}

impl<'a> RouteShape<'a> {
    /// See [`ShapeKey`]. Valid while the tables do not change.
    #[must_use]
    pub fn key(&self) -> ShapeKey<'a> {
        ShapeKey {
            queues: self.queues.addr(),
            own: self.own,
            sync_member: self.sync_member,
            order_conf: self.order_conf,
        }
    }
}

impl RouteTable {
    /// The [`RouteShape`] of `topic`, or `None` when it has no queue data.
    #[must_use]
    pub fn route_shape(&self, topic: &TopicName) -> Option<RouteShape<'_>> {
        let (name, queues) = self.topic_queue_table.get_key_value(topic)?;
        Some(self.shape_of(name, queues))
    }

    fn shape_of<'a>(&'a self, topic: &'a TopicName, queues: &'a TopicQueues) -> RouteShape<'a> {
        RouteShape {
            queues,
            own: self.topic_queue_mapping_info_table.contains_key(topic).then_some(topic),
            sync_member: topic.as_str().starts_with(SYNC_BROKER_MEMBER_PREFIX),
            order_conf: None,
        }
    }

    /// [`Self::route_shape`] of each of `topics` (`None`: every topic with queues), in order:
    /// one walk along the table when they are a good part of it (a registration of a million
    /// topics), a lookup each otherwise.
    pub fn for_each_route_shape<'a>(
        &'a self,
        topics: Option<&'a BTreeSet<TopicName>>,
        mut f: impl FnMut(&'a TopicName, Option<RouteShape<'a>>),
    ) {
        let Some(topics) = topics else {
            for (topic, queues) in &self.topic_queue_table {
                f(topic, Some(self.shape_of(topic, queues)));
            }
            return;
        };
        let Some(first) = topics.first() else { return };
        if topics.len().saturating_mul(8) < self.topic_queue_table.len() {
            for topic in topics {
                f(topic, self.route_shape(topic));
            }
            return;
        }
        let mut table = self.topic_queue_table.range::<TopicName, _>(first..).peekable();
        for topic in topics {
            while table.next_if(|(name, _)| *name < topic).is_some() {}
            let shape =
                table.peek().filter(|(name, _)| *name == topic).map(|(name, queues)| self.shape_of(name, queues));
            f(topic, shape);
        }
    }

    /// `pickupTopicRouteData`: the topic's route, or `None` when it has no queue data or none
    /// of its groups is known (TOPIC_NOT_EXIST).
    #[must_use]
    pub fn pickup_topic_route_data(&self, topic: &TopicName, filter: RouteFilter) -> Option<TopicRouteData> {
        let recipe = self.route_recipe(self.route_shape(topic)?, filter)?;
        Some(recipe.build(|name| self.group_route(name)))
    }

    /// `getAllClusterInfo`.
    #[must_use]
    pub fn cluster_info(&self) -> ClusterInfo {
        ClusterInfo {
            broker_addr_table: self.broker_addr_table.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            cluster_addr_table: self
                .cluster_addr_table
                .iter()
                .map(|(cluster, names)| (cluster.clone(), names.iter().cloned().collect()))
                .collect(),
        }
    }

    /// `getAllTopicList`.
    #[must_use]
    pub fn all_topic_list(&self) -> TopicList {
        TopicList { broker_addr: None, topic_list: self.topic_queue_table.keys().map(ToString::to_string).collect() }
    }

    /// `getTopicsByCluster`: topics with queues on any group of the cluster (empty if unknown).
    #[must_use]
    pub fn topics_by_cluster(&self, cluster: &ClusterName) -> TopicList {
        let names = self.cluster_addr_table.get(cluster);
        let topic_list = self
            .topic_queue_table
            .iter()
            .filter(|(_, queues)| names.is_some_and(|names| queues.keys().any(|n| names.contains(n))))
            .map(|(topic, _)| topic.to_string())
            .collect();
        TopicList { broker_addr: None, topic_list }
    }

    /// `getSystemTopicList`: every cluster name and broker name, plus one broker address.
    #[must_use]
    pub fn system_topic_list(&self) -> TopicList {
        let mut names: BTreeSet<String> = self.cluster_addr_table.keys().map(ToString::to_string).collect();
        // Java adds each cluster's broker names (clusterAddrTable's values), not brokerAddrTable's keys.
        names.extend(self.cluster_addr_table.values().flatten().map(ToString::to_string));
        let broker_addr =
            self.broker_addr_table.values().find_map(|d| d.broker_addrs.values().next()).map(ToString::to_string);
        TopicList { broker_addr, topic_list: names.into_iter().collect() }
    }

    /// The unit topic lists, judged by the first group's `topicSysFlag`.
    #[must_use]
    pub fn unit_topic_list(&self, which: UnitList) -> TopicList {
        let topic_list = self
            .topic_queue_table
            .iter()
            .filter(|(_, queues)| {
                let Some(flag) = queues.values().next().map(|q| q.topic_sys_flag) else { return false };
                match which {
                    UnitList::Unit => flag & FLAG_UNIT != 0,
                    UnitList::HasUnitSub => flag & FLAG_UNIT_SUB != 0,
                    UnitList::HasUnitSubUnunit => flag & FLAG_UNIT == 0 && flag & FLAG_UNIT_SUB != 0,
                }
            })
            .map(|(topic, _)| topic.to_string())
            .collect();
        TopicList { broker_addr: None, topic_list }
    }

    /// `getBrokerMemberGroup`.
    #[must_use]
    /// A missing name (Java's null) has no members and is left out of the body.
    pub fn broker_member_group(
        &self,
        cluster: Option<ClusterName>,
        broker_name: Option<BrokerName>,
    ) -> BrokerMemberGroup {
        let broker_addrs =
            broker_name.as_ref().and_then(|name| self.broker_addr_table.get(name)).map(|d| d.broker_addrs.clone());
        BrokerMemberGroup { cluster, broker_name, broker_addrs: broker_addrs.unwrap_or_default() }
    }

    /// WIPE_WRITE_PERM_OF_BROKER (clear PERM_WRITE) or ADD_WRITE_PERM_OF_BROKER (set perm to
    /// read|write) on every topic of the group. Returns how many topics were touched.
    pub fn change_write_perm(&mut self, broker_name: &BrokerName, add: bool, log: &mut EventRun) -> u32 {
        let mut count = 0u32;
        let mut changed = Vec::new();
        let mut rewrites = Rewrites::new();
        for (topic, queues) in &mut self.topic_queue_table {
            if let Some(q) = queues.get(broker_name) {
                count = count.saturating_add(1);
                let next = if add { perm::READ | perm::WRITE } else { q.perm & !perm::WRITE };
                if next != q.perm {
                    *queues = rewrites.get(queues, next, |list| list.with_perm(broker_name, next));
                    changed.push(topic.clone());
                }
            }
        }
        for topic in &changed {
            self.touch_topic(topic);
        }
        log.push(Event::WritePermChanged { broker_name: broker_name.clone(), added: add, topics: count });
        count
    }

    /// DELETE_TOPIC_IN_NAMESRV: the whole topic, or only the queues of one cluster's groups.
    pub fn delete_topic(&mut self, topic: &TopicName, cluster: Option<&ClusterName>, log: &mut EventRun) {
        match cluster {
            None => {
                if self.topic_queue_table.remove(topic).is_some() {
                    self.touch_topic(topic);
                }
            }
            Some(cluster) => {
                let names: Vec<BrokerName> =
                    self.cluster_addr_table.get(cluster).map(|n| n.iter().cloned().collect()).unwrap_or_default();
                let mut rewrites = Rewrites::new();
                for name in &names {
                    self.remove_queue_data(topic, name, &mut rewrites);
                }
            }
        }
        log.push(Event::TopicDeleted { topic: topic.clone(), cluster: cluster.cloned() });
    }
}

/// PROTOCOL.md §10.6 step 5, on a copy: for master-less acting groups whose queues are not
/// writable, the lowest member is shown under id 0.
pub(super) fn apply_acting_master(route: &mut TopicRouteData) {
    let needed = route.broker_datas.iter().any(|d| !d.broker_addrs.is_empty() && d.master_addr().is_none());
    if !needed {
        return;
    }
    let writable: BTreeMap<BrokerName, bool> =
        route.queue_datas.iter().map(|q| (q.broker_name.clone(), perm::is_writeable(q.perm))).collect();
    for data in &mut route.broker_datas {
        if !data.enable_acting_master || data.broker_addrs.is_empty() || data.master_addr().is_some() {
            continue;
        }
        if writable.get(&data.broker_name).copied().unwrap_or(true) {
            continue;
        }
        if let Some((&id, _)) = data.broker_addrs.iter().next() {
            if let Some(addr) = data.broker_addrs.remove(&id) {
                data.broker_addrs.insert(BrokerId::MASTER, addr);
            }
        }
    }
}
