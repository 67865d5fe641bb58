//! mqadmin 5.5.0's controller commands (issue 36) against our embedded controller and against
//! Java 5.5.0's own NameServer hosting its embedded controller: getControllerMetaData,
//! getSyncStateSet (by group and by cluster), getBrokerEpoch, getControllerConfig,
//! updateControllerConfig (a key and a black-listed one), electMaster (a new master, then the
//! same one again), cleanBrokerMetadata (refused for a live broker, then a group without a
//! master wiped). Each side's commands run in one mqadmin JVM, both sides at once.
//!
//! The brokers are raw frames, the same on both sides: two replicas of `broker-a` (ids 1 and 2,
//! 1 elected, the set grown to {1, 2}) and one of `broker-b` (no master), each heartbeating once
//! with a timeout longer than the run; `broker-a`'s two also register with the NameServer (the
//! master as id 0, as a controller-mode broker does) and answer GET_BROKER_EPOCH_CACHE (1007) on
//! their own ports, which is all getBrokerEpoch asks them. Every output must hold its
//! `expect` text and match Java's after the peers' normaliser; a difference no row of
//! docs/PROTOCOL.md §18 covers fails.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;

use nameserver_core::codec;
use nameserver_core::protocol::{RemotingCommand, ResponseCode};
use nameserver_testkit::daemon::{Config, Daemon, nameserver_command};
use nameserver_testkit::java::{self, Version};
use nameserver_testkit::peer::free_port;
use nameserver_testkit::wire::{self, Client};
use nameserver_testkit::{ExternalPeer, frames, mqadmin_batch};

use crate::compare::{self, Difference, Row};
use crate::{HANG_GUARD, await_state, mqadmin};

const CLUSTER: &str = "DefaultCluster";
const GROUP: &str = "broker-a";
/// A group with a replica and no master: the one cleanBrokerMetadata may wipe.
const SPARE: &str = "broker-b";
/// Longer than the run: one heartbeat keeps a replica alive throughout.
const HEARTBEAT_TIMEOUT_MS: &str = "600000";

/// One command: its case name, the code it is about, text its output must hold, its arguments
/// (`$C` the controller's address).
struct Command {
    case: &'static str,
    code: i32,
    expect: &'static str,
    args: &'static str,
}

const COMMANDS: [Command; 14] = [
    Command {
        case: "getControllerMetaData",
        code: 1005,
        expect: "#ControllerLeaderId\tn0",
        args: "getControllerMetaData -a $C",
    },
    Command {
        case: "getSyncStateSet",
        code: 1006,
        expect: "#SyncStateSetNums\t2",
        args: "getSyncStateSet -a $C -b broker-a",
    },
    Command {
        case: "getSyncStateSet-cluster",
        code: 1006,
        expect: "#MasterBrokerId\t1",
        args: "getSyncStateSet -a $C -c DefaultCluster",
    },
    Command {
        case: "getBrokerEpoch",
        code: 1007,
        expect: "#Epoch: EpochEntry{epoch=1",
        args: "getBrokerEpoch -b broker-a",
    },
    Command {
        case: "getControllerConfig",
        code: 1010,
        expect: "controllerDLegerGroup",
        args: "getControllerConfig -a $C",
    },
    Command {
        case: "updateControllerConfig",
        code: 1009,
        expect: "update controller config success",
        args: "updateControllerConfig -a $C -k enableElectUncleanMaster -v true",
    },
    Command {
        case: "updateControllerConfig-black-listed",
        code: 1009,
        expect: "CODE: 16",
        args: "updateControllerConfig -a $C -k configBlackList -v none",
    },
    Command {
        case: "getControllerConfig-updated",
        code: 1010,
        // mqadmin pads each key to 50 columns.
        expect: "enableElectUncleanMaster                          =  true",
        args: "getControllerConfig -a $C",
    },
    // mqadmin 5.5.0 reads the reply's body as a BrokerMemberGroup with fastjson2, which cannot
    // skip the unquoted map keys Java's controller writes (and ours, byte for byte): the
    // election takes place, and mqadmin prints the parse error with the body (PROTOCOL.md §20).
    Command {
        case: "electMaster",
        code: 1002,
        expect: "\"syncStateSet\":[2]",
        args: "electMaster -a $C -c DefaultCluster -bn broker-a -b 2",
    },
    Command {
        case: "getSyncStateSet-elected",
        code: 1006,
        expect: "#MasterBrokerId\t2",
        args: "getSyncStateSet -a $C -b broker-a",
    },
    Command {
        case: "electMaster-again",
        code: 1002,
        expect: "CODE: 2011",
        args: "electMaster -a $C -c DefaultCluster -bn broker-a -b 2",
    },
    Command {
        case: "cleanBrokerMetadata-alive",
        code: 1011,
        expect: "CODE: 2009",
        args: "cleanBrokerMetadata -a $C -bn broker-a -c DefaultCluster -b 1",
    },
    Command {
        case: "cleanBrokerMetadata",
        code: 1011,
        expect: "clear broker broker-b metadata from controller success",
        args: "cleanBrokerMetadata -a $C -bn broker-b -c DefaultCluster",
    },
    Command {
        case: "getSyncStateSet-cleaned",
        code: 1006,
        expect: "#brokerName\tbroker-a",
        args: "getSyncStateSet -a $C -c DefaultCluster",
    },
];

/// A NameServer with its controller, Java's or ours.
struct Side {
    name: &'static str,
    namesrv: SocketAddr,
    controller: SocketAddr,
    _server: Server,
    _home: tempfile::TempDir,
}

/// Our daemon or Java's NameServer, stopped when dropped.
enum Server {
    Ours { _daemon: Daemon },
    Java { _peer: ExternalPeer },
}

/// The controller keys of both sides' files: the issue's operator setup.
fn controller_keys(port: u16, store: &Path) -> Vec<(&'static str, String)> {
    vec![
        ("enableControllerInNamesrv", String::from("true")),
        ("controllerDLegerGroup", String::from("group1")),
        ("controllerDLegerPeers", format!("n0-127.0.0.1:{port}")),
        ("controllerDLegerSelfId", String::from("n0")),
        ("controllerStorePath", store.display().to_string()),
    ]
}

fn start_ours() -> Side {
    let home = tempfile::Builder::new().prefix("nameserver-controller-admin-").tempdir().unwrap();
    let port = free_port().unwrap();
    let keys = controller_keys(port, &home.path().join("DLedgerController"));
    let keys: Vec<(&str, &str)> = keys.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let config = Config::write(home.path(), &keys);
    let command = nameserver_command(Path::new(env!("CARGO_BIN_EXE_nameserver")), home.path());
    let daemon = Daemon::spawn_configured(command, "127.0.0.1", &config, &["--no-http"]);
    let controller = SocketAddr::from(([127, 0, 0, 1], port));
    if let Err(panic) = std::panic::catch_unwind(|| await_leader("ours", controller)) {
        eprintln!("our daemon's log:\n{}", daemon.log());
        std::panic::resume_unwind(panic);
    }
    Side { name: "ours", namesrv: daemon.addr, controller, _server: Server::Ours { _daemon: daemon }, _home: home }
}

fn start_java() -> Side {
    let home = tempfile::Builder::new().prefix("nameserver-controller-admin-java-").tempdir().unwrap();
    let port = free_port().unwrap();
    let keys = controller_keys(port, &home.path().join("DLedgerController"));
    let keys: Vec<(&str, &str)> = keys.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let peer = java::start_namesrv(Version::V5_5_0, &keys).unwrap_or_else(|e| panic!("{e}"));
    let controller = SocketAddr::from(([127, 0, 0, 1], port));
    await_leader("Java", controller);
    Side {
        name: "Java",
        namesrv: peer.addr.expect("listening"),
        controller,
        _server: Server::Java { _peer: peer },
        _home: home,
    }
}

/// Waits until the controller at `addr` serves: both open its port after the NameServer's, and
/// Java's DLedger node elects itself a moment later (until then 1012 answers
/// CONTROLLER_NOT_LEADER).
fn await_leader(side: &str, addr: SocketAddr) {
    await_state(&format!("{side}: the controller at {addr} leads"), || {
        Client::connect(addr, HANG_GUARD)
            .ok()
            .and_then(|mut c| c.call(&request(1012, &[("clusterName", CLUSTER), ("brokerName", GROUP)])).ok())
            .flatten()
            .is_some_and(|frame| wire::decode(&frame).is_ok_and(|r| r.code == 0))
    });
}

fn request(code: i32, fields: &[(&str, &str)]) -> RemotingCommand {
    fields.iter().fold(RemotingCommand { code, ..RemotingCommand::default() }, |cmd, (k, v)| cmd.with_field(k, *v))
}

/// One request on a fresh connection; the reply.
fn call(addr: SocketAddr, cmd: &RemotingCommand) -> RemotingCommand {
    let mut client = Client::connect(addr, HANG_GUARD).unwrap_or_else(|e| panic!("connect to {addr}: {e}"));
    let frame = client.call(cmd).unwrap_or_else(|e| panic!("{addr}: {e}")).unwrap_or_else(|| panic!("{addr} closed"));
    wire::decode(&frame).unwrap()
}

fn ok(side: &Side, what: &str, reply: &RemotingCommand) {
    assert_eq!(reply.code, 0, "{}: {what}: {reply:?}", side.name);
}

/// A broker's start as Java's `ReplicasManager` makes it (1012, 1013, 1003) and one heartbeat
/// on `beats`; its id. A controller forgets a broker whose heartbeat connection closes, so
/// `beats` stays open for the run.
fn join(side: &Side, beats: &mut Client, group: &str, addr: &str) -> String {
    let next = call(side.controller, &request(1012, &[("clusterName", CLUSTER), ("brokerName", group)]));
    ok(side, "1012", &next);
    let id = next.field("nextBrokerId").expect("nextBrokerId").to_string();
    let check = format!("{addr};1733090000000");
    let applied =
        [("clusterName", CLUSTER), ("brokerName", group), ("appliedBrokerId", &id), ("registerCheckCode", &check)];
    ok(side, "1013", &call(side.controller, &request(1013, &applied)));
    let fields = [("clusterName", CLUSTER), ("brokerName", group), ("brokerId", &id), ("brokerAddress", addr)];
    ok(side, "1003", &call(side.controller, &request(1003, &fields)));
    let beat = [
        ("clusterName", CLUSTER),
        ("brokerName", group),
        ("brokerAddr", addr),
        ("brokerId", &id),
        // Before its first election a broker holds no epoch above 0; a later one would make our
        // controller elect above it (PROTOCOL.md §20.4) where Java's gives 1.
        ("epoch", "0"),
        ("maxOffset", "100"),
        ("heartbeatTimeoutMills", HEARTBEAT_TIMEOUT_MS),
    ];
    // Two-way, so that it is applied before the next request.
    let reply = beats.call(&request(904, &beat)).unwrap().expect("a reply");
    ok(side, "904", &wire::decode(&reply).unwrap());
    id
}

/// The brokers of the module doc on `side`; their connections to the controller and the
/// NameServer (which, like the controller, forgets a broker whose connection closes).
fn set_up(side: &Side, addrs: [&str; 2]) -> [Client; 2] {
    let mut beats = Client::connect(side.controller, HANG_GUARD)
        .unwrap_or_else(|e| panic!("{}: the controller at {}: {e}", side.name, side.controller));
    let ids = addrs.map(|addr| join(side, &mut beats, GROUP, addr));
    assert_eq!(ids, ["1", "2"], "{}", side.name);
    join(side, &mut beats, SPARE, "127.0.0.1:1");
    let elect = [("clusterName", CLUSTER), ("brokerName", GROUP), ("brokerId", "1"), ("designateElect", "false")];
    let elected = call(side.controller, &request(1002, &elect));
    ok(side, "1002", &elected);
    let epoch = elected.field("masterEpoch").expect("masterEpoch").to_string();
    let alter = request(1001, &[("brokerName", GROUP), ("masterBrokerId", "1"), ("masterEpoch", &epoch)])
        .with_body(br#"{"syncStateSet":[1,2],"syncStateSetEpoch":1}"#.to_vec());
    ok(side, "1001", &call(side.controller, &alter));
    let mut registrations = Client::connect(side.namesrv, HANG_GUARD).unwrap();
    for (id, addr) in [(0, addrs[0]), (2, addrs[1])] {
        let register = frames::register_broker(CLUSTER, GROUP, id, addr, &[], 1, Some(600_000));
        let reply = registrations.call(&register).unwrap().expect("a reply");
        ok(side, "103", &wire::decode(&reply).unwrap());
    }
    [beats, registrations]
}

/// The two brokers' own ports: each answers 1007 with a one-epoch cache while the test runs.
fn epoch_brokers() -> [String; 2] {
    [1, 2].map(|id| {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        std::thread::spawn(move || {
            // A failed accept (descriptors running out) drops one peer, not the broker.
            for stream in listener.incoming().flatten() {
                std::thread::spawn(move || answer_epochs(stream, id));
            }
        });
        addr
    })
}

/// GET_BROKER_EPOCH_CACHE's answer as a 5.5.0 broker gives it (`EpochEntryCache`).
fn answer_epochs(mut stream: TcpStream, id: u64) {
    let mut frame = Vec::new();
    loop {
        let mut len = [0u8; 4];
        if stream.read_exact(&mut len).is_err() {
            return;
        }
        frame.clear();
        frame.extend_from_slice(&len);
        frame.resize(4 + u32::from_be_bytes(len) as usize, 0);
        if stream.read_exact(&mut frame[4..]).is_err() {
            return;
        }
        let Ok(req) = wire::decode(&frame) else { return };
        let body = format!(
            r#"{{"brokerId":{id},"brokerName":"{GROUP}","clusterName":"{CLUSTER}","epochList":[{{"endOffset":100,"epoch":1,"startOffset":0}}],"maxOffset":100}}"#
        );
        let reply = RemotingCommand::response_to(&req, ResponseCode::Success).with_body(body.into_bytes());
        if stream.write_all(&codec::encode_to_vec(&reply).unwrap()).is_err() {
            return;
        }
    }
}

/// Every command against `side`, one JVM; each output or why it did not run.
fn run_commands(side: &Side) -> Vec<Result<Vec<String>, String>> {
    let controller = side.controller.to_string();
    let args: Vec<Vec<String>> =
        COMMANDS.iter().map(|c| c.args.split(' ').map(|a| a.replace("$C", &controller)).collect()).collect();
    let args: Vec<Vec<&str>> = args.iter().map(|a| a.iter().map(String::as_str).collect()).collect();
    let args: Vec<&[&str]> = args.iter().map(Vec::as_slice).collect();
    let runs = mqadmin_batch::run(Version::V5_5_0, side.namesrv, &args).unwrap_or_else(|e| panic!("{e}"));
    let addrs = [side.namesrv.to_string(), controller];
    COMMANDS
        .iter()
        .zip(runs)
        .map(|(command, (code, out))| {
            if code != Some(0) || !out.contains(command.expect) {
                return Err(format!("exited {code:?} without `{}` in its output:\n{out}", command.expect));
            }
            let out: String = out.lines().map(|l| format!("{}\n", own(l))).collect();
            let lines = mqadmin::normalise(&out, &addrs);
            if std::env::var_os("JAVA_PEERS_SHOW").is_some() {
                eprintln!("== controller {} against {}\n{}", command.case, side.name, lines.join("\n"));
            }
            Ok(lines)
        })
        .collect()
}

/// getControllerConfig's lines of each server's own files and ports, masked.
fn own(line: &str) -> String {
    const OWN: [&str; 6] =
        ["controllerStorePath", "configStorePath", "kvConfigPath", "rocketmqHome", "listenPort", "bindAddress"];
    match line.split_once('=') {
        Some((key, _)) if OWN.contains(&key.trim()) => format!("{key}=  <own>"),
        _ => line.to_string(),
    }
}

/// The lines only one side printed, as a difference of `command`.
fn compare_outputs(
    command: &Command,
    java: Result<Vec<String>, String>,
    ours: Result<Vec<String>, String>,
) -> Option<Difference> {
    let java = java.unwrap_or_else(|e| panic!("mqadmin {} against Java {e}", command.args));
    let difference = |java: String, ours: String| Difference {
        version: String::from("5.5.0"),
        code: command.code,
        case: format!("peers/controller:{}", command.case),
        field: String::from("output"),
        java,
        ours,
    };
    let ours = match ours {
        Ok(lines) => lines,
        Err(e) => return Some(difference(format!("ran: `{}` printed", command.expect), e)),
    };
    // `(none)` where one side printed nothing the other did not, as the table writes it.
    let only = |a: &[String], b: &[String]| {
        let lines: Vec<&str> = a.iter().filter(|l| !b.contains(l)).map(String::as_str).collect();
        if lines.is_empty() { String::from("(none)") } else { lines.join("\n") }
    };
    let (java_only, ours_only) = (only(&java, &ours), only(&ours, &java));
    (java_only != ours_only).then(|| difference(java_only, ours_only))
}

#[test]
#[ignore = "needs Java 17 and Maven Central: scripts/test.sh runs it in its own step"]
fn mqadmin_controller_commands() {
    if java::skip_requested("mqadmin's controller commands against Java's controller and ours") {
        return;
    }
    let rows: Vec<Row> = compare::parse_table(include_str!("../../../docs/PROTOCOL.md"))
        .unwrap_or_else(|e| panic!("docs/PROTOCOL.md: {e}"));
    let addrs = epoch_brokers();
    let (java, ours) = std::thread::scope(|s| {
        let java = s.spawn(start_java);
        (java.join().unwrap(), start_ours())
    });
    let _beats = [&java, &ours].map(|side| set_up(side, [&addrs[0], &addrs[1]]));
    let (java_runs, our_runs) = std::thread::scope(|s| {
        let j = s.spawn(|| run_commands(&java));
        (j.join().unwrap(), run_commands(&ours))
    });
    let mut uncovered = Vec::new();
    for ((command, j), o) in COMMANDS.iter().zip(java_runs).zip(our_runs) {
        let Some(d) = compare_outputs(command, j, o) else {
            println!("controller: mqadmin {} prints the same against both", command.case);
            continue;
        };
        match rows.iter().find(|r| r.covers(&d)) {
            Some(row) => println!("controller: mqadmin {}: covered by {}", command.case, row.id),
            None => uncovered.push(d),
        }
    }
    for d in &uncovered {
        println!(
            "UNCOVERED {} | {} | {}\n  Java only:\n    {}\n  ours only:\n    {}",
            d.code,
            d.case,
            d.field,
            d.java.replace('\n', "\n    "),
            d.ours.replace('\n', "\n    ")
        );
    }
    assert!(uncovered.is_empty(), "{} mqadmin controller commands differ outside PROTOCOL.md §18", uncovered.len());
}
