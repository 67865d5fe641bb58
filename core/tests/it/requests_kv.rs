//! KV config requests: 100, 101, 102, 219.
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

use nameserver_core::protocol::{RequestCode, ResponseCode};
use nameserver_core::{Config, Instant, KvConfig, NameServer, Output};

use common::requests::*;

// ---------------------------------------------------------------------------------------------
// KV config: 100, 101, 102, 219
// ---------------------------------------------------------------------------------------------

#[test]
fn kv_put_get_delete_and_list() {
    let mut ns = Ns::new();
    // 100 PUT_KV_CONFIG: SUCCESS, and the whole kvConfig.json to persist.
    let reply = ns.ask(RequestCode::PutKvConfig, &[("namespace", "ns"), ("key", "k"), ("value", "v")]);
    assert_ok(&reply);
    assert_eq!(reply.ext_fields, None);
    assert!(ns.out.contains(&Output::PersistKv(br#"{"configTable":{"ns":{"k":"v"}}}"#.to_vec())));
    assert_ok(
        &ns.ask(
            RequestCode::PutKvConfig,
            &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", "T"), ("value", "broker-a:4")],
        ),
    );
    assert!(ns.out.contains(&Output::PersistKv(
        br#"{"configTable":{"ORDER_TOPIC_CONFIG":{"T":"broker-a:4"},"ns":{"k":"v"}}}"#.to_vec()
    )));
    // Putting the same value again changes nothing and writes nothing.
    assert_ok(&ns.ask(RequestCode::PutKvConfig, &[("namespace", "ns"), ("key", "k"), ("value", "v")]));
    assert!(!ns.out.iter().any(|o| matches!(o, Output::PersistKv(_))));

    // 101 GET_KV_CONFIG: the value in the response header.
    let reply = ns.ask(RequestCode::GetKvConfig, &[("namespace", "ns"), ("key", "k")]);
    assert_ok(&reply);
    assert_eq!(fields(&reply), [("value", "v")]);
    assert!(reply.body.is_empty());

    // 219 GET_KVLIST_BY_NAMESPACE: KVTable.
    let reply = ns.ask(RequestCode::GetKvlistByNamespace, &[("namespace", "ns")]);
    assert_ok(&reply);
    assert_eq!(text(&reply), r#"{"table":{"k":"v"}}"#);

    // 102 DELETE_KV_CONFIG: SUCCESS, persisted; the namespace stays (empty), as in Java.
    assert_ok(&ns.ask(RequestCode::DeleteKvConfig, &[("namespace", "ns"), ("key", "k")]));
    assert!(ns.out.contains(&Output::PersistKv(
        br#"{"configTable":{"ORDER_TOPIC_CONFIG":{"T":"broker-a:4"},"ns":{}}}"#.to_vec()
    )));
    assert_ok(&ns.ask(RequestCode::DeleteKvConfig, &[("namespace", "ns"), ("key", "k")]));
    assert_ok(&ns.ask(RequestCode::DeleteKvConfig, &[("namespace", "nope"), ("key", "k")]));
    let reply = ns.ask(RequestCode::GetKvlistByNamespace, &[("namespace", "ns")]);
    assert_eq!(text(&reply), r#"{"table":{}}"#);
}

#[test]
fn kv_misses_are_query_not_found() {
    let mut ns = Ns::new();
    let reply = ns.ask(RequestCode::GetKvConfig, &[("namespace", "ns"), ("key", "k")]);
    assert_reply(&reply, ResponseCode::QueryNotFound, Some("No config item, Namespace: ns Key: k"));
    assert_eq!(reply.response_code().raw(), 22);
    assert_eq!(reply.ext_fields, Some(BTreeMap::new()), "extFields {{}}");
    let reply = ns.ask(RequestCode::GetKvlistByNamespace, &[("namespace", "ns")]);
    assert_reply(&reply, ResponseCode::QueryNotFound, Some("No config item, Namespace: ns"));
    assert!(reply.body.is_empty());
}

#[test]
fn kv_put_without_namespace_or_key_is_refused() {
    let mut ns = Ns::new();
    for fields in [&[("key", "k"), ("value", "v")][..], &[("namespace", "ns"), ("value", "v")][..]] {
        let reply = ns.ask(RequestCode::PutKvConfig, fields);
        assert_reply(&reply, ResponseCode::SystemError, Some("namespace or key is null"));
        assert!(!ns.out.iter().any(|o| matches!(o, Output::PersistKv(_))));
    }
    assert!(ns.ns.kv().is_empty());
}

#[test]
fn kv_loaded_at_start_is_served() {
    let kv = KvConfig::from_json(br#"{"configTable":{"ORDER_TOPIC_CONFIG":{"TopicTest":"broker-a:4"}}}"#).unwrap();
    let mut ns = Ns::from(NameServer::new(Config::java_defaults("/h", "/r"), kv, Instant::ZERO));
    let reply = ns.ask(RequestCode::GetKvConfig, &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", "TopicTest")]);
    assert_eq!(fields(&reply), [("value", "broker-a:4")]);
}
