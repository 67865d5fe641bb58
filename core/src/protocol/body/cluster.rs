//! `ClusterInfo` (GET_BROKER_CLUSTER_INFO) and `BrokerMemberGroup` (GET_BROKER_MEMBER_GROUP).

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use serde::Deserialize;

use super::{BrokerData, write_broker_addrs};
use crate::json::{JsonError, JsonWriter, OrderedMap, WriteJson, from_fastjson};
use crate::names::{BrokerAddr, BrokerId, BrokerName, ClusterName};

/// Every broker group and which groups each cluster has.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ClusterInfo {
    /// Broker groups by name, in the order written.
    pub broker_addr_table: OrderedMap<BrokerName, BrokerData>,
    /// Group names by cluster, in the order written.
    pub cluster_addr_table: OrderedMap<ClusterName, Vec<BrokerName>>,
}

impl WriteJson for ClusterInfo {
    fn write_json(&self, w: &mut JsonWriter<'_>) {
        w.object(|o| {
            o.key("brokerAddrTable").object(|m| {
                for (name, data) in self.broker_addr_table.iter() {
                    m.key(name.as_str()).value(data);
                }
            });
            o.key("clusterAddrTable").object(|m| {
                for (cluster, names) in self.cluster_addr_table.iter() {
                    m.key(cluster.as_str()).string_array(names.iter().map(BrokerName::as_str));
                }
            });
        });
    }
}

/// The members of one broker group, wrapped as `GetBrokerMemberGroupResponseBody`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BrokerMemberGroup {
    /// The cluster, echoed from the request (absent when the request had none).
    pub cluster: Option<ClusterName>,
    /// The group, echoed from the request (absent when the request had none).
    pub broker_name: Option<BrokerName>,
    /// Member addresses by id; empty for an unknown group.
    pub broker_addrs: BTreeMap<BrokerId, BrokerAddr>,
}

impl BrokerMemberGroup {
    /// Reads a `GetBrokerMemberGroupResponseBody`.
    ///
    /// # Errors
    /// If the body is not one.
    pub fn from_response_body(body: &[u8]) -> Result<Self, JsonError> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Wrapper {
            broker_member_group: Group,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase", default)]
        #[derive(Default)]
        struct Group {
            cluster: Option<ClusterName>,
            broker_name: Option<BrokerName>,
            broker_addrs: BTreeMap<BrokerId, BrokerAddr>,
        }
        let group = from_fastjson::<Wrapper>(body)?.broker_member_group;
        Ok(Self { cluster: group.cluster, broker_name: group.broker_name, broker_addrs: group.broker_addrs })
    }
}

impl WriteJson for BrokerMemberGroup {
    fn write_json(&self, w: &mut JsonWriter<'_>) {
        w.object(|o| {
            o.key("brokerMemberGroup").object(|g| {
                write_broker_addrs(g.key("brokerAddrs"), &self.broker_addrs);
                if let Some(name) = &self.broker_name {
                    g.key("brokerName").string(name.as_str());
                }
                if let Some(cluster) = &self.cluster {
                    g.key("cluster").string(cluster.as_str());
                }
            });
        });
    }
}
