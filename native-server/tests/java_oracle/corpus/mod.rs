//! The requests: hand-written sequences that cover every request code and shape, and seeded
//! random sequences over a small universe of brokers and topics. Every sequence is data, sent
//! unchanged to each server.

use nameserver_core::protocol::body::RegisterBrokerBody;
use nameserver_core::protocol::{LanguageCode, RemotingCommand, SerializeType};
use nameserver_testkit::java::Version;
use serde_json::{Value, json};

mod config;
mod kv;
mod misc;
mod random;
mod registration;
mod routes;

use config::config;
use kv::{escapes, kv};
use misc::{empty, malformed};
pub(crate) use random::{Random, random};
use registration::{conflicts, expiry, many, master, master_slave};
use routes::{topics_admin, zones};

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
    /// Steps pushed so far, drained ones included.
    pushed: usize,
    pub(crate) p: Profile,
}

impl Seq {
    pub(crate) fn new(name: impl Into<String>, p: Profile) -> Self {
        Self { name: name.into(), steps: Vec::new(), pushed: 0, p }
    }

    pub(crate) fn finish(self) -> Sequence {
        Sequence { name: self.name, steps: self.steps }
    }

    /// The steps pushed since the last drain (a long sequence is sent as it is built).
    pub(crate) fn drain(&mut self) -> Vec<Step> {
        std::mem::take(&mut self.steps)
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
                cmd.opaque = i32::try_from(self.pushed % (1 << 30)).unwrap() + 1;
                Action::Call { conn, cmd }
            }
            other => other,
        };
        self.pushed += 1;
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
