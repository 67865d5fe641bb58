//! `Controller`: the sans-IO machine. Requests are validated against the tables and the
//! heartbeats, their events appended to the [`ReplicatedLog`], and the reply sent once they
//! are committed and applied, one write in flight at a time (Java's single event queue).

use alloc::collections::VecDeque;
use alloc::string::String;

use nameserver_core::protocol::{RemotingCommand, ResponseCode};
use nameserver_core::{BrokerAddr, BrokerId, BrokerName, ConnId, Instant};

use crate::code::ControllerResponseCode;
use crate::config::ControllerConfig;
use crate::event::{decode_entry, encode_entry};
use crate::followed::FollowedEpochs;
use crate::handlers::{Context, Elected, Outcome};
use crate::liveness::{LiveKey, Liveness};
use crate::log::{LogIndex, ReplicatedLog, Snapshot};
use crate::notify::role_changed;
use crate::replicas::ReplicasInfo;
use crate::request::{ControllerRequest, ElectMaster, Heartbeat};

/// The remark of CONTROLLER_NOT_LEADER.
pub const NOT_LEADER_REMARK: &str = "The controller is not in leader state";

/// CONTROLLER_NOT_LEADER, with no header, to the request whose `opaque` `to` carries.
fn not_leader(to: &RemotingCommand) -> RemotingCommand {
    RemotingCommand::response_to(to, ControllerResponseCode::NotLeader.into()).with_remark(NOT_LEADER_REMARK)
}

/// What the driver hands the controller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A decoded command from a connection.
    Received {
        /// The connection.
        conn: ConnId,
        /// The command.
        cmd: RemotingCommand,
    },
    /// A connection closed, failed or idled out (Java's housekeeping treats them alike).
    Closed {
        /// The connection.
        conn: ConnId,
    },
    /// The log committed entries or changed leader (a driver's log that works on its own).
    LogProgress,
    /// The deadline from [`Controller::poll_timeout`] passed.
    Timeout,
}

/// What the controller asks the driver to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// Write a reply on a connection.
    Send {
        /// The connection.
        conn: ConnId,
        /// The reply.
        cmd: RemotingCommand,
    },
    /// Send a oneway NOTIFY_BROKER_ROLE_CHANGED (1008) to a broker's registered address, on a
    /// client connection of the driver's.
    Notify {
        /// The broker's address.
        addr: BrokerAddr,
        /// The request.
        cmd: RemotingCommand,
    },
    /// Close a connection (its broker's heartbeats expired).
    Close {
        /// The connection.
        conn: ConnId,
    },
    /// Write the configuration file (`configStorePath`) with this text, before the reply
    /// that follows.
    PersistConfig {
        /// `key=value` lines.
        text: String,
    },
}

/// Work waiting for the single writer, in order.
#[derive(Clone, Debug)]
enum Task {
    /// A leader-only request.
    Request { conn: ConnId, cmd: RemotingCommand, request: ControllerRequest },
    /// A broker went silent or its connection closed: re-elect if it was the master.
    BrokerInactive { key: LiveKey },
    /// A controller-triggered election with this many attempts left.
    Elect { broker_name: BrokerName, attempts: u32 },
}

/// The write being committed.
#[derive(Debug)]
struct Inflight {
    index: LogIndex,
    reply: Option<(ConnId, RemotingCommand)>,
    elected: Option<Elected>,
    retry: Option<Task>,
}

/// The controller.
#[derive(Debug)]
pub struct Controller<L: ReplicatedLog> {
    pub(crate) config: ControllerConfig,
    pub(crate) log: L,
    pub(crate) tables: ReplicasInfo,
    pub(crate) applied: LogIndex,
    pub(crate) live: Liveness,
    pub(crate) followed: FollowedEpochs,
    queue: VecDeque<Task>,
    inflight: Option<Inflight>,
    pub(crate) outputs: VecDeque<Output>,
    pub(crate) now: Instant,
    pub(crate) serving: bool,
    pub(crate) next_heartbeat_scan: Instant,
    pub(crate) next_master_scan: Option<Instant>,
}

/// The first heartbeat scan comes this long after the start (Java: 2 s).
const FIRST_HEARTBEAT_SCAN_MS: u64 = 2_000;

impl<L: ReplicatedLog> Controller<L> {
    /// A controller started at `now` on `log`: the tables are the log's snapshot and then
    /// every committed entry, replayed.
    ///
    /// # Panics
    /// If the log holds bytes this crate did not write (a damaged log is the driver's to
    /// refuse before it gets here).
    pub fn new(config: ControllerConfig, log: L, now: Instant) -> Self {
        let (tables, applied) = match log.snapshot() {
            Some(snapshot) => (
                ReplicasInfo::from_snapshot(&snapshot.bytes).expect("the log's snapshot was written by this crate"),
                snapshot.index,
            ),
            None => (ReplicasInfo::default(), LogIndex(0)),
        };
        let mut controller = Self {
            next_heartbeat_scan: Instant::from_millis(now.as_millis().saturating_add(FIRST_HEARTBEAT_SCAN_MS)),
            config,
            log,
            tables,
            applied,
            live: Liveness::default(),
            followed: FollowedEpochs::default(),
            queue: VecDeque::new(),
            inflight: None,
            outputs: VecDeque::new(),
            now,
            serving: false,
            next_master_scan: None,
        };
        controller.pump();
        controller
    }

    /// Takes one input at `now` (an earlier `now` than the last is taken as the last).
    pub fn handle(&mut self, now: Instant, input: Input) {
        self.now = self.now.max(now);
        match input {
            Input::Received { conn, cmd } => self.received(conn, cmd),
            Input::Closed { conn } => {
                for key in self.live.close(conn) {
                    self.broker_inactive(key);
                }
            }
            Input::LogProgress | Input::Timeout => {}
        }
        self.run_timers();
        self.pump();
    }

    /// The next thing to do, until `None`.
    pub fn poll_output(&mut self) -> Option<Output> {
        self.outputs.pop_front()
    }

    /// When to deliver [`Input::Timeout`]: the next heartbeat scan, or the leader's next
    /// dead-master scan if that comes first.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        Some(self.next_master_scan.map_or(self.next_heartbeat_scan, |m| m.min(self.next_heartbeat_scan)))
    }

    /// The replica tables, as applied.
    #[must_use]
    pub fn tables(&self) -> &ReplicasInfo {
        &self.tables
    }

    /// This controller's heartbeat table.
    #[must_use]
    pub fn liveness(&self) -> &Liveness {
        &self.live
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &ControllerConfig {
        &self.config
    }

    /// The log.
    #[must_use]
    pub fn log(&self) -> &L {
        &self.log
    }

    /// The log, for a driver whose log takes inputs of its own; follow with
    /// [`Input::LogProgress`].
    pub fn log_mut(&mut self) -> &mut L {
        &mut self.log
    }

    /// Hands the log a snapshot of the tables as applied, so it may drop older entries.
    pub fn snapshot(&mut self) {
        let snapshot = Snapshot { index: self.applied, bytes: self.tables.to_snapshot() };
        self.log.compact(snapshot);
    }

    fn received(&mut self, conn: ConnId, cmd: RemotingCommand) {
        // Java matches a response against its own pending requests and drops one that
        // matches none: no processor sees it, so it is neither served nor answered.
        if cmd.is_response() {
            return;
        }
        let request = ControllerRequest::parse(&cmd);
        if request.leader_only() {
            if self.serving {
                self.queue.push_back(Task::Request { conn, cmd, request });
            } else {
                self.reply(conn, &cmd, not_leader(&cmd));
            }
            return;
        }
        let outcome = self.answer_locally(conn, &cmd, request);
        let reply = build_reply(&cmd, &outcome);
        self.reply(conn, &cmd, reply);
    }

    /// The requests any controller answers from what it holds itself.
    fn answer_locally(&mut self, conn: ConnId, cmd: &RemotingCommand, request: ControllerRequest) -> Outcome {
        match request {
            ControllerRequest::Heartbeat(hb) => match hb.broker_id {
                None => {
                    Outcome::new(ControllerResponseCode::InvalidRequest, None).remark("Heart beat with empty brokerId")
                }
                Some(id) => {
                    self.live.heartbeat(self.now, conn, &hb, id);
                    self.elect_above(&hb, id);
                    Outcome::new(ResponseCode::Success, None).remark("Heart beat success")
                }
            },
            ControllerRequest::GetMetadataInfo => self.metadata(),
            ControllerRequest::GetControllerConfig => {
                let text = nameserver_core::properties::to_plain_text(&self.config.to_properties());
                Outcome::new(ResponseCode::Success, None).body(text.into_bytes())
            }
            ControllerRequest::UpdateControllerConfig { entries } => self.update_config(entries),
            ControllerRequest::Unsupported(code) => Outcome::new(ResponseCode::RequestCodeNotSupported, None)
                .remark(alloc::format!(" request type {} not supported", code.raw())),
            gated => unreachable!("{gated:?} is leader-only and queued, never answered locally ({cmd:?})"),
        }
    }
}

/// The reply to `cmd` that `outcome` describes.
pub(crate) fn build_reply(cmd: &RemotingCommand, outcome: &Outcome) -> RemotingCommand {
    let mut reply = RemotingCommand::response_to(cmd, outcome.code);
    reply.remark.clone_from(&outcome.remark);
    reply.ext_fields.clone_from(&outcome.header);
    reply.body.clone_from(&outcome.body);
    reply
}

impl<L: ReplicatedLog> Controller<L> {
    fn reply(&mut self, conn: ConnId, cmd: &RemotingCommand, reply: RemotingCommand) {
        // Oneway requests get no reply, whatever the handler said.
        if !cmd.is_oneway() {
            self.outputs.push_back(Output::Send { conn, cmd: reply });
        }
    }

    pub(crate) fn context(&self) -> Context<'_> {
        Context {
            now: self.now,
            tables: &self.tables,
            live: &self.live,
            config: &self.config,
            followed: &self.followed,
        }
    }

    /// A replica of a group with a master reports a later epoch than the group's: its epochs
    /// came from another controller (PROTOCOL.md §20.4), and a broker's first election request
    /// overtakes its first heartbeat (Java sends that one from an executor). The leader elects
    /// again, the master staying, above that epoch, so that its HA and its slaves' take it;
    /// only for an epoch [`FollowedEpochs::report`] follows (once per registration, from the
    /// registered replica), so that heartbeats cannot force election after election.
    fn elect_above(&mut self, hb: &Heartbeat, id: BrokerId) {
        let Some(name) = hb.broker_name.as_ref() else { return };
        if !self.serving || !self.followed.report(&self.tables, hb, id) {
            return;
        }
        let has_master = self.tables.sync.get(name).is_some_and(|sync| sync.master.is_some());
        let queued =
            self.queue.iter().any(|task| matches!(task, Task::Elect { broker_name, .. } if broker_name == name));
        if has_master && !queued {
            self.queue.push_back(Task::Elect { broker_name: name.clone(), attempts: 1 });
        }
    }

    fn broker_inactive(&mut self, key: LiveKey) {
        // Quirk Q15: a follower drops it; only the leader's master scan recovers.
        if self.serving {
            self.queue.push_back(Task::BrokerInactive { key });
        }
    }

    fn run_timers(&mut self) {
        if self.now >= self.next_heartbeat_scan {
            let period = self.config.scan_not_active_broker_interval.max(1);
            self.next_heartbeat_scan = next_tick(self.next_heartbeat_scan, period, self.now);
            let mut closed = alloc::collections::BTreeSet::new();
            for (key, conn) in self.live.expire(self.now) {
                // One close per connection, however many entries it carried.
                if closed.insert(conn) {
                    self.outputs.push_back(Output::Close { conn });
                }
                self.broker_inactive(key);
            }
        }
        if let Some(at) = self.next_master_scan.filter(|at| self.now >= *at) {
            let period = self.config.scan_inactive_master_interval.max(1);
            self.next_master_scan = Some(next_tick(at, period, self.now));
            let ctx = self.context();
            let dead: alloc::vec::Vec<BrokerName> = self
                .tables
                .sync
                .iter()
                .filter_map(|(name, sync)| {
                    let master = sync.master?;
                    let (replicas, _) = self.tables.group(name)?;
                    let cluster = replicas.cluster.as_ref();
                    let any_alive = replicas.brokers.keys().any(|id| ctx.alive(cluster, name, *id));
                    (!ctx.alive(cluster, name, master) && any_alive).then(|| name.clone())
                })
                .collect();
            for broker_name in dead {
                self.queue.push_back(Task::Elect { broker_name, attempts: 1 });
            }
        }
    }
}

/// The first tick of a fixed-rate timer after `now`.
fn next_tick(at: Instant, period: u64, now: Instant) -> Instant {
    let behind = now.as_millis().saturating_sub(at.as_millis()) / period;
    Instant::from_millis(at.as_millis().saturating_add(behind.saturating_add(1).saturating_mul(period)))
}

impl<L: ReplicatedLog> Controller<L> {
    /// Applies what committed, follows the leadership, and starts queued work while no write
    /// is in flight.
    fn pump(&mut self) {
        loop {
            self.take_committed();
            self.follow_leadership();
            if self.inflight.is_some() || !self.serving {
                return;
            }
            let Some(task) = self.queue.pop_front() else { return };
            self.start(task);
        }
    }

    fn take_committed(&mut self) {
        while let Some((index, entry)) = self.log.poll_committed() {
            if index <= self.applied {
                continue;
            }
            let events = decode_entry(&entry).expect("every committed entry was written by encode_entry");
            for event in &events {
                self.tables.apply(event);
            }
            self.applied = index;
            if self.inflight.as_ref().is_some_and(|f| f.index == index) {
                let done = self.inflight.take().expect("checked just above");
                self.finish(done);
            }
        }
    }

    fn follow_leadership(&mut self) {
        let serving = self.log.leadership().serving;
        if serving == self.serving {
            return;
        }
        self.serving = serving;
        if serving {
            self.next_master_scan = Some(Instant::from_millis(
                self.now.as_millis().saturating_add(self.config.scan_inactive_master_interval),
            ));
            return;
        }
        // Stepping down: queued and in-flight requests are answered at once (Java lets them
        // time out as SYSTEM_ERROR after 5 s: quirk Q13, fixed).
        self.next_master_scan = None;
        if let Some(Inflight { reply: Some((conn, reply)), .. }) = self.inflight.take() {
            self.outputs.push_back(Output::Send { conn, cmd: not_leader(&reply) });
        }
        for task in core::mem::take(&mut self.queue) {
            if let Task::Request { conn, cmd, .. } = task {
                self.reply(conn, &cmd, not_leader(&cmd));
            }
        }
    }

    fn start(&mut self, task: Task) {
        let (outcome, reply_to, retry) = match task {
            Task::Request { conn, cmd, request } => {
                let outcome = self.validate(&request);
                // A registration (each broker start) may have one reported epoch followed.
                if let ControllerRequest::RegisterBroker {
                    broker_name: Some(name),
                    broker_id: Some(id),
                    broker_address: Some(addr),
                    ..
                } = &request
                    && outcome.code == ResponseCode::Success
                {
                    self.followed.registered(name, *id, addr);
                }
                (outcome, Some((conn, cmd)), None)
            }
            Task::BrokerInactive { key } => {
                let was_master =
                    key.broker_name.as_ref().and_then(|name| self.tables.sync.get(name)).and_then(|s| s.master)
                        == Some(key.broker_id);
                if let (true, Some(broker_name)) = (was_master, key.broker_name) {
                    let attempts = self.config.elect_master_max_retry_count;
                    self.queue.push_front(Task::Elect { broker_name, attempts });
                }
                return;
            }
            Task::Elect { broker_name, attempts } => {
                let outcome = self.context().elect_master(&ElectMaster::by_controller(broker_name.clone()));
                let retry = (outcome.code != ResponseCode::Success && attempts > 1)
                    .then(|| Task::Elect { broker_name, attempts: attempts - 1 });
                (outcome, None, retry)
            }
        };
        let reply = reply_to.map(|(conn, cmd)| {
            let reply = build_reply(&cmd, &outcome);
            (conn, cmd, reply)
        });
        let through_log = !outcome.events.is_empty() || (self.config.process_read_event && reply.is_some());
        if !through_log {
            if let Some((conn, cmd, reply)) = reply {
                self.reply(conn, &cmd, reply);
            }
            if let Some(retry) = retry {
                self.queue.push_back(retry);
            }
            return;
        }
        let reply = reply.and_then(|(conn, cmd, reply)| (!cmd.is_oneway()).then_some((conn, reply)));
        match self.log.append(encode_entry(&outcome.events)) {
            Ok(index) => self.inflight = Some(Inflight { index, reply, elected: outcome.elected, retry }),
            Err(_) => {
                if let Some((conn, reply)) = reply {
                    self.outputs.push_back(Output::Send { conn, cmd: not_leader(&reply) });
                }
            }
        }
    }

    fn finish(&mut self, done: Inflight) {
        if let Some((conn, reply)) = done.reply {
            self.outputs.push_back(Output::Send { conn, cmd: reply });
        }
        if let Some(elected) = done.elected.filter(|_| self.config.notify_broker_role_changed) {
            let (now, live) = (self.now, &self.live);
            let alive = |id| live.is_alive(now, elected.cluster.as_ref(), &elected.broker_name, id);
            for (addr, cmd) in role_changed(&elected, alive) {
                self.outputs.push_back(Output::Notify { addr, cmd });
            }
        }
        if let Some(retry) = done.retry {
            self.queue.push_back(retry);
        }
    }
}
