//! Quirk Q16's hardening: a heartbeat's epoch raises elections only when a registered replica
//! reports it from its registered address, once per registration (`followed.rs`), so spoofed
//! or ever-rising heartbeats cannot force election after election.

use nameserver_controller::{Input, Output};
use nameserver_core::ConnId;
use nameserver_core::protocol::FLAG_ONEWAY;
use proptest::prelude::*;

use crate::common::{CLUSTER, Rig, request};

/// A oneway 904 for `broker-a`'s replica `id`, as `(cluster, address)` claim it.
fn beat_as(rig: &mut Rig, conn: u64, cluster: &str, addr: &str, id: i64, epoch: i32) {
    let (id, epoch) = (id.to_string(), epoch.to_string());
    let mut cmd = request(
        904,
        &[
            ("clusterName", cluster),
            ("brokerName", "broker-a"),
            ("brokerAddr", addr),
            ("brokerId", &id),
            ("epoch", &epoch),
            ("maxOffset", "100"),
        ],
    );
    cmd.flag = FLAG_ONEWAY;
    let outputs = rig.handle(Input::Received { conn: ConnId(conn), cmd });
    rig.others.extend(outputs);
}

/// Replica `id`'s heartbeat as it really sends it (join registered it from 10.0.0.<id>).
fn beat(rig: &mut Rig, id: i64, epoch: i32) {
    beat_as(rig, u64::try_from(id).unwrap(), CLUSTER, &format!("10.0.0.{id}:30911"), id, epoch);
}

/// A broker's restart: its 1003 again, from its address.
fn register_again(rig: &mut Rig, id: i64) {
    let (addr, id) = (format!("10.0.0.{id}:30911"), id.to_string());
    let conn = id.parse().unwrap();
    let fields =
        [("clusterName", CLUSTER), ("brokerName", "broker-a"), ("brokerId", id.as_str()), ("brokerAddress", &addr)];
    assert_eq!(rig.call_code(conn, 1003, &fields).code, 0);
}

/// Two replicas registered, replica 2 elected first (master epoch 1) and heartbeating at its
/// new epoch; replica 1, as after a move from another controller, not yet heard from.
fn migrated() -> Rig {
    let mut rig = Rig::new();
    assert_eq!(rig.join(1, "broker-a"), 1);
    assert_eq!(rig.join(2, "broker-a"), 2);
    assert_eq!(rig.elect(2, "broker-a", 2).field("masterEpoch"), Some("1"));
    beat(&mut rig, 2, 1);
    rig.notified();
    rig
}

/// The elections committed so far (each raises the set epoch; heartbeats never do).
fn elections(rig: &Rig) -> i32 {
    rig.group("broker-a").2
}

#[test]
fn a_migrated_replica_reporting_its_real_epoch_is_elected_again_above_it() {
    let mut rig = migrated();
    beat(&mut rig, 1, 4);
    assert_eq!(rig.group("broker-a"), (Some(2), 5, 2, vec![2]), "the master stays, above the slave's epoch 4");
    assert_eq!(rig.notified().len(), 2, "both replicas told");
}

#[test]
fn heartbeats_from_a_replica_nobody_registered_raise_nothing() {
    let mut rig = migrated();
    beat_as(&mut rig, 7, CLUSTER, "10.6.6.6:30911", 2, 50);
    beat_as(&mut rig, 7, CLUSTER, "10.6.6.6:30911", 1, 51);
    beat_as(&mut rig, 7, CLUSTER, "10.0.0.9:30911", 9, 52);
    beat_as(&mut rig, 7, "OtherCluster", "10.0.0.1:30911", 1, 53);
    beat_as(&mut rig, 7, CLUSTER, "", 1, 54);
    assert_eq!(rig.group("broker-a"), (Some(2), 1, 1, vec![2]), "no election");
    assert!(rig.notified().is_empty());
}

#[test]
fn nor_do_they_raise_the_next_election() {
    let mut rig = migrated();
    beat(&mut rig, 1, 0);
    let grown = request(1001, &[("brokerName", "broker-a"), ("masterBrokerId", "2"), ("masterEpoch", "1")])
        .with_body(br#"{"syncStateSet":[1,2],"syncStateSetEpoch":1}"#.to_vec());
    assert_eq!(rig.call(2, grown).code, 0);
    beat_as(&mut rig, 7, CLUSTER, "10.6.6.6:30911", 1, 50);
    beat_as(&mut rig, 7, CLUSTER, "10.0.0.9:30911", 9, 52);
    rig.handle(Input::Closed { conn: ConnId(2) });
    assert_eq!(rig.group("broker-a"), (Some(1), 2, 3, vec![1]), "the master dies: replica 1 at epoch 2, not 51");
}

#[test]
fn ever_rising_epochs_from_one_replica_elect_again_once() {
    let mut rig = migrated();
    for epoch in 4..40 {
        beat(&mut rig, 1, epoch);
    }
    assert_eq!(rig.group("broker-a"), (Some(2), 5, 2, vec![2]), "once, above the first epoch reported");
    for epoch in [6, 100, 1_000_000] {
        beat(&mut rig, 2, epoch);
    }
    assert_eq!(rig.group("broker-a"), (Some(2), 7, 3, vec![2]), "the master's own first report, once");
}

#[test]
fn a_new_registration_may_be_followed_once_more() {
    let mut rig = migrated();
    beat(&mut rig, 1, 4);
    beat(&mut rig, 1, 8);
    assert_eq!(rig.group("broker-a").1, 5);
    register_again(&mut rig, 1);
    beat(&mut rig, 1, 8);
    beat(&mut rig, 1, 9);
    assert_eq!(rig.group("broker-a").1, 9, "the restarted broker's first report only");
}

/// What a raw heartbeat can be: replica 1 or 2 from its own or another address, or an id
/// nobody registered; each with an epoch that may be far above the group's.
#[derive(Clone, Debug)]
struct Spoof {
    id: i64,
    own_addr: bool,
    epoch: i32,
}

fn spoof() -> impl Strategy<Value = Spoof> {
    (prop_oneof![Just(1_i64), Just(2), Just(9)], any::<bool>(), 0..2_000_i32).prop_map(|(id, own_addr, epoch)| Spoof {
        id,
        own_addr,
        epoch,
    })
}

proptest! {
    #[test]
    fn heartbeats_alone_elect_again_at_most_once_per_registered_replica(beats in prop::collection::vec(spoof(), 1..60)) {
        let mut rig = migrated();
        for (i, b) in beats.iter().enumerate() {
            let addr = if b.own_addr { format!("10.0.0.{}:30911", b.id) } else { String::from("10.6.6.6:30911") };
            beat_as(&mut rig, 10 + u64::try_from(i % 3).unwrap(), CLUSTER, &addr, b.id, b.epoch);
        }
        // One election per registered replica reporting from its own address at most.
        let honest = [1_i64, 2].iter().filter(|id| beats.iter().any(|b| b.id == **id && b.own_addr)).count();
        let again = elections(&rig) - 1;
        prop_assert!(usize::try_from(again).unwrap() <= honest, "{again} elections from {beats:?}");
        prop_assert_eq!(rig.group("broker-a").0, Some(2), "the master stays");
        let others = rig.others.iter().filter(|o| !matches!(o, Output::Notify { .. })).count();
        prop_assert_eq!(others, 0, "oneway heartbeats: no replies");
    }
}
