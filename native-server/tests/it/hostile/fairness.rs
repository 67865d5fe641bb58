//! Issue 28, fairness: no peer picks its own address, and no source's connections decide
//! another's service. PROXY headers are read only from `--proxy-protocol-from` (required
//! there, refused with a warning elsewhere); a source holds at most
//! `--max-connections-per-source`.

use super::*;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

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

/// One byte every [`TRICKLE_EVERY`] on each of `streams` until `stop`: a frame that never
/// completes, from a peer that is never idle.
const TRICKLE_EVERY: Duration = Duration::from_secs(2);

fn trickle(streams: Vec<std::net::TcpStream>, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<usize> {
    std::thread::spawn(move || {
        let mut rounds = 0;
        while !stop.load(Ordering::Relaxed) {
            for mut stream in &streams {
                let _ = stream.write_all(b"x");
            }
            rounds += 1;
            std::thread::sleep(TRICKLE_EVERY);
        }
        rounds
    })
}

#[test]
fn trickle_frames_are_closed_by_the_frame_deadline_and_a_broker_then_registers() {
    // Idle 3 s, which the trickle resets every 2 s; the frame deadline (4 s here instead of
    // 10 s, plus 1 s for the 1,000 bytes announced) is what closes them.
    let server = Server::start(
        &[("serverChannelMaxIdleTimeSeconds", "3")],
        &["--max-connections", "20", "--max-connections-per-source", "20", "--test-deadline-ms", "4000"],
    );
    let mut trickling: Vec<Peer> = (0..20).map(|_| Peer::connect_from(server.addr(), "127.0.0.2")).collect();
    for peer in &mut trickling {
        assert!(peer.send(&1000u32.to_be_bytes()));
    }
    let stop = Arc::new(AtomicBool::new(false));
    let writer = trickle(trickling.iter().map(|p| p.stream.try_clone().unwrap()).collect(), Arc::clone(&stop));
    // Every slot is taken: the broker waits in the backlog until the deadline frees them.
    let mut broker = Peer::connect_from(server.addr(), "127.0.0.3");
    let reply = broker.call(&register("C", "b", "127.0.0.3:10911", &["T1", "T2"], 1));
    assert_eq!(reply.code, 0, "{:?}", reply.remark);
    assert!(!writer.is_finished(), "the trickle goes on");
    for (i, peer) in trickling.iter_mut().enumerate() {
        assert!(peer.closes_without_a_frame(), "trickling connection {i} stays open");
    }
    let warned = log_lines(&server, "was not complete within", 1);
    assert!(warned[0].contains("127.0.0.2") && warned[0].contains("(1004 bytes)"), "{warned:?}");
    stop.store(true, Ordering::Relaxed);
    let rounds = writer.join().unwrap();
    eprintln!("FIGURES trickle: 20 connections closed by the frame deadline after at most {rounds} bytes each");
}

#[test]
fn handshakes_stopping_half_way_are_closed_by_the_handshake_deadline_and_silent_plaintext_stays() {
    // Idle 120 s; the handshake deadline 1 s here (10 s by default).
    let server = Server::start(
        &[("serverChannelMaxIdleTimeSeconds", "120")],
        &["--proxy-protocol-from", "127.0.0.2", "--test-deadline-ms", "1000"],
    );
    let silent: Vec<Peer> = (0..10).map(|_| server.peer()).collect();
    let mut stalled: Vec<(&str, Peer)> = Vec::new();
    for i in 0..100 {
        // Inside a signature from anyone, inside a header from a listed proxy.
        let (what, mut peer, bytes): (&str, Peer, &[u8]) = match i % 3 {
            0 => ("inside a v1 signature", server.peer(), b"PROX"),
            1 => ("inside a v2 signature", server.peer(), b"\r\n\r\n\0\r\n"),
            _ => ("inside a v1 header", Peer::connect_from(server.addr(), "127.0.0.2"), b"PROXY TCP4 203.0.113"),
        };
        assert!(peer.send(bytes));
        stalled.push((what, peer));
    }
    for _ in 0..10 {
        // A listed proxy that sends nothing, as when the client behind it is silent: it owes
        // its header within the deadline all the same.
        stalled.push(("a silent listed proxy", Peer::connect_from(server.addr(), "127.0.0.2")));
    }
    for _ in 0..100 {
        // A TLS record announcing a 200-byte ClientHello, and 2 bytes of it.
        let mut peer = server.peer();
        assert!(peer.send(&[0x16, 0x03, 0x01, 0x00, 0xC8, 0x01, 0x00]));
        stalled.push(("inside a ClientHello", peer));
    }
    for (what, peer) in &mut stalled {
        assert!(peer.closes_without_a_frame(), "{what}: stays open");
    }
    log_lines(&server, "was not done within", 2);
    // Opened before the others, so past any deadline those had: still open.
    for (i, peer) in silent.iter().enumerate() {
        peer.stream.set_nonblocking(true).unwrap();
        let mut byte = [0; 1];
        let open = matches!(std::io::Read::read(&mut &peer.stream, &mut byte),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock);
        assert!(open, "silent plaintext connection {i} was closed");
    }
}

/// The lines of the log holding `text`, and how many of them are warnings.
fn warnings_among(server: &Server, text: &str, count: usize) -> usize {
    log_lines(server, text, count).iter().filter(|line| line.contains("WARN")).count()
}

#[test]
fn connect_and_close_is_no_warning_and_other_handshake_failures_warn_once_a_minute() {
    let server = Server::start(&[], &["--log-level", "debug"]);
    // A health check's connect-and-close: said at debug only.
    for _ in 0..20 {
        drop(server.peer());
    }
    let warned = warnings_among(&server, "before any frame: the peer closed the connection", 20);
    assert_eq!(warned, 0, "connect-and-close is logged as a warning:\n{}", server.daemon.log());
    // Half a PROXY signature, then gone: one warning, the other 19 held back.
    for _ in 0..20 {
        let mut peer = server.peer();
        assert!(peer.send(b"PROX"));
        peer.stream.shutdown(std::net::Shutdown::Write).unwrap();
        assert!(peer.closes_without_a_frame());
    }
    log_lines(&server, "handshake warning about 127.0.0.1 held back", 19);
    let log = server.daemon.log();
    let half_way: Vec<&str> = log.lines().filter(|l| l.contains("closed the connection half-way")).collect();
    assert_eq!(half_way.len(), 1, "{half_way:#?}");
    assert!(half_way[0].contains("WARN") && half_way[0].contains("once a minute per source"), "{half_way:?}");
}

/// TCP health checks (a load balancer's, Kubernetes' tcpSocket probes): connect, then close at
/// once, half with a FIN and half with a RST (SO_LINGER 0). Plaintext and TLS enforcing.
#[test]
fn tcp_probes_that_close_or_reset_at_once_leave_no_warning_no_frame_error_and_no_descriptor() {
    // A Helm chart's TCP probes: 1,200 (600 closed, 600 reset), each counted as accepted.
    const PROBES: usize = 1200;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let pki = crate::tls_support::Pki::new();
    let cert = format!("-Dtls.server.certPath={}", pki.server_cert.display());
    let key = format!("-Dtls.server.keyPath={}", pki.server_key.display());
    let enforcing = ["-Dtls.server.mode=enforcing", "-Dtls.test.mode.enable=false", cert.as_str(), key.as_str()];
    for tls in [&[][..], &enforcing[..]] {
        let logs = tempfile::tempdir().unwrap();
        let log_dir = logs.path().display().to_string();
        let (server, console) =
            Server::start_with_console(&[], &[&["--log-level", "debug", "--log-dir", log_dir.as_str()], tls].concat());
        let warnings = |log: &str| log.lines().filter(|l| l.contains(" WARN ") || l.contains(" ERROR ")).count();
        let warned_before = warnings(&server.daemon.log());
        let namesrv_log = logs.path().join("namesrv.log");
        // namesrv.log is written by a thread of its own: count its start-up warnings (the page's)
        // once the console's line, logged after them, is in.
        let filed_before = warnings(&support::eventually_blocking("the console's line in namesrv.log", || {
            let filed = std::fs::read_to_string(&namesrv_log).unwrap_or_default();
            filed.contains("HTTP console on").then_some(filed)
        }));
        let frame_errors = metric(console, "nameserver_frame_errors_total");
        let accepted = metric(console, "nameserver_connections_accepted_total");
        let fds = server.usage().fds;
        runtime.block_on(async {
            for i in 0..PROBES {
                let stream = tokio::net::TcpStream::connect(server.addr()).await.unwrap();
                if i % 2 == 1 {
                    stream.set_zero_linger().unwrap();
                }
                drop(stream);
            }
        });
        // Each is seen (said at debug), then nothing of it is left.
        log_lines(&server, "ended before any frame: the peer closed the connection", PROBES / 2);
        log_lines(&server, "ended before any frame: the peer reset the connection", PROBES / 2);
        support::eventually_blocking("no connection or descriptor left", || {
            (metric(console, "nameserver_connections") == 0 && server.usage().fds <= fds).then_some(())
        });
        let log = server.daemon.log();
        assert_eq!(metric(console, "nameserver_frame_errors_total"), frame_errors, "tls {tls:?}:\n{log}");
        assert_eq!(warnings(&log), warned_before, "tls {tls:?}: a probe was warned about:\n{log}");
        // Wait until every probe's line is in.
        let filed = support::eventually_blocking("every probe in namesrv.log", || {
            let filed = std::fs::read_to_string(&namesrv_log).unwrap_or_default();
            (filed.matches("ended before any frame").count() >= PROBES).then_some(filed)
        });
        assert_eq!(warnings(&filed), filed_before, "tls {tls:?}: a probe was warned about in namesrv.log");
        assert_eq!(metric(console, "nameserver_connections_accepted_total"), accepted + PROBES as u64, "tls {tls:?}");
    }
}

#[test]
fn a_listed_proxys_health_checks_and_silent_clients_are_counted_when_the_header_is_read() {
    let server = Server::start(&[], &["--proxy-protocol-from", "127.0.0.2", "--max-connections-per-source", "2"]);
    // Health checks (LOCAL/UNKNOWN: no client named) count under the proxy's address, and
    // clients under theirs, from the header on, silent or not: of three, one is refused.
    let cases = [
        (b"PROXY UNKNOWN\r\n".to_vec(), "its source 127.0.0.2 already holds 2"),
        (v1("203.0.113.66", 4444), "its source 203.0.113.66 already holds 2"),
    ];
    for (i, (header, refusal)) in cases.iter().enumerate() {
        let mut three: Vec<Peer> = (0..3).map(|_| Peer::connect_from(server.addr(), "127.0.0.2")).collect();
        for peer in &mut three {
            assert!(peer.send(header));
        }
        log_lines(&server, refusal, 1);
        let query = codec::encode_to_vec(&route_query(WITNESS_TOPIC, 7)).unwrap();
        let served =
            three.iter_mut().map(|peer| peer.send(&query) && peer.next_frame().is_ok()).filter(|ok| *ok).count();
        assert_eq!(served, 2, "case {i}:\n{}", server.daemon.log());
    }
    let refused = log_lines(&server, "--max-connections-per-source", 2);
    assert!(refused.iter().any(|l| l.contains("203.0.113.66:4444 (by the proxy 127.0.0.2:")), "{refused:?}");
    // Another client by the same proxy is served.
    let mut other = Peer::connect_from(server.addr(), "127.0.0.2");
    let query = codec::encode_to_vec(&route_query(WITNESS_TOPIC, 8)).unwrap();
    assert!(other.send(&[v1("203.0.113.67", 4444), query].concat()));
    assert_eq!(other.reply().opaque, 8);
}

#[test]
fn a_slow_reader_is_closed_after_one_idle_period_even_while_it_reads() {
    let server = Server::start(&[("serverChannelMaxIdleTimeSeconds", "3")], &[]);
    // 2,000 topics of 40 characters: each GET_ALL_TOPIC_LIST reply is about 90 KB.
    let topics: Vec<String> = (0..2000).map(|i| format!("slow-reader-topic-{i:022}")).collect();
    let names: Vec<&str> = topics.iter().map(String::as_str).collect();
    let mut broker = server.peer();
    assert_eq!(broker.call(&register("C", "b", "127.0.0.1:10911", &names, 1)).code, 0);
    let before = server.usage();
    // A receive buffer of 128 KiB, so the peer's own reads are what lets the daemon write.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_io().build().unwrap();
    let mut reader = runtime
        .block_on(async {
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            socket.set_recv_buffer_size(128 * 1024).unwrap();
            socket.connect(server.addr()).await
        })
        .unwrap()
        .into_std()
        .unwrap();
    reader.set_nonblocking(false).unwrap();
    reader.set_read_timeout(Some(support::PATIENCE)).unwrap();
    // 83 replies, about 7.2 MB: the daemon socket's send buffer takes up to 4 MB on loopback,
    // and the rest, held by the daemon, stays under the 4 MiB that closes a peer at once.
    let requests: Vec<u8> = (0..83)
        .flat_map(|opaque| {
            codec::encode_to_vec(&request(RequestCode::GetAllTopicListFromNameserver, opaque, &[])).unwrap()
        })
        .collect();
    reader.write_all(&requests).unwrap();
    let started = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let reading = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let (mut read, mut chunk) = (0, vec![0; 64 * 1024]);
            while !stop.load(Ordering::Relaxed) {
                match std::io::Read::read(&mut reader, &mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => read += n,
                }
                // About 640 KB/s: enough that the daemon's writes, each freeing room in its
                // socket's send buffer, come more often than the idle time.
                std::thread::sleep(Duration::from_millis(100));
            }
            read
        })
    };
    // Closed while it reads (what the kernel had queued before the close still arrives).
    let warned = log_lines(&server, "unread for a whole idle period", 1);
    let closed_after = started.elapsed();
    assert!(!reading.is_finished(), "the peer stopped reading: {warned:?}");
    let after = settles(&server, "the slow reader is gone", |u| u.fds <= before.fds);
    stop.store(true, Ordering::Relaxed);
    let read = reading.join().unwrap();
    eprintln!(
        "FIGURES slow reader: closed after {closed_after:?} having read {read} bytes; RSS {:.0} -> {:.0} MiB",
        before.rss_mib(),
        after.rss_mib()
    );
    assert!(after.rss_kib < before.rss_kib + 8 * KIB_PER_MIB, "RSS {before:?} -> {after:?}");
}

#[tokio::test]
async fn oneway_reads_never_reach_the_owner() {
    let server = crate::http_support::ConsoleServer::start().await;
    let mut client = server.client().await;
    let mut flood = Vec::new();
    for opaque in 0..20_000 {
        let mut cmd = request(RequestCode::GetAllTopicListFromNameserver, opaque, &[]);
        cmd.flag |= FLAG_ONEWAY;
        flood.extend_from_slice(&codec::encode_to_vec(&cmd).unwrap());
    }
    client.send(&flood).await;
    // Frames are taken in order: once this is answered, every oneway one was handled.
    let last = client.request(&request(RequestCode::GetAllTopicListFromNameserver, 20_000, &[])).await;
    assert_eq!((last.code, last.opaque), (0, 20_000));
    let metrics = server.get("/metrics").await.text();
    assert!(metrics.contains("\nnameserver_oneway_reads_dropped_total 20000\n"), "{metrics}");
    let handled: Vec<&str> =
        metrics.lines().filter(|l| l.starts_with("nameserver_requests_total{code=\"206\"")).collect();
    assert_eq!(handled.len(), 1, "{handled:?}");
    assert!(handled[0].ends_with(" 1") && handled[0].contains("response_code=\"0\""), "{handled:?}");
    // The owner's record (test hooks): only the two-way one entered its queue.
    let record = server.get("/test-hooks/owner/record").await.text();
    let lines: Vec<&str> = record.lines().map(|line| line.split_once(' ').unwrap().1).collect();
    assert!(lines.len() == 2 && lines.iter().all(|l| l.ends_with(" 206 20000")), "{record}");
}
