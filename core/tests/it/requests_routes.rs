//! GET_ROUTEINFO_BY_TOPIC (105), GET_BROKER_CLUSTER_INFO (106), GET_BROKER_MEMBER_GROUP (901),
//! WIPE_WRITE_PERM_OF_BROKER (205) and ADD_WRITE_PERM_OF_BROKER (327).
//!
//! One NameServer driven through `Input::Received`, request code by request code
//! (PROTOCOL.md §5–§11): codes, remarks in Java's wording, response extFields and bodies byte
//! for byte where PROTOCOL.md gives them.
//!
//! Every test goes through [`Ns::check`], which asserts the reply invariants (exactly one
//! response, on the requesting connection, echoing `opaque`, flag exactly RESPONSE) and hands
//! the reply back.

use crate::common;

use nameserver_core::protocol::body::{TopicConfig, TopicRouteData};
use nameserver_core::protocol::{RequestCode, ResponseCode};

use common::requests::*;

// ---------------------------------------------------------------------------------------------
// GET_ROUTEINFO_BY_TOPIC (105)
// ---------------------------------------------------------------------------------------------

/// PROTOCOL.md §8.3's cluster: broker-a (master + slave, 8 queues) and broker-b (acting-master
/// mode, zone1, 4 queues), both serving TopicTest.
fn protocol_8_3_cluster(ns: &mut Ns) {
    let topics = |n| vec![TopicConfig::new("TopicTest", n), TopicConfig::new("TBW102", 8)];
    ns.register(&Broker::a0().topics(topics(8)));
    ns.register(&Broker::a1().topics(topics(8)));
    ns.register(
        &Broker { acting: Some(true), zone: Some("zone1"), ..Broker::new("broker-b", "127.0.0.2:10911", 0, 3) }
            .topics(topics(4)),
    );
}

const ROUTE_PLAIN: &str = r#"{"brokerDatas":[{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:10921"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false},{"brokerAddrs":{0:"127.0.0.2:10911"},"brokerName":"broker-b","cluster":"DefaultCluster","enableActingMaster":true,"zoneName":"zone1"}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":8,"topicSysFlag":0,"writeQueueNums":8},{"brokerName":"broker-b","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}"#;

#[test]
fn route_to_an_old_client_is_plain_fastjson() {
    let mut ns = Ns::new();
    protocol_8_3_cluster(&mut ns);
    for version in [0, 121, 400] {
        let reply = ns.check(ADMIN, route_query("TopicTest", version));
        assert_ok(&reply);
        assert_eq!(text(&reply), ROUTE_PLAIN);
        assert!(serde_json::from_slice::<serde_json::Value>(&reply.body).is_err(), "bare integer keys");
    }
}

#[test]
fn route_to_a_new_client_is_strict_json() {
    let mut ns = Ns::new();
    protocol_8_3_cluster(&mut ns);
    let standard = ROUTE_PLAIN.replace("{0:", "{\"0\":").replace(",1:", ",\"1\":");
    let old_but_strict = route_query("TopicTest", 121).with_field("acceptStandardJsonOnly", "true");
    for query in [route_query("TopicTest", 401), route_query("TopicTest", 479), old_but_strict] {
        let reply = ns.check(ADMIN, query);
        assert_ok(&reply);
        assert_eq!(text(&reply), standard);
        let value: serde_json::Value = serde_json::from_slice(&reply.body).expect("strict JSON");
        assert_eq!(value["brokerDatas"][0]["brokerAddrs"]["1"], "127.0.0.1:10921");
    }
    // Only "true" switches an old client to the standard style.
    let reply = ns.check(ADMIN, route_query("TopicTest", 121).with_field("acceptStandardJsonOnly", "false"));
    assert_eq!(text(&reply), ROUTE_PLAIN);
}

#[test]
fn route_escaping_follows_the_style() {
    let mut ns = Ns::with(|c| c.order_message_enable = true);
    ns.register(&Broker::a0());
    ns.ask(RequestCode::PutKvConfig, &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", "TopicTest"), ("value", "a/bé中")]);
    let plain = ns.check(ADMIN, route_query("TopicTest", 400));
    assert!(text(&plain).contains(r#""orderTopicConf":"a/bé中","#), "{}", text(&plain));
    let standard = ns.check(ADMIN, route_query("TopicTest", 479));
    // fastjson2 (5.5.0) writes `/` and non-ASCII raw in the standard style too.
    assert!(text(&standard).contains(r#""orderTopicConf":"a/bé中","#), "{}", text(&standard));
    assert_eq!(
        serde_json::from_slice::<TopicRouteData>(&standard.body).unwrap().order_topic_conf.as_deref(),
        Some("a/bé中")
    );
}

#[test]
fn route_has_order_topic_conf_only_with_order_message_enable() {
    for enabled in [false, true] {
        let mut ns = Ns::with(|c| c.order_message_enable = enabled);
        ns.register(&Broker::a0());
        ns.ask(
            RequestCode::PutKvConfig,
            &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", "TopicTest"), ("value", "broker-a:4")],
        );
        let route = ns.parsed_route("TopicTest").unwrap();
        assert_eq!(route.order_topic_conf.as_deref(), enabled.then_some("broker-a:4"));
        // No KV entry for the topic: omitted.
        assert_eq!(ns.parsed_route("TBW102").unwrap().order_topic_conf, None);
    }
}

#[test]
fn unknown_topic_is_topic_not_exist_with_the_faq_remark() {
    let mut ns = Ns::new();
    let reply = ns.route("TopicTest");
    assert_reply(&reply, ResponseCode::TopicNotExist, Some(NOT_EXIST));
    assert_eq!(reply.response_code().raw(), 17);
    assert!(reply.body.is_empty());
    assert_eq!(reply.ext_fields, None);
}

#[test]
fn route_waits_for_service_when_asked_to() {
    let mut ns = Ns::with(|c| c.need_wait_for_service = true);
    ns.register(&Broker::a0());
    let reply = ns.at(44_999).route("TopicTest");
    assert_reply(&reply, ResponseCode::SystemError, Some("name server not ready"));
    assert_ok(&ns.at(45_000).route("TopicTest"));
    // And stays ready (the 5.1.0–5.3.1 flag bug is not copied).
    assert_ok(&ns.at(46_000).route("TopicTest"));
    let mut short = Ns::with(|c| {
        c.need_wait_for_service = true;
        c.wait_seconds_for_service = 2;
    });
    short.register(&Broker::a0());
    assert_eq!(short.at(1_999).route("TopicTest").response_code(), ResponseCode::SystemError);
    assert_ok(&short.at(2_000).route("TopicTest"));
}

#[test]
fn zone_mode_keeps_masterless_groups_and_the_zone_in_plain_style() {
    let mut ns = Ns::new();
    let topics = vec![TopicConfig::new("TopicTest", 4), TopicConfig::new("TBW102", 8)];
    ns.register(
        &Broker { zone: Some("zone1"), ..Broker::new("broker-a", "10.0.0.1:10911", 0, 1) }.topics(topics.clone()),
    );
    ns.register(
        &Broker {
            zone: Some("zone2"),
            filter_servers: vec!["10.0.0.2:30000".into()],
            ..Broker::new("broker-b", "10.0.0.2:10911", 0, 2)
        }
        .topics(topics.clone()),
    );
    // A group with no master (a lone slave) is always kept.
    ns.register(&Broker { zone: Some("zone2"), ..Broker::new("broker-c", "10.0.0.3:10911", 1, 3) }.topics(topics));
    let full = ns.parsed_route("TopicTest").unwrap();
    assert_eq!(full.broker_datas.len(), 3);
    assert_eq!(full.filter_server_table.len(), 1);

    let zoned =
        |zone: &str| route_query("TopicTest", 479).with_field("__ZONE_MODE", "true").with_field("__ZONE_NAME", zone);
    let reply = ns.check(ADMIN, zoned("ZONE1"));
    assert_ok(&reply);
    assert_eq!(
        text(&reply),
        r#"{"brokerDatas":[{"brokerAddrs":{0:"10.0.0.1:10911"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false,"zoneName":"zone1"},{"brokerAddrs":{1:"10.0.0.3:10911"},"brokerName":"broker-c","cluster":"DefaultCluster","enableActingMaster":false,"zoneName":"zone2"}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4},{"brokerName":"broker-c","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}"#,
        "plain style whatever the client version"
    );
    // Zone mode off, or a blank zone: no filtering, normal style.
    for query in [
        route_query("TopicTest", 479).with_field("__ZONE_NAME", "zone1"),
        route_query("TopicTest", 479).with_field("__ZONE_MODE", "false").with_field("__ZONE_NAME", "zone1"),
        zoned("  "),
    ] {
        let reply = ns.check(ADMIN, query);
        let route: TopicRouteData = serde_json::from_slice(&reply.body).unwrap();
        assert_eq!(route.broker_datas.len(), 3);
    }
    // An unknown topic is still TOPIC_NOT_EXIST.
    assert_eq!(
        ns.check(ADMIN, route_query("Nope", 479).with_field("__ZONE_MODE", "true").with_field("__ZONE_NAME", "zone1"))
            .response_code(),
        ResponseCode::TopicNotExist
    );
}

#[test]
fn acting_master_rewrite_only_with_support_acting_master() {
    for support in [false, true] {
        let mut ns = Ns::with(|c| c.support_acting_master = support);
        ns.register(&Broker { acting: Some(true), ..Broker::a1() });
        let route = ns.parsed_route("TopicTest").unwrap();
        let ids: Vec<i64> = route.broker_datas[0].broker_addrs.keys().map(|k| k.0).collect();
        assert_eq!(ids, [if support { 0 } else { 1 }]);
        // The tables themselves are not rewritten.
        let cluster = ns.ask(RequestCode::GetBrokerClusterInfo, &[]);
        assert!(text(&cluster).contains(r#"{1:"127.0.0.1:10921"}"#));
    }
}

// ---------------------------------------------------------------------------------------------
// GET_BROKER_CLUSTER_INFO (106), GET_BROKER_MEMBER_GROUP (901)
// ---------------------------------------------------------------------------------------------

#[test]
fn cluster_info_is_plain_for_every_client() {
    let mut ns = Ns::new();
    let reply = ns.ask(RequestCode::GetBrokerClusterInfo, &[]);
    assert_ok(&reply);
    assert_eq!(text(&reply), r#"{"brokerAddrTable":{},"clusterAddrTable":{}}"#);
    protocol_8_3_cluster(&mut ns);
    let expected = r#"{"brokerAddrTable":{"broker-a":{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:10921"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false},"broker-b":{"brokerAddrs":{0:"127.0.0.2:10911"},"brokerName":"broker-b","cluster":"DefaultCluster","enableActingMaster":true,"zoneName":"zone1"}},"clusterAddrTable":{"DefaultCluster":["broker-a","broker-b"]}}"#;
    for version in [121, 479] {
        let mut cmd = request(RequestCode::GetBrokerClusterInfo, &[]);
        cmd.version = version;
        assert_eq!(text(&ns.check(ADMIN, cmd)), expected);
    }
}

#[test]
fn broker_member_group() {
    let mut ns = Ns::new();
    protocol_8_3_cluster(&mut ns);
    let reply =
        ns.ask(RequestCode::GetBrokerMemberGroup, &[("clusterName", "DefaultCluster"), ("brokerName", "broker-a")]);
    // Java's response starts as "not set any response code" and only its code is set after.
    assert_reply(&reply, ResponseCode::Success, Some("not set any response code"));
    assert_eq!(
        text(&reply),
        r#"{"brokerMemberGroup":{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:10921"},"brokerName":"broker-a","cluster":"DefaultCluster"}}"#
    );
    let reply = ns.ask(RequestCode::GetBrokerMemberGroup, &[("clusterName", "C"), ("brokerName", "nobroker")]);
    assert_eq!(text(&reply), r#"{"brokerMemberGroup":{"brokerAddrs":{},"brokerName":"nobroker","cluster":"C"}}"#);
}

// ---------------------------------------------------------------------------------------------
// WIPE_WRITE_PERM_OF_BROKER (205), ADD_WRITE_PERM_OF_BROKER (327)
// ---------------------------------------------------------------------------------------------

#[test]
fn wipe_and_add_write_perm_count_the_group_topics() {
    let mut ns = Ns::new();
    ns.register(&Broker::a0().topics(vec![
        TopicConfig::new("TopicTest", 4),
        TopicConfig { perm: 7, ..TopicConfig::new("TBW102", 8) },
        TopicConfig { perm: 4, ..TopicConfig::new("ReadOnly", 1) },
    ]));
    ns.register(&Broker::new("broker-b", "127.0.0.2:10911", 0, 3));
    let perm = |ns: &mut Ns, topic: &str, name: &str| {
        ns.parsed_route(topic).unwrap().queue_datas.iter().find(|q| q.broker_name.as_str() == name).unwrap().perm
    };

    let reply = ns.ask(RequestCode::WipeWritePermOfBroker, &[("brokerName", "broker-a")]);
    assert_ok(&reply);
    assert_eq!(fields(&reply), [("wipeTopicCount", "3")], "every topic of the group counts");
    assert_eq!(perm(&mut ns, "TopicTest", "broker-a"), 4);
    assert_eq!(perm(&mut ns, "TBW102", "broker-a"), 5);
    assert_eq!(perm(&mut ns, "ReadOnly", "broker-a"), 4);
    assert_eq!(perm(&mut ns, "TopicTest", "broker-b"), 6, "other groups untouched");

    let reply = ns.ask(RequestCode::AddWritePermOfBroker, &[("brokerName", "broker-a")]);
    assert_eq!(fields(&reply), [("addTopicCount", "3")]);
    for topic in ["TopicTest", "TBW102", "ReadOnly"] {
        assert_eq!(perm(&mut ns, topic, "broker-a"), 6, "{topic}: exactly read|write");
    }

    assert_eq!(
        fields(&ns.ask(RequestCode::WipeWritePermOfBroker, &[("brokerName", "nobody")])),
        [("wipeTopicCount", "0")]
    );
    assert_eq!(
        fields(&ns.ask(RequestCode::AddWritePermOfBroker, &[("brokerName", "nobody")])),
        [("addTopicCount", "0")]
    );
}

#[test]
fn wiped_perm_survives_an_unchanged_registration_but_not_a_new_version() {
    let mut ns = Ns::new();
    ns.register(&Broker::a0());
    ns.ask(RequestCode::WipeWritePermOfBroker, &[("brokerName", "broker-a")]);
    ns.at(30_000).register(&Broker::a0());
    assert_eq!(ns.parsed_route("TopicTest").unwrap().queue_datas[0].perm, 4);
    ns.at(60_000).register(&Broker::a0().counter(2));
    assert_eq!(ns.parsed_route("TopicTest").unwrap().queue_datas[0].perm, 6);
}
