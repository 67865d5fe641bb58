//! The replicated state: each broker group's replicas and its sync-state set, changed only
//! by [`ReplicasInfo::apply`], which reads nothing but the event and the tables (no clock, no
//! liveness), so replaying a log gives the same tables on any machine.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;

use nameserver_core::{BrokerAddr, BrokerId, BrokerName, ClusterName};

use crate::event::Event;

/// Java's `BrokerReplicaInfo`: the ids a group has handed out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrokerReplicas {
    /// The cluster the first replica named.
    pub cluster: Option<ClusterName>,
    /// `nextAssignBrokerId`: 1 + the number of ids ever added (quirk Q1), never lowered.
    pub next_id: i64,
    /// Each replica by id.
    pub brokers: BTreeMap<BrokerId, Replica>,
}

/// One registered replica.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replica {
    /// Its address, as last registered.
    pub addr: BrokerAddr,
    /// The `registerCheckCode` it applied for its id with.
    pub check_code: String,
}

/// Java's `SyncStateInfo`: a group's master and in-sync set, with their epochs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncState {
    /// The cluster the first replica named.
    pub cluster: Option<ClusterName>,
    /// Raised by every election, successful or not; before one that elects, first up to the
    /// highest epoch a live replica holds ([`Event::RaiseMasterEpoch`]).
    pub master_epoch: i32,
    /// Raised by every change of the set.
    pub set_epoch: i32,
    /// The ids that may become master.
    pub set: BTreeSet<BrokerId>,
    /// The master, if any.
    pub master: Option<BrokerId>,
}

/// Both tables, by group name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplicasInfo {
    /// `replicaInfoTable`.
    pub replicas: BTreeMap<BrokerName, BrokerReplicas>,
    /// `syncStateSetInfoTable`.
    pub sync: BTreeMap<BrokerName, SyncState>,
}

impl ReplicasInfo {
    /// Java's `isContainsBroker`: a group exists only when both tables hold it.
    #[must_use]
    pub fn contains(&self, name: &BrokerName) -> bool {
        self.replicas.contains_key(name) && self.sync.contains_key(name)
    }

    /// A group present in both tables.
    #[must_use]
    pub fn group(&self, name: &BrokerName) -> Option<(&BrokerReplicas, &SyncState)> {
        Some((self.replicas.get(name)?, self.sync.get(name)?))
    }

    /// The registered address of a replica.
    #[must_use]
    pub fn address(&self, name: &BrokerName, id: BrokerId) -> Option<&BrokerAddr> {
        Some(&self.replicas.get(name)?.brokers.get(&id)?.addr)
    }

    /// Applies one committed event (Java's `ReplicasInfoManager.applyEvent`).
    pub fn apply(&mut self, event: &Event) {
        match event {
            Event::AlterSyncStateSet { broker_name, new_set } => {
                if let Some(sync) = self.sync.get_mut(broker_name) {
                    sync.replace_set(new_set.clone());
                }
            }
            Event::ApplyBrokerId { cluster, broker_name, broker_address, new_broker_id, register_check_code } => {
                let replica = Replica { addr: broker_address.clone(), check_code: register_check_code.clone() };
                if self.contains(broker_name) {
                    let group = self.replicas.get_mut(broker_name).expect("contains() saw it");
                    if !group.brokers.contains_key(new_broker_id) {
                        group.add(*new_broker_id, replica);
                    }
                } else {
                    // A group with only one of its two entries is replaced whole, forgetting
                    // its other ids, as Java does (a group whose set was cleaned empty while ids remain).
                    let mut group = BrokerReplicas { cluster: cluster.clone(), next_id: 1, brokers: BTreeMap::new() };
                    group.add(*new_broker_id, replica);
                    self.replicas.insert(broker_name.clone(), group);
                    let sync = SyncState {
                        cluster: cluster.clone(),
                        master_epoch: 0,
                        set_epoch: 0,
                        set: BTreeSet::new(),
                        master: None,
                    };
                    self.sync.insert(broker_name.clone(), sync);
                }
            }
            Event::ElectMaster { broker_name, new_master } => {
                if let Some(sync) = self.sync.get_mut(broker_name) {
                    sync.master = *new_master;
                    sync.master_epoch = sync.master_epoch.wrapping_add(1);
                    if let Some(master) = new_master {
                        sync.replace_set(BTreeSet::from([*master]));
                    }
                }
            }
            Event::RaiseMasterEpoch { broker_name, master_epoch } => {
                if let Some(sync) = self.sync.get_mut(broker_name) {
                    sync.master_epoch = sync.master_epoch.max(*master_epoch);
                }
            }
            Event::UpdateBrokerAddress { broker_name, broker_id, broker_address, .. } => {
                if let Some(replica) =
                    self.replicas.get_mut(broker_name).and_then(|group| group.brokers.get_mut(broker_id))
                {
                    replica.addr = broker_address.clone();
                }
            }
            Event::CleanBrokerData { broker_name, ids } => match ids {
                None => {
                    self.replicas.remove(broker_name);
                    self.sync.remove(broker_name);
                }
                Some(ids) => {
                    if !self.contains(broker_name) {
                        return;
                    }
                    // No epoch moves and the master stays even if cleaned (quirk Q7).
                    let group = self.replicas.get_mut(broker_name).expect("contains() saw it");
                    let sync = self.sync.get_mut(broker_name).expect("contains() saw it");
                    for id in ids {
                        group.brokers.remove(id);
                        sync.set.remove(id);
                    }
                    if group.brokers.is_empty() {
                        self.replicas.remove(broker_name);
                    }
                    if sync.set.is_empty() {
                        self.sync.remove(broker_name);
                    }
                }
            },
        }
    }
}

impl BrokerReplicas {
    fn add(&mut self, id: BrokerId, replica: Replica) {
        self.brokers.insert(id, replica);
        self.next_id = self.next_id.wrapping_add(1);
    }
}

impl SyncState {
    fn replace_set(&mut self, set: BTreeSet<BrokerId>) {
        self.set = set;
        self.set_epoch = self.set_epoch.wrapping_add(1);
    }
}
