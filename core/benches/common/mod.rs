//! Inputs shared by the benchmarks: the captured real frames and generated registrations.

#![allow(dead_code, unreachable_pub)]

use std::collections::BTreeMap;

use nameserver_core::json::{JsonStyle, WriteJson};
use nameserver_core::protocol::body::{
    DataVersion, RegisterBrokerBody, TopicConfig, TopicConfigTable, TopicConfigWrapper,
};
use nameserver_core::protocol::{LanguageCode, RemotingCommand, RequestCode};
use nameserver_core::{Config, ConnId, Input, Instant, KvConfig, NameServer};

/// One frame captured from real software (`core/tests/testdata/real-client-requests.jsonl`).
pub struct RealFrame {
    /// `code-sender`, e.g. `105-rocketmq-rust`.
    pub name: String,
    /// The whole frame.
    pub bytes: Vec<u8>,
}

/// Every captured frame, with a distinct name (the first of each code and sender).
pub fn real_frames() -> Vec<RealFrame> {
    let text = include_str!("../../tests/testdata/real-client-requests.jsonl");
    let mut seen = std::collections::BTreeSet::new();
    let mut frames = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let value: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        let sender = value["sender"].as_str().unwrap_or("?").split_whitespace().next().unwrap_or("?").to_owned();
        let name = format!("{}-{sender}", value["code"]);
        if !seen.insert(name.clone()) {
            continue;
        }
        let hex = value["frame_hex"].as_str().expect("frame_hex");
        let bytes = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex")).collect();
        frames.push(RealFrame { name, bytes });
    }
    frames
}

/// `BenchTopic-i`.
pub fn topic(i: usize) -> String {
    format!("BenchTopic-{i}")
}

/// The body of a broker serving topics `first..first + count` with 8 queues each.
pub fn register_body(first: usize, count: usize, counter: i64) -> Vec<u8> {
    broker_body(first, count, counter).to_json(JsonStyle::Plain)
}

/// [`register_body`] in the compressed form (4.9.x brokers with `compressedRegister=true`).
pub fn register_body_compressed(first: usize, count: usize, counter: i64) -> Vec<u8> {
    broker_body(first, count, counter).encode_compressed(479)
}

fn broker_body(first: usize, count: usize, counter: i64) -> RegisterBrokerBody {
    let table: TopicConfigTable = (first..first + count)
        .map(|i| {
            let config = TopicConfig::new(topic(i), 8);
            (config.topic_name.clone(), config)
        })
        .collect();
    RegisterBrokerBody {
        filter_server_list: Vec::new(),
        topic_config_wrapper: TopicConfigWrapper {
            data_version: DataVersion { counter, state_version: 0, timestamp: 1_764_000_000_000 },
            topic_config_table: table,
            topic_queue_mapping_info_map: BTreeMap::new(),
            mapping_data_version: Some(DataVersion::default()),
        },
    }
}

/// REGISTER_BROKER from broker `i` (master of group `bench-broker-i`) carrying `body`.
pub fn register_command(i: usize, body: Vec<u8>, heartbeat_timeout_ms: Option<u64>) -> RemotingCommand {
    let addr = format!("127.0.0.1:{}", 10_000 + i);
    let mut cmd = RemotingCommand::request(RequestCode::RegisterBroker)
        .with_field("brokerAddr", addr.as_str())
        .with_field("brokerId", "0")
        .with_field("brokerName", format!("bench-broker-{i}"))
        .with_field("clusterName", "BenchCluster")
        .with_field("compressed", "false")
        .with_field("enableActingMaster", "false")
        .with_field("haServerAddr", addr.as_str());
    if let Some(ms) = heartbeat_timeout_ms {
        cmd = cmd.with_field("heartbeatTimeoutMillis", ms.to_string());
    }
    cmd.language = LanguageCode::Java;
    cmd.version = 479;
    cmd.body = body;
    cmd
}

/// A NameServer with Java's defaults, started at time zero.
pub fn nameserver() -> NameServer {
    NameServer::new(Config::java_defaults("/nonexistent", "/nonexistent"), KvConfig::default(), Instant::ZERO)
}

/// Connects broker `i` as connection `i + 1` and feeds it `cmd`, dropping the outputs.
pub fn register(ns: &mut NameServer, now: Instant, i: usize, cmd: RemotingCommand) {
    let conn = ConnId(i as u64 + 1);
    if !ns.connections().contains_key(&conn) {
        ns.handle(now, Input::Connected { conn, remote: format!("127.0.0.1:{}", 40_000 + i % 20_000) });
    }
    ns.handle(now, Input::Received { conn, cmd });
    while ns.poll_output().is_some() {}
}
