//! The `server` target: sequences of inputs, read from the fuzzer's bytes, run through one
//! `NameServer`.
//!
//! Checked after every input: no panic; a request that is neither oneway nor a response gets
//! exactly one reply, on its connection, echoing its opaque, and nothing else does; every
//! command sent encodes and decodes back to itself; a route for a client at version ≥ 401 is
//! strict JSON; time never goes backwards and the next scan is in the future; every queue
//! entry names a known broker group; no live entry survived a scan it should have expired in; a
//! twin fed each command already read (`Input::Parsed`) answers and changes exactly alike.
//!
//! Input format ([`crate::seeds`] has examples): records until the bytes run out or
//! `MAX_RECORDS` (32) have run, each a tag byte and its arguments (integers big-endian).
//!
//! | tag % 8 | record |
//! |---|---|
//! | 0 | connected: conn |
//! | 1 | disconnected: conn |
//! | 2 | idle: conn |
//! | 3 | advance: u16 × 8 ms, then the timer |
//! | 4 | raw frame: conn, u16 length, bytes (decode errors close the connection) |
//! | 5 | request: conn, code, flag, version, fields, body (from small vocabularies) |
//! | 6 | well-formed REGISTER_BROKER: conn, name, slot, id, topic mask, counter, state, mode, timeout |
//! | 7 | well-formed 104 / 322 / 904 for one broker: conn, which, name, slot, id |

use std::cell::RefCell;
use std::collections::HashMap;

use nameserver_core::json::{JsonStyle, WriteJson};
use nameserver_core::protocol::body::{DataVersion, RegisterBrokerBody, TopicConfig};
use nameserver_core::protocol::{FLAG_ONEWAY, Parsed, RemotingCommand, RequestCode, ResponseCode};
use nameserver_core::{Config, ConnId, Input, Instant, KvConfig, Limits, NameServer, Output, TopicName};

use crate::reader::{Reader, run_records};
use crate::replies::{Request, assert_round_trips};

const CODES: [i32; 27] = [
    100, 101, 102, 103, 104, 105, 106, 205, 206, 216, 217, 219, 224, 304, 311, 312, 313, 318, 319, 322, 327, 901, 904,
    905, 10, 0, 7777,
];
const KEYS: [&str; 20] = [
    "clusterName",
    "brokerAddr",
    "brokerName",
    "brokerId",
    "haServerAddr",
    "topic",
    "namespace",
    "key",
    "value",
    "enableActingMaster",
    "heartbeatTimeoutMillis",
    "compressed",
    "bodyCrc32",
    "__ZONE_MODE",
    "__ZONE_NAME",
    "acceptStandardJsonOnly",
    "cluster",
    "changed",
    "brokerName",
    "topic",
];
const VALUES: [&str; 16] = [
    "c1",
    "c2",
    "broker-a",
    "broker-b",
    "10.0.0.1:10911",
    "10.0.1.1:10911",
    "0",
    "1",
    "-1",
    "true",
    "false",
    "T0",
    "T1",
    "ORDER_TOPIC_CONFIG",
    "zone1",
    "",
];
const NAMES: [&str; 3] = ["broker-a", "broker-b", "broker-c"];
const TOPICS: [&str; 4] = ["T0", "T1", "T2", "T3"];
const CONFIG: [&str; 8] = [
    "enableAllTopicList=false",
    "enableTopicList=false",
    "orderMessageEnable=true",
    "scanNotActiveBrokerInterval=1000",
    "supportActingMaster=true",
    "needWaitForService=true",
    "kvConfigPath=/tmp/x",
    "deleteTopicWithBrokerRegistration=true",
];

struct Harness {
    ns: NameServer,
    /// Fed the same inputs, each command read before it is handed over (`Input::Parsed`, as
    /// the daemon's connection tasks do): it must answer and change exactly as `ns` does.
    read: NameServer,
    now: u64,
    opaque: i32,
    last_scan: Option<u64>,
}

impl Harness {
    fn input(&mut self, input: Input) -> Vec<Output> {
        let due = self.ns.poll_timeout().expect("a scan is always scheduled");
        let read_first = match &input {
            Input::Received { conn, cmd } => {
                Input::Parsed { conn: *conn, cmd: cmd.clone(), parsed: Parsed::read(cmd, &Limits::DEFAULT) }
            }
            other => other.clone(),
        };
        self.read.handle(Instant::from_millis(self.now), read_first);
        self.ns.handle(Instant::from_millis(self.now), input);
        assert_eq!(self.ns.now(), Instant::from_millis(self.now));
        if Instant::from_millis(self.now) >= due {
            self.last_scan = Some(self.now);
        }
        let next = self.ns.poll_timeout().expect("a scan is always scheduled");
        assert!(next > self.ns.now(), "the next scan is in the future");
        let out: Vec<Output> = std::iter::from_fn(|| self.ns.poll_output()).collect();
        let read_out: Vec<Output> = std::iter::from_fn(|| self.read.poll_output()).collect();
        assert_eq!(read_out, out, "a command read before it is handed over is handled as one the NameServer reads");
        assert_eq!(self.read.routes(), self.ns.routes());
        for o in &out {
            if let Output::Send { cmd, .. } = o {
                assert_round_trips(cmd);
            }
        }
        self.check_tables();
        out
    }

    fn received(&mut self, conn: u64, cmd: RemotingCommand) {
        let request = Request::new(ConnId(conn), &cmd);
        let standard_route = cmd.request_code() == RequestCode::GetRouteInfoByTopic
            && cmd.version >= 401
            && cmd.field("__ZONE_MODE").is_none();
        let out = self.input(Input::Received { conn: ConnId(conn), cmd });
        let Some(reply) = request.reply(&out, |o| match o {
            Output::Send { conn, cmd } if cmd.is_response() => Some((*conn, cmd)),
            _ => None,
        }) else {
            return;
        };
        assert_eq!(reply.flag, 1);
        if standard_route && reply.response_code() == ResponseCode::Success {
            serde_json::from_slice::<serde_json::Value>(&reply.body).expect("a route to a 5.x client is strict JSON");
        }
        assert!(!out.contains(&Output::Close { conn: ConnId(conn) }), "a request never closes its connection");
    }

    fn send(&mut self, conn: u64, mut cmd: RemotingCommand) {
        self.opaque = self.opaque.wrapping_add(1);
        cmd.opaque = self.opaque;
        self.received(conn, cmd);
    }

    fn check_tables(&self) {
        let routes = self.ns.routes();
        for (topic, queues) in routes.topic_queue_table() {
            assert!(!queues.is_empty(), "{topic} has an empty queue map");
            for name in queues.keys() {
                assert!(routes.broker_addr_table().contains_key(name), "{topic} names an unknown group {name}");
            }
        }
        if let Some(scan) = self.last_scan {
            for (key, live) in routes.broker_live_table() {
                assert!(live.expires_at() >= Instant::from_millis(scan), "{key:?} survived the scan at {scan}");
            }
        }
    }
}

fn identity(code: RequestCode, name: usize, slot: u8, id: u8) -> RemotingCommand {
    let mut cmd = RemotingCommand::request(code);
    cmd.version = 479;
    cmd.with_field("clusterName", if name < 2 { "c1" } else { "c2" })
        .with_field("brokerAddr", format!("10.0.{name}.{slot}:10911"))
        .with_field("brokerName", NAMES[name])
        .with_field("brokerId", id.to_string())
}

fn register_body(mask: u8, counter: u8, state: u8) -> RegisterBrokerBody {
    let mut body = RegisterBrokerBody::default();
    body.topic_config_wrapper.data_version =
        DataVersion { counter: i64::from(counter), state_version: i64::from(state), timestamp: 1 };
    for (i, topic) in TOPICS.iter().enumerate() {
        if mask & (1 << i) != 0 {
            let config = TopicConfig {
                perm: [6, 4, 7, 2][usize::from(mask >> 4) % 4],
                topic_sys_flag: i32::from(mask >> 6),
                ..TopicConfig::new(*topic, i32::from(mask % 5))
            };
            body.topic_config_wrapper.topic_config_table.insert(TopicName::from(*topic), config);
        }
    }
    body
}

/// `register_body(mask, counter, 0).encode_compressed(version)`, remembered: deflate sets up
/// hundreds of kilobytes of tables per call, which made it most of this target's time.
fn compressed_body(mask: u8, counter: u8, version: i32) -> Vec<u8> {
    thread_local! {
        static CACHE: RefCell<HashMap<(u8, u8, i32), Vec<u8>>> = RefCell::new(HashMap::new());
    }
    CACHE.with(|cache| {
        cache
            .borrow_mut()
            .entry((mask, counter, version))
            .or_insert_with(|| register_body(mask, counter, 0).encode_compressed(version))
            .clone()
    })
}

fn step(h: &mut Harness, r: &mut Reader<'_>) -> Option<()> {
    let tag = r.u8()?;
    let conn = u64::from(r.u8()? % 4);
    match tag % 8 {
        0 => drop(h.input(Input::Connected { conn: ConnId(conn), remote: format!("127.0.0.1:{conn}") })),
        1 => drop(h.input(Input::Disconnected { conn: ConnId(conn) })),
        2 => {
            let idle = core::time::Duration::from_secs(120);
            let last_io = Instant::from_millis(h.now.saturating_sub(120_000));
            let out = h.input(Input::Idle { conn: ConnId(conn), last_io, idle });
            assert!(out.contains(&Output::Close { conn: ConnId(conn) }));
        }
        3 => {
            h.now += u64::from(r.u16()?) * 8;
            drop(h.input(Input::Timeout));
        }
        4 => match r.frame()? {
            Ok(Some(cmd)) => h.received(conn, cmd),
            Ok(None) => {}
            Err(_) => drop(h.input(Input::Disconnected { conn: ConnId(conn) })),
        },
        5 => {
            let mut cmd = RemotingCommand { code: r.pick(&CODES)?, ..RemotingCommand::default() };
            cmd.flag = i32::from(r.u8()? % 4);
            cmd.version = [0, 121, 400, 401, 413, 479][usize::from(r.u8()?) % 6];
            cmd = r.fields(cmd, &KEYS, &VALUES)?;
            cmd.body = match r.u8()? % 6 {
                0 => Vec::new(),
                1 => r.short_bytes()?,
                2 => register_body(r.u8()?, r.u8()?, r.u8()? % 3).to_json(JsonStyle::Plain),
                3 => compressed_body(r.u8()?, r.u8()?, cmd.version),
                4 => DataVersion { counter: i64::from(r.u8()?), ..DataVersion::default() }.to_json(JsonStyle::Plain),
                _ => r.pick(&CONFIG)?.as_bytes().to_vec(),
            };
            h.send(conn, cmd);
        }
        6 => {
            let name = usize::from(r.u8()? % 3);
            let (slot, id) = (r.u8()? % 3, r.u8()? % 3);
            let body = register_body(r.u8()?, r.u8()? % 4, r.u8()? % 3);
            let mut cmd = identity(RequestCode::RegisterBroker, name, slot, id)
                .with_field("haServerAddr", format!("10.0.{name}.{slot}:10912"))
                .with_body(body.to_json(JsonStyle::Plain));
            match r.u8()? % 3 {
                0 => cmd = cmd.with_field("enableActingMaster", "false"),
                1 => cmd = cmd.with_field("enableActingMaster", "true"),
                _ => cmd.version = 400,
            }
            match r.u8()? % 3 {
                0 => {}
                1 => cmd = cmd.with_field("heartbeatTimeoutMillis", "10000"),
                _ => cmd = cmd.with_field("heartbeatTimeoutMillis", "30000"),
            }
            h.send(conn, cmd);
        }
        _ => {
            let which = r.u8()? % 3;
            let name = usize::from(r.u8()? % 3);
            let (slot, id) = (r.u8()? % 3, r.u8()? % 3);
            let cmd = match which {
                0 => identity(RequestCode::UnregisterBroker, name, slot, id),
                1 => identity(RequestCode::QueryDataVersion, name, slot, id).with_body(
                    DataVersion { counter: i64::from(id), ..DataVersion::default() }.to_json(JsonStyle::Plain),
                ),
                _ => {
                    let mut hb = identity(RequestCode::BrokerHeartbeat, name, slot, id);
                    hb.flag = FLAG_ONEWAY;
                    hb
                }
            };
            h.send(conn, cmd);
        }
    }
    Some(())
}

/// Runs one input: a sequence of records (the table above).
///
/// # Panics
/// When a property above breaks.
pub fn run(data: &[u8]) {
    let ns = NameServer::new(Config::java_defaults("/home/fuzz", "/opt/rocketmq"), KvConfig::default(), Instant::ZERO);
    let read = ns.clone();
    let mut h = Harness { ns, read, now: 0, opaque: 0, last_scan: None };
    run_records(&mut h, data, step);
}
