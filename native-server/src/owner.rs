//! The owner: the one task that owns the [`NameServer`], with no lock around it.
//!
//! It waits (in the loop every port's owner runs, `owner_loop.rs`) for whichever comes first
//! — a message on its channel (a new connection, a console request), the next connection's
//! turn in the intake (round robin), the core's [`NameServer::poll_timeout`], a file written,
//! the ten-minute KV print or the shutdown — makes one [`NameServer::handle`] call, publishes
//! a new route snapshot if a route answer changed, and then acts on every [`Output`]. The
//! requests of one turn of its loop (a batch, `owner_loop.rs`) are handled one after another
//! and their outputs held back until the turn's end, when one snapshot publishes what all of
//! them changed: a reply still never goes before the routes it implies are visible. It
//! never waits for a peer: replies go to each connection's bounded queue with `try_send`, and
//! a full queue (in replies or in bytes) closes that connection. File writes are handed to the
//! persistence tasks, which run them on the blocking pool; the replies of a step that changed
//! a file wait until that file is written, so an answered KV put or config update survives a
//! crash (Java writes before it answers too).

use std::collections::{HashMap, HashSet, VecDeque};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use nameserver_core::event::Severity;
use nameserver_core::event_run::EventRun;
use nameserver_core::excerpt::Excerpt;
use nameserver_core::protocol::{RemotingCommand, ResponseCode};
use nameserver_core::{ConnId, Event, Input, NameServer, Output, RequestId};
use tokio::sync::{oneshot, watch};
use tokio::time::{Instant, Sleep};
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::messages::{ConnHandle, Inbound};
use crate::name_warnings::NameWarnings;
use crate::notify::Notifier;
use crate::observe::{OwnerHooks, RouteSample};
use crate::owner_loop::Machine;
use crate::persist::{KvJournal, PersistTarget, Progress};
use crate::snapshot::RouteSnapshot;

/// Java prints the KV table one minute after start, then every ten minutes.
const KV_PRINT_FIRST: Duration = Duration::from_secs(60);
const KV_PRINT_EVERY: Duration = Duration::from_secs(600);

/// The owner task's state.
#[derive(Debug)]
pub(crate) struct Owner {
    ns: NameServer,
    clock: Clock,
    routes: Arc<ArcSwap<RouteSnapshot>>,
    /// Replaced snapshots that a reader still held when they were replaced: freed here once
    /// the readers are done, so that a connection never pays for freeing a snapshot.
    retired: Vec<Arc<RouteSnapshot>>,
    kv_file: KvJournal,
    config_file: PersistTarget,
    /// Cancelled when the server starts shutting down.
    shutdown: CancellationToken,
    conns: HashMap<ConnId, ConnHandle>,
    /// Console requests waiting for their reply, by the id the core answers them with.
    requests: HashMap<RequestId, oneshot::Sender<RemotingCommand>>,
    next_request: u64,
    /// Metrics, events and the view for the HTTP console (inert when it is off).
    console: OwnerHooks,
    /// Replies waiting for a file write, oldest first (generations only grow).
    held: VecDeque<Held>,
    /// Connections that have drained but still wait for held replies.
    draining: HashSet<ConnId>,
    /// Sends NOTIFY_MIN_BROKER_ID_CHANGE to brokers' addresses.
    notifier: Notifier,
    /// Broker and cluster names outside Java's charset, warned about once each.
    names: NameWarnings,
    wakes: Wakes,
    /// Outputs of this turn's requests, waiting for the turn's snapshot ([`Machine::flush`]).
    deferred: Vec<Output>,
    /// This turn has handled a request whose outputs wait.
    batching: bool,
    /// This turn's requests, for the console once their replies have gone.
    answered: Vec<Answered>,
    /// This turn's steps' events, and when each step was.
    deferred_events: Vec<(Vec<EventRun>, nameserver_core::Instant)>,
}

/// A request the owner handled, as the console counts it (`OwnerHooks::answered`).
#[derive(Debug)]
struct Answered {
    conn: Option<ConnId>,
    code: i32,
    response: Option<i32>,
    at: Option<std::time::Instant>,
    sample: Option<RouteSample>,
}

/// What the owner waits for besides messages and the core's deadline.
#[derive(Debug)]
struct Wakes {
    /// The KV writer's progress: held replies may go.
    kv_written: watch::Receiver<Progress>,
    /// The config writer's progress.
    config_written: watch::Receiver<Progress>,
    /// The next print of the KV table.
    kv_print: Pin<Box<Sleep>>,
}

/// Which of [`Wakes`] happened.
#[derive(Debug)]
pub(crate) enum Wake {
    /// A file write progressed.
    Written,
    /// Time to print the KV table.
    PrintKv,
}

/// Who a reply goes to: a connection, or a console request's reply channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum To {
    Conn(ConnId),
    Request(RequestId),
}

/// A reply held until the files it answers for are written.
#[derive(Debug)]
pub(crate) struct Held {
    to: To,
    cmd: RemotingCommand,
    /// The KV and config generations that must be written first.
    kv: u64,
    config: u64,
}

impl Owner {
    /// The owner of `ns`, its files and its route snapshot.
    pub(crate) fn new(
        ns: NameServer,
        clock: Clock,
        routes: Arc<ArcSwap<RouteSnapshot>>,
        (kv_file, config_file): (KvJournal, PersistTarget),
        shutdown: CancellationToken,
        console: OwnerHooks,
    ) -> Self {
        let wakes = Wakes {
            kv_written: kv_file.subscribe(),
            config_written: config_file.subscribe(),
            kv_print: Box::pin(tokio::time::sleep(KV_PRINT_FIRST)),
        };
        Self {
            ns,
            clock,
            routes,
            retired: Vec::new(),
            kv_file,
            config_file,
            shutdown,
            conns: HashMap::new(),
            requests: HashMap::new(),
            next_request: 0,
            console,
            held: VecDeque::new(),
            draining: HashSet::new(),
            notifier: Notifier::spawn("notifyMinBrokerIdChanged"),
            names: NameWarnings::default(),
            wakes,
            deferred: Vec::new(),
            batching: false,
            answered: Vec::new(),
            deferred_events: Vec::new(),
        }
    }
}

impl Machine for Owner {
    type Wake = Wake;

    // The NameServer and the port's rules are given the same limits when the daemon starts.
    const READS_REQUESTS: bool = true;

    fn start(&mut self) {
        self.publish_routes();
        self.console.publish(&self.ns);
    }

    fn on_inbound(&mut self, message: Inbound) {
        // Everything joins the turn's batch but a drained connection, which is let go (or
        // kept for its held replies) once every reply it is owed has been handed over.
        if matches!(message, Inbound::Drained { .. }) {
            self.flush();
        }
        self.batching = true;
        self.handle_inbound(message);
    }

    fn flush(&mut self) {
        if !std::mem::take(&mut self.batching) {
            return;
        }
        self.publish_routes();
        for output in std::mem::take(&mut self.deferred) {
            self.act(output);
        }
        for Answered { conn, code, response, at, sample } in std::mem::take(&mut self.answered) {
            self.console.answered(conn, code, response, at, sample);
        }
        for (events, now) in std::mem::take(&mut self.deferred_events) {
            self.log_events(events, now);
        }
        self.console.publish(&self.ns);
    }

    fn next_deadline(&self) -> Instant {
        // Includes the end of `needWaitForService`, so the snapshot (and /readyz) follow at
        // once rather than at the next scan.
        self.clock.deadline(self.ns.poll_timeout().unwrap_or(nameserver_core::Instant::MAX))
    }

    fn on_timer(&mut self) {
        self.flush();
        self.step(Input::Timeout);
    }

    async fn wake(&mut self) -> Wake {
        let held = !self.held.is_empty();
        let Wakes { kv_written, config_written, kv_print } = &mut self.wakes;
        tokio::select! {
            biased;
            Ok(()) = kv_written.changed(), if held => Wake::Written,
            Ok(()) = config_written.changed(), if held => Wake::Written,
            () = kv_print.as_mut() => Wake::PrintKv,
        }
    }

    fn on_wake(&mut self, wake: Wake) {
        self.flush();
        match wake {
            Wake::Written => self.release(),
            Wake::PrintKv => {
                self.print_kv();
                self.wakes.kv_print.as_mut().reset(Instant::now() + KV_PRINT_EVERY);
            }
        }
    }

    fn settled(&self) -> bool {
        self.conns.is_empty() && self.requests.is_empty()
    }

    /// A clean stop leaves the whole table in kvConfig.json, as Java's NameServer reads it.
    /// (The loop then drops the owner, which lets the persistence tasks flush and end.)
    fn finish(&mut self) {
        self.kv_file.finish();
    }
}

impl Owner {
    fn handle_inbound(&mut self, message: Inbound) {
        match message {
            Inbound::Connected { conn, remote, handle } => {
                self.conns.insert(conn, handle);
                self.console.connected(self.conns.len());
                self.step(Input::Connected { conn, remote });
            }
            Inbound::Received { conn, cmd, parsed, at } => {
                let (code, sample) = (cmd.code, self.console.sample(conn, &cmd, at));
                let reply_to = (!cmd.is_oneway()).then_some((To::Conn(conn), cmd.opaque));
                let input = match parsed {
                    Some(parsed) => Input::Parsed { conn, cmd, parsed },
                    None => Input::Received { conn, cmd },
                };
                let response = self.step_replying(input, reply_to);
                self.answered.push(Answered { conn: Some(conn), code, response, at, sample });
            }
            Inbound::Request { cmd, at, reply } => {
                let id = RequestId(self.next_request);
                self.next_request += 1;
                self.requests.insert(id, reply);
                let code = cmd.code;
                let reply_to = (!cmd.is_oneway()).then_some((To::Request(id), cmd.opaque));
                let response = self.step_replying(Input::Request { id, cmd }, reply_to);
                if response.is_none() {
                    // No reply is coming (and none is held): the console hears that at once.
                    self.requests.remove(&id);
                }
                self.answered.push(Answered { conn: None, code, response, at, sample: None });
            }
            Inbound::Idle { conn, last_io, idle } => self.step(Input::Idle { conn, last_io, idle }),
            Inbound::Drained { conn } => {
                // Once every reply it is owed is queued, dropping the queue lets it flush and
                // close.
                if self.held.iter().any(|held| held.to == To::Conn(conn)) {
                    self.draining.insert(conn);
                } else {
                    self.conns.remove(&conn);
                }
            }
            Inbound::Disconnected { conn } => {
                self.conns.remove(&conn);
                self.draining.remove(&conn);
                self.console.disconnected(conn, self.conns.len());
                // In the drain the tables stay as they stood: a broker's connection the drain
                // closes (nothing owed to it) must not take its routes from replies still owed
                // to others (they got TOPIC_NOT_EXIST).
                if !self.shutdown.is_cancelled() {
                    self.step(Input::Disconnected { conn });
                }
            }
            Inbound::AcceptStopped => {}
        }
    }

    /// One `handle` call, then the snapshot, then the outputs: a reply is never sent before
    /// the routes it implies are visible to every connection. In a batch the snapshot and the
    /// outputs wait for [`Machine::flush`].
    fn step(&mut self, input: Input) {
        self.step_replying(input, None);
    }

    /// [`Self::step`], returning the response code of the reply to `reply_to` (who, opaque)
    /// if the step sent one.
    fn step_replying(&mut self, input: Input, reply_to: Option<(To, i32)>) -> Option<i32> {
        self.ns.handle(self.clock.now(), input);
        if !self.batching {
            self.publish_routes();
        }
        // Files first: the step's replies wait for the generations handed over here. Events
        // (a large registration logs a line per topic, as Java does) are set apart, in the
        // runs the core hands over whole, and logged only after the replies are on their way.
        let mut outputs = Vec::new();
        let mut events: Vec<EventRun> = Vec::new();
        let (mut kv, mut config) = (0, 0);
        while let Some(output) = self.ns.poll_output() {
            match output {
                Output::Events(run) => events.push(run),
                Output::KvChanged(change) => kv = self.kv_file.change(change),
                Output::PersistConfig(bytes) => config = self.config_file.store(bytes),
                output => outputs.push(output),
            }
        }
        let response = outputs.iter().find_map(|output| match (reply_of(output), reply_to) {
            (Some((to, cmd)), Some((asker, opaque))) if to == asker && cmd.is_response() && cmd.opaque == opaque => {
                Some(cmd.code)
            }
            _ => None,
        });
        for output in outputs {
            match output {
                Output::Send { conn, cmd } if kv > 0 || config > 0 => {
                    self.held.push_back(Held { to: To::Conn(conn), cmd, kv, config });
                }
                Output::Answer { id, cmd } if kv > 0 || config > 0 => {
                    self.held.push_back(Held { to: To::Request(id), cmd, kv, config });
                }
                output if self.batching => self.deferred.push(output),
                output => self.act(output),
            }
        }
        let now = self.ns.now();
        if self.batching {
            self.deferred_events.push((events, now));
        } else {
            self.log_events(events, now);
            self.console.publish(&self.ns);
        }
        response
    }

    /// One step's events: logged, and told to the console (its stream too), after the step's
    /// replies are on their way and its routes published.
    fn log_events(&mut self, events: Vec<EventRun>, now: nameserver_core::Instant) {
        // The lines are formatted and written off this thread, unless INFO is off here (then
        // the few WARN lines go through tracing, and nothing else is formatted).
        let handed_over = tracing::enabled!(tracing::Level::INFO) && crate::event_log::started();
        for run in &events {
            run.each(|event| {
                if !handed_over {
                    log_event(event);
                }
                self.names.event(event);
                self.console.event(event, now);
            });
        }
        if handed_over && let Err(events) = crate::event_log::hand_over(events) {
            events.iter().for_each(|run| run.each(log_event));
        }
        self.console.step_done(now);
    }

    /// Sends the held replies whose files are written, in order; a success whose file could
    /// not be written becomes SYSTEM_ERROR (the change is in effect, but in memory only).
    fn release(&mut self) {
        let (kv, config) = (self.kv_file.progress(), self.config_file.progress());
        while self.held.front().is_some_and(|held| held.kv <= kv.done && held.config <= config.done) {
            let Some(Held { to, mut cmd, kv: kv_generation, config: config_generation }) = self.held.pop_front() else {
                break;
            };
            let failed = [("kvConfig", kv_generation, &kv), ("config", config_generation, &config)]
                .into_iter()
                .find(|(_, generation, progress)| *generation > progress.on_disk);
            if let Some((what, _, progress)) = failed
                && cmd.is_response()
                && cmd.response_code() == ResponseCode::Success
            {
                let why = progress.error.map_or_else(|| String::from("unknown error"), |kind| kind.to_string());
                cmd = RemotingCommand::response_to(&cmd, ResponseCode::SystemError).with_remark(format!(
                    "the change holds in memory only: the {what} file could not be written ({why}); it is lost \
                     when the NameServer stops unless a later write succeeds"
                ));
            }
            match to {
                To::Conn(conn) => self.send(conn, cmd),
                To::Request(id) => self.answer(id, cmd),
            }
        }
        let held = &self.held;
        let done: Vec<ConnId> =
            self.draining.iter().copied().filter(|conn| !held.iter().any(|held| held.to == To::Conn(*conn))).collect();
        for conn in done {
            self.draining.remove(&conn);
            self.conns.remove(&conn);
        }
    }

    /// Publishes the next snapshot if an answer changed, and frees the replaced ones nobody
    /// reads any more (a snapshot of many topics takes a while to free: a connection that
    /// happened to drop the last reference would hold its worker meanwhile).
    fn publish_routes(&mut self) {
        if let Some(next) = self.routes.load().advance(&mut self.ns) {
            let replaced = self.routes.swap(Arc::new(next));
            self.retired.push(replaced);
        }
        // Out of the ArcSwap, a snapshot's count only falls: one alone is ours to free.
        self.retired.retain(|snapshot| Arc::strong_count(snapshot) > 1);
    }

    fn act(&mut self, output: Output) {
        match output {
            Output::Send { conn, cmd } => self.send(conn, cmd),
            Output::Answer { id, cmd } => self.answer(id, cmd),
            Output::Close { conn } => self.close(conn),
            Output::NotifyBroker { broker_addr, cmd } => self.notifier.notify(broker_addr, cmd),
            Output::Events(events) => events.into_iter().for_each(|event| self.event(&event)),
            Output::KvChanged(change) => {
                self.kv_file.change(change);
            }
            Output::PersistConfig(bytes) => {
                self.config_file.store(bytes);
            }
        }
    }

    fn event(&mut self, event: &Event) {
        log_event(event);
        self.names.event(event);
        self.console.event(event, self.ns.now());
    }

    /// Hands a console request its reply.
    fn answer(&mut self, id: RequestId, cmd: RemotingCommand) {
        if let Some(reply) = self.requests.remove(&id) {
            // The console may have given up waiting; nothing is lost either way.
            let _ = reply.send(cmd);
        }
    }

    fn send(&mut self, conn: ConnId, cmd: RemotingCommand) {
        let Some(handle) = self.conns.get(&conn) else { return };
        if handle.deliver(cmd).is_err() {
            self.close(conn);
        }
    }

    /// Closes a connection at once; its task reports `Disconnected` when it is gone.
    fn close(&mut self, conn: ConnId) {
        if let Some(handle) = self.conns.remove(&conn) {
            tracing::debug!("closeChannel: close the connection to remote address[{}]", handle.remote);
            handle.close.cancel();
        }
    }

    /// `printAllPeriodically`, in Java's words.
    fn print_kv(&self) {
        let kv = self.ns.kv();
        tracing::info!("--------------------------------------------------------");
        tracing::info!("configTable SIZE: {}", kv.iter().count());
        for (namespace, table) in kv.iter() {
            for (key, value) in table {
                tracing::info!(
                    "configTable NS: {} Key: {} Value: {}",
                    Excerpt(namespace),
                    Excerpt(key),
                    Excerpt(value)
                );
            }
        }
    }
}

/// Who a reply goes to, and the reply (`None`: not a reply).
fn reply_of(output: &Output) -> Option<(To, &RemotingCommand)> {
    match output {
        Output::Send { conn, cmd } => Some((To::Conn(*conn), cmd)),
        Output::Answer { id, cmd } => Some((To::Request(*id), cmd)),
        _ => None,
    }
}

/// Logs an event at the level Java uses for the same line.
fn log_event(event: &Event) {
    match event.kind().severity() {
        Severity::Warn => tracing::warn!("{event}"),
        Severity::Info => tracing::info!("{event}"),
    }
}
