//! Topic lists (206, 224, 304, 311, 312, 313), DELETE_TOPIC_IN_NAMESRV (216) and
//! REGISTER_TOPIC_IN_NAMESRV (217).
//!
//! One NameServer driven through `Input::Received`, request code by request code
//! (PROTOCOL.md §5–§11): codes, remarks in Java's wording, response extFields and bodies byte
//! for byte where PROTOCOL.md gives them.
//!
//! Every test goes through [`Ns::check`], which asserts the reply invariants (exactly one
//! response, on the requesting connection, echoing `opaque`, flag exactly RESPONSE) and hands
//! the reply back.

use crate::common;

use nameserver_core::protocol::body::TopicConfig;
use nameserver_core::protocol::{RemotingCommand, RequestCode, ResponseCode};

use common::requests::*;

// ---------------------------------------------------------------------------------------------
// Topic lists: 206, 224, 304, 311, 312, 313
// ---------------------------------------------------------------------------------------------

fn two_clusters(ns: &mut Ns) {
    ns.register(&Broker::a0().topics(vec![TopicConfig::new("TopicTest", 4), TopicConfig::new("OnlyA", 1)]));
    ns.register(
        &Broker { cluster: "Other", ..Broker::new("broker-b", "127.0.0.2:10911", 0, 3) }
            .topics(vec![TopicConfig::new("TopicTest", 2), TopicConfig::new("OnlyB", 1)]),
    );
}

#[test]
fn all_topic_list() {
    let mut ns = Ns::new();
    assert_eq!(text(&ns.ask(RequestCode::GetAllTopicListFromNameserver, &[])), r#"{"topicList":[]}"#);
    two_clusters(&mut ns);
    let reply = ns.ask(RequestCode::GetAllTopicListFromNameserver, &[]);
    assert_ok(&reply);
    assert_eq!(text(&reply), r#"{"topicList":["OnlyA","OnlyB","TopicTest"]}"#);
}

#[test]
fn topics_by_cluster() {
    let mut ns = Ns::new();
    two_clusters(&mut ns);
    let reply = ns.ask(RequestCode::GetTopicsByCluster, &[("cluster", "Other")]);
    assert_ok(&reply);
    assert_eq!(text(&reply), r#"{"topicList":["OnlyB","TopicTest"]}"#);
    assert_eq!(text(&ns.ask(RequestCode::GetTopicsByCluster, &[("cluster", "Nope")])), r#"{"topicList":[]}"#);
}

#[test]
fn system_topic_list_names_clusters_and_groups_with_one_address() {
    let mut ns = Ns::new();
    let reply = ns.ask(RequestCode::GetSystemTopicListFromNs, &[]);
    assert_ok(&reply);
    assert_eq!(text(&reply), r#"{"topicList":[]}"#);
    two_clusters(&mut ns);
    assert_eq!(
        text(&ns.ask(RequestCode::GetSystemTopicListFromNs, &[])),
        r#"{"brokerAddr":"127.0.0.1:10911","topicList":["DefaultCluster","Other","broker-a","broker-b"]}"#
    );
}

#[test]
fn unit_topic_lists_follow_topic_sys_flag() {
    let mut ns = Ns::new();
    let flagged = |name: &str, flag| TopicConfig { topic_sys_flag: flag, ..TopicConfig::new(name, 1) };
    ns.register(&Broker::a0().topics(vec![
        flagged("Plain", 0),
        flagged("Unit", 1),
        flagged("Sub", 2),
        flagged("Both", 3),
    ]));
    let list = |ns: &mut Ns, code| text(&ns.ask(code, &[])).to_string();
    assert_eq!(list(&mut ns, RequestCode::GetUnitTopicList), r#"{"topicList":["Both","Unit"]}"#);
    assert_eq!(list(&mut ns, RequestCode::GetHasUnitSubTopicList), r#"{"topicList":["Both","Sub"]}"#);
    assert_eq!(list(&mut ns, RequestCode::GetHasUnitSubUnunitTopicList), r#"{"topicList":["Sub"]}"#);
}

#[test]
fn topic_list_switches_answer_disable() {
    let mut all_off = Ns::with(|c| c.enable_all_topic_list = false);
    assert_reply(
        &all_off.ask(RequestCode::GetAllTopicListFromNameserver, &[]),
        ResponseCode::SystemError,
        Some("disable"),
    );
    assert_ok(&all_off.ask(RequestCode::GetTopicsByCluster, &[("cluster", "c")]));

    let mut off = Ns::with(|c| c.enable_topic_list = false);
    for (code, fields) in [
        (RequestCode::GetTopicsByCluster, &[("cluster", "c")][..]),
        // Checked before the header is read (Java 5.2.0+).
        (RequestCode::GetTopicsByCluster, &[][..]),
        (RequestCode::GetUnitTopicList, &[][..]),
        (RequestCode::GetHasUnitSubTopicList, &[][..]),
        (RequestCode::GetHasUnitSubUnunitTopicList, &[][..]),
    ] {
        assert_reply(&off.ask(code, fields), ResponseCode::SystemError, Some("disable"));
    }
    assert_ok(&off.ask(RequestCode::GetAllTopicListFromNameserver, &[]));
    assert_ok(&off.ask(RequestCode::GetSystemTopicListFromNs, &[]));
}

// ---------------------------------------------------------------------------------------------
// DELETE_TOPIC_IN_NAMESRV (216), REGISTER_TOPIC_IN_NAMESRV (217)
// ---------------------------------------------------------------------------------------------

#[test]
fn delete_topic_whole_or_per_cluster() {
    let mut ns = Ns::new();
    two_clusters(&mut ns);
    // Unknown cluster: nothing.
    assert_ok(&ns.ask(RequestCode::DeleteTopicInNamesrv, &[("topic", "TopicTest"), ("clusterName", "Nope")]));
    assert_eq!(ns.parsed_route("TopicTest").unwrap().queue_datas.len(), 2);
    // One cluster's queues.
    assert_ok(&ns.ask(RequestCode::DeleteTopicInNamesrv, &[("topic", "TopicTest"), ("clusterName", "DefaultCluster")]));
    let route = ns.parsed_route("TopicTest").unwrap();
    assert_eq!(route.queue_datas.iter().map(|q| q.broker_name.as_str()).collect::<Vec<_>>(), ["broker-b"]);
    assert_eq!(route.broker_datas.len(), 1);
    // The last cluster's queues: the topic goes.
    ns.ask(RequestCode::DeleteTopicInNamesrv, &[("topic", "TopicTest"), ("clusterName", "Other")]);
    assert!(ns.parsed_route("TopicTest").is_none());
    // Empty clusterName: the whole topic.
    assert_ok(&ns.ask(RequestCode::DeleteTopicInNamesrv, &[("topic", "OnlyA"), ("clusterName", "")]));
    assert!(ns.parsed_route("OnlyA").is_none());
    assert_ok(&ns.ask(RequestCode::DeleteTopicInNamesrv, &[("topic", "OnlyB")]));
    assert_eq!(text(&ns.ask(RequestCode::GetAllTopicListFromNameserver, &[])), r#"{"topicList":[]}"#);
    // Deleting what is not there is still SUCCESS.
    assert_ok(&ns.ask(RequestCode::DeleteTopicInNamesrv, &[("topic", "OnlyB")]));
    // Brokers are untouched.
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"));
}

fn register_topic(topic: &str, queues: &[(&str, i32)]) -> RemotingCommand {
    let queue_datas: Vec<String> = queues
        .iter()
        .map(|(name, n)| {
            format!(r#"{{"brokerName":"{name}","perm":6,"readQueueNums":{n},"topicSysFlag":0,"writeQueueNums":{n}}}"#)
        })
        .collect();
    let body = format!(r#"{{"brokerDatas":[],"filterServerTable":{{}},"queueDatas":[{}]}}"#, queue_datas.join(","));
    request(RequestCode::RegisterTopicInNamesrv, &[("topic", topic)]).with_body(body.into_bytes())
}

#[test]
fn register_topic_new_topic_needs_every_group_known() {
    let mut ns = Ns::new();
    two_clusters(&mut ns);
    assert_ok(&ns.check(ADMIN, register_topic("New", &[("broker-a", 2), ("ghost", 2)])));
    assert!(ns.parsed_route("New").is_none(), "one unknown group: nothing stored");
    assert_ok(&ns.check(ADMIN, register_topic("New", &[("broker-a", 2), ("broker-b", 3)])));
    let route = ns.parsed_route("New").unwrap();
    assert_eq!(route.queue_datas.iter().map(|q| q.read_queue_nums).collect::<Vec<_>>(), [2, 3]);
}

#[test]
fn register_topic_existing_topic_applies_entries_until_an_unknown_group() {
    let mut ns = Ns::new();
    two_clusters(&mut ns);
    ns.check(ADMIN, register_topic("TopicTest", &[("broker-a", 7), ("ghost", 1), ("broker-b", 9)]));
    let route = ns.parsed_route("TopicTest").unwrap();
    let queues: Vec<(&str, i32)> =
        route.queue_datas.iter().map(|q| (q.broker_name.as_str(), q.read_queue_nums)).collect();
    assert_eq!(queues, [("broker-a", 7), ("broker-b", 2)]);
    // Empty body or empty queueDatas: nothing.
    assert_ok(&ns.check(ADMIN, request(RequestCode::RegisterTopicInNamesrv, &[("topic", "Empty")])));
    assert_ok(&ns.check(ADMIN, register_topic("Empty", &[])));
    assert!(ns.parsed_route("Empty").is_none());
    // A body that is not a route is an error.
    let reply =
        ns.check(ADMIN, request(RequestCode::RegisterTopicInNamesrv, &[("topic", "T")]).with_body(b"[".to_vec()));
    assert_eq!(reply.response_code(), ResponseCode::SystemError);
}
