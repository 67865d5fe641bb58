//! One test per request code: each answer Java gives, in Java's order of checks.

use nameserver_controller::{ControllerConfig, Output};
use nameserver_core::ConnId;

use crate::common::{CLUSTER, Rig, request, two_replicas};

fn alter(rig: &mut Rig, master: &str, epoch: &str, body: &str) -> nameserver_core::protocol::RemotingCommand {
    let cmd = request(1001, &[("brokerName", "broker-a"), ("masterBrokerId", master), ("masterEpoch", epoch)]);
    rig.call(1, cmd.with_body(body.as_bytes().to_vec()))
}

#[test]
fn heartbeat_904_needs_an_id_and_answers_only_two_way_requests() {
    let mut rig = Rig::new();
    let refused = rig.call_code(1, 904, &[("clusterName", CLUSTER), ("brokerName", "broker-a")]);
    assert_eq!((refused.code, refused.remark.as_deref()), (2005, Some("Heart beat with empty brokerId")));
    let ok = rig.call_code(1, 904, &[("clusterName", CLUSTER), ("brokerName", "broker-a"), ("brokerId", "1")]);
    assert_eq!((ok.code, ok.remark.as_deref(), ok.ext_fields), (0, Some("Heart beat success"), None));
    assert_eq!(ok.opaque, 7);
    rig.heartbeat(2, "broker-a", 2, 0, 0);
    assert_eq!(rig.controller.liveness().iter().count(), 2, "no registration needed");
}

#[test]
fn alter_sync_state_set_1001_checks_in_javas_order() {
    let mut rig = two_replicas(ControllerConfig::default());
    let cases = [
        ("1", "1", r#"{"syncStateSet":[1,2],"syncStateSetEpoch":2}"#, 2013),
        ("2", "1", r#"{"syncStateSet":[2],"syncStateSetEpoch":2}"#, 2002),
        ("1", "0", r#"{"syncStateSet":[1],"syncStateSetEpoch":2}"#, 2000),
        ("1", "1", r#"{"syncStateSet":[1],"syncStateSetEpoch":1}"#, 2001),
        ("1", "1", r#"{"syncStateSet":[1,9],"syncStateSetEpoch":2}"#, 2003),
        ("1", "1", r#"{"syncStateSet":[2],"syncStateSetEpoch":2}"#, 2013),
    ];
    for (master, epoch, body, code) in cases {
        let reply = alter(&mut rig, master, epoch, body);
        assert_eq!(reply.code, code, "{body}: {reply:?}");
        assert_eq!(reply.field("newSyncStateSetEpoch"), Some("0"), "errors carry the header");
    }
    let no_body = rig.call_code(1, 1001, &[("brokerName", "broker-a"), ("masterBrokerId", "1"), ("masterEpoch", "1")]);
    assert_eq!((no_body.code, no_body.ext_fields.is_none()), (1, true));
    let unknown = rig.call_code(1, 1001, &[("brokerName", "broker-x")]);
    assert_eq!((unknown.code, unknown.remark.as_deref()), (2013, Some("Broker metadata is not existed")));
    // Replica 2 silent past its 10 s timeout: it may not join the set.
    rig.now = 10_001;
    rig.heartbeat(1, "broker-a", 1, 1, 200);
    let shrunk = alter(&mut rig, "1", "1", r#"{"syncStateSet":[1],"syncStateSetEpoch":2}"#);
    assert_eq!(shrunk.code, 0);
    assert_eq!(shrunk.field("newSyncStateSetEpoch"), Some("3"));
    assert_eq!(shrunk.body, br#"{"syncStateSet":[1],"syncStateSetEpoch":3}"#);
    let dead = alter(&mut rig, "1", "1", r#"{"syncStateSet":[1,2],"syncStateSetEpoch":3}"#);
    assert_eq!(dead.code, 2006);
}

#[test]
fn elect_master_1002_answers_new_master_old_master_unregistered_and_failed() {
    let mut rig = Rig::new();
    assert_eq!(rig.join(1, "broker-a"), 1);
    assert_eq!(rig.join(2, "broker-a"), 2);
    let unregistered = rig.elect(1, "broker-x", 1);
    assert_eq!((unregistered.code, unregistered.remark.as_deref()), (2010, Some("Broker hasn't been registered")));
    let first = rig.elect(1, "broker-a", 1);
    assert_eq!(first.code, 0);
    assert_eq!(first.field("masterBrokerId"), Some("1"));
    assert_eq!(first.field("masterAddress"), Some("10.0.0.1:30911"));
    assert_eq!((first.field("masterEpoch"), first.field("syncStateSetEpoch")), (Some("1"), Some("1")));
    assert_eq!(
        first.body,
        br#"{"brokerMemberGroup":{"brokerAddrs":{1:"10.0.0.1:30911",2:"10.0.0.2:30911"},"brokerName":"broker-a","cluster":"DefaultCluster"},"syncStateSet":[1]}"#
    );
    rig.heartbeat(1, "broker-a", 1, 1, 10);
    let kept = rig.elect(2, "broker-a", 2);
    assert_eq!((kept.code, kept.field("masterBrokerId"), kept.field("masterEpoch")), (2011, Some("1"), Some("1")));
    assert_eq!(kept.body, br#"{"syncStateSet":[1]}"#);
    // The master silent, nobody else in the set: a broker's request fails and commits nothing;
    // the scan due by then finds the master expired and commits its three attempts (Q3).
    let entries = rig.controller.log().entries().len();
    rig.now = 20_000;
    let failed = rig.elect(2, "broker-a", 2);
    assert_eq!((failed.code, failed.ext_fields.as_ref().map(|f| f.len())), (2012, Some(0)));
    assert_eq!(rig.controller.log().entries().len(), entries + 3);
    assert_eq!(rig.group("broker-a"), (None, 4, 1, vec![1]));
}

#[test]
fn register_broker_1003_names_a_live_master_and_records_a_new_address() {
    let mut rig = two_replicas(ControllerConfig::default());
    let unknown_set =
        rig.call_code(1, 1003, &[("clusterName", CLUSTER), ("brokerName", "broker-x"), ("brokerId", "1")]);
    assert_eq!(unknown_set.code, 2010);
    assert_eq!(unknown_set.field("brokerName"), Some("broker-x"), "errors echo the names");
    let unknown_id = rig.call_code(1, 1003, &[("clusterName", CLUSTER), ("brokerName", "broker-a"), ("brokerId", "5")]);
    assert_eq!(
        (unknown_id.code, unknown_id.remark.as_deref()),
        (2010, Some("BrokerId: 5 hasn't been registered in broker-set: broker-a"))
    );
    let moved = rig.call_code(
        3,
        1003,
        &[("clusterName", CLUSTER), ("brokerName", "broker-a"), ("brokerId", "2"), ("brokerAddress", "10.9.9.9:1")],
    );
    assert_eq!(moved.code, 0);
    assert_eq!((moved.field("masterBrokerId"), moved.field("masterEpoch")), (Some("1"), Some("1")));
    assert_eq!(moved.body, br#"{"syncStateSet":[1,2],"syncStateSetEpoch":2}"#);
    let replicas = &rig.controller.tables().replicas[&crate::common::name("broker-a")];
    assert_eq!(replicas.brokers[&nameserver_core::BrokerId(2)].addr.as_str(), "10.9.9.9:1");
}

#[test]
fn get_replica_info_1004_and_unknown_groups() {
    let mut rig = two_replicas(ControllerConfig::default());
    let info = rig.call_code(1, 1004, &[("brokerName", "broker-a")]);
    assert_eq!(info.code, 0);
    assert_eq!(info.field("masterAddress"), Some("10.0.0.1:30911"));
    assert_eq!((info.field("masterBrokerId"), info.field("masterEpoch")), (Some("1"), Some("1")));
    assert_eq!(info.body, br#"{"syncStateSet":[1,2],"syncStateSetEpoch":2}"#);
    let missing = rig.call_code(1, 1004, &[("brokerName", "broker-x")]);
    assert_eq!((missing.code, missing.remark.as_deref()), (2008, Some("Broker metadata is not existed")));
    let no_name = rig.call_code(1, 1004, &[]);
    assert_eq!(no_name.code, 1);
}

#[test]
fn get_metadata_1005_names_the_leader_and_peers() {
    let mut config = ControllerConfig::default();
    config.set("controllerDLegerGroup", "group1");
    config.set("controllerDLegerPeers", "n0-127.0.0.1:9878;n1-127.0.0.1:9868");
    let mut rig = Rig::with(config);
    let meta = rig.call_code(1, 1005, &[]);
    assert_eq!(meta.code, 0);
    assert_eq!(meta.field("group"), Some("group1"));
    assert_eq!(meta.field("controllerLeaderId"), Some("n0"));
    assert_eq!(meta.field("controllerLeaderAddress"), Some("127.0.0.1:9878"));
    assert_eq!(meta.field("isLeader"), Some("true"));
    assert_eq!(meta.field("peers"), Some("n0:127.0.0.1:9878;n1:127.0.0.1:9868;"));
}

#[test]
fn get_sync_state_data_1006_splits_replicas_by_the_set() {
    let mut rig = two_replicas(ControllerConfig::default());
    rig.now = 10_001;
    rig.heartbeat(1, "broker-a", 1, 1, 200);
    let data = rig.call(1, request(1006, &[]).with_body(br#"["broker-a","broker-x"]"#.to_vec()));
    assert_eq!(data.code, 0);
    assert_eq!(
        String::from_utf8(data.body).unwrap(),
        concat!(
            r#"{"replicasInfoTable":{"broker-a":{"inSyncReplicas":["#,
            r#"{"alive":true,"brokerAddress":"10.0.0.1:30911","brokerId":1,"brokerName":"broker-a"},"#,
            r#"{"alive":false,"brokerAddress":"10.0.0.2:30911","brokerId":2,"brokerName":"broker-a"}],"#,
            r#""masterAddress":"10.0.0.1:30911","masterBrokerId":1,"masterEpoch":1,"notInSyncReplicas":[],"syncStateSetEpoch":2}}}"#
        )
    );
}

#[test]
fn controller_config_1009_and_1010() {
    let mut rig = Rig::new();
    let refused = rig.call(1, request(1009, &[]).with_body(b"configStorePath=/tmp/x\n".to_vec()));
    assert_eq!((refused.code, refused.remark.as_deref()), (16, Some("Can not update config in black list.")));
    let outputs = rig.handle(nameserver_controller::Input::Received {
        conn: ConnId(1),
        cmd: request(1009, &[]).with_body(b"enableElectUncleanMaster=true\n".to_vec()),
    });
    assert!(matches!(&outputs[0], Output::PersistConfig { text } if text.contains("enableElectUncleanMaster=true\n")));
    // Keys listed only (Java's defaults of keys not read here) are not written.
    assert!(matches!(&outputs[0], Output::PersistConfig { text } if !text.contains("controllerType=")));
    assert!(matches!(&outputs[1], Output::Send { cmd, .. } if cmd.code == 0), "the file before the reply");
    assert!(rig.controller.config().enable_elect_unclean_master);
    assert_eq!(rig.call(1, request(1009, &[])).code, 0, "no body: nothing to do");
    let listed = rig.call_code(1, 1010, &[]);
    let text = String::from_utf8(listed.body).unwrap();
    assert!(text.contains("enableElectUncleanMaster=true\n") && text.contains("isProcessReadEvent=false\n"), "{text}");
    assert!(text.contains("controllerType=DLedger\n") && text.contains("mappedFileSize=1073741824\n"), "{text}");
}

#[test]
fn clean_broker_data_1011() {
    let mut rig = two_replicas(ControllerConfig::default());
    let clean = |rig: &mut Rig, fields: &[(&str, &str)]| rig.call_code(1, 1011, fields).code;
    assert_eq!(clean(&mut rig, &[("clusterName", CLUSTER), ("brokerName", "broker-a")]), 2009, "master recorded");
    let alive = [("clusterName", CLUSTER), ("brokerName", "broker-a"), ("brokerControllerIdsToClean", "2")];
    assert_eq!(clean(&mut rig, &alive), 2009, "replica 2 is alive");
    let garbled = [("clusterName", CLUSTER), ("brokerName", "broker-a"), ("brokerControllerIdsToClean", "2;x")];
    assert_eq!(clean(&mut rig, &garbled), 2009);
    assert_eq!(clean(&mut rig, &[("brokerName", "broker-x"), ("isCleanLivingBroker", "true")]), 2009);
    rig.now = 10_001;
    rig.heartbeat(1, "broker-a", 1, 1, 200);
    assert_eq!(clean(&mut rig, &alive), 0, "silent now");
    assert_eq!(rig.group("broker-a"), (Some(1), 1, 2, vec![1]), "no epoch moves");
    assert_eq!(clean(&mut rig, &[("brokerName", "broker-a"), ("isCleanLivingBroker", "true")]), 0);
    assert!(rig.controller.tables().replicas.is_empty() && rig.controller.tables().sync.is_empty());
}

#[test]
fn next_and_apply_broker_id_1012_1013() {
    let mut rig = Rig::new();
    let fields = |id: &'static str, code: &'static str| {
        [("clusterName", CLUSTER), ("brokerName", "broker-a"), ("appliedBrokerId", id), ("registerCheckCode", code)]
    };
    let wrong_first = rig.call_code(1, 1013, &fields("2", "a:1;5"));
    assert_eq!(
        (wrong_first.code, wrong_first.remark.as_deref()),
        (2014, Some("Broker-set: broker-a hasn't been registered in controller, but broker try to apply brokerId: 2"))
    );
    assert_eq!(wrong_first.field("brokerName"), Some("broker-a"));
    assert_eq!(rig.call_code(1, 1013, &fields("1", "a:1;5")).code, 0);
    assert_eq!(rig.call_code(1, 1013, &fields("1", "a:1;5")).code, 0, "a retry with the same code");
    let taken = rig.call_code(2, 1013, &fields("1", "b:1;6"));
    assert_eq!(
        (taken.code, taken.remark.as_deref()),
        (2014, Some("Fail to apply brokerId: 1 in broker-set: broker-a"))
    );
    let next = rig.call_code(2, 1012, &[("clusterName", CLUSTER), ("brokerName", "broker-a")]);
    assert_eq!((next.field("nextBrokerId"), next.field("clusterName")), (Some("2"), Some(CLUSTER)));
    assert_eq!(rig.call_code(2, 1013, &[("brokerName", "broker-a"), ("appliedBrokerId", "2")]).code, 1, "no code");
    assert_eq!(
        rig.controller
            .tables()
            .address(&crate::common::name("broker-a"), nameserver_core::BrokerId(1))
            .unwrap()
            .as_str(),
        "a:1"
    );
}

#[test]
fn unknown_codes_and_a_follower() {
    let mut rig = Rig::new();
    let unknown = rig.call_code(1, 1007, &[]);
    assert_eq!((unknown.code, unknown.remark.as_deref()), (3, Some(" request type 1007 not supported")));
    rig.controller.log_mut().set_leading(false);
    rig.handle(nameserver_controller::Input::LogProgress);
    for code in [1001, 1002, 1003, 1004, 1006, 1011, 1012, 1013] {
        let refused = rig.call_code(1, code, &[("brokerName", "broker-a")]);
        assert_eq!((refused.code, refused.remark.as_deref()), (2007, Some("The controller is not in leader state")));
        assert_eq!(refused.ext_fields, None, "no header");
    }
    assert_eq!(rig.call_code(1, 1005, &[]).field("isLeader"), Some("false"));
    assert_eq!(rig.call_code(1, 904, &[("brokerId", "1")]).code, 0, "any controller takes heartbeats");
}
