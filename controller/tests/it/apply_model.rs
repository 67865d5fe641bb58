//! `apply` against a simple model (Java's apply rules restated over plain vectors), the
//! encodings round-tripped, and a controller's log replayed: any order of events gives the
//! same tables as the model, and the master epoch rises with every election.

use std::collections::BTreeSet;

use nameserver_controller::{
    Controller, ControllerConfig, Event, Input, MemoryLog, ReplicasInfo, decode_entry, encode_entry,
};
use nameserver_core::{BrokerAddr, BrokerId, BrokerName, ClusterName, ConnId, Instant};
use proptest::prelude::*;

/// One group as the model keeps it.
#[derive(Clone, Debug, Default, PartialEq)]
struct Group {
    replicas: Option<Replicas>,
    sync: Option<SyncEntry>,
}

/// The cluster, master epoch, set epoch, set and master.
type SyncEntry = (Option<String>, i32, i32, Vec<i64>, Option<i64>);

/// The cluster the group was created with, the next id and each `(id, address, check code)`.
#[derive(Clone, Debug, PartialEq)]
struct Replicas(Option<String>, i64, Vec<(i64, String, String)>);

#[derive(Default)]
struct Model {
    groups: Vec<(String, Group)>,
}

impl Model {
    fn group(&mut self, name: &str) -> &mut Group {
        if let Some(i) = self.groups.iter().position(|(n, _)| n == name) {
            return &mut self.groups[i].1;
        }
        self.groups.push((name.to_string(), Group::default()));
        &mut self.groups.last_mut().unwrap().1
    }

    fn apply(&mut self, event: &Event) {
        let g = self.group(event.broker_name().as_str());
        let both = g.replicas.is_some() && g.sync.is_some();
        match event {
            Event::AlterSyncStateSet { new_set, .. } => {
                if let Some((_, _, se, set, _)) = &mut g.sync {
                    *set = new_set.iter().map(|i| i.0).collect();
                    *se += 1;
                }
            }
            Event::ApplyBrokerId { cluster, broker_address, new_broker_id, register_check_code, .. } => {
                let entry = (new_broker_id.0, broker_address.as_str().to_string(), register_check_code.clone());
                if both {
                    let Replicas(_, next, ids) = g.replicas.as_mut().unwrap();
                    if !ids.iter().any(|(i, _, _)| *i == new_broker_id.0) {
                        ids.push(entry);
                        *next += 1;
                    }
                } else {
                    // A new group (or one left in only one table, replaced whole), in the
                    // cluster this request named.
                    let cluster = cluster.as_ref().map(|c| c.as_str().to_string());
                    g.replicas = Some(Replicas(cluster.clone(), 2, vec![entry]));
                    g.sync = Some((cluster, 0, 0, vec![], None));
                }
            }
            Event::ElectMaster { new_master, .. } => {
                if let Some((_, me, se, set, master)) = &mut g.sync {
                    *me += 1;
                    *master = new_master.map(|m| m.0);
                    if let Some(m) = new_master {
                        *set = vec![m.0];
                        *se += 1;
                    }
                }
            }
            Event::RaiseMasterEpoch { master_epoch, .. } => {
                if let Some((_, me, _, _, _)) = &mut g.sync {
                    *me = (*me).max(*master_epoch);
                }
            }
            Event::UpdateBrokerAddress { broker_id, broker_address, .. } => {
                if let Some(Replicas(_, _, ids)) = &mut g.replicas {
                    for (i, addr, _) in ids.iter_mut() {
                        if *i == broker_id.0 {
                            *addr = broker_address.as_str().to_string();
                        }
                    }
                }
            }
            Event::CleanBrokerData { ids: None, .. } => *g = Group::default(),
            Event::CleanBrokerData { ids: Some(ids), .. } => {
                if both {
                    let Replicas(_, _, replicas) = g.replicas.as_mut().unwrap();
                    replicas.retain(|(i, _, _)| !ids.contains(&BrokerId(*i)));
                    let (_, _, _, set, _) = g.sync.as_mut().unwrap();
                    set.retain(|i| !ids.contains(&BrokerId(*i)));
                    if replicas.is_empty() {
                        g.replicas = None;
                    }
                    if set.is_empty() {
                        g.sync = None;
                    }
                }
            }
        }
    }

    /// The model in the tables' shape.
    fn matches(&self, tables: &ReplicasInfo) -> Result<(), String> {
        for (name, g) in &self.groups {
            let name = BrokerName::new(name.as_str());
            let replicas = tables.replicas.get(&name).map(|r| {
                let mut ids: Vec<(i64, String, String)> =
                    r.brokers.iter().map(|(i, x)| (i.0, x.addr.as_str().to_string(), x.check_code.clone())).collect();
                ids.sort();
                Replicas(r.cluster.as_ref().map(|c| c.as_str().to_string()), r.next_id, ids)
            });
            let mut want = g.replicas.clone();
            if let Some(Replicas(_, _, ids)) = &mut want {
                ids.sort();
            }
            let sync = tables.sync.get(&name).map(|s| {
                let set = s.set.iter().map(|i| i.0).collect::<Vec<_>>();
                (
                    s.cluster.as_ref().map(|c| c.as_str().to_string()),
                    s.master_epoch,
                    s.set_epoch,
                    set,
                    s.master.map(|m| m.0),
                )
            });
            let mut want_sync = g.sync.clone();
            if let Some((_, _, _, set, _)) = &mut want_sync {
                set.sort();
                set.dedup();
            }
            if replicas != want || sync != want_sync {
                return Err(format!("{name:?}: {replicas:?} {sync:?} vs model {want:?} {want_sync:?}"));
            }
            // A group exists only in both tables (Java's isContainsBroker), and its addresses
            // are the ones the model holds.
            let both = g.replicas.is_some() && g.sync.is_some();
            if tables.contains(&name) != both {
                return Err(format!("{name:?}: contains() is {}, the model {both}", tables.contains(&name)));
            }
            for (id, addr, _) in want.iter().flat_map(|Replicas(_, _, ids)| ids) {
                let found = tables.address(&name, BrokerId(*id)).map(|a| a.as_str());
                if found != Some(addr.as_str()) {
                    return Err(format!("{name:?} {id}: address {found:?}, the model {addr}"));
                }
            }
        }
        let known = self.groups.iter().filter(|(_, g)| g.replicas.is_some() || g.sync.is_some()).count();
        let names: BTreeSet<&BrokerName> = tables.replicas.keys().chain(tables.sync.keys()).collect();
        if names.len() != known {
            return Err(format!("groups {names:?} vs model {known}"));
        }
        Ok(())
    }
}

fn ids() -> impl Strategy<Value = BTreeSet<BrokerId>> {
    prop::collection::btree_set((1i64..5).prop_map(BrokerId), 0..4)
}

fn event() -> impl Strategy<Value = Event> {
    let name = prop::sample::select(vec!["broker-a", "broker-b"]).prop_map(BrokerName::new);
    let addr = prop::sample::select(vec!["10.0.0.1:1", "10.0.0.2:1"]).prop_map(BrokerAddr::new);
    let cluster = prop::option::of(prop::sample::select(vec!["c", "c2"]).prop_map(ClusterName::new));
    prop_oneof![
        (name.clone(), ids()).prop_map(|(broker_name, new_set)| Event::AlterSyncStateSet { broker_name, new_set }),
        (cluster.clone(), name.clone(), addr.clone(), 1i64..5, prop::sample::select(vec!["x", "y"])).prop_map(
            |(cluster, broker_name, broker_address, id, code)| Event::ApplyBrokerId {
                cluster,
                broker_name,
                broker_address,
                new_broker_id: BrokerId(id),
                register_check_code: code.to_string(),
            }
        ),
        (name.clone(), prop::option::of((1i64..5).prop_map(BrokerId)))
            .prop_map(|(broker_name, new_master)| Event::ElectMaster { broker_name, new_master }),
        (name.clone(), prop::option::of(ids()))
            .prop_map(|(broker_name, ids)| Event::CleanBrokerData { broker_name, ids }),
        (name.clone(), 0i32..9)
            .prop_map(|(broker_name, master_epoch)| Event::RaiseMasterEpoch { broker_name, master_epoch }),
        (cluster, name, 1i64..5, addr).prop_map(|(cluster, broker_name, id, broker_address)| {
            Event::UpdateBrokerAddress { cluster, broker_name, broker_id: BrokerId(id), broker_address }
        }),
    ]
}

proptest! {
    #[test]
    fn apply_agrees_with_the_model_and_survives_both_encodings(events in prop::collection::vec(event(), 0..40)) {
        let (mut tables, mut model) = (ReplicasInfo::default(), Model::default());
        for event in &events {
            tables.apply(event);
            model.apply(event);
            prop_assert_eq!(model.matches(&tables), Ok(()));
        }
        prop_assert_eq!(decode_entry(&encode_entry(&events)).unwrap(), events);
        prop_assert_eq!(ReplicasInfo::from_snapshot(&tables.to_snapshot()).unwrap(), tables);
    }

    #[test]
    fn a_controllers_log_replays_to_its_tables_and_master_epochs_only_rise(
        steps in prop::collection::vec((0u8..6, 1u64..4, 0u64..3_000), 1..60),
    ) {
        let mut controller = Controller::new(ControllerConfig::default(), MemoryLog::new("n0"), Instant::ZERO);
        let mut now = 0;
        for (kind, id, wait) in steps {
            now += wait;
            let (conn, id_text) = (ConnId(id), id.to_string());
            let fields: Vec<(&str, String)> = match kind {
                0 => vec![("appliedBrokerId", id_text.clone()), ("registerCheckCode", format!("10.0.0.{id}:1;{id}"))],
                1 => vec![("brokerId", id_text.clone()), ("brokerAddress", format!("10.0.0.{id}:2"))],
                2 => vec![("brokerId", id_text.clone()), ("brokerAddr", format!("10.0.0.{id}:1"))],
                3 => vec![("brokerId", id_text.clone())],
                _ => vec![("brokerControllerIdsToClean", id_text.clone())],
            };
            let code = [1013, 1003, 904, 1002, 1011, 1011][usize::from(kind)];
            let mut cmd = nameserver_core::protocol::RemotingCommand { code, ..Default::default() }
                .with_field("clusterName", "c")
                .with_field("brokerName", "broker-a");
            for (k, v) in fields {
                cmd = cmd.with_field(k, v);
            }
            let input = if kind == 5 { Input::Closed { conn } } else { Input::Received { conn, cmd } };
            controller.handle(Instant::from_millis(now), input);
            while controller.poll_output().is_some() {}
        }
        let mut replayed = ReplicasInfo::default();
        let mut epochs = Vec::new();
        for (_, entry) in controller.log().entries() {
            for event in decode_entry(entry).unwrap() {
                replayed.apply(&event);
                if let (Event::ElectMaster { broker_name, .. }, Some(sync)) = (&event, replayed.sync.get(event.broker_name())) {
                    epochs.push((broker_name.clone(), sync.master_epoch));
                }
            }
        }
        prop_assert_eq!(&replayed, controller.tables());
        for pair in epochs.windows(2) {
            if pair[0].0 == pair[1].0 && pair[1].1 != 1 {
                prop_assert!(pair[1].1 > pair[0].1, "{:?}", pair);
            }
        }
        let restarted = Controller::new(ControllerConfig::default(), controller.log().restarted(), Instant::from_millis(now));
        prop_assert_eq!(restarted.tables(), controller.tables());
        controller.snapshot();
        prop_assert!(controller.log().entries().is_empty(), "the snapshot holds them all");
        let from_snapshot = Controller::new(ControllerConfig::default(), controller.log().restarted(), Instant::from_millis(now));
        prop_assert_eq!(from_snapshot.tables(), controller.tables());
    }
}
