//! The hostile-input table of RELIABILITY.md, one test per row, against the real `nameserver`
//! binary over TCP on 127.0.0.1.
//!
//! Every test starts its own daemon and a [`Witness`]: a well-behaved client whose broker is
//! registered and who asks for its route every 10 ms while the hostile peer does its thing,
//! checking each answer against the first. Where memory could grow, the daemon's resident
//! set is read from `/proc/<pid>/status` before and after.
//!
//! Outcomes follow PROTOCOL.md §1.3: anything that cannot be framed or whose header cannot be
//! read closes that connection with no reply ("decode exception"); a readable request with
//! bad content gets an error response and the connection stays open.

mod reliability;
mod support;

use std::io::Write as _;
use std::time::{Duration, Instant};

use nameserver_core::codec;
use nameserver_core::protocol::body::{BodyError, RegisterBrokerBody};
use nameserver_core::protocol::{FLAG_ONEWAY, FLAG_RESPONSE, RemotingCommand, RequestCode, SerializeType};
use reliability::{
    Peer, Server, WITNESS_TOPIC, Witness, json_frame, register, request, route_query, settles, typed_frame,
    zlib_against, zlib_zeros,
};

const KIB_PER_MIB: u64 = 1024;

/// A daemon with a witness running; `settings` go into its properties file.
fn start(settings: &[(&str, &str)]) -> (Server, Witness) {
    let server = Server::start(settings, &[]);
    let witness = Witness::start(&server);
    (server, witness)
}

/// Sends `bytes` on a fresh connection and expects it closed with no reply; then checks that
/// the same daemon still answers a new connection.
fn assert_closes(server: &Server, what: &str, bytes: &[u8]) {
    let mut peer = server.peer();
    peer.send(bytes);
    assert!(peer.closed_without_reply(), "{what}: the connection stays open");
    let mut next = server.peer();
    assert_eq!(next.call(&route_query(WITNESS_TOPIC, 77)).code, 0, "{what}: a new connection is served");
}

/// A ROCKETMQ binary header: the fixed fields for a route query, then `rest`.
fn binary_header(rest: &[u8]) -> Vec<u8> {
    let mut h = vec![0, 105, 0, 0x01, 0xDF, 0, 0, 0, 7, 0, 0, 0, 0];
    h.extend_from_slice(rest);
    h
}

// ---------------------------------------------------------------------------------------------
// Framing: the length prefix
// ---------------------------------------------------------------------------------------------

#[test]
fn h01_huge_length_prefix_closes_before_anything_is_buffered() {
    let (server, witness) = start(&[]);
    let before = server.usage();
    for prefix in [i32::MAX, 16 * 1024 * 1024 - 3, 0x4000_0000] {
        assert_closes(&server, &format!("prefix {prefix}"), &prefix.to_be_bytes());
    }
    // A prefix over the limit followed by megabytes of data: closed on the prefix, the data
    // is never read into memory.
    let mut peer = server.peer();
    let mut flood = (64 * 1024 * 1024_i32).to_be_bytes().to_vec();
    flood.resize(4 * 1024 * 1024, b'x');
    let _ = peer.stream.write_all(&flood);
    assert!(peer.closed_without_reply());
    let after = server.usage();
    assert!(after.rss_kib < before.rss_kib + 4 * KIB_PER_MIB, "RSS {before:?} -> {after:?}");
    witness.finish();
}

#[test]
fn h02_negative_length_prefix_closes() {
    let (server, witness) = start(&[]);
    for prefix in [-1_i32, i32::MIN, -4] {
        let mut frame = prefix.to_be_bytes().to_vec();
        frame.extend_from_slice(&[0, 0, 0, 2, b'{', b'}']);
        assert_closes(&server, &format!("prefix {prefix}"), &frame);
    }
    witness.finish();
}

#[test]
fn h03_length_prefix_smaller_than_the_header_closes() {
    let (server, witness) = start(&[]);
    // No room for the header-length word.
    for prefix in [0_i32, 1, 3] {
        let mut frame = prefix.to_be_bytes().to_vec();
        frame.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0]);
        assert_closes(&server, &format!("prefix {prefix}"), &frame);
    }
    // A header length larger than the frame; an empty header.
    assert_closes(&server, "header longer than the frame", &[0, 0, 0, 8, 0, 0, 0x10, 0, b'{', b'}', b' ', b' ']);
    assert_closes(&server, "empty JSON header", &[0, 0, 0, 4, 0, 0, 0, 0]);
    assert_closes(&server, "empty binary header", &[0, 0, 0, 4, 1, 0, 0, 0]);
    witness.finish();
}

#[test]
fn h04_unknown_serialize_type_closes() {
    let (server, witness) = start(&[]);
    let header = codec::encode_to_vec(&route_query(WITNESS_TOPIC, 1)).unwrap()[8..].to_vec();
    for kind in [2_u8, 0x7F, 0xFF] {
        assert_closes(&server, &format!("type {kind}"), &typed_frame(kind, &header, b""));
    }
    witness.finish();
}

#[test]
fn h05_invalid_json_header_closes() {
    let (server, witness) = start(&[]);
    for header in [
        &br#"{"code":105,"opaque":1,"extFields":{"topic":"T""#[..],
        b"[105, 0, 1]",
        b"not json at all",
        br#"{"code":"x105","opaque":1}"#,
        br#"{"code":105,"extFields":["topic","T"]}"#,
        b"{\"code\":105,\"opaque\":1\x00}",
    ] {
        assert_closes(&server, &String::from_utf8_lossy(header), &json_frame(header, b""));
    }
    witness.finish();
}

#[test]
fn h06_binary_header_with_overrunning_lengths_closes() {
    let (server, witness) = start(&[]);
    let remark_overruns = binary_header(&1000_i32.to_be_bytes());
    let mut negative_remark = binary_header(&(-7_i32).to_be_bytes());
    negative_remark.extend_from_slice(&[0; 8]);
    let mut ext_overruns = binary_header(&[0, 0, 0, 0]);
    ext_overruns.extend_from_slice(&500_i32.to_be_bytes());
    let key_overruns = binary_header(&[0, 0, 0, 0, 0, 0, 0, 6, 0x7F, 0xFF, b't', b'o', b'p', b'i']);
    let mut value_overruns = binary_header(&[0, 0, 0, 0, 0, 0, 0, 13, 0, 5]);
    value_overruns.extend_from_slice(b"topic");
    value_overruns.extend_from_slice(&i32::MAX.to_be_bytes());
    value_overruns.extend_from_slice(b"TopicTest");
    let mut negative_ext = binary_header(&[0, 0, 0, 0]);
    negative_ext.extend_from_slice(&i32::MIN.to_be_bytes());
    let short = vec![0, 105, 0, 1];
    for (what, header) in [
        ("remark length overruns", remark_overruns),
        ("negative remark length", negative_remark),
        ("ext fields length overruns", ext_overruns),
        ("key length overruns", key_overruns),
        ("value length overruns", value_overruns),
        ("negative ext fields length", negative_ext),
        ("shorter than the fixed fields", short),
    ] {
        assert_closes(&server, what, &typed_frame(1, &header, b"trailing body"));
    }
    // The same request well formed is answered (the ROCKETMQ form itself is fine).
    let mut good = route_query(WITNESS_TOPIC, 5);
    good.serialize_type = SerializeType::Rocketmq;
    assert_eq!(server.peer().call(&good).code, 0);
    witness.finish();
}

// ---------------------------------------------------------------------------------------------
// Bodies
// ---------------------------------------------------------------------------------------------

fn bomb_register(opaque: i32) -> RemotingCommand {
    // 128 MiB of zeros in about 800 KB: twice the 64 MiB decompression limit.
    let bomb = zlib_zeros(1 + 258 * (128 * 1024 * 1024 / 258));
    assert!(bomb.len() < 1024 * 1024);
    request(
        RequestCode::RegisterBroker,
        opaque,
        &[
            ("clusterName", "BombCluster"),
            ("brokerName", "bomb"),
            ("brokerAddr", "127.0.0.1:1"),
            ("brokerId", "0"),
            ("haServerAddr", "127.0.0.1:2"),
            ("compressed", "true"),
        ],
    )
    .with_body(bomb)
}

#[test]
fn h07_zip_bomb_is_a_system_error_with_bounded_memory() {
    let (server, witness) = start(&[]);
    let before = server.usage();
    let mut peer = server.peer();
    let mut after_first = None;
    for opaque in 1..=3 {
        let reply = peer.call(&bomb_register(opaque));
        assert_eq!((reply.code, reply.opaque), (1, opaque), "{reply:?}");
        assert_eq!(
            reply.remark.as_deref(),
            Some("Failed to decode RegisterBrokerBody: compressed body inflates past 67108864 bytes")
        );
        after_first.get_or_insert(server.usage());
    }
    // Nothing registered; the connection is still served.
    assert_eq!(peer.call(&route_query("BombCluster", 9)).code, 17);
    let after = server.usage();
    let first = after_first.unwrap();
    eprintln!(
        "FIGURES zip bomb x3: RSS {:.0} MiB before, {:.0} after the first, {:.0} after the third (peak {:.0})",
        before.rss_mib(),
        first.rss_mib(),
        after.rss_mib(),
        after.peak_kib as f64 / 1024.0
    );
    // Inflating stops at the limit (64 MiB, plus the buffer it grew from); the memory is
    // reused, not accumulated: three bombs cost what one does.
    assert!(after.peak_kib < before.rss_kib + 200 * KIB_PER_MIB, "peak {before:?} -> {after:?}");
    assert!(after.rss_kib < first.rss_kib + 8 * KIB_PER_MIB, "RSS grows with each bomb: {first:?} -> {after:?}");
    assert!(after.rss_kib < before.rss_kib + 100 * KIB_PER_MIB, "RSS {before:?} -> {after:?}");
    witness.finish();
}

#[test]
fn h08_crc_mismatch_is_a_system_error_and_registers_nothing() {
    let (server, witness) = start(&[]);
    let mut peer = server.peer();
    let good = register("CrcCluster", "crc-broker", "127.0.0.1:3", &["CrcTopic", "CrcTopic2"], 1);
    let crc = crc32fast_like(&good.body);
    let reply = peer.call(&good.clone().with_field("bodyCrc32", (crc ^ 1).to_string()));
    assert_eq!((reply.code, reply.remark.as_deref()), (1, Some("crc32 not match")));
    assert_eq!(peer.call(&route_query("CrcTopic", 2)).code, 17, "nothing registered");
    // The right CRC registers.
    let mut right = good.with_field("bodyCrc32", crc.to_string());
    right.opaque = 3;
    assert_eq!(peer.call(&right).code, 0);
    assert_eq!(peer.call(&route_query("CrcTopic", 4)).code, 0);
    witness.finish();
}

/// CRC-32/IEEE masked with 0x7FFFFFFF, as brokers send it (bitwise; the tests need no crate).
fn crc32fast_like(bytes: &[u8]) -> u32 {
    let mut crc = !0_u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc & 0x7FFF_FFFF
}

#[test]
fn h09_invalid_utf8() {
    let (server, witness) = start(&[]);
    // In a JSON header: not JSON text, so a decode error and a close.
    assert_closes(
        &server,
        "JSON header",
        &json_frame(b"{\"code\":105,\"opaque\":1,\"extFields\":{\"topic\":\"T\xFF\xFE\"}}", b""),
    );
    // In a ROCKETMQ header string: read as Java does (replacement characters); the query is
    // answered.
    let mut peer = server.peer();
    let mut header = binary_header(&[0, 0, 0, 0]);
    let topic = b"Topic\xFF\xC0";
    let ext_len = 2 + 5 + 4 + topic.len();
    header.extend_from_slice(&u32::try_from(ext_len).unwrap().to_be_bytes());
    header.extend_from_slice(&[0, 5]);
    header.extend_from_slice(b"topic");
    header.extend_from_slice(&u32::try_from(topic.len()).unwrap().to_be_bytes());
    header.extend_from_slice(topic);
    peer.send(&typed_frame(1, &header, b""));
    let reply = peer.reply();
    assert_eq!((reply.code, reply.opaque), (17, 7), "{reply:?}");
    assert!(reply.remark.unwrap().contains("Topic\u{FFFD}\u{FFFD}"));
    // In a REGISTER_BROKER body: not JSON, a system error; the connection stays open.
    let mut bad = register("Utf8Cluster", "utf8", "127.0.0.1:4", &["Utf8Topic", "Utf8Topic2"], 8);
    let at = bad.body.windows(9).position(|w| w == b"Utf8Topic").unwrap();
    bad.body[at + 4] = 0xFF;
    let reply = peer.call(&bad);
    assert_eq!(reply.code, 1, "{reply:?}");
    assert!(reply.remark.unwrap().starts_with("Failed to decode RegisterBrokerBody"));
    assert_eq!(peer.call(&route_query(WITNESS_TOPIC, 10)).code, 0);
    witness.finish();
}

// ---------------------------------------------------------------------------------------------
// Sizes
// ---------------------------------------------------------------------------------------------

/// The compressed REGISTER_BROKER body (PROTOCOL.md §9.2, version ≥ 413) of `count` topics
/// named `T0000000`, `T0000001`, …: 32 bytes a topic before compression, about 5 after.
fn many_topics_body(count: usize) -> Vec<u8> {
    let mut raw = Vec::with_capacity(64 + 32 * count);
    let chunk = |raw: &mut Vec<u8>, bytes: &[u8]| {
        raw.extend_from_slice(&u32::try_from(bytes.len()).unwrap().to_be_bytes());
        raw.extend_from_slice(bytes);
    };
    chunk(&mut raw, br#"{"counter":1,"stateVersion":0,"timestamp":1}"#);
    raw.extend_from_slice(&u32::try_from(count).unwrap().to_be_bytes());
    for i in 0..count {
        chunk(&mut raw, format!("T{i:07} 4 4 6 SINGLE_TAG {{}}").as_bytes());
    }
    chunk(&mut raw, b"[]");
    raw.extend_from_slice(&0u32.to_be_bytes());
    zlib_against(&raw, 32)
}

/// REGISTER_BROKER of broker `big` with `count` topics in the compressed form.
fn many_topics_register(count: usize, opaque: i32) -> RemotingCommand {
    support::big_broker_register(opaque, many_topics_body(count))
}

/// Registers `count` topics in one compressed registration (the defined outcome: accepted,
/// like Java, which has no cap on topics) while the witness keeps asking for its route.
fn register_many_topics(count: usize) {
    let (server, witness) = start(&[]);
    let before = server.usage();
    let register = many_topics_register(count, 1);
    let frame_len = codec::encode_to_vec(&register).unwrap().len();
    assert!(frame_len < 16 * 1024 * 1024, "{count} topics fit a frame: {frame_len} bytes");
    let last = format!("T{:07}", count - 1);
    let mut rounds = Vec::new();
    // Twice, the broker leaving in between: the memory of the first is reused, not added to.
    for round in 0..2 {
        let mut peer = server.peer();
        peer.stream.set_read_timeout(Some(Duration::from_secs(600))).unwrap();
        let started = Instant::now();
        let reply = peer.call(&register);
        let took = started.elapsed();
        assert_eq!((reply.code, reply.opaque), (0, 1), "{reply:?}");
        let route = peer.call(&route_query(&last, 2));
        assert_eq!(route.code, 0, "{route:?}");
        assert!(String::from_utf8_lossy(&route.body).contains("\"brokerName\":\"big\""));
        let registered = server.usage();
        // The broker's connection closes: all its topics go.
        drop(peer);
        let mut other = server.peer();
        other.stream.set_read_timeout(Some(Duration::from_secs(600))).unwrap();
        let deadline = Instant::now() + Duration::from_secs(600);
        while other.call(&route_query(&last, 3)).code != 17 {
            assert!(Instant::now() < deadline, "the topics outlive their broker");
            std::thread::sleep(Duration::from_millis(50));
        }
        rounds.push((took, registered, server.usage()));
        eprintln!(
            "FIGURES {count} topics in one registration (round {round}): frame {frame_len} B, answered in {took:?}; RSS \
             {:.0} MiB before, {:.0} registered, {:.0} after the broker left",
            before.rss_mib(),
            registered.rss_mib(),
            server.usage().rss_mib()
        );
    }
    let watched = witness.finish();
    eprintln!("FIGURES {count} topics: witness {} answers, slowest {:?}", watched.answers, watched.slowest);
    let (first, second) = (rounds[0].1, rounds[1].1);
    assert!(
        second.rss_kib < first.rss_kib + first.rss_kib / 5,
        "memory grows with each registration: {first:?} then {second:?}"
    );
}

#[test]
fn h11_one_registration_with_many_topics_is_accepted_and_others_keep_their_answers() {
    // A million takes minutes in a debug build: the test command registers 50 000, and
    // `h11_one_registration_with_a_million_topics` (it runs in release builds) the
    // full million.
    register_many_topics(50_000);
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a million topics takes minutes in a debug build: cargo test --release -p nameserver --test hostile"
)]
fn h11_one_registration_with_a_million_topics() {
    register_many_topics(1_000_000);
}

#[test]
fn h11_a_million_topics_in_json_exceed_the_frame_limit_and_close() {
    let (server, witness) = start(&[]);
    // 36 bytes a topic at the least in JSON: a million do not fit 16 MiB; the prefix alone
    // closes the connection, nothing is buffered.
    let mut peer = server.peer();
    let announced = 1_000_000 * 36 + 512_i32;
    peer.send(&announced.to_be_bytes());
    let _ = peer.stream.write_all(&[0, 0, 0, 0x40]);
    assert!(peer.closed_without_reply());
    witness.finish();
}

#[test]
fn h10_enormous_topic_names() {
    let (server, witness) = start(&[]);
    let before = server.usage();
    let mut peer = server.peer();
    // A 1 MiB topic name registers and routes like any other.
    let long = "L".repeat(1024 * 1024);
    let reply = peer.call(&register("LongCluster", "long", "127.0.0.1:7", &[&long, "Short"], 1));
    assert_eq!(reply.code, 0, "{:?}", reply.remark);
    let route = peer.call(&route_query(&long, 2));
    assert_eq!(route.code, 0);
    // An 8 MiB unknown name: TOPIC_NOT_EXIST, the name in the remark, as Java writes it.
    let unknown = "U".repeat(8 * 1024 * 1024);
    let reply = peer.call(&route_query(&unknown, 3));
    assert_eq!((reply.code, reply.opaque), (17, 3));
    assert!(reply.remark.unwrap().contains(&unknown));
    // A name that fills a whole frame: the reply would repeat it in a header longer than
    // the 24-bit header length allows, so it cannot be encoded and the connection is closed
    // ("encode exception", as Java does when its encoder fails).
    let empty = codec::encode_to_vec(&route_query("", 4)).unwrap().len();
    let fill = "F".repeat(16 * 1024 * 1024 - empty);
    let frame = codec::encode_to_vec(&route_query(&fill, 4)).unwrap();
    assert_eq!(frame.len(), 16 * 1024 * 1024);
    peer.send(&frame);
    assert!(peer.closed_without_reply(), "an unencodable reply closes the connection");
    let after = server.usage();
    eprintln!(
        "FIGURES enormous topic names: RSS {:.0} -> {:.0} MiB (peak {:.0})",
        before.rss_mib(),
        after.rss_mib(),
        after.peak_kib as f64 / 1024.0
    );
    assert!(after.rss_kib < before.rss_kib + 128 * KIB_PER_MIB, "RSS {before:?} -> {after:?}");
    witness.finish();
}

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

#[test]
fn h12_unknown_request_codes_are_not_supported_and_keep_the_connection() {
    let (server, witness) = start(&[]);
    let mut peer = server.peer();
    for (opaque, code) in [4242, -1, 0, i32::MAX, i32::MIN, 32_767, 10].into_iter().enumerate() {
        let opaque = i32::try_from(opaque).unwrap();
        let reply = peer.call(&RemotingCommand { code, opaque, version: 479, ..RemotingCommand::default() });
        assert_eq!((reply.code, reply.opaque), (3, opaque), "code {code}: {reply:?}");
        assert_eq!(reply.remark, Some(format!(" request type {code} not supported")));
    }
    // The same in the ROCKETMQ header form.
    let cmd = RemotingCommand {
        code: 4243,
        opaque: 99,
        serialize_type: SerializeType::Rocketmq,
        ..RemotingCommand::default()
    };
    assert_eq!(peer.call(&cmd).code, 3);
    assert_eq!(peer.call(&route_query(WITNESS_TOPIC, 100)).code, 0);
    witness.finish();
}

#[test]
fn h13_oneway_requests_get_no_reply_and_still_take_effect() {
    let (server, witness) = start(&[]);
    let mut peer = server.peer();
    let oneway = |mut cmd: RemotingCommand| {
        cmd.flag = FLAG_ONEWAY;
        codec::encode_to_vec(&cmd).unwrap()
    };
    let mut burst = Vec::new();
    burst.extend(oneway(route_query(WITNESS_TOPIC, 1)));
    burst.extend(oneway(route_query("NoSuchTopic", 2)));
    burst.extend(oneway(RemotingCommand { code: 4242, opaque: 3, ..RemotingCommand::default() }));
    burst.extend(oneway(request(RequestCode::GetKvConfig, 4, &[])));
    burst.extend(oneway(register("OnewayCluster", "oneway", "127.0.0.1:8", &["OnewayTopic", "OnewayTopic2"], 5)));
    burst.extend(oneway(request(RequestCode::PutKvConfig, 6, &[("namespace", "ns"), ("key", "k"), ("value", "v")])));
    burst.extend(
        codec::encode_to_vec(&request(RequestCode::GetKvConfig, 7, &[("namespace", "ns"), ("key", "k")])).unwrap(),
    );
    assert!(peer.send(&burst));
    // The first reply on the connection is the one to the only two-way request, and the
    // oneway put before it took effect: the owner handles a connection's requests in order.
    let reply = peer.reply();
    assert_eq!((reply.code, reply.opaque, reply.field("value")), (0, 7, Some("v")), "{reply:?}");
    // So did the oneway registration; its route was published before that reply was sent.
    // (A route query sent right behind a oneway write, without waiting for a reply, may be
    // answered from the route snapshot before the write is applied: nothing tells the
    // connection when a oneway request is done. Java gives no order either: registrations
    // and route queries run in different thread pools.)
    let route = peer.call(&route_query("OnewayTopic", 8));
    assert_eq!(route.code, 0, "{route:?}");
    assert!(peer.silent_for(Duration::from_millis(300)));
    witness.finish();
}

#[test]
fn h14_missing_or_invalid_header_fields_are_system_errors() {
    let (server, witness) = start(&[]);
    let mut peer = server.peer();
    let broker = [("clusterName", "c"), ("brokerName", "b"), ("brokerAddr", "127.0.0.1:9"), ("haServerAddr", "x")];
    for (opaque, (cmd, remark)) in [
        (request(RequestCode::GetRouteInfoByTopic, 0, &[]), "the custom field <topic> is null"),
        (RemotingCommand { code: 105, version: 479, ..RemotingCommand::default() }, "the custom field <topic> is null"),
        (request(RequestCode::RegisterBroker, 0, &broker), "the custom field <brokerId> is null"),
        (request(RequestCode::RegisterBroker, 0, &broker[1..]), "the custom field <clusterName> is null"),
        (
            request(
                RequestCode::UnregisterBroker,
                0,
                &[("clusterName", "c"), ("brokerAddr", "a"), ("brokerName", "b"), ("brokerId", "zero")],
            ),
            "the custom field <brokerId> is invalid: `zero`",
        ),
        (request(RequestCode::PutKvConfig, 0, &[("namespace", "ns")]), "namespace or key is null"),
        (request(RequestCode::GetKvConfig, 0, &[("key", "k")]), "the custom field <namespace> is null"),
        (request(RequestCode::QueryDataVersion, 0, &[]), "the custom field <clusterName> is null"),
        (request(RequestCode::BrokerHeartbeat, 0, &[("clusterName", "c")]), "the custom field <brokerAddr> is null"),
        (request(RequestCode::GetTopicsByCluster, 0, &[]), "the custom field <cluster> is null"),
        (request(RequestCode::DeleteTopicInNamesrv, 0, &[]), "the custom field <topic> is null"),
        (request(RequestCode::WipeWritePermOfBroker, 0, &[]), "the custom field <brokerName> is null"),
    ]
    .into_iter()
    .enumerate()
    {
        let mut cmd = cmd;
        cmd.opaque = i32::try_from(opaque).unwrap();
        let reply = peer.call(&cmd);
        assert_eq!((reply.code, reply.opaque), (1, cmd.opaque), "{cmd:?}: {reply:?}");
        assert_eq!(reply.remark.as_deref(), Some(remark), "{cmd:?}");
    }
    assert_eq!(peer.call(&route_query(WITNESS_TOPIC, 100)).code, 0);
    witness.finish();
}

#[test]
fn h20_a_response_from_a_peer_is_ignored() {
    let (server, witness) = start(&[]);
    let mut peer = server.peer();
    let mut response = route_query(WITNESS_TOPIC, 1);
    response.flag = FLAG_RESPONSE;
    let mut unknown = RemotingCommand { code: 0, opaque: 2, flag: FLAG_RESPONSE, ..RemotingCommand::default() };
    unknown.body = b"{}".to_vec();
    let mut burst = codec::encode_to_vec(&response).unwrap();
    burst.extend(codec::encode_to_vec(&unknown).unwrap());
    burst.extend(codec::encode_to_vec(&route_query(WITNESS_TOPIC, 3)).unwrap());
    assert!(peer.send(&burst));
    assert_eq!(peer.reply().opaque, 3, "the responses got no reply");
    assert!(peer.silent_for(Duration::from_millis(300)));
    witness.finish();
}

// ---------------------------------------------------------------------------------------------
// Other protocols on the port
// ---------------------------------------------------------------------------------------------

#[test]
fn h15_http_on_the_rocketmq_port_closes() {
    let (server, witness) = start(&[]);
    for request in [
        &b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"[..],
        b"POST /api HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}",
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
        b"HEAD / HTTP/1.0\r\n\r\n",
    ] {
        let started = Instant::now();
        assert_closes(&server, &String::from_utf8_lossy(request), request);
        assert!(started.elapsed() < Duration::from_secs(2), "closed on the first four bytes");
    }
    witness.finish();
}

#[test]
fn h16_tls_client_hello_on_the_rocketmq_port_closes() {
    let (server, witness) = start(&[]);
    // A TLS 1.2/1.3 ClientHello record: 0x16, version, length, then the handshake. Read as
    // a length prefix, 0x16030100 is far over the frame limit. (Java sniffs 0x16 and starts
    // TLS in its default permissive mode; this server has no TLS and closes.)
    let mut hello = vec![0x16, 0x03, 0x01, 0x00, 0xF4, 0x01, 0x00, 0x00, 0xF0, 0x03, 0x03];
    hello.extend_from_slice(&[0x5A; 32]);
    hello.extend_from_slice(&[0x20; 1]);
    hello.resize(0xF4 + 5, 0);
    assert_closes(&server, "TLS 1.2 ClientHello", &hello);
    // An SSLv2-compatible hello starts with the high bit set: a negative length.
    assert_closes(&server, "SSLv2 hello", &[0x80, 0x2E, 0x01, 0x03, 0x01, 0x00, 0x15, 0x00, 0x00, 0x00, 0x10]);
    witness.finish();
}

// ---------------------------------------------------------------------------------------------
// Slow and misbehaving peers
// ---------------------------------------------------------------------------------------------

/// Seconds of silence after which the daemon closes a connection in the tests below.
const IDLE: &str = "2";

#[test]
fn h17_a_partial_frame_that_never_completes_is_closed_when_idle() {
    let (server, witness) = start(&[("serverChannelMaxIdleTimeSeconds", IDLE)]);
    let before = server.usage();
    let mut peer = server.peer();
    let mut frame = codec::encode_to_vec(&route_query(WITNESS_TOPIC, 1)).unwrap();
    frame.truncate(frame.len() - 3);
    peer.send(&frame);
    // Held open while it may still complete...
    assert!(peer.silent_for(Duration::from_millis(800)));
    // ...and closed once idle for serverChannelMaxIdleTimeSeconds, with no reply.
    let started = Instant::now();
    assert!(peer.closed_without_reply());
    assert!(started.elapsed() < Duration::from_secs(4), "closed after {:?}", started.elapsed());
    // Many peers announcing the largest frame and stalling: the frame is reserved, not
    // resident (the bytes that arrived are all that is held).
    let mut stalled = Vec::new();
    for _ in 0..200 {
        let mut peer = server.peer();
        peer.send(&(16 * 1024 * 1024 - 4_i32).to_be_bytes());
        peer.send(&[0; 1000]);
        stalled.push(peer);
    }
    std::thread::sleep(Duration::from_millis(300));
    let held = server.usage();
    assert!(held.rss_kib < before.rss_kib + 32 * KIB_PER_MIB, "200 stalled frames: RSS {before:?} -> {held:?}");
    for peer in &mut stalled {
        assert!(peer.closed_without_reply());
    }
    let after = settles(&server, "stalled connections closed", |u| u.fds <= before.fds);
    eprintln!(
        "FIGURES 200 stalled 16 MiB frames: RSS {:.0} -> {:.0} MiB while held, {:.0} MiB after; fds {} -> {} -> {}",
        before.rss_mib(),
        held.rss_mib(),
        after.rss_mib(),
        before.fds,
        held.fds,
        after.fds
    );
    witness.finish();
}

/// Writes `frame` over and over on `peer` without ever reading, until the writes block (the
/// server stopped reading) or fail (it closed the connection). The number of frames written.
fn flood_without_reading(peer: &mut Peer, frame: &[u8]) -> usize {
    peer.stream.set_write_timeout(Some(Duration::from_millis(1500))).unwrap();
    let burst: Vec<u8> = frame.iter().copied().cycle().take(frame.len() * 256).collect();
    let mut sent = 0;
    while peer.stream.write_all(&burst).is_ok() {
        sent += 256;
        assert!(sent < 10_000_000, "the server never stopped reading");
    }
    sent
}

#[test]
fn h18_a_peer_that_never_reads_its_route_replies_is_closed_when_idle() {
    let (server, witness) = start(&[("serverChannelMaxIdleTimeSeconds", IDLE)]);
    let before = server.usage();
    let mut peer = server.peer();
    let sent = flood_without_reading(&mut peer, &codec::encode_to_vec(&route_query(WITNESS_TOPIC, 1)).unwrap());
    let during = server.usage();
    // The server stopped reading once its replies backed up; nothing progresses, so the idle
    // timer closes it: the daemon's fd count is back to what it was while this peer still
    // has read nothing.
    let after = settles(&server, "the non-reader is closed", |u| u.fds <= before.fds);
    eprintln!(
        "FIGURES non-reader (route queries): {sent} requests sent before the server stopped reading; RSS {:.0} -> {:.0} \
         -> {:.0} MiB",
        before.rss_mib(),
        during.rss_mib(),
        after.rss_mib()
    );
    assert!(during.rss_kib < before.rss_kib + 32 * KIB_PER_MIB, "RSS {before:?} -> {during:?}");
    assert!(peer.frames_until_close().is_some());
    witness.finish();
}

#[test]
fn h18_a_peer_that_never_reads_owner_replies_is_closed_when_its_queue_fills() {
    // Default idle time (120 s): the close comes from the full reply queue, not idleness.
    let (server, witness) = start(&[]);
    let before = server.usage();
    let mut peer = server.peer();
    let started = Instant::now();
    let sent = flood_without_reading(
        &mut peer,
        &codec::encode_to_vec(&request(RequestCode::GetBrokerClusterInfo, 1, &[])).unwrap(),
    );
    let after = settles(&server, "the non-reader is closed", |u| u.fds <= before.fds);
    assert!(started.elapsed() < Duration::from_secs(60));
    eprintln!(
        "FIGURES non-reader (owner replies): {sent} requests sent, closed after {:?}; RSS {:.0} -> {:.0} MiB",
        started.elapsed(),
        before.rss_mib(),
        after.rss_mib()
    );
    assert!(after.rss_kib < before.rss_kib + 32 * KIB_PER_MIB, "RSS {before:?} -> {after:?}");
    assert!(peer.frames_until_close().is_some());
    witness.finish();
}

#[test]
fn h19_connection_churn_leaks_nothing() {
    let (server, witness) = start(&[]);
    let before = server.usage();
    let addr = server.addr();
    let threads: Vec<_> = (0..4)
        .map(|t| {
            std::thread::spawn(move || {
                for i in 0..1000 {
                    let mut peer = Peer::connect(addr);
                    match i % 4 {
                        // Ask and leave.
                        0 | 1 => assert_eq!(peer.call(&route_query(WITNESS_TOPIC, i)).code, 0),
                        // Connect and leave at once.
                        2 => {}
                        // Leave in the middle of a frame.
                        _ => {
                            let frame =
                                codec::encode_to_vec(&request(RequestCode::GetBrokerClusterInfo, i, &[])).unwrap();
                            peer.send(&frame[..frame.len() / 2]);
                        }
                    }
                    let _ = t;
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let after = settles(&server, "every churned connection is gone", |u| u.fds <= before.fds);
    eprintln!(
        "FIGURES churn of 4000 connections: RSS {:.0} -> {:.0} MiB, fds {} -> {}, threads {} -> {}",
        before.rss_mib(),
        after.rss_mib(),
        before.fds,
        after.fds,
        before.threads,
        after.threads
    );
    assert!(after.threads <= before.threads + 2, "threads {before:?} -> {after:?}");
    assert!(after.rss_kib < before.rss_kib + 16 * KIB_PER_MIB, "RSS {before:?} -> {after:?}");
    witness.finish();
}

/// The hand-made zlib streams above are what they claim: the core reads them.
#[test]
fn zlib_streams_inflate_to_what_they_say() {
    let mut raw = Vec::new();
    let push = |raw: &mut Vec<u8>, chunk: &[u8]| {
        raw.extend_from_slice(&u32::try_from(chunk.len()).unwrap().to_be_bytes());
        raw.extend_from_slice(chunk);
    };
    push(&mut raw, br#"{"counter":1,"stateVersion":0,"timestamp":1}"#);
    raw.extend_from_slice(&3u32.to_be_bytes());
    for topic in ["TopicA01", "TopicA02", "TopicA03"] {
        push(&mut raw, format!("{topic} 4 4 6 SINGLE_TAG").as_bytes());
    }
    push(&mut raw, b"[]");
    raw.extend_from_slice(&0u32.to_be_bytes());
    let body = RegisterBrokerBody::decode(&zlib_against(&raw, 29), true, 479, 1 << 20).unwrap();
    assert_eq!(body.topic_config_wrapper.topic_config_table.len(), 3);
    let bomb = zlib_zeros(1 + 258 * 8000);
    assert!(bomb.len() < 14_000, "{}", bomb.len());
    let error = RegisterBrokerBody::decode(&bomb, true, 479, 1 << 20).unwrap_err();
    assert_eq!(error.to_string(), "compressed body inflates past 1048576 bytes");
    // Under a higher limit the stream inflates completely (to zeros, which are no body).
    let error = RegisterBrokerBody::decode(&bomb, true, 479, 4 << 20).unwrap_err();
    assert!(!matches!(error, BodyError::Zlib | BodyError::TooLarge { .. }), "{error}");
}
