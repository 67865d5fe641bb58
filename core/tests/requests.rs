//! One NameServer driven through `Input::Received`, request code by request code
//! (PROTOCOL.md §5–§11): codes, remarks in Java's wording, response extFields and bodies byte
//! for byte where PROTOCOL.md gives them.
//!
//! Every test goes through [`Ns::check`], which asserts the reply invariants (exactly one
//! response, on the requesting connection, echoing `opaque`, flag exactly RESPONSE) and hands
//! the reply back.

use std::collections::BTreeMap;

use nameserver_core::codec::{self, Limits};
use nameserver_core::event::UnregisterReason;
use nameserver_core::json::{JsonStyle, WriteJson};
use nameserver_core::protocol::body::{DataVersion, RegisterBrokerBody, TopicConfig, TopicRouteData};
use nameserver_core::protocol::{
    FLAG_ONEWAY, FLAG_RESPONSE, RemotingCommand, RequestCode, ResponseCode, SERVER_VERSION,
};
use nameserver_core::{BrokerAddr, ClusterName, Config, ConnId, Event, Input, Instant, KvConfig, NameServer, Output};

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

/// A NameServer started at time 0 plus the outputs of the last input.
struct Ns {
    ns: NameServer,
    now: u64,
    opaque: i32,
    /// Everything the last input produced, in order.
    out: Vec<Output>,
}

const ADMIN: u64 = 99;

impl Ns {
    fn new() -> Self {
        Self::with(|_| {})
    }

    fn with(configure: impl FnOnce(&mut Config)) -> Self {
        let mut config = Config::java_defaults("/home/rmq", "/opt/rocketmq");
        configure(&mut config);
        Self::from(NameServer::new(config, KvConfig::default(), Instant::ZERO))
    }

    fn from(ns: NameServer) -> Self {
        Self { ns, now: 0, opaque: 0, out: Vec::new() }
    }

    /// Moves the clock to `ms` (never backwards).
    fn at(&mut self, ms: u64) -> &mut Self {
        assert!(ms >= self.now, "tests keep time monotonic");
        self.now = ms;
        self
    }

    /// Feeds one input and keeps what it produced in `self.out`.
    fn input(&mut self, input: Input) -> &[Output] {
        self.ns.handle(Instant::from_millis(self.now), input);
        self.out.clear();
        while let Some(o) = self.ns.poll_output() {
            self.out.push(o);
        }
        &self.out
    }

    /// Delivers the timer: runs every scan due by now.
    fn tick(&mut self, ms: u64) -> &[Output] {
        self.at(ms);
        self.input(Input::Timeout)
    }

    /// Sends `cmd` (stamped with a fresh opaque) on `conn`; returns every output it caused.
    fn send(&mut self, conn: u64, mut cmd: RemotingCommand) -> &[Output] {
        self.opaque += 1;
        cmd.opaque = self.opaque;
        self.input(Input::Received { conn: ConnId(conn), cmd })
    }

    /// Sends a request and returns its one reply, checking the reply invariants.
    fn check(&mut self, conn: u64, cmd: RemotingCommand) -> RemotingCommand {
        assert!(!cmd.is_oneway() && !cmd.is_response());
        self.send(conn, cmd);
        let replies: Vec<&RemotingCommand> = self
            .out
            .iter()
            .filter_map(|o| match o {
                Output::Send { cmd, .. } if cmd.is_response() => Some(cmd),
                _ => None,
            })
            .collect();
        assert_eq!(replies.len(), 1, "exactly one reply: {:?}", self.out);
        let reply = replies[0].clone();
        assert!(
            self.out.iter().any(|o| matches!(o, Output::Send { conn: c, cmd } if *c == ConnId(conn) && *cmd == reply))
        );
        assert_eq!(reply.opaque, self.opaque, "opaque echoed");
        assert_eq!(reply.flag, FLAG_RESPONSE, "flag is exactly RESPONSE");
        assert_eq!(reply.version, SERVER_VERSION);
        assert!(
            !self.out.iter().any(|o| matches!(o, Output::Close { conn: c } if *c == ConnId(conn))),
            "a request never closes its connection: {:?}",
            self.out
        );
        reply
    }

    /// Sends an admin request with `fields` and returns the reply.
    fn ask(&mut self, code: RequestCode, fields: &[(&str, &str)]) -> RemotingCommand {
        self.check(ADMIN, request(code, fields))
    }

    /// Registers `broker` on its connection and returns the reply.
    fn register(&mut self, broker: &Broker) -> RemotingCommand {
        self.check(broker.conn, broker.cmd())
    }

    /// The route reply for `topic` to a 5.x client.
    fn route(&mut self, topic: &str) -> RemotingCommand {
        self.check(ADMIN, route_query(topic, 479))
    }

    /// The route of `topic` as a 5.x client parses it, or `None` for TOPIC_NOT_EXIST.
    fn parsed_route(&mut self, topic: &str) -> Option<TopicRouteData> {
        let reply = self.route(topic);
        match reply.response_code() {
            ResponseCode::Success => Some(serde_json::from_slice::<TopicRouteData>(&reply.body).unwrap()),
            ResponseCode::TopicNotExist => None,
            other => panic!("{other:?}"),
        }
    }

    fn live(&self, cluster: &str, addr: &str) -> bool {
        self.ns.routes().live(&ClusterName::from(cluster), &BrokerAddr::from(addr)).is_some()
    }

    fn events(&self) -> Vec<&Event> {
        self.out
            .iter()
            .filter_map(|o| match o {
                Output::Event(e) => Some(e),
                _ => None,
            })
            .collect()
    }

    fn closes(&self) -> Vec<ConnId> {
        self.out
            .iter()
            .filter_map(|o| match o {
                Output::Close { conn } => Some(*conn),
                _ => None,
            })
            .collect()
    }
}

fn request(code: RequestCode, fields: &[(&str, &str)]) -> RemotingCommand {
    let mut cmd = RemotingCommand::request(code);
    cmd.version = 479;
    for (k, v) in fields {
        cmd = cmd.with_field(k, *v);
    }
    cmd
}

fn route_query(topic: &str, version: i32) -> RemotingCommand {
    let mut cmd = request(RequestCode::GetRouteInfoByTopic, &[("topic", topic)]);
    cmd.version = version;
    cmd
}

fn oneway(mut cmd: RemotingCommand) -> RemotingCommand {
    cmd.flag = FLAG_ONEWAY;
    cmd
}

fn text(reply: &RemotingCommand) -> &str {
    std::str::from_utf8(&reply.body).unwrap()
}

fn fields(reply: &RemotingCommand) -> Vec<(&str, &str)> {
    reply.ext_fields.iter().flatten().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

#[track_caller]
fn assert_reply(reply: &RemotingCommand, code: ResponseCode, remark: Option<&str>) {
    assert_eq!(reply.response_code(), code, "remark: {:?}", reply.remark);
    assert_eq!(reply.remark.as_deref(), remark);
}

#[track_caller]
fn assert_ok(reply: &RemotingCommand) {
    assert_reply(reply, ResponseCode::Success, None);
}

/// One broker instance and what its next REGISTER_BROKER carries.
#[derive(Clone)]
struct Broker {
    cluster: &'static str,
    addr: &'static str,
    name: &'static str,
    id: i64,
    ha: &'static str,
    conn: u64,
    version: DataVersion,
    topics: Vec<TopicConfig>,
    /// `enableActingMaster`; `None` is a 4.9.x broker.
    acting: Option<bool>,
    timeout: Option<u64>,
    zone: Option<&'static str>,
    filter_servers: Vec<String>,
}

impl Broker {
    fn new(name: &'static str, addr: &'static str, id: i64, conn: u64) -> Self {
        Self {
            cluster: "DefaultCluster",
            addr,
            name,
            id,
            ha: "ha",
            conn,
            version: DataVersion { counter: 1, state_version: 0, timestamp: 1_700_000_000_000 },
            topics: vec![TopicConfig::new("TopicTest", 4), TopicConfig { perm: 7, ..TopicConfig::new("TBW102", 8) }],
            acting: Some(false),
            timeout: None,
            zone: None,
            filter_servers: Vec::new(),
        }
    }

    /// broker-a's master, 127.0.0.1:10911 (HA 127.0.0.1:10912), on connection 1.
    fn a0() -> Self {
        Self { ha: "127.0.0.1:10912", ..Self::new("broker-a", "127.0.0.1:10911", 0, 1) }
    }

    /// broker-a's slave 1, 127.0.0.1:10921 (HA 127.0.0.1:10922), on connection 2.
    fn a1() -> Self {
        Self { ha: "127.0.0.1:10922", ..Self::new("broker-a", "127.0.0.1:10921", 1, 2) }
    }

    fn topics(mut self, topics: Vec<TopicConfig>) -> Self {
        self.topics = topics;
        self
    }

    fn counter(mut self, counter: i64) -> Self {
        self.version.counter = counter;
        self
    }

    fn cmd(&self) -> RemotingCommand {
        let mut body = RegisterBrokerBody { filter_server_list: self.filter_servers.clone(), ..Default::default() };
        body.topic_config_wrapper.data_version = self.version;
        for t in &self.topics {
            body.topic_config_wrapper.topic_config_table.insert(t.topic_name.clone(), t.clone());
        }
        let id = self.id.to_string();
        let mut cmd = request(
            RequestCode::RegisterBroker,
            &[
                ("clusterName", self.cluster),
                ("brokerAddr", self.addr),
                ("brokerName", self.name),
                ("brokerId", &id),
                ("haServerAddr", self.ha),
                ("compressed", "false"),
            ],
        )
        .with_body(body.to_json(JsonStyle::Plain));
        if let Some(acting) = self.acting {
            cmd = cmd.with_field("enableActingMaster", acting.to_string());
        } else {
            cmd.version = 400;
        }
        if let Some(ms) = self.timeout {
            cmd = cmd.with_field("heartbeatTimeoutMillis", ms.to_string());
        }
        if let Some(zone) = self.zone {
            cmd = cmd.with_field("__ZONE_NAME", zone);
        }
        cmd
    }

    fn identity(&self) -> RemotingCommand {
        self.fill(RemotingCommand::request(RequestCode::UnregisterBroker))
    }

    fn fill(&self, mut cmd: RemotingCommand) -> RemotingCommand {
        cmd.version = 479;
        cmd.with_field("clusterName", self.cluster)
            .with_field("brokerAddr", self.addr)
            .with_field("brokerName", self.name)
            .with_field("brokerId", self.id.to_string())
    }

    fn unregister(&self) -> RemotingCommand {
        self.identity()
    }

    fn heartbeat(&self) -> RemotingCommand {
        let mut cmd = self.fill(RemotingCommand::request(RequestCode::BrokerHeartbeat));
        cmd.flag = FLAG_ONEWAY;
        cmd
    }

    fn query_data_version(&self, version: Option<DataVersion>) -> RemotingCommand {
        let cmd = self.fill(RemotingCommand::request(RequestCode::QueryDataVersion));
        match version {
            Some(v) => cmd.with_body(v.to_json(JsonStyle::Plain)),
            None => cmd,
        }
    }
}

const NOT_EXIST: &str = "No topic route info in name server for the topic: TopicTest\nSee https://rocketmq.apache.org/docs/bestPractice/06FAQ for further details.";

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
    Row { code: RequestCode::GetBrokerMemberGroup, fields: &[("clusterName", "c"), ("brokerName", "broker-a")], reply: ResponseCode::Success, remark: None, ext: None, body: Body::Exact(r#"{"brokerMemberGroup":{"brokerAddrs":{},"brokerName":"broker-a","cluster":"c"}}"#) },
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
    assert!(out.contains(&Output::PersistKv(br#"{"configTable":{"ns":{"k":"v"}}}"#.to_vec())));
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
    let reply = ns.ask(RequestCode::GetRouteInfoByTopic, &[]);
    assert_reply(&reply, ResponseCode::SystemError, Some("the custom field <topic> is null"));
    let mut bad_crc = Broker::a0().cmd();
    bad_crc = bad_crc.with_field("bodyCrc32", "12345");
    assert_reply(&ns.check(1, bad_crc), ResponseCode::SystemError, Some("crc32 not match"));
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

// ---------------------------------------------------------------------------------------------
// REGISTER_BROKER (103)
// ---------------------------------------------------------------------------------------------

#[test]
fn master_registration_succeeds_with_an_empty_header_and_no_body() {
    let mut ns = Ns::new();
    let reply = ns.register(&Broker::a0());
    assert_ok(&reply);
    assert_eq!(reply.ext_fields, Some(BTreeMap::new()), "a typed (empty) response header");
    assert!(reply.body.is_empty(), "no ORDER_TOPIC_CONFIG namespace, no body");
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"));
    assert!(ns.events().iter().any(|e| matches!(e, Event::BrokerRegistered { broker_id, .. } if broker_id.0 == 0)));
    assert!(ns.events().iter().any(|e| e.to_string().starts_with("new broker registered")), "{:?}", ns.events());
    let route = ns.route("TopicTest");
    assert_eq!(
        text(&route),
        r#"{"brokerDatas":[{"brokerAddrs":{"0":"127.0.0.1:10911"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}"#
    );
    // A re-registration (the 30 s heartbeat) is not "new".
    ns.at(30_000).register(&Broker::a0());
    assert!(!ns.events().iter().any(|e| matches!(e, Event::BrokerRegistered { .. })));
}

#[test]
fn register_reply_carries_the_order_topic_config_namespace() {
    let mut ns = Ns::new();
    ns.ask(
        RequestCode::PutKvConfig,
        &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", "TopicOrder"), ("value", "broker-a:4;broker-b:4")],
    );
    let reply = ns.register(&Broker::a0());
    assert_ok(&reply);
    assert_eq!(text(&reply), r#"{"table":{"TopicOrder":"broker-a:4;broker-b:4"}}"#);
    // Emptied namespace: an empty table, still a body.
    ns.ask(RequestCode::DeleteKvConfig, &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", "TopicOrder")]);
    assert_eq!(text(&ns.register(&Broker::a0())), r#"{"table":{}}"#);

    let mut off = Ns::with(|c| c.return_order_topic_config_to_broker = false);
    off.ask(RequestCode::PutKvConfig, &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", "T"), ("value", "broker-a:4")]);
    assert!(off.register(&Broker::a0()).body.is_empty());
}

#[test]
fn slave_gets_master_addresses_only_while_the_master_is_live() {
    let mut ns = Ns::new();
    // No master yet: nothing.
    let reply = ns.register(&Broker::a1());
    assert_ok(&reply);
    assert_eq!(reply.ext_fields, Some(BTreeMap::new()));
    // Master registers: a master never gets master fields.
    assert_eq!(fields(&ns.register(&Broker::a0())), []);
    // Now the slave learns the master's address and HA address.
    let reply = ns.register(&Broker::a1());
    assert_eq!(fields(&reply), [("haServerAddr", "127.0.0.1:10912"), ("masterAddr", "127.0.0.1:10911")]);
    // Both members are in the route, the master under 0.
    let route = ns.parsed_route("TopicTest").unwrap();
    assert_eq!(route.broker_datas.len(), 1);
    let addrs: Vec<(i64, &str)> = route.broker_datas[0].broker_addrs.iter().map(|(k, v)| (k.0, v.as_str())).collect();
    assert_eq!(addrs, [(0, "127.0.0.1:10911"), (1, "127.0.0.1:10921")]);
    // The master's connection closes: it is gone and the slave gets nothing again.
    ns.input(Input::Disconnected { conn: ConnId(1) });
    assert_eq!(fields(&ns.register(&Broker::a1())), []);
}

#[test]
fn slave_of_an_expired_master_gets_nothing() {
    let mut ns = Ns::new();
    ns.at(1_000).register(&Broker { timeout: Some(10_000), ..Broker::a0() });
    ns.at(2_000).register(&Broker::a1());
    assert_eq!(fields(&ns.register(&Broker::a1())).len(), 2);
    ns.tick(15_000);
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
    assert_eq!(fields(&ns.register(&Broker::a1())), []);
}

#[test]
fn slaves_do_not_change_topics_while_a_master_is_registered() {
    let mut ns = Ns::new();
    ns.register(&Broker::a0());
    ns.register(
        &Broker::a1().counter(9).topics(vec![TopicConfig::new("TopicTest", 1), TopicConfig::new("SlaveOnly", 1)]),
    );
    assert_eq!(ns.parsed_route("TopicTest").unwrap().queue_datas[0].read_queue_nums, 4);
    assert!(ns.parsed_route("SlaveOnly").is_none());
}

#[test]
fn a_lone_slave_is_the_prime_slave_and_serves_topics() {
    let mut ns = Ns::new();
    ns.register(&Broker::a1());
    let route = ns.parsed_route("TopicTest").unwrap();
    assert_eq!(route.queue_datas[0].perm, 6, "no acting master: perms kept");
    // In acting-master mode its queues lose write permission.
    let mut acting = Ns::new();
    acting.register(&Broker { acting: Some(true), ..Broker::a1() });
    let route = acting.parsed_route("TopicTest").unwrap();
    assert_eq!(route.queue_datas[0].perm, 4);
    assert!(route.broker_datas[0].enable_acting_master);
    // A 4.9.x slave (no enableActingMaster header) never touches topics.
    let mut old = Ns::new();
    old.register(&Broker { acting: None, ..Broker::a1() });
    assert!(old.parsed_route("TopicTest").is_none());
}

#[test]
fn topic_configs_apply_only_on_a_data_version_change_or_for_missing_topics() {
    let mut ns = Ns::new();
    ns.register(&Broker::a0());
    // Same data version, different queue count: an unchanged version means an unchanged table.
    ns.at(30_000).register(&Broker::a0().topics(vec![
        TopicConfig::new("TopicTest", 8),
        TopicConfig { perm: 7, ..TopicConfig::new("TBW102", 8) },
        TopicConfig::new("NewTopic", 2),
    ]));
    assert_eq!(ns.parsed_route("TopicTest").unwrap().queue_datas[0].read_queue_nums, 4);
    // ... except for a topic the group does not have yet.
    assert_eq!(ns.parsed_route("NewTopic").unwrap().queue_datas[0].read_queue_nums, 2);
    // A new data version applies every listed topic.
    ns.at(60_000).register(
        &Broker::a0().counter(2).topics(vec![TopicConfig::new("TopicTest", 8), TopicConfig::new("TBW102", 1)]),
    );
    assert_eq!(ns.parsed_route("TopicTest").unwrap().queue_datas[0].write_queue_nums, 8);
    // Topics missing from a registration stay (deleteTopicWithBrokerRegistration is off).
    assert!(ns.parsed_route("NewTopic").is_some());
    // A changed stateVersion or timestamp is a change too.
    let mut b = Broker::a0().counter(2).topics(vec![TopicConfig::new("TopicTest", 3), TopicConfig::new("TBW102", 1)]);
    b.version.timestamp += 1;
    ns.register(&b);
    assert_eq!(ns.parsed_route("TopicTest").unwrap().queue_datas[0].read_queue_nums, 3);
}

#[test]
fn delete_topic_with_broker_registration_drops_unlisted_topics() {
    let mut ns = Ns::with(|c| c.delete_topic_with_broker_registration = true);
    ns.register(&Broker::a0());
    ns.register(&Broker::a0().counter(2).topics(vec![TopicConfig::new("TopicTest", 4), TopicConfig::new("Other", 1)]));
    assert!(ns.parsed_route("TBW102").is_none());
    assert!(ns.parsed_route("Other").is_some());
}

#[test]
fn single_topic_registration_of_an_unknown_instance_fails_and_leaves_an_empty_group() {
    let mut ns = Ns::new();
    let b = Broker::new("broker-z", "127.0.0.9:10911", 0, 5).topics(vec![TopicConfig::new("Lonely", 1)]);
    let reply = ns.register(&b);
    assert_reply(&reply, ResponseCode::SystemError, Some("register broker failed"));
    assert!(reply.body.is_empty());
    assert!(!ns.live("DefaultCluster", "127.0.0.9:10911"));
    assert!(ns.parsed_route("Lonely").is_none());
    // Java's side effect: the group exists, with no members.
    let reply = ns.ask(RequestCode::GetBrokerClusterInfo, &[]);
    assert_eq!(
        text(&reply),
        r#"{"brokerAddrTable":{"broker-z":{"brokerAddrs":{},"brokerName":"broker-z","cluster":"DefaultCluster","enableActingMaster":false}},"clusterAddrTable":{"DefaultCluster":["broker-z"]}}"#
    );
    // Once registered with its full table, single-topic (incremental) registrations work.
    ns.register(&b.clone().topics(vec![TopicConfig::new("A", 1), TopicConfig::new("B", 1)]));
    assert_ok(&ns.register(&b.counter(2)));
    assert!(ns.parsed_route("Lonely").is_some());
}

#[test]
fn a_registration_with_a_lower_state_version_loses_to_the_live_holder_of_its_id() {
    let mut ns = Ns::new();
    let mut holder = Broker::a0();
    holder.version.state_version = 2;
    ns.register(&holder);
    // A second instance claims id 0 with an older state version: "empty result".
    let mut stale = Broker { addr: "127.0.0.1:20911", ha: "127.0.0.1:20912", conn: 3, ..Broker::a0() };
    stale.version.state_version = 1;
    stale.topics = vec![TopicConfig::new("TopicTest", 1), TopicConfig::new("X", 1)];
    let reply = ns.register(&stale);
    assert_ok(&reply);
    assert_eq!(reply.ext_fields, Some(BTreeMap::new()));
    assert!(!ns.live("DefaultCluster", "127.0.0.1:20911"));
    assert!(ns.events().iter().any(|e| matches!(e, Event::RegistrationConflict { .. })));
    let route = ns.parsed_route("TopicTest").unwrap();
    assert_eq!(
        route.broker_datas[0].broker_addrs.values().map(BrokerAddr::as_str).collect::<Vec<_>>(),
        ["127.0.0.1:10911"]
    );
    assert_eq!(route.queue_datas[0].read_queue_nums, 4);
    assert!(ns.parsed_route("X").is_none());
    // An equal state version is not "greater": the newcomer takes the id.
    stale.version.state_version = 2;
    assert_ok(&ns.register(&stale));
    let route = ns.parsed_route("TopicTest").unwrap();
    assert_eq!(
        route.broker_datas[0].broker_addrs.values().map(BrokerAddr::as_str).collect::<Vec<_>>(),
        ["127.0.0.1:20911"]
    );
    assert_eq!(route.queue_datas[0].read_queue_nums, 1);
}

#[test]
fn an_address_switching_from_slave_to_master_appears_once() {
    let mut ns = Ns::new();
    ns.register(&Broker::a1());
    let promoted = Broker { id: 0, ..Broker::a1() };
    ns.register(&promoted);
    let route = ns.parsed_route("TopicTest").unwrap();
    let addrs: Vec<(i64, &str)> = route.broker_datas[0].broker_addrs.iter().map(|(k, v)| (k.0, v.as_str())).collect();
    assert_eq!(addrs, [(0, "127.0.0.1:10921")]);
}

#[test]
fn heartbeat_timeout_header_must_be_positive() {
    let mut ns = Ns::new();
    let reply = ns.check(1, Broker::a0().cmd().with_field("heartbeatTimeoutMillis", "0"));
    assert_reply(&reply, ResponseCode::SystemError, Some("the custom field <heartbeatTimeoutMillis> is invalid: `0`"));
}

#[test]
fn compressed_registrations_are_understood_with_either_flag() {
    for flag in ["true", "false"] {
        let mut ns = Ns::new();
        let b = Broker::a0();
        let mut body = RegisterBrokerBody::default();
        body.topic_config_wrapper.data_version = b.version;
        for t in &b.topics {
            body.topic_config_wrapper.topic_config_table.insert(t.topic_name.clone(), t.clone());
        }
        let cmd = b.cmd().with_field("compressed", flag).with_body(body.encode_compressed(479));
        assert_ok(&ns.check(1, cmd));
        assert_eq!(ns.parsed_route("TopicTest").unwrap().queue_datas[0].read_queue_nums, 4);
    }
}

#[test]
fn corrupt_register_body_is_a_system_error() {
    let mut ns = Ns::new();
    let reply = ns.check(1, Broker::a0().cmd().with_body(b"{\"filterServerList\":".to_vec()));
    assert_eq!(reply.response_code(), ResponseCode::SystemError);
    assert!(reply.remark.as_deref().unwrap().starts_with("Failed to decode RegisterBrokerBody"), "{:?}", reply.remark);
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
}

#[test]
fn min_broker_id_change_is_notified_when_enabled() {
    let mut ns = Ns::with(|c| c.notify_min_broker_id_changed = true);
    let slave = Broker { acting: Some(true), ..Broker::a1() };
    ns.register(&slave);
    ns.register(&Broker { acting: Some(true), ..Broker::a0() });
    let notices: Vec<(ConnId, &RemotingCommand)> = ns
        .out
        .iter()
        .filter_map(|o| match o {
            Output::Send { conn, cmd } if !cmd.is_response() => Some((*conn, cmd)),
            _ => None,
        })
        .collect();
    // A lower id registered: everyone but the new minimum hears of it.
    assert_eq!(notices.len(), 1, "{:?}", ns.out);
    let (conn, notice) = notices[0];
    assert_eq!(conn, ConnId(2));
    assert_eq!(notice.request_code(), RequestCode::NotifyMinBrokerIdChange);
    assert!(notice.is_oneway());
    assert_eq!(
        fields(notice),
        [("haBrokerAddr", "127.0.0.1:10912"), ("minBrokerAddr", "127.0.0.1:10911"), ("minBrokerId", "0")]
    );
    // The master leaves: the remaining member is told, with the offline address.
    ns.check(1, Broker::a0().unregister());
    let notice = ns
        .out
        .iter()
        .find_map(|o| match o {
            Output::Send { conn, cmd } if !cmd.is_response() => Some((*conn, cmd.clone())),
            _ => None,
        })
        .expect("a notice");
    assert_eq!(notice.0, ConnId(2));
    assert_eq!(
        fields(&notice.1),
        [("minBrokerAddr", "127.0.0.1:10921"), ("minBrokerId", "1"), ("offlineBrokerAddr", "127.0.0.1:10911")]
    );
}

/// The notices (requests, not replies) the last input sent, with their connections.
fn notices(ns: &Ns) -> Vec<(ConnId, Vec<(&str, &str)>)> {
    ns.out
        .iter()
        .filter_map(|o| match o {
            Output::Send { conn, cmd } if !cmd.is_response() => {
                assert_eq!(cmd.request_code(), RequestCode::NotifyMinBrokerIdChange);
                assert!(cmd.is_oneway());
                Some((*conn, fields(cmd)))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn min_broker_id_change_on_registration_is_notified_for_any_group() {
    // PROTOCOL.md §10.3 step 14 has no acting-master condition (only §10.4's unregister has).
    let mut ns = Ns::with(|c| c.notify_min_broker_id_changed = true);
    ns.register(&Broker::a1());
    assert_eq!(notices(&ns), []);
    ns.register(&Broker::a0());
    assert_eq!(
        notices(&ns),
        [(
            ConnId(2),
            vec![("haBrokerAddr", "127.0.0.1:10912"), ("minBrokerAddr", "127.0.0.1:10911"), ("minBrokerId", "0")]
        )]
    );
    // Re-registering is no change.
    ns.register(&Broker::a0());
    assert_eq!(notices(&ns), []);
    // The master leaves a non-acting group: silent.
    ns.check(1, Broker::a0().unregister());
    assert_eq!(notices(&ns), []);
}

#[test]
fn min_broker_id_change_on_connection_loss_and_expiry_is_notified() {
    let mut ns = Ns::with(|c| c.notify_min_broker_id_changed = true);
    let master = Broker { acting: Some(true), timeout: Some(10_000), ..Broker::a0() };
    let slave = Broker { acting: Some(true), ..Broker::a1() };
    ns.register(&master);
    ns.register(&slave);
    ns.input(Input::Disconnected { conn: ConnId(1) });
    let expected =
        vec![("minBrokerAddr", "127.0.0.1:10921"), ("minBrokerId", "1"), ("offlineBrokerAddr", "127.0.0.1:10911")];
    assert_eq!(notices(&ns), [(ConnId(2), expected.clone())]);
    // Same through expiry: the master comes back on connection 1 and goes silent.
    ns.at(1_000).register(&master);
    ns.register(&slave);
    ns.tick(15_000);
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
    assert_eq!(notices(&ns), [(ConnId(2), expected)]);
}

#[test]
fn min_broker_id_change_is_silent_by_default() {
    let mut ns = Ns::new();
    ns.register(&Broker { acting: Some(true), ..Broker::a1() });
    ns.register(&Broker { acting: Some(true), ..Broker::a0() });
    assert!(!ns.out.iter().any(|o| matches!(o, Output::Send { cmd, .. } if !cmd.is_response())));
}

// ---------------------------------------------------------------------------------------------
// UNREGISTER_BROKER (104), connection loss, idle, expiry
// ---------------------------------------------------------------------------------------------

#[test]
fn unregister_removes_the_instance_and_its_group_routes() {
    let mut ns = Ns::new();
    ns.register(&Broker::a0());
    ns.register(&Broker::a1());
    let reply = ns.check(1, Broker::a0().unregister());
    assert_ok(&reply);
    assert_eq!(reply.ext_fields, None);
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
    assert!(
        ns.events().iter().any(|e| matches!(e, Event::BrokerUnregistered { reason: UnregisterReason::Request, .. }))
    );
    // A remaining member keeps the group's routes.
    let route = ns.parsed_route("TopicTest").unwrap();
    assert_eq!(route.broker_datas[0].broker_addrs.len(), 1);
    ns.check(2, Broker::a1().unregister());
    assert_reply(&ns.route("TopicTest"), ResponseCode::TopicNotExist, Some(NOT_EXIST));
    assert_eq!(
        text(&ns.ask(RequestCode::GetBrokerClusterInfo, &[])),
        r#"{"brokerAddrTable":{},"clusterAddrTable":{}}"#
    );
}

/// Upstream bug apache/rocketmq#11043: an unregister decided for an old registration must not
/// remove the broker's fresher registration.
#[test]
fn stale_unregister_from_another_connection_keeps_the_fresh_registration() {
    let mut ns = Ns::new();
    ns.register(&Broker::a0());
    // The broker restarts and registers again on a new connection before the old one's
    // unregister arrives.
    let restarted = Broker { conn: 7, ..Broker::a0() };
    ns.at(1_000).register(&restarted);
    assert_ok(&ns.check(1, Broker::a0().unregister()));
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"));
    assert!(ns.events().iter().any(|e| matches!(e, Event::StaleUnregisterIgnored { .. })));
    assert!(ns.parsed_route("TopicTest").is_some());
    // The old connection closing does not remove it either.
    ns.input(Input::Disconnected { conn: ConnId(1) });
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"));
    // The real one does.
    ns.check(7, restarted.unregister());
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
    assert!(ns.parsed_route("TopicTest").is_none());
}

#[test]
fn unregister_with_a_wrong_broker_id_keeps_the_registration() {
    let mut ns = Ns::new();
    ns.register(&Broker::a0());
    let wrong = Broker { id: 1, ..Broker::a0() };
    assert_ok(&ns.check(1, wrong.unregister()));
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"));
    let route = ns.parsed_route("TopicTest").unwrap();
    assert_eq!(route.broker_datas[0].master_addr().map(BrokerAddr::as_str), Some("127.0.0.1:10911"));
}

#[test]
fn connection_loss_removes_what_registered_on_it() {
    let mut ns = Ns::new();
    ns.register(&Broker::a0());
    ns.register(&Broker::a1());
    // A client connection closing changes nothing.
    ns.input(Input::Disconnected { conn: ConnId(ADMIN) });
    assert!(ns.out.is_empty(), "{:?}", ns.out);
    ns.input(Input::Disconnected { conn: ConnId(1) });
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
    assert!(ns.live("DefaultCluster", "127.0.0.1:10921"));
    assert!(
        ns.events()
            .iter()
            .any(|e| matches!(e, Event::BrokerUnregistered { reason: UnregisterReason::ChannelClosed, .. }))
    );
    assert!(ns.closes().is_empty(), "already closed");
}

#[test]
fn idle_connection_is_closed_and_its_broker_removed() {
    let mut ns = Ns::new();
    ns.input(Input::Connected { conn: ConnId(1), remote: "127.0.0.1:50000".into() });
    ns.register(&Broker::a0());
    ns.at(120_000).input(Input::Idle { conn: ConnId(1) });
    assert_eq!(ns.closes(), [ConnId(1)]);
    assert!(ns.events().iter().any(|e| matches!(e, Event::ChannelIdle { remote, .. } if remote == "127.0.0.1:50000")));
    assert!(
        ns.events()
            .iter()
            .any(|e| matches!(e, Event::BrokerUnregistered { reason: UnregisterReason::ChannelIdle, .. }))
    );
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
    assert!(ns.parsed_route("TopicTest").is_none());
    assert!(ns.ns.connections().is_empty());
}

#[test]
fn scans_run_every_interval_from_start_plus_five_seconds() {
    let mut ns = Ns::new();
    assert_eq!(ns.ns.poll_timeout(), Some(Instant::from_millis(5_000)));
    ns.tick(4_999);
    assert_eq!(ns.ns.poll_timeout(), Some(Instant::from_millis(5_000)));
    ns.tick(5_000);
    assert_eq!(ns.ns.poll_timeout(), Some(Instant::from_millis(10_000)));
    ns.tick(32_100);
    assert_eq!(ns.ns.poll_timeout(), Some(Instant::from_millis(35_000)), "missed scans collapse");
    let mut later =
        Ns::from(NameServer::new(Config::java_defaults("/h", "/r"), KvConfig::default(), Instant::from_millis(1_234)));
    assert_eq!(later.ns.poll_timeout(), Some(Instant::from_millis(6_234)));
    let mut fast = Ns::with(|c| c.scan_not_active_broker_interval = core::time::Duration::from_millis(1_000));
    fast.tick(5_000);
    assert_eq!(fast.ns.poll_timeout(), Some(Instant::from_millis(6_000)));
    later.tick(6_234);
    assert_eq!(later.ns.poll_timeout(), Some(Instant::from_millis(11_234)));
}

#[test]
fn default_timeout_expires_at_the_first_scan_after_120_seconds() {
    let mut ns = Ns::new();
    ns.at(1_000).register(&Broker::a0());
    // lastUpdate + 120 s = 121 000: the scans at 120 000 keep it, the one at 125 000 removes it.
    ns.tick(120_000);
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"));
    ns.tick(124_999);
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"));
    ns.tick(125_000);
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
    assert_eq!(ns.closes(), [ConnId(1)], "Java closes the expired broker's channel");
    assert!(ns.events().iter().any(|e| e.to_string().starts_with("The broker channel expired")), "{:?}", ns.events());
    assert!(ns.events().iter().any(|e| matches!(e, Event::BrokerExpired { timeout_ms: 120_000, .. })));
    assert!(ns.parsed_route("TopicTest").is_none());
}

#[test]
fn per_broker_timeout_and_the_strict_comparison() {
    let mut ns = Ns::new();
    // Expires at 15 000 exactly: the scan at 15 000 keeps it (not `<`), the next removes it.
    ns.at(5_000).register(&Broker { timeout: Some(10_000), ..Broker::a0() });
    ns.tick(15_000);
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"));
    ns.tick(20_000);
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
}

#[test]
fn expiry_is_judged_by_any_input_after_the_scan_is_due() {
    let mut ns = Ns::new();
    ns.at(1_000).register(&Broker { timeout: Some(3_000), ..Broker::a0() });
    // No Timeout input was delivered; the next request runs the overdue scan first.
    ns.at(7_000);
    assert!(ns.parsed_route("TopicTest").is_none());
}

#[test]
fn re_registration_refreshes_liveness() {
    let mut ns = Ns::new();
    let b = Broker { timeout: Some(10_000), ..Broker::a0() };
    ns.at(1_000).register(&b);
    ns.at(9_000).register(&b);
    ns.tick(15_000);
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"));
    ns.tick(20_000);
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
}

// ---------------------------------------------------------------------------------------------
// QUERY_DATA_VERSION (322) and BROKER_HEARTBEAT (904)
// ---------------------------------------------------------------------------------------------

#[test]
fn query_data_version_reports_changes_and_the_stored_version() {
    let mut ns = Ns::new();
    let b = Broker::a0();
    // Unknown broker: changed, no body.
    let reply = ns.check(1, b.query_data_version(Some(b.version)));
    assert_ok(&reply);
    assert_eq!(fields(&reply), [("changed", "true")]);
    assert!(reply.body.is_empty());
    ns.register(&b);
    let reply = ns.check(1, b.query_data_version(Some(b.version)));
    assert_eq!(fields(&reply), [("changed", "false")]);
    assert_eq!(text(&reply), r#"{"counter":1,"stateVersion":0,"timestamp":1700000000000}"#);
    // 4.9.x form without stateVersion: same version.
    let reply = ns.check(
        1,
        b.fill(RemotingCommand::request(RequestCode::QueryDataVersion))
            .with_body(br#"{"counter":1,"timestamp":1700000000000}"#.to_vec()),
    );
    assert_eq!(fields(&reply), [("changed", "false")]);
    for other in [
        DataVersion { counter: 2, ..b.version },
        DataVersion { state_version: 1, ..b.version },
        DataVersion { timestamp: 1, ..b.version },
    ] {
        let reply = ns.check(1, b.query_data_version(Some(other)));
        assert_eq!(fields(&reply), [("changed", "true")]);
        assert_eq!(text(&reply), r#"{"counter":1,"stateVersion":0,"timestamp":1700000000000}"#, "the stored one");
    }
    // No body: changed.
    assert_eq!(fields(&ns.check(1, b.query_data_version(None))), [("changed", "true")]);
}

#[test]
fn query_data_version_refreshes_liveness_even_when_changed() {
    let mut ns = Ns::new();
    let b = Broker { timeout: Some(10_000), ..Broker::a0() };
    ns.at(1_000).register(&b);
    ns.at(8_000).check(1, b.query_data_version(Some(DataVersion { counter: 99, ..b.version })));
    ns.tick(15_000);
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"), "refreshed at 8 000, expires 18 000");
    ns.tick(20_000);
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
    // Brokers also send it oneway as a heartbeat: no reply, still a refresh.
    ns.at(21_000).register(&b);
    assert!(
        ns.send(1, oneway(b.query_data_version(Some(b.version)))).iter().all(|o| !matches!(o, Output::Send { .. }))
    );
}

#[test]
fn broker_heartbeat_refreshes_liveness_without_a_reply() {
    let mut ns = Ns::new();
    let b = Broker { timeout: Some(10_000), ..Broker::a0() };
    ns.at(1_000).register(&b);
    assert!(ns.at(9_000).send(1, b.heartbeat()).is_empty(), "oneway: no reply");
    ns.tick(15_000);
    assert!(ns.live("DefaultCluster", "127.0.0.1:10911"));
    ns.tick(20_000);
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
    // Answered when not oneway; an unknown broker is not created by a heartbeat.
    let mut hb = b.heartbeat();
    hb.flag = 0;
    assert_ok(&ns.check(1, hb));
    assert!(!ns.live("DefaultCluster", "127.0.0.1:10911"));
}

// ---------------------------------------------------------------------------------------------
// GET_ROUTEINFO_BY_TOPIC (105)
// ---------------------------------------------------------------------------------------------

/// PROTOCOL.md §8.3's cluster: broker-a (master + slave, 8 queues) and broker-b (acting-master
/// mode, zone1, 4 queues), both serving TopicTest.
fn protocol_8_3_cluster(ns: &mut Ns) {
    let topics = |n| vec![TopicConfig::new("TopicTest", n), TopicConfig::new("TBW102", 8)];
    ns.register(&Broker::a0().topics(topics(8)));
    ns.register(&Broker::a1().topics(topics(8)));
    ns.register(
        &Broker { acting: Some(true), zone: Some("zone1"), ..Broker::new("broker-b", "127.0.0.2:10911", 0, 3) }
            .topics(topics(4)),
    );
}

const ROUTE_PLAIN: &str = r#"{"brokerDatas":[{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:10921"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false},{"brokerAddrs":{0:"127.0.0.2:10911"},"brokerName":"broker-b","cluster":"DefaultCluster","enableActingMaster":true,"zoneName":"zone1"}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":8,"topicSysFlag":0,"writeQueueNums":8},{"brokerName":"broker-b","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}"#;

#[test]
fn route_to_an_old_client_is_plain_fastjson() {
    let mut ns = Ns::new();
    protocol_8_3_cluster(&mut ns);
    for version in [0, 121, 400] {
        let reply = ns.check(ADMIN, route_query("TopicTest", version));
        assert_ok(&reply);
        assert_eq!(text(&reply), ROUTE_PLAIN);
        assert!(serde_json::from_slice::<serde_json::Value>(&reply.body).is_err(), "bare integer keys");
    }
}

#[test]
fn route_to_a_new_client_is_strict_json() {
    let mut ns = Ns::new();
    protocol_8_3_cluster(&mut ns);
    let standard = ROUTE_PLAIN.replace("{0:", "{\"0\":").replace(",1:", ",\"1\":");
    let old_but_strict = route_query("TopicTest", 121).with_field("acceptStandardJsonOnly", "true");
    for query in [route_query("TopicTest", 401), route_query("TopicTest", 479), old_but_strict] {
        let reply = ns.check(ADMIN, query);
        assert_ok(&reply);
        assert_eq!(text(&reply), standard);
        let value: serde_json::Value = serde_json::from_slice(&reply.body).expect("strict JSON");
        assert_eq!(value["brokerDatas"][0]["brokerAddrs"]["1"], "127.0.0.1:10921");
    }
    // Only "true" switches an old client to the standard style.
    let reply = ns.check(ADMIN, route_query("TopicTest", 121).with_field("acceptStandardJsonOnly", "false"));
    assert_eq!(text(&reply), ROUTE_PLAIN);
}

#[test]
fn route_escaping_follows_the_style() {
    let mut ns = Ns::with(|c| c.order_message_enable = true);
    ns.register(&Broker::a0());
    ns.ask(RequestCode::PutKvConfig, &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", "TopicTest"), ("value", "a/bé中")]);
    let plain = ns.check(ADMIN, route_query("TopicTest", 400));
    assert!(text(&plain).contains(r#""orderTopicConf":"a/bé中","#), "{}", text(&plain));
    let standard = ns.check(ADMIN, route_query("TopicTest", 479));
    assert!(text(&standard).contains(r#""orderTopicConf":"a\/b\u00E9\u4E2D","#), "{}", text(&standard));
    assert_eq!(
        serde_json::from_slice::<TopicRouteData>(&standard.body).unwrap().order_topic_conf.as_deref(),
        Some("a/bé中")
    );
}

#[test]
fn route_has_order_topic_conf_only_with_order_message_enable() {
    for enabled in [false, true] {
        let mut ns = Ns::with(|c| c.order_message_enable = enabled);
        ns.register(&Broker::a0());
        ns.ask(
            RequestCode::PutKvConfig,
            &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", "TopicTest"), ("value", "broker-a:4")],
        );
        let route = ns.parsed_route("TopicTest").unwrap();
        assert_eq!(route.order_topic_conf.as_deref(), enabled.then_some("broker-a:4"));
        // No KV entry for the topic: omitted.
        assert_eq!(ns.parsed_route("TBW102").unwrap().order_topic_conf, None);
    }
}

#[test]
fn unknown_topic_is_topic_not_exist_with_the_faq_remark() {
    let mut ns = Ns::new();
    let reply = ns.route("TopicTest");
    assert_reply(&reply, ResponseCode::TopicNotExist, Some(NOT_EXIST));
    assert_eq!(reply.response_code().raw(), 17);
    assert!(reply.body.is_empty());
    assert_eq!(reply.ext_fields, None);
}

#[test]
fn route_waits_for_service_when_asked_to() {
    let mut ns = Ns::with(|c| c.need_wait_for_service = true);
    ns.register(&Broker::a0());
    let reply = ns.at(44_999).route("TopicTest");
    assert_reply(&reply, ResponseCode::SystemError, Some("name server not ready"));
    assert_ok(&ns.at(45_000).route("TopicTest"));
    // And stays ready (the 5.1.0–5.3.1 flag bug is not copied).
    assert_ok(&ns.at(46_000).route("TopicTest"));
    let mut short = Ns::with(|c| {
        c.need_wait_for_service = true;
        c.wait_seconds_for_service = 2;
    });
    short.register(&Broker::a0());
    assert_eq!(short.at(1_999).route("TopicTest").response_code(), ResponseCode::SystemError);
    assert_ok(&short.at(2_000).route("TopicTest"));
}

#[test]
fn zone_mode_keeps_masterless_groups_and_the_zone_in_plain_style() {
    let mut ns = Ns::new();
    let topics = vec![TopicConfig::new("TopicTest", 4), TopicConfig::new("TBW102", 8)];
    ns.register(
        &Broker { zone: Some("zone1"), ..Broker::new("broker-a", "10.0.0.1:10911", 0, 1) }.topics(topics.clone()),
    );
    ns.register(
        &Broker {
            zone: Some("zone2"),
            filter_servers: vec!["10.0.0.2:30000".into()],
            ..Broker::new("broker-b", "10.0.0.2:10911", 0, 2)
        }
        .topics(topics.clone()),
    );
    // A group with no master (a lone slave) is always kept.
    ns.register(&Broker { zone: Some("zone2"), ..Broker::new("broker-c", "10.0.0.3:10911", 1, 3) }.topics(topics));
    let full = ns.parsed_route("TopicTest").unwrap();
    assert_eq!(full.broker_datas.len(), 3);
    assert_eq!(full.filter_server_table.len(), 1);

    let zoned =
        |zone: &str| route_query("TopicTest", 479).with_field("__ZONE_MODE", "true").with_field("__ZONE_NAME", zone);
    let reply = ns.check(ADMIN, zoned("ZONE1"));
    assert_ok(&reply);
    assert_eq!(
        text(&reply),
        r#"{"brokerDatas":[{"brokerAddrs":{0:"10.0.0.1:10911"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false,"zoneName":"zone1"},{"brokerAddrs":{1:"10.0.0.3:10911"},"brokerName":"broker-c","cluster":"DefaultCluster","enableActingMaster":false,"zoneName":"zone2"}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4},{"brokerName":"broker-c","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}"#,
        "plain style whatever the client version"
    );
    // Zone mode off, or a blank zone: no filtering, normal style.
    for query in [
        route_query("TopicTest", 479).with_field("__ZONE_NAME", "zone1"),
        route_query("TopicTest", 479).with_field("__ZONE_MODE", "false").with_field("__ZONE_NAME", "zone1"),
        zoned("  "),
    ] {
        let reply = ns.check(ADMIN, query);
        let route: TopicRouteData = serde_json::from_slice(&reply.body).unwrap();
        assert_eq!(route.broker_datas.len(), 3);
    }
    // An unknown topic is still TOPIC_NOT_EXIST.
    assert_eq!(
        ns.check(ADMIN, route_query("Nope", 479).with_field("__ZONE_MODE", "true").with_field("__ZONE_NAME", "zone1"))
            .response_code(),
        ResponseCode::TopicNotExist
    );
}

#[test]
fn acting_master_rewrite_only_with_support_acting_master() {
    for support in [false, true] {
        let mut ns = Ns::with(|c| c.support_acting_master = support);
        ns.register(&Broker { acting: Some(true), ..Broker::a1() });
        let route = ns.parsed_route("TopicTest").unwrap();
        let ids: Vec<i64> = route.broker_datas[0].broker_addrs.keys().map(|k| k.0).collect();
        assert_eq!(ids, [if support { 0 } else { 1 }]);
        // The tables themselves are not rewritten.
        let cluster = ns.ask(RequestCode::GetBrokerClusterInfo, &[]);
        assert!(text(&cluster).contains(r#"{1:"127.0.0.1:10921"}"#));
    }
}

// ---------------------------------------------------------------------------------------------
// GET_BROKER_CLUSTER_INFO (106), GET_BROKER_MEMBER_GROUP (901)
// ---------------------------------------------------------------------------------------------

#[test]
fn cluster_info_is_plain_for_every_client() {
    let mut ns = Ns::new();
    let reply = ns.ask(RequestCode::GetBrokerClusterInfo, &[]);
    assert_ok(&reply);
    assert_eq!(text(&reply), r#"{"brokerAddrTable":{},"clusterAddrTable":{}}"#);
    protocol_8_3_cluster(&mut ns);
    let expected = r#"{"brokerAddrTable":{"broker-a":{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:10921"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false},"broker-b":{"brokerAddrs":{0:"127.0.0.2:10911"},"brokerName":"broker-b","cluster":"DefaultCluster","enableActingMaster":true,"zoneName":"zone1"}},"clusterAddrTable":{"DefaultCluster":["broker-a","broker-b"]}}"#;
    for version in [121, 479] {
        let mut cmd = request(RequestCode::GetBrokerClusterInfo, &[]);
        cmd.version = version;
        assert_eq!(text(&ns.check(ADMIN, cmd)), expected);
    }
}

#[test]
fn broker_member_group() {
    let mut ns = Ns::new();
    protocol_8_3_cluster(&mut ns);
    let reply =
        ns.ask(RequestCode::GetBrokerMemberGroup, &[("clusterName", "DefaultCluster"), ("brokerName", "broker-a")]);
    assert_ok(&reply);
    assert_eq!(
        text(&reply),
        r#"{"brokerMemberGroup":{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:10921"},"brokerName":"broker-a","cluster":"DefaultCluster"}}"#
    );
    let reply = ns.ask(RequestCode::GetBrokerMemberGroup, &[("clusterName", "C"), ("brokerName", "nobroker")]);
    assert_eq!(text(&reply), r#"{"brokerMemberGroup":{"brokerAddrs":{},"brokerName":"nobroker","cluster":"C"}}"#);
}

// ---------------------------------------------------------------------------------------------
// WIPE_WRITE_PERM_OF_BROKER (205), ADD_WRITE_PERM_OF_BROKER (327)
// ---------------------------------------------------------------------------------------------

#[test]
fn wipe_and_add_write_perm_count_the_group_topics() {
    let mut ns = Ns::new();
    ns.register(&Broker::a0().topics(vec![
        TopicConfig::new("TopicTest", 4),
        TopicConfig { perm: 7, ..TopicConfig::new("TBW102", 8) },
        TopicConfig { perm: 4, ..TopicConfig::new("ReadOnly", 1) },
    ]));
    ns.register(&Broker::new("broker-b", "127.0.0.2:10911", 0, 3));
    let perm = |ns: &mut Ns, topic: &str, name: &str| {
        ns.parsed_route(topic).unwrap().queue_datas.iter().find(|q| q.broker_name.as_str() == name).unwrap().perm
    };

    let reply = ns.ask(RequestCode::WipeWritePermOfBroker, &[("brokerName", "broker-a")]);
    assert_ok(&reply);
    assert_eq!(fields(&reply), [("wipeTopicCount", "3")], "every topic of the group counts");
    assert_eq!(perm(&mut ns, "TopicTest", "broker-a"), 4);
    assert_eq!(perm(&mut ns, "TBW102", "broker-a"), 5);
    assert_eq!(perm(&mut ns, "ReadOnly", "broker-a"), 4);
    assert_eq!(perm(&mut ns, "TopicTest", "broker-b"), 6, "other groups untouched");

    let reply = ns.ask(RequestCode::AddWritePermOfBroker, &[("brokerName", "broker-a")]);
    assert_eq!(fields(&reply), [("addTopicCount", "3")]);
    for topic in ["TopicTest", "TBW102", "ReadOnly"] {
        assert_eq!(perm(&mut ns, topic, "broker-a"), 6, "{topic}: exactly read|write");
    }

    assert_eq!(
        fields(&ns.ask(RequestCode::WipeWritePermOfBroker, &[("brokerName", "nobody")])),
        [("wipeTopicCount", "0")]
    );
    assert_eq!(
        fields(&ns.ask(RequestCode::AddWritePermOfBroker, &[("brokerName", "nobody")])),
        [("addTopicCount", "0")]
    );
}

#[test]
fn wiped_perm_survives_an_unchanged_registration_but_not_a_new_version() {
    let mut ns = Ns::new();
    ns.register(&Broker::a0());
    ns.ask(RequestCode::WipeWritePermOfBroker, &[("brokerName", "broker-a")]);
    ns.at(30_000).register(&Broker::a0());
    assert_eq!(ns.parsed_route("TopicTest").unwrap().queue_datas[0].perm, 4);
    ns.at(60_000).register(&Broker::a0().counter(2));
    assert_eq!(ns.parsed_route("TopicTest").unwrap().queue_datas[0].perm, 6);
}

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

// ---------------------------------------------------------------------------------------------
// UPDATE_NAMESRV_CONFIG (318), GET_NAMESRV_CONFIG (319)
// ---------------------------------------------------------------------------------------------

fn update_config(body: &str) -> RemotingCommand {
    request(RequestCode::UpdateNamesrvConfig, &[]).with_body(body.as_bytes().to_vec())
}

fn get_config(ns: &mut Ns) -> String {
    let reply = ns.ask(RequestCode::GetNamesrvConfig, &[]);
    assert_ok(&reply);
    text(&reply).to_string()
}

/// Sends an update that must be refused as black-listed, and checks nothing changed.
#[track_caller]
fn assert_black_listed(body: &str) {
    let mut ns = Ns::new();
    let before = get_config(&mut ns);
    let reply = ns.check(ADMIN, update_config(body));
    assert_reply(&reply, ResponseCode::NoPermission, Some("Can not update config in black list."));
    assert_eq!(reply.response_code().raw(), 16);
    assert!(!ns.out.iter().any(|o| matches!(o, Output::PersistConfig(_))), "nothing persisted");
    assert_eq!(get_config(&mut ns), before, "nothing applied");
}

#[test]
fn cve_2023_33246_rocketmq_home_is_refused() {
    assert_black_listed("rocketmqHome=-c $@|sh . echo curl 127.0.0.1:9999/x;\n");
}

#[test]
fn cve_2023_37582_config_store_path_is_refused() {
    assert_black_listed("configStorePath=/etc/cron.d/x\nproductEnvName=* * * * * root sh -c id\n");
}

#[test]
fn kv_config_path_is_refused() {
    assert_black_listed("kvConfigPath=/tmp/kv.json");
}

#[test]
fn config_black_list_itself_is_refused() {
    assert_black_listed("configBlackList=");
}

#[test]
fn configured_black_list_is_refused_too() {
    let mut ns =
        Ns::with(|c| c.config_black_list = "configBlackList;configStorePath;kvConfigPath;productEnvName".into());
    let reply = ns.check(ADMIN, update_config("productEnvName=x"));
    assert_reply(&reply, ResponseCode::NoPermission, Some("Can not update config in black list."));
}

#[test]
fn a_key_outside_the_allowlist_is_no_permission() {
    let mut ns = Ns::new();
    let reply = ns.check(ADMIN, update_config("listenPort=1"));
    assert_eq!(reply.response_code(), ResponseCode::NoPermission);
    assert!(reply.remark.as_deref().unwrap().starts_with("Can not update config listenPort"), "{:?}", reply.remark);
    assert!(!ns.out.iter().any(|o| matches!(o, Output::PersistConfig(_))));
    assert!(get_config(&mut ns).contains("listenPort=9876\n"));
}

#[test]
fn an_invalid_value_is_invalid_parameter() {
    let mut ns = Ns::new();
    for body in [
        "enableTopicList=maybe",
        "scanNotActiveBrokerInterval=0",
        "productEnvName=a\\nb",
        "enableAllTopicList=false\nwaitSecondsForService=x",
    ] {
        let reply = ns.check(ADMIN, update_config(body));
        assert_eq!(reply.response_code(), ResponseCode::InvalidParameter, "{body}");
        assert_eq!(reply.response_code().raw(), 29);
        assert!(!ns.out.iter().any(|o| matches!(o, Output::PersistConfig(_))));
    }
    assert!(get_config(&mut ns).contains("enableAllTopicList=true\n"), "all or nothing");
}

#[test]
fn a_good_update_applies_persists_and_shows_in_get() {
    let mut ns = Ns::new();
    let reply = ns.check(ADMIN, update_config("enableAllTopicList=false\nproductEnvName=prod env\n"));
    assert_ok(&reply);
    let persisted = ns
        .out
        .iter()
        .find_map(|o| match o {
            Output::PersistConfig(bytes) => Some(String::from_utf8(bytes.clone()).unwrap()),
            _ => None,
        })
        .expect("PersistConfig");
    assert!(persisted.contains("enableAllTopicList=false\n"));
    assert!(persisted.contains("productEnvName=prod env\n"));
    let parsed = nameserver_core::properties::parse(&persisted).unwrap();
    assert_eq!(parsed["kvConfigPath"], "/home/rmq/namesrv/kvConfig.json");
    let listed = get_config(&mut ns);
    assert!(listed.contains("enableAllTopicList=false\n"));
    assert!(listed.contains("productEnvName=prod env\n"));
    // Takes effect at once.
    assert_reply(&ns.ask(RequestCode::GetAllTopicListFromNameserver, &[]), ResponseCode::SystemError, Some("disable"));
}

#[test]
fn empty_update_changes_nothing_and_bad_properties_are_system_errors() {
    let mut ns = Ns::new();
    assert_ok(&ns.check(ADMIN, request(RequestCode::UpdateNamesrvConfig, &[])));
    assert!(ns.out.iter().all(|o| !matches!(o, Output::PersistConfig(_))));
    let reply = ns.check(ADMIN, update_config("a=\\u12"));
    assert_eq!(reply.response_code(), ResponseCode::SystemError);
    assert!(reply.remark.as_deref().unwrap().starts_with("string2Properties error"));
}

#[test]
fn get_config_lists_every_key_sorted_unescaped() {
    let mut ns = Ns::new();
    let listed = get_config(&mut ns);
    let keys: Vec<&str> = listed.lines().map(|l| l.split_once('=').unwrap().0).collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(keys, sorted);
    for line in [
        "rocketmqHome=/opt/rocketmq",
        "kvConfigPath=/home/rmq/namesrv/kvConfig.json",
        "configStorePath=/home/rmq/namesrv/namesrv.properties",
        "configBlackList=configBlackList;configStorePath;kvConfigPath",
        "scanNotActiveBrokerInterval=5000",
        "listenPort=9876",
        "serverChannelMaxIdleTimeSeconds=120",
        "orderMessageEnable=false",
        "returnOrderTopicConfigToBroker=true",
    ] {
        assert!(listed.lines().any(|l| l == line), "{line}");
    }
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
    let vectors: Vec<Vector> =
        include_str!("testdata/real-client-requests.jsonl").lines().map(|l| serde_json::from_str(l).unwrap()).collect();
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
