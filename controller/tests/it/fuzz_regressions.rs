//! Inputs the `controller` fuzz target in `fuzz/` found, each as a named test. The property
//! each one broke is the target's.

use nameserver_controller::Input;
use nameserver_core::ConnId;

use crate::common::{CLUSTER, Rig, name, request};

/// controller crash-33f7dc64: a command with the response flag (code 1001, flag 1, after two
/// replicas started) was answered like a request. Java hands a response to its table of pending requests and
/// drops one that matches none; no controller processor sees it, so nothing is sent back.
#[test]
fn a_response_frame_gets_no_reply() {
    let mut rig = Rig::new();
    for (code, fields) in [
        (1001, vec![("brokerName", "broker-a"), ("masterBrokerId", "1"), ("masterEpoch", "0")]),
        (1012, vec![("clusterName", CLUSTER), ("brokerName", "broker-a")]),
        (1005, vec![]),
        (904, vec![("clusterName", CLUSTER), ("brokerName", "broker-a"), ("brokerId", "1")]),
        (1014, vec![]),
    ] {
        let mut cmd = request(code, &fields);
        cmd.flag = 1;
        let outputs = rig.handle(Input::Received { conn: ConnId(1), cmd });
        assert!(outputs.is_empty(), "{code}: {outputs:?}");
    }
    assert!(rig.controller.liveness().iter().next().is_none(), "a response is not a heartbeat");
    assert!(rig.controller.log().entries().is_empty(), "nor a write");
}

/// controller crash-c6e33494: the master epoch fell from 1 to 0. Not a bug of ours: the
/// replicas' last id was cleaned (1011) while the set kept the master (an id elected by quirk
/// Q2 that the group never gave out), so the group was no
/// longer in both tables, and the next 1013 started it afresh at epoch 0, as Java 5.5.0's
/// `handleApplyBrokerId` does (the oracle's `controller/quirks:reset-*` cases compare it).
/// The target's property now holds for a group only while both tables have it.
#[test]
fn a_group_whose_last_id_was_cleaned_starts_again_at_epoch_0() {
    let mut rig = Rig::new();
    assert_eq!(rig.join(1, "broker-a"), 1);
    // Q2: the first election takes the requester, even an id the group never gave out.
    assert_eq!(rig.elect(1, "broker-a", 3).code, 0);
    assert_eq!(rig.group("broker-a"), (Some(3), 1, 1, vec![3]));
    // Replica 1 never sent a heartbeat: it may be cleaned without isCleanLivingBroker.
    let clean = [
        ("clusterName", CLUSTER),
        ("brokerName", "broker-a"),
        ("brokerControllerIdsToClean", "1"),
        ("isCleanLivingBroker", "false"),
    ];
    assert_eq!(rig.call_code(0, 1011, &clean).code, 0);
    let tables = rig.controller.tables();
    assert!(!tables.replicas.contains_key(&name("broker-a")) && tables.sync.contains_key(&name("broker-a")));
    assert_eq!(rig.join(2, "broker-a"), 1, "a new group: ids from 1 again");
    assert_eq!(rig.group("broker-a"), (None, 0, 0, vec![]));
}
