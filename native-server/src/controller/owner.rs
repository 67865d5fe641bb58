//! The controller's owner: the one task that owns the [`Controller`], as the NameServer's
//! owner owns the `NameServer`.
//!
//! It takes what the controller port's acceptor and connections hand over (the same
//! `Inbound` messages, through its own intake: lanes per connection, taken round robin, in
//! the loop every port's owner runs, `owner_loop.rs`), makes
//! one [`Controller::handle`] call per message or timer, then writes the entries the call
//! appended to the event log as one group with one fsync ([`FileLog::flush`]) and tells the
//! controller they are committed, and only then acts on the outputs: replies go to each
//! connection's queue without waiting, 1008 notices to the brokers' addresses. Time enters
//! the controller only through `handle(now, …)`.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use nameserver_controller::{Controller, Event, Input, Output, ReplicatedLog as _, decode_entry};
use nameserver_core::ConnId;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::file_log::FileLog;
use crate::clock::Clock;
use crate::messages::{ConnHandle, Inbound};
use crate::notify::Notifier;
use crate::observe::{BrokerGroupView, ControllerView, Elections, Observer, ReplicaView};
use crate::owner_loop::Machine;

/// How long after a failed write of the event log it is tried again.
const WRITE_RETRY: Duration = Duration::from_secs(1);

/// The controller owner's state.
#[derive(Debug)]
pub(crate) struct ControllerOwner {
    pub(crate) controller: Controller<FileLog>,
    pub(crate) clock: Clock,
    pub(crate) conns: HashMap<ConnId, ConnHandle>,
    pub(crate) notifier: Notifier,
    /// Where UPDATE_CONTROLLER_CONFIG persists the configuration.
    pub(crate) config_path: PathBuf,
    pub(crate) shutdown: CancellationToken,
    /// The NameServer's observer, where the console reads the controller's view.
    pub(crate) observe: Arc<Observer>,
    /// The controller's listener, for the view.
    pub(crate) address: String,
    pub(crate) elections: Elections,
    /// When to try a failed write of the event log again.
    pub(crate) retry: Option<Instant>,
}

impl Machine for ControllerOwner {
    type Wake = Infallible;

    fn start(&mut self) {
        self.publish();
    }

    fn on_inbound(&mut self, message: Inbound) {
        match message {
            Inbound::Connected { conn, handle, .. } => {
                self.conns.insert(conn, handle);
            }
            Inbound::Received { conn, cmd, .. } => self.step(Input::Received { conn, cmd }),
            // Java's housekeeping treats an idle channel as a closed one.
            Inbound::Idle { conn, .. } => {
                self.close(conn);
                self.step(Input::Closed { conn });
            }
            Inbound::Drained { conn } => {
                // Every reply is sent within its step: dropping the queue lets it flush and close.
                self.conns.remove(&conn);
            }
            Inbound::Disconnected { conn } => {
                self.conns.remove(&conn);
                if !self.shutdown.is_cancelled() {
                    self.step(Input::Closed { conn });
                }
            }
            Inbound::Request { reply, .. } => drop(reply),
            Inbound::AcceptStopped => {}
        }
    }

    fn next_deadline(&self) -> Instant {
        let at = self.controller.poll_timeout().unwrap_or(nameserver_core::Instant::MAX);
        let at = self.clock.deadline(at);
        self.retry.map_or(at, |retry| retry.min(at))
    }

    fn on_timer(&mut self) {
        self.retry = None;
        self.step(Input::Timeout);
    }

    fn wake(&mut self) -> impl Future<Output = Infallible> + Send {
        std::future::pending()
    }

    fn on_wake(&mut self, wake: Infallible) {
        match wake {}
    }

    fn settled(&self) -> bool {
        self.conns.is_empty()
    }
}

impl ControllerOwner {
    /// One `handle` call, the event log written and committed, then the outputs.
    fn step(&mut self, input: Input) {
        // A heartbeat changes nothing the view shows but liveness, which the scans (timers)
        // publish.
        let mut changed = !matches!(input, Input::Received { .. });
        self.controller.handle(self.clock.now(), input);
        changed |= self.commit();
        // Before the replies: whoever hears of a change finds it on the console.
        if changed {
            self.publish();
        }
        while let Some(output) = self.controller.poll_output() {
            match output {
                Output::Send { conn, cmd } => self.send(conn, cmd),
                Output::Notify { addr, cmd } => self.notifier.notify(addr, cmd),
                Output::Close { conn } => self.close(conn),
                Output::PersistConfig { text } => {
                    if let Err(error) = crate::persist::write_atomically(&self.config_path, text.as_bytes()) {
                        tracing::error!(
                            "the controller's configuration could not be written to {}: {error}",
                            self.config_path.display()
                        );
                    }
                }
            }
        }
    }

    /// Writes what the last call appended, one group and one fsync, and hands the controller
    /// the committed entries; a failed write is tried again after [`WRITE_RETRY`] (nothing
    /// is answered meanwhile: the controller has one write in flight). Whether anything was
    /// committed.
    fn commit(&mut self) -> bool {
        let mut committed = false;
        loop {
            let events: Vec<Event> =
                self.controller.log().pending().filter_map(|entry| decode_entry(entry).ok()).flatten().collect();
            if self.controller.log().pending().next().is_none() {
                return committed;
            }
            let log = self.controller.log_mut();
            if let Err(error) = log.flush() {
                tracing::error!(
                    "the controller's event log {} could not be written ({error}); trying again in {WRITE_RETRY:?}",
                    log.path().display()
                );
                self.retry = Some(Instant::now() + WRITE_RETRY);
                return committed;
            }
            committed = true;
            self.count_elections(&events);
            self.controller.handle(self.clock.now(), Input::LogProgress);
        }
    }

    fn count_elections(&mut self, events: &[Event]) {
        for event in events {
            if let Event::ElectMaster { broker_name, new_master } = event {
                let before = self.controller.tables().sync.get(broker_name).and_then(|s| s.master);
                let count = match new_master {
                    None => &mut self.elections.no_master_elected,
                    Some(id) if before == Some(*id) => &mut self.elections.keep_current_master,
                    Some(_) => &mut self.elections.new_master_elected,
                };
                *count += 1;
            }
        }
    }

    fn send(&mut self, conn: ConnId, cmd: nameserver_core::protocol::RemotingCommand) {
        let Some(handle) = self.conns.get(&conn) else { return };
        if handle.deliver(cmd).is_err() {
            self.close(conn);
        }
    }

    /// Closes a connection at once; its task reports `Disconnected` when it is gone.
    fn close(&mut self, conn: ConnId) {
        if let Some(handle) = self.conns.remove(&conn) {
            tracing::debug!("closeChannel: close the controller connection to remote address[{}]", handle.remote);
            handle.close.cancel();
        }
    }

    /// Publishes the view when the tables may have changed or a heartbeat expired.
    fn publish(&mut self) {
        let now = self.clock.now();
        let tables = self.controller.tables();
        let live = self.controller.liveness();
        let config = self.controller.config();
        let broker_groups = tables
            .sync
            .iter()
            .map(|(name, sync)| {
                let replicas = tables.replicas.get(name);
                let cluster = sync.cluster.as_ref().map(|c| c.as_str().to_string());
                let replica_views = replicas
                    .map(|r| {
                        r.brokers
                            .iter()
                            .map(|(id, replica)| ReplicaView {
                                broker_id: id.0,
                                address: replica.addr.as_str().to_string(),
                                alive: live.is_alive(now, sync.cluster.as_ref(), name, *id),
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                BrokerGroupView {
                    cluster,
                    broker_name: name.as_str().to_string(),
                    master_id: sync.master.map(|id| id.0),
                    master_address: sync.master.and_then(|id| tables.address(name, id)).map(|a| a.as_str().to_string()),
                    master_epoch: sync.master_epoch,
                    sync_state_set_epoch: sync.set_epoch,
                    sync_state_set: sync.set.iter().map(|id| id.0).collect(),
                    next_broker_id: replicas.map_or(1, |r| r.next_id),
                    replicas: replica_views,
                }
            })
            .collect();
        let view = ControllerView {
            group: config.group.clone(),
            self_id: config.self_id.clone(),
            address: self.address.clone(),
            is_leader: self.controller.log().leadership().is_leader,
            active_brokers: live.iter().filter(|(_, info)| info.alive_at(now)).count(),
            log_entries: self.controller.log().committed_entries(),
            elections: self.elections,
            broker_groups,
        };
        self.observe.controller.store(Some(Arc::new(view)));
    }
}
