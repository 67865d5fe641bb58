//! Registrations of every shape: masters and slaves, conflicts, many topics, expiry.

use super::*;

/// One master's life: registration, every query about it, permissions, data versions,
/// re-registrations with the same, a higher and a lower version, unregistration.
pub(super) fn master(p: Profile, bv: i32, compressed: bool, tag: &str) -> Sequence {
    let mut s = Seq::new(format!("master/{}/b{bv}/{}", p.name, if compressed { "zlib" } else { "json" }), p);
    let b = broker(tag, "C", "a", 1, 10911, 0, 1, bv);
    let mut extra = user_topics(tag, 4);
    extra.push((format!("{tag}Unit"), 2, 6, 1));
    extra.push((format!("{tag}UnitSub"), 2, 6, 2));
    extra.push((format!("{tag}Both"), 2, 6, 3));
    extra.push((format!("{tag}ReadOnly"), 2, 4, 0));
    let topics = broker_topics(&b, &extra);
    s.register("register", &b, &topics, (1, 1_700_000_000_000), &[], compressed, &[]);
    s.routes("route", &format!("{tag}T0"));
    s.routes("route-unit", &format!("{tag}Unit"));
    s.routes("route-readonly", &format!("{tag}ReadOnly"));
    s.routes("route-system", "TBW102");
    s.ask("cluster-info", 106, &[]);
    s.ask("all-topics", 206, &[]);
    s.ask("by-cluster", 224, &[("cluster", b.cluster.as_str())]);
    s.ask("system-topics", 304, &[]);
    s.ask("unit", 311, &[]);
    s.ask("has-unit-sub", 312, &[]);
    s.ask("has-unit-sub-ununit", 313, &[]);
    s.ask("member-group", 901, &[("clusterName", b.cluster.as_str()), ("brokerName", b.name.as_str())]);
    s.query_data_version("data-version-same", &b, (1, 1_700_000_000_000));
    s.query_data_version("data-version-other", &b, (2, 1_700_000_000_001));
    s.heartbeat("heartbeat", &b);
    s.ask("wipe", 205, &[("brokerName", b.name.as_str())]);
    s.routes("route-wiped", &format!("{tag}T0"));
    s.ask("wipe-again", 205, &[("brokerName", b.name.as_str())]);
    s.ask("add", 327, &[("brokerName", b.name.as_str())]);
    s.routes("route-added", &format!("{tag}T0"));
    s.register("reregister-same", &b, &topics, (1, 1_700_000_000_000), &[], compressed, &[]);
    s.routes("route-same", &format!("{tag}T0"));
    let fewer: Vec<Topic> = topics.iter().filter(|t| t.0 != format!("{tag}T1")).cloned().collect();
    s.register("reregister-higher", &b, &fewer, (2, 1_700_000_000_500), &[], compressed, &[]);
    s.routes("route-dropped", &format!("{tag}T1"));
    s.register("reregister-lower", &b, &topics, (1, 1_600_000_000_000), &[], compressed, &[]);
    s.routes("route-after-lower", &format!("{tag}T1"));
    s.ask("by-cluster-after", 224, &[("cluster", b.cluster.as_str())]);
    s.unregister("unregister", &b);
    s.routes("route-unregistered", &format!("{tag}T0"));
    s.ask("cluster-info-after", 106, &[]);
    s.unregister("unregister-again", &b);
    s.close("close", &b);
    s.finish()
}

/// A master and a slave (filter servers on the slave), registered in either order.
pub(super) fn master_slave(p: Profile, bv: i32, slave_first: bool, tag: &str) -> Sequence {
    let mut s = Seq::new(
        format!("master-slave/{}/b{bv}/{}", p.name, if slave_first { "slave-first" } else { "master-first" }),
        p,
    );
    let m = broker(tag, "C", "ms", 2, 10911, 0, 1, bv);
    let sl = broker(tag, "C", "ms", 3, 10921, 1, 2, bv);
    let topics = broker_topics(&m, &user_topics(tag, 3));
    let order = if slave_first { [&sl, &m] } else { [&m, &sl] };
    for (i, b) in order.into_iter().enumerate() {
        let filter: &[&str] = if b.id == 1 { &["127.0.3.1:40001"] } else { &[] };
        s.register(&format!("register-{i}-id{}", b.id), b, &topics, (1, 1_700_000_000_000), filter, b.id == 1, &[]);
    }
    s.routes("route", &format!("{tag}T0"));
    s.ask("member-group", 901, &[("clusterName", m.cluster.as_str()), ("brokerName", m.name.as_str())]);
    s.ask("cluster-info", 106, &[]);
    s.register("slave-again", &sl, &topics, (1, 1_700_000_000_000), &["127.0.3.1:40001"], true, &[]);
    s.unregister("unregister-master", &m);
    s.routes("route-slave-only", &format!("{tag}T0"));
    s.ask("member-group-slave-only", 901, &[("clusterName", m.cluster.as_str()), ("brokerName", m.name.as_str())]);
    s.close("close-slave", &sl);
    s.close("close-master", &m);
    s.routes("route-gone", &format!("{tag}T0"));
    s.finish()
}

/// A second master for the same broker name on another address, an address changing id, and
/// a broker that registers many topics in split registrations.
pub(super) fn conflicts(p: Profile, bv: i32, tag: &str) -> Sequence {
    let mut s = Seq::new(format!("conflicts/{}/b{bv}", p.name), p);
    let a = broker(tag, "C", "x", 4, 10911, 0, 1, bv);
    let other = Broker { addr: String::from("127.0.5.1:10911"), conn: 2, ..a.clone() };
    let topics = broker_topics(&a, &user_topics(tag, 3));
    s.register("first-master", &a, &topics, (3, 1_700_000_000_000), &[], false, &[]);
    s.register("conflicting-master-older", &other, &topics, (2, 1_700_000_000_000), &[], false, &[]);
    s.routes("route-after-older", &format!("{tag}T0"));
    s.register("conflicting-master-newer", &other, &topics, (4, 1_700_000_000_000), &[], false, &[]);
    s.routes("route-after-newer", &format!("{tag}T0"));
    s.ask("member-group", 901, &[("clusterName", a.cluster.as_str()), ("brokerName", a.name.as_str())]);
    let promoted = Broker { id: 1, ..a.clone() };
    s.register("same-address-new-id", &promoted, &topics, (5, 1_700_000_000_000), &[], false, &[]);
    s.ask("member-group-after-id-change", 901, &[("clusterName", a.cluster.as_str()), ("brokerName", a.name.as_str())]);
    s.ask("cluster-info", 106, &[]);
    // Split registration: the same version, half of the topics each time.
    let big = broker(tag, "C", "split", 6, 10911, 0, 3, bv);
    let all = broker_topics(&big, &user_topics(&format!("{tag}S"), 40));
    let (first, second) = all.split_at(all.len() / 2);
    s.register("split-1", &big, first, (7, 1_700_000_000_000), &[], false, &[]);
    s.register("split-2", &big, second, (7, 1_700_000_000_000), &[], false, &[]);
    s.routes("route-split-first", &first[first.len() - 1].0);
    s.routes("route-split-second", &second[second.len() - 1].0);
    s.ask("by-cluster", 224, &[("cluster", big.cluster.as_str())]);
    s.close("close-a", &a);
    s.close("close-other", &other);
    s.close("close-split", &big);
    s.finish()
}

/// Many topics in one registration, JSON and compressed.
pub(super) fn many(p: Profile, bv: i32, compressed: bool, tag: &str) -> Sequence {
    let mut s = Seq::new(format!("many/{}/b{bv}/{}", p.name, if compressed { "zlib" } else { "json" }), p);
    let b = broker(tag, "C", "many", 7, 10911, 0, 1, bv);
    let topics = broker_topics(&b, &user_topics(tag, 300));
    s.register("register-300", &b, &topics, (1, 1_700_000_000_000), &[], compressed, &[]);
    s.ask("all-topics", 206, &[]);
    s.ask("by-cluster", 224, &[("cluster", b.cluster.as_str())]);
    s.routes("route-first", &format!("{tag}T0"));
    s.routes("route-last", &format!("{tag}T299"));
    s.ask("cluster-info", 106, &[]);
    s.close("close", &b);
    s.finish()
}

/// A 5.x broker that stops heartbeating: removed after its own `heartbeatTimeoutMillis`.
pub(super) fn expiry(p: Profile, tag: &str) -> Sequence {
    let mut s = Seq::new(format!("expiry/{}", p.name), p);
    let b = broker(tag, "C", "exp", 13, 10911, 0, 1, 479);
    s.register(
        "register-short-timeout",
        &b,
        &broker_topics(&b, &user_topics(tag, 2)),
        (1, 1_700_000_000_000),
        &[],
        false,
        &[("heartbeatTimeoutMillis", "1000")],
    );
    s.heartbeat("heartbeat", &b);
    s.push("expire", Action::AwaitGone { addr: b.addr.clone() });
    s.routes("route-expired", &format!("{tag}T0"));
    s.ask("cluster-info-expired", 106, &[]);
    s.query_data_version("data-version-expired", &b, (1, 1_700_000_000_000));
    s.heartbeat("heartbeat-expired", &b);
    s.close("close", &b);
    s.finish()
}
