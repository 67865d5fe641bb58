//! The embedded controller (`enableControllerInNamesrv=true`): RocketMQ 5's RIP-44 controller
//! ([`nameserver_controller`]) beside the NameServer, on its own port, as Java's
//! `NamesrvStartup` runs it.
//!
//! - **settings** ([`settings`]): Java's `ControllerConfig` keys from the `-c` file, checked
//!   before anything listens.
//! - **port**: the port of this controller's own entry of `controllerDLegerPeers`, served by
//!   the NameServer's own acceptor and connection code (`listener.rs`, `conn.rs`) with the
//!   NameServer port's rules: the connection limit, TLS mode and certificate, idle close, the
//!   per-source caps, PROXY headers and deadlines, the request rules (`--auth`). Only route
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
use std::time::Duration;

use arc_swap::ArcSwap;
use nameserver_controller::Controller;
use nameserver_core::codec::Limits;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use self::file_log::FileLog;
use self::owner::ControllerOwner;
use self::settings::ControllerSettings;
use crate::clock::Clock;
use crate::conn::Shared;
use crate::intake::Intake;
use crate::notify::Notifier;
use crate::observe::{Elections, Observer};
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

/// What the controller port shares with the NameServer's port.
#[derive(Debug)]
pub(crate) struct PortRules {
    pub(crate) limits: Limits,
    pub(crate) idle: Option<Duration>,
    pub(crate) tls: Arc<crate::tls::reload::TlsPort>,
    pub(crate) auth: Arc<crate::acl::Auth>,
    pub(crate) fairness: crate::source::Fairness,
    pub(crate) max_connections: usize,
    pub(crate) outbound_queue: usize,
    pub(crate) stop: CancellationToken,
    pub(crate) force_close: CancellationToken,
    pub(crate) clock: Clock,
    /// The NameServer's observer, where the console finds the controller's view.
    pub(crate) observe: Arc<Observer>,
}

/// The controller's tasks.
#[derive(Debug)]
pub(crate) struct Running {
    acceptor: JoinHandle<()>,
    owner: JoinHandle<()>,
    limit: Arc<Semaphore>,
    permits: u32,
}

/// Starts the controller's acceptor and owner.
pub(crate) fn start(port: ControllerPort, rules: PortRules) -> io::Result<Running> {
    let ControllerPort { listener, settings, log } = port;
    let address = listener.local_addr()?;
    let PortRules {
        limits,
        idle,
        tls,
        auth,
        fairness,
        max_connections,
        outbound_queue,
        stop,
        force_close,
        clock,
        observe: namesrv_observe,
    } = rules;
    // The port's own counters and connection table: its connection ids start at 1 too.
    let routes = Arc::new(ArcSwap::from_pointee(RouteSnapshot::empty()));
    let observe = Arc::new(Observer::new(false, routes, clock, idle, Vec::new()));
    let intake = Arc::new(Intake::new(Arc::clone(&observe)));
    let (inbound, inbound_rx) = mpsc::channel(INBOUND_QUEUE);
    let shared = Arc::new(Shared {
        owner: inbound,
        intake: Arc::clone(&intake),
        routes: None,
        limits,
        idle,
        shutdown: stop.clone(),
        going_away: CancellationToken::new(),
        force_close: force_close.clone(),
        observe,
        tls,
        auth,
        fairness,
    });
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
        shutdown: stop,
        force_close,
        observe: namesrv_observe,
        address: address.to_string(),
        elections: Elections::default(),
        retry: None,
    };
    // As the NameServer's owner: a thread of its own on a multi-thread runtime (it fsyncs).
    let runtime = tokio::runtime::Handle::current();
    let owner = match runtime.runtime_flavor() {
        tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::spawn_blocking(move || runtime.block_on(owner.run(inbound_rx, intake)))
        }
        _ => tokio::spawn(owner.run(inbound_rx, intake)),
    };
    let permits = u32::try_from(max_connections.clamp(1, Semaphore::MAX_PERMITS)).unwrap_or(u32::MAX);
    let limit = Arc::new(Semaphore::new(permits as usize));
    let acceptor = tokio::spawn(crate::listener::accept(listener, shared, Arc::clone(&limit), outbound_queue));
    Ok(Running { acceptor, owner, limit, permits })
}

impl Running {
    /// Waits for the controller's tasks after the stop: the owner answers what it took, then
    /// every connection writes what it is owed; past `deadline`, `close_the_rest` closes them.
    pub(crate) async fn finish(self, deadline: tokio::time::Instant, close_the_rest: impl Fn()) -> io::Result<()> {
        let Self { acceptor, mut owner, limit, permits } = self;
        let owner_result = match tokio::time::timeout_at(deadline, &mut owner).await {
            Ok(result) => result,
            Err(_elapsed) => {
                close_the_rest();
                owner.await
            }
        };
        acceptor.await.map_err(io::Error::other)?;
        if tokio::time::timeout_at(deadline, limit.acquire_many(permits)).await.is_err() {
            close_the_rest();
            let _ = limit.acquire_many(permits).await;
        }
        owner_result.map_err(io::Error::other)
    }
}
