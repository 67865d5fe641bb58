//! Controller request load (issue 36): N connections, each keeping D requests in flight (closed
//! loop) on an embedded RIP-44 controller's port, a warm-up then a measured window, every
//! reply's code checked.
//!
//! A [`Workload`] is what each slot sends:
//! - `heartbeat`: BROKER_HEARTBEAT (904), two-way (brokers send it oneway every second; Java
//!   answers a two-way one too), round robin over the replicas of the groups formed first;
//! - `replica-info`: CONTROLLER_GET_REPLICA_INFO (1004) over those groups, as every broker asks
//!   every 5 s;
//! - `sync-state`: CONTROLLER_GET_SYNC_STATE_DATA (1006) naming one group, as `mqadmin
//!   getSyncStateSet` asks;
//! - `join`: a two-replica group forming under a fresh name, the ten dependent requests of
//!   [`join_step`]; four of them (1013 twice, 1002, 1001) write the controller's log.
//!
//! Every reply must be SUCCESS: any other code is an error, counted by code, and a join whose
//! step fails is dropped (its slot starts a fresh group). Before the load, `groups` groups form
//! on one connection, one request at a time; it stays open until they are cleaned (1011) after
//! the load, because a controller takes a replica for dead when the connection of its first
//! heartbeat closes, and would then elect.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use bytes::BytesMut;
use clap::{Args, ValueEnum};
use tokio::net::TcpStream;

use crate::closed_loop::{ClosedLoop, Slots, drive};
use crate::route::{Errors, Phases};
use crate::stats::Latencies;
use crate::storm::codes_text;
use nameserver_controller::{ControllerRequestCode as Code, ControllerResponseCode};
use nameserver_core::codec;
use nameserver_core::protocol::{LanguageCode, RemotingCommand};
use nameserver_testkit::frames::{CLIENT_VERSION, CLUSTER, OPAQUE_BASE, Template};
use nameserver_testkit::scan::{Conn, Reply, WireError};

/// What the load sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Workload {
    /// BROKER_HEARTBEAT (904) of the groups' replicas, round robin.
    Heartbeat,
    /// CONTROLLER_GET_REPLICA_INFO (1004) of the groups, round robin.
    ReplicaInfo,
    /// CONTROLLER_GET_SYNC_STATE_DATA (1006) of one group each, round robin.
    SyncState,
    /// Fresh two-replica groups forming (1012, 1013, 1003, 904, 1002; 1012, 1013, 1003, 904, 1001).
    Join,
}

impl Workload {
    /// The name on the command line and in `scripts/bench.sh`'s measures.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Heartbeat => "heartbeat",
            Self::ReplicaInfo => "replica-info",
            Self::SyncState => "sync-state",
            Self::Join => "join",
        }
    }
}

/// The shape of a controller load (`loadgen controller`).
#[derive(Clone, Debug, Args)]
pub struct ControllerLoad {
    /// What each request slot sends
    #[arg(long, value_enum)]
    pub workload: Workload,
    /// Connections
    #[arg(long, default_value_t = 16)]
    pub conns: usize,
    /// Requests in flight per connection
    #[arg(long, default_value_t = 4)]
    pub depth: usize,
    /// Broker groups (two replicas each, the second in the in-sync set) formed before the load;
    /// the join workload forms its own
    #[arg(long, default_value_t = 64)]
    pub groups: usize,
    /// Warm-up before measuring (a JIT's, for Java)
    #[arg(long, default_value_t = 2000)]
    pub warmup_ms: u64,
    /// Measured time
    #[arg(long, default_value_t = 10_000)]
    pub duration_ms: u64,
    /// Longest wait for the controller to serve (Java's answers CONTROLLER_NOT_LEADER until its
    /// DLedger leader is elected)
    #[arg(long, default_value_t = 120_000)]
    pub ready_ms: u64,
}

/// How many requests one join sends ([`join_step`] `0..JOIN_STEPS`).
pub const JOIN_STEPS: usize = 10;
/// The `registerCheckCode` time every replica applies with (the part after `;`).
const STARTED: &str = "1764000000000";
/// The heartbeat timeout the replicas claim: no replica expires during a run; the closing of
/// the connection of its first heartbeat is what ends it.
const HEARTBEAT_TIMEOUT_MS: &str = "600000";

/// A controller request as a controller-mode broker (a 5.x Java client) sends it.
fn request(code: Code, fields: &[(&str, &str)]) -> RemotingCommand {
    let mut cmd = RemotingCommand { code: code.raw(), ..RemotingCommand::default() };
    cmd.language = LanguageCode::Java;
    cmd.version = CLIENT_VERSION;
    fields.iter().fold(cmd, |cmd, (k, v)| cmd.with_field(k, *v))
}

/// Replica `id`'s address: nobody dials it (the bench turns notifications off).
fn replica_addr(id: i64) -> String {
    format!("127.0.0.{id}:30911")
}

/// BROKER_HEARTBEAT of replica `id` of `group`, which knows master epoch `epoch` (0 before its
/// group's first election: a replica reporting a later epoch than its group's makes the
/// controller elect above it).
#[must_use]
pub fn heartbeat(group: &str, id: i64, epoch: i32) -> RemotingCommand {
    let (addr, id, epoch) = (replica_addr(id), id.to_string(), epoch.to_string());
    request(
        Code::BrokerHeartbeat,
        &[
            ("clusterName", CLUSTER),
            ("brokerName", group),
            ("brokerAddr", &addr),
            ("brokerId", &id),
            ("epoch", &epoch),
            ("maxOffset", "100"),
            ("confirmOffset", "100"),
            ("heartbeatTimeoutMills", HEARTBEAT_TIMEOUT_MS),
            ("electionPriority", "1"),
        ],
    )
}

/// CONTROLLER_GET_REPLICA_INFO of `group`.
#[must_use]
pub fn replica_info(group: &str) -> RemotingCommand {
    request(Code::GetReplicaInfo, &[("brokerName", group)])
}

/// CONTROLLER_GET_SYNC_STATE_DATA naming `group` (the body is a JSON list of names).
#[must_use]
pub fn sync_state(group: &str) -> RemotingCommand {
    request(Code::GetSyncStateData, &[]).with_body(format!("[\"{group}\"]").into_bytes())
}

/// CLEAN_BROKER_DATA of the whole of `group`, its replicas alive or not.
#[must_use]
pub fn clean(group: &str) -> RemotingCommand {
    request(Code::CleanBrokerData, &[("clusterName", CLUSTER), ("brokerName", group), ("isCleanLivingBroker", "true")])
}

/// Step `step` of `group` forming, as its two brokers start: replica 1 asks for an id (1012),
/// applies for it (1013), registers (1003), heartbeats (904) and, the group having no master,
/// asks for an election, which makes it master at epoch 1 (1002); replica 2 does the same up to
/// its heartbeat, then the master adds it to the in-sync set (1001). `None` past the last step.
#[must_use]
pub fn join_step(group: &str, step: usize) -> Option<RemotingCommand> {
    let id: i64 = if step < JOIN_STEPS / 2 { 1 } else { 2 };
    let (addr, id_text) = (replica_addr(id), id.to_string());
    let cmd = match (step % (JOIN_STEPS / 2), id) {
        _ if step >= JOIN_STEPS => return None,
        (0, _) => request(Code::GetNextBrokerId, &[("clusterName", CLUSTER), ("brokerName", group)]),
        (1, _) => {
            let check_code = format!("{addr};{STARTED}");
            let fields = [
                ("clusterName", CLUSTER),
                ("brokerName", group),
                ("appliedBrokerId", id_text.as_str()),
                ("registerCheckCode", check_code.as_str()),
            ];
            request(Code::ApplyBrokerId, &fields)
        }
        (2, _) => {
            let fields = [
                ("clusterName", CLUSTER),
                ("brokerName", group),
                ("brokerId", id_text.as_str()),
                ("brokerAddress", addr.as_str()),
            ];
            request(Code::RegisterBroker, &fields)
        }
        // Replica 1 before the election knows no epoch; replica 2 joins after it.
        (3, _) => heartbeat(group, id, if id == 1 { 0 } else { 1 }),
        (_, 1) => request(
            Code::ElectMaster,
            &[("clusterName", CLUSTER), ("brokerName", group), ("brokerId", "1"), ("designateElect", "false")],
        ),
        _ => request(Code::AlterSyncStateSet, &[("brokerName", group), ("masterBrokerId", "1"), ("masterEpoch", "1")])
            .with_body(br#"{"syncStateSet":[1,2],"syncStateSetEpoch":1}"#.to_vec()),
    };
    Some(cmd)
}

/// The group names of one run: a prefix of its own, so that runs against one controller never
/// share a group.
#[derive(Clone, Debug)]
pub struct Names {
    prefix: String,
}

impl Names {
    /// Names under `ctl-bench-<run>`.
    #[must_use]
    pub fn new(run: u64) -> Self {
        Self { prefix: format!("ctl-bench-{run:x}") }
    }

    /// Names unlike any earlier run's (from the clock and the process id).
    #[must_use]
    pub fn fresh() -> Self {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos();
        Self::new((nanos as u64) ^ u64::from(std::process::id()).rotate_left(40))
    }

    /// Group `i` of those formed before the load.
    #[must_use]
    pub fn group(&self, i: usize) -> String {
        format!("{}-g{i}", self.prefix)
    }

    /// The `n`th group connection `conn` forms in the join workload.
    #[must_use]
    pub fn joining(&self, conn: usize, n: u64) -> String {
        format!("{}-c{conn}-{n}", self.prefix)
    }
}

/// The requests of a steady workload over `groups` formed groups (`None` for the join).
#[must_use]
pub fn steady_requests(workload: Workload, names: &Names, groups: usize) -> Option<Vec<RemotingCommand>> {
    let groups = (0..groups.max(1)).map(|i| names.group(i));
    Some(match workload {
        Workload::Heartbeat => groups.flat_map(|g| [heartbeat(&g, 1, 1), heartbeat(&g, 2, 1)]).collect(),
        Workload::ReplicaInfo => groups.map(|g| replica_info(&g)).collect(),
        Workload::SyncState => groups.map(|g| sync_state(&g)).collect(),
        Workload::Join => return None,
    })
}

/// What one window (the warm-up or the measured one) saw.
#[derive(Clone, Debug, Default)]
pub struct Window {
    /// Replies (of any code) that arrived in the window.
    pub completed: u64,
    /// Joins whose last reply arrived in the window.
    pub joins: u64,
    /// The window's length.
    pub length: Duration,
    /// Latencies of the requests sent in the window.
    pub latencies: Latencies,
    /// Errors: connections and lost requests in the warm-up's window; codes other than
    /// SUCCESS in the window their request was sent in.
    pub errors: Errors,
}

impl Window {
    /// Replies per second.
    #[must_use]
    pub fn qps(&self) -> f64 {
        self.completed as f64 / self.length.as_secs_f64().max(1e-9)
    }

    /// Joins per second.
    #[must_use]
    pub fn joins_per_s(&self) -> f64 {
        self.joins as f64 / self.length.as_secs_f64().max(1e-9)
    }

    fn merge(&mut self, other: &Self) {
        self.completed += other.completed;
        self.joins += other.joins;
        self.latencies.merge(&other.latencies);
        self.errors.merge(&other.errors);
    }
}

/// What a controller load measured.
#[derive(Clone, Debug, Default)]
pub struct ControllerResult {
    /// From the first connect attempt until the controller served.
    pub ready: Duration,
    /// Forming the groups.
    pub setup: Duration,
    /// The warm-up.
    pub warmup: Window,
    /// The measured window.
    pub measured: Window,
    /// Cleaning requests (1011) after the load not answered SUCCESS.
    pub cleanup_errors: u64,
}

impl ControllerResult {
    /// Every error of the run.
    #[must_use]
    pub fn errors(&self) -> u64 {
        self.warmup.errors.total() + self.measured.errors.total() + self.cleanup_errors
    }

    /// The `CONTROLLER key=value …` measurement line.
    #[must_use]
    pub fn line(&self, load: &ControllerLoad, label: &str) -> String {
        let (m, w) = (&self.measured, &self.warmup);
        let mut codes = w.errors.codes.clone();
        for (code, n) in &m.errors.codes {
            *codes.entry(*code).or_default() += n;
        }
        let joins =
            if load.workload == Workload::Join { format!("{:.1}", m.joins_per_s()) } else { String::from("nan") };
        let groups = if load.workload == Workload::Join { 0 } else { load.groups.max(1) };
        format!(
            "CONTROLLER label={label} workload={} conns={} depth={} groups={groups} qps={:.0} completed={} \
             joins_per_s={joins} {} errors={} io={} lost={} protocol={} bad_codes={} cleanup_errors={} ready_ms={} \
             setup_ms={} warmup_ms={} duration_ms={} warmup_qps={:.0} warmup_p99_us={:.1}",
            load.workload.name(),
            load.conns,
            load.depth,
            m.qps(),
            m.completed,
            m.latencies.summary(),
            self.errors(),
            w.errors.io + m.errors.io,
            w.errors.lost + m.errors.lost,
            w.errors.protocol + m.errors.protocol,
            codes_text(&codes),
            self.cleanup_errors,
            crate::stats::ms(self.ready),
            crate::stats::ms(self.setup),
            load.warmup_ms,
            load.duration_ms,
            w.qps(),
            w.latencies.summary().p99_us
        )
    }
}

/// Waits until the controller serves, forms the groups, runs the load and cleans the groups.
///
/// # Errors
/// The controller does not serve within `ready_ms`, or a group cannot be formed.
pub async fn run(addr: SocketAddr, load: &ControllerLoad, timeout: Duration) -> anyhow::Result<ControllerResult> {
    let names = Arc::new(Names::fresh());
    let ready = await_serving(addr, &names, Duration::from_millis(load.ready_ms), timeout).await?;
    let started = Instant::now();
    let steady = steady_requests(load.workload, &names, load.groups);
    let keeper = match steady {
        Some(_) => Some(form_groups(addr, &names, load.groups.max(1), timeout).await?),
        None => None,
    };
    let setup = started.elapsed();
    let templates: Option<Arc<[Template]>> = steady.map(|cmds| cmds.iter().map(Template::new).collect());
    let phases = Arc::new(Phases::window(
        Instant::now(),
        Duration::from_millis(load.warmup_ms),
        Duration::from_millis(load.duration_ms.max(1)),
    ));
    let tasks: Vec<_> = (0..load.conns.max(1))
        .map(|i| {
            let work = match &templates {
                Some(templates) => Work::Cycle { templates: Arc::clone(templates), next: i * 7919 % templates.len() },
                None => Work::Join { names: Arc::clone(&names), conn: i, started: 0 },
            };
            let mut conn = LoadConn::new(work, load.depth.max(1), Arc::clone(&phases));
            tokio::spawn(async move {
                match TcpStream::connect(addr).await.and_then(|s| s.set_nodelay(true).map(|()| s)) {
                    Ok(stream) => drive(&mut conn, stream, BytesMut::with_capacity(64 * 1024), timeout).await,
                    Err(_) => conn.windows[0].errors.io += 1,
                }
                conn.windows
            })
        })
        .collect();
    let mut windows = [Window::default(), Window::default()];
    for task in tasks {
        match task.await {
            Ok(theirs) => {
                for (sum, one) in windows.iter_mut().zip(&theirs) {
                    sum.merge(one);
                }
            }
            Err(_) => windows[0].errors.io += 1,
        }
    }
    for (i, window) in windows.iter_mut().enumerate() {
        window.length = phases.length(i);
    }
    let [warmup, measured] = windows;
    let mut cleanup_errors = 0;
    if let Some(mut keeper) = keeper {
        for i in 0..load.groups.max(1) {
            let ok = call(&mut keeper, clean(&names.group(i)), timeout).await.is_ok_and(|code| code == 0);
            cleanup_errors += u64::from(!ok);
        }
    }
    Ok(ControllerResult { ready, setup, warmup, measured, cleanup_errors })
}

/// Sends `cmd` on `conn` and returns the reply's code.
async fn call(conn: &mut Conn, mut cmd: RemotingCommand, timeout: Duration) -> Result<i32, WireError> {
    cmd.opaque = OPAQUE_BASE;
    let frame = codec::encode_to_vec(&cmd).map_err(|_| WireError::Malformed("a request too large to encode"))?;
    Ok(conn.call(&frame, timeout).await?.0.code)
}

/// Polls with CONTROLLER_GET_REPLICA_INFO of a group nobody formed until the answer is not
/// CONTROLLER_NOT_LEADER (an unknown group's answer, 2008, is a served one); returns how long
/// that took.
async fn await_serving(
    addr: SocketAddr,
    names: &Names,
    within: Duration,
    timeout: Duration,
) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let not_leader = ControllerResponseCode::NotLeader.raw();
    loop {
        let last = match Conn::connect(addr).await {
            Ok(mut conn) => match call(&mut conn, replica_info(&names.group(usize::MAX)), timeout).await {
                Ok(code) if code != not_leader => return Ok(started.elapsed()),
                Ok(code) => format!("code {code}"),
                Err(e) => e.to_string(),
            },
            Err(e) => e.to_string(),
        };
        if started.elapsed() >= within {
            bail!("the controller at {addr} did not serve within {within:?} (last: {last})");
        }
        // Nothing announces a DLedger leader's election: look again shortly.
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Forms groups `0..groups` on one connection, one request at a time, and returns the
/// connection (every replica's first heartbeat came on it).
async fn form_groups(addr: SocketAddr, names: &Names, groups: usize, timeout: Duration) -> anyhow::Result<Conn> {
    let mut conn = Conn::connect(addr).await.with_context(|| format!("connecting to the controller at {addr}"))?;
    for i in 0..groups {
        let group = names.group(i);
        for step in 0..JOIN_STEPS {
            let cmd = join_step(&group, step).context("a join step in range")?;
            let request_code = cmd.code;
            let code = call(&mut conn, cmd, timeout).await.with_context(|| format!("forming {group}, step {step}"))?;
            if code != 0 {
                bail!("forming {group}: step {step} (request code {request_code}) answered {code}");
            }
        }
    }
    Ok(conn)
}

/// What a connection's slots send.
#[derive(Debug)]
enum Work {
    /// The same requests round robin, encoded once.
    Cycle { templates: Arc<[Template]>, next: usize },
    /// Each slot forms fresh groups, one join after another.
    Join { names: Arc<Names>, conn: usize, started: u64 },
}

/// One connection of the load: `depth` slots, each sending its next request when the reply
/// to its last one arrives (as [`crate::route`]'s connections do).
#[derive(Debug)]
struct LoadConn {
    work: Work,
    phases: Arc<Phases>,
    slots: Slots,
    /// Each slot's join in progress: its group and the step sent last.
    joins: Vec<Option<(String, usize)>>,
    /// The warm-up and the measured window; connection errors go to the first.
    windows: [Window; 2],
}

impl LoadConn {
    fn new(work: Work, depth: usize, phases: Arc<Phases>) -> Self {
        Self {
            work,
            phases,
            slots: Slots::new(depth, 512),
            joins: vec![None; depth],
            windows: [Window::default(), Window::default()],
        }
    }

    /// Queues slot `slot`'s next request; its opaque says which slot it is.
    fn push(&mut self, slot: usize, now: Instant) {
        let opaque = self.slots.send(slot, now);
        match &mut self.work {
            Work::Cycle { templates, next } => {
                templates[*next].append(opaque, &mut self.slots.out);
                *next = (*next + 1) % templates.len();
            }
            Work::Join { names, conn, started } => {
                let (group, step) = self.joins[slot].get_or_insert_with(|| {
                    *started += 1;
                    (names.joining(*conn, *started), 0)
                });
                // A join is dropped after its last step, so the step is always in range.
                let mut cmd = join_step(group, *step).expect("a join in progress has a next step");
                cmd.opaque = opaque;
                codec::encode(&cmd, &mut self.slots.out).expect("a join request is a few hundred bytes");
            }
        }
    }

    /// Checks one reply and sends the slot's next request while the load lasts.
    fn on_reply(&mut self, code: i32, opaque: i32, now: Instant, phase: Option<usize>) {
        let Some((slot, sent)) = self.slots.answer(opaque) else {
            self.windows[0].errors.protocol += 1;
            return;
        };
        if let Some(at) = phase {
            self.windows[at].completed += 1;
        }
        let sent_in = self.phases.at(sent);
        if let Some(sent_in) = sent_in {
            self.windows[sent_in].latencies.record(now - sent);
        }
        self.windows[sent_in.unwrap_or(0)].errors.reply_code(code);
        let join = &mut self.joins[slot];
        if let Some((_, step)) = join {
            *step += 1;
            let done = code == 0 && *step == JOIN_STEPS;
            if let (true, Some(at)) = (done, phase) {
                self.windows[at].joins += 1;
            }
            if done || code != 0 {
                *join = None;
            }
        }
        if phase.is_some() {
            self.push(slot, now);
        }
    }
}

impl ClosedLoop for LoadConn {
    fn slots(&mut self) -> &mut Slots {
        &mut self.slots
    }

    fn push(&mut self, slot: usize, now: Instant) {
        Self::push(self, slot, now);
    }

    fn errors(&mut self) -> &mut Errors {
        &mut self.windows[0].errors
    }

    fn phase(&self, now: Instant) -> Option<usize> {
        self.phases.at(now)
    }

    fn reply(&mut self, reply: &Reply, now: Instant, phase: Option<usize>) {
        // A controller sends brokers requests of its own (1008); none is an answer.
        if reply.is_response() {
            self.on_reply(reply.code, reply.opaque, now, phase);
        }
    }
}

#[cfg(test)]
mod tests;
