//! The embedded controller (`enableControllerInNamesrv=true`): RocketMQ 5's RIP-44 controller
//! ([`nameserver_controller`]) beside the NameServer, on its own port, as Java's
//! `NamesrvStartup` runs it.
//!
//! - **settings** ([`settings`]): Java's `ControllerConfig` keys from the `-c` file, checked
//!   before anything listens.
//! - **port**: the port of this controller's own entry of `controllerDLegerPeers`, a `Port`
//!   as the NameServer's (`port.rs`: the same acceptor, connection tasks and owner loop) with
//!   the NameServer port's rules: the connection limit, TLS mode and certificate, idle close,
//!   the per-source caps, PROXY headers and deadlines, the request rules (`--auth`). Only route
//!   queries are not answered there (no route snapshot), and a graceful shutdown's GO_AWAY is
//!   the NameServer port's alone: brokers keep heartbeating the controller until the drain.
//! - **event log** ([`file_log`]): entries written and fsynced per committed group, replayed
//!   at start.
//! - **owner** (`owner.rs`): the one task that drives the controller, publishes its view for
//!   the console and sends NOTIFY_BROKER_ROLE_CHANGED (1008) to brokers.

pub mod file_log;
mod owner;
pub mod settings;

use std::collections::HashMap;
use std::io;
use std::sync::Arc;

use arc_swap::ArcSwap;
use nameserver_controller::Controller;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use self::file_log::FileLog;
use self::owner::ControllerOwner;
use self::settings::ControllerSettings;
use crate::clock::Clock;
use crate::notify::Notifier;
use crate::observe::{Elections, Observer};
use crate::port::{Own, Port, Rules};
use crate::snapshot::RouteSnapshot;

/// Messages that may wait on the controller owner's channel (new connections).
const INBOUND_QUEUE: usize = 1024;

/// The controller's port, bound, with its settings and its event log opened (so that a
/// damaged log stops the daemon before anything listens).
#[derive(Debug)]
pub struct ControllerPort {
    /// The listener (the binary binds `bindAddress` and the port of its peers entry).
    pub listener: TcpListener,
    /// The settings.
    pub settings: ControllerSettings,
    /// The event log, read.
    pub log: FileLog,
}

impl ControllerPort {
    /// Opens the event log of `settings` and takes `listener` for the controller.
    ///
    /// # Errors
    /// The log cannot be opened, or is damaged ([`file_log::OpenError`]).
    pub fn open(listener: TcpListener, settings: ControllerSettings) -> Result<Self, file_log::OpenError> {
        let (log, replayed) = FileLog::open(&settings.log_path(), &settings.config.self_id)?;
        if replayed.torn > 0 {
            tracing::warn!(
                "the controller's event log {} ends in a torn record ({} bytes after {} whole entries: an append cut \
                 short by a crash, never answered); dropped",
                log.path().display(),
                replayed.torn,
                replayed.entries
            );
        }
        tracing::info!("the controller's event log {}: {} entries to replay", log.path().display(), replayed.entries);
        Ok(Self { listener, settings, log })
    }
}

/// Starts the controller's port: its owner and acceptor, with the NameServer port's `rules`,
/// on `clock`; the console finds its view in `namesrv_observe`.
pub(crate) fn start(
    port: ControllerPort,
    rules: &Rules,
    clock: Clock,
    namesrv_observe: Arc<Observer>,
) -> io::Result<Port> {
    let ControllerPort { listener, settings, log } = port;
    let address = listener.local_addr()?;
    // The port's own counters and connection table: its connection ids start at 1 too.
    let routes = Arc::new(ArcSwap::from_pointee(RouteSnapshot::empty()));
    let observe = Arc::new(Observer::new(false, routes, clock, rules.idle, Vec::new()));
    let controller = Controller::new(settings.config.clone(), log, clock.now());
    tracing::info!(
        "the controller {} of group {} serves on {address}: {} broker groups replayed",
        settings.config.self_id,
        settings.config.group,
        controller.tables().sync.len()
    );
    let owner = ControllerOwner {
        controller,
        clock,
        conns: HashMap::new(),
        notifier: Notifier::spawn("notifyBrokerRoleChanged"),
        config_path: settings.config_path.clone(),
        shutdown: rules.stop.clone(),
        observe: namesrv_observe,
        address: address.to_string(),
        elections: Elections::default(),
        retry: None,
    };
    // No route snapshot, and a graceful shutdown's GO_AWAY is the NameServer port's alone.
    let own = Own {
        observe,
        routes: None,
        going_away: crate::going_away::GoingAway::default(),
        inbound: mpsc::channel(INBOUND_QUEUE),
    };
    Ok(Port::start(listener, rules, own, owner))
}
