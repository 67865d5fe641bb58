//! Bodies: zip bombs, CRC mismatches, invalid UTF-8.

use super::*;

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
    let crc = broker_crc32(&good.body);
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

/// CRC-32/IEEE masked with 0x7FFFFFFF, as brokers send it.
fn broker_crc32(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes) & 0x7FFF_FFFF
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
    // Java 5.5.0's remark for a body it cannot decode (the Java oracle's answer).
    assert!(reply.remark.unwrap().contains("Failed to decode RegisterBrokerBody"));
    assert_eq!(peer.call(&route_query(WITNESS_TOPIC, 10)).code, 0);
    witness.finish();
}

/// The hand-made zlib streams these tests send are what they claim: the core reads them.
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
