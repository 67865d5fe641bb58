//! Body types, as fastjson writes and reads them (PROTOCOL.md §8–§9).
//!
//! Every type reads through the tolerant reader ([`crate::json::from_fastjson`]) and writes
//! through [`crate::json::WriteJson`] with properties in alphabetical order and nulls omitted,
//! which is what fastjson's defaults produce.

mod cluster;
mod data_version;
mod lists;
mod register;
mod route;
mod topic_config;
mod topic_table;

pub use cluster::{BrokerMemberGroup, ClusterInfo};
pub use data_version::DataVersion;
pub use lists::{KvTable, TopicList};
pub use register::{BodyError, RegisterBrokerBody, TopicConfigWrapper, V3_0_11, V5_0_0, looks_like_zlib};
pub use route::{BrokerData, QueueData, TopicQueueMappingInfo, TopicRouteData};
pub use topic_config::{TopicConfig, perm};
pub use topic_table::{TopicConfigIter, TopicConfigTable};

use alloc::collections::BTreeMap;

use crate::json::JsonWriter;
use crate::names::{BrokerAddr, BrokerId};

/// Writes a `brokerAddrs` map: Long keys, bare in the plain style.
pub(crate) fn write_broker_addrs(w: &mut JsonWriter<'_>, addrs: &BTreeMap<BrokerId, BrokerAddr>) {
    w.object(|o| {
        for (id, addr) in addrs {
            o.int_key(id.0).string(addr.as_str());
        }
    });
}
