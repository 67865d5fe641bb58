//! Slow and misbehaving peers: partial frames, peers that never read, connection churn.

use super::*;

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
    assert!(peer.closed_without_reply());
    // Many peers announcing the largest frame and stalling: the frame is reserved, not
    // resident (the bytes that arrived are all that is held).
    let mut stalled = Vec::new();
    for _ in 0..200 {
        let mut peer = server.peer();
        peer.send(&(16 * 1024 * 1024 - 4_i32).to_be_bytes());
        peer.send(&[0; 1000]);
        stalled.push(peer);
    }
    let held = settles(&server, "200 stalled peers accepted", |u| u.fds >= before.fds + 200);
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
fn h18_a_peer_that_never_reads_owner_replies_is_held_to_its_lane_and_closed_when_idle() {
    // The owner answers at most the 64 requests of the connection's lane beyond what the
    // connection task has taken: once the replies back up, the task stops handing over and
    // reading, nothing progresses, and the idle close (or the slow-reader close) ends it.
    let (server, witness) = start(&[("serverChannelMaxIdleTimeSeconds", IDLE)]);
    // Owner replies of ~11 KB (the topic list of 1,000 topics).
    let mut broker = server.peer();
    assert_eq!(broker.call(&support::big_broker_register(9, super::sizes::many_topics_body(1000))).code, 0);
    // Not idle: its topics (and the replies' size) stay.
    let broker = KeptAlive::start(broker);
    let before = server.usage();
    let mut peer = server.peer();
    let started = Instant::now();
    // Closed at all: `settles` fails the test after its patience.
    let sent = flood_without_reading(
        &mut peer,
        &codec::encode_to_vec(&request(RequestCode::GetAllTopicListFromNameserver, 1, &[])).unwrap(),
    );
    let after = settles(&server, "the non-reader is closed", |u| u.fds <= before.fds);
    eprintln!(
        "FIGURES non-reader (owner replies): {sent} requests sent, closed after {:?}; RSS {:.0} -> {:.0} MiB",
        started.elapsed(),
        before.rss_mib(),
        after.rss_mib()
    );
    assert!(after.rss_kib < before.rss_kib + 32 * KIB_PER_MIB, "RSS {before:?} -> {after:?}");
    assert!(peer.frames_until_close().is_some());
    broker.finish();
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

#[test]
fn h21_malformed_or_truncated_proxy_protocol_headers_close_that_connection_only() {
    // From a listed proxy, the only peers whose headers are read (hostile/fairness.rs: others).
    let server = Server::start(&[], &["--proxy-protocol-from", "127.0.0.2", "--test-deadline-ms", "1000"]);
    let witness = Witness::start(&server);
    let proxy = || Peer::connect_from(server.addr(), "127.0.0.2");
    let mut v2 = b"\r\n\r\n\0\r\nQUIT\n".to_vec();
    v2.extend_from_slice(&[0x21, 0x11, 0, 12, 203, 0, 113, 7, 127, 0, 0, 1, 0xC8, 0x22, 0x26, 0x94]);
    let mut bad_command = v2.clone();
    bad_command[12] = 0x2F;
    let mut lying_length = v2.clone();
    lying_length[15] = 2;
    for (what, bytes) in [
        ("v1 with a bad address", b"PROXY TCP4 999.1.1.1 10.0.0.1 1 2\r\n".to_vec()),
        ("v1 without CRLF", [b"PROXY ".as_slice(), &[b'A'; 200]].concat()),
        ("v1 with a bad protocol", b"PROXY SCTP 1.2.3.4 5.6.7.8 1 2\r\n".to_vec()),
        ("v2 with a bad command", bad_command),
        ("v2 shorter than its addresses", lying_length),
    ] {
        let mut peer = proxy();
        peer.send(&bytes);
        assert!(peer.closes_without_a_frame(), "{what}: the connection stays open or answered");
    }
    // A header cut short and never finished is closed at the handshake deadline.
    let mut cut = proxy();
    cut.send(&v2[..10]);
    assert!(cut.closed_without_reply());
    // A good header is served.
    let mut good = proxy();
    good.send(&v2);
    assert_eq!(good.call(&route_query(WITNESS_TOPIC, 9)).code, 0);
    witness.finish();
}

#[test]
fn h22_min_broker_id_notices_to_an_unreachable_broker_never_hold_anyone_up() {
    let (server, witness) = start(&[("notifyMinBrokerIdChanged", "true")]);
    // A member whose address takes connections into a full backlog and never accepts: every
    // notice to it waits for its connect timeout.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_io().build().unwrap();
    let blackhole = runtime.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        socket.listen(1).unwrap()
    });
    let hole = blackhole.local_addr().unwrap();
    let _fill: Vec<_> =
        (0..4).filter_map(|_| std::net::TcpStream::connect_timeout(&hole, Duration::from_millis(200)).ok()).collect();
    let member = |addr: &str, id: &str, opaque| {
        register("NoticeCluster", "notice-group", addr, &["NoticeA", "NoticeB"], opaque)
            .with_field("brokerId", id)
            .with_field("enableActingMaster", "true")
    };
    let mut slave = server.peer();
    assert_eq!(slave.call(&member(&hole.to_string(), "1", 1)).code, 0);
    // Had the owner waited for a notice's connect, a call below or the witness would wait
    // for it: each fails the test after its patience.
    for round in 0..40 {
        let mut master = server.peer();
        assert_eq!(master.call(&member("127.0.0.1:40999", "0", round)).code, 0);
        drop(master);
    }
    let mut asker = server.peer();
    assert_eq!(asker.call(&route_query("NoticeA", 1)).code, 0);
    let watched = witness.finish();
    eprintln!("FIGURES 80 notices to a black hole: witness {} answers, slowest {:?}", watched.answers, watched.slowest);
    drop(blackhole);
}
