//! The requests: hand-written sequences that cover every request code and shape, and seeded
//! random sequences over a small universe of brokers and topics. Every sequence is data, sent
//! unchanged to each server.

use nameserver_core::protocol::body::RegisterBrokerBody;
use nameserver_core::protocol::{LanguageCode, RemotingCommand, SerializeType};
use nameserver_testkit::java::Version;
use serde_json::{Value, json};

/// What a client sends as its language, release ordinal and header serialisation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Profile {
    pub(crate) name: &'static str,
    pub(crate) language: LanguageCode,
    pub(crate) version: i32,
    pub(crate) serialize: SerializeType,
}

/// The clients real deployments send: Java 5.x and 4.9.x, C++, Go, Rust, an old Node.js one.
pub(crate) const PROFILES: [Profile; 6] = [
    Profile { name: "java5-json", language: LanguageCode::Java, version: 513, serialize: SerializeType::Json },
    Profile { name: "java49-rmq", language: LanguageCode::Java, version: 407, serialize: SerializeType::Rocketmq },
    Profile { name: "cpp-json", language: LanguageCode::Cpp, version: 399, serialize: SerializeType::Json },
    Profile { name: "go-json", language: LanguageCode::Go, version: 317, serialize: SerializeType::Json },
    Profile { name: "rust-rmq", language: LanguageCode::Rust, version: 479, serialize: SerializeType::Rocketmq },
    Profile { name: "old-json", language: LanguageCode::NodeJs, version: 121, serialize: SerializeType::Json },
];

/// One thing a sequence does.
#[derive(Clone, Debug)]
pub(crate) enum Action {
    /// Send on a connection (opened on first use) and compare the replies.
    Call { conn: u32, cmd: RemotingCommand },
    /// Send raw bytes and compare what comes back (a reply or a close).
    Raw { conn: u32, bytes: Vec<u8>, code: i32 },
    /// Close a connection (a broker going away without unregistering).
    Close { conn: u32 },
    /// Wait until GET_BROKER_CLUSTER_INFO no longer lists this broker address, on both servers.
    AwaitGone { addr: String },
}

#[derive(Clone, Debug)]
pub(crate) struct Step {
    pub(crate) case: String,
    pub(crate) action: Action,
}

#[derive(Clone, Debug)]
pub(crate) struct Sequence {
    pub(crate) name: String,
    pub(crate) steps: Vec<Step>,
}

/// A broker as the corpus drives it: its own connection, its header fields.
#[derive(Clone, Debug)]
pub(crate) struct Broker {
    pub(crate) cluster: String,
    pub(crate) name: String,
    pub(crate) addr: String,
    pub(crate) id: i64,
    pub(crate) conn: u32,
    pub(crate) version: i32,
}

impl Broker {
    fn ha(&self) -> String {
        let (host, port) = self.addr.rsplit_once(':').unwrap();
        format!("{host}:{}", port.parse::<u32>().unwrap() + 1)
    }
}

/// A topic of a registration: name, queues, perm, sys flag.
pub(crate) type Topic = (String, i32, i32, i32);

/// The topics a real broker always carries, and `extra`.
pub(crate) fn broker_topics(b: &Broker, extra: &[Topic]) -> Vec<Topic> {
    let mut topics = vec![
        (String::from("TBW102"), 8, 7, 0),
        (String::from("SELF_TEST_TOPIC"), 1, 6, 0),
        (b.cluster.clone(), 16, 7, 0),
        (b.name.clone(), 1, 7, 0),
        (String::from("OFFSET_MOVED_EVENT"), 1, 6, 0),
    ];
    topics.extend(extra.iter().cloned());
    topics
}

fn topic_json(t: &Topic) -> Value {
    json!({
        "topicName": t.0, "readQueueNums": t.1, "writeQueueNums": t.1, "perm": t.2,
        "topicFilterType": "SINGLE_TAG", "topicSysFlag": t.3, "order": false, "attributes": {}
    })
}

/// A REGISTER_BROKER body (JSON, or zlib when `compressed`).
pub(crate) fn register_body(
    b: &Broker,
    topics: &[Topic],
    dv: (i64, i64),
    filter: &[&str],
    compressed: bool,
) -> Vec<u8> {
    let table: serde_json::Map<String, Value> = topics.iter().map(|t| (t.0.clone(), topic_json(t))).collect();
    let body = json!({
        "topicConfigSerializeWrapper": {
            "topicConfigTable": table,
            "dataVersion": {"counter": dv.0, "stateVersion": 0, "timestamp": dv.1},
        },
        "filterServerList": filter,
    });
    let text = serde_json::to_vec(&body).unwrap();
    if compressed {
        RegisterBrokerBody::decode(&text, false, b.version, 1 << 30).unwrap().encode_compressed(b.version)
    } else {
        text
    }
}

/// Builds one sequence's steps; opaque numbers are the step's index.
pub(crate) struct Seq {
    name: String,
    steps: Vec<Step>,
    pub(crate) p: Profile,
}

impl Seq {
    pub(crate) fn new(name: impl Into<String>, p: Profile) -> Self {
        Self { name: name.into(), steps: Vec::new(), p }
    }

    pub(crate) fn finish(self) -> Sequence {
        Sequence { name: self.name, steps: self.steps }
    }

    /// A request as profile `p` sends it.
    pub(crate) fn req_as(p: Profile, code: i32, fields: &[(&str, &str)]) -> RemotingCommand {
        let mut cmd = RemotingCommand { code, ..RemotingCommand::default() };
        cmd.language = p.language;
        cmd.version = p.version;
        cmd.serialize_type = p.serialize;
        for (k, v) in fields {
            cmd = cmd.with_field(k, *v);
        }
        cmd
    }

    pub(crate) fn req(&self, code: i32, fields: &[(&str, &str)]) -> RemotingCommand {
        Self::req_as(self.p, code, fields)
    }

    pub(crate) fn push(&mut self, case: &str, action: Action) {
        let action = match action {
            Action::Call { conn, mut cmd } => {
                cmd.opaque = i32::try_from(self.steps.len()).unwrap() + 1;
                Action::Call { conn, cmd }
            }
            other => other,
        };
        self.steps.push(Step { case: case.to_string(), action });
    }

    /// A client request on connection 0.
    pub(crate) fn ask(&mut self, case: &str, code: i32, fields: &[(&str, &str)]) {
        let cmd = self.req(code, fields);
        self.push(case, Action::Call { conn: 0, cmd });
    }

    pub(crate) fn ask_body(&mut self, case: &str, code: i32, fields: &[(&str, &str)], body: Vec<u8>) {
        let cmd = self.req(code, fields).with_body(body);
        self.push(case, Action::Call { conn: 0, cmd });
    }

    /// Route queries for `topic` in both JSON styles.
    pub(crate) fn routes(&mut self, case: &str, topic: &str) {
        self.ask(&format!("{case}/plain"), 105, &[("topic", topic)]);
        self.ask(&format!("{case}/standard"), 105, &[("topic", topic), ("acceptStandardJsonOnly", "true")]);
    }

    /// REGISTER_BROKER over the broker's own connection.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn register(
        &mut self,
        case: &str,
        b: &Broker,
        topics: &[Topic],
        dv: (i64, i64),
        filter: &[&str],
        compressed: bool,
        extra: &[(&str, &str)],
    ) {
        let id = b.id.to_string();
        let ha = b.ha();
        let mut fields = vec![
            ("clusterName", b.cluster.as_str()),
            ("brokerName", b.name.as_str()),
            ("brokerAddr", b.addr.as_str()),
            ("brokerId", id.as_str()),
            ("haServerAddr", ha.as_str()),
            ("compressed", if compressed { "true" } else { "false" }),
            ("bodyCrc32", "0"),
        ];
        if b.version >= 413 {
            fields.push(("enableActingMaster", "false"));
            fields.push(("heartbeatTimeoutMillis", "120000"));
        }
        for (k, v) in extra {
            fields.retain(|(key, _)| key != k);
            fields.push((k, v));
        }
        let mut cmd = self.broker_req(b, 103, &fields);
        cmd.body = register_body(b, topics, dv, filter, compressed);
        self.push(case, Action::Call { conn: b.conn, cmd });
    }

    pub(crate) fn broker_req(&self, b: &Broker, code: i32, fields: &[(&str, &str)]) -> RemotingCommand {
        let mut cmd = self.req(code, fields);
        cmd.language = LanguageCode::Java;
        cmd.version = b.version;
        cmd
    }

    fn broker_fields(b: &Broker) -> [(&str, String); 4] {
        [
            ("clusterName", b.cluster.clone()),
            ("brokerName", b.name.clone()),
            ("brokerAddr", b.addr.clone()),
            ("brokerId", b.id.to_string()),
        ]
    }

    pub(crate) fn unregister(&mut self, case: &str, b: &Broker) {
        let owned = Self::broker_fields(b);
        let fields: Vec<(&str, &str)> = owned.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let cmd = self.broker_req(b, 104, &fields);
        self.push(case, Action::Call { conn: b.conn, cmd });
        // 5.x unregisters in a batch service after it answered: wait for the effect.
        self.push(case, Action::AwaitGone { addr: b.addr.clone() });
    }

    pub(crate) fn query_data_version(&mut self, case: &str, b: &Broker, dv: (i64, i64)) {
        let owned = Self::broker_fields(b);
        let fields: Vec<(&str, &str)> = owned.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let mut cmd = self.broker_req(b, 322, &fields);
        cmd.body = serde_json::to_vec(&json!({"counter": dv.0, "stateVersion": 0, "timestamp": dv.1})).unwrap();
        self.push(case, Action::Call { conn: b.conn, cmd });
    }

    pub(crate) fn heartbeat(&mut self, case: &str, b: &Broker) {
        let owned = Self::broker_fields(b);
        let fields: Vec<(&str, &str)> = owned.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let cmd = self.broker_req(b, 904, &fields);
        self.push(case, Action::Call { conn: b.conn, cmd });
    }

    pub(crate) fn close(&mut self, case: &str, b: &Broker) {
        self.push(case, Action::Close { conn: b.conn });
        self.push(case, Action::AwaitGone { addr: b.addr.clone() });
    }
}

#[allow(clippy::too_many_arguments)]
fn broker(prefix: &str, cluster: &str, name: &str, host: u8, port: u32, id: i64, conn: u32, version: i32) -> Broker {
    Broker {
        cluster: format!("{prefix}{cluster}"),
        name: format!("{prefix}{name}"),
        addr: format!("127.0.{host}.1:{port}"),
        id,
        conn,
        version,
    }
}

fn user_topics(prefix: &str, n: usize) -> Vec<Topic> {
    (0..n).map(|i| (format!("{prefix}T{i}"), 4 + i32::try_from(i % 4).unwrap(), 6, 0)).collect()
}

/// Requests on an empty server: every list and query, and codes nobody serves.
fn empty(p: Profile, tag: &str) -> Sequence {
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

/// The KV table: put, get, list, overwrite, delete, with values fastjson escapes.
fn kv(p: Profile, tag: &str) -> Sequence {
    let mut s = Seq::new(format!("kv/{}", p.name), p);
    let ns = format!("{tag}NS");
    let ns = ns.as_str();
    s.ask("put", 100, &[("namespace", ns), ("key", "k1"), ("value", "v1")]);
    s.ask("get", 101, &[("namespace", ns), ("key", "k1")]);
    s.ask("list", 219, &[("namespace", ns)]);
    let esc = format!("{tag}Escapes");
    let esc = esc.as_str();
    s.ask(
        "put-escapes",
        100,
        &[("namespace", esc), ("key", "k/2"), ("value", "a/b \"q\" \\ é\u{7f}\u{2028}\u{1}\t</x>")],
    );
    s.ask("get-escapes", 101, &[("namespace", esc), ("key", "k/2")]);
    s.ask("list-escapes", 219, &[("namespace", esc)]);
    s.ask("delete-escapes", 102, &[("namespace", esc), ("key", "k/2")]);
    s.ask("put-2", 100, &[("namespace", ns), ("key", "k/2"), ("value", "v2")]);
    s.ask("put-empty-value", 100, &[("namespace", ns), ("key", "k3"), ("value", "")]);
    s.ask("get-empty-value", 101, &[("namespace", ns), ("key", "k3")]);
    s.ask("overwrite", 100, &[("namespace", ns), ("key", "k1"), ("value", "v1b")]);
    s.ask("get-overwritten", 101, &[("namespace", ns), ("key", "k1")]);
    s.ask("delete", 102, &[("namespace", ns), ("key", "k1")]);
    s.ask("get-deleted", 101, &[("namespace", ns), ("key", "k1")]);
    s.ask("delete-again", 102, &[("namespace", ns), ("key", "k1")]);
    s.ask("delete-2", 102, &[("namespace", ns), ("key", "k/2")]);
    s.ask("delete-3", 102, &[("namespace", ns), ("key", "k3")]);
    s.ask("list-emptied", 219, &[("namespace", ns)]);
    s.ask("put-no-value", 100, &[("namespace", ns), ("key", "k4")]);
    s.ask("put-no-key", 100, &[("namespace", ns), ("value", "v")]);
    s.ask("get-no-namespace", 101, &[("key", "k1")]);
    s.ask("list-no-namespace", 219, &[]);
    s.ask("delete-no-key", 102, &[("namespace", ns)]);
    s.finish()
}

/// One master's life: registration, every query about it, permissions, data versions,
/// re-registrations with the same, a higher and a lower version, unregistration.
fn master(p: Profile, bv: i32, compressed: bool, tag: &str) -> Sequence {
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
fn master_slave(p: Profile, bv: i32, slave_first: bool, tag: &str) -> Sequence {
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
fn conflicts(p: Profile, bv: i32, tag: &str) -> Sequence {
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
fn many(p: Profile, bv: i32, compressed: bool, tag: &str) -> Sequence {
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

/// Topics added and deleted by admin requests, and the order-topic KV in routes.
fn topics_admin(p: Profile, bv: i32, v: Version, tag: &str) -> Sequence {
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
fn zones(p: Profile, bv: i32, tag: &str) -> Sequence {
    let mut s = Seq::new(format!("zones/{}/b{bv}", p.name), p);
    let z1 = broker(tag, "C", "z1", 9, 10911, 0, 1, bv);
    let z2 = broker(tag, "C", "z2", 10, 10911, 0, 2, bv);
    let z2s = broker(tag, "C", "z2", 11, 10921, 1, 3, bv);
    let shared = user_topics(tag, 2);
    s.register(
        "register-z1",
        &z1,
        &broker_topics(&z1, &shared),
        (1, 1_700_000_000_000),
        &["127.0.9.1:40001"],
        false,
        &[("__ZONE_NAME", "zone1")],
    );
    s.register(
        "register-z2",
        &z2,
        &broker_topics(&z2, &shared),
        (1, 1_700_000_000_000),
        &[],
        false,
        &[("__ZONE_NAME", "Zone2")],
    );
    s.register(
        "register-z2-slave",
        &z2s,
        &broker_topics(&z2s, &shared),
        (1, 1_700_000_000_000),
        &[],
        false,
        &[("__ZONE_NAME", "zone2")],
    );
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

/// Configuration: read it, change harmless keys (the topic-list switches) and restore them,
/// try keys that are refused.
fn config(p: Profile, v: Version, tag: &str) -> Sequence {
    let mut s = Seq::new(format!("config/{}", p.name), p);
    let b = broker(tag, "C", "cfg", 12, 10911, 0, 1, 479.min(if v.is_4x() { 407 } else { 479 }));
    s.register("register", &b, &broker_topics(&b, &user_topics(tag, 2)), (1, 1_700_000_000_000), &[], false, &[]);
    s.ask("get", 319, &[]);
    s.ask_body("disable-all-topic-list", 318, &[], b"enableAllTopicList=false".to_vec());
    s.ask("all-topics-disabled", 206, &[]);
    s.ask_body("disable-topic-list", 318, &[], b"enableTopicList=false\n".to_vec());
    s.ask("by-cluster-disabled", 224, &[("cluster", b.cluster.as_str())]);
    s.ask("system-disabled", 304, &[]);
    s.ask("unit-disabled", 311, &[]);
    s.ask("has-unit-sub-disabled", 312, &[]);
    s.ask("has-unit-sub-ununit-disabled", 313, &[]);
    s.ask("get-changed", 319, &[]);
    s.ask_body("restore", 318, &[], b"enableAllTopicList=true\nenableTopicList=true".to_vec());
    s.ask("all-topics-restored", 206, &[]);
    s.ask_body("refused-config-store-path", 318, &[], b"configStorePath=/tmp/evil".to_vec());
    s.ask_body("refused-kv-path", 318, &[], b"kvConfigPath=/tmp/evil".to_vec());
    s.ask_body("refused-black-list", 318, &[], b"configBlackList=x".to_vec());
    s.ask_body("unknown-key", 318, &[], b"noSuchKey=1".to_vec());
    s.ask("empty-body", 318, &[]);
    s.ask_body("not-properties", 318, &[], vec![0xff, 0xfe, b'=']);
    s.ask_body("out-of-range", 318, &[], b"serverChannelMaxIdleTimeSeconds=18446744073709551615".to_vec());
    s.ask("get-final", 319, &[]);
    s.close("close", &b);
    s.finish()
}

/// A 5.x broker that stops heartbeating: removed after its own `heartbeatTimeoutMillis`.
fn expiry(p: Profile, tag: &str) -> Sequence {
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

/// Missing and malformed fields and bodies, and frames that are not frames.
fn malformed(p: Profile, tag: &str) -> Sequence {
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
    let mut cmd = s.broker_req(
        &b,
        103,
        &[
            ("clusterName", b.cluster.as_str()),
            ("brokerName", b.name.as_str()),
            ("brokerAddr", b.addr.as_str()),
            ("brokerId", "0"),
            ("compressed", "true"),
        ],
    );
    cmd.body = register_body(&b, &topics, (1, 1), &[], false);
    s.push("register-compressed-flag-json-body", Action::Call { conn: b.conn, cmd });
    let mut cmd = s.broker_req(
        &b,
        103,
        &[
            ("clusterName", b.cluster.as_str()),
            ("brokerName", b.name.as_str()),
            ("brokerAddr", b.addr.as_str()),
            ("brokerId", "0"),
        ],
    );
    cmd.body = b"{not json".to_vec();
    s.push("register-garbage-body", Action::Call { conn: b.conn, cmd });
    let cmd = s.broker_req(
        &b,
        103,
        &[
            ("clusterName", b.cluster.as_str()),
            ("brokerName", b.name.as_str()),
            ("brokerAddr", b.addr.as_str()),
            ("brokerId", "0"),
        ],
    );
    s.push("register-no-body", Action::Call { conn: b.conn, cmd });
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

/// The characters JSON writers disagree on: controls, `/`, DEL, C1, non-ASCII, separators.
pub(crate) const ESCAPES: [&str; 18] = [
    "\u{1}", "\u{8}", "\u{c}", "\u{1f}", "/", "<", "'", "\u{7f}", "\u{80}", "\u{9f}", "\u{a0}", "é", "\u{2028}",
    "\u{2029}", "\u{feff}", "😀", "\u{ffff}", "\\",
];

/// Each of [`ESCAPES`] in a KV value (alone in its namespace, so the body's bytes are stable)
/// and in a broker name, whose route is read back plain (an old client) and standard.
fn escapes(p: Profile, bv: i32, tag: &str) -> Sequence {
    let mut s = Seq::new(format!("escapes/{}/b{bv}", p.name), p);
    for (i, c) in ESCAPES.iter().enumerate() {
        let ns = format!("{tag}Esc{i}");
        let value = format!("a{c}b");
        s.ask(&format!("kv-put-{i}"), 100, &[("namespace", &ns), ("key", &format!("k{c}")), ("value", &value)]);
        s.ask(&format!("kv-list-{i}"), 219, &[("namespace", &ns)]);
        s.ask(&format!("kv-delete-{i}"), 102, &[("namespace", &ns), ("key", &format!("k{c}"))]);
        let index = u32::try_from(i).unwrap();
        let b = Broker {
            name: format!("{tag}B{i}x{c}y"),
            ..broker(tag, "C", "esc", 15, 10911 + index * 10, 0, 1 + index, bv)
        };
        let topic = format!("{tag}E{i}");
        s.register(
            &format!("register-{i}"),
            &b,
            &broker_topics(&b, &[(topic.clone(), 1, 6, 0)]),
            (1, 1_700_000_000_000),
            &[],
            false,
            &[],
        );
        let old = Seq::req_as(PROFILES[5], 105, &[("topic", &topic)]);
        s.push(&format!("route-{i}/plain"), Action::Call { conn: 0, cmd: old });
        s.ask(&format!("route-{i}/standard"), 105, &[("topic", &topic), ("acceptStandardJsonOnly", "true")]);
        s.close(&format!("close-{i}"), &b);
    }
    s.finish()
}

/// Every hand-written sequence for `v`, over the client profiles.
pub(crate) fn hand_written(v: Version) -> Vec<Sequence> {
    let bvs: &[i32] = if v.is_4x() { &[407] } else { &[407, 479] };
    let mut out = Vec::new();
    for (i, p) in PROFILES.iter().enumerate() {
        let tag = format!("p{i}");
        out.push(empty(*p, &tag));
        out.push(kv(*p, &tag));
        for &bv in bvs {
            let tag = format!("p{i}b{bv}");
            out.push(master(*p, bv, i % 2 == 1, &tag));
            out.push(master_slave(*p, bv, i % 2 == 0, &tag));
        }
    }
    let p = PROFILES[0];
    for &bv in bvs {
        let tag = format!("b{bv}");
        out.push(conflicts(p, bv, &tag));
        out.push(many(p, bv, bv == 407, &tag));
        out.push(topics_admin(PROFILES[1], bv, v, &tag));
        out.push(zones(PROFILES[4], bv, &tag));
    }
    out.push(escapes(p, bvs[bvs.len() - 1], "esc"));
    out.push(config(p, v, "cfg"));
    if !v.is_4x() {
        out.push(expiry(p, "exp"));
    }
    out
}

/// The malformed requests, last: Java keeps brokers registered with missing names for good.
pub(crate) fn malformed_all() -> Vec<Sequence> {
    PROFILES.iter().enumerate().map(|(i, p)| malformed(*p, &format!("p{i}"))).collect()
}

/// A small seeded PRNG (xorshift64*): the same seed, the same sequence, on every machine.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % u64::try_from(n).unwrap()).unwrap()
    }
}

/// `steps` random requests over 3 clusters, 4 broker names × 2 ids and 10 topics: registrations
/// (JSON or zlib, varying versions and topic subsets), heartbeats, unregistrations, queries,
/// KV, permission changes and topic deletions. Every broker keeps its connection.
pub(crate) fn random(v: Version, seed: u64, steps: usize) -> Sequence {
    let mut rng = Rng::new(seed);
    let mut s = Seq::new(format!("random/seed{seed}"), PROFILES[0]);
    let tag = format!("r{seed}");
    let bv = if v.is_4x() { 407 } else { 479 };
    let brokers: Vec<Broker> = (0..8)
        .map(|i| {
            let cluster = ["A", "B", "C"][(i / 2) % 3];
            broker(
                &tag,
                cluster,
                &format!("n{}", i / 2),
                20 + u8::try_from(i).unwrap(),
                10911,
                i64::try_from(i % 2).unwrap(),
                1 + u32::try_from(i).unwrap(),
                bv,
            )
        })
        .collect();
    let topics: Vec<String> = (0..10).map(|i| format!("{tag}T{i}")).collect();
    let mut counters = [0i64; 8];
    for _ in 0..steps {
        s.p = PROFILES[rng.below(PROFILES.len())];
        let b = &brokers[rng.below(brokers.len())];
        let topic = topics[rng.below(topics.len())].clone();
        match rng.below(16) {
            0..=3 => {
                let i = usize::try_from(b.conn - 1).unwrap();
                counters[i] += i64::try_from(rng.below(3)).unwrap();
                let mut picked: Vec<Topic> = Vec::new();
                for t in &topics {
                    if rng.below(3) != 0 {
                        picked.push((
                            t.clone(),
                            1 + i32::try_from(rng.below(8)).unwrap(),
                            [6, 6, 7, 4, 2][rng.below(5)],
                            0,
                        ));
                    }
                }
                let compressed = rng.below(3) == 0;
                s.register(
                    "register",
                    b,
                    &broker_topics(b, &picked),
                    (counters[i], 1_700_000_000_000 + counters[i]),
                    &[],
                    compressed,
                    &[],
                );
            }
            4..=6 => {
                if rng.below(2) == 0 {
                    s.ask("route/plain", 105, &[("topic", &topic)]);
                } else {
                    s.ask("route/standard", 105, &[("topic", &topic), ("acceptStandardJsonOnly", "true")]);
                }
            }
            7 => s.ask("cluster-info", 106, &[]),
            8 => s.ask("by-cluster", 224, &[("cluster", b.cluster.as_str())]),
            9 => {
                let i = usize::try_from(b.conn - 1).unwrap();
                s.query_data_version("data-version", b, (counters[i], 1_700_000_000_000 + counters[i]));
            }
            10 => s.ask("member-group", 901, &[("clusterName", b.cluster.as_str()), ("brokerName", b.name.as_str())]),
            11 => {
                if rng.below(2) == 0 {
                    s.ask("wipe", 205, &[("brokerName", b.name.as_str())]);
                } else {
                    s.ask("add", 327, &[("brokerName", b.name.as_str())]);
                }
            }
            12 => {
                if rng.below(3) == 0 {
                    s.unregister("unregister", b);
                } else if !v.is_4x() {
                    s.heartbeat("heartbeat", b);
                } else {
                    s.ask("all-topics", 206, &[]);
                }
            }
            13 => {
                let key = format!("k{}", rng.below(4));
                match rng.below(4) {
                    0 => s.ask(
                        "kv-put",
                        100,
                        &[("namespace", &tag), ("key", &key), ("value", &format!("v{}", rng.below(100)))],
                    ),
                    1 => s.ask("kv-get", 101, &[("namespace", &tag), ("key", &key)]),
                    2 => s.ask("kv-delete", 102, &[("namespace", &tag), ("key", &key)]),
                    _ => s.ask("kv-list", 219, &[("namespace", &tag)]),
                }
            }
            14 => s.ask("delete-topic", 216, &[("topic", &topic)]),
            _ => s.ask("all-topics", 206, &[]),
        }
    }
    for b in &brokers {
        s.close("close", b);
    }
    s.finish()
}
