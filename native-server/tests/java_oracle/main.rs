//! The Java oracle: the same seeded sequences of requests sent to Apache RocketMQ's own
//! NameServer (5.5.0, 5.3.3 and 4.9.7, from Maven Central) and to ours, replies compared field by
//! field; every difference must be a row of the table of deliberate differences in
//! docs/PROTOCOL.md, and every row must still differ.
//!
//! Needs Java 17 and Maven; `scripts/test.sh` runs it in its own step (`--ignored`).
//! `NAMESERVER_SKIP_JAVA=1` skips it, saying so. `JAVA_ORACLE_VERSIONS` (e.g. `5.5.0,4.9.7`) picks
//! versions; `JAVA_ORACLE_RANDOM_STEPS` sets the length of the random sequences.

mod compare;
mod controller;
mod corpus;
mod long_run;
mod orphan;

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use compare::{Difference, Outcome, Row, View};
use corpus::{Action, Sequence, Step};
use nameserver_core::protocol::RemotingCommand;
use nameserver_testkit::java::{self, Version};
use nameserver_testkit::wire::{self, Client};
use nameserver_testkit::{ExternalPeer, PeerError, PeerSpec, Ready};

/// The request codes every compared version answers (the others are probed for silence).
const SERVED_BY_ALL: [i32; 20] =
    [100, 101, 102, 103, 104, 105, 106, 205, 206, 216, 219, 224, 304, 311, 312, 313, 318, 319, 322, 327];

/// How long one reply, or one awaited removal, may take: a hang guard only.
const HANG_GUARD: Duration = Duration::from_secs(30);

/// Our daemon, the built binary, on 127.0.0.1 with a port from the OS and its files in its own
/// directory.
fn start_ours() -> Result<ExternalPeer, PeerError> {
    start_ours_with(&[])
}

/// [`start_ours`] with more `key=value` lines in its `-c` file.
fn start_ours_with(extra: &[(String, String)]) -> Result<ExternalPeer, PeerError> {
    let name = String::from("nameserver");
    let dir = tempfile::Builder::new()
        .prefix("nameserver-oracle-")
        .tempdir()
        .map_err(|error| PeerError::Spawn { name: name.clone(), error })?;
    let props = dir.path().join("namesrv.properties");
    let kv = dir.path().join("kvConfig.json");
    let mut text = format!("kvConfigPath={}\n", kv.display());
    for (key, value) in extra {
        text.push_str(&format!("{key}={value}\n"));
    }
    std::fs::write(&props, text).map_err(|error| PeerError::Spawn { name: name.clone(), error })?;
    let mut command = nameserver_testkit::peer::watched(env!("CARGO_BIN_EXE_nameserver"));
    command
        .env("HOME", dir.path())
        .env("ROCKETMQ_HOME", dir.path())
        .env_remove("RUST_LOG")
        .arg("-c")
        .arg(&props)
        .args(["--bind-address", "127.0.0.1", "--listen-port", "0"]);
    let mut peer = ExternalPeer::start(PeerSpec {
        name,
        command,
        dir,
        ready: Ready::LogLine(String::from("The Name Server boot success")),
        hang_guard: HANG_GUARD,
        grace: Duration::from_secs(10),
    })?;
    let log = peer.log_text();
    let addr = log
        .lines()
        .find_map(|l| l.split("boot success. serializeType=JSON, address ").nth(1))
        .and_then(|a| a.trim().parse::<SocketAddr>().ok())
        .expect("the boot line names the address");
    peer.addr = Some(addr);
    Ok(peer)
}

/// One server under test and its open connections.
struct Side {
    addr: SocketAddr,
    conns: BTreeMap<u32, Client>,
    /// A 4.9.x NameServer drops codes it does not serve; only there a probe tells silence.
    may_be_silent: bool,
}

impl Side {
    fn new(peer: &ExternalPeer, may_be_silent: bool) -> Self {
        Self { addr: peer.addr.expect("a listening peer"), conns: BTreeMap::new(), may_be_silent }
    }

    fn conn(&mut self, id: u32) -> &mut Client {
        let addr = self.addr;
        self.conns
            .entry(id)
            .or_insert_with(|| Client::connect(addr, HANG_GUARD).unwrap_or_else(|e| panic!("connect to {addr}: {e}")))
    }

    /// Sends `cmd` and reads its reply; a connection the server closed is gone (the next use
    /// of its id opens a new one). A code not every version serves may get no reply at all
    /// (4.9.x drops them): there such a request is followed by a probe on the same connection,
    /// which 4.9.x answers from the same executor, and the reply to the probe without one to
    /// the request is [`Outcome::NoReply`]. (5.x runs some codes on other executors, so a
    /// probe could overtake their replies: there every request waits for its reply.)
    fn call(&mut self, id: u32, cmd: &RemotingCommand) -> Outcome {
        let probe = (self.may_be_silent && !SERVED_BY_ALL.contains(&cmd.code)).then(|| {
            let mut probe = RemotingCommand { code: 206, ..RemotingCommand::default() };
            probe.opaque = cmd.opaque.wrapping_add(1_000_000_000);
            probe
        });
        let conn = self.conn(id);
        let mut sent = conn.send(cmd);
        if let (Ok(()), Some(probe)) = (&sent, &probe) {
            sent = conn.send(probe);
        }
        let mut reply = None;
        let mut closed = sent.is_err();
        while !closed {
            match conn.next_frame().expect("a reply or a close within the hang guard") {
                None => closed = true,
                Some(frame) => {
                    let opaque = wire::decode(&frame).map(|c| c.opaque).unwrap_or(cmd.opaque);
                    if opaque == cmd.opaque {
                        reply = Some(frame);
                        if probe.is_none() {
                            break;
                        }
                    } else if probe.as_ref().is_some_and(|p| p.opaque == opaque) {
                        break;
                    }
                }
            }
        }
        if closed {
            self.conns.remove(&id);
        }
        match reply {
            Some(frame) => Outcome::Reply(frame),
            None if closed => Outcome::Closed,
            None => Outcome::NoReply,
        }
    }

    fn raw(&mut self, id: u32, bytes: &[u8]) -> Outcome {
        let conn = self.conn(id);
        let _ = conn.send_raw(bytes);
        let outcome = match conn.next_frame() {
            Ok(frame) => Self::outcome(frame),
            Err(_) => Outcome::Closed,
        };
        self.conns.remove(&id);
        outcome
    }

    fn outcome(frame: Option<Vec<u8>>) -> Outcome {
        frame.map_or(Outcome::Closed, Outcome::Reply)
    }

    fn close(&mut self, id: u32) {
        self.conns.remove(&id);
    }

    /// Whether GET_BROKER_CLUSTER_INFO lists the broker address `addr`.
    fn lists(&mut self, addr: &str) -> bool {
        let cmd = RemotingCommand { code: 106, opaque: 1, ..RemotingCommand::default() };
        let Outcome::Reply(frame) = self.call(u32::MAX, &cmd) else { panic!("cluster info closed") };
        let reply = wire::decode(&frame).expect("decodes");
        let text = nameserver_core::json::reader::normalize(&reply.body).unwrap_or_default();
        let json: serde_json::Value = serde_json::from_slice(&text).unwrap_or_default();
        json["brokerAddrTable"].as_object().is_some_and(|table| {
            table.values().any(|b| b["brokerAddrs"].as_object().is_some_and(|a| a.values().any(|x| x == addr)))
        })
    }

    /// Waits until no broker is listed; returns the listing if the hang guard runs out.
    fn await_empty(&mut self) -> Option<String> {
        let start = Instant::now();
        loop {
            let cmd = RemotingCommand { code: 106, opaque: 1, ..RemotingCommand::default() };
            let Outcome::Reply(frame) = self.call(u32::MAX, &cmd) else { panic!("cluster info closed") };
            let body = wire::decode(&frame).expect("decodes").body;
            let text = nameserver_core::json::reader::normalize(&body).unwrap_or_default();
            let json: serde_json::Value = serde_json::from_slice(&text).unwrap_or_default();
            if json["brokerAddrTable"].as_object().is_none_or(serde_json::Map::is_empty) {
                self.conns.remove(&u32::MAX);
                return None;
            }
            if start.elapsed() > HANG_GUARD {
                return Some(json["brokerAddrTable"].to_string());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn await_gone(&mut self, broker: &str) {
        let start = Instant::now();
        while self.lists(broker) {
            assert!(start.elapsed() < HANG_GUARD, "{broker} still listed after {HANG_GUARD:?} (hang guard)");
            // Polling the server's own answer: removal has no notification to wait on.
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// What one compared request produced.
struct Compared {
    seq: String,
    case: String,
    code: i32,
    java: View,
    ours_frame: Option<Vec<u8>>,
    differences: Vec<Difference>,
}

fn case_label(case: &str) -> String {
    // Coverage counts what was asked, not how often: "register-0-id1" and "register-1-id0" differ.
    case.to_string()
}

/// Sends one step to both servers; a request (not a close or a wait) comes back compared.
fn exec(version: Version, java: &mut Side, ours: &mut Side, seq: &str, step: &Step) -> Option<Compared> {
    let (code, opaque, j, o) = match &step.action {
        Action::Call { conn, cmd } => (cmd.code, cmd.opaque, java.call(*conn, cmd), ours.call(*conn, cmd)),
        Action::Raw { conn, bytes, code } => (*code, 0, java.raw(*conn, bytes), ours.raw(*conn, bytes)),
        Action::Close { conn } => {
            java.close(*conn);
            ours.close(*conn);
            return None;
        }
        Action::AwaitGone { addr } => {
            java.await_gone(addr);
            ours.await_gone(addr);
            return None;
        }
    };
    if std::env::var_os("JAVA_ORACLE_TRACE").is_some() {
        let fields = match &step.action {
            Action::Call { cmd, .. } => format!("opaque {} {:?}", cmd.opaque, cmd.ext_fields),
            _ => String::new(),
        };
        eprintln!("{} {seq}:{} {fields}", version.as_str(), step.case);
    }
    if let Ok(show) = std::env::var("JAVA_ORACLE_SHOW")
        && format!("{seq}:{}", step.case).contains(&show)
    {
        for (side, outcome) in [("Java", &j), ("ours", &o)] {
            let text = match outcome {
                Outcome::Reply(frame) => String::from_utf8_lossy(frame).into_owned(),
                other => format!("{other:?}"),
            };
            eprintln!("{} {seq}:{} {side}: {text:?}", version.as_str(), step.case);
        }
    }
    let (jv, ov) = (compare::view(&j, opaque), compare::view(&o, opaque));
    let case = format!("{seq}:{}", step.case);
    let mut differences = compare::differences(version.as_str(), code, &case, &jv, &ov);
    for d in &mut differences {
        if d.field == "bodyBytes" {
            let snippet = compare::first_byte_difference(&d.java, &d.ours);
            let (jpart, opart) = snippet.split_once("` ours `").unwrap_or((&snippet, ""));
            d.java = jpart.split_once("Java `").map_or(jpart, |(_, j)| j).to_string();
            d.ours = opart.trim_end_matches('`').to_string();
        }
    }
    let ours_frame = match o {
        Outcome::Reply(frame) => Some(frame),
        Outcome::Closed | Outcome::NoReply => None,
    };
    Some(Compared { seq: seq.to_string(), case: step.case.clone(), code, java: jv, ours_frame, differences })
}

/// Runs `sequences` against both servers of `version`, step by step.
fn run(version: Version, java_peer: &ExternalPeer, ours_peer: &ExternalPeer, sequences: &[Sequence]) -> Vec<Compared> {
    let mut out = Vec::new();
    for seq in sequences {
        let mut java = Side::new(java_peer, version.is_4x());
        let mut ours = Side::new(ours_peer, false);
        out.extend(seq.steps.iter().filter_map(|step| exec(version, &mut java, &mut ours, &seq.name, step)));
        // Every broker goes with its connection: the next sequence starts from empty tables.
        java.conns.clear();
        ours.conns.clear();
        // Malformed registrations come last: Java keeps a broker registered without a name.
        let sides =
            if seq.name.starts_with("malformed/") { vec![] } else { vec![(&mut java, "Java"), (&mut ours, "ours")] };
        for (side, name) in sides {
            if let Some(left) = side.await_empty() {
                panic!("{}: after {} the {name} server still lists brokers {left}", version.as_str(), seq.name);
            }
        }
    }
    out
}

fn versions() -> Vec<Version> {
    std::env::var("JAVA_ORACLE_VERSIONS").map_or_else(
        |_| Version::ALL.to_vec(),
        |list| {
            list.split(',').map(|v| Version::parse(v.trim()).unwrap_or_else(|| panic!("unknown version {v}"))).collect()
        },
    )
}

fn random_steps() -> usize {
    std::env::var("JAVA_ORACLE_RANDOM_STEPS").ok().and_then(|s| s.parse().ok()).unwrap_or(400)
}

fn corpus(version: Version) -> Vec<Sequence> {
    let mut sequences = corpus::hand_written(version);
    for seed in [1, 2, 3] {
        sequences.push(corpus::random(version, seed, random_steps()));
    }
    sequences.extend(corpus::malformed_all());
    sequences
}

/// The coverage matrix: request code × version → requests and distinct cases.
fn print_matrix(results: &BTreeMap<Version, Vec<Compared>>) {
    let mut cells: BTreeMap<i32, BTreeMap<Version, (usize, BTreeSet<String>)>> = BTreeMap::new();
    for (version, compared) in results {
        for c in compared {
            let cell = cells.entry(c.code).or_default().entry(*version).or_default();
            cell.0 += 1;
            cell.1.insert(case_label(&c.case));
        }
    }
    let versions: Vec<Version> = results.keys().copied().collect();
    let mut header = String::from("code ");
    for v in &versions {
        header.push_str(&format!("| {:>20} ", format!("{} req/cases/diff", v.as_str())));
    }
    println!("\ncoverage: request code x version (requests / distinct cases / differing requests)\n{header}");
    for (code, row) in &cells {
        let mut line = format!("{code:>4} ");
        for v in &versions {
            let differing = results[v].iter().filter(|c| c.code == *code && !c.differences.is_empty()).count();
            let (n, cases) = row.get(v).map_or((0, 0), |(n, cases)| (*n, cases.len()));
            line.push_str(&format!("| {:>20} ", format!("{n}/{cases}/{differing}")));
        }
        println!("{line}");
    }
}

/// The table's verdict: differences no row covers, and rows that no longer differ.
fn check_table(rows: &[Row], ran: &[Version], all: &[Difference]) -> (Vec<Difference>, Vec<String>) {
    let uncovered: Vec<Difference> = all.iter().filter(|d| !rows.iter().any(|r| r.covers(d))).cloned().collect();
    let stale: Vec<String> = rows
        .iter()
        // Rows of the long run's own cases (`long/*`) are the long run's to see, and those of
        // the Java peers (`peers/*`) the peers test's. `auth/*` rows describe opt-in flags the
        // oracle's daemon (Java's defaults) never turns on; `security::auth` tests them. `tls/*`
        // rows are start-up checks of TLS settings (`tls_ciphers`, the Java peers' `tls.rs`);
        // `controller/*` rows are the controller oracle's (`controller::java_oracle_controller`).
        .filter(|r| {
            !["long/", "peers/", "auth/", "tls/", "controller/"].iter().any(|prefix| r.case.starts_with(prefix))
        })
        .filter(|r| r.versions.iter().any(|v| ran.iter().any(|x| x.as_str() == v)))
        .filter(|r| {
            let relevant: Vec<&Difference> = all.iter().filter(|d| r.versions.contains(&d.version)).collect();
            !relevant.iter().any(|d| r.covers(d))
        })
        .map(|r| r.id.clone())
        .collect();
    (uncovered, stale)
}

/// Alters our reply in a copy (one body byte, one ext field, the remark) and checks that the
/// comparator reports each: every mutant shows a difference the real reply did not have.
fn mutation_check(version: Version, compared: &[Compared]) {
    let sample = compared
        .iter()
        .filter(|c| c.code == 105 || c.code == 101)
        .filter(|c| c.ours_frame.as_ref().is_some_and(|f| wire::decode(f).unwrap().body.len() > 10))
        .min_by_key(|c| c.differences.len())
        .expect("a route reply with a body to mutate");
    let frame = sample.ours_frame.clone().unwrap();
    let cmd = wire::decode(&frame).unwrap();
    let mut mutants: Vec<(&str, Vec<u8>)> = Vec::new();
    // The first letter of the body's first key: never a normalised field.
    let mut byte = frame.clone();
    let at = frame.len() - cmd.body.len() + 2;
    byte[at] = if byte[at] == b'x' { b'y' } else { b'x' };
    mutants.push(("one body byte", byte));
    let mut ext = cmd.clone();
    let key = ext.ext_fields.as_ref().and_then(|e| e.keys().next().cloned()).unwrap_or_else(|| String::from("mutant"));
    ext = ext.with_field(&key, "mutated");
    mutants.push(("one ext field", nameserver_core::codec::encode_to_vec(&ext).unwrap()));
    let mut remark = cmd.clone();
    remark.remark = Some(format!("{}!", remark.remark.unwrap_or_default()));
    mutants.push(("the remark", nameserver_core::codec::encode_to_vec(&remark).unwrap()));
    let baseline: BTreeSet<(String, String)> =
        sample.differences.iter().map(|d| (d.field.clone(), d.ours.clone())).collect();
    for (what, bytes) in mutants {
        let mutated = compare::view(&Outcome::Reply(bytes), cmd.opaque);
        let found = compare::differences(version.as_str(), sample.code, &sample.case, &sample.java, &mutated);
        let new: Vec<&String> =
            found.iter().filter(|d| !baseline.contains(&(d.field.clone(), d.ours.clone()))).map(|d| &d.field).collect();
        assert!(
            !new.is_empty(),
            "{}: the comparator missed a change of {what} in our reply to {}:{}",
            version.as_str(),
            sample.seq,
            sample.case
        );
        println!(
            "mutation check {}: a change of {what} in our reply to {}:{} is reported as {new:?}",
            version.as_str(),
            sample.seq,
            sample.case
        );
    }
}

#[test]
#[ignore = "needs Java 17 and Maven Central: scripts/test.sh runs it in its own step"]
fn java_oracle() {
    if java::skip_requested("the Java oracle (differential test against Apache RocketMQ's NameServer)") {
        return;
    }
    let java_version = java::java_version().unwrap_or_else(|e| panic!("{e}"));
    println!("{java_version}");
    let versions = versions();
    let rows = compare::parse_table(include_str!("../../../docs/PROTOCOL.md"))
        .unwrap_or_else(|e| panic!("docs/PROTOCOL.md: {e}"));
    // Start every JVM (and one of ours per version) at once: a JVM takes 10-20 s to listen.
    let started = Instant::now();
    let peers: Vec<(Version, ExternalPeer, ExternalPeer)> = std::thread::scope(|scope| {
        let handles: Vec<_> = versions
            .iter()
            .map(|v| {
                let v = *v;
                scope.spawn(move || (v, java::start_namesrv(v, &[]), start_ours()))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                let (v, java, ours) = h.join().unwrap();
                (v, java.unwrap_or_else(|e| panic!("{e}")), ours.unwrap_or_else(|e| panic!("{e}")))
            })
            .collect()
    });
    println!("servers listening after {:.1} s", started.elapsed().as_secs_f64());
    let results: BTreeMap<Version, Vec<Compared>> = std::thread::scope(|scope| {
        let handles: Vec<_> =
            peers.iter().map(|(v, java, ours)| scope.spawn(move || (*v, run(*v, java, ours, &corpus(*v))))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    println!("corpus run in {:.1} s", started.elapsed().as_secs_f64());
    print_matrix(&results);
    let all: Vec<Difference> = results.values().flatten().flat_map(|c| c.differences.clone()).collect();
    for v in &versions {
        let n = results[v].len();
        let d = results[v].iter().filter(|c| !c.differences.is_empty()).count();
        println!(
            "{}: {n} requests compared, {d} with differences, {} differing fields",
            v.as_str(),
            results[v].iter().map(|c| c.differences.len()).sum::<usize>()
        );
    }
    let (uncovered, stale) = check_table(&rows, &versions, &all);
    for reason in compare::REASONS {
        let ids: Vec<&str> = rows.iter().filter(|r| r.reason.starts_with(reason)).map(|r| r.id.as_str()).collect();
        println!("table rows for reason {reason}: {}", ids.join(" "));
    }
    for d in &uncovered {
        println!("UNCOVERED {} | {} | {} | {} | `{}` | `{}`", d.version, d.code, d.case, d.field, d.java, d.ours);
    }
    for id in &stale {
        println!("STALE table row {id}: no such difference observed any more");
    }
    if let Ok(path) = std::env::var("JAVA_ORACLE_DUMP") {
        let lines: Vec<String> = all.iter().map(|d| format!("{d:?}")).collect();
        std::fs::write(path, lines.join("\n")).unwrap();
    }
    for (version, compared) in &results {
        mutation_check(*version, compared);
    }
    drop(peers);
    assert!(
        uncovered.is_empty() && stale.is_empty(),
        "{} differences outside the table, {} stale rows",
        uncovered.len(),
        stale.len()
    );
}

#[test]
fn the_table_of_deliberate_differences_parses_with_unique_ids() {
    let rows = compare::parse_table(include_str!("../../../docs/PROTOCOL.md")).unwrap();
    let ids: BTreeSet<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), rows.len(), "duplicate row ids");
    assert!(
        rows.iter().all(|r| r.versions.iter().all(|v| Version::parse(v).is_some())),
        "a row names an unknown version"
    );
}

#[test]
fn a_row_without_a_reason_from_the_closed_list_is_refused() {
    let doc = "<!-- deliberate-differences:begin -->\n| id | code | case | field | Java answers | we answer | versions | reason |\n|---|---|---|---|---|---|---|---|\n| X1 | 105 | `*` | `remark` | `a` | `b` | 5.5.0 | not yet |\n<!-- deliberate-differences:end -->";
    assert!(compare::parse_table(doc).unwrap_err().contains("closed list"));
    let good = doc.replace("not yet", "version: older");
    let row = &compare::parse_table(&good).unwrap()[0];
    let d = |java: &str, version: &str| Difference {
        version: version.to_string(),
        code: 105,
        case: String::from("any:case"),
        field: String::from("remark"),
        java: java.to_string(),
        ours: String::from("b"),
    };
    assert!(row.covers(&d("a", "5.5.0")));
    assert!(!row.covers(&d("a2", "5.5.0")), "values are compared whole");
    assert!(!row.covers(&d("a", "4.9.7")), "only the row's versions");
}

/// The comparator without Java: a reply compared with itself has no difference; one changed
/// body byte, ext field, remark or code each shows.
#[test]
fn the_comparator_bites() {
    let request = RemotingCommand { code: 105, opaque: 9, ..RemotingCommand::default() };
    let reply = RemotingCommand::response_to(&request, nameserver_core::protocol::ResponseCode::Success)
        .with_field("k", "v")
        .with_body(br#"{"brokerDatas":[],"queueDatas":[{"brokerName":"a","perm":6}]}"#.to_vec());
    let encode = |cmd: &RemotingCommand| nameserver_core::codec::encode_to_vec(cmd).unwrap();
    let base = compare::view(&Outcome::Reply(encode(&reply)), 9);
    assert!(compare::differences("5.5.0", 105, "c", &base, &base).is_empty());
    let mut byte = encode(&reply);
    let last = byte.len() - 4;
    byte[last] = b'7';
    let mut remark = reply.clone();
    remark.remark = Some(String::from("x"));
    let mut code = reply.clone();
    code.code = 1;
    for (what, frame, field) in [
        ("body byte", byte, "body.queueDatas.0.perm"),
        ("ext field", encode(&reply.clone().with_field("k", "w")), "ext.k"),
        ("remark", encode(&remark), "remark"),
        ("code", encode(&code), "code"),
    ] {
        let found = compare::differences("5.5.0", 105, "c", &base, &compare::view(&Outcome::Reply(frame), 9));
        assert!(found.iter().any(|d| d.field == field), "{what}: {found:?}");
    }
    let closed = compare::view(&Outcome::Closed, 9);
    assert_eq!(compare::differences("5.5.0", 105, "c", &base, &closed)[0].field, "outcome");
}
