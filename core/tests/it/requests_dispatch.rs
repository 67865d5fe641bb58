//! Every request code on a fresh NameServer, dispatch (unknown codes, oneway, responses,
//! header errors) and real client frames.
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

use nameserver_core::codec::{self, Limits};
use nameserver_core::protocol::body::TopicRouteData;
use nameserver_core::protocol::{FLAG_ONEWAY, FLAG_RESPONSE, RemotingCommand, RequestCode, ResponseCode};
use nameserver_core::{ConnId, Input, Output};

use common::requests::*;

// ---------------------------------------------------------------------------------------------
// Every request code of PROTOCOL.md §6, on a fresh NameServer
// ---------------------------------------------------------------------------------------------

/// What a reply's body must be.
enum Body {
    Empty,
    Exact(&'static str),
    StartsWith(&'static str),
}

/// One row: a request to a fresh NameServer and its expected reply.
struct Row {
    code: RequestCode,
    fields: &'static [(&'static str, &'static str)],
    reply: ResponseCode,
    remark: Option<&'static str>,
    /// `None`: no extFields at all; `Some(list)`: exactly these (possibly none).
    ext: Option<&'static [(&'static str, &'static str)]>,
    body: Body,
}

const BROKER: &[(&str, &str)] =
    &[("clusterName", "c"), ("brokerAddr", "127.0.0.1:10911"), ("brokerName", "broker-a"), ("brokerId", "0")];

#[rustfmt::skip]
const EVERY_CODE: &[Row] = &[
    Row { code: RequestCode::PutKvConfig, fields: &[("namespace", "ns"), ("key", "k"), ("value", "v")], reply: ResponseCode::Success, remark: None, ext: None, body: Body::Empty },
    Row { code: RequestCode::GetKvConfig, fields: &[("namespace", "ns"), ("key", "k")], reply: ResponseCode::QueryNotFound, remark: Some("No config item, Namespace: ns Key: k"), ext: Some(&[]), body: Body::Empty },
    Row { code: RequestCode::DeleteKvConfig, fields: &[("namespace", "ns"), ("key", "k")], reply: ResponseCode::Success, remark: None, ext: None, body: Body::Empty },
    // 103 has its own rows below (it needs a body).
    Row { code: RequestCode::UnregisterBroker, fields: BROKER, reply: ResponseCode::Success, remark: None, ext: None, body: Body::Empty },
    Row { code: RequestCode::GetRouteInfoByTopic, fields: &[("topic", "TopicTest")], reply: ResponseCode::TopicNotExist, remark: Some(NOT_EXIST), ext: None, body: Body::Empty },
    Row { code: RequestCode::GetBrokerClusterInfo, fields: &[], reply: ResponseCode::Success, remark: None, ext: None, body: Body::Exact(r#"{"brokerAddrTable":{},"clusterAddrTable":{}}"#) },
    Row { code: RequestCode::WipeWritePermOfBroker, fields: &[("brokerName", "broker-a")], reply: ResponseCode::Success, remark: None, ext: Some(&[("wipeTopicCount", "0")]), body: Body::Empty },
    Row { code: RequestCode::GetAllTopicListFromNameserver, fields: &[], reply: ResponseCode::Success, remark: None, ext: None, body: Body::Exact(r#"{"topicList":[]}"#) },
    Row { code: RequestCode::DeleteTopicInNamesrv, fields: &[("topic", "TopicTest")], reply: ResponseCode::Success, remark: None, ext: None, body: Body::Empty },
    Row { code: RequestCode::RegisterTopicInNamesrv, fields: &[("topic", "TopicTest")], reply: ResponseCode::Success, remark: None, ext: None, body: Body::Empty },
    Row { code: RequestCode::GetKvlistByNamespace, fields: &[("namespace", "ns")], reply: ResponseCode::QueryNotFound, remark: Some("No config item, Namespace: ns"), ext: None, body: Body::Empty },
    Row { code: RequestCode::GetTopicsByCluster, fields: &[("cluster", "c")], reply: ResponseCode::Success, remark: None, ext: None, body: Body::Exact(r#"{"topicList":[]}"#) },
    Row { code: RequestCode::GetSystemTopicListFromNs, fields: &[], reply: ResponseCode::Success, remark: None, ext: None, body: Body::Exact(r#"{"topicList":[]}"#) },
    Row { code: RequestCode::GetUnitTopicList, fields: &[], reply: ResponseCode::Success, remark: None, ext: None, body: Body::Exact(r#"{"topicList":[]}"#) },
    Row { code: RequestCode::GetHasUnitSubTopicList, fields: &[], reply: ResponseCode::Success, remark: None, ext: None, body: Body::Exact(r#"{"topicList":[]}"#) },
    Row { code: RequestCode::GetHasUnitSubUnunitTopicList, fields: &[], reply: ResponseCode::Success, remark: None, ext: None, body: Body::Exact(r#"{"topicList":[]}"#) },
    Row { code: RequestCode::UpdateNamesrvConfig, fields: &[], reply: ResponseCode::Success, remark: None, ext: None, body: Body::Empty },
    Row { code: RequestCode::GetNamesrvConfig, fields: &[], reply: ResponseCode::Success, remark: None, ext: None, body: Body::StartsWith("bindAddress=0.0.0.0\n") },
    Row { code: RequestCode::QueryDataVersion, fields: BROKER, reply: ResponseCode::Success, remark: None, ext: Some(&[("changed", "true")]), body: Body::Empty },
    Row { code: RequestCode::AddWritePermOfBroker, fields: &[("brokerName", "broker-a")], reply: ResponseCode::Success, remark: None, ext: Some(&[("addTopicCount", "0")]), body: Body::Empty },
    Row { code: RequestCode::GetBrokerMemberGroup, fields: &[("clusterName", "c"), ("brokerName", "broker-a")], reply: ResponseCode::Success, remark: Some("not set any response code"), ext: None, body: Body::Exact(r#"{"brokerMemberGroup":{"brokerAddrs":{},"brokerName":"broker-a","cluster":"c"}}"#) },
    Row { code: RequestCode::BrokerHeartbeat, fields: BROKER, reply: ResponseCode::Success, remark: None, ext: None, body: Body::Empty },
];

#[test]
fn every_request_code_answers_on_a_fresh_name_server() {
    let mut seen = std::collections::BTreeSet::new();
    for row in EVERY_CODE {
        let mut ns = Ns::new();
        let reply = ns.ask(row.code, row.fields);
        let what = format!("{:?}", row.code);
        assert_eq!(reply.response_code(), row.reply, "{what}: {:?}", reply.remark);
        assert_eq!(reply.remark.as_deref(), row.remark, "{what}");
        match row.ext {
            None => assert_eq!(reply.ext_fields, None, "{what}"),
            Some(expected) => assert_eq!(fields(&reply), expected, "{what}"),
        }
        match row.body {
            Body::Empty => assert!(reply.body.is_empty(), "{what}: {}", text(&reply)),
            Body::Exact(body) => assert_eq!(text(&reply), body, "{what}"),
            Body::StartsWith(prefix) => assert!(text(&reply).starts_with(prefix), "{what}: {}", text(&reply)),
        }
        seen.insert(row.code.raw());
    }
    // 103 with and without a body.
    let mut ns = Ns::new();
    assert_ok(&ns.register(&Broker::a0()));
    let empty = Broker::a0().cmd().with_body(Vec::new());
    let reply = ns.check(1, empty);
    assert_ok(&reply);
    assert_eq!(reply.ext_fields, Some(BTreeMap::new()));
    seen.insert(103);
    let protocol_6: std::collections::BTreeSet<i32> = [
        100, 101, 102, 103, 104, 105, 106, 205, 206, 216, 217, 219, 224, 304, 311, 312, 313, 318, 319, 322, 327, 901,
        904,
    ]
    .into();
    assert_eq!(seen, protocol_6, "every code of PROTOCOL.md §6");
}

// ---------------------------------------------------------------------------------------------
// Dispatch: unknown codes, oneway, responses
// ---------------------------------------------------------------------------------------------

#[test]
fn unknown_code_is_not_supported_and_the_connection_stays_open() {
    let mut ns = Ns::new();
    for code in [0, 10, 34, 107, 905, 4242, -1] {
        let reply = ns.check(ADMIN, RemotingCommand { code, ..RemotingCommand::default() });
        assert_reply(
            &reply,
            ResponseCode::RequestCodeNotSupported,
            Some(&format!(" request type {code} not supported")),
        );
        assert_eq!(reply.response_code().raw(), 3);
        assert_eq!(reply.ext_fields, None);
    }
    // The connection still works.
    assert_reply(&ns.route("TopicTest"), ResponseCode::TopicNotExist, Some(NOT_EXIST));
}

#[test]
fn oneway_requests_are_processed_but_never_answered() {
    let mut ns = Ns::new();
    let put = request(RequestCode::PutKvConfig, &[("namespace", "ns"), ("key", "k"), ("value", "v")]);
    let out = ns.send(ADMIN, oneway(put)).to_vec();
    assert!(!out.iter().any(|o| matches!(o, Output::Send { .. })), "{out:?}");
    assert!(out.iter().any(|o| matches!(o, Output::KvChanged(_))), "{out:?}");
    assert_eq!(ns.ns.kv().get("ns", "k"), Some("v"));
    // Not even errors or unknown codes are answered.
    assert!(ns.send(ADMIN, oneway(request(RequestCode::PutKvConfig, &[]))).is_empty());
    assert!(ns.send(ADMIN, oneway(RemotingCommand { code: 4242, ..RemotingCommand::default() })).is_empty());
}

#[test]
fn responses_are_ignored() {
    let mut ns = Ns::new();
    for flag in [FLAG_RESPONSE, FLAG_RESPONSE | FLAG_ONEWAY] {
        let mut put = request(RequestCode::PutKvConfig, &[("namespace", "ns"), ("key", "k"), ("value", "v")]);
        put.flag = flag;
        assert!(ns.send(ADMIN, put).is_empty());
    }
    assert_eq!(ns.ns.kv().get("ns", "k"), None, "a response is never dispatched");
}

#[test]
fn header_errors_are_system_errors_with_the_field_named() {
    let mut ns = Ns::new();
    let reply = ns.ask(RequestCode::UnregisterBroker, &[]);
    assert_reply(&reply, ResponseCode::SystemError, Some("the custom field <clusterName> is null"));
    // Java 5.5.0 looks a missing topic up as "null" (the Java oracle's answer).
    let reply = ns.ask(RequestCode::GetRouteInfoByTopic, &[]);
    assert_reply(
        &reply,
        ResponseCode::TopicNotExist,
        Some(
            "No topic route info in name server for the topic: null\nSee https://rocketmq.apache.org/docs/bestPractice/06FAQ for further details.",
        ),
    );
    let mut bad_crc = Broker::a0().cmd();
    bad_crc = bad_crc.with_field("bodyCrc32", "12345");
    let reply = ns.check(1, bad_crc);
    assert_reply(&reply, ResponseCode::SystemError, Some("crc32 not match"));
    // Java made this reply with RegisterBrokerResponseHeader: `"extFields":{}`.
    assert_eq!(reply.ext_fields, Some(Default::default()));
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
    let good_crc = Broker::a0().cmd();
    let crc = (crc32fast_hash(&good_crc.body) & 0x7FFF_FFFF).to_string();
    assert_ok(&ns.check(1, good_crc.with_field("bodyCrc32", crc)));
}

/// CRC-32/IEEE, bitwise (the test must not share the implementation's crc crate call).
fn crc32fast_hash(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for b in bytes {
        crc ^= u32::from(*b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

// ---------------------------------------------------------------------------------------------
// Real client frames, in order, on one connection
// ---------------------------------------------------------------------------------------------

#[derive(serde::Deserialize)]
struct Vector {
    sender: String,
    code: i32,
    frame_hex: String,
}

fn hex(s: &str) -> Vec<u8> {
    let digits: String = s.chars().filter(char::is_ascii_hexdigit).collect();
    (0..digits.len()).step_by(2).map(|i| u8::from_str_radix(&digits[i..i + 2], 16).unwrap()).collect()
}

#[test]
fn real_client_frames_get_sensible_replies() {
    let vectors: Vec<Vector> = include_str!("../testdata/real-client-requests.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut ns = Ns::new();
    ns.input(Input::Connected { conn: ConnId(1), remote: "127.0.0.1:40000".into() });
    let mut replies = Vec::new();
    for (i, v) in vectors.iter().enumerate() {
        let (cmd, _) = codec::decode(&hex(&v.frame_hex), &Limits::DEFAULT).unwrap().unwrap();
        ns.at(1_000 * i as u64);
        // `check` re-stamps opaque; the real opaque must be echoed too.
        let real_opaque = cmd.opaque;
        ns.input(Input::Received { conn: ConnId(1), cmd });
        let reply = ns
            .out
            .iter()
            .find_map(|o| match o {
                Output::Send { conn: ConnId(1), cmd } if cmd.is_response() => Some(cmd.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{} code {}: no reply", v.sender, v.code));
        assert_eq!(reply.opaque, real_opaque);
        // Our reply encodes and decodes to itself.
        let bytes = codec::encode_to_vec(&reply).unwrap();
        assert_eq!(codec::decode(&bytes, &Limits::DEFAULT).unwrap().unwrap().0, reply);
        replies.push((v.code, reply));
    }
    let codes: Vec<(i32, ResponseCode)> = replies.iter().map(|(c, r)| (*c, r.response_code())).collect();
    use ResponseCode::{Success, TopicNotExist};
    assert_eq!(
        codes,
        [
            (103, Success),
            (106, Success),
            (217, Success),
            (105, Success),
            (206, Success),
            (100, Success),
            (319, Success),
            (102, Success),
            (205, Success),
            (327, Success),
            (105, Success),
            (105, Success),
            (105, TopicNotExist),
            (217, Success),
            (105, Success),
            (105, Success),
            (104, Success),
            // ali-ons asks after the broker unregistered.
            (105, TopicNotExist),
        ]
    );
    let body = |i: usize| std::str::from_utf8(&replies[i].1.body).unwrap();
    assert!(body(1).contains(r#""DemoCluster":["broker-a"]"#), "{}", body(1));
    // rocketmq-rust 1.0.0 is version 474 ≥ 401: strict JSON routes.
    for i in [3, 10, 11, 14, 15] {
        let route: TopicRouteData = serde_json::from_str(body(i)).unwrap_or_else(|e| panic!("{i}: {e}"));
        assert_eq!(route.broker_datas[0].broker_name.as_str(), "broker-a");
        assert_eq!(route.broker_datas[0].broker_addrs.values().next().unwrap().as_str(), "127.0.0.1:31911");
    }
    assert!(body(4).contains("TopicTest"));
    assert!(body(6).contains("listenPort=9876\n"));
    let wiped: usize = replies[8].1.field("wipeTopicCount").unwrap().parse().unwrap();
    assert!(wiped > 10, "every topic of broker-a");
    assert_eq!(replies[9].1.field("addTopicCount"), replies[8].1.field("wipeTopicCount"));
    assert_eq!(ns.ns.routes().broker_live_table().len(), 0, "the broker unregistered on its own connection");
    // The ali-ons TOPIC_NOT_EXIST reply to a 4.x client has Java's remark.
    assert_eq!(replies[17].1.remark.as_deref(), Some(NOT_EXIST));
}
