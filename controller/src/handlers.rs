//! Validation: each leader-only request checked against the tables and this controller's
//! heartbeats, in Java's order (the first failing check answers), giving the reply and the
//! events to commit. Nothing here changes state; [`crate::ReplicasInfo::apply`] does, once
//! the events are committed.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use nameserver_core::protocol::ResponseCode;
use nameserver_core::{BrokerAddr, BrokerId, BrokerName, ClusterName, Instant};

use crate::body::{
    BrokerReplicasInfo, ElectMasterBody, MemberGroup, ReplicaIdentity, ReplicasInfo, SyncStateSetBody, plain,
};
use crate::code::ControllerResponseCode as Code;
use crate::config::ControllerConfig;
use crate::elect::{Ballot, elect};
use crate::event::Event;
use crate::followed::FollowedEpochs;
use crate::liveness::Liveness;
use crate::replicas::ReplicasInfo as Tables;
use crate::request::ElectMaster;

/// What validation decided: the reply, and the events that must commit before it is sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The response code.
    pub code: ResponseCode,
    /// The remark.
    pub remark: Option<String>,
    /// The response header's fields; `None`: no header object at all.
    pub header: Option<BTreeMap<String, String>>,
    /// The body.
    pub body: Vec<u8>,
    /// The events to commit.
    pub events: Vec<Event>,
    /// A new master, whose group is told (1008) once the events are applied.
    pub elected: Option<Elected>,
}

/// A successful election, as NOTIFY_BROKER_ROLE_CHANGED tells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Elected {
    /// The group's cluster.
    pub cluster: Option<ClusterName>,
    /// The group.
    pub broker_name: BrokerName,
    /// The new master.
    pub master: BrokerId,
    /// Its address (`None` for an id nobody registered: quirk Q2).
    pub master_addr: Option<BrokerAddr>,
    /// The new master epoch.
    pub master_epoch: i32,
    /// The new set's epoch.
    pub set_epoch: i32,
    /// Every registered replica, the recipients (those alive).
    pub members: BTreeMap<BrokerId, BrokerAddr>,
}

impl Outcome {
    pub(crate) fn new(code: impl Into<ResponseCode>, header: Option<BTreeMap<String, String>>) -> Self {
        Self { code: code.into(), remark: None, header, body: Vec::new(), events: Vec::new(), elected: None }
    }

    pub(crate) fn remark(mut self, remark: impl Into<String>) -> Self {
        self.remark = Some(remark.into());
        self
    }

    pub(crate) fn body(mut self, body: Vec<u8>) -> Self {
        self.body = body;
        self
    }

    pub(crate) fn events(mut self, events: Vec<Event>) -> Self {
        self.events = events;
        self
    }

    /// Where Java dereferences a null field: SYSTEM_ERROR, a Java-looking remark, no header.
    #[must_use]
    pub fn null_pointer(at: &str) -> Self {
        Self::new(ResponseCode::SystemError, None).remark(format!("java.lang.NullPointerException, {at}"))
    }

    /// The answer of a request with no answer of its own (1006 without names, quirk Q11).
    #[must_use]
    pub fn not_set() -> Self {
        Self::new(ResponseCode::SystemError, None).remark("not set any response code")
    }
}

/// What validation reads.
#[derive(Debug)]
pub struct Context<'a> {
    /// Now, for liveness.
    pub now: Instant,
    /// The replica tables.
    pub tables: &'a Tables,
    /// This controller's heartbeats.
    pub live: &'a Liveness,
    /// The configuration (unclean elections).
    pub config: &'a ControllerConfig,
    /// The reported epochs the leader follows.
    pub followed: &'a FollowedEpochs,
}

/// A header map from `(key, value)` pairs, skipping `None`s (Java omits null fields).
pub(crate) fn header<const N: usize>(fields: [(&str, Option<String>); N]) -> Option<BTreeMap<String, String>> {
    Some(fields.into_iter().filter_map(|(k, v)| Some((k.to_string(), v?))).collect())
}

pub(crate) fn cluster_text(cluster: Option<&ClusterName>) -> Option<String> {
    cluster.map(|c| c.as_str().to_string())
}

pub(crate) fn name_text(name: Option<&BrokerName>) -> Option<String> {
    name.map(|n| n.as_str().to_string())
}

impl Context<'_> {
    pub(crate) fn alive(&self, cluster: Option<&ClusterName>, name: &BrokerName, id: BrokerId) -> bool {
        self.live.is_alive(self.now, cluster, name, id)
    }

    /// CONTROLLER_ALTER_SYNC_STATE_SET (1001).
    #[must_use]
    pub fn alter_sync_state_set(
        &self,
        broker_name: Option<&BrokerName>,
        master_broker_id: Option<BrokerId>,
        master_epoch: Option<i32>,
        body: Option<&SyncStateSetBody>,
    ) -> Outcome {
        let failed = |code: Code| Outcome::new(code, header([("newSyncStateSetEpoch", Some(String::from("0")))]));
        let Some(name) = broker_name else { return Outcome::null_pointer("ReplicasInfoManager.alterSyncStateSet") };
        let Some((replicas, sync)) = self.tables.group(name) else {
            return failed(Code::AlterSyncStateSetFailed).remark("Broker metadata is not existed");
        };
        let Some((new_set, known_epoch)) =
            body.and_then(|b| Some((b.sync_state_set.as_ref()?, b.sync_state_set_epoch)))
        else {
            return Outcome::null_pointer("ReplicasInfoManager.alterSyncStateSet");
        };
        // Quirk Q4: the equal-set check comes before the master check.
        if *new_set == sync.set {
            return failed(Code::AlterSyncStateSetFailed)
                .remark("The newSyncStateSet is equal with oldSyncStateSet, no needed to update syncStateSet");
        }
        if sync.master.is_none() || sync.master != master_broker_id {
            let remark = format!(
                "Rejecting alter syncStateSet request because the current leader is:{{{}}}, not {{{}}}",
                show(sync.master),
                show(master_broker_id)
            );
            return failed(Code::InvalidMaster).remark(remark);
        }
        let Some(master_epoch) = master_epoch else {
            return Outcome::null_pointer("ReplicasInfoManager.alterSyncStateSet");
        };
        if master_epoch != sync.master_epoch {
            let remark = format!(
                "Rejecting alter syncStateSet request because the current master epoch is:{{{}}}, not {{{master_epoch}}}",
                sync.master_epoch
            );
            return failed(Code::FencedMasterEpoch).remark(remark);
        }
        if known_epoch != sync.set_epoch {
            let remark = format!(
                "Rejecting alter syncStateSet request because the current syncStateSet epoch is:{{{}}}, not {{{known_epoch}}}",
                sync.set_epoch
            );
            return failed(Code::FencedSyncStateSetEpoch).remark(remark);
        }
        for id in new_set {
            if !replicas.brokers.contains_key(id) {
                return failed(Code::InvalidReplicas)
                    .remark(format!("Rejecting alter syncStateSet request because the replicas {{{id}}} don't exist"));
            }
            if !self.alive(replicas.cluster.as_ref(), name, *id) {
                return failed(Code::BrokerNotAlive)
                    .remark(format!("Rejecting alter syncStateSet request because the replicas {{{id}}} don't alive"));
            }
        }
        if sync.master.is_none_or(|m| !new_set.contains(&m)) {
            return failed(Code::AlterSyncStateSetFailed).remark(format!(
                "Rejecting alter syncStateSet request because the newSyncStateSet don't contains origin leader {{{}}}",
                show(sync.master)
            ));
        }
        let epoch = sync.set_epoch.wrapping_add(1);
        Outcome::new(ResponseCode::Success, header([("newSyncStateSetEpoch", Some(epoch.to_string()))]))
            .body(plain(&SyncStateSetBody::new(new_set.clone(), epoch)))
            .events(alloc::vec![Event::AlterSyncStateSet { broker_name: name.clone(), new_set: new_set.clone() }])
    }

    /// CONTROLLER_ELECT_MASTER (1002), from a broker, an admin or the controller itself.
    #[must_use]
    pub fn elect_master(&self, request: &ElectMaster) -> Outcome {
        let empty = || header([]);
        let name = &request.broker_name;
        let Some((replicas, sync)) = self.tables.group(name) else {
            return Outcome::new(Code::BrokerNeedToBeRegistered, empty()).remark("Broker hasn't been registered");
        };
        let requester = Some(request.broker_id).filter(|id| id.0 != -1);
        let all: BTreeSet<BrokerId> = replicas.brokers.keys().copied().collect();
        // Quirk Q2: the first election takes the requester with no liveness or membership check.
        let mut new_master = if sync.master_epoch == 0 { requester } else { None };
        if new_master.is_none() {
            let ballot = Ballot {
                sync_set: &sync.set,
                unclean: self.config.enable_elect_unclean_master.then_some(&all),
                old_master: sync.master,
                preferred: if request.designate_elect { Some(request.broker_id) } else { None },
            };
            new_master = elect(&ballot, |id| {
                self.live.info(replicas.cluster.as_ref(), name, id).filter(|i| i.alive_at(self.now))
            })
            .filter(|elected| self.config.replace_masters || sync.master == Some(*elected));
        }
        let addr = |id: BrokerId| replicas.brokers.get(&id).map(|r| r.addr.clone());
        let set_body = |set: &BTreeSet<BrokerId>| ElectMasterBody { member_group: None, sync_state_set: set.clone() };
        // A live replica holding a later epoch: even a master that stays is elected again above it.
        let held = self.held_epoch(replicas, name).filter(|held| *held > sync.master_epoch);
        match new_master {
            Some(master) if sync.master == Some(master) && held.is_none() => Outcome::new(
                Code::MasterStillExist,
                header([
                    ("masterBrokerId", Some(master.0.to_string())),
                    ("masterAddress", addr(master).map(BrokerAddr::into_string)),
                    ("masterEpoch", Some(sync.master_epoch.to_string())),
                    ("syncStateSetEpoch", Some(sync.set_epoch.to_string())),
                ]),
            )
            // Java 5.5.0's text, word for word (PROTOCOL.md §20.2).
            .remark(format!("The old master {master} is still alive, not need to elect new master for broker {name}"))
            .body(plain(&set_body(&sync.set))),
            Some(master) => {
                let base = held.unwrap_or(sync.master_epoch);
                let (master_epoch, set_epoch) = (base.wrapping_add(1), sync.set_epoch.wrapping_add(1));
                let members: BTreeMap<BrokerId, BrokerAddr> =
                    replicas.brokers.iter().map(|(id, r)| (*id, r.addr.clone())).collect();
                let body = ElectMasterBody {
                    member_group: Some(MemberGroup {
                        cluster: replicas.cluster.clone(),
                        broker_name: name.clone(),
                        broker_addrs: members.clone(),
                    }),
                    sync_state_set: BTreeSet::from([master]),
                };
                let mut outcome = Outcome::new(
                    ResponseCode::Success,
                    header([
                        ("masterBrokerId", Some(master.0.to_string())),
                        ("masterAddress", addr(master).map(BrokerAddr::into_string)),
                        ("masterEpoch", Some(master_epoch.to_string())),
                        ("syncStateSetEpoch", Some(set_epoch.to_string())),
                    ]),
                )
                .body(plain(&body));
                if let Some(held) = held {
                    outcome.events.push(Event::RaiseMasterEpoch { broker_name: name.clone(), master_epoch: held });
                }
                outcome.events.push(Event::ElectMaster { broker_name: name.clone(), new_master: Some(master) });
                outcome.elected = Some(Elected {
                    cluster: replicas.cluster.clone(),
                    broker_name: name.clone(),
                    master,
                    master_addr: addr(master),
                    master_epoch,
                    set_epoch,
                    members,
                });
                outcome
            }
            // Quirk Q3: the controller's own failed attempt still commits an election.
            None if requester.is_none() => Outcome::new(Code::MasterNotAvailable, empty())
                .remark("Failed to elect a new master")
                .events(alloc::vec![Event::ElectMaster { broker_name: name.clone(), new_master: None }]),
            None => Outcome::new(Code::ElectMasterFailed, empty()).remark("Failed to elect a new master"),
        }
    }

    /// The highest HA epoch the group's live replicas report (BROKER_HEARTBEAT's `epoch`, the
    /// last of their `epochFileCheckpoint`) and this controller follows ([`FollowedEpochs`]:
    /// from a registered replica, once per registration). Above this controller's master
    /// epoch only when they were elected by another controller, Java's before a migration: a
    /// new master epoch not above it is refused by their HA (`AutoSwitchHAService.changeToSlave`
    /// and `changeToMaster` keep a lower epoch out; an equal one makes the master rewrite its
    /// entry, which no slave then matches), so the slave never replicates (PROTOCOL.md §20.4).
    fn held_epoch(&self, replicas: &crate::replicas::BrokerReplicas, name: &BrokerName) -> Option<i32> {
        replicas
            .brokers
            .keys()
            .filter(|id| self.alive(replicas.cluster.as_ref(), name, **id))
            .filter_map(|id| self.followed.epoch(name, *id))
            .max()
    }

    /// CONTROLLER_REGISTER_BROKER (1003).
    #[must_use]
    pub fn register_broker(
        &self,
        cluster: Option<&ClusterName>,
        broker_name: Option<&BrokerName>,
        broker_id: Option<BrokerId>,
        broker_address: Option<&BrokerAddr>,
    ) -> Outcome {
        let echo = [("clusterName", cluster_text(cluster)), ("brokerName", name_text(broker_name))];
        let Some(name) = broker_name else { return Outcome::null_pointer("ReplicasInfoManager.registerBroker") };
        let Some((replicas, sync)) = self.tables.group(name) else {
            return Outcome::new(Code::BrokerNeedToBeRegistered, header(echo.clone()))
                .remark(format!("Broker-set: {name} hasn't been registered in controller"));
        };
        // Java looks a null id up in a concurrent map: a NullPointerException.
        let Some(id) = broker_id else { return Outcome::null_pointer("ReplicasInfoManager.registerBroker") };
        if !replicas.brokers.contains_key(&id) {
            return Outcome::new(Code::BrokerNeedToBeRegistered, header(echo.clone()))
                .remark(format!("BrokerId: {} hasn't been registered in broker-set: {name}", id.0));
        }
        let Some(address) = broker_address else { return Outcome::null_pointer("ReplicasInfoManager.registerBroker") };
        // Quirk Q5: only a live master is named here.
        let master = sync.master.filter(|m| self.alive(cluster, name, *m));
        let [cluster_field, name_field] = echo;
        let mut outcome = Outcome::new(
            ResponseCode::Success,
            header([
                cluster_field,
                name_field,
                ("masterBrokerId", master.map(|m| m.0.to_string())),
                ("masterAddress", master.and_then(|m| self.tables.address(name, m)).map(|a| a.as_str().to_string())),
                ("masterEpoch", master.map(|_| sync.master_epoch.to_string())),
                ("syncStateSetEpoch", master.map(|_| sync.set_epoch.to_string())),
            ]),
        )
        .body(plain(&SyncStateSetBody::new(sync.set.clone(), sync.set_epoch)));
        if self.tables.address(name, id) != Some(address) {
            outcome.events.push(Event::UpdateBrokerAddress {
                cluster: cluster.cloned(),
                broker_name: name.clone(),
                broker_id: id,
                broker_address: address.clone(),
            });
        }
        outcome
    }

    /// CONTROLLER_GET_REPLICA_INFO (1004): the master even when it is dead (quirk Q5).
    #[must_use]
    pub fn replica_info(&self, broker_name: Option<&BrokerName>) -> Outcome {
        let Some(name) = broker_name else { return Outcome::null_pointer("ReplicasInfoManager.getReplicaInfo") };
        let Some((_, sync)) = self.tables.group(name) else {
            return Outcome::new(Code::BrokerMetadataNotExist, header([])).remark("Broker metadata is not existed");
        };
        Outcome::new(
            ResponseCode::Success,
            header([
                ("masterBrokerId", sync.master.map(|m| m.0.to_string())),
                (
                    "masterAddress",
                    sync.master.and_then(|m| self.tables.address(name, m)).map(|a| a.as_str().to_string()),
                ),
                ("masterEpoch", Some(sync.master_epoch.to_string())),
            ]),
        )
        .body(plain(&SyncStateSetBody::new(sync.set.clone(), sync.set_epoch)))
    }

    /// CONTROLLER_GET_SYNC_STATE_DATA (1006): unknown names are skipped.
    #[must_use]
    pub fn sync_state_data(&self, broker_names: Option<&[BrokerName]>) -> Outcome {
        let Some(names) = broker_names else { return Outcome::not_set() };
        let mut info = BrokerReplicasInfo::default();
        for name in names {
            let Some((replicas, sync)) = self.tables.group(name) else { continue };
            let (mut in_sync, mut not_in_sync) = (Vec::new(), Vec::new());
            for (id, replica) in &replicas.brokers {
                let identity = ReplicaIdentity {
                    broker_name: name.clone(),
                    broker_id: *id,
                    broker_address: replica.addr.clone(),
                    alive: self.alive(replicas.cluster.as_ref(), name, *id),
                };
                if sync.set.contains(id) { in_sync.push(identity) } else { not_in_sync.push(identity) }
            }
            let group = ReplicasInfo {
                master_broker_id: sync.master,
                master_address: sync.master.and_then(|m| self.tables.address(name, m)).cloned(),
                master_epoch: sync.master_epoch,
                sync_state_set_epoch: sync.set_epoch,
                in_sync,
                not_in_sync,
            };
            info.table.insert(name.clone(), group);
        }
        Outcome::new(ResponseCode::Success, None).body(plain(&info))
    }
}

/// A nullable id as Java prints it.
pub(crate) fn show(id: Option<BrokerId>) -> String {
    id.map_or_else(|| String::from("null"), |id| id.0.to_string())
}
