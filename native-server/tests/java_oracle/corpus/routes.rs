//! Topics changed by admin requests, and zone mode.

use super::*;

/// Topics added and deleted by admin requests, and the order-topic KV in routes.
pub(super) fn topics_admin(p: Profile, bv: i32, v: Version, tag: &str) -> Sequence {
    let mut s = Seq::new(format!("topics/{}/b{bv}", p.name), p);
    let b = broker(tag, "C", "t", 8, 10911, 0, 1, bv);
    let topics = broker_topics(&b, &user_topics(tag, 3));
    s.register("register", &b, &topics, (1, 1_700_000_000_000), &[], false, &[]);
    let order_value = format!("{}:4", b.name);
    s.ask(
        "order-conf-put",
        100,
        &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", &format!("{tag}T0")), ("value", &order_value)],
    );
    s.routes("route-ordered", &format!("{tag}T0"));
    s.ask("order-conf-delete", 102, &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", &format!("{tag}T0"))]);
    if v != Version::V4_9_7 {
        let route = json!({
            "queueDatas": [{"brokerName": b.name, "readQueueNums": 2, "writeQueueNums": 2, "perm": 6, "topicSysFlag": 0}],
            "brokerDatas": [],
        });
        s.ask_body("register-topic", 217, &[("topic", &format!("{tag}Added"))], serde_json::to_vec(&route).unwrap());
        s.routes("route-registered-topic", &format!("{tag}Added"));
        s.ask_body("register-topic-unknown-broker", 217, &[("topic", &format!("{tag}Orphan"))], br#"{"queueDatas":[{"brokerName":"nobody","readQueueNums":1,"writeQueueNums":1,"perm":6,"topicSysFlag":0}],"brokerDatas":[]}"#.to_vec());
        s.routes("route-orphan", &format!("{tag}Orphan"));
        s.ask("register-topic-no-body", 217, &[("topic", &format!("{tag}NoBody"))]);
    }
    s.ask("delete-topic-in-cluster", 216, &[("topic", &format!("{tag}T1")), ("clusterName", b.cluster.as_str())]);
    s.routes("route-deleted-in-cluster", &format!("{tag}T1"));
    s.ask("delete-topic-other-cluster", 216, &[("topic", &format!("{tag}T2")), ("clusterName", "Elsewhere")]);
    s.routes("route-other-cluster", &format!("{tag}T2"));
    s.ask("delete-topic", 216, &[("topic", &format!("{tag}T2"))]);
    s.routes("route-deleted", &format!("{tag}T2"));
    s.ask("all-topics", 206, &[]);
    s.close("close", &b);
    s.finish()
}

/// Zone mode: masters in two zones, route queries filtered by zone.
pub(super) fn zones(p: Profile, bv: i32, tag: &str) -> Sequence {
    let mut s = Seq::new(format!("zones/{}/b{bv}", p.name), p);
    let z1 = broker(tag, "C", "z1", 9, 10911, 0, 1, bv);
    let z2 = broker(tag, "C", "z2", 10, 10911, 0, 2, bv);
    let z2s = broker(tag, "C", "z2", 11, 10921, 1, 3, bv);
    let shared = user_topics(tag, 2);
    for (case, b, filter, zone) in [
        ("register-z1", &z1, &["127.0.9.1:40001"][..], "zone1"),
        ("register-z2", &z2, &[], "Zone2"),
        ("register-z2-slave", &z2s, &[], "zone2"),
    ] {
        let topics = broker_topics(b, &shared);
        s.register(case, b, &topics, (1, 1_700_000_000_000), filter, false, &[("__ZONE_NAME", zone)]);
    }
    let t = format!("{tag}T0");
    s.ask("zone1", 105, &[("topic", &t), ("__ZONE_MODE", "true"), ("__ZONE_NAME", "zone1")]);
    s.ask(
        "zone2-case",
        105,
        &[("topic", &t), ("__ZONE_MODE", "true"), ("__ZONE_NAME", "ZONE2"), ("acceptStandardJsonOnly", "true")],
    );
    s.ask("zone-blank", 105, &[("topic", &t), ("__ZONE_MODE", "true"), ("__ZONE_NAME", " ")]);
    s.ask("zone-off", 105, &[("topic", &t), ("__ZONE_MODE", "false"), ("__ZONE_NAME", "zone1")]);
    s.ask("zone-unknown", 105, &[("topic", &t), ("__ZONE_MODE", "true"), ("__ZONE_NAME", "zone9")]);
    s.close("close-z1", &z1);
    s.close("close-z2", &z2);
    s.close("close-z2s", &z2s);
    s.finish()
}
