//! What a topic's route is built from, owned, so that a driver can build it later than the
//! state of the tables it came from (PROTOCOL.md §10.6): a [`RouteRecipe`] per topic (its
//! queues and what only it has) and a [`GroupRoute`] per broker group. The NameServer builds
//! every route it answers through [`RouteRecipe::build`] too, so the rule is written once.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::query::{RouteShape, apply_acting_master};
use super::{BrokerAddrInfo, RouteFilter, RouteTable, TopicQueues};
use crate::names::BrokerName;
use crate::protocol::body::{BrokerData, TopicQueueMappingInfo, TopicRouteData};

/// A topic's route without its groups: everything [`RouteRecipe::build`] needs besides a
/// [`GroupRoute`] for each group the queues name. Topics of one [`RouteShape`] have equal
/// recipes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouteRecipe {
    queues: TopicQueues,
    /// Static-topic mappings (`topicQueueMappingInfoTable`), for the few topics that have them.
    mapping: Option<BTreeMap<String, TopicQueueMappingInfo>>,
    /// Acting masters are presented (`supportActingMaster`, not for member-sync topics).
    acting_master: bool,
    order_conf: Option<String>,
}

/// One broker group as every route naming it shows it: its `BrokerData` and its members'
/// filter servers (normally none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupRoute {
    data: BrokerData,
    filter_servers: Vec<(String, Vec<String>)>,
}

impl RouteRecipe {
    /// The recipe of a topic with these queues and nothing of its own (no static-topic
    /// mappings, order configuration or acting masters).
    #[must_use]
    pub fn of_queues(queues: TopicQueues) -> Self {
        Self { queues, mapping: None, acting_master: false, order_conf: None }
    }

    /// `pickupTopicRouteData` from this recipe, `group` giving each group the queues name
    /// (a group it does not know is left out, as Java skips a missing `brokerAddrTable` entry).
    #[must_use]
    pub fn build(&self, mut group: impl FnMut(&BrokerName) -> Option<GroupRoute>) -> TopicRouteData {
        let mut route =
            TopicRouteData { queue_datas: self.queues.values().cloned().collect(), ..TopicRouteData::default() };
        route.broker_datas.reserve(self.queues.len());
        for name in self.queues.keys() {
            let Some(GroupRoute { data, filter_servers }) = group(name) else { continue };
            route.broker_datas.push(data);
            route.filter_server_table.extend(filter_servers);
        }
        route.topic_queue_mapping_by_broker.clone_from(&self.mapping);
        if self.acting_master {
            apply_acting_master(&mut route);
        }
        route.order_topic_conf.clone_from(&self.order_conf);
        route
    }
}

impl RouteTable {
    /// The recipe of a topic of `shape`, or `None` when the topic has no route: no queues, or
    /// none of its groups known (TOPIC_NOT_EXIST).
    #[must_use]
    pub fn route_recipe(&self, shape: RouteShape<'_>, filter: RouteFilter) -> Option<RouteRecipe> {
        let queues = shape.queues;
        if !queues.keys().any(|name| self.broker_addr_table.contains_key(name)) {
            return None;
        }
        let mapping = shape.own.and_then(|topic| self.topic_queue_mapping_info_table.get(topic));
        Some(RouteRecipe {
            queues: queues.clone(),
            mapping: mapping.map(|m| m.iter().map(|(name, info)| (name.to_string(), info.clone())).collect()),
            acting_master: filter.support_acting_master && !shape.sync_member,
            order_conf: shape.order_conf.map(String::from),
        })
    }

    /// The group `name` as routes show it, if it is known.
    #[must_use]
    pub fn group_route(&self, name: &BrokerName) -> Option<GroupRoute> {
        let data = self.broker_addr_table.get(name)?;
        let mut filter_servers = Vec::new();
        if !self.filter_server_table.is_empty() {
            for addr in data.broker_addrs.values() {
                let key = BrokerAddrInfo { cluster: data.cluster.clone(), broker_addr: addr.clone() };
                if let Some(servers) = self.filter_server_table.get(&key) {
                    filter_servers.push((addr.to_string(), servers.clone()));
                }
            }
        }
        Some(GroupRoute { data: data.clone(), filter_servers })
    }
}

#[cfg(test)]
mod tests {
    use alloc::collections::BTreeSet;

    use super::super::RouteChanges;
    use crate::hash_fed::fed;
    use crate::names::{BrokerName, TopicName};

    #[test]
    fn route_changes_hash_as_their_topics_alone_as_before_groups_were_kept() {
        let topics: BTreeSet<TopicName> = ["A", "B"].into_iter().map(TopicName::from).collect();
        let groups: BTreeSet<BrokerName> = ["g"].into_iter().map(BrokerName::from).collect();
        let changes = RouteChanges { topics: topics.clone(), groups };
        assert_eq!(fed(&changes), fed(&topics));
    }
}
