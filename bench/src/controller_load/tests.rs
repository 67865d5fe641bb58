//! The controller load against our controller: every request answered SUCCESS, replies
//! checked, every workload over TCP.

use std::sync::Mutex;

use bytes::Buf;
use nameserver_testkit::scan::next_reply;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::*;
use crate::measurement::Measurement;
use nameserver_controller::{Controller, ControllerConfig, Input, MemoryLog, Output};
use nameserver_core::codec::{Limits, decode};
use nameserver_core::{BrokerId, BrokerName, ConnId, Instant as CoreInstant};

/// Our controller, in memory, as the wire sees it.
struct Wire {
    controller: Controller<MemoryLog>,
    at: u64,
}

impl Wire {
    fn new() -> Self {
        Self {
            controller: Controller::new(ControllerConfig::default(), MemoryLog::new("n0"), CoreInstant::ZERO),
            at: 0,
        }
    }

    /// Sends `cmd` as the generator encodes it and returns the reply's code as the
    /// generator reads it.
    fn code(&mut self, mut cmd: RemotingCommand) -> i32 {
        cmd.opaque = OPAQUE_BASE + 7;
        let frame = codec::encode_to_vec(&cmd).unwrap();
        let (decoded, _) = decode(&frame, &Limits::DEFAULT).unwrap().unwrap();
        self.at += 1;
        self.controller.handle(CoreInstant::from_millis(self.at), Input::Received { conn: ConnId(1), cmd: decoded });
        let mut replies = Vec::new();
        while let Some(output) = self.controller.poll_output() {
            if let Output::Send { cmd, .. } = output {
                replies.push(codec::encode_to_vec(&cmd).unwrap());
            }
        }
        assert_eq!(replies.len(), 1, "one reply to {}", cmd.code);
        let reply = next_reply(&replies[0]).unwrap().unwrap();
        assert!(reply.is_response() && reply.opaque == OPAQUE_BASE + 7, "{reply:?}");
        reply.code
    }
}

/// Every request the workloads send is answered SUCCESS by our controller (Java's answers
/// to the same sequences are the controller oracle's to compare): the join's ten steps in
/// order, then the steady workloads' requests on the group it formed, then its cleaning.
#[test]
fn our_controller_answers_every_request_success() {
    let mut wire = Wire::new();
    let names = Names::new(0x5eed);
    let group = names.group(0);
    let codes: Vec<i32> = (0..JOIN_STEPS).map(|step| wire.code(join_step(&group, step).unwrap())).collect();
    assert_eq!(codes, [0; JOIN_STEPS]);
    assert!(join_step(&group, JOIN_STEPS).is_none());
    let set = wire.controller.tables().sync.get(&BrokerName::new(group.as_str())).expect("the group's set");
    assert_eq!((set.master, set.master_epoch, set.set.len()), (Some(BrokerId(1)), 1, 2), "{set:?}");
    for workload in [Workload::Heartbeat, Workload::ReplicaInfo, Workload::SyncState] {
        let requests = steady_requests(workload, &names, 1).unwrap();
        assert_eq!(requests.len(), if workload == Workload::Heartbeat { 2 } else { 1 });
        for cmd in requests {
            assert_eq!(wire.code(cmd), 0, "{workload:?}");
        }
    }
    assert_eq!(wire.code(clean(&group)), 0);
    // Gone once cleaned; an unknown group is answered, not CONTROLLER_NOT_LEADER, which is
    // what the readiness probe waits for.
    assert_eq!(wire.code(replica_info(&group)), 2008);
    // A step out of order is refused: the checks are not vacuous.
    let other = names.group(1);
    assert_eq!(wire.code(join_step(&other, 2).unwrap()), 2010);
}

/// A wrong code is counted under its code and ends the join, whose slot starts a fresh
/// group; a reply matching no request in flight is a protocol error; a whole join counts.
#[test]
fn replies_are_checked_and_joins_counted() {
    let start = Instant::now();
    let phases = Arc::new(Phases::window(start, Duration::ZERO, Duration::from_secs(3600)));
    let names = Arc::new(Names::new(1));
    let mut conn = LoadConn::new(Work::Join { names, conn: 3, started: 0 }, 1, phases);
    let sent = |conn: &mut LoadConn| {
        let (cmd, used) = decode(&conn.slots.out, &Limits::DEFAULT).unwrap().unwrap();
        assert_eq!(used, conn.slots.out.len());
        conn.slots.out.clear();
        (cmd.code, cmd.field("brokerName").unwrap_or_default().to_owned(), cmd.opaque)
    };
    conn.push(0, start);
    let (code, group, opaque) = sent(&mut conn);
    assert_eq!((code, group.as_str()), (1012, "ctl-bench-1-c3-1"));
    conn.on_reply(0, opaque, start, Some(1));
    let (code, _, opaque) = sent(&mut conn);
    assert_eq!(code, 1013);
    conn.on_reply(2014, opaque, start, Some(1));
    assert_eq!(conn.windows[1].errors.codes.get(&2014), Some(&1));
    let (code, group, mut opaque) = sent(&mut conn);
    assert_eq!((code, group.as_str()), (1012, "ctl-bench-1-c3-2"));
    conn.on_reply(0, opaque + 1, start, Some(1));
    assert_eq!(conn.windows[0].errors.protocol, 1);
    let mut codes = Vec::new();
    for _ in 0..JOIN_STEPS {
        conn.on_reply(0, opaque, start, Some(1));
        let next = sent(&mut conn);
        codes.push(next.0);
        opaque = next.2;
    }
    assert_eq!(codes, [1013, 1003, 904, 1002, 1012, 1013, 1003, 904, 1001, 1012]);
    assert_eq!(conn.windows[1].joins, 1);
    assert_eq!(conn.windows[1].completed, 12);
    assert_eq!(conn.windows[1].errors.total(), 1);
    // After the window, a reply frees its slot and nothing more is sent.
    conn.on_reply(0, opaque, start, None);
    assert!(conn.slots.out.is_empty() && conn.slots.in_flight() == 0);
}

/// Our controller behind a listener (one lock around it; each reply written on the
/// connection of its request).
async fn serve(listener: TcpListener) {
    let controller = Arc::new(Mutex::new(Wire::new()));
    let mut next = 0;
    while let Ok((mut stream, _)) = listener.accept().await {
        next += 1;
        let (conn, controller) = (ConnId(next), Arc::clone(&controller));
        tokio::spawn(async move {
            let mut inbuf = BytesMut::with_capacity(4096);
            while matches!(stream.read_buf(&mut inbuf).await, Ok(n) if n > 0) {
                let mut out = Vec::new();
                while let Ok(Some((cmd, used))) = decode(&inbuf, &Limits::DEFAULT) {
                    inbuf.advance(used);
                    let mut wire = controller.lock().unwrap();
                    wire.at += 1;
                    let now = CoreInstant::from_millis(wire.at);
                    wire.controller.handle(now, Input::Received { conn, cmd });
                    while let Some(output) = wire.controller.poll_output() {
                        match output {
                            Output::Send { conn: to, cmd } if to == conn => codec::encode(&cmd, &mut out).unwrap(),
                            _ => {}
                        }
                    }
                }
                if stream.write_all(&out).await.is_err() {
                    break;
                }
            }
            let mut wire = controller.lock().unwrap();
            let now = CoreInstant::from_millis(wire.at);
            wire.controller.handle(now, Input::Closed { conn });
            while wire.controller.poll_output().is_some() {}
        });
    }
}

/// Each workload, whole (readiness, groups formed, load, cleaning), against our
/// controller: replies in both windows, none but SUCCESS, and whole joins.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_workload_runs_against_our_controller() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(serve(listener));
    for workload in [Workload::Heartbeat, Workload::ReplicaInfo, Workload::SyncState, Workload::Join] {
        let load = ControllerLoad {
            workload,
            conns: 2,
            depth: 3,
            groups: 4,
            warmup_ms: 50,
            duration_ms: 200,
            ready_ms: 10_000,
        };
        let result = run(addr, &load, Duration::from_secs(10)).await.unwrap();
        assert_eq!(result.errors(), 0, "{workload:?}: {result:?}");
        assert!(result.warmup.completed > 0 && result.measured.completed > 0, "{workload:?}: {result:?}");
        assert_eq!(result.measured.joins > 0, workload == Workload::Join, "{workload:?}: {result:?}");
        let line = Measurement::parse(&result.line(&load, "ours")).unwrap();
        assert_eq!(line.kind, "CONTROLLER");
        assert_eq!(line.get("workload"), Some(workload.name()));
        assert_eq!(line.number("errors"), Some(0.0));
        assert!(line.number("qps").is_some_and(|qps| qps > 0.0), "{line}");
    }
}
