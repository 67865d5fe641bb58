//! The `controller` target: sequences of inputs, read from the fuzzer's bytes, run through one
//! RIP-44 `Controller` on a one-node log.
//!
//! Checked after every input: no panic; a request that is neither oneway nor a response gets
//! exactly one reply, on its connection, echoing its opaque, and nothing else does; every
//! reply and 1008 encodes and decodes back to itself; the next timer is in the future; a
//! group's master epoch and set epoch never fall while it exists (in both tables: a group
//! that lost its last replica id starts again at epoch 0 when an id is applied, as Java's
//! does). On a restart record: the log replayed (after a snapshot or not) gives the same
//! tables, and the snapshot's bytes read back to them. Raw bytes read as a log entry or a snapshot never panic, and what reads
//! writes back to bytes that read the same.
//!
//! Input format ([`crate::seeds`] has examples): records until the bytes run out or
//! `MAX_RECORDS` (32) have run, each a tag byte and its arguments (integers big-endian).
//!
//! | tag % 8 | record |
//! |---|---|
//! | 0 | closed: conn |
//! | 1 | advance: u16 × 8 ms, then the timer |
//! | 2 | raw frame: conn, u16 length, bytes (decode errors close the connection) |
//! | 3 | request: conn, code, flag, fields, body (from small vocabularies) |
//! | 4 | a broker's start, one step: conn, which (1012 / 1013 / 1003), name, id, slot |
//! | 5 | well-formed 904: conn, name, id, epoch, offset, timeout, priority, flag |
//! | 6 | well-formed 1002 / 1001 / 1011 / 1004 / 1006 on the current tables: conn, which, name, id, set mask |
//! | 7 | control: which (restart, snapshot and restart, step down, step up, 1009, raw entry, raw snapshot), bytes |

use std::collections::BTreeMap;

use nameserver_controller::body::SyncStateSetBody;
use nameserver_controller::{
    Controller, ControllerConfig, Input, MemoryLog, Output, ReplicasInfo, decode_entry, encode_entry,
};
use nameserver_core::json::{JsonStyle, WriteJson};
use nameserver_core::protocol::{FLAG_ONEWAY, RemotingCommand};
use nameserver_core::{BrokerId, BrokerName, ConnId, Instant};

use crate::reader::{Reader, run_records};
use crate::replies::{Request, assert_round_trips};

const CODES: [i32; 16] = [904, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 105, 0];
const KEYS: [&str; 20] = [
    "clusterName",
    "brokerName",
    "brokerId",
    "brokerAddr",
    "brokerAddress",
    "masterBrokerId",
    "masterEpoch",
    "epoch",
    "maxOffset",
    "confirmOffset",
    "heartbeatTimeoutMills",
    "electionPriority",
    "designateElect",
    "brokerControllerIdsToClean",
    "isCleanLivingBroker",
    "appliedBrokerId",
    "registerCheckCode",
    "nextBrokerId",
    "brokerName",
    "brokerId",
];
const VALUES: [&str; 18] = [
    "DefaultCluster",
    "c2",
    "broker-a",
    "broker-b",
    "10.0.0.1:30911",
    "10.0.0.2:30911",
    "10.0.0.1:30911;1733090000000",
    "0",
    "1",
    "2",
    "3",
    "-1",
    "true",
    "false",
    "1;2",
    "2147483648",
    "x",
    "",
];
const NAMES: [&str; 2] = ["broker-a", "broker-b"];
const CONFIG: [&str; 8] = [
    "processReadEvent=true",
    "processReadEvent=false",
    "enableElectUncleanMaster=true",
    "notifyBrokerRoleChanged=false",
    "electMasterMaxRetryCount=1",
    "scanInactiveMasterInterval=1000",
    "scanNotActiveBrokerInterval=1000",
    "configStorePath=/tmp/x",
];

struct Harness {
    controller: Controller<MemoryLog>,
    now: u64,
    opaque: i32,
    /// Each group's (master epoch, set epoch) as last seen.
    epochs: BTreeMap<BrokerName, (i32, i32)>,
}

impl Harness {
    fn input(&mut self, input: Input) -> Vec<Output> {
        self.controller.handle(Instant::from_millis(self.now), input);
        let next = self.controller.poll_timeout().expect("a scan is always scheduled");
        assert!(next > Instant::from_millis(self.now), "the next scan is in the future");
        let out: Vec<Output> = std::iter::from_fn(|| self.controller.poll_output()).collect();
        for o in &out {
            if let Output::Send { cmd, .. } | Output::Notify { cmd, .. } = o {
                assert_round_trips(cmd);
            }
            if let Output::Notify { cmd, .. } = o {
                assert_eq!(cmd.code, 1008);
                assert!(cmd.is_oneway());
            }
        }
        self.check_epochs();
        out
    }

    fn check_epochs(&mut self) {
        let tables = self.controller.tables();
        self.epochs.retain(|name, _| tables.contains(name));
        for (name, state) in tables.sync.iter().filter(|(name, _)| tables.contains(name)) {
            let now = (state.master_epoch, state.set_epoch);
            if let Some(before) = self.epochs.insert(name.clone(), now) {
                assert!(now.0 >= before.0 && now.1 >= before.1, "{name:?}'s epochs fell: {before:?} -> {now:?}");
            }
        }
    }

    fn received(&mut self, conn: u64, cmd: RemotingCommand) {
        let request = Request::new(ConnId(conn), &cmd);
        let out = self.input(Input::Received { conn: ConnId(conn), cmd });
        // One node's log commits at once: the reply comes in the same step.
        request.reply(&out, |o| match o {
            Output::Send { conn, cmd } => Some((*conn, cmd)),
            _ => None,
        });
    }

    fn send(&mut self, conn: u64, mut cmd: RemotingCommand) {
        self.opaque = self.opaque.wrapping_add(1);
        cmd.opaque = self.opaque;
        self.received(conn, cmd);
    }

    /// A restart on the same log: the tables come back the same.
    fn restart(&mut self, snapshot_first: bool) {
        if snapshot_first {
            self.controller.snapshot();
            let snapshot = self.controller.log().snapshot_bytes();
            assert_eq!(&ReplicasInfo::from_snapshot(&snapshot).unwrap(), self.controller.tables());
        }
        let log = self.controller.log().restarted();
        let config = self.controller.config().clone();
        let restarted = Controller::new(config, log, Instant::from_millis(self.now));
        assert_eq!(restarted.tables(), self.controller.tables(), "a replay gives the same tables");
        self.controller = restarted;
        drop(self.input(Input::LogProgress));
    }
}

/// The snapshot a log holds, as bytes (empty tables when it has none).
trait SnapshotBytes {
    fn snapshot_bytes(&self) -> Vec<u8>;
}

impl SnapshotBytes for MemoryLog {
    fn snapshot_bytes(&self) -> Vec<u8> {
        use nameserver_controller::ReplicatedLog;
        self.snapshot().map_or_else(|| ReplicasInfo::default().to_snapshot(), |s| s.bytes)
    }
}

fn addr(conn: u64, slot: u8) -> String {
    format!("10.0.{conn}.{slot}:30911")
}

fn request(code: i32, fields: &[(&str, String)]) -> RemotingCommand {
    let mut cmd = RemotingCommand { code, ..RemotingCommand::default() };
    for (k, v) in fields {
        cmd = cmd.with_field(k, v.as_str());
    }
    cmd
}

fn cluster() -> (&'static str, String) {
    ("clusterName", String::from("DefaultCluster"))
}

fn set_of(mask: u8) -> std::collections::BTreeSet<BrokerId> {
    (0..4).filter(|i| mask & (1 << i) != 0).map(|i| BrokerId(i64::from(i) + 1)).collect()
}

fn step(h: &mut Harness, r: &mut Reader<'_>) -> Option<()> {
    let tag = r.u8()?;
    let conn = u64::from(r.u8()? % 4);
    match tag % 8 {
        0 => drop(h.input(Input::Closed { conn: ConnId(conn) })),
        1 => {
            h.now += u64::from(r.u16()?) * 8;
            drop(h.input(Input::Timeout));
        }
        2 => match r.frame()? {
            Ok(Some(cmd)) => h.received(conn, cmd),
            Ok(None) => {}
            Err(_) => drop(h.input(Input::Closed { conn: ConnId(conn) })),
        },
        3 => {
            let mut cmd = RemotingCommand { code: r.pick(&CODES)?, ..RemotingCommand::default() };
            cmd.flag = i32::from(r.u8()? % 4);
            cmd = r.fields(cmd, &KEYS, &VALUES)?;
            cmd.body = match r.u8()? % 5 {
                0 => Vec::new(),
                1 => r.short_bytes()?,
                2 => SyncStateSetBody::new(set_of(r.u8()?), i32::from(r.u8()? % 4)).to_json(JsonStyle::Plain),
                3 => format!("[\"{}\"]", r.pick(&NAMES)?).into_bytes(),
                _ => r.pick(&CONFIG)?.as_bytes().to_vec(),
            };
            h.send(conn, cmd);
        }
        4 => {
            let which = r.u8()? % 3;
            let name = r.pick(&NAMES)?;
            let id = (i64::from(r.u8()? % 4) + 1).to_string();
            let slot = r.u8()? % 2;
            let name = ("brokerName", String::from(name));
            let cmd = match which {
                0 => request(1012, &[cluster(), name]),
                1 => {
                    let code = format!("{};1733090000000", addr(conn, slot));
                    request(1013, &[cluster(), name, ("appliedBrokerId", id), ("registerCheckCode", code)])
                }
                _ => request(1003, &[cluster(), name, ("brokerId", id), ("brokerAddress", addr(conn, slot))]),
            };
            h.send(conn, cmd);
        }
        5 => {
            let name = r.pick(&NAMES)?;
            let id = (i64::from(r.u8()? % 4) + 1).to_string();
            let (epoch, offset) = (r.u8()? % 4, r.u16()?);
            let mut cmd = request(
                904,
                &[
                    cluster(),
                    ("brokerName", String::from(name)),
                    ("brokerAddr", addr(conn, 0)),
                    ("brokerId", id),
                    ("epoch", epoch.to_string()),
                    ("maxOffset", offset.to_string()),
                ],
            );
            match r.u8()? % 3 {
                0 => {}
                1 => cmd = cmd.with_field("heartbeatTimeoutMills", "1000"),
                _ => cmd = cmd.with_field("heartbeatTimeoutMills", "60000"),
            }
            if r.u8()? % 2 == 1 {
                cmd = cmd.with_field("electionPriority", "1");
            }
            cmd.flag = if r.u8()? % 4 == 0 { 0 } else { FLAG_ONEWAY };
            h.send(conn, cmd);
        }
        6 => {
            let which = r.u8()? % 5;
            let name = r.pick(&NAMES)?;
            let id = i64::from(r.u8()? % 4) + 1;
            let mask = r.u8()?;
            let sync = h.controller.tables().sync.get(&BrokerName::new(name)).cloned();
            let (master_epoch, set_epoch) = sync.as_ref().map_or((0, 0), |s| (s.master_epoch, s.set_epoch));
            let master = sync.as_ref().and_then(|s| s.master).map_or(id, |m| m.0);
            let broker_name = ("brokerName", String::from(name));
            let cmd = match which {
                0 => {
                    let mut cmd = request(1002, &[cluster(), broker_name, ("brokerId", id.to_string())]);
                    if mask & 1 == 1 {
                        cmd = cmd.with_field("designateElect", "true");
                    }
                    cmd
                }
                1 => request(
                    1001,
                    &[broker_name, ("masterBrokerId", master.to_string()), ("masterEpoch", master_epoch.to_string())],
                )
                .with_body(SyncStateSetBody::new(set_of(mask), set_epoch).to_json(JsonStyle::Plain)),
                2 => {
                    let ids = set_of(mask).iter().map(|id| id.0.to_string()).collect::<Vec<_>>().join(";");
                    let mut cmd = request(1011, &[cluster(), broker_name]);
                    if !ids.is_empty() {
                        cmd = cmd.with_field("brokerControllerIdsToClean", ids);
                    }
                    if mask & 0x80 != 0 {
                        cmd = cmd.with_field("isCleanLivingBroker", "true");
                    }
                    cmd
                }
                3 => request(1004, &[broker_name]),
                _ => request(1006, &[]).with_body(format!("[\"{name}\"]").into_bytes()),
            };
            h.send(conn, cmd);
        }
        _ => match r.u8()? % 7 {
            0 => h.restart(false),
            1 => h.restart(true),
            2 => {
                h.controller.log_mut().set_leading(false);
                drop(h.input(Input::LogProgress));
            }
            3 => {
                h.controller.log_mut().set_leading(true);
                drop(h.input(Input::LogProgress));
            }
            4 => {
                let cmd = request(1009, &[]).with_body(r.pick(&CONFIG)?.as_bytes().to_vec());
                h.send(conn, cmd);
            }
            5 => {
                let len = usize::from(r.u8()?);
                if let Ok(events) = decode_entry(r.bytes(len)) {
                    assert_eq!(decode_entry(&encode_entry(&events)).unwrap(), events);
                }
            }
            _ => {
                let len = usize::from(r.u8()?);
                if let Ok(tables) = ReplicasInfo::from_snapshot(r.bytes(len)) {
                    assert_eq!(ReplicasInfo::from_snapshot(&tables.to_snapshot()).unwrap(), tables);
                }
            }
        },
    }
    Some(())
}

/// Runs one input: a sequence of records (the table above).
///
/// # Panics
/// When a property above breaks.
pub fn run(data: &[u8]) {
    let controller = Controller::new(ControllerConfig::default(), MemoryLog::new("n0"), Instant::ZERO);
    let mut h = Harness { controller, now: 0, opaque: 0, epochs: BTreeMap::new() };
    run_records(&mut h, data, step);
}
