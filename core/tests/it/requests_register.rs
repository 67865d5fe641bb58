//! REGISTER_BROKER (103).
//!
//! One NameServer driven through `Input::Received`, request code by request code
//! (PROTOCOL.md §5–§11): codes, remarks in Java's wording, response extFields and bodies byte
//! for byte where PROTOCOL.md gives them.
//!
//! Every test goes through [`Ns::check`], which asserts the reply invariants (exactly one
//! response, on the requesting connection, echoing `opaque`, flag exactly RESPONSE) and hands
//! the reply back.

use crate::common;

use std::collections::BTreeMap;

use nameserver_core::protocol::body::{DataVersion, RegisterBrokerBody, TopicConfig};
use nameserver_core::protocol::{RequestCode, ResponseCode};
use nameserver_core::{BrokerAddr, ConnId, Event, Input, Output};

use common::requests::*;

// ---------------------------------------------------------------------------------------------
// REGISTER_BROKER (103)
// ---------------------------------------------------------------------------------------------

#[test]
fn master_registration_succeeds_with_an_empty_header_and_no_body() {
    let mut ns = Ns::new();
    let reply = ns.register(&Broker::a0());
    assert_ok(&reply);
    assert_eq!(reply.ext_fields, Some(BTreeMap::new()), "a typed (empty) response header");
    assert!(reply.body.is_empty(), "no ORDER_TOPIC_CONFIG namespace, no body");
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"));
    assert!(ns.events().iter().any(|e| matches!(e, Event::BrokerRegistered { broker_id, .. } if broker_id.0 == 0)));
    assert!(ns.events().iter().any(|e| e.to_string().starts_with("new broker registered")), "{:?}", ns.events());
    let route = ns.route("TopicTest");
    assert_eq!(
        text(&route),
        r#"{"brokerDatas":[{"brokerAddrs":{"0":"127.0.0.1:10911"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}"#
    );
    // A re-registration (the 30 s heartbeat) is not "new".
    ns.at(30_000).register(&Broker::a0());
    assert!(!ns.events().iter().any(|e| matches!(e, Event::BrokerRegistered { .. })));
}

#[test]
fn register_reply_carries_the_order_topic_config_namespace() {
    let mut ns = Ns::new();
    ns.ask(
        RequestCode::PutKvConfig,
        &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", "TopicOrder"), ("value", "broker-a:4;broker-b:4")],
    );
    let reply = ns.register(&Broker::a0());
    assert_ok(&reply);
    assert_eq!(text(&reply), r#"{"table":{"TopicOrder":"broker-a:4;broker-b:4"}}"#);
    // Emptied namespace: an empty table, still a body.
    ns.ask(RequestCode::DeleteKvConfig, &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", "TopicOrder")]);
    assert_eq!(text(&ns.register(&Broker::a0())), r#"{"table":{}}"#);

    let mut off = Ns::with(|c| c.return_order_topic_config_to_broker = false);
    off.ask(RequestCode::PutKvConfig, &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", "T"), ("value", "broker-a:4")]);
    assert!(off.register(&Broker::a0()).body.is_empty());
}

#[test]
fn slave_gets_master_addresses_only_while_the_master_is_live() {
    let mut ns = Ns::new();
    // No master yet: nothing.
    let reply = ns.register(&Broker::a1());
    assert_ok(&reply);
    assert_eq!(reply.ext_fields, Some(BTreeMap::new()));
    // Master registers: a master never gets master fields.
    assert_eq!(fields(&ns.register(&Broker::a0())), []);
    // Now the slave learns the master's address and HA address.
    let reply = ns.register(&Broker::a1());
    assert_eq!(fields(&reply), [("haServerAddr", "127.0.0.1:10912"), ("masterAddr", "127.0.0.1:10911")]);
    // Both members are in the route, the master under 0.
    let route = ns.parsed_route("TopicTest").unwrap();
    assert_eq!(route.broker_datas.len(), 1);
    let addrs: Vec<(i64, &str)> = route.broker_datas[0].broker_addrs.iter().map(|(k, v)| (k.0, v.as_str())).collect();
    assert_eq!(addrs, [(0, "127.0.0.1:10911"), (1, "127.0.0.1:10921")]);
    // The master's connection closes: it is gone and the slave gets nothing again.
    ns.input(Input::Disconnected { conn: ConnId(1) });
    assert_eq!(fields(&ns.register(&Broker::a1())), []);
}

#[test]
fn slave_of_an_expired_master_gets_nothing() {
    let mut ns = Ns::new();
    ns.at(1_000).register(&Broker { timeout: Some(10_000), ..Broker::a0() });
    ns.at(2_000).register(&Broker::a1());
    assert_eq!(fields(&ns.register(&Broker::a1())).len(), 2);
    ns.tick(15_000);
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
    assert_eq!(fields(&ns.register(&Broker::a1())), []);
}

#[test]
fn slaves_do_not_change_topics_while_a_master_is_registered() {
    let mut ns = Ns::new();
    ns.register(&Broker::a0());
    ns.register(
        &Broker::a1().counter(9).topics(vec![TopicConfig::new("TopicTest", 1), TopicConfig::new("SlaveOnly", 1)]),
    );
    assert_eq!(ns.parsed_route("TopicTest").unwrap().queue_datas[0].read_queue_nums, 4);
    assert!(ns.parsed_route("SlaveOnly").is_none());
}

#[test]
fn a_lone_slave_is_the_prime_slave_and_serves_topics() {
    let mut ns = Ns::new();
    ns.register(&Broker::a1());
    let route = ns.parsed_route("TopicTest").unwrap();
    assert_eq!(route.queue_datas[0].perm, 6, "no acting master: perms kept");
    // In acting-master mode its queues lose write permission.
    let mut acting = Ns::new();
    acting.register(&Broker { acting: Some(true), ..Broker::a1() });
    let route = acting.parsed_route("TopicTest").unwrap();
    assert_eq!(route.queue_datas[0].perm, 4);
    assert!(route.broker_datas[0].enable_acting_master);
    // A 4.9.x slave (no enableActingMaster header) never touches topics.
    let mut old = Ns::new();
    old.register(&Broker { acting: None, ..Broker::a1() });
    assert!(old.parsed_route("TopicTest").is_none());
}

#[test]
fn topic_configs_apply_only_on_a_data_version_change_or_for_missing_topics() {
    let mut ns = Ns::new();
    ns.register(&Broker::a0());
    // Same data version, different queue count: an unchanged version means an unchanged table.
    ns.at(30_000).register(&Broker::a0().topics(vec![
        TopicConfig::new("TopicTest", 8),
        TopicConfig { perm: 7, ..TopicConfig::new("TBW102", 8) },
        TopicConfig::new("NewTopic", 2),
    ]));
    assert_eq!(ns.parsed_route("TopicTest").unwrap().queue_datas[0].read_queue_nums, 4);
    // ... except for a topic the group does not have yet.
    assert_eq!(ns.parsed_route("NewTopic").unwrap().queue_datas[0].read_queue_nums, 2);
    // A new data version applies every listed topic.
    ns.at(60_000).register(
        &Broker::a0().counter(2).topics(vec![TopicConfig::new("TopicTest", 8), TopicConfig::new("TBW102", 1)]),
    );
    assert_eq!(ns.parsed_route("TopicTest").unwrap().queue_datas[0].write_queue_nums, 8);
    // Topics missing from a registration stay (deleteTopicWithBrokerRegistration is off).
    assert!(ns.parsed_route("NewTopic").is_some());
    // A changed stateVersion or timestamp is a change too.
    let mut b = Broker::a0().counter(2).topics(vec![TopicConfig::new("TopicTest", 3), TopicConfig::new("TBW102", 1)]);
    b.version.timestamp += 1;
    ns.register(&b);
    assert_eq!(ns.parsed_route("TopicTest").unwrap().queue_datas[0].read_queue_nums, 3);
}

#[test]
fn delete_topic_with_broker_registration_drops_unlisted_topics() {
    let mut ns = Ns::with(|c| c.delete_topic_with_broker_registration = true);
    ns.register(&Broker::a0());
    ns.register(&Broker::a0().counter(2).topics(vec![TopicConfig::new("TopicTest", 4), TopicConfig::new("Other", 1)]));
    assert!(ns.parsed_route("TBW102").is_none());
    assert!(ns.parsed_route("Other").is_some());
}

#[test]
fn single_topic_registration_of_an_unknown_instance_fails_and_leaves_an_empty_group() {
    let mut ns = Ns::new();
    let b = Broker::new("broker-z", "127.0.0.9:10911", 0, 5).topics(vec![TopicConfig::new("Lonely", 1)]);
    let reply = ns.register(&b);
    assert_reply(&reply, ResponseCode::SystemError, Some("register broker failed"));
    assert!(reply.body.is_empty());
    assert!(!ns.live("DefaultCluster", "127.0.0.9:10911"));
    assert!(ns.parsed_route("Lonely").is_none());
    // Java's side effect: the group exists, with no members.
    let reply = ns.ask(RequestCode::GetBrokerClusterInfo, &[]);
    assert_eq!(
        text(&reply),
        r#"{"brokerAddrTable":{"broker-z":{"brokerAddrs":{},"brokerName":"broker-z","cluster":"DefaultCluster","enableActingMaster":false}},"clusterAddrTable":{"DefaultCluster":["broker-z"]}}"#
    );
    // Once registered with its full table, single-topic (incremental) registrations work.
    ns.register(&b.clone().topics(vec![TopicConfig::new("A", 1), TopicConfig::new("B", 1)]));
    assert_ok(&ns.register(&b.counter(2)));
    assert!(ns.parsed_route("Lonely").is_some());
}

#[test]
fn a_registration_with_a_lower_state_version_loses_to_the_live_holder_of_its_id() {
    let mut ns = Ns::new();
    let mut holder = Broker::a0();
    holder.version.state_version = 2;
    ns.register(&holder);
    // A second instance claims id 0 with an older state version: "empty result".
    let mut stale = Broker { addr: "127.0.0.1:20911", ha: "127.0.0.1:20912", conn: 3, ..Broker::a0() };
    stale.version.state_version = 1;
    stale.topics = vec![TopicConfig::new("TopicTest", 1), TopicConfig::new("X", 1)];
    let reply = ns.register(&stale);
    assert_ok(&reply);
    assert_eq!(reply.ext_fields, Some(BTreeMap::new()));
    assert!(!ns.live("DefaultCluster", "127.0.0.1:20911"));
    assert!(ns.events().iter().any(|e| matches!(e, Event::RegistrationConflict { .. })));
    let route = ns.parsed_route("TopicTest").unwrap();
    assert_eq!(
        route.broker_datas[0].broker_addrs.values().map(BrokerAddr::as_str).collect::<Vec<_>>(),
        ["127.0.0.1:10911"]
    );
    assert_eq!(route.queue_datas[0].read_queue_nums, 4);
    assert!(ns.parsed_route("X").is_none());
    // An equal state version is not "greater": the newcomer takes the id.
    stale.version.state_version = 2;
    assert_ok(&ns.register(&stale));
    let route = ns.parsed_route("TopicTest").unwrap();
    assert_eq!(
        route.broker_datas[0].broker_addrs.values().map(BrokerAddr::as_str).collect::<Vec<_>>(),
        ["127.0.0.1:20911"]
    );
    assert_eq!(route.queue_datas[0].read_queue_nums, 1);
}

#[test]
fn an_address_switching_from_slave_to_master_appears_once() {
    let mut ns = Ns::new();
    ns.register(&Broker::a1());
    let promoted = Broker { id: 0, ..Broker::a1() };
    ns.register(&promoted);
    let route = ns.parsed_route("TopicTest").unwrap();
    let addrs: Vec<(i64, &str)> = route.broker_datas[0].broker_addrs.iter().map(|(k, v)| (k.0, v.as_str())).collect();
    assert_eq!(addrs, [(0, "127.0.0.1:10921")]);
}

/// Java's RouteInfoManager uses `heartbeatTimeoutMillis` as it is (only null means the
/// default): zero or less expires the broker at the next scan. One that does not parse is
/// logged by Java's header decoder and left null: the default 120 s.
#[test]
fn heartbeat_timeout_is_used_as_java_uses_it() {
    let mut ns = Ns::new();
    assert_ok(&ns.check(1, Broker::a0().cmd().with_field("heartbeatTimeoutMillis", "-5")));
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"));
    ns.tick(5_000);
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"), "expired at the first scan");

    let mut ns = Ns::new();
    assert_ok(&ns.check(1, Broker::a0().cmd().with_field("heartbeatTimeoutMillis", "soon")));
    let ignored = ns.events().iter().map(ToString::to_string).find(|e| e.contains("heartbeatTimeoutMillis")).unwrap();
    assert_eq!(
        ignored,
        "Failed field [heartbeatTimeoutMillis] decoding in REGISTER_BROKER: `soon`; going on without it, as Java does"
    );
    ns.tick(120_000);
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"), "the default timeout");
    ns.tick(125_000);
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
}

/// Java: a `bodyCrc32` that does not parse leaves the field at 0, which skips the check; a
/// missing `haServerAddr` is null (a slave then gets no `haServerAddr` back from it).
#[test]
fn an_unparsable_crc_skips_the_check_and_a_missing_ha_address_is_null_as_in_java() {
    let mut ns = Ns::new();
    assert_ok(&ns.check(1, Broker::a0().cmd().with_field("bodyCrc32", "abc")));
    assert!(ns.events().iter().any(|e| matches!(e, Event::HeaderFieldIgnored { field: "bodyCrc32", .. })));
    let mut no_ha = Broker::a0().cmd();
    no_ha.ext_fields.as_mut().unwrap().remove("haServerAddr");
    let mut ns = Ns::new();
    assert_ok(&ns.check(1, no_ha));
    let registered = ns.events().iter().map(ToString::to_string).find(|e| e.starts_with("new broker")).unwrap();
    assert!(registered.contains("HAService: null"), "{registered}");
    let reply = ns.register(&Broker::a1());
    assert_eq!(fields(&reply), [("masterAddr", "127.0.0.1:10911")], "Java's null haServerAddr is left out");
}

/// Java's `new DataVersion()` is stamped "now": a body without `dataVersion` always counts as
/// changed, so its topic configs are applied on every registration.
#[test]
fn a_registration_without_a_data_version_counts_as_changed() {
    let mut ns = Ns::new();
    let body = |queues: i32| {
        format!(
            r#"{{"topicConfigSerializeWrapper":{{"topicConfigTable":{{"TopicTest":{{"topicName":"TopicTest","readQueueNums":{queues},"writeQueueNums":{queues},"perm":6}},"TBW102":{{"topicName":"TBW102"}}}}}}}}"#
        )
    };
    assert_ok(&ns.check(1, Broker::a0().cmd().with_body(body(4).into_bytes())));
    ns.at(1_234);
    assert_ok(&ns.check(1, Broker::a0().cmd().with_body(body(8).into_bytes())));
    assert_eq!(ns.parsed_route("TopicTest").unwrap().queue_datas[0].read_queue_nums, 8);
    // The stored version is stamped with the NameServer's clock (the core has no wall clock).
    let reply = ns.check(1, Broker::a0().query_data_version(Some(DataVersion::default())));
    assert_eq!(reply.field("changed"), Some("true"));
    assert_eq!(text(&reply), r#"{"counter":0,"stateVersion":0,"timestamp":1234}"#);
}

#[test]
fn compressed_registrations_are_understood_with_either_flag() {
    for flag in ["true", "false"] {
        let mut ns = Ns::new();
        let b = Broker::a0();
        let mut body = RegisterBrokerBody::default();
        body.topic_config_wrapper.data_version = b.version;
        for t in &b.topics {
            body.topic_config_wrapper.topic_config_table.insert(t.topic_name.clone(), t.clone());
        }
        let cmd = b.cmd().with_field("compressed", flag).with_body(body.encode_compressed(479));
        assert_ok(&ns.check(1, cmd));
        assert_eq!(ns.parsed_route("TopicTest").unwrap().queue_datas[0].read_queue_nums, 4);
    }
}

#[test]
fn corrupt_register_body_is_a_system_error() {
    let mut ns = Ns::new();
    let reply = ns.check(1, Broker::a0().cmd().with_body(b"{\"filterServerList\":".to_vec()));
    assert_eq!(reply.response_code(), ResponseCode::SystemError);
    // Java 5.5.0's remark, word for word (its stack frame included), and no extFields.
    assert_eq!(
        reply.remark.as_deref(),
        Some(
            "org.apache.rocketmq.remoting.exception.RemotingCommandException: Failed to decode RegisterBrokerBody, org.apache.rocketmq.namesrv.processor.DefaultRequestProcessor.extractRegisterBrokerBodyFromRequest(DefaultRequestProcessor.java:305)"
        )
    );
    assert_eq!(reply.ext_fields, None);
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
}

#[test]
fn min_broker_id_change_is_notified_when_enabled() {
    let mut ns = Ns::with(|c| c.notify_min_broker_id_changed = true);
    let slave = Broker { acting: Some(true), ..Broker::a1() };
    ns.register(&slave);
    ns.register(&Broker { acting: Some(true), ..Broker::a0() });
    // A lower id registered: everyone but the new minimum hears of it, at its own address
    // (Java's remoting client to the broker's server side), not on its registration connection.
    assert_eq!(
        notices(&ns),
        [(
            "127.0.0.1:10921",
            vec![("haBrokerAddr", "127.0.0.1:10912"), ("minBrokerAddr", "127.0.0.1:10911"), ("minBrokerId", "0")]
        )]
    );
    let logged = ns.events().iter().map(ToString::to_string).find(|e| e.starts_with("min broker id")).unwrap();
    assert_eq!(logged, "min broker id changed to 0, notify [127.0.0.1:10921], offline broker addr null");
    // The master leaves: the remaining member is told, with the offline address.
    ns.check(1, Broker::a0().unregister());
    assert_eq!(
        notices(&ns),
        [(
            "127.0.0.1:10921",
            vec![("minBrokerAddr", "127.0.0.1:10921"), ("minBrokerId", "1"), ("offlineBrokerAddr", "127.0.0.1:10911")]
        )]
    );
}

#[test]
fn min_broker_id_change_is_never_sent_to_a_member_registered_from_another_host() {
    let mut ns = Ns::with(|c| c.notify_min_broker_id_changed = true);
    // A peer at 127.0.0.1 registers a slave at someone else's address: 905 would connect there.
    let planted = Broker { acting: Some(true), addr: "6.6.6.6:10921", ..Broker::a1() };
    ns.input(Input::Connected { conn: ConnId(planted.conn), remote: remote("127.0.0.1", planted.conn) });
    assert_ok(&ns.check(planted.conn, planted.cmd()));
    ns.register(&Broker { acting: Some(true), ..Broker::a0() });
    assert_eq!(notices(&ns), [], "no notice connects to the planted address");
    let logged = ns.events().iter().map(ToString::to_string).find(|e| e.starts_with("min broker id")).unwrap();
    assert_eq!(logged, "min broker id changed to 0, notify [], offline broker addr null");
}

/// The NOTIFY_MIN_BROKER_ID_CHANGE notices the last input asked for, by broker address. No
/// request ever goes out on a connection.
fn notices(ns: &Ns) -> Vec<(&str, Vec<(&str, &str)>)> {
    assert!(!ns.out.iter().any(|o| matches!(o, Output::Send { cmd, .. } if !cmd.is_response())));
    ns.out
        .iter()
        .filter_map(|o| match o {
            Output::NotifyBroker { broker_addr, cmd } => {
                assert_eq!(cmd.request_code(), RequestCode::NotifyMinBrokerIdChange);
                assert!(cmd.is_oneway());
                Some((broker_addr.as_str(), fields(cmd)))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn min_broker_id_change_on_registration_is_notified_for_any_group() {
    // PROTOCOL.md §10.3 step 14 has no acting-master condition (only §10.4's unregister has).
    let mut ns = Ns::with(|c| c.notify_min_broker_id_changed = true);
    ns.register(&Broker::a1());
    assert_eq!(notices(&ns), []);
    ns.register(&Broker::a0());
    assert_eq!(
        notices(&ns),
        [(
            "127.0.0.1:10921",
            vec![("haBrokerAddr", "127.0.0.1:10912"), ("minBrokerAddr", "127.0.0.1:10911"), ("minBrokerId", "0")]
        )]
    );
    // Re-registering is no change.
    ns.register(&Broker::a0());
    assert_eq!(notices(&ns), []);
    // The master leaves a non-acting group: silent.
    ns.check(1, Broker::a0().unregister());
    assert_eq!(notices(&ns), []);
}

#[test]
fn min_broker_id_change_on_connection_loss_and_expiry_is_notified() {
    let mut ns = Ns::with(|c| c.notify_min_broker_id_changed = true);
    let master = Broker { acting: Some(true), timeout: Some(10_000), ..Broker::a0() };
    let slave = Broker { acting: Some(true), ..Broker::a1() };
    ns.register(&master);
    ns.register(&slave);
    ns.input(Input::Disconnected { conn: ConnId(1) });
    let expected =
        vec![("minBrokerAddr", "127.0.0.1:10921"), ("minBrokerId", "1"), ("offlineBrokerAddr", "127.0.0.1:10911")];
    assert_eq!(notices(&ns), [("127.0.0.1:10921", expected.clone())]);
    // Same through expiry: the master comes back on connection 1 and goes silent.
    ns.at(1_000).register(&master);
    ns.register(&slave);
    ns.tick(15_000);
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
    assert_eq!(notices(&ns), [("127.0.0.1:10921", expected)]);
}

#[test]
fn min_broker_id_change_is_silent_by_default() {
    let mut ns = Ns::new();
    ns.register(&Broker { acting: Some(true), ..Broker::a1() });
    ns.register(&Broker { acting: Some(true), ..Broker::a0() });
    assert!(!ns.out.iter().any(|o| matches!(o, Output::Send { cmd, .. } if !cmd.is_response())));
    assert!(!ns.out.iter().any(|o| matches!(o, Output::NotifyBroker { .. })));
}

/// A registration's "new topic registered" lines name the table's copy of each topic, not the
/// copy decoded from the body: a queued run of lines then holds no name of its own, and the
/// thread that writes it frees none (the daemon's line thread freed a million names another
/// thread's arena had allocated, at INFO only).
#[test]
fn a_registrations_lines_name_the_tables_copy_of_each_topic() {
    let mut ns = Ns::new();
    let topics =
        |count: usize| (0..count).map(|i| TopicConfig::new(format!("T{i:03}").as_str(), 4)).collect::<Vec<_>>();
    ns.register(&Broker::a0().topics(topics(100)));
    // Both ways a registration changes the table: one walk along it (many topics), and one
    // topic at a time (a few).
    for (broker, count) in
        [(Broker::new("broker-b", "127.0.0.2:10911", 0, 2), 100), (Broker::new("broker-c", "127.0.0.3:10911", 0, 3), 3)]
    {
        ns.register(&broker.topics(topics(count)));
        let lines: Vec<_> = ns
            .events()
            .into_iter()
            .filter_map(|event| match event {
                Event::TopicRegistered { topic, .. } => Some(topic),
                _ => None,
            })
            .collect();
        assert_eq!(lines.len(), count, "{:?}", ns.events());
        let table = ns.ns.routes().topic_queue_table();
        for topic in &lines {
            let (kept, _) = table.get_key_value(topic).expect("registered");
            assert!(kept.ptr_eq(topic), "{topic}'s line names a copy of its own");
        }
    }
}
