//! Bodies in fastjson's shape (keys sorted, nulls left out, `Map<Long, …>` keys bare),
//! written by the core's JSON writer and read through its tolerant reader.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::vec::Vec;

use nameserver_core::json::{JsonStyle, JsonWriter, WriteJson};
use nameserver_core::{BrokerAddr, BrokerId, BrokerName, ClusterName};
use serde::Deserialize;

/// `SyncStateSet`: `{"syncStateSet":[1,2],"syncStateSetEpoch":2}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SyncStateSetBody {
    /// The ids; `None` when the JSON had none (Java's null).
    pub sync_state_set: Option<BTreeSet<BrokerId>>,
    /// The epoch of the set the sender knew (1001) or of the set sent (replies).
    pub sync_state_set_epoch: i32,
}

impl SyncStateSetBody {
    /// A set and its epoch.
    #[must_use]
    pub fn new(set: BTreeSet<BrokerId>, epoch: i32) -> Self {
        Self { sync_state_set: Some(set), sync_state_set_epoch: epoch }
    }
}

impl WriteJson for SyncStateSetBody {
    fn write_json(&self, w: &mut JsonWriter<'_>) {
        w.object(|o| {
            if let Some(set) = &self.sync_state_set {
                o.key("syncStateSet").value(&Ids(set));
            }
            o.key("syncStateSetEpoch").int(i64::from(self.sync_state_set_epoch));
        });
    }
}

/// `ElectMasterResponseBody`: the group on a new election, the set always.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElectMasterBody {
    /// `brokerMemberGroup`: every registered replica, dead ones too (only on SUCCESS).
    pub member_group: Option<MemberGroup>,
    /// `syncStateSet`.
    pub sync_state_set: BTreeSet<BrokerId>,
}

/// `BrokerMemberGroup` as 1002's body carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberGroup {
    /// `cluster`.
    pub cluster: Option<ClusterName>,
    /// `brokerName`.
    pub broker_name: BrokerName,
    /// `brokerAddrs`, by controller id.
    pub broker_addrs: BTreeMap<BrokerId, BrokerAddr>,
}

impl WriteJson for ElectMasterBody {
    fn write_json(&self, w: &mut JsonWriter<'_>) {
        w.object(|o| {
            if let Some(group) = &self.member_group {
                o.key("brokerMemberGroup").object(|g| {
                    g.key("brokerAddrs").object(|m| {
                        for (id, addr) in &group.broker_addrs {
                            m.int_key(id.0).string(addr.as_str());
                        }
                    });
                    g.key("brokerName").string(group.broker_name.as_str());
                    g.opt_str("cluster", group.cluster.as_ref().map(ClusterName::as_str));
                });
            }
            o.key("syncStateSet").value(&Ids(&self.sync_state_set));
        });
    }
}

/// `BrokerReplicasInfo` (1006): each known group's replicas, split by the sync-state set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BrokerReplicasInfo {
    /// `replicasInfoTable`, by group.
    pub table: BTreeMap<BrokerName, ReplicasInfo>,
}

/// One group of [`BrokerReplicasInfo`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicasInfo {
    /// `masterBrokerId`.
    pub master_broker_id: Option<BrokerId>,
    /// `masterAddress`.
    pub master_address: Option<BrokerAddr>,
    /// `masterEpoch`.
    pub master_epoch: i32,
    /// `syncStateSetEpoch`.
    pub sync_state_set_epoch: i32,
    /// `inSyncReplicas`, in id order.
    pub in_sync: Vec<ReplicaIdentity>,
    /// `notInSyncReplicas`, in id order.
    pub not_in_sync: Vec<ReplicaIdentity>,
}

/// `ReplicaIdentity`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicaIdentity {
    /// `brokerName`.
    pub broker_name: BrokerName,
    /// `brokerId`.
    pub broker_id: BrokerId,
    /// `brokerAddress`.
    pub broker_address: BrokerAddr,
    /// `alive`, by this controller's heartbeats.
    pub alive: bool,
}

impl WriteJson for BrokerReplicasInfo {
    fn write_json(&self, w: &mut JsonWriter<'_>) {
        let replicas = |w: &mut JsonWriter<'_>, list: &[ReplicaIdentity]| {
            w.array(|a| {
                for r in list {
                    a.item().object(|o| {
                        o.key("alive").bool(r.alive);
                        o.key("brokerAddress").string(r.broker_address.as_str());
                        o.key("brokerId").int(r.broker_id.0);
                        o.key("brokerName").string(r.broker_name.as_str());
                    });
                }
            });
        };
        w.object(|o| {
            o.key("replicasInfoTable").object(|t| {
                for (name, info) in &self.table {
                    t.key(name.as_str()).object(|g| {
                        replicas(g.key("inSyncReplicas"), &info.in_sync);
                        g.opt_str("masterAddress", info.master_address.as_ref().map(BrokerAddr::as_str));
                        if let Some(id) = info.master_broker_id {
                            g.key("masterBrokerId").int(id.0);
                        }
                        g.key("masterEpoch").int(i64::from(info.master_epoch));
                        replicas(g.key("notInSyncReplicas"), &info.not_in_sync);
                        g.key("syncStateSetEpoch").int(i64::from(info.sync_state_set_epoch));
                    });
                }
            });
        });
    }
}

/// A set of ids as a JSON array, ascending (Java's `HashSet<Long>` order for small ids).
struct Ids<'a>(&'a BTreeSet<BrokerId>);

impl WriteJson for Ids<'_> {
    fn write_json(&self, w: &mut JsonWriter<'_>) {
        w.array(|a| {
            for id in self.0 {
                a.item().int(id.0);
            }
        });
    }
}

/// A body in fastjson's default (plain) style, as every controller reply is written.
pub(crate) fn plain(body: &impl WriteJson) -> Vec<u8> {
    body.to_json(JsonStyle::Plain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nameserver_core::json::from_fastjson;

    #[test]
    fn bodies_have_javas_shape() {
        let set: BTreeSet<BrokerId> = [BrokerId(2), BrokerId(1)].into_iter().collect();
        assert_eq!(plain(&SyncStateSetBody::new(set.clone(), 2)), br#"{"syncStateSet":[1,2],"syncStateSetEpoch":2}"#);
        let group = MemberGroup {
            cluster: Some(ClusterName::new("DefaultCluster")),
            broker_name: BrokerName::new("broker-a"),
            broker_addrs: [(BrokerId(1), BrokerAddr::new("127.0.0.1:30911"))].into_iter().collect(),
        };
        let body = ElectMasterBody { member_group: Some(group), sync_state_set: [BrokerId(1)].into_iter().collect() };
        assert_eq!(
            plain(&body),
            br#"{"brokerMemberGroup":{"brokerAddrs":{1:"127.0.0.1:30911"},"brokerName":"broker-a","cluster":"DefaultCluster"},"syncStateSet":[1]}"#
        );
        let read: SyncStateSetBody = from_fastjson(br#"{"syncStateSet":[1,2],"syncStateSetEpoch":2}"#).unwrap();
        assert_eq!(read, SyncStateSetBody::new(set, 2));
    }
}
