//! Java's quirks Q1–Q15 (the table in the crate docs): each kept one shown here.

use nameserver_controller::{
    Controller, ControllerConfig, Input, Leadership, LogIndex, MemoryLog, NotLeader, Output, ReplicatedLog, Snapshot,
};
use nameserver_core::ConnId;
use nameserver_core::Instant;

use crate::common::{CLUSTER, Rig, request, two_replicas};

#[test]
fn q1_an_out_of_order_id_makes_1012_offer_one_that_1013_refuses() {
    let mut rig = Rig::new();
    let apply = |rig: &mut Rig, id: &str, code: &str| {
        rig.call_code(
            1,
            1013,
            &[
                ("clusterName", CLUSTER),
                ("brokerName", "broker-a"),
                ("appliedBrokerId", id),
                ("registerCheckCode", code),
            ],
        )
        .code
    };
    assert_eq!(apply(&mut rig, "1", "a:1;1"), 0);
    assert_eq!(apply(&mut rig, "3", "c:1;1"), 0, "any unused id");
    let next = rig.call_code(1, 1012, &[("clusterName", CLUSTER), ("brokerName", "broker-a")]);
    assert_eq!(next.field("nextBrokerId"), Some("3"), "1 + two ids added");
    assert_eq!(apply(&mut rig, "3", "d:1;2"), 2014, "and that id is taken");
}

#[test]
fn q2_the_first_election_takes_the_requester_unchecked() {
    let mut rig = Rig::new();
    assert_eq!(rig.join(1, "broker-a"), 1);
    let unknown = rig.call_code(
        9,
        1002,
        &[("clusterName", CLUSTER), ("brokerName", "broker-a"), ("brokerId", "7"), ("designateElect", "true")],
    );
    assert_eq!((unknown.code, unknown.field("masterBrokerId")), (0, Some("7")), "no heartbeat, not registered");
    assert_eq!(unknown.field("masterAddress"), None, "no address for it");
    assert_eq!(rig.group("broker-a"), (Some(7), 1, 1, vec![7]));
}

#[test]
fn q3_a_master_death_with_nobody_electable_raises_the_master_epoch_by_three() {
    let mut rig = Rig::new();
    assert_eq!(rig.join(1, "broker-a"), 1);
    rig.heartbeat(1, "broker-a", 1, 0, 0);
    assert_eq!(rig.elect(1, "broker-a", 1).code, 0);
    rig.handle(Input::Closed { conn: ConnId(1) });
    assert_eq!(rig.group("broker-a"), (None, 4, 1, vec![1]));
    assert_eq!(rig.controller.log().entries().len(), 2 + 3, "apply, elect, three failed elections");
}

#[test]
fn q4_an_equal_set_is_refused_before_the_master_is_checked() {
    let mut rig = two_replicas(ControllerConfig::default());
    let cmd = request(1001, &[("brokerName", "broker-a"), ("masterBrokerId", "2"), ("masterEpoch", "0")])
        .with_body(br#"{"syncStateSet":[2,1],"syncStateSetEpoch":0}"#.to_vec());
    assert_eq!(rig.call(2, cmd).code, 2013);
}

#[test]
fn q5_1004_names_a_dead_master_1003_only_a_live_one() {
    let mut rig = two_replicas(ControllerConfig::default());
    rig.now = 10_001;
    let info = rig.call_code(2, 1004, &[("brokerName", "broker-a")]);
    assert_eq!(info.field("masterBrokerId"), Some("1"));
    let register = rig.call_code(
        2,
        1003,
        &[("clusterName", CLUSTER), ("brokerName", "broker-a"), ("brokerId", "2"), ("brokerAddress", "10.0.0.2:30911")],
    );
    assert_eq!((register.code, register.field("masterBrokerId")), (0, None));
}

#[test]
fn q6_registration_does_not_check_the_register_code() {
    let mut rig = two_replicas(ControllerConfig::default());
    // Anyone naming replica 2 registers as it, from any address.
    let impostor = rig.call_code(
        9,
        1003,
        &[("clusterName", CLUSTER), ("brokerName", "broker-a"), ("brokerId", "2"), ("brokerAddress", "6.6.6.6:1")],
    );
    assert_eq!(impostor.code, 0);
}

#[test]
fn q7_cleaning_without_a_cluster_sees_every_broker_dead_and_keeps_the_master() {
    let mut rig = two_replicas(ControllerConfig::default());
    let cleaned = rig.call_code(1, 1011, &[("brokerName", "broker-a"), ("brokerControllerIdsToClean", "1")]);
    assert_eq!(cleaned.code, 0, "replica 1 heartbeats, but not under a null cluster");
    assert_eq!(rig.group("broker-a"), (Some(1), 1, 2, vec![2]), "master kept, epochs unchanged");
    let living = rig.call_code(
        1,
        1011,
        &[("brokerName", "broker-a"), ("brokerControllerIdsToClean", "2"), ("isCleanLivingBroker", "true")],
    );
    assert_eq!(living.code, 0);
    assert!(rig.controller.tables().sync.is_empty(), "the ids ignored, the group wiped");
}

#[test]
fn q8_heartbeat_figures_only_rise_and_the_first_address_stays() {
    let mut rig = Rig::new();
    rig.heartbeat(1, "broker-a", 1, 3, 500);
    rig.heartbeat(1, "broker-a", 1, 2, 900);
    rig.heartbeat(1, "broker-a", 1, 3, 100);
    let (_, info) = rig.controller.liveness().iter().next().unwrap();
    assert_eq!((info.epoch, info.max_offset), (3, 500));
    let mut moved = request(
        904,
        &[("clusterName", CLUSTER), ("brokerName", "broker-a"), ("brokerId", "1"), ("brokerAddr", "9.9.9.9:1")],
    );
    moved.flag = nameserver_core::protocol::FLAG_ONEWAY;
    rig.handle(Input::Received { conn: ConnId(2), cmd: moved });
    let (_, info) = rig.controller.liveness().iter().next().unwrap();
    assert_eq!((info.addr.as_ref().unwrap().as_str(), info.conn), ("10.0.0.1:30911", ConnId(1)));
}

#[test]
fn q9_offsets_compare_by_their_low_32_bits() {
    use nameserver_controller::elect::java_compare;
    use nameserver_controller::liveness::LiveInfo;
    let info = |max_offset: i64, election_priority: i32| LiveInfo {
        addr: None,
        conn: ConnId(0),
        last: nameserver_core::Instant::ZERO,
        timeout_millis: 10_000,
        epoch: 1,
        max_offset,
        confirm_offset: 0,
        election_priority,
    };
    assert!(java_compare(&info(1 << 32, 0), &info(0, 0)) == 0, "4 GiB apart compares equal: the first kept");
    assert!(java_compare(&info(10, 0), &info(5, 0)) < 0, "more offset first");
    assert!(java_compare(&info(5, i32::MIN), &info(5, 1)) > 0, "the priority difference overflows");
}

#[test]
fn q10_garbled_fields_take_defaults_and_a_null_dereference_is_a_system_error() {
    let mut rig = two_replicas(ControllerConfig::default());
    let garbled =
        rig.call_code(1, 1001, &[("brokerName", "broker-a"), ("masterBrokerId", "1"), ("masterEpoch", "one")]);
    assert_eq!(garbled.code, 1);
    assert!(garbled.remark.unwrap().starts_with("java.lang.NullPointerException"));
    assert_eq!(garbled.ext_fields, None);
}

#[test]
fn q11_1006_without_names_is_not_set_any_response_code() {
    let mut rig = Rig::new();
    for body in [&b""[..], b"[]", b"{"] {
        let reply = rig.call(1, request(1006, &[]).with_body(body.to_vec()));
        assert_eq!((reply.code, reply.remark.as_deref()), (1, Some("not set any response code")));
    }
}

#[test]
fn q12_1005_reports_the_logs_view_of_leadership() {
    let mut rig = Rig::new();
    assert_eq!(rig.call_code(1, 1005, &[]).field("isLeader"), Some("true"));
}

/// A log that commits only when told, and leads while told.
struct HeldLog {
    inner: MemoryLog,
    held: Vec<(LogIndex, Vec<u8>)>,
}

impl ReplicatedLog for HeldLog {
    fn leadership(&self) -> Leadership {
        self.inner.leadership()
    }
    fn append(&mut self, entry: Vec<u8>) -> Result<LogIndex, NotLeader> {
        let index = self.inner.append(entry)?;
        // Taken back at once, held until `commit`.
        let committed = self.inner.poll_committed().expect("MemoryLog commits at once");
        self.held.push(committed);
        Ok(index)
    }
    fn poll_committed(&mut self) -> Option<(LogIndex, Vec<u8>)> {
        None
    }
    fn snapshot(&self) -> Option<Snapshot> {
        None
    }
    fn compact(&mut self, _: Snapshot) {}
}

#[test]
fn q13_differs_an_in_flight_and_a_queued_request_get_not_leader_at_a_step_down() {
    let log = HeldLog { inner: MemoryLog::new("n0"), held: Vec::new() };
    let mut controller = Controller::new(ControllerConfig::default(), log, Instant::ZERO);
    let apply = |conn: u64, opaque: i32| {
        let mut cmd = request(
            1013,
            &[
                ("clusterName", CLUSTER),
                ("brokerName", "broker-a"),
                ("appliedBrokerId", "1"),
                ("registerCheckCode", "a:1;1"),
            ],
        );
        cmd.opaque = opaque;
        Input::Received { conn: ConnId(conn), cmd }
    };
    controller.handle(Instant::ZERO, apply(1, 11));
    controller.handle(Instant::ZERO, apply(2, 12));
    assert_eq!(controller.poll_output(), None, "the first waits for its commit, the second behind it");
    assert_eq!(controller.log().held.len(), 1, "one write in flight");
    controller.log_mut().inner.set_leading(false);
    controller.handle(Instant::ZERO, Input::LogProgress);
    let refused: Vec<Output> = std::iter::from_fn(|| controller.poll_output()).collect();
    assert_eq!(refused.len(), 2);
    for (output, (conn, opaque)) in refused.iter().zip([(1, 11), (2, 12)]) {
        let Output::Send { conn: c, cmd } = output else { panic!("{output:?}") };
        assert_eq!((*c, cmd.opaque, cmd.code), (ConnId(conn), opaque, 2007));
        assert_eq!((cmd.ext_fields.as_ref(), cmd.body.is_empty()), (None, true), "no header, no body");
    }
}

#[test]
fn q14_1010_uses_field_names() {
    let mut rig = Rig::new();
    let text = String::from_utf8(rig.call_code(1, 1010, &[]).body).unwrap();
    assert!(text.contains("isProcessReadEvent=false\n"));
    assert!(!text.contains("jraftConfig"));
}

#[test]
fn q15_a_follower_drops_the_death_of_a_master_and_the_leaders_scan_recovers() {
    let mut rig = two_replicas(ControllerConfig::default());
    rig.controller.log_mut().set_leading(false);
    rig.handle(Input::LogProgress);
    let closed = rig.handle(Input::Closed { conn: ConnId(1) });
    assert!(closed.is_empty());
    assert_eq!(rig.group("broker-a").0, Some(1), "no election by a follower");
    rig.controller.log_mut().set_leading(true);
    rig.handle(Input::LogProgress);
    rig.heartbeat(2, "broker-a", 2, 1, 100);
    let scan = rig.controller.poll_timeout().unwrap().as_millis();
    assert_eq!(scan, 2_000, "the heartbeat scan first");
    rig.at(2_000);
    assert_eq!(rig.group("broker-a").0, Some(1));
    let outputs = rig.at(5_000);
    assert_eq!(rig.group("broker-a").0, Some(2), "the master scan 5 s after leadership");
    assert!(outputs.iter().any(|o| matches!(o, Output::Notify { addr, .. } if addr.as_str() == "10.0.0.2:30911")));
}
