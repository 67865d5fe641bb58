//! The controller's codes (issue 36): the same sequences sent to Java 5.5.0's embedded
//! controller (a Java NameServer with `enableControllerInNamesrv=true`, started once for the
//! file) and to ours, replies compared as the NameServer's are; every difference must be a row
//! of docs/PROTOCOL.md's table whose case starts with `controller/`, and every such row must
//! still differ.
//!
//! Each sequence has broker groups of its own, so the sequences do not see each other's
//! tables. Heartbeats (904) are sent two-way: Java answers them too, and a reply orders the
//! heartbeat before the next request (a oneway one could be overtaken).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use nameserver_core::protocol::RemotingCommand;
use nameserver_testkit::java::{self, Version};
use nameserver_testkit::wait::eventually_blocking;
use nameserver_testkit::wire::{self, Client};

use crate::corpus::{Action, PROFILES, Seq, Sequence};
use crate::{Compared, Side, compare, exec, start_ours_with};

/// The one version that hosts a controller the way ours does.
const VERSION: Version = Version::V5_5_0;
const CLUSTER: &str = "DefaultCluster";
/// The `registerCheckCode` timestamp every replica applies with (the part after `;`).
const STARTED: &str = "1733090000000";

/// One controller-mode broker as the sequences drive it.
struct Replica {
    name: String,
    id: String,
    addr: String,
    conn: u32,
}

impl Replica {
    fn new(name: &str, id: i64, conn: u32) -> Self {
        Self { name: name.to_string(), id: id.to_string(), addr: format!("127.0.0.{id}:30911"), conn }
    }

    fn check_code(&self) -> String {
        format!("{};{STARTED}", self.addr)
    }
}

/// The requests a controller-mode broker sends, on its own connection.
trait BrokerSteps {
    fn on(&mut self, case: &str, conn: u32, code: i32, fields: &[(&str, &str)]);
    fn on_body(&mut self, case: &str, conn: u32, code: i32, fields: &[(&str, &str)], body: &str);
    fn apply_id(&mut self, case: &str, r: &Replica, code: &str);
    fn enrol(&mut self, case: &str, r: &Replica);
    fn beat(&mut self, case: &str, r: &Replica, epoch: &str, offset: &str);
    fn elect(&mut self, case: &str, r: &Replica, designate: bool);
    fn alter(&mut self, case: &str, r: &Replica, master_epoch: &str, body: &str);
    fn replica_info(&mut self, case: &str, name: &str);
}

impl BrokerSteps for Seq {
    fn on(&mut self, case: &str, conn: u32, code: i32, fields: &[(&str, &str)]) {
        let cmd = self.req(code, fields);
        self.push(case, Action::Call { conn, cmd });
    }

    fn on_body(&mut self, case: &str, conn: u32, code: i32, fields: &[(&str, &str)], body: &str) {
        let cmd = self.req(code, fields).with_body(body.as_bytes().to_vec());
        self.push(case, Action::Call { conn, cmd });
    }

    fn apply_id(&mut self, case: &str, r: &Replica, code: &str) {
        let fields = [
            ("clusterName", CLUSTER),
            ("brokerName", r.name.as_str()),
            ("appliedBrokerId", r.id.as_str()),
            ("registerCheckCode", code),
        ];
        self.on(case, r.conn, 1013, &fields);
    }

    fn enrol(&mut self, case: &str, r: &Replica) {
        let fields = [
            ("clusterName", CLUSTER),
            ("brokerName", r.name.as_str()),
            ("brokerId", r.id.as_str()),
            ("brokerAddress", r.addr.as_str()),
        ];
        self.on(case, r.conn, 1003, &fields);
    }

    fn beat(&mut self, case: &str, r: &Replica, epoch: &str, offset: &str) {
        let fields = [
            ("clusterName", CLUSTER),
            ("brokerName", r.name.as_str()),
            ("brokerAddr", r.addr.as_str()),
            ("brokerId", r.id.as_str()),
            ("epoch", epoch),
            ("maxOffset", offset),
            ("confirmOffset", offset),
            ("heartbeatTimeoutMills", "60000"),
            ("electionPriority", "1"),
        ];
        self.on(case, r.conn, 904, &fields);
    }

    fn elect(&mut self, case: &str, r: &Replica, designate: bool) {
        let designate = if designate { "true" } else { "false" };
        let fields = [
            ("clusterName", CLUSTER),
            ("brokerName", r.name.as_str()),
            ("brokerId", r.id.as_str()),
            ("designateElect", designate),
        ];
        self.on(case, r.conn, 1002, &fields);
    }

    fn alter(&mut self, case: &str, r: &Replica, master_epoch: &str, body: &str) {
        let fields =
            [("brokerName", r.name.as_str()), ("masterBrokerId", r.id.as_str()), ("masterEpoch", master_epoch)];
        self.on_body(case, r.conn, 1001, &fields, body);
    }

    fn replica_info(&mut self, case: &str, name: &str) {
        self.on(case, 0, 1004, &[("brokerName", name)]);
    }
}

/// A broker's start (1012, 1013, 1003) and first heartbeat.
fn join(s: &mut Seq, case: &str, r: &Replica) {
    s.on(&format!("{case}-next-id"), r.conn, 1012, &[("clusterName", CLUSTER), ("brokerName", r.name.as_str())]);
    s.apply_id(&format!("{case}-apply"), r, &r.check_code());
    s.enrol(&format!("{case}-register"), r);
    s.beat(&format!("{case}-heartbeat"), r, "0", "100");
}

/// Two replicas join, one is elected, the set grows and is fenced, an admin moves the master,
/// the metadata is read and cleaned.
fn lifecycle() -> Sequence {
    let mut s = Seq::new("controller/lifecycle", PROFILES[0]);
    let (one, two) = (Replica::new("ctl-life", 1, 1), Replica::new("ctl-life", 2, 2));
    let name = one.name.as_str();
    s.replica_info("replica-info-unknown", name);
    s.on("next-id-new-group", 1, 1012, &[("clusterName", CLUSTER), ("brokerName", name)]);
    s.apply_id("apply-1", &one, &one.check_code());
    s.apply_id("apply-1-retry", &one, &one.check_code());
    s.apply_id("apply-1-other-code", &one, &two.check_code());
    s.on("next-id-after-1", 2, 1012, &[("clusterName", CLUSTER), ("brokerName", name)]);
    s.apply_id("apply-2", &two, &two.check_code());
    s.enrol("register-1", &one);
    s.enrol("register-2", &two);
    s.enrol("register-unknown-id", &Replica::new("ctl-life", 9, 2));
    s.beat("heartbeat-1", &one, "0", "100");
    s.beat("heartbeat-2", &two, "0", "90");
    s.replica_info("replica-info-no-master", name);
    s.on_body("sync-state-no-master", 0, 1006, &[], r#"["ctl-life"]"#);
    s.elect("elect-1", &one, false);
    s.elect("elect-1-again", &one, false);
    s.elect("elect-2-while-master-alive", &two, false);
    s.replica_info("replica-info-master-1", name);
    s.enrol("register-2-after-election", &two);
    s.alter("alter-add-2", &one, "1", r#"{"syncStateSet":[1,2],"syncStateSetEpoch":1}"#);
    s.alter("alter-stale-set-epoch", &one, "1", r#"{"syncStateSet":[1],"syncStateSetEpoch":1}"#);
    s.alter("alter-stale-master-epoch", &one, "0", r#"{"syncStateSet":[1],"syncStateSetEpoch":2}"#);
    s.alter("alter-by-slave", &two, "1", r#"{"syncStateSet":[2],"syncStateSetEpoch":2}"#);
    s.alter("alter-same-set-by-slave", &two, "1", r#"{"syncStateSet":[1,2],"syncStateSetEpoch":2}"#);
    s.alter("alter-without-master", &one, "1", r#"{"syncStateSet":[2],"syncStateSetEpoch":2}"#);
    s.alter("alter-unknown-replica", &one, "1", r#"{"syncStateSet":[1,7],"syncStateSetEpoch":2}"#);
    s.on_body("sync-state", 0, 1006, &[], r#"["ctl-life","ctl-nobody"]"#);
    s.on("metadata", 0, 1005, &[]);
    s.beat("heartbeat-1-epoch-1", &one, "1", "200");
    s.beat("heartbeat-2-epoch-1", &two, "1", "200");
    s.elect("elect-designate-2", &two, true);
    s.replica_info("replica-info-master-2", name);
    s.on_body("sync-state-master-2", 0, 1006, &[], r#"["ctl-life"]"#);
    let clean = |ids: &'static str, living: &'static str| {
        vec![
            ("clusterName", CLUSTER),
            ("brokerName", "ctl-life"),
            ("brokerControllerIdsToClean", ids),
            ("isCleanLivingBroker", living),
        ]
    };
    s.on("clean-living-refused", 0, 1011, &clean("1", "false"));
    s.on("clean-living-id-1", 0, 1011, &clean("1", "true"));
    s.replica_info("replica-info-after-clean", name);
    s.on("next-id-after-clean", 0, 1012, &[("clusterName", CLUSTER), ("brokerName", name)]);
    s.on("clean-unknown-group", 0, 1011, &[("clusterName", CLUSTER), ("brokerName", "ctl-nobody")]);
    s.on("clean-group", 0, 1011, &[("clusterName", CLUSTER), ("brokerName", name), ("isCleanLivingBroker", "true")]);
    s.replica_info("replica-info-after-wipe", name);
    s.on("unsupported-1014", 0, 1014, &[]);
    s.finish()
}

/// The quirks of the controller crate's docs (Q1–Q11) that a request sequence can show.
fn quirks() -> Sequence {
    let mut s = Seq::new("controller/quirks", PROFILES[0]);
    // Q1: an id applied out of order.
    let q1 = Replica::new("ctl-q1", 3, 1);
    s.apply_id("q1-apply-3-first", &q1, &q1.check_code());
    s.on("q1-next-id", 1, 1012, &[("clusterName", CLUSTER), ("brokerName", "ctl-q1")]);
    s.apply_id("q1-apply-1", &Replica::new("ctl-q1", 1, 1), &Replica::new("ctl-q1", 1, 1).check_code());
    s.on("q1-next-id-after", 1, 1012, &[("clusterName", CLUSTER), ("brokerName", "ctl-q1")]);
    // Q2: the first election takes the requester, heartbeat or not.
    let q2 = Replica::new("ctl-q2", 1, 2);
    s.on("q2-next-id", 2, 1012, &[("clusterName", CLUSTER), ("brokerName", "ctl-q2")]);
    s.apply_id("q2-apply", &q2, &q2.check_code());
    s.enrol("q2-register", &q2);
    s.elect("q2-elect-without-heartbeat", &q2, false);
    s.replica_info("q2-replica-info", "ctl-q2");
    // Q6: 1003 from another address than the one applied with.
    let moved = Replica { addr: String::from("127.0.9.9:30911"), ..Replica::new("ctl-q2", 1, 2) };
    s.enrol("q6-register-moved", &moved);
    s.replica_info("q6-replica-info", "ctl-q2");
    // Q7: 1011 without a cluster: every id looks dead.
    s.on(
        "q7-clean-no-cluster",
        0,
        1011,
        &[("brokerName", "ctl-q2"), ("brokerControllerIdsToClean", "1"), ("isCleanLivingBroker", "false")],
    );
    s.replica_info("q7-replica-info", "ctl-q2");
    // A group joined by two, elected, heartbeats for the others' checks.
    let (a, b) = (Replica::new("ctl-q", 1, 3), Replica::new("ctl-q", 2, 4));
    join(&mut s, "q-join-1", &a);
    join(&mut s, "q-join-2", &b);
    s.elect("q-elect-1", &a, false);
    // Q4: "same set" is checked before "is master".
    s.alter("q4-same-set-by-slave", &b, "1", r#"{"syncStateSet":[1],"syncStateSetEpoch":1}"#);
    // Admin elections: an unknown group, a designated replica outside the set, a dead id.
    let admin = |id: &'static str| vec![("clusterName", CLUSTER), ("brokerName", "ctl-q"), ("brokerId", id)];
    s.on("admin-elect-designate-2", 0, 1002, &[admin("2"), vec![("designateElect", "true")]].concat());
    s.on("admin-elect-designate-dead-5", 0, 1002, &[admin("5"), vec![("designateElect", "true")]].concat());
    s.on("admin-elect-no-id", 0, 1002, &[("clusterName", CLUSTER), ("brokerName", "ctl-q")]);
    s.on("admin-elect-unknown-group", 0, 1002, &[("clusterName", CLUSTER), ("brokerName", "ctl-nobody")]);
    // Q10: missing or garbled fields are never refused at decoding.
    s.on("q10-next-id-no-name", 0, 1012, &[("clusterName", CLUSTER)]);
    s.on("q10-apply-no-id", 0, 1013, &[("clusterName", CLUSTER), ("brokerName", "ctl-q")]);
    s.on("q10-register-garbled-id", 0, 1003, &[("clusterName", CLUSTER), ("brokerName", "ctl-q"), ("brokerId", "x")]);
    s.on("q10-elect-nothing", 0, 1002, &[]);
    s.on("q10-replica-info-no-name", 0, 1004, &[]);
    s.on("q10-alter-no-body", 3, 1001, &[("brokerName", "ctl-q"), ("masterBrokerId", "1"), ("masterEpoch", "1")]);
    s.on("q10-heartbeat-no-id", 3, 904, &[("clusterName", CLUSTER), ("brokerName", "ctl-q")]);
    // Q11: 1006 without names.
    s.on("q11-sync-state-no-body", 0, 1006, &[]);
    s.on_body("q11-sync-state-empty-list", 0, 1006, &[], "[]");
    s.on_body("sync-state-unknown-group", 0, 1006, &[], r#"["ctl-nobody"]"#);
    // Q2 elects an id never given out; the last id cleaned while the set keeps that master:
    // the next 1013 starts the group afresh, master epoch 0 (the fuzz finding crash-c6e33494).
    let reset = Replica::new("ctl-reset", 1, 5);
    s.on("reset-next-id", 5, 1012, &[("clusterName", CLUSTER), ("brokerName", "ctl-reset")]);
    s.apply_id("reset-apply", &reset, &reset.check_code());
    s.elect("reset-elect-id-3", &Replica::new("ctl-reset", 3, 5), false);
    s.on(
        "reset-clean-last-id",
        0,
        1011,
        &[
            ("clusterName", CLUSTER),
            ("brokerName", "ctl-reset"),
            ("brokerControllerIdsToClean", "1"),
            ("isCleanLivingBroker", "false"),
        ],
    );
    s.replica_info("reset-replica-info-half-cleaned", "ctl-reset");
    s.on("reset-next-id-again", 5, 1012, &[("clusterName", CLUSTER), ("brokerName", "ctl-reset")]);
    s.apply_id("reset-apply-again", &reset, &reset.check_code());
    s.replica_info("reset-replica-info", "ctl-reset");
    s.finish()
}

/// Quirk Q16 (rows C2, C3): a replica reports a later epoch than the group's, as after a move
/// from another controller. Java elects at its own epoch + 1 and never reads the report; ours
/// elects the master again above it, once, and follows no spoofed or later report.
fn epochs() -> Sequence {
    let mut s = Seq::new("controller/epochs", PROFILES[0]);
    let (one, two) = (Replica::new("ctl-epochs", 1, 1), Replica::new("ctl-epochs", 2, 2));
    join(&mut s, "join-1", &one);
    join(&mut s, "join-2", &two);
    s.elect("elect-1", &one, false);
    s.beat("heartbeat-2-epoch-5", &two, "5", "100");
    s.replica_info("replica-info-above-5", "ctl-epochs");
    // Later reports from the slave, and from an address or an id nobody registered.
    s.beat("heartbeat-2-epoch-7", &two, "7", "100");
    let spoofed = Replica { addr: String::from("127.0.9.9:30911"), conn: 3, ..Replica::new("ctl-epochs", 2, 3) };
    s.beat("heartbeat-2-spoofed-address", &spoofed, "20", "100");
    s.beat("heartbeat-9-spoofed-id", &Replica::new("ctl-epochs", 9, 3), "21", "100");
    s.replica_info("replica-info-still-above-5", "ctl-epochs");
    s.elect("elect-2-while-master-alive", &two, false);
    s.finish()
}

/// The controller's sequences.
pub(crate) fn sequences() -> Vec<Sequence> {
    vec![lifecycle(), quirks(), epochs()]
}

/// The keys the controller settings share on both sides; the peer list names `port`.
fn settings(port: u16, store: &str) -> Vec<(String, String)> {
    [
        ("enableControllerInNamesrv", String::from("true")),
        ("controllerDLegerGroup", String::from("oracle")),
        ("controllerDLegerPeers", format!("n0-127.0.0.1:{port}")),
        ("controllerDLegerSelfId", String::from("n0")),
        ("controllerStorePath", store.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// Waits until the controller at `addr` serves: a leader-only read answers something other
/// than CONTROLLER_NOT_LEADER (a DLedger leader serves once its first entry committed).
fn await_serving(addr: SocketAddr) {
    eventually_blocking(&format!("the controller at {addr} serves"), || {
        let mut client = Client::connect(addr, Duration::from_secs(30)).ok()?;
        let cmd = RemotingCommand { code: 1004, opaque: 1, ..RemotingCommand::default() }
            .with_field("brokerName", "ctl-probe");
        let frame = client.call(&cmd).ok()??;
        (wire::decode(&frame).ok()?.code != 2007).then_some(())
    });
}

#[test]
#[ignore = "needs Java 17 and Maven Central: scripts/test.sh runs it in its own step"]
fn java_oracle_controller() {
    if java::skip_requested("the controller oracle (differential test against Java 5.5.0's embedded controller)") {
        return;
    }
    let rows: Vec<compare::Row> = compare::parse_table(include_str!("../../../docs/PROTOCOL.md"))
        .unwrap_or_else(|e| panic!("docs/PROTOCOL.md: {e}"))
        .into_iter()
        .filter(|r| r.case.starts_with("controller/"))
        .collect();
    let started = Instant::now();
    let home = tempfile::Builder::new().prefix("nameserver-oracle-controller-").tempdir().unwrap();
    let port = |what: &str| nameserver_testkit::peer::free_port().unwrap_or_else(|e| panic!("{what}: {e}"));
    let (java_port, ours_port) = (port("Java's controller"), port("our controller"));
    let java_store = home.path().join("java").display().to_string();
    let ours_store = home.path().join("ours").display().to_string();
    let (java_peer, ours_peer) = std::thread::scope(|scope| {
        let java = scope.spawn(|| {
            let entries = settings(java_port, &java_store);
            let extra: Vec<(&str, &str)> = entries.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            java::start_namesrv(VERSION, &extra)
        });
        let ours = scope.spawn(|| start_ours_with(&settings(ours_port, &ours_store)));
        (java.join().unwrap(), ours.join().unwrap())
    });
    let (java_peer, ours_peer) =
        (java_peer.unwrap_or_else(|e| panic!("{e}")), ours_peer.unwrap_or_else(|e| panic!("{e}")));
    let (java_addr, ours_addr) =
        (SocketAddr::from(([127, 0, 0, 1], java_port)), SocketAddr::from(([127, 0, 0, 1], ours_port)));
    await_serving(java_addr);
    await_serving(ours_addr);
    println!("controllers serving after {:.1} s", started.elapsed().as_secs_f64());
    let mut compared: Vec<Compared> = Vec::new();
    for seq in sequences() {
        let mut java = Side { addr: java_addr, conns: BTreeMap::new(), may_be_silent: false };
        let mut ours = Side { addr: ours_addr, conns: BTreeMap::new(), may_be_silent: false };
        compared.extend(seq.steps.iter().filter_map(|step| exec(VERSION, &mut java, &mut ours, &seq.name, step)));
    }
    println!("controller sequences run in {:.1} s", started.elapsed().as_secs_f64());
    let mut codes: BTreeMap<i32, (usize, usize)> = BTreeMap::new();
    for c in &compared {
        let cell = codes.entry(c.code).or_default();
        cell.0 += 1;
        cell.1 += usize::from(!c.differences.is_empty());
    }
    for (code, (n, differing)) in &codes {
        println!("controller code {code}: {n} requests, {differing} differing");
    }
    let all: Vec<compare::Difference> = compared.iter().flat_map(|c| c.differences.clone()).collect();
    let uncovered: Vec<&compare::Difference> = all.iter().filter(|d| !rows.iter().any(|r| r.covers(d))).collect();
    let stale: Vec<&str> = rows.iter().filter(|r| !all.iter().any(|d| r.covers(d))).map(|r| r.id.as_str()).collect();
    for d in &uncovered {
        println!("UNCOVERED {} | {} | {} | {} | `{}` | `{}`", d.version, d.code, d.case, d.field, d.java, d.ours);
    }
    for id in &stale {
        println!("STALE table row {id}: no such difference observed any more");
    }
    println!(
        "controller: {} requests compared, {} with differences, {} differing fields, {} outside the table",
        compared.len(),
        compared.iter().filter(|c| !c.differences.is_empty()).count(),
        all.len(),
        uncovered.len()
    );
    drop((java_peer, ours_peer));
    assert!(
        uncovered.is_empty() && stale.is_empty(),
        "{} controller differences outside the table, {} stale rows",
        uncovered.len(),
        stale.len()
    );
}
