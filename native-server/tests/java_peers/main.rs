//! Java peers: a real Apache RocketMQ broker (5.5.0, 4.9.7, from Maven Central) registered with
//! a Java NameServer of its version and with ours at once (`namesrvAddr=java;ours`), so every
//! answer is compared side by side: routes, cluster info and topic lists on the wire, mqadmin of
//! the same version against each (output through one normaliser, `mqadmin::normalise`), Java's
//! own producer and push consumer exchanging messages through routes from ours alone
//! (`exchange.rs`), two brokers of 2,000 topics each, one registering them in pieces
//! (`big.rs`, 5.5.0), and the broker's removal after kill -9, SIGSTOP and SIGTERM
//! (`removal.rs`). Every remaining difference must be a row of the table of deliberate
//! differences in docs/PROTOCOL.md §18.
//!
//! One cluster per version, started once (a JVM takes 10-20 s to start on a busy machine); the
//! versions run at once. Needs Java 17 and Maven; `scripts/test.sh` runs it in its own step
//! (`--ignored`). `NAMESERVER_SKIP_JAVA=1` skips it; `JAVA_PEERS_VERSIONS` (e.g. `5.5.0`) picks
//! versions; `JAVA_PEERS_SHOW=1` prints every normalised output; `JAVA_PEERS_SKIP_MQADMIN=1`
//! skips the mqadmin run (a quicker run of the rest while working on it); `JAVA_PEERS_SCALE=e2e`
//! runs the larger counts of `scripts/interop/java-e2e.sh` ([`Scale`]).

mod big;
// mqadmin's controller commands against Java's controller and ours (issue 36), on JVMs of its own.
#[allow(dead_code, reason = "the oracle's comparator: this test uses its views and its table only")]
#[path = "../java_oracle/compare.rs"]
mod compare;
mod controller_admin;
mod exchange;
mod mqadmin;
mod removal;
// Tests of their own in this file so that they run beside the peers run, on JVMs of their
// own: authentication end to end (issue 33), GO_AWAY and TLS with Java clients.
mod auth;
mod goaway;
mod tls;

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use compare::{Difference, Outcome, Row};
use nameserver_core::protocol::{RemotingCommand, RequestCode};
use nameserver_testkit::daemon::{Config, Daemon, nameserver_command};
use nameserver_testkit::java::{self, Version};
use nameserver_testkit::wire::{self, Client};
use nameserver_testkit::{ExternalPeer, frames, mqadmin_batch};
use removal::Removal;

/// How long one reply, or one awaited state, may take: a hang guard only.
const HANG_GUARD: Duration = Duration::from_secs(120);

/// The run's counts: the test command's, or with `JAVA_PEERS_SCALE=e2e` the larger ones of
/// `scripts/interop/java-e2e.sh`, which runs this same test (one command list, one normaliser,
/// one comparator).
#[derive(Clone, Copy, Debug)]
struct Scale {
    /// Topics of each many-topics broker.
    topics: usize,
    /// Messages each producer sends.
    messages: usize,
    /// The many-topics brokers (and their kill -9) on every version, not on 5.5.0 alone.
    many_topics_everywhere: bool,
    /// How long a client's exchange may take: a hang guard only.
    exchange_guard: Duration,
}

static SCALE: LazyLock<Scale> = LazyLock::new(|| match std::env::var("JAVA_PEERS_SCALE").as_deref() {
    Err(_) | Ok("" | "test") => {
        Scale { topics: 2000, messages: 200, many_topics_everywhere: false, exchange_guard: java::START_GUARD }
    }
    Ok("e2e") => Scale {
        topics: 10_000,
        messages: 10_000,
        many_topics_everywhere: true,
        exchange_guard: Duration::from_secs(1200),
    },
    Ok(other) => panic!("JAVA_PEERS_SCALE is `test` or `e2e`, not `{other}`"),
});

/// Our daemon, the built binary, with a properties file of its own.
fn start_ours(home: &std::path::Path) -> Daemon {
    let config = Config::write(home, &[("serverChannelMaxIdleTimeSeconds", removal::IDLE_SECONDS)]);
    Daemon::spawn_configured(
        nameserver_command(std::path::Path::new(env!("CARGO_BIN_EXE_nameserver")), home),
        "127.0.0.1",
        &config,
        &[],
    )
}

/// One request to `addr` on a fresh connection; the reply frame.
fn ask(addr: SocketAddr, cmd: &RemotingCommand) -> Vec<u8> {
    let mut client = Client::connect(addr, HANG_GUARD).unwrap_or_else(|e| panic!("connect to {addr}: {e}"));
    client.call(cmd).unwrap_or_else(|e| panic!("{addr}: {e}")).unwrap_or_else(|| panic!("{addr} closed"))
}

fn body_json(frame: &[u8]) -> serde_json::Value {
    let body = wire::decode(frame).expect("decodes").body;
    let text = nameserver_core::json::reader::normalize(&body).unwrap_or_default();
    serde_json::from_slice(&text).unwrap_or_default()
}

/// The broker addresses GET_BROKER_CLUSTER_INFO lists.
fn listed(addr: SocketAddr) -> BTreeSet<String> {
    let json = body_json(&ask(addr, &frames::cluster_info()));
    let mut out = BTreeSet::new();
    if let Some(table) = json["brokerAddrTable"].as_object() {
        for broker in table.values() {
            if let Some(addrs) = broker["brokerAddrs"].as_object() {
                out.extend(addrs.values().filter_map(|a| a.as_str().map(String::from)));
            }
        }
    }
    out
}

/// The topics GET_ALL_TOPIC_LIST_FROM_NAMESERVER lists.
fn topics(addr: SocketAddr) -> BTreeSet<String> {
    let json = body_json(&ask(addr, &frames::request(RequestCode::GetAllTopicListFromNameserver, &[])));
    json["topicList"]
        .as_array()
        .map_or_else(BTreeSet::new, |l| l.iter().filter_map(|t| t.as_str().map(String::from)).collect())
}

/// Polls `check` until it holds, failing after the hang guard with `what`.
fn await_state(what: &str, check: impl FnMut() -> bool) {
    await_state_within(what, HANG_GUARD, check);
}

/// [`await_state`] with a hang guard of `guard`.
fn await_state_within(what: &str, guard: Duration, mut check: impl FnMut() -> bool) {
    let start = Instant::now();
    while !check() {
        assert!(start.elapsed() < guard, "{what}: not so after {guard:?} (hang guard)");
        // Polling the servers' own answers: a registration has no notification to wait on.
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// One cluster: the Java NameServer, ours, and a broker registered with both. Both NameServers
/// close a connection idle for [`removal::IDLE_SECONDS`]; the broker registers well within it,
/// and starts with the topic of the message exchange.
struct Cluster {
    version: Version,
    java: ExternalPeer,
    ours: Daemon,
    broker: ExternalPeer,
    broker_addr: String,
    _home: tempfile::TempDir,
}

impl Cluster {
    fn start(version: Version) -> Self {
        let home = tempfile::Builder::new().prefix("nameserver-peers-").tempdir().unwrap();
        let ours = start_ours(home.path());
        let idle = [("serverChannelMaxIdleTimeSeconds", removal::IDLE_SECONDS)];
        let java = java::start_namesrv(version, &idle).unwrap_or_else(|e| panic!("{e}"));
        let java_addr = java.addr.expect("listening");
        let broker = java::start_broker_with_topics(
            version,
            &[java_addr, ours.addr],
            &[
                ("registerNameServerPeriod", removal::REGISTER_PERIOD_MS),
                // A loaded machine keeps a send queued longer than the broker's 200 ms and 1 s
                // defaults, after which it refuses the message as busy.
                ("waitTimeMillsInSendQueue", "30000"),
                ("osPageCacheBusyTimeOutMills", "30000"),
                // Its first transaction check, a minute after start, creates
                // RMQ_SYS_TRANS_HALF_TOPIC (4.9.7): a topic landing between the two
                // NameServers' runs of an mqadmin command (addWritePerm counted 11 and 10).
                ("transactionCheckInterval", "3600000"),
            ],
            &[exchange::TOPIC.to_string()],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let broker_addr = broker.addr.expect("listening").to_string();
        let cluster = Self { version, java, ours, broker, broker_addr, _home: home };
        let (j, o) = (cluster.java_addr(), cluster.ours.addr);
        let addr = cluster.broker_addr.clone();
        await_state(&format!("{}: the broker listed by both NameServers", version.as_str()), || {
            listed(j).contains(&addr) && listed(o).contains(&addr)
        });
        cluster
    }

    fn java_addr(&self) -> SocketAddr {
        self.java.addr.expect("listening")
    }

    /// The same request to both NameServers, compared through the oracle's views.
    fn compare_request(&self, case: &str, cmd: &RemotingCommand) -> Vec<Difference> {
        let mut cmd = cmd.clone();
        cmd.opaque = 7;
        let j = compare::view(&Outcome::Reply(ask(self.java_addr(), &cmd)), cmd.opaque);
        let o = compare::view(&Outcome::Reply(ask(self.ours.addr, &cmd)), cmd.opaque);
        compare::differences(self.version.as_str(), cmd.code, &format!("peers/wire:{case}"), &j, &o)
    }

    /// Cluster info and the topic list, on both.
    fn compare_lists(&self, stage: &str) -> Vec<Difference> {
        let mut out = self.compare_request(&format!("{stage}-cluster-info"), &frames::cluster_info());
        let list = frames::request(RequestCode::GetAllTopicListFromNameserver, &[]);
        out.extend(self.compare_request(&format!("{stage}-topic-list"), &list));
        out
    }

    /// Cluster info, the topic list and the route of every topic, on both.
    fn compare_tables(&self, stage: &str) -> Vec<Difference> {
        let mut out = self.compare_lists(stage);
        let all = topics(self.java_addr());
        assert!(!all.is_empty(), "{}: the Java NameServer lists no topic", self.version.as_str());
        for topic in topics(self.java_addr()).union(&topics(self.ours.addr)) {
            out.extend(self.compare_request(&format!("{stage}-route"), &frames::route_query(topic)));
        }
        out
    }

    /// The commands of a phase against `addr`, one JVM for all of them: each one's normalised
    /// output, or why it did not run (no exit 0, or no `expect` in its output). The test kit
    /// runs a command again alone when it printed a transient timeout.
    fn mqadmin_phase(&self, addr: SocketAddr, phase: &[mqadmin::Command]) -> Vec<Result<Vec<String>, String>> {
        let args: Vec<Vec<&str>> = phase.iter().map(|c| c.args.iter().map(String::as_str).collect()).collect();
        let args: Vec<&[&str]> = args.iter().map(Vec::as_slice).collect();
        let runs = mqadmin_batch::run(self.version, addr, &args).unwrap_or_else(|e| panic!("{e}"));
        let namesrvs = [self.java_addr().to_string(), self.ours.addr.to_string()];
        let checked = |(command, (code, out)): (&mqadmin::Command, (Option<i32>, String))| {
            if code != Some(0) || !out.contains(&command.expect) {
                return Err(format!("exited {code:?} without `{}` in its output:\n{out}", command.expect));
            }
            let lines = mqadmin::normalise(&out, &namesrvs);
            if std::env::var_os("JAVA_PEERS_SHOW").is_some() {
                eprintln!("== {} {} against {addr}\n{}", self.version.as_str(), command.case, lines.join("\n"));
            }
            Ok(lines)
        };
        phase.iter().zip(runs).map(checked).collect()
    }

    /// Runs a phase against both (at once, unless a command of it changes the broker: then
    /// against Java first); the differing lines as differences.
    fn compare_phase(&self, phase: &[mqadmin::Command]) -> Vec<Difference> {
        let (java, ours) = if phase.iter().any(|c| c.changes_broker) {
            (self.mqadmin_phase(self.java_addr(), phase), self.mqadmin_phase(self.ours.addr, phase))
        } else {
            std::thread::scope(|s| {
                let j = s.spawn(|| self.mqadmin_phase(self.java_addr(), phase));
                let o = self.mqadmin_phase(self.ours.addr, phase);
                (j.join().unwrap(), o)
            })
        };
        phase.iter().zip(java.into_iter().zip(ours)).flat_map(|(c, (j, o))| self.compare_mqadmin(c, j, o)).collect()
    }

    /// One command's outputs. Against Java it must have run (else the comparison proves
    /// nothing); against ours, not running is a difference.
    fn compare_mqadmin(
        &self,
        command: &mqadmin::Command,
        j: Result<Vec<String>, String>,
        o: Result<Vec<String>, String>,
    ) -> Vec<Difference> {
        let j = j.unwrap_or_else(|e| {
            panic!("{}: mqadmin {} against Java {e}", self.version.as_str(), command.args.join(" "))
        });
        let difference = |field: &str, java: String, ours: String| Difference {
            version: self.version.as_str().to_string(),
            code: command.code,
            case: format!("peers/mqadmin:{}", command.case),
            field: field.to_string(),
            java,
            ours,
        };
        let o = match o {
            Ok(o) => o,
            Err(e) => {
                let java = format!("ran: `{}` printed", command.expect);
                return vec![difference("ran", java, e.lines().take(6).collect::<Vec<_>>().join("\n"))];
            }
        };
        let (js, os): (BTreeSet<&String>, BTreeSet<&String>) = (j.iter().collect(), o.iter().collect());
        let only = |a: &BTreeSet<&String>, b: &BTreeSet<&String>| {
            a.difference(b).map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
        };
        let (java_only, ours_only) = (only(&js, &os), only(&os, &js));
        if java_only.is_empty() && ours_only.is_empty() {
            return Vec::new();
        }
        vec![difference("output", java_only, ours_only)]
    }

    /// Every mqadmin phase; after the topic is created, waits until both route it.
    fn run_mqadmin(&self) -> Vec<Difference> {
        let mut out = Vec::new();
        for phase in mqadmin::phases() {
            out.extend(self.compare_phase(&phase));
            if phase.iter().any(|c| c.case == "updateTopic") {
                let (j, o) = (self.java_addr(), self.ours.addr);
                await_state(&format!("{}: {} routed by both", self.version.as_str(), mqadmin::TOPIC), || {
                    topics(j).contains(mqadmin::TOPIC) && topics(o).contains(mqadmin::TOPIC)
                });
                out.extend(self.compare_tables("created"));
            }
        }
        out
    }

    /// SIGSTOP to the broker until both NameServers' idle close drops it, then SIGCONT until
    /// both list it again.
    fn stop_broker(&self) -> Removal {
        let pid = self.broker.pid().expect("the broker runs");
        removal::stop_and_continue(self.version.as_str(), pid, &self.broker_addr, self.java_addr(), self.ours.addr)
    }

    /// SIGTERM to the broker; how long each NameServer listed it after.
    fn remove_broker(&mut self) -> Removal {
        let pid = self.broker.pid().expect("the broker runs");
        let (j, o) = (self.java_addr(), self.ours.addr);
        let removal = removal::signal_until_gone(self.version.as_str(), pid, "TERM", &self.broker_addr, j, o);
        self.broker.stop();
        removal
    }
}

/// What one version's run found.
struct Found {
    version: Version,
    differences: Vec<Difference>,
    commands: usize,
    /// The exchanges, or why one failed (the run goes on, so that the comparisons after it
    /// still report what they find).
    exchanged: Result<Vec<exchange::Exchanged>, String>,
    /// The many-topics brokers (5.5.0).
    big: Option<big::Found>,
    stopped: Removal,
    removal: Removal,
}

fn run(version: Version) -> Found {
    let started = Instant::now();
    let mut cluster = Cluster::start(version);
    let elapsed = || started.elapsed().as_secs_f64();
    println!("{}: cluster up after {:.1} s", version.as_str(), elapsed());
    let mut differences = cluster.compare_tables("registered");
    let mut commands = 0;
    if std::env::var_os("JAVA_PEERS_SKIP_MQADMIN").is_none() {
        differences.extend(cluster.run_mqadmin());
        commands = mqadmin::phases().iter().map(Vec::len).sum();
        println!("{}: mqadmin done after {:.1} s", version.as_str(), elapsed());
    }
    // The many-topics brokers boot while the clients exchange (their topics are elsewhere).
    let (exchanged, brokers) = std::thread::scope(|s| {
        let many = version == Version::V5_5_0 || SCALE.many_topics_everywhere;
        let brokers = many.then(|| s.spawn(|| big::start(&cluster)));
        let exchanged =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| exchange::run(version, cluster.ours.addr)))
                .map_err(|p| {
                    p.downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default()
                });
        println!("{}: messages exchanged after {:.1} s", version.as_str(), elapsed());
        (exchanged, brokers.map(|b| b.join().unwrap()))
    });
    let big = brokers.map(|b| big::check(&cluster, b));
    if let Some(found) = &big {
        differences.extend(found.differences.iter().cloned());
        println!("{}: many topics done after {:.1} s", version.as_str(), elapsed());
    }
    let stopped = cluster.stop_broker();
    let removal = cluster.remove_broker();
    println!("{}: removals done after {:.1} s", version.as_str(), elapsed());
    Found { version, differences, commands, exchanged, big, stopped, removal }
}

/// How many mqadmin commands printed the same against both, and the table's rows that cover
/// the others.
fn mqadmin_verdict(found: &Found, rows: &[Row]) -> String {
    let differing: BTreeSet<&str> =
        found.differences.iter().filter_map(|d| d.case.strip_prefix("peers/mqadmin:")).collect();
    let covering: BTreeSet<&str> = found
        .differences
        .iter()
        .filter(|d| d.case.starts_with("peers/mqadmin:"))
        .filter_map(|d| rows.iter().find(|r| r.covers(d)).map(|r| r.id.as_str()))
        .collect();
    let same = found.commands - differing.len();
    if differing.is_empty() {
        return format!("{same} of {} commands print the same against both", found.commands);
    }
    format!(
        "{same} of {} commands print the same against both; {} differ ({}), covered by rows {}",
        found.commands,
        differing.len(),
        differing.into_iter().collect::<Vec<_>>().join(", "),
        if covering.is_empty() { String::from("none") } else { covering.into_iter().collect::<Vec<_>>().join(", ") },
    )
}

fn versions() -> Vec<Version> {
    std::env::var("JAVA_PEERS_VERSIONS").map_or_else(
        |_| vec![Version::V5_5_0, Version::V4_9_7],
        |list| {
            list.split(',').map(|v| Version::parse(v.trim()).unwrap_or_else(|| panic!("unknown version {v}"))).collect()
        },
    )
}

#[test]
#[ignore = "needs Java 17 and Maven Central: scripts/test.sh runs it in its own step"]
fn java_peers() {
    if java::skip_requested("the Java peers (a Java broker registered with Java's NameServer and ours)") {
        return;
    }
    println!("{}", java::java_version().unwrap_or_else(|e| panic!("{e}")));
    for (rule, what) in mqadmin::RULES {
        println!("mqadmin normaliser, {rule}: {what}");
    }
    let rows: Vec<Row> = compare::parse_table(include_str!("../../../docs/PROTOCOL.md"))
        .unwrap_or_else(|e| panic!("docs/PROTOCOL.md: {e}"));
    let found: Vec<Found> = std::thread::scope(|s| {
        let handles: Vec<_> = versions().into_iter().map(|v| s.spawn(move || run(v))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let (mut uncovered, mut failed) = (Vec::new(), Vec::new());
    for f in &found {
        let v = f.version.as_str();
        println!(
            "{v}: {} mqadmin commands compared, {} differences ({} covered by the table)",
            f.commands,
            f.differences.len(),
            f.differences.iter().filter(|d| rows.iter().any(|r| r.covers(d))).count(),
        );
        if f.commands > 0 {
            println!("{v}: mqadmin: {}", mqadmin_verdict(f, &rows));
        }
        if let Err(why) = &f.exchanged {
            println!("{v}: the message exchange FAILED: {}", why.lines().next().unwrap_or_default());
            failed.push(format!("{v}: the message exchange: {why}"));
        }
        for e in f.exchanged.iter().flatten() {
            println!(
                "{v}: a {} producer and push consumer on the {} broker, routes from ours: {} of {} messages sent SEND_OK, {} received ({:.1} s)",
                e.client.as_str(),
                e.broker.as_str(),
                e.sent,
                e.count,
                e.received,
                e.took.as_secs_f64(),
            );
        }
        if let Some(big) = &f.big {
            println!("{v}: {} topics, the same count and routes on both NameServers", big.listed);
            println!("{v}: after kill -9 the broker left ours at {}", big.killed.describe());
        }
        println!(
            "{v}: after SIGSTOP the broker left ours at {} (idle close: {} s on both)",
            f.stopped.describe(),
            removal::IDLE_SECONDS
        );
        println!("{v}: after SIGTERM the broker left ours at {}", f.removal.describe());
        for d in &f.differences {
            if let Some(row) = rows.iter().find(|r| r.covers(d)) {
                println!("  covered by {}: {} | {} | {}", row.id, d.version, d.case, d.field);
            } else {
                uncovered.push(d.clone());
            }
        }
        // The ratios are figures, not bounds: load makes either one late (both must drop the
        // broker, within the hang guard, for the run to get here).
    }
    // In full the first of each case and field (thousands of routes may differ alike), then counts.
    let mut seen = std::collections::BTreeMap::new();
    for d in &uncovered {
        let n = seen.entry((d.version.as_str(), d.case.as_str(), d.field.as_str())).or_insert(0);
        *n += 1;
        if *n > 1 {
            continue;
        }
        println!(
            "UNCOVERED {} | {} | {} | {}\n  Java only:\n    {}\n  ours only:\n    {}",
            d.version,
            d.code,
            d.case,
            d.field,
            d.java.replace('\n', "\n    "),
            d.ours.replace('\n', "\n    ")
        );
    }
    for ((version, case, field), n) in seen.into_iter().filter(|(_, n)| *n > 1) {
        println!("UNCOVERED {version} | {case} | {field}: {n} differences alike");
    }
    assert!(
        uncovered.is_empty() && failed.is_empty(),
        "{} differences outside docs/PROTOCOL.md §18; failed: {failed:?}",
        uncovered.len()
    );
}
