//! Issue 28, fairness: no peer picks its own address, and no source's connections decide
//! another's service. PROXY headers are read only from `--proxy-protocol-from` (required
//! there, refused with a warning elsewhere); a source holds at most
//! `--max-connections-per-source`.

use super::*;

/// A PROXY v1 header naming `source`.
fn v1(source: &str, port: u16) -> Vec<u8> {
    format!("PROXY TCP4 {source} 10.0.0.1 {port} 9876\r\n").into_bytes()
}

/// A PROXY v2 header naming `198.51.100.7:5555`.
fn v2() -> Vec<u8> {
    let mut out = b"\r\n\r\n\0\r\nQUIT\n".to_vec();
    out.extend_from_slice(&[0x21, 0x11, 0, 12, 198, 51, 100, 7, 10, 0, 0, 1, 0x15, 0xB3, 0x26, 0x94]);
    out
}

fn with_query(header: &[u8]) -> Vec<u8> {
    [header, &codec::encode_to_vec(&route_query(WITNESS_TOPIC, 5)).unwrap()].concat()
}

/// Lines of the daemon's log holding `text`, once there are `count` of them.
fn log_lines(server: &Server, text: &str, count: usize) -> Vec<String> {
    support::eventually_blocking(&format!("{count} log lines with {text:?}"), || {
        let lines: Vec<String> = server.daemon.log().lines().filter(|l| l.contains(text)).map(String::from).collect();
        (lines.len() >= count).then_some(lines)
    })
}

#[test]
fn spoof_proxy_headers_are_refused_unless_the_peer_is_a_listed_proxy() {
    let unlisted = "which --proxy-protocol-from does not list";
    // Without the flag: v1 and v2 straight from 127.0.0.1 are closed, never served under the
    // address they carry, and the warning (naming the flag) is said once a minute.
    let (server, witness) = start(&[]);
    for (what, header) in [("v1", v1("203.0.113.66", 4444)), ("v2", v2())] {
        let mut peer = server.peer();
        peer.send(&with_query(&header));
        assert!(peer.closes_without_a_frame(), "{what}: served");
    }
    let warned = log_lines(&server, unlisted, 1);
    assert!(warned[0].contains("WARN") && warned[0].contains("127.0.0.1"), "{warned:?}");
    let log = server.daemon.log();
    assert_eq!(log.matches(unlisted).count(), 1, "rate-limited to one a minute per source:\n{log}");
    assert!(!log.contains("203.0.113.66") && !log.contains("198.51.100.7"), "{log}");
    witness.finish();

    // Listed: the carried address stands for the peer; a header-less connection is closed.
    let server = Server::start(&[], &["--proxy-protocol-from", "127.0.0.1/32", "--log-level", "debug"]);
    for (what, header, carried) in
        [("v1", v1("203.0.113.66", 4444), "203.0.113.66:4444"), ("v2", v2(), "198.51.100.7:5555")]
    {
        let mut peer = server.peer();
        peer.send(&with_query(&header));
        let reply = peer.reply();
        assert_eq!(reply.opaque, 5, "{what}");
        log_lines(&server, &format!("channelActive, the channel[{carried}]"), 1);
    }
    let mut bare = server.peer();
    bare.send(&codec::encode_to_vec(&route_query(WITNESS_TOPIC, 6)).unwrap());
    assert!(bare.closes_without_a_frame(), "a header-less connection from a listed proxy is served");
    log_lines(&server, "is listed in --proxy-protocol-from but sent no PROXY protocol header", 1);
}

#[test]
fn per_source_cap_refuses_the_eleventh_from_one_source_and_not_another_source() {
    let server = Server::start(&[], &["--max-connections", "20", "--max-connections-per-source", "10"]);
    let mut held: Vec<Peer> = (0..10).map(|_| Peer::connect_from(server.addr(), "127.0.0.2")).collect();
    for (i, peer) in held.iter_mut().enumerate() {
        let opaque = i32::try_from(i).unwrap();
        assert_eq!(peer.call(&route_query(WITNESS_TOPIC, opaque)).opaque, opaque, "connection {i} is served");
    }
    let mut eleventh = Peer::connect_from(server.addr(), "127.0.0.2");
    eleventh.send(&codec::encode_to_vec(&route_query(WITNESS_TOPIC, 11)).unwrap());
    assert!(eleventh.closes_without_a_frame(), "the 11th from 127.0.0.2 is served");
    let warned = log_lines(&server, "--max-connections-per-source", 1);
    assert!(warned[0].contains("127.0.0.2") && warned[0].contains("WARN"), "{warned:?}");
    // Another source is served, and a broker from it registers.
    let mut broker = Peer::connect_from(server.addr(), "127.0.0.3");
    let reply = broker.call(&register("C", "b", "127.0.0.3:10911", &["T1", "T2"], 1));
    assert_eq!(reply.code, 0, "{:?}", reply.remark);
    // A slot freed is a slot for the same source again.
    drop(held.pop());
    support::eventually_blocking("a freed slot taken again", || {
        let mut again = Peer::connect_from(server.addr(), "127.0.0.2");
        again.send(&codec::encode_to_vec(&route_query(WITNESS_TOPIC, 12)).unwrap());
        again.next_frame().ok()
    });
}
