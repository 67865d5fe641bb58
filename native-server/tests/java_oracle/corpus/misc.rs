//! An empty server, and missing or malformed fields and frames.

use super::*;

/// Requests on an empty server: every list and query, and codes nobody serves.
pub(super) fn empty(p: Profile, tag: &str) -> Sequence {
    let mut s = Seq::new(format!("empty/{}", p.name), p);
    s.ask("cluster-info", 106, &[]);
    s.ask("all-topics", 206, &[]);
    s.ask("system-topics", 304, &[]);
    s.ask("unit", 311, &[]);
    s.ask("has-unit-sub", 312, &[]);
    s.ask("has-unit-sub-ununit", 313, &[]);
    s.routes("no-topic", &format!("{tag}Missing"));
    s.ask("no-cluster", 224, &[("cluster", "NoSuchCluster")]);
    s.ask("no-namespace", 219, &[("namespace", "NoSuchNamespace")]);
    s.ask("kv-missing", 101, &[("namespace", "NoSuchNamespace"), ("key", "k")]);
    s.ask("member-group-none", 901, &[("clusterName", "NoSuchCluster"), ("brokerName", "nobody")]);
    s.ask("wipe-none", 205, &[("brokerName", "nobody")]);
    s.ask("add-none", 327, &[("brokerName", "nobody")]);
    s.ask("delete-topic-none", 216, &[("topic", "NoSuchTopic")]);
    s.ask("unknown-code", 9999, &[]);
    s.ask("broker-side-code", 10, &[]);
    s.finish()
}

/// Missing and malformed fields and bodies, and frames that are not frames.
pub(super) fn malformed(p: Profile, tag: &str) -> Sequence {
    let mut s = Seq::new(format!("malformed/{}", p.name), p);
    let b = broker(tag, "C", "bad", 14, 10911, 0, 1, 479);
    let topics = broker_topics(&b, &user_topics(tag, 2));
    s.register("register-no-broker-name", &b, &topics, (1, 1), &[], false, &[("brokerName", "")]);
    let mut cmd = s.broker_req(
        &b,
        103,
        &[("clusterName", b.cluster.as_str()), ("brokerAddr", b.addr.as_str()), ("brokerId", "0")],
    );
    cmd.body = register_body(&b, &topics, (1, 1), &[], false);
    s.push("register-missing-fields", Action::Call { conn: b.conn, cmd });
    s.register("register-bad-id", &b, &topics, (1, 1), &[], false, &[("brokerId", "abc")]);
    s.register("register-crc-mismatch", &b, &topics, (1, 1), &[], false, &[("bodyCrc32", "12345")]);
    let crc = (crc32fast::hash(&register_body(&b, &topics, (1, 1), &[], false)) & 0x7FFF_FFFF).to_string();
    s.register("register-crc-match", &b, &topics, (1, 1), &[], false, &[("bodyCrc32", crc.as_str())]);
    // REGISTER_BROKER with the broker's names and id, none of the other fields, and `extra`.
    let bare = |s: &mut Seq, case: &str, extra: &[(&str, &str)], body: Vec<u8>| {
        let mut fields = vec![
            ("clusterName", b.cluster.as_str()),
            ("brokerName", b.name.as_str()),
            ("brokerAddr", b.addr.as_str()),
            ("brokerId", "0"),
        ];
        fields.extend_from_slice(extra);
        let cmd = s.broker_req(&b, 103, &fields).with_body(body);
        s.push(case, Action::Call { conn: b.conn, cmd });
    };
    let json = register_body(&b, &topics, (1, 1), &[], false);
    bare(&mut s, "register-compressed-flag-json-body", &[("compressed", "true")], json);
    bare(&mut s, "register-garbage-body", &[], b"{not json".to_vec());
    bare(&mut s, "register-no-body", &[], Vec::new());
    s.ask("route-no-topic-field", 105, &[]);
    s.ask("route-empty-topic", 105, &[("topic", "")]);
    s.ask("route-bad-standard-flag", 105, &[("topic", "X"), ("acceptStandardJsonOnly", "yes")]);
    s.ask("unregister-missing", 104, &[("brokerName", "x")]);
    s.ask("wipe-missing", 205, &[]);
    s.ask("add-missing", 327, &[]);
    s.ask("delete-topic-missing", 216, &[]);
    s.ask("register-topic-missing", 217, &[]);
    s.ask("by-cluster-missing", 224, &[]);
    s.ask("member-group-missing", 901, &[]);
    s.ask("heartbeat-missing", 904, &[]);
    s.ask(
        "data-version-missing-body",
        322,
        &[("clusterName", "c"), ("brokerName", "b"), ("brokerAddr", "a"), ("brokerId", "0")],
    );
    s.ask_body(
        "data-version-garbage-body",
        322,
        &[("clusterName", "c"), ("brokerName", "b"), ("brokerAddr", "a"), ("brokerId", "0")],
        b"[1,2".to_vec(),
    );
    s.ask("data-version-missing-fields", 322, &[]);
    s.ask("data-version-no-addr", 322, &[("clusterName", "c"), ("brokerName", "b"), ("brokerId", "0")]);
    s.ask("heartbeat-no-addr", 904, &[("clusterName", "c"), ("brokerName", "b"), ("brokerId", "0")]);
    // Frames that are not frames: each on a fresh connection, which the server closes.
    let mut conn = 100;
    let good = nameserver_core::codec::encode_to_vec(&s.req(106, &[])).unwrap();
    let mut bad_type = good.clone();
    bad_type[4] = 7;
    let mut bad_len = good.clone();
    bad_len[5..8].copy_from_slice(&[0, 0xff, 0xff]);
    let mut bad_json = good.clone();
    bad_json[8] = b'[';
    for (case, bytes) in [
        ("frame-bad-serialize-type", bad_type),
        ("frame-header-too-long", bad_len),
        ("frame-header-not-json", bad_json),
    ] {
        if case == "frame-header-not-json" && p.serialize == SerializeType::Rocketmq {
            continue;
        }
        s.push(case, Action::Raw { conn, bytes, code: 106 });
        conn += 1;
    }
    s.push("close", Action::Close { conn: b.conn });
    s.finish()
}
