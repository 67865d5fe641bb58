//! Request frames: built one by one ([`request`], [`register_broker`], [`heartbeat`],
//! [`unregister_broker`], [`route_query`], [`put_kv`], [`get_kv`], [`cluster_info`]), or built once with the
//! core codec and reused (the load generator's).
//!
//! A route query differs from the next only in its `opaque`, so it is encoded once per topic
//! with a 10-digit placeholder and patched in place ([`Template`]): the generator then spends
//! its time on the wire, not on JSON. Every header carries `serializeTypeCurrentRPC` (the core
//! encoder always writes it), which rocketmq-rust's NameServer requires.

use std::collections::BTreeMap;

use nameserver_core::codec;
use nameserver_core::json::{JsonStyle, WriteJson};
use nameserver_core::protocol::body::{
    DataVersion, RegisterBrokerBody, TopicConfig, TopicConfigTable, TopicConfigWrapper,
};
use nameserver_core::protocol::{LanguageCode, RemotingCommand, RequestCode};
use nameserver_core::{Config, ConnId, Input, Instant, KvConfig, NameServer, TopicName};

/// The smallest opaque the generator uses: every opaque it sends has exactly 10 digits.
pub const OPAQUE_BASE: i32 = 1_000_000_000;
/// How many distinct opaques follow [`OPAQUE_BASE`] (all below `i32::MAX`).
pub const OPAQUE_SPAN: u32 = 1_000_000_000;
/// The cluster every generated broker belongs to.
pub const CLUSTER: &str = "BenchCluster";
/// The client version the generator claims: `V5_3_3`, so routes come back as standard JSON,
/// as a current Java client gets them.
pub const CLIENT_VERSION: i32 = 479;
/// Queues per topic in generated registrations.
pub const QUEUES: i32 = 8;

/// The name of topic `i`.
#[must_use]
pub fn topic_name(i: usize) -> String {
    format!("BenchTopic-{i}")
}

/// One generated broker: master (id 0) of its own broker group in [`CLUSTER`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrokerSpec {
    /// `brokerName`.
    pub name: String,
    /// `brokerAddr`: a loopback address nobody dials (NameServers never connect to brokers).
    pub addr: String,
}

impl BrokerSpec {
    /// Broker `i` of a fleet (`i` below 50,000 keeps addresses distinct).
    #[must_use]
    pub fn fleet(i: usize) -> Self {
        Self { name: format!("bench-broker-{i}"), addr: format!("127.0.0.1:{}", 10_000 + i % 50_000) }
    }
}

/// A frame whose opaque can be rewritten without re-encoding.
#[derive(Clone, Debug)]
pub struct Template {
    bytes: Vec<u8>,
    opaque_at: usize,
}

impl Template {
    /// Encodes `cmd` with the placeholder opaque [`OPAQUE_BASE`].
    ///
    /// # Panics
    /// If `cmd` cannot be encoded (only for headers over 16 MiB).
    #[must_use]
    pub fn new(cmd: &RemotingCommand) -> Self {
        let mut cmd = cmd.clone();
        cmd.opaque = OPAQUE_BASE;
        Self::at_opaque(codec::encode_to_vec(&cmd).expect("a small request encodes"))
    }

    /// Encodes `cmd` carrying `body` (a registration: the body is written once here, not per
    /// send) with the placeholder opaque [`OPAQUE_BASE`].
    ///
    /// # Panics
    /// If the frame cannot be encoded (over 2 GiB, or a header over 16 MiB).
    #[must_use]
    pub fn with_body(cmd: &RemotingCommand, body: &[u8]) -> Self {
        let mut cmd = cmd.clone();
        cmd.opaque = OPAQUE_BASE;
        let mut bytes = Vec::with_capacity(body.len() + 512);
        codec::encode_with_body(&cmd, body, &mut bytes).expect("the frame fits the length prefix");
        Self::at_opaque(bytes)
    }

    fn at_opaque(bytes: Vec<u8>) -> Self {
        let key = format!("\"opaque\":{OPAQUE_BASE}");
        // Only the header is searched (a body may hold anything): length word, then its size.
        let header_len = bytes.get(4..8).map_or(0, |w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]) & 0x00FF_FFFF);
        let header = bytes.get(8..8 + header_len as usize).unwrap_or_default();
        let opaque_at = 8 + find(header, key.as_bytes()).expect("the JSON header holds the opaque") + key.len() - 10;
        Self { bytes, opaque_at }
    }

    /// The frame length in bytes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether the frame is empty (never).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The frame with its current opaque.
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Appends the frame with `opaque`, which must lie in `OPAQUE_BASE..OPAQUE_BASE + OPAQUE_SPAN`.
    pub fn append(&self, opaque: i32, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&self.bytes);
        write_opaque(&mut out[start + self.opaque_at..start + self.opaque_at + 10], opaque);
    }

    /// Rewrites the frame's own opaque (same range as [`Self::append`]).
    pub fn set_opaque(&mut self, opaque: i32) {
        write_opaque(&mut self.bytes[self.opaque_at..self.opaque_at + 10], opaque);
    }
}

/// Writes `opaque`'s ten digits over the placeholder's.
fn write_opaque(digits: &mut [u8], opaque: i32) {
    debug_assert!((OPAQUE_BASE..OPAQUE_BASE.saturating_add_unsigned(OPAQUE_SPAN)).contains(&opaque));
    let mut n = opaque.unsigned_abs();
    for d in digits.iter_mut().rev() {
        *d = b'0' + (n % 10) as u8;
        n /= 10;
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// GET_ROUTEINFO_BY_TOPIC for `topic`, as a 5.3 Java client sends it.
#[must_use]
pub fn route_query(topic: &str) -> RemotingCommand {
    let mut cmd = RemotingCommand::request(RequestCode::GetRouteInfoByTopic).with_field("topic", topic);
    cmd.language = LanguageCode::Java;
    cmd.version = CLIENT_VERSION;
    cmd
}

/// One template per topic `0..topics`.
#[must_use]
pub fn route_templates(topics: usize) -> Vec<Template> {
    (0..topics).map(|i| Template::new(&route_query(&topic_name(i)))).collect()
}

/// The registration body of a broker that serves topics `0..topics`; topic `i` has
/// [`QUEUES`] + `i % queue_spread` read and write queues (a spread of 1: all the same; of
/// `topics`: every topic different, so no two topics have the same route).
#[must_use]
pub fn register_body(topics: usize, queue_spread: usize) -> RegisterBrokerBody {
    let spread = queue_spread.max(1);
    let table: TopicConfigTable = (0..topics)
        .map(|i| {
            let extra = i32::try_from(i % spread).unwrap_or(i32::MAX - QUEUES);
            let config = TopicConfig::new(topic_name(i), QUEUES + extra);
            (config.topic_name.clone(), config)
        })
        .collect();
    RegisterBrokerBody {
        filter_server_list: Vec::new(),
        topic_config_wrapper: TopicConfigWrapper {
            data_version: DataVersion { counter: 1, state_version: 0, timestamp: 1_764_000_000_000 },
            topic_config_table: table,
            topic_queue_mapping_info_map: BTreeMap::new(),
            mapping_data_version: Some(DataVersion::default()),
        },
    }
}

/// A registration body in wire form: JSON (as 5.x brokers send it) or zlib-compressed (as
/// 4.9.x brokers with `compressedRegister=true` send it).
#[must_use]
pub fn encode_register_body(body: &RegisterBrokerBody, compressed: bool) -> Vec<u8> {
    if compressed { body.encode_compressed(CLIENT_VERSION) } else { body.to_json(JsonStyle::Plain) }
}

/// REGISTER_BROKER from `broker` carrying `body` (already in wire form), with its CRC.
#[must_use]
pub fn register_command(broker: &BrokerSpec, body: &[u8], compressed: bool, opaque: i32) -> RemotingCommand {
    let crc = crc32fast::hash(body) & 0x7FFF_FFFF;
    let mut cmd = RemotingCommand::request(RequestCode::RegisterBroker)
        .with_field("bodyCrc32", crc.to_string())
        .with_field("brokerAddr", broker.addr.as_str())
        .with_field("brokerId", "0")
        .with_field("brokerName", broker.name.as_str())
        .with_field("clusterName", CLUSTER)
        .with_field("compressed", if compressed { "true" } else { "false" })
        .with_field("enableActingMaster", "false")
        .with_field("haServerAddr", broker.addr.as_str());
    cmd.language = LanguageCode::Java;
    cmd.version = CLIENT_VERSION;
    cmd.opaque = opaque;
    cmd
}

/// A request of `code` with `fields` as its extFields.
#[must_use]
pub fn request(code: RequestCode, fields: &[(&str, &str)]) -> RemotingCommand {
    fields.iter().fold(RemotingCommand::request(code), |cmd, (k, v)| cmd.with_field(k, *v))
}

/// REGISTER_BROKER of `name`/`id` at `addr` in `cluster`, serving `topics` (4 queues each) at
/// data version `counter`, with `heartbeatTimeoutMillis` when given.
#[must_use]
pub fn register_broker(
    cluster: &str,
    name: &str,
    id: i64,
    addr: &str,
    topics: &[String],
    counter: i64,
    timeout_ms: Option<u64>,
) -> RemotingCommand {
    let mut body = RegisterBrokerBody::default();
    body.topic_config_wrapper.data_version.counter = counter;
    body.topic_config_wrapper.data_version.timestamp = 1_700_000_000_000 + counter;
    for topic in topics {
        body.topic_config_wrapper
            .topic_config_table
            .insert(TopicName::from(topic.as_str()), TopicConfig::new(topic.as_str(), 4));
    }
    let id_text = id.to_string();
    let mut cmd = request(
        RequestCode::RegisterBroker,
        &[
            ("clusterName", cluster),
            ("brokerName", name),
            ("brokerAddr", addr),
            ("brokerId", &id_text),
            ("haServerAddr", addr),
            ("enableActingMaster", "false"),
        ],
    )
    .with_body(body.to_json(JsonStyle::Plain));
    if let Some(ms) = timeout_ms {
        cmd = cmd.with_field("heartbeatTimeoutMillis", ms.to_string());
    }
    cmd
}

/// The fields that name one broker in BROKER_HEARTBEAT and UNREGISTER_BROKER.
fn broker_request(code: RequestCode, cluster: &str, name: &str, id: i64, addr: &str) -> RemotingCommand {
    let id = id.to_string();
    request(code, &[("clusterName", cluster), ("brokerAddr", addr), ("brokerName", name), ("brokerId", &id)])
}

/// BROKER_HEARTBEAT of `name`/`id` at `addr` in `cluster` (5.x brokers send it one-way).
#[must_use]
pub fn heartbeat(cluster: &str, name: &str, id: i64, addr: &str) -> RemotingCommand {
    broker_request(RequestCode::BrokerHeartbeat, cluster, name, id, addr)
}

/// UNREGISTER_BROKER of `name`/`id` at `addr` in `cluster`.
#[must_use]
pub fn unregister_broker(cluster: &str, name: &str, id: i64, addr: &str) -> RemotingCommand {
    broker_request(RequestCode::UnregisterBroker, cluster, name, id, addr)
}

/// PUT_KV_CONFIG of `key` = `value` in `namespace`.
#[must_use]
pub fn put_kv(namespace: &str, key: &str, value: &str) -> RemotingCommand {
    request(RequestCode::PutKvConfig, &[("namespace", namespace), ("key", key), ("value", value)])
}

/// GET_KV_CONFIG of `key` in `namespace`.
#[must_use]
pub fn get_kv(namespace: &str, key: &str) -> RemotingCommand {
    request(RequestCode::GetKvConfig, &[("namespace", namespace), ("key", key)])
}

/// GET_BROKER_CLUSTER_INFO.
#[must_use]
pub fn cluster_info() -> RemotingCommand {
    request(RequestCode::GetBrokerClusterInfo, &[])
}

/// The whole REGISTER_BROKER frame.
///
/// # Panics
/// If the frame exceeds the protocol's 2 GiB.
#[must_use]
pub fn register_frame(broker: &BrokerSpec, body: &[u8], compressed: bool, opaque: i32) -> Vec<u8> {
    let cmd = register_command(broker, body, compressed, opaque);
    let mut out = Vec::with_capacity(body.len() + 512);
    codec::encode_with_body(&cmd, body, &mut out).expect("a registration frame fits the length prefix");
    out
}

/// The route body a NameServer returns for one topic served by `brokers` generated brokers
/// (standard JSON, as [`CLIENT_VERSION`] asks), computed once by the core: the floor server
/// sends exactly this many bytes.
///
/// # Panics
/// If the core rejects the generated registrations (a bug in this crate).
#[must_use]
pub fn reference_route_body(brokers: usize) -> Vec<u8> {
    let mut ns =
        NameServer::new(Config::java_defaults("/nonexistent", "/nonexistent"), KvConfig::default(), Instant::ZERO);
    // Two topics: a new broker registering exactly one topic is refused (a Java rule).
    let body = encode_register_body(&register_body(2, 1), false);
    for i in 0..brokers {
        let conn = ConnId(i as u64 + 1);
        let at = Instant::from_millis(1);
        ns.handle(at, Input::Connected { conn, remote: format!("127.0.0.1:{}", 40_000 + i) });
        let mut cmd = register_command(&BrokerSpec::fleet(i), &body, false, 1);
        cmd.body.clone_from(&body);
        ns.handle(at, Input::Received { conn, cmd });
        while ns.poll_output().is_some() {}
    }
    ns.route_body(&TopicName::new(topic_name(0)), JsonStyle::Standard).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use nameserver_core::codec::{Limits, decode};
    use nameserver_core::protocol::Request;

    use super::*;

    #[test]
    fn templates_patch_the_opaque_and_decode() {
        let template = Template::new(&route_query("TopicTest"));
        let mut out = Vec::new();
        template.append(1_234_567_890, &mut out);
        template.append(OPAQUE_BASE, &mut out);
        let (first, used) = decode(&out, &Limits::DEFAULT).unwrap().unwrap();
        assert_eq!(used, template.len());
        assert_eq!(first.opaque, 1_234_567_890);
        assert_eq!(first.field("topic"), Some("TopicTest"));
        let header = String::from_utf8_lossy(&out[8..used]).into_owned();
        assert!(header.contains("\"serializeTypeCurrentRPC\":\"JSON\""), "{header}");
        let (second, _) = decode(&out[used..], &Limits::DEFAULT).unwrap().unwrap();
        assert_eq!(second.opaque, OPAQUE_BASE);
    }

    #[test]
    fn a_registration_template_keeps_its_body_and_takes_each_opaque() {
        // The body holds the placeholder's text too: only the header's opaque is rewritten.
        let body = format!("{{\"opaque\":{OPAQUE_BASE}}}").into_bytes();
        let cmd = register_command(&BrokerSpec::fleet(3), &body, false, 1);
        let mut template = Template::with_body(&cmd, &body);
        for opaque in [OPAQUE_BASE + 1, OPAQUE_BASE + 999_999_999] {
            template.set_opaque(opaque);
            let (decoded, used) = decode(template.bytes(), &Limits::DEFAULT).unwrap().unwrap();
            assert_eq!(used, template.len());
            assert_eq!(decoded.opaque, opaque);
            assert_eq!(decoded.body, body);
            assert_eq!(decoded.field("brokerName"), Some("bench-broker-3"));
        }
    }

    #[test]
    fn registrations_parse_in_both_forms() {
        for compressed in [false, true] {
            let body = encode_register_body(&register_body(3, 1), compressed);
            let frame = register_frame(&BrokerSpec::fleet(7), &body, compressed, 5);
            let (cmd, _) = decode(&frame, &Limits::DEFAULT).unwrap().unwrap();
            match Request::parse(&cmd, &Limits::DEFAULT).unwrap() {
                Request::RegisterBroker(reg) => {
                    assert_eq!(reg.broker.broker_name.as_str(), "bench-broker-7");
                    assert_eq!(reg.body.topic_config_wrapper.topic_config_table.len(), 3);
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn broker_requests_name_the_broker() {
        for (cmd, code) in [
            (heartbeat("C", "b", 1, "127.0.0.1:1"), RequestCode::BrokerHeartbeat),
            (unregister_broker("C", "b", 1, "127.0.0.1:1"), RequestCode::UnregisterBroker),
        ] {
            let (decoded, _) = decode(&codec::encode_to_vec(&cmd).unwrap(), &Limits::DEFAULT).unwrap().unwrap();
            assert_eq!(decoded.code, RemotingCommand::request(code).code);
            let fields = ["clusterName", "brokerName", "brokerId", "brokerAddr"].map(|k| decoded.field(k));
            assert_eq!(fields, [Some("C"), Some("b"), Some("1"), Some("127.0.0.1:1")]);
        }
        assert_eq!(put_kv("n", "k", "v").field("value"), Some("v"));
        assert_eq!(get_kv("n", "k").field("key"), Some("k"));
    }

    #[test]
    fn the_reference_body_names_every_broker() {
        let body = String::from_utf8(reference_route_body(4)).unwrap();
        for i in 0..4 {
            assert!(body.contains(&format!("bench-broker-{i}")), "{body}");
        }
    }
}
