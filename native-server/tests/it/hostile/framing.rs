//! Framing: the length prefix, the header, and other protocols on the port.

use super::*;

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

#[test]
fn h15_http_on_the_rocketmq_port_closes() {
    let (server, witness) = start(&[]);
    for request in [
        &b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"[..],
        b"POST /api HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}",
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
        b"HEAD / HTTP/1.0\r\n\r\n",
    ] {
        // Closed at all (the default idle close is 120 s away): on the first four bytes.
        assert_closes(&server, &String::from_utf8_lossy(request), request);
    }
    witness.finish();
}

#[test]
fn h16_a_bad_tls_client_hello_on_the_rocketmq_port_closes() {
    // Java's default, permissive: a connection starting with 0x16 is TLS (with the test mode's
    // self-signed certificate). A ClientHello that is not one fails the handshake and closes.
    let (server, witness) = start(&[]);
    let mut hello = vec![0x16, 0x03, 0x01, 0x00, 0xF4, 0x01, 0x00, 0x00, 0xF0, 0x03, 0x03];
    hello.extend_from_slice(&[0x5A; 32]);
    hello.extend_from_slice(&[0x20; 1]);
    hello.resize(0xF4 + 5, 0);
    assert_closes_without_frame(&server, "malformed TLS ClientHello", &hello);
    // An SSLv2-compatible hello starts with the high bit set: plaintext, a negative length.
    assert_closes(&server, "SSLv2 hello", &[0x80, 0x2E, 0x01, 0x03, 0x01, 0x00, 0x15, 0x00, 0x00, 0x00, 0x10]);
    // A record that only announces itself and stalls is held like a partial frame.
    let mut stalled = server.peer();
    stalled.send(&[0x16, 0x03, 0x01]);
    assert!(stalled.silent_for(Duration::from_millis(300)));
    witness.finish();
    // tls.server.mode=disabled: Java closes a TLS client at once.
    let server = Server::start(&[], &["-Dtls.server.mode=disabled"]);
    let witness = Witness::start(&server);
    assert_closes(&server, "TLS 1.2 ClientHello, TLS disabled", &hello);
    witness.finish();
}
