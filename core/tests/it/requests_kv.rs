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

use nameserver_core::kv::KvChange;
use nameserver_core::protocol::FLAG_RESPONSE;
use nameserver_core::protocol::{RequestCode, ResponseCode};
use nameserver_core::{Config, Input, Instant, KvConfig, NameServer, Output, RequestId};

fn put(namespace: &str, key: &str, value: &str) -> KvChange {
    KvChange::Put { namespace: namespace.into(), key: key.into(), value: value.into() }
}

use common::requests::*;

// ---------------------------------------------------------------------------------------------
// KV config: 100, 101, 102, 219
// ---------------------------------------------------------------------------------------------

#[test]
fn kv_put_get_delete_and_list() {
    let mut ns = Ns::new();
    // 100 PUT_KV_CONFIG: SUCCESS, and the change to persist.
    let reply = ns.ask(RequestCode::PutKvConfig, &[("namespace", "ns"), ("key", "k"), ("value", "v")]);
    assert_ok(&reply);
    assert_eq!(reply.ext_fields, None);
    assert!(ns.out.contains(&Output::KvChanged(put("ns", "k", "v"))));
    assert_eq!(ns.ns.kv().to_json(), br#"{"configTable":{"ns":{"k":"v"}}}"#);
    assert_ok(
        &ns.ask(
            RequestCode::PutKvConfig,
            &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", "T"), ("value", "broker-a:4")],
        ),
    );
    assert!(ns.out.contains(&Output::KvChanged(put("ORDER_TOPIC_CONFIG", "T", "broker-a:4"))));
    assert_eq!(ns.ns.kv().to_json(), br#"{"configTable":{"ORDER_TOPIC_CONFIG":{"T":"broker-a:4"},"ns":{"k":"v"}}}"#);
    // Putting the same value again changes nothing and writes nothing.
    assert_ok(&ns.ask(RequestCode::PutKvConfig, &[("namespace", "ns"), ("key", "k"), ("value", "v")]));
    assert!(!ns.out.iter().any(|o| matches!(o, Output::KvChanged(_))));

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
    assert!(ns.out.contains(&Output::KvChanged(KvChange::Delete { namespace: "ns".into(), key: "k".into() })));
    assert_eq!(ns.ns.kv().to_json(), br#"{"configTable":{"ORDER_TOPIC_CONFIG":{"T":"broker-a:4"},"ns":{}}}"#);
    assert_ok(&ns.ask(RequestCode::DeleteKvConfig, &[("namespace", "ns"), ("key", "k")]));
    assert_ok(&ns.ask(RequestCode::DeleteKvConfig, &[("namespace", "nope"), ("key", "k")]));
    assert!(!ns.out.iter().any(|o| matches!(o, Output::KvChanged(_))), "nothing deleted, nothing to write");
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
        assert!(!ns.out.iter().any(|o| matches!(o, Output::KvChanged(_))));
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

/// The KV budget (a deliberate difference from Java, PROTOCOL.md §11): a value over
/// `max_kv_value` or a put that grows the table over `max_kv_bytes` gets INVALID_PARAMETER
/// naming the flag and the sizes, and changes nothing; a table already over the budget takes
/// puts that do not grow it.
#[test]
fn kv_puts_over_the_budget_are_refused_and_change_nothing() {
    use nameserver_core::Limits;
    let limits = Limits { max_kv_value: 8, max_kv_bytes: 2 * (2 + 1 + 8 + 64), ..Limits::DEFAULT };
    let mut ns = Ns::from(
        NameServer::new(Config::java_defaults("/home/rmq", "/opt/rocketmq"), KvConfig::default(), Instant::ZERO)
            .with_limits(limits),
    );
    let put = |ns: &mut Ns, key: &str, value: &str| {
        ns.ask(RequestCode::PutKvConfig, &[("namespace", "ns"), ("key", key), ("value", value)])
    };
    let reply = put(&mut ns, "a", "123456789");
    assert_eq!(reply.code, ResponseCode::InvalidParameter.raw());
    assert_eq!(
        reply.remark.as_deref(),
        Some("the value is 9 bytes, more than --max-kv-value-bytes (8); nothing changed")
    );
    assert!(ns.out.iter().all(|o| !matches!(o, Output::KvChanged(_) | Output::Events(_))), "{:?}", ns.out);
    assert_ok(&put(&mut ns, "a", "12345678"));
    assert_ok(&put(&mut ns, "b", "12345678"));
    let reply = put(&mut ns, "c", "1");
    assert_eq!(reply.code, ResponseCode::InvalidParameter.raw());
    assert_eq!(
        reply.remark.as_deref(),
        Some(
            "the KV table would hold 218 bytes (namespace + key + value as kvConfig.json writes them + 64 per \
             entry; it holds 150), more than --max-kv-bytes (150); nothing changed"
        )
    );
    assert!(ns.out.iter().all(|o| !matches!(o, Output::KvChanged(_))));
    assert_eq!(ns.ns.kv().get("ns", "c"), None);
    // A put without a value may create an empty namespace: it counts too.
    let reply = ns.ask(RequestCode::PutKvConfig, &[("namespace", "other"), ("key", "k")]);
    assert_eq!(reply.code, ResponseCode::InvalidParameter.raw(), "{reply:?}");
    assert!(ns.ns.kv().namespace("other").is_none());
    // Shrinking and deleting are always allowed.
    assert_ok(&put(&mut ns, "b", "1"));
    assert_ok(&ns.ask(RequestCode::DeleteKvConfig, &[("namespace", "ns"), ("key", "a")]));
    assert_ok(&put(&mut ns, "c", "1"));

    // A table loaded over the budget keeps working for puts that do not grow it.
    let mut kv = KvConfig::default();
    kv.put("ns", "big", &"x".repeat(500));
    let mut ns = Ns::from(
        NameServer::new(Config::java_defaults("/home/rmq", "/opt/rocketmq"), kv, Instant::ZERO).with_limits(limits),
    );
    assert_eq!(ns.ask(RequestCode::GetKvConfig, &[("namespace", "ns"), ("key", "big")]).code, 0);
    assert_ok(&put(&mut ns, "big", "small"));
    assert_eq!(put(&mut ns, "more", "1").code, 0, "the table is now under the budget");
}

#[test]
fn a_request_on_no_connection_is_answered_by_its_id() {
    let mut ns = Ns::new();
    let mut cmd = request(RequestCode::PutKvConfig, &[("namespace", "ns"), ("key", "k"), ("value", "v")]);
    cmd.opaque = 7;
    let out = ns.input(Input::Request { id: RequestId(3), cmd }).to_vec();
    let [Output::KvChanged(change), Output::Events(events), Output::Answer { id: RequestId(3), cmd: reply }] =
        out.as_slice()
    else {
        panic!("{out:?}")
    };
    assert_eq!(*change, put("ns", "k", "v"));
    assert_eq!(events.len(), 1);
    assert_ok(reply);
    assert_eq!((reply.opaque, reply.flag), (7, FLAG_RESPONSE));
    assert_eq!(ns.ns.kv().get("ns", "k"), Some("v"));
    assert!(ns.ns.connections().is_empty(), "no connection was made for it");

    // Oneway: applied, not answered.
    let cmd = oneway(request(RequestCode::DeleteKvConfig, &[("namespace", "ns"), ("key", "k")]));
    assert!(!ns.input(Input::Request { id: RequestId(4), cmd }).iter().any(|o| matches!(o, Output::Answer { .. })));
    assert_eq!(ns.ns.kv().get("ns", "k"), None);

    // A broker's registration needs the connection it lives on.
    for cmd in [Broker::a0().cmd(), Broker::a0().unregister()] {
        let code = cmd.code;
        let out = ns.input(Input::Request { id: RequestId(5), cmd }).to_vec();
        let [Output::Answer { id: RequestId(5), cmd: reply }] = out.as_slice() else { panic!("{out:?}") };
        assert_reply(
            reply,
            ResponseCode::RequestCodeNotSupported,
            Some(&format!(" request type {code} not supported without a connection")),
        );
    }
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
}
