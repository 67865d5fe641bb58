//! GO_AWAY with real Java clients (issue 29's acceptance): a Java 5.5.0 broker registered with
//! two of our NameServers, both with `enableShutdownGracefully=true`; a Java 5.5.0 producer
//! (`GoAwayProducer.java`, NameServers `a;b`) and a 4.9.7 one (only the NameServer the 5.5.0
//! producer chose) keep sending through it while that NameServer is stopped gracefully and
//! restarted on its port. Checked: no send fails in either; the 5.5.0 client logs that it
//! received GO_AWAY and then chooses the other NameServer; the daemon logs its GO_AWAY; the
//! 4.9.7 client's route queries during the window are answered as a Java 5.5.0 NameServer
//! answers them: with the route until the broker's next registration (every 10 s here), which
//! is told GO_AWAY twice, after which the broker closes that connection and is removed, and
//! TOPIC_NOT_EXIST from then on (PROTOCOL.md §4; the 4.9.7 client sends on with the route it
//! holds).
//!
//! One Java broker and two producer JVMs of its own, started once; it runs beside the peers run
//! (`scripts/test.sh java-peers`, `--ignored`); `NAMESERVER_SKIP_JAVA=1` skips it.

use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use nameserver_testkit::daemon::{Config, Daemon, nameserver_command};
use nameserver_testkit::java::{self, Version};
use nameserver_testkit::wire::{self, Client};
use nameserver_testkit::{ExternalPeer, frames};

/// How long one awaited state may take (JVMs on a busy 2-core machine): a hang guard only.
const HANG_GUARD: Duration = Duration::from_secs(180);
const TOPIC: &str = "GoAwayTopic";
/// Long enough never to end by itself: the test ends it with a second SIGTERM.
const SETTINGS: [(&str, &str); 2] = [("enableShutdownGracefully", "true"), ("shutdownWaitTimeSeconds", "600")];

fn ours(home: &Path, port: u16) -> Daemon {
    let config = Config::write(home, &SETTINGS);
    let command = nameserver_command(Path::new(env!("CARGO_BIN_EXE_nameserver")), home);
    let path = config.properties.to_str().expect("a UTF-8 path");
    Daemon::spawn_on(command, "127.0.0.1", port, &["-c", path, "--no-http"])
}

/// Polls `check` until it holds, failing after this file's hang guard with `what`.
fn await_state(what: &str, check: impl FnMut() -> bool) {
    super::await_state_within(what, HANG_GUARD, check);
}

/// Whether the NameServer at `addr` lists the broker at `broker`.
fn lists(addr: SocketAddr, broker: &str) -> bool {
    let Ok(mut client) = Client::connect(addr, HANG_GUARD) else { return false };
    let Ok(Some(frame)) = client.call(&frames::cluster_info()) else { return false };
    let body = wire::decode(&frame).map(|c| c.body).unwrap_or_default();
    String::from_utf8_lossy(&body).contains(broker)
}

/// Everything a Java peer wrote: its output and every file under its `logs/`.
fn all_logs(peer: &ExternalPeer) -> String {
    let mut text = peer.log_text();
    if let Ok(entries) = std::fs::read_dir(peer.dir().join("logs")) {
        for entry in entries.flatten() {
            text.push_str(&std::fs::read_to_string(entry.path()).unwrap_or_default());
        }
    }
    text
}

/// The lines of the producer's own output starting with `prefix`.
fn lines(peer: &ExternalPeer, prefix: &str) -> Vec<String> {
    peer.log_text().lines().filter(|l| l.starts_with(prefix)).map(String::from).collect()
}

/// The NameServer a Java client logged choosing last (`new name server is chosen. OLD: …, NEW: x`).
fn chosen(peer: &ExternalPeer) -> Vec<String> {
    all_logs(peer)
        .lines()
        .filter_map(|l| l.split("new name server is chosen").nth(1))
        .filter_map(|rest| rest.split("NEW: ").nth(1))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(|addr| addr.trim_end_matches('.').to_string())
        .collect()
}

fn producer(version: Version, namesrv: &str, group: &str, ask_routes: bool) -> ExternalPeer {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/java_peers/GoAwayProducer.java");
    let args = [namesrv.to_string(), TOPIC.to_string(), group.to_string(), ask_routes.to_string()];
    java::start_program(version, &source, &args, "SENT ").unwrap_or_else(|e| panic!("{e}"))
}

fn sigterm(daemon: &Daemon) {
    assert!(Command::new("kill").args(["-TERM", &daemon.pid().to_string()]).status().unwrap().success());
}

#[test]
#[ignore = "needs Java 17 and Maven Central: scripts/test.sh runs it in its own step"]
fn java_clients_through_a_graceful_restart() {
    if java::skip_requested("GO_AWAY with Java clients") {
        return;
    }
    let started = Instant::now();
    let (home_a, home_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, b) = (ours(home_a.path(), 0), ours(home_b.path(), 0));
    // A loaded machine must not make the broker refuse sends for its own queue's wait
    // (`[TIMEOUT_CLEAN_QUEUE]broker busy` after 200 ms, `[PC_SYNCHRONIZED]` after 1 s), which
    // 4.9.7 does not retry: a failed send here must be the NameServer's doing.
    let extra = [
        ("autoCreateTopicEnable", "true"),
        ("waitTimeMillsInSendQueue", "60000"),
        ("osPageCacheBusyTimeOutMills", "60000"),
        // Its shortest period: a registration falls in the window, and the restarted
        // NameServer hears from it soon.
        ("registerNameServerPeriod", "10000"),
    ];
    let broker = java::start_broker(Version::V5_5_0, &[a.addr, b.addr], &extra).unwrap_or_else(|e| panic!("{e}"));
    let broker_addr = broker.addr.expect("listening").to_string();
    await_state("the broker listed by both NameServers", || lists(a.addr, &broker_addr) && lists(b.addr, &broker_addr));

    let new = producer(Version::V5_5_0, &format!("{};{}", a.addr, b.addr), "goaway-550", false);
    let first = chosen(&new);
    let x_addr = first.first().cloned().unwrap_or_else(|| panic!("no NameServer chosen:\n{}", all_logs(&new)));
    let (mut x, y, x_home) = if x_addr == a.addr.to_string() { (a, b, home_a) } else { (b, a, home_b) };
    assert_eq!(x_addr, x.addr.to_string(), "chose {x_addr}");
    let old = producer(Version::V4_9_7, &x_addr, "goaway-497", true);
    await_state("the 4.9.7 producer gets the route", || lines(&old, "ROUTE ").iter().any(|l| l.contains(" OK ")));
    println!(
        "broker and producers up after {:.1} s; the 5.5.0 producer uses {x_addr}",
        started.elapsed().as_secs_f64()
    );

    sigterm(&x);
    await_state("the GO_AWAY window begins", || x.log().contains("answering GO_AWAY"));
    let routes_before = lines(&old, "ROUTE ").len();
    await_state("the 5.5.0 client receives GO_AWAY", || all_logs(&new).contains("Receive go away"));
    let removed =
        format!("remove from brokerLiveTable OK, BrokerAddrInfo [clusterName=TestCluster, brokerAddr={broker_addr}]");
    await_state("the broker, told to go away, closes its connection and is removed", || x.log().contains(&removed));
    // One query may have been answered before the removal and printed after it.
    let routes_at_removal = lines(&old, "ROUTE ").len() + 1;
    await_state("the 4.9.7 client asks for routes three times after the removal", || {
        lines(&old, "ROUTE ").len() >= routes_at_removal + 3
    });
    let window: Vec<String> = lines(&old, "ROUTE ").into_iter().skip(routes_before).collect();
    let after_removal = &window[routes_at_removal - routes_before..];
    assert!(x.log().contains("GO_AWAY to 127.0.0.1:"), "{}", x.log());
    sigterm(&x);
    let exit = x.child.wait().unwrap();
    assert!(exit.success(), "{exit}\n{}", x.log());
    println!("GO_AWAY window over after {:.1} s", started.elapsed().as_secs_f64());
    // Its retry reconnects to the same address, which answers GO_AWAY again until it closes:
    // only then does the client take the other NameServer.
    await_state("the 5.5.0 client moves to the other NameServer", || {
        chosen(&new).last().is_some_and(|c| *c == y.addr.to_string())
    });
    for line in &window {
        assert!(line.contains(" OK 1") || line.contains("CODE: 17"), "a 4.9.7 route query during the window: {line}");
    }
    for line in after_removal {
        assert!(line.contains("CODE: 17"), "a 4.9.7 route query after the broker's removal: {line}");
    }

    let port = x_addr.parse::<SocketAddr>().unwrap().port();
    let restarted = ours(x_home.path(), port);
    let sent = |p: &ExternalPeer| lines(p, "SENT ").len();
    let (new_sent, old_sent) = (sent(&new), sent(&old));
    await_state("both keep sending after the restart", || sent(&new) >= new_sent + 5 && sent(&old) >= old_sent + 5);
    await_state("the broker registers with the restarted NameServer", || lists(restarted.addr, &broker_addr));

    let (new_failed, old_failed) = (lines(&new, "FAILED "), lines(&old, "FAILED "));
    println!(
        "5.5.0 producer: {} sent, {} failed, NameServers chosen {:?}; 4.9.7 producer: {} sent, {} failed, {} route queries in the window ({} with the route, the rest TOPIC_NOT_EXIST once the broker was removed); total {:.1} s",
        sent(&new),
        new_failed.len(),
        chosen(&new),
        sent(&old),
        old_failed.len(),
        window.len(),
        window.iter().filter(|l| l.contains(" OK 1")).count(),
        started.elapsed().as_secs_f64()
    );
    let broker_side: Vec<String> = all_logs(&broker)
        .lines()
        .filter(|l| l.contains("GO_AWAY") || l.contains("go away") || l.contains("close the channel"))
        .map(String::from)
        .collect();
    println!("the broker's log on GO_AWAY ({} lines, the first 6):", broker_side.len());
    for line in broker_side.iter().take(6) {
        println!("  {line}");
    }
    let seen: Vec<String> = all_logs(&new)
        .lines()
        .filter(|l| l.contains("go away") || l.contains("GO_AWAY") || l.contains("name server is chosen"))
        .map(String::from)
        .collect();
    println!("the 5.5.0 client's log on GO_AWAY ({} lines, the first 12):", seen.len());
    for line in seen.iter().take(12) {
        println!("  {line}");
    }
    let twice = seen.iter().filter(|l| l.contains("Receive GO_AWAY twice")).count();
    let received =
        seen.iter().filter(|l| l.contains("Receive go away from channelId") && !l.contains("recreate")).count();
    println!("GO_AWAY received {received} times, twice in one call {twice} times");
    assert!(new_failed.is_empty(), "5.5.0 sends failed: {new_failed:#?}");
    assert!(old_failed.is_empty(), "4.9.7 sends failed: {old_failed:#?}");
    drop(y);
}
