//! `TopicRouteData` and its parts: what GET_ROUTEINFO_BY_TOPIC answers.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Deserialize;

use super::write_broker_addrs;
use crate::json::{JsonWriter, WriteJson};
use crate::names::{BrokerAddr, BrokerId, BrokerName, ClusterName};

/// One broker group's queues for one topic (`QueueData`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct QueueData {
    /// The broker group holding the queues.
    pub broker_name: BrokerName,
    /// Queues consumers read.
    pub read_queue_nums: i32,
    /// Queues producers write.
    pub write_queue_nums: i32,
    /// Permission bits.
    pub perm: i32,
    /// Unit flags.
    pub topic_sys_flag: i32,
}

/// One broker group: its cluster and the address of each member (`BrokerData`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BrokerData {
    /// The cluster the group first registered in.
    pub cluster: ClusterName,
    /// The group's name.
    pub broker_name: BrokerName,
    /// Member addresses by broker id (0 = master).
    pub broker_addrs: BTreeMap<BrokerId, BrokerAddr>,
    /// The zone (5.x); omitted when null.
    pub zone_name: Option<String>,
    /// Whether the group runs in acting-master mode (5.x).
    pub enable_acting_master: bool,
}

impl BrokerData {
    /// The master's address, if a master is registered.
    #[must_use]
    pub fn master_addr(&self) -> Option<&BrokerAddr> {
        self.broker_addrs.get(&BrokerId::MASTER)
    }
}

/// Static-topic mapping of one topic on one broker (`TopicQueueMappingInfo`, 5.x).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TopicQueueMappingInfo {
    /// The broker name (`bname`).
    pub bname: String,
    /// Logical to physical queue ids; Integer keys, bare in the plain style.
    pub curr_id_map: Option<BTreeMap<i32, i32>>,
    /// Whether the mapping is being changed.
    pub dirty: bool,
    /// Mapping epoch.
    pub epoch: i64,
    /// Scope, `__global__` by default.
    pub scope: String,
    /// The topic.
    pub topic: Option<String>,
    /// Logical queue count.
    pub total_queues: i32,
}

impl Default for TopicQueueMappingInfo {
    fn default() -> Self {
        Self {
            bname: String::new(),
            curr_id_map: None,
            dirty: false,
            epoch: 0,
            scope: String::from("__global__"),
            topic: None,
            total_queues: 0,
        }
    }
}

/// A topic's route (`TopicRouteData`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TopicRouteData {
    /// Every broker group serving the topic.
    pub broker_datas: Vec<BrokerData>,
    /// Filter servers by broker address (normally empty).
    pub filter_server_table: BTreeMap<String, Vec<String>>,
    /// `brokerName:queues;…` from the ORDER_TOPIC_CONFIG namespace, when enabled and set.
    pub order_topic_conf: Option<String>,
    /// Queues per broker group.
    pub queue_datas: Vec<QueueData>,
    /// Static-topic mappings by broker name; omitted when null (the normal case).
    pub topic_queue_mapping_by_broker: Option<BTreeMap<String, TopicQueueMappingInfo>>,
}

impl WriteJson for QueueData {
    fn write_json(&self, w: &mut JsonWriter<'_>) {
        w.object(|o| {
            o.key("brokerName").string(self.broker_name.as_str());
            o.key("perm").int(i64::from(self.perm));
            o.key("readQueueNums").int(i64::from(self.read_queue_nums));
            o.key("topicSysFlag").int(i64::from(self.topic_sys_flag));
            o.key("writeQueueNums").int(i64::from(self.write_queue_nums));
        });
    }
}

impl WriteJson for BrokerData {
    fn write_json(&self, w: &mut JsonWriter<'_>) {
        w.object(|o| {
            write_broker_addrs(o.key("brokerAddrs"), &self.broker_addrs);
            o.key("brokerName").string(self.broker_name.as_str());
            o.key("cluster").string(self.cluster.as_str());
            o.key("enableActingMaster").bool(self.enable_acting_master);
            o.opt_str("zoneName", self.zone_name.as_deref());
        });
    }
}

impl WriteJson for TopicQueueMappingInfo {
    fn write_json(&self, w: &mut JsonWriter<'_>) {
        w.object(|o| {
            o.key("bname").string(&self.bname);
            if let Some(map) = &self.curr_id_map {
                o.key("currIdMap").object(|m| {
                    for (k, v) in map {
                        m.int_key(i64::from(*k)).int(i64::from(*v));
                    }
                });
            }
            o.key("dirty").bool(self.dirty);
            o.key("epoch").int(self.epoch);
            o.key("scope").string(&self.scope);
            o.opt_str("topic", self.topic.as_deref());
            o.key("totalQueues").int(i64::from(self.total_queues));
        });
    }
}

impl WriteJson for TopicRouteData {
    fn write_json(&self, w: &mut JsonWriter<'_>) {
        w.object(|o| {
            o.key("brokerDatas").array(|a| {
                for b in &self.broker_datas {
                    a.item().value(b);
                }
            });
            o.key("filterServerTable").object(|m| {
                for (addr, servers) in &self.filter_server_table {
                    m.key(addr).string_array(servers);
                }
            });
            o.opt_str("orderTopicConf", self.order_topic_conf.as_deref());
            o.key("queueDatas").array(|a| {
                for q in &self.queue_datas {
                    a.item().value(q);
                }
            });
            if let Some(mapping) = &self.topic_queue_mapping_by_broker {
                o.key("topicQueueMappingByBroker").object(|m| {
                    for (broker, info) in mapping {
                        m.key(broker).value(info);
                    }
                });
            }
        });
    }
}
