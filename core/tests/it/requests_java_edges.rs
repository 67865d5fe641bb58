//! Where Java's NameServer is lenient or particular, request by request (PROTOCOL.md §3,
//! §8.3, §10.5): missing or unparsable header fields that Java's reflective decoder logs and
//! leaves null, fastjson's escaping in plain style, the extFields of error replies, and where
//! GET_SYSTEM_TOPIC_LIST_FROM_NS takes its broker names.
//!
//! Each test names the Java behaviour it matches. Every request goes through [`Ns::check`],
//! which asserts the reply invariants.

use crate::common;

use nameserver_core::codec;
use nameserver_core::protocol::body::TopicConfig;
use nameserver_core::protocol::{RequestCode, ResponseCode};
use nameserver_core::{Event, Output};

use common::requests::*;

/// The table as `kvConfig.json` if the last request changed it.
fn persisted_kv(ns: &Ns) -> Option<String> {
    ns.out.iter().any(|o| matches!(o, Output::KvChanged(_))).then(|| String::from_utf8(ns.ns.kv().to_json()).unwrap())
}

/// KVConfigManager.putKVConfig stores a null value when the request has none: the namespace
/// exists afterwards, the key reads as absent, and the file has no such entry.
#[test]
fn put_kv_without_a_value_stores_javas_null() {
    let mut ns = Ns::new();
    assert_ok(&ns.ask(RequestCode::PutKvConfig, &[("namespace", "ns"), ("key", "k"), ("value", "v")]));
    assert_ok(&ns.ask(RequestCode::PutKvConfig, &[("namespace", "ns"), ("key", "k")]));
    assert_eq!(persisted_kv(&ns).as_deref(), Some(r#"{"configTable":{"ns":{}}}"#));
    assert!(ns.events().iter().any(|e| matches!(e, Event::HeaderFieldIgnored { field: "value", value: None, .. })));
    let reply = ns.ask(RequestCode::GetKvConfig, &[("namespace", "ns"), ("key", "k")]);
    assert_reply(&reply, ResponseCode::QueryNotFound, Some("No config item, Namespace: ns Key: k"));
    // The namespace itself exists, as in Java.
    let reply = ns.ask(RequestCode::GetKvlistByNamespace, &[("namespace", "other-ns")]);
    assert_eq!(reply.response_code(), ResponseCode::QueryNotFound);
    assert_ok(&ns.ask(RequestCode::PutKvConfig, &[("namespace", "new-ns"), ("key", "k")]));
    assert_eq!(text(&ns.ask(RequestCode::GetKvlistByNamespace, &[("namespace", "new-ns")])), r#"{"table":{}}"#);
    // Namespace and key stay required: DefaultRequestProcessor checks them itself.
    let reply = ns.ask(RequestCode::PutKvConfig, &[("key", "k"), ("value", "v")]);
    assert_reply(&reply, ResponseCode::SystemError, Some("namespace or key is null"));
}

/// Java looks a null namespace or key up in its HashMaps: GET answers QUERY_NOT_FOUND with
/// `null` in the remark, DELETE deletes nothing and answers SUCCESS, the list is not found.
#[test]
fn kv_requests_without_namespace_or_key_find_nothing_as_in_java() {
    let mut ns = Ns::new();
    assert_ok(&ns.ask(RequestCode::PutKvConfig, &[("namespace", "ns"), ("key", "k"), ("value", "v")]));
    let reply = ns.ask(RequestCode::GetKvConfig, &[("key", "k")]);
    assert_reply(&reply, ResponseCode::QueryNotFound, Some("No config item, Namespace: null Key: k"));
    let reply = ns.ask(RequestCode::DeleteKvConfig, &[("namespace", "ns")]);
    assert_ok(&reply);
    assert_eq!(persisted_kv(&ns), None, "nothing deleted, nothing written");
    let reply = ns.ask(RequestCode::GetKvlistByNamespace, &[]);
    assert_reply(&reply, ResponseCode::QueryNotFound, Some("No config item, Namespace: null"));
    assert_eq!(ns.ask(RequestCode::GetKvConfig, &[("namespace", "ns"), ("key", "k")]).field("value"), Some("v"));
}

/// QUERY_DATA_VERSION and BROKER_HEARTBEAT read only clusterName and brokerAddr in Java; with
/// either missing Java 5.5.0 fails. brokerName and brokerId are never read, so they may be
/// missing or not numbers.
#[test]
fn data_version_and_heartbeat_without_their_live_key_fail_as_in_java_5_5_0() {
    // Java 5.5.0 in the oracle: BrokerAddrInfo.hashCode throws on a null clusterName or
    // brokerAddr, so the reply is SYSTEM_ERROR (its remark is the exception's text; ours names
    // the fields).
    let mut ns = Ns::new();
    ns.register(&Broker::a0());
    for code in [RequestCode::QueryDataVersion, RequestCode::BrokerHeartbeat] {
        for fields in [&[("clusterName", "DefaultCluster")][..], &[("brokerAddr", "127.0.0.1:10911")][..], &[][..]] {
            let reply = ns.ask(code, fields);
            assert_reply(
                &reply,
                ResponseCode::SystemError,
                Some("the custom fields <clusterName> and <brokerAddr> are required"),
            );
            assert_eq!(reply.ext_fields, None);
        }
    }
    // Without brokerName/brokerId the broker is still found by its live-table key.
    let reply = ns.ask(
        RequestCode::QueryDataVersion,
        &[("clusterName", "DefaultCluster"), ("brokerAddr", "127.0.0.1:10911"), ("brokerId", "x")],
    );
    assert_eq!(reply.field("changed"), Some("true"), "no body: changed");
    assert!(!reply.body.is_empty());
    let heartbeat = oneway(request(RequestCode::BrokerHeartbeat, &[("brokerAddr", "127.0.0.1:10911")]));
    assert!(ns.send(1, heartbeat).iter().all(|o| !matches!(o, Output::Send { .. })));
    // The live entry was not refreshed by the incomplete heartbeat: it expires on time.
    ns.tick(125_000);
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
    let mut ns = Ns::new();
    ns.register(&Broker::a0());
    let reply =
        ns.ask(RequestCode::BrokerHeartbeat, &[("clusterName", "DefaultCluster"), ("brokerAddr", "127.0.0.1:10911")]);
    assert_ok(&reply);
}

/// GET_BROKER_MEMBER_GROUP: Java builds `new BrokerMemberGroup(null, null)`; fastjson leaves
/// the null names out.
#[test]
fn broker_member_group_without_names_is_an_empty_group_as_in_java() {
    let mut ns = Ns::new();
    ns.register(&Broker::a0());
    let reply = ns.ask(RequestCode::GetBrokerMemberGroup, &[]);
    assert_reply(&reply, ResponseCode::Success, Some("not set any response code"));
    assert_eq!(text(&reply), r#"{"brokerMemberGroup":{"brokerAddrs":{}}}"#);
    let reply = ns.ask(RequestCode::GetBrokerMemberGroup, &[("brokerName", "broker-a")]);
    assert_eq!(text(&reply), r#"{"brokerMemberGroup":{"brokerAddrs":{0:"127.0.0.1:10911"},"brokerName":"broker-a"}}"#);
}

/// WIPE/ADD_WRITE_PERM, DELETE_TOPIC and GET_TOPICS_BY_CLUSTER with their field missing: Java
/// finds no group, topic or cluster under null and answers SUCCESS with nothing changed.
#[test]
fn admin_requests_without_their_name_change_nothing_as_in_java() {
    let mut ns = Ns::new();
    ns.register(&Broker::a0());
    assert_eq!(ns.ask(RequestCode::WipeWritePermOfBroker, &[]).field("wipeTopicCount"), Some("0"));
    assert_eq!(ns.ask(RequestCode::AddWritePermOfBroker, &[]).field("addTopicCount"), Some("0"));
    assert_ok(&ns.ask(RequestCode::DeleteTopicInNamesrv, &[]));
    assert_eq!(text(&ns.ask(RequestCode::GetTopicsByCluster, &[])), r#"{"topicList":[]}"#);
    assert!(ns.parsed_route("TopicTest").is_some());
    assert_eq!(ns.parsed_route("TopicTest").unwrap().queue_datas[0].perm, 6);
}

/// Where Java's null would corrupt the tables (a null cluster or address stored as a key, a
/// null id failing halfway through an unregistration), the field stays required.
#[test]
fn fields_that_would_corrupt_the_tables_stay_required() {
    let mut ns = Ns::new();
    let mut no_cluster = Broker::a0().cmd();
    no_cluster.ext_fields.as_mut().unwrap().remove("clusterName");
    assert_reply(&ns.check(1, no_cluster), ResponseCode::SystemError, Some("the custom field <clusterName> is null"));
    let reply =
        ns.ask(RequestCode::UnregisterBroker, &[("clusterName", "c"), ("brokerAddr", "a"), ("brokerName", "b")]);
    assert_reply(&reply, ResponseCode::SystemError, Some("the custom field <brokerId> is null"));
}

/// fastjson 1.2.83 writes U+007F–U+009F and U+2028/U+2029 as `\uXXXX` even in its default
/// (non-browser) style, in bodies and in the JSON header alike.
#[test]
fn c1_controls_and_line_separators_are_raw_in_headers_and_bodies_as_fastjson2_writes_them() {
    // Java 5.5.0 (fastjson2) in the Java oracle: only `"`, `\\` and controls below 0x20 are
    // escaped, with lowercase hex; fastjson 1.x (5.3.3, 4.9.7) wrote `\u0085\u2028\u007F`.
    let mut ns = Ns::new();
    let value = "a\u{85}b\u{2028}c\u{7f}é\u{1f}";
    assert_ok(&ns.ask(RequestCode::PutKvConfig, &[("namespace", "ns"), ("key", "k"), ("value", value)]));
    let reply = ns.ask(RequestCode::GetKvConfig, &[("namespace", "ns"), ("key", "k")]);
    let frame = codec::encode_to_vec(&reply).unwrap();
    let header = String::from_utf8_lossy(&frame[8..]).into_owned();
    assert!(header.contains("\"value\":\"a\u{85}b\u{2028}c\u{7f}é\\u001f\""), "{header}");
    let list = ns.ask(RequestCode::GetKvlistByNamespace, &[("namespace", "ns")]);
    assert_eq!(text(&list), "{\"table\":{\"k\":\"a\u{85}b\u{2028}c\u{7f}é\\u001f\"}}");
}

/// DefaultRequestProcessor.registerBroker makes its reply from RegisterBrokerResponseHeader,
/// so even "register broker failed" carries `"extFields":{}` on the wire.
#[test]
fn a_refused_registration_carries_empty_ext_fields_as_in_java() {
    let mut ns = Ns::new();
    let single = Broker::a0().topics(vec![TopicConfig::new("Only", 4)]);
    let reply = ns.check(1, single.cmd());
    assert_reply(&reply, ResponseCode::SystemError, Some("register broker failed"));
    let frame = codec::encode_to_vec(&reply).unwrap();
    assert!(String::from_utf8_lossy(&frame).contains(r#""extFields":{}"#));
}

/// RouteInfoManager.getSystemTopicList adds each cluster's broker names (clusterAddrTable's
/// values), which can name a group brokerAddrTable no longer has: one that registered under
/// two clusters and was unregistered under one of them.
#[test]
fn system_topic_list_takes_broker_names_from_the_cluster_table_as_java_does() {
    let mut ns = Ns::new();
    ns.register(&Broker::a0());
    ns.register(&Broker { cluster: "Other", ..Broker::a0() });
    assert_ok(&ns.check(1, Broker::a0().unregister()));
    let reply = ns.ask(RequestCode::GetSystemTopicListFromNs, &[]);
    assert_eq!(text(&reply), r#"{"topicList":["Other","broker-a"]}"#);
}
