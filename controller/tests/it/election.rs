//! The election policy, case by case, in Java's order: the old master if it may stay, the
//! designated replica, else the best heartbeat (epoch, then max offset, then priority, then
//! the lowest id); the sync-state set first, every replica only with unclean elections.

use nameserver_controller::{Controller, ControllerConfig, Input};
use nameserver_core::protocol::FLAG_ONEWAY;
use nameserver_core::{ConnId, Instant};

use crate::common::{CLUSTER, Rig, request};

/// Four replicas of `broker-a`, replica 1 master, all four in the set, each replica's last
/// heartbeat `(epoch, max offset, priority)` as given (the master's first), sent after the
/// first election; an epoch above the master epoch, 1, would elect again above it.
fn four(config: ControllerConfig, beats: [(i32, i64, i32); 4]) -> Rig {
    let mut rig = Rig::with(config);
    for conn in 1..=4 {
        assert_eq!(rig.join(conn, "broker-a"), i64::try_from(conn).unwrap());
        beat(&mut rig, conn, 0, 0, 0);
    }
    assert_eq!(rig.elect(1, "broker-a", 1).code, 0);
    let body = br#"{"syncStateSet":[1,2,3,4],"syncStateSetEpoch":1}"#.to_vec();
    let all =
        request(1001, &[("brokerName", "broker-a"), ("masterBrokerId", "1"), ("masterEpoch", "1")]).with_body(body);
    assert_eq!(rig.call(1, all).code, 0);
    for (conn, (epoch, offset, priority)) in (1..=4).zip(beats) {
        beat(&mut rig, conn, epoch, offset, priority);
    }
    rig.notified();
    rig
}

fn beat(rig: &mut Rig, conn: u64, epoch: i32, offset: i64, priority: i32) {
    let (id, epoch, offset, priority) = (conn.to_string(), epoch.to_string(), offset.to_string(), priority.to_string());
    let mut cmd = request(
        904,
        &[
            ("clusterName", CLUSTER),
            ("brokerName", "broker-a"),
            ("brokerAddr", &format!("10.0.0.{conn}:30911")),
            ("brokerId", &id),
            ("epoch", &epoch),
            ("maxOffset", &offset),
            ("electionPriority", &priority),
        ],
    );
    cmd.flag = FLAG_ONEWAY;
    let outputs = rig.handle(Input::Received { conn: ConnId(conn), cmd });
    rig.others.extend(outputs);
}

/// The master's connection closes; returns the new master.
fn kill_master(rig: &mut Rig) -> Option<i64> {
    kill_master_on(rig, 1)
}

/// The connection `conn` closes; returns the group's master then.
fn kill_master_on(rig: &mut Rig, conn: u64) -> Option<i64> {
    let outputs = rig.handle(Input::Closed { conn: ConnId(conn) });
    rig.others.extend(outputs);
    rig.group("broker-a").0
}

#[test]
fn the_highest_epoch_wins() {
    let mut rig = four(ControllerConfig::default(), [(1, 0, 0), (0, 900, 0), (1, 10, 9), (0, 999, 0)]);
    assert_eq!(kill_master(&mut rig), Some(3));
    assert_eq!(rig.group("broker-a"), (Some(3), 2, 3, vec![3]), "both epochs rise, the set is the master");
}

/// A migration from another controller: this one starts empty, the brokers hold master epoch
/// 2 in their epoch files and report it in their heartbeats. The first election gives 3, not
/// 1, and the next one 4; otherwise their HA refuses the role (PROTOCOL.md §20.4).
#[test]
fn a_new_master_epoch_goes_above_the_epochs_live_replicas_hold() {
    let mut rig = Rig::new();
    assert_eq!(rig.join(1, "broker-a"), 1);
    assert_eq!(rig.join(2, "broker-a"), 2);
    beat(&mut rig, 2, 2, 500, 0);
    let first = rig.elect(2, "broker-a", 2);
    assert_eq!((first.code, first.field("masterEpoch")), (0, Some("3")), "{first:?}");
    assert_eq!(rig.group("broker-a"), (Some(2), 3, 1, vec![2]));
    assert_eq!(rig.notified(), [(String::from("10.0.0.2:30911"), String::from("2"), String::from("3"))]);
    beat(&mut rig, 1, 2, 400, 0);
    let grown = request(1001, &[("brokerName", "broker-a"), ("masterBrokerId", "2"), ("masterEpoch", "3")])
        .with_body(br#"{"syncStateSet":[1,2],"syncStateSetEpoch":1}"#.to_vec());
    assert_eq!(rig.call(2, grown).code, 0, "the master's fence is the raised epoch");
    beat(&mut rig, 1, 3, 500, 0);
    assert_eq!(kill_master_on(&mut rig, 2), Some(1));
    assert_eq!(rig.group("broker-a").1, 4, "an epoch held that this controller gave raises nothing");
    // The log replays to the same tables.
    let replayed = Controller::new(ControllerConfig::default(), rig.controller.log().restarted(), Instant::ZERO);
    assert_eq!(replayed.tables(), rig.controller.tables());
}

/// Java's broker sends its first heartbeat from an executor, so its first election request
/// may come first: the master elected at 1 then reports epoch 2, and is elected again at 3.
#[test]
fn a_later_epoch_reported_after_the_election_elects_the_master_again() {
    let mut rig = Rig::new();
    assert_eq!(rig.join(1, "broker-a"), 1);
    assert_eq!(rig.join(2, "broker-a"), 2);
    assert_eq!(rig.elect(2, "broker-a", 2).field("masterEpoch"), Some("1"));
    rig.notified();
    beat(&mut rig, 2, 2, 500, 0);
    assert_eq!(rig.group("broker-a"), (Some(2), 3, 2, vec![2]), "the same master, above epoch 2");
    assert_eq!(rig.notified(), [(String::from("10.0.0.2:30911"), String::from("2"), String::from("3"))]);
    beat(&mut rig, 2, 3, 600, 0);
    assert_eq!(rig.group("broker-a").1, 3, "its own epoch now: no more elections");
}

#[test]
fn then_the_highest_offset() {
    let mut rig = four(ControllerConfig::default(), [(1, 0, 0), (1, 10, 0), (1, 30, 9), (1, 20, 0)]);
    assert_eq!(kill_master(&mut rig), Some(3));
}

#[test]
fn then_the_lowest_priority_then_the_lowest_id() {
    let mut rig = four(ControllerConfig::default(), [(1, 0, 0), (1, 10, 7), (1, 10, 3), (1, 10, 3)]);
    assert_eq!(kill_master(&mut rig), Some(3), "priority 3 beats 7; replica 3 beats its equal 4");
}

#[test]
fn the_new_master_and_the_live_members_are_notified() {
    let mut rig = four(ControllerConfig::default(), [(1, 0, 0), (1, 10, 0), (1, 5, 0), (1, 1, 0)]);
    rig.now = 1_000;
    rig.handle(Input::Closed { conn: ConnId(4) });
    assert_eq!(kill_master(&mut rig), Some(2));
    let sent: Vec<(String, String, String)> = rig.notified();
    let to: Vec<&str> = sent.iter().map(|(addr, _, _)| addr.as_str()).collect();
    assert_eq!(to, ["10.0.0.2:30911", "10.0.0.3:30911"], "not the dead master, not the closed replica 4");
    assert!(sent.iter().all(|(_, master, epoch)| master == "2" && epoch == "2"));
}

#[test]
fn no_notification_when_switched_off() {
    let mut config = ControllerConfig::default();
    config.set("notifyBrokerRoleChanged", "false");
    let mut rig = four(config, [(1, 0, 0), (1, 10, 0), (1, 5, 0), (1, 1, 0)]);
    assert_eq!(kill_master(&mut rig), Some(2));
    assert!(rig.notified().is_empty());
}

#[test]
fn an_admin_designates_a_live_member_of_the_set_only() {
    let mut rig = four(ControllerConfig::default(), [(1, 0, 0), (1, 10, 0), (1, 5, 0), (1, 1, 0)]);
    let admin = |rig: &mut Rig, id: &str| {
        rig.call_code(
            9,
            1002,
            &[("clusterName", CLUSTER), ("brokerName", "broker-a"), ("brokerId", id), ("designateElect", "true")],
        )
    };
    assert_eq!(admin(&mut rig, "1").code, 2011, "the live master designated stays");
    let moved = admin(&mut rig, "4");
    assert_eq!((moved.code, moved.field("masterBrokerId")), (0, Some("4")), "the worst heartbeat, but designated");
    assert_eq!(admin(&mut rig, "9").code, 2012, "not in the set {{4}}");
    let regrown = request(1001, &[("brokerName", "broker-a"), ("masterBrokerId", "4"), ("masterEpoch", "2")])
        .with_body(br#"{"syncStateSet":[2,3,4],"syncStateSetEpoch":3}"#.to_vec());
    assert_eq!(rig.call(4, regrown).code, 0);
    rig.handle(Input::Closed { conn: ConnId(3) });
    assert_eq!(admin(&mut rig, "3").code, 2012, "3 is gone");
    assert_eq!(admin(&mut rig, "2").code, 0);
}

#[test]
fn a_live_master_stays_when_a_broker_asks() {
    let mut rig = four(ControllerConfig::default(), [(1, 0, 0), (9, 99, 0), (1, 5, 0), (1, 1, 0)]);
    let kept = rig.elect(2, "broker-a", 2);
    assert_eq!((kept.code, kept.field("masterBrokerId")), (2011, Some("1")), "epoch 9 does not unseat it");
}

#[test]
fn unclean_elections_reach_outside_the_set_only_when_enabled() {
    for unclean in [false, true] {
        let mut config = ControllerConfig::default();
        config.set("enableElectUncleanMaster", &unclean.to_string());
        let mut rig = four(config, [(1, 0, 0), (1, 10, 0), (1, 5, 0), (1, 1, 0)]);
        // Only the master left in the set, then replicas 2 and 3 go.
        let shrink = request(1001, &[("brokerName", "broker-a"), ("masterBrokerId", "1"), ("masterEpoch", "1")])
            .with_body(br#"{"syncStateSet":[1],"syncStateSetEpoch":2}"#.to_vec());
        assert_eq!(rig.call(1, shrink).code, 0);
        rig.handle(Input::Closed { conn: ConnId(2) });
        rig.handle(Input::Closed { conn: ConnId(3) });
        let master = kill_master(&mut rig);
        if unclean {
            assert_eq!(master, Some(4), "the one replica alive, outside the set");
        } else {
            assert_eq!(rig.group("broker-a"), (None, 4, 3, vec![1]), "three failed attempts (Q3)");
        }
    }
}

#[test]
fn the_daemons_test_switch_replaces_no_master() {
    let config = ControllerConfig { replace_masters: false, ..ControllerConfig::default() };
    let mut rig = four(config, [(1, 0, 0), (1, 10, 0), (1, 5, 0), (1, 1, 0)]);
    assert_eq!(kill_master(&mut rig), None, "the dead master is not replaced by the in-sync 2");
    assert_eq!(rig.elect(2, "broker-a", 2).code, 2012, "nor at a broker's request");
}
