//! Byte budgets: what one peer's bytes may cost the daemon in memory, log and disk (issue 25,
//! RELIABILITY.md §1): the KV budget, replies a peer leaves unread, client text in log lines,
//! and a failed KV write.

use super::*;
use support::PATIENCE;

const MIB: usize = 1024 * 1024;

/// PUT_KV_CONFIG of `value` to `ns`/`key`.
fn put_kv(key: &str, value: &str, opaque: i32) -> RemotingCommand {
    request(RequestCode::PutKvConfig, opaque, &[("namespace", "Hostile"), ("key", key), ("value", value)])
}

/// A value of `len` bytes that differs with `round` (so every put changes the entry).
fn value_of(len: usize, round: usize) -> String {
    let mut value = format!("{round:08}");
    value.push_str(&"v".repeat(len - value.len()));
    value
}

/// PUT_KV_CONFIG frames of `len`-byte values to `key`, encoded once: [`Puts::frame`] writes
/// the round into the value in place (encoding megabytes each round would make the test
/// measure itself).
struct Puts {
    frame: Vec<u8>,
    at: usize,
}

impl Puts {
    fn new(key: &str, len: usize) -> Self {
        let mut cmd = put_kv(key, &value_of(len, 0), 0);
        // The binary header, as Java clients may send: a debug build reads megabytes of JSON
        // header slowly, and what is measured is what the value costs once read.
        cmd.serialize_type = SerializeType::Rocketmq;
        let frame = codec::encode_to_vec(&cmd).unwrap();
        let marker = b"00000000vvvvvvvv";
        let at = frame.windows(marker.len()).position(|w| w == marker).expect("the value in the header");
        Self { frame, at }
    }

    fn frame(&mut self, round: usize) -> &[u8] {
        self.frame[self.at..self.at + 8].copy_from_slice(format!("{round:08}").as_bytes());
        &self.frame
    }
}

#[test]
fn h23_kv_values_over_the_budget_are_refused_and_change_nothing() {
    let (server, witness) = start(&[]);
    let mut peer = server.peer();
    let mut puts = Puts::new("k", 4 * MIB);
    for round in 0..60 {
        assert!(peer.send(puts.frame(round)));
        let reply = peer.reply();
        assert_eq!(reply.code, 29, "round {round}: {reply:?}");
        assert_eq!(
            reply.remark.as_deref(),
            Some("the value is 4194304 bytes, more than --max-kv-value-bytes (1048576); nothing changed"),
        );
    }
    let get = peer.call(&request(RequestCode::GetKvConfig, 61, &[("namespace", "Hostile"), ("key", "k")]));
    assert_eq!(get.code, 22, "nothing stored: {get:?}");
    assert!(!server.kv.exists(), "nothing written");
    witness.finish();
}

#[test]
fn h23_kv_puts_of_4_mib_within_a_raised_budget_cost_one_value_in_memory_and_an_excerpt_in_the_log() {
    let server = Server::start(&[], &["--max-kv-value-bytes", "4MiB"]);
    let witness = Witness::start(&server);
    let mut peer = server.peer();
    let mut puts = Puts::new("k", 4 * MIB);
    // The first put settles what a 4 MiB entry costs to hold and write.
    assert!(peer.send(puts.frame(0)));
    assert_eq!(peer.reply().code, 0);
    let (before, log_before) = (server.usage(), server.daemon.log().len());
    for round in 1..60 {
        assert!(peer.send(puts.frame(round)));
        let reply = peer.reply();
        assert_eq!(reply.code, 0, "round {round}: {reply:?}");
    }
    let after = server.usage();
    let logged = server.daemon.log().len() - log_before;
    eprintln!(
        "FIGURES 59 puts of 4 MiB to one key: RSS {:.0} -> {:.0} MiB (peak {:.0}), log +{logged} B",
        before.rss_mib(),
        after.rss_mib(),
        after.peak_kib as f64 / 1024.0
    );
    assert!(after.rss_kib <= before.rss_kib + 64 * KIB_PER_MIB, "RSS {before:?} -> {after:?}");
    assert!(logged <= MIB, "the log grew by {logged} bytes");
    // Event lines are written by a thread of their own.
    let line = support::eventually_blocking("a putKVConfig line", || {
        server.daemon.log().lines().rev().find(|l| l.contains("putKVConfig")).map(String::from)
    });
    assert!(line.len() < 2048 && line.contains("…(+"), "{line}");
    witness.finish();
}

#[test]
fn h23_a_kv_table_over_the_budget_on_disk_still_loads_with_a_warning() {
    let home = tempfile::tempdir().unwrap();
    let kv = home.path().join("kvConfig.json");
    std::fs::write(&kv, format!(r#"{{"configTable":{{"Hostile":{{"big":"{}"}}}}}}"#, "x".repeat(2 * MIB))).unwrap();
    let properties = home.path().join("namesrv.properties");
    std::fs::write(&properties, format!("kvConfigPath={}\n", kv.display())).unwrap();
    let daemon = support::Daemon::start(
        home.path(),
        &["-c", properties.to_str().unwrap(), "--no-http", "--max-kv-bytes", "1MiB", "--max-kv-value-bytes", "4MiB"],
    );
    let log = daemon.log();
    let warning =
        log.lines().find(|l| l.contains("more than --max-kv-bytes (1048576)")).unwrap_or_else(|| panic!("{log}"));
    assert!(warning.contains("WARN") && warning.contains("2097226 bytes"), "{warning}");
    let mut peer = Peer::connect(daemon.addr);
    let get = peer.call(&request(RequestCode::GetKvConfig, 1, &[("namespace", "Hostile"), ("key", "big")]));
    assert_eq!((get.code, get.ext_fields.unwrap()["value"].len()), (0, 2 * MIB));
    assert_eq!(peer.call(&put_kv("more", "1", 2)).code, 29, "it may not grow");
    assert_eq!(peer.call(&put_kv("big", "small", 3)).code, 0, "it may shrink");
    assert_eq!(peer.call(&put_kv("more", "1", 4)).code, 0, "and then grow within the budget");
}

#[test]
fn h24_a_peer_that_reads_none_of_its_large_replies_is_closed_before_they_take_the_memory() {
    // The owner answers at most the 64 requests of the connection's lane beyond what the
    // connection task has taken (and closes it past 4 MiB of replies waiting); the rest wait
    // unread in the socket until the idle close (2 s here) ends it.
    let (server, witness) = start(&[("enableAllTopicList", "true"), ("serverChannelMaxIdleTimeSeconds", "2")]);
    let mut broker = server.peer();
    assert_eq!(broker.call(&support::big_broker_register(1, sizes::many_topics_body(5000))).code, 0);
    let all_topics = codec::encode_to_vec(&request(RequestCode::GetAllTopicListFromNameserver, 2, &[])).unwrap();
    let one = broker.call(&request(RequestCode::GetAllTopicListFromNameserver, 2, &[]));
    assert_eq!(one.code, 0);
    // Not idle: its topics (and the replies' size) stay.
    let broker = KeptAlive::start(broker);
    let baseline = server.usage();
    let mut hostile = server.peer();
    // Answered once, so that the daemon holds the connection before the loop below looks.
    assert_eq!(hostile.call(&request(RequestCode::GetAllTopicListFromNameserver, 2, &[])).code, 0);
    let requests: Vec<u8> = (0..1000).flat_map(|_| all_topics.iter().copied()).collect();
    assert!(hostile.send(&requests));
    // Closed, or the memory its replies take shows first.
    let deadline = Instant::now() + PATIENCE;
    let mut usage = server.usage();
    while usage.fds > baseline.fds {
        assert!(
            usage.rss_kib <= baseline.rss_kib + 16 * KIB_PER_MIB,
            "replies of {} bytes each pile up: RSS {:.0} -> {:.0} MiB",
            one.body.len(),
            baseline.rss_mib(),
            usage.rss_mib()
        );
        assert!(Instant::now() < deadline, "the peer stays connected: {usage:?}");
        std::thread::sleep(Duration::from_millis(10));
        usage = server.usage();
    }
    let read = hostile.frames_until_close().expect("closed");
    eprintln!(
        "FIGURES 1000 unread GET_ALL_TOPIC_LIST of {} B: closed after {read} replies were written, RSS {:.0} -> {:.0} MiB",
        one.body.len(),
        baseline.rss_mib(),
        usage.rss_mib()
    );
    assert!(read < 1000, "{read}");
    broker.finish();
    witness.finish();
}

#[test]
fn h25_a_failed_kv_write_answers_system_error_and_keeps_the_change_in_memory() {
    let server = Server::start(&[], &[]);
    // Its directory becomes a regular file: no write can succeed, whatever the user.
    std::fs::write(server.kv.parent().unwrap(), "a file, not a directory").unwrap();
    let daemon = &server.daemon;
    let mut peer = Peer::connect(daemon.addr);
    let reply = peer.call(&put_kv("k", "v", 1));
    assert_eq!(reply.code, 1, "{reply:?}");
    let remark = reply.remark.unwrap_or_default();
    assert!(remark.starts_with("the change holds in memory only: the kvConfig file could not be written"), "{remark}");
    let get = peer.call(&request(RequestCode::GetKvConfig, 2, &[("namespace", "Hostile"), ("key", "k")]));
    assert_eq!(get.code, 0, "in effect in memory: {get:?}");
}

/// The bytes the daemon has written (`wchar` in `/proc/<pid>/io`: files, sockets and its log).
fn written_bytes(server: &Server) -> u64 {
    nameserver_testkit::proc::written_bytes(server.pid()).unwrap()
}

#[test]
fn h26_forty_kv_puts_of_1_mib_write_about_their_own_size() {
    let server = Server::start(&[], &["--max-kv-bytes", "64MiB"]);
    let mut peer = server.peer();
    let before = written_bytes(&server);
    for round in 0..40 {
        assert!(peer.send(Puts::new(&format!("k{round:02}"), MIB).frame(round)));
        let reply = peer.reply();
        assert_eq!(reply.code, 0, "round {round}: {reply:?}");
    }
    let written = written_bytes(&server) - before;
    eprintln!("FIGURES 40 KV puts of 1 MiB: {:.0} MiB written", written as f64 / MIB as f64);
    assert!(written <= 120 * MIB as u64, "{written} bytes written for a 40 MiB table");
}
