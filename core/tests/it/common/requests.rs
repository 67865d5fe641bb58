//! The request harness: one NameServer driven through `Input::Received`, request code by
//! request code (PROTOCOL.md §5–§11).
//!
//! Every test goes through [`Ns::check`], which asserts the reply invariants (exactly one
//! response, on the requesting connection, echoing `opaque`, flag exactly RESPONSE) and hands
//! the reply back.

use nameserver_core::json::{JsonStyle, WriteJson};
use nameserver_core::protocol::body::{DataVersion, RegisterBrokerBody, TopicConfig, TopicRouteData};
use nameserver_core::protocol::{
    FLAG_ONEWAY, FLAG_RESPONSE, RemotingCommand, RequestCode, ResponseCode, SERVER_VERSION,
};
use nameserver_core::{BrokerAddr, ClusterName, Config, ConnId, Event, Input, Instant, KvConfig, NameServer, Output};

/// A NameServer started at time 0 plus the outputs of the last input.
pub(crate) struct Ns {
    pub(crate) ns: NameServer,
    pub(crate) now: u64,
    pub(crate) opaque: i32,
    /// Everything the last input produced, in order.
    pub(crate) out: Vec<Output>,
    /// Connections opened with `Input::Connected`.
    connected: std::collections::BTreeSet<ConnId>,
}

pub(crate) const ADMIN: u64 = 99;

impl Ns {
    pub(crate) fn new() -> Self {
        Self::with(|_| {})
    }

    pub(crate) fn with(configure: impl FnOnce(&mut Config)) -> Self {
        let mut config = Config::java_defaults("/home/rmq", "/opt/rocketmq");
        configure(&mut config);
        Self::from(NameServer::new(config, KvConfig::default(), Instant::ZERO))
    }

    pub(crate) fn from(ns: NameServer) -> Self {
        Self { ns, now: 0, opaque: 0, out: Vec::new(), connected: std::collections::BTreeSet::new() }
    }

    /// Moves the clock to `ms` (never backwards).
    pub(crate) fn at(&mut self, ms: u64) -> &mut Self {
        assert!(ms >= self.now, "tests keep time monotonic");
        self.now = ms;
        self
    }

    /// Feeds one input and keeps what it produced in `self.out`.
    pub(crate) fn input(&mut self, input: Input) -> &[Output] {
        if let Input::Connected { conn, .. } = &input {
            self.connected.insert(*conn);
        }
        self.ns.handle(Instant::from_millis(self.now), input);
        self.out.clear();
        while let Some(o) = self.ns.poll_output() {
            self.out.push(o);
        }
        &self.out
    }

    /// Delivers the timer: runs every scan due by now.
    pub(crate) fn tick(&mut self, ms: u64) -> &[Output] {
        self.at(ms);
        self.input(Input::Timeout)
    }

    /// Sends `cmd` (stamped with a fresh opaque) on `conn`; returns every output it caused.
    pub(crate) fn send(&mut self, conn: u64, mut cmd: RemotingCommand) -> &[Output] {
        self.opaque += 1;
        cmd.opaque = self.opaque;
        self.input(Input::Received { conn: ConnId(conn), cmd })
    }

    /// Sends a request and returns its one reply, checking the reply invariants.
    pub(crate) fn check(&mut self, conn: u64, cmd: RemotingCommand) -> RemotingCommand {
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
    pub(crate) fn ask(&mut self, code: RequestCode, fields: &[(&str, &str)]) -> RemotingCommand {
        self.check(ADMIN, request(code, fields))
    }

    /// Registers `broker` on its connection and returns the reply.
    /// Registers `broker` over its connection, opened from its own host (as a real broker's is)
    /// unless the test opened it.
    pub(crate) fn register(&mut self, broker: &Broker) -> RemotingCommand {
        if !self.connected.contains(&ConnId(broker.conn)) {
            let host = broker.addr.rsplit_once(':').map_or(broker.addr, |(host, _)| host);
            self.input(Input::Connected { conn: ConnId(broker.conn), remote: remote(host, broker.conn) });
        }
        self.check(broker.conn, broker.cmd())
    }

    /// The route reply for `topic` to a 5.x client.
    pub(crate) fn route(&mut self, topic: &str) -> RemotingCommand {
        self.check(ADMIN, route_query(topic, 479))
    }

    /// The route of `topic` as a 5.x client parses it, or `None` for TOPIC_NOT_EXIST.
    pub(crate) fn parsed_route(&mut self, topic: &str) -> Option<TopicRouteData> {
        let reply = self.route(topic);
        match reply.response_code() {
            ResponseCode::Success => Some(serde_json::from_slice::<TopicRouteData>(&reply.body).unwrap()),
            ResponseCode::TopicNotExist => None,
            other => panic!("{other:?}"),
        }
    }

    pub(crate) fn live(&self, cluster: &str, addr: &str) -> bool {
        self.ns.routes().live(&ClusterName::from(cluster), &BrokerAddr::from(addr)).is_some()
    }

    pub(crate) fn events(&self) -> Vec<Event> {
        self.out
            .iter()
            .filter_map(|o| match o {
                Output::Events(run) => Some(run.clone()),
                _ => None,
            })
            .flatten()
            .collect()
    }

    pub(crate) fn closes(&self) -> Vec<ConnId> {
        self.out
            .iter()
            .filter_map(|o| match o {
                Output::Close { conn } => Some(*conn),
                _ => None,
            })
            .collect()
    }
}

pub(crate) fn request(code: RequestCode, fields: &[(&str, &str)]) -> RemotingCommand {
    let mut cmd = RemotingCommand::request(code);
    cmd.version = 479;
    for (k, v) in fields {
        cmd = cmd.with_field(k, *v);
    }
    cmd
}

pub(crate) fn route_query(topic: &str, version: i32) -> RemotingCommand {
    let mut cmd = request(RequestCode::GetRouteInfoByTopic, &[("topic", topic)]);
    cmd.version = version;
    cmd
}

pub(crate) fn oneway(mut cmd: RemotingCommand) -> RemotingCommand {
    cmd.flag = FLAG_ONEWAY;
    cmd
}

pub(crate) fn text(reply: &RemotingCommand) -> &str {
    std::str::from_utf8(&reply.body).unwrap()
}

pub(crate) fn fields(reply: &RemotingCommand) -> Vec<(&str, &str)> {
    reply.ext_fields.iter().flatten().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

#[track_caller]
pub(crate) fn assert_reply(reply: &RemotingCommand, code: ResponseCode, remark: Option<&str>) {
    assert_eq!(reply.response_code(), code, "remark: {:?}", reply.remark);
    assert_eq!(reply.remark.as_deref(), remark);
}

#[track_caller]
pub(crate) fn assert_ok(reply: &RemotingCommand) {
    assert_reply(reply, ResponseCode::Success, None);
}

/// One broker instance and what its next REGISTER_BROKER carries.
#[derive(Clone)]
pub(crate) struct Broker {
    pub(crate) cluster: &'static str,
    pub(crate) addr: &'static str,
    pub(crate) name: &'static str,
    pub(crate) id: i64,
    pub(crate) ha: &'static str,
    pub(crate) conn: u64,
    pub(crate) version: DataVersion,
    pub(crate) topics: Vec<TopicConfig>,
    /// `enableActingMaster`; `None` is a 4.9.x broker.
    pub(crate) acting: Option<bool>,
    pub(crate) timeout: Option<u64>,
    pub(crate) zone: Option<&'static str>,
    pub(crate) filter_servers: Vec<String>,
}

impl Broker {
    pub(crate) fn new(name: &'static str, addr: &'static str, id: i64, conn: u64) -> Self {
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
    pub(crate) fn a0() -> Self {
        Self { ha: "127.0.0.1:10912", ..Self::new("broker-a", "127.0.0.1:10911", 0, 1) }
    }

    /// broker-a's slave 1, 127.0.0.1:10921 (HA 127.0.0.1:10922), on connection 2.
    pub(crate) fn a1() -> Self {
        Self { ha: "127.0.0.1:10922", ..Self::new("broker-a", "127.0.0.1:10921", 1, 2) }
    }

    pub(crate) fn topics(mut self, topics: Vec<TopicConfig>) -> Self {
        self.topics = topics;
        self
    }

    pub(crate) fn counter(mut self, counter: i64) -> Self {
        self.version.counter = counter;
        self
    }

    pub(crate) fn cmd(&self) -> RemotingCommand {
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

    pub(crate) fn identity(&self) -> RemotingCommand {
        self.fill(RemotingCommand::request(RequestCode::UnregisterBroker))
    }

    pub(crate) fn fill(&self, mut cmd: RemotingCommand) -> RemotingCommand {
        cmd.version = 479;
        cmd.with_field("clusterName", self.cluster)
            .with_field("brokerAddr", self.addr)
            .with_field("brokerName", self.name)
            .with_field("brokerId", self.id.to_string())
    }

    pub(crate) fn unregister(&self) -> RemotingCommand {
        self.identity()
    }

    pub(crate) fn heartbeat(&self) -> RemotingCommand {
        let mut cmd = self.fill(RemotingCommand::request(RequestCode::BrokerHeartbeat));
        cmd.flag = FLAG_ONEWAY;
        cmd
    }

    pub(crate) fn query_data_version(&self, version: Option<DataVersion>) -> RemotingCommand {
        let cmd = self.fill(RemotingCommand::request(RequestCode::QueryDataVersion));
        match version {
            Some(v) => cmd.with_body(v.to_json(JsonStyle::Plain)),
            None => cmd,
        }
    }
}

pub(crate) const NOT_EXIST: &str = "No topic route info in name server for the topic: TopicTest\nSee https://rocketmq.apache.org/docs/bestPractice/06FAQ for further details.";

/// The `host:port` a connection numbered `conn` comes from.
pub(crate) fn remote(host: &str, conn: u64) -> String {
    format!("{host}:{}", 40_000 + conn)
}
