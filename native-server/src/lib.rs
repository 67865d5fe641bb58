//! The RocketMQ NameServer daemon: [`nameserver_core`] driven by tokio over TCP.
//!
//! This crate is the `nameserver` binary, a drop-in replacement for Java's `mqnamesrv`, and
//! the library behind it, so that tests (and anything else) can start a server on any
//! listener with [`run`]. Real brokers register with it and real producers, consumers and
//! admin tools get their routes from it. All NameServer behaviour lives in the core; this
//! crate moves bytes, keeps time, writes files and logs.
//!
//! # Tasks
//!
//! ```text
//!                        ┌─────────────── owner (one task) ────────────────┐
//!  acceptor ──Connected─▶│ the only NameServer: handle, poll_output, timers │──KvChanged─────▶ KV writer (journal)
//!  connection ─Received─▶│ publishes a RouteSnapshot per turn of changes    │──PersistConfig─▶ config writer
//!  connection ◀─replies──│ try_send into bounded per-connection queues      │  (blocking pool, in order;
//!                        └────────────────────────┬─────────────────────────┘   config: latest wins)
//!                                                 ▼ ArcSwap<RouteSnapshot>
//!  connection tasks answer GET_ROUTEINFO_BY_TOPIC from the snapshot, on every core, without the owner
//! ```
//!
//! - **acceptor** ([`listener`]): takes a connection-limit permit, accepts, names the
//!   connection, tells the owner, then starts the connection task.
//! - **connection** (`conn.rs`, one per peer): decodes frames with the core codec, answers
//!   route queries (GET_ROUTEINFO_BY_TOPIC, the bulk of all traffic) from the latest
//!   [`snapshot`] (which holds every topic's route; the first connection to ask writes a
//!   route's JSON, shared from then on), hands everything else to the owner through its lane
//!   of the intake (`intake.rs`: at most 64 requests per connection, taken round robin; a full
//!   lane stops that connection reading, a full intake answers SYSTEM_BUSY), writes replies,
//!   detects idleness.
//! - **owner** (`owner.rs`, one): owns the `NameServer` with no lock; one `handle` call per
//!   message or timer, then a new route snapshot if an answer changed, then the outputs. It
//!   never waits for a peer: a full reply queue closes that peer; a reply to a request that
//!   changed a file waits until the file is written. On a multi-thread runtime it has a
//!   thread of its own, so a long step (a huge registration) never holds a worker.
//! - **writers** ([`persist`], one per file): the KV changes appended to
//!   `kvConfig.json.journal` (one fsync per group) and `kvConfig.json` written whole when the
//!   journal outgrows it, at start after a replay and at a clean stop; crash-safe writes of the
//!   configuration file.
//! - **HTTP console** ([`http`], optional, its own listener): the page, read-only JSON views
//!   and an event stream built from a view the owner publishes after each change, metrics
//!   counted lock-free by the connections, `/healthz`, `/readyz` and the address server. It reads
//!   snapshots and never waits on the owner. A token-authorised KV write goes to the owner as
//!   a request with its own reply channel, not as a connection. With peers (`--http-peers`)
//!   one task per peer reads that peer's console and publishes how the two differ
//!   (`/api/peers`, metrics).
//!
//! The acceptor, the connections and the owner's loop (`owner_loop.rs`) make a port
//! (`port.rs`); the embedded controller's ([`controller`]) is another, with the same rules.
//!
//! Modules are layered without cycles (the test kit's `tests/module_layers.rs` checks it): the
//! messages the tasks exchange (`messages.rs`: `Inbound`, `ConnHandle`) and what they publish
//! for the console (`observe/`: metrics, the event bus, the view, each connection's last I/O)
//! sit below the acceptor, the connections, the owner and the console, which import them and
//! not each other.
//!
//! The binary adds the command line ([`args`]), the KV load ([`load_kv`]), logging through
//! `tracing` to stderr and Java's log files ([`logging`]), [`bind`] and the signal handlers ([`shutdown`]); [`serve`] is [`run`] with the
//! HTTP console.
//!
//! # Shutdown
//!
//! When the `shutdown` future of [`run`] resolves and [`ServerConfig::go_away_window`] is set
//! (`enableShutdownGracefully`), the server first serves on for that long as before, except
//! that a request from a client newer than V5_3_1 gets GO_AWAY (a oneway one is dropped),
//! as Java 5.5.0 does (PROTOCOL.md §4). Then the acceptor stops, every connection stops
//! reading (after taking in what had already arrived), the owner answers all of it, each
//! connection writes what it is owed and closes, the last file contents are written, and
//! [`run`] returns. Connections still busy after [`ServerConfig::shutdown_grace`] are closed.
//! The HTTP console answers throughout, `/readyz` with 503 from the moment shutdown begins
//! until the connections are done and the last file is written, whether the drain ended by
//! itself or at the deadline; then it stops accepting, answers what it took (up to a second)
//! and closes.

pub mod acl;
pub mod args;
mod clock;
pub mod config_keys;
mod conn;
pub mod controller;
mod event_log;
pub mod exposure;
mod going_away;
mod handshake;
pub mod http;
mod intake;
pub mod listener;
pub mod logging;
mod messages;
mod name_warnings;
mod notify;
mod observe;
pub mod open_files;
mod owner;
mod owner_loop;
pub mod persist;
mod port;
mod proxy;
mod rolling_file;
pub mod shutdown;
pub mod snapshot;
pub mod source;
#[cfg(feature = "test-hooks")]
pub mod test_hooks;
pub mod tls;
mod traffic_log;
pub mod user_home;
pub mod version;
mod watch;

use std::future::Future;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use nameserver_core::codec::Limits;
use nameserver_core::config::RemoteConfig;
use nameserver_core::{Config, KvConfig, NameServer};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::owner::Owner;
use crate::persist::{KvJournal, PersistTarget};
use crate::snapshot::RouteSnapshot;

pub use crate::listener::bind;
pub use crate::persist::load_kv;

/// Default for [`ServerConfig::max_connections`].
pub const DEFAULT_MAX_CONNECTIONS: usize = 10_000;
/// Default for [`ServerConfig::outbound_queue`].
pub const DEFAULT_OUTBOUND_QUEUE: usize = 1024;
/// How long the console may take, once the rest has stopped, to answer the requests it accepted.
const CONSOLE_FINISH: Duration = Duration::from_secs(1);

/// Default for [`ServerConfig::io_deadline`].
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(10);

/// Default for [`ServerConfig::shutdown_grace`].
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(5);
/// Messages that may wait on the owner's channel (new connections, console requests; what
/// connections hand over waits in their lanes, `intake.rs`).
const INBOUND_QUEUE: usize = 4096;

/// Everything [`run`] needs besides the listener.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Every NamesrvConfig and NettyServerConfig key: file paths, scan interval, idle time,
    /// switches.
    pub namesrv: Config,
    /// The KV table at start (see [`load_kv`]).
    pub kv: KvConfig,
    /// The frame limit, and the limit on decompressed registration bodies.
    pub limits: Limits,
    /// Connections served at once; more peers wait in the listen backlog.
    pub max_connections: usize,
    /// Replies that may wait for one peer; when a peer leaves this many unread it is closed.
    pub outbound_queue: usize,
    /// How long a shutdown waits for connections to be answered before closing them.
    pub shutdown_grace: Duration,
    /// How long a shutdown keeps serving before that drain, answering GO_AWAY to clients
    /// newer than V5_3_1 (`None`: none; the binary takes `shutdownWaitTimeSeconds` when
    /// `enableShutdownGracefully` is true, see [`config_keys::go_away_window`]).
    pub go_away_window: Option<Duration>,
    /// Cancelled: the GO_AWAY window ends at once (the binary: a second SIGINT or SIGTERM).
    pub go_away_cut_short: CancellationToken,
    /// TLS on the RocketMQ port ([`tls::TlsConfig::disabled`] unless set; the binary takes
    /// Java's defaults and `-D`/`tls.config.file`).
    pub tls: tls::TlsConfig,
    /// Peers whose connections must start with a PROXY protocol header, the only ones whose
    /// header is read (`--proxy-protocol-from`; empty: PROXY headers are refused).
    pub proxy_protocol_from: source::SourceList,
    /// Connections one address may hold at once (`None`: a tenth of `max_connections`); an
    /// IPv6 /64 may hold [`source::NETWORK_SHARES`] times that, at most `max_connections`.
    pub max_connections_per_source: Option<usize>,
    /// Sources the per-source cap does not apply to (`--per-source-exempt`).
    pub per_source_exempt: source::SourceList,
    /// How long after the accept a PROXY header and a TLS handshake must be done; a frame
    /// gets this plus a second per 64 KiB it announces.
    pub io_deadline: Duration,
    /// Which keys UPDATE_NAMESRV_CONFIG may change (`--remote-config`; Java: all).
    pub remote_config: RemoteConfig,
    /// Who may send what (`--acl-file`, `--auth`, `--allow-from`; default: everyone
    /// everything, as Java).
    pub auth: acl::AuthConfig,
    /// Log, once a second, the codes of the commands read and written (target
    /// `RocketmqTraffic`) and what waits for the owner (target `RocketmqNamesrvWaterMark`), the
    /// lines of Java's `namesrv_traffic.log` and `namesrv_default.log`; the binary sets it when
    /// it writes those files ([`logging`]).
    pub traffic_log: bool,
    /// At most this many bytes of route bodies are kept once built (`--route-cache-bytes`);
    /// the least recently asked for are built again when next asked for.
    pub route_cache_bytes: usize,
}

impl ServerConfig {
    /// `namesrv` and `kv` with the default limits.
    #[must_use]
    pub fn new(namesrv: Config, kv: KvConfig) -> Self {
        Self {
            namesrv,
            kv,
            limits: Limits::DEFAULT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            outbound_queue: DEFAULT_OUTBOUND_QUEUE,
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
            go_away_window: None,
            go_away_cut_short: CancellationToken::new(),
            tls: tls::TlsConfig::disabled(),
            proxy_protocol_from: source::SourceList::default(),
            max_connections_per_source: None,
            per_source_exempt: source::SourceList::default(),
            io_deadline: DEFAULT_DEADLINE,
            remote_config: RemoteConfig::Runtime,
            auth: acl::AuthConfig::open(),
            traffic_log: false,
            route_cache_bytes: snapshot::DEFAULT_ROUTE_CACHE_BYTES,
        }
    }
}

/// The console's certificate: the RocketMQ port's, or with TLS disabled there, one of its own
/// from the same settings (reloaded the same way until `quit`).
fn console_tls(
    settings: &tls::TlsConfig,
    port: &Arc<tls::reload::TlsPort>,
    loaded: &Option<tls::Loaded>,
    quit: &CancellationToken,
) -> io::Result<Arc<tls::reload::TlsPort>> {
    if loaded.is_some() {
        return Ok(Arc::clone(port));
    }
    let settings = tls::TlsConfig { mode: tls::TlsMode::Enforcing, ..settings.clone() };
    let (port, loaded) =
        tls::reload::TlsPort::new(&settings).map_err(|error| io::Error::other(format!("TLS (--http-tls): {error}")))?;
    let port = Arc::new(port);
    if let Some(loaded) = loaded {
        tokio::spawn(tls::reload::watch(settings, Arc::clone(&port), loaded, quit.clone()));
    }
    Ok(port)
}

/// Serves RocketMQ peers on `listener` until `shutdown` resolves, then shuts down gracefully
/// (see the crate docs) and returns.
///
/// # Errors
/// A task of the server panicked. A failed write of the KV or configuration file is not an
/// error here: it is logged and counted when it happens, as Java does (see [`persist`]).
pub async fn run(listener: TcpListener, config: ServerConfig, shutdown: impl Future) -> io::Result<()> {
    serve(listener, None, config, shutdown).await
}

/// [`run`], plus the HTTP console ([`http`]) when `console` is given; it stops with the rest.
///
/// # Errors
/// As [`run`], the TLS certificate could not be loaded, or the console's listener failed.
pub async fn serve(
    listener: TcpListener,
    console: Option<http::Console>,
    config: ServerConfig,
    shutdown: impl Future,
) -> io::Result<()> {
    serve_with_controller(listener, console, None, config, shutdown).await
}

/// [`serve`], plus the embedded controller on its own port when `controller` is given
/// (`enableControllerInNamesrv=true`, see [`controller`]); it stops with the rest.
///
/// # Errors
/// As [`serve`].
pub async fn serve_with_controller(
    listener: TcpListener,
    console: Option<http::Console>,
    controller: Option<controller::ControllerPort>,
    config: ServerConfig,
    shutdown: impl Future,
) -> io::Result<()> {
    let rocketmq_addr = listener.local_addr()?;
    let ServerConfig {
        namesrv,
        kv,
        limits,
        max_connections,
        outbound_queue,
        shutdown_grace,
        go_away_window,
        go_away_cut_short,
        tls,
        proxy_protocol_from,
        max_connections_per_source,
        per_source_exempt,
        io_deadline,
        remote_config,
        auth,
        traffic_log,
        route_cache_bytes,
    } = config;
    let (tls_port, loaded) =
        tls::reload::TlsPort::new(&tls).map_err(|error| io::Error::other(format!("TLS: {error}")))?;
    if tls.mode != tls::TlsMode::Disabled {
        tracing::info!("Server is running in TLS {} mode", tls.mode.name());
    }
    let tls_port = Arc::new(tls_port);
    let stop = CancellationToken::new();
    // Cancelled when the shutdown begins: the console says 503 from then on, through the
    // GO_AWAY window (`going_away`, only with `go_away_window`) and the drain (`stop`).
    let begun = CancellationToken::new();
    let going_away = going_away::GoingAway::default();
    if let Some(loaded) = loaded.clone() {
        tokio::spawn(tls::reload::watch(tls.clone(), Arc::clone(&tls_port), loaded, stop.clone()));
    }
    let acl::AuthConfig { rules, acl_file, accounts, acl_bytes } = auth;
    let auth = Arc::new(acl::Auth::new(rules, accounts));
    if let Some(path) = acl_file {
        tokio::spawn(acl::watch(path, acl_bytes, Arc::clone(&auth), stop.clone()));
    }
    let force_close = CancellationToken::new();
    let routes = Arc::new(ArcSwap::from_pointee(RouteSnapshot::with_cache_bytes(route_cache_bytes)));
    let (kv_file, kv_writer) = KvJournal::spawn(PathBuf::from(&namesrv.kv_config_path), &kv);
    let (config_file, config_writer) = PersistTarget::spawn(PathBuf::from(&namesrv.config_store_path), "config");
    let (inbound, inbound_rx) = mpsc::channel(INBOUND_QUEUE);
    let idle = Some(Duration::from_secs(namesrv.server_channel_max_idle_time_seconds)).filter(|d| !d.is_zero());
    let clock = Clock::start();
    let write_failures = vec![("kvConfig", kv_file.failures()), ("config", config_file.failures())];
    let mut observer = observe::Observer::new(console.is_some(), Arc::clone(&routes), clock, idle, write_failures);
    observer.kv_journal = kv_file.stats();
    observer.traffic = observe::Traffic::new(traffic_log);
    let observe = Arc::new(observer);
    // The console outlives the stop: /readyz says 503 until the drain and the files are done.
    let http_quit = CancellationToken::new();
    let http = match console {
        Some(console) => {
            let console_tls =
                if console.options.tls { Some(console_tls(&tls, &tls_port, &loaded, &http_quit)?) } else { None };
            let serve = http::serve(
                console,
                console_tls,
                Arc::clone(&observe),
                inbound.clone(),
                rocketmq_addr,
                begun.clone(),
                http_quit.clone(),
            );
            Some(tokio::spawn(serve))
        }
        None => None,
    };
    let rules = port::Rules {
        limits,
        idle,
        tls: tls_port,
        auth,
        proxies: proxy_protocol_from,
        exempt: per_source_exempt,
        per_source: max_connections_per_source,
        io_deadline,
        max_connections,
        outbound_queue,
        stop: stop.clone(),
        force_close: force_close.clone(),
    };
    let controller = match controller {
        Some(port) => Some(controller::start(port, &rules, clock, Arc::clone(&observe))?),
        None => None,
    };
    // Until the console stops: the last part-second's traffic is logged at the very end.
    let traffic_lines = traffic_log
        .then(|| tokio::spawn(traffic_log::run(Arc::clone(&observe), rocketmq_addr.port(), http_quit.clone())));

    let ns = NameServer::new(namesrv, kv, clock.now()).with_limits(limits).with_remote_config(remote_config);
    let owner = Owner::new(
        ns,
        clock,
        Arc::clone(&routes),
        (kv_file, config_file),
        stop.clone(),
        observe::OwnerHooks::new(Arc::clone(&observe)),
    );
    let own =
        port::Own { observe, routes: Some(routes), going_away: going_away.clone(), inbound: (inbound, inbound_rx) };
    let mut namesrv_port = port::Port::start(listener, &rules, own, owner);

    tokio::select! {
        _ = shutdown => {}
        () = namesrv_port.ended() => {}
    }
    begun.cancel();
    if let (false, Some(window)) = (namesrv_port.has_ended(), go_away_window) {
        // Java's graceful shutdown: serve on for the window, newer clients told to go away.
        tracing::info!(
            "shutdown: serving for {window:?} more, answering GO_AWAY (1500) to clients newer than V5_3_1; then \
             draining"
        );
        going_away.begin();
        let end = clock::after(tokio::time::Instant::now(), window);
        tokio::select! {
            () = tokio::time::sleep_until(end) => {}
            () = go_away_cut_short.cancelled() => {}
            () = namesrv_port.ended() => {}
        }
        tracing::info!("shutdown: the GO_AWAY window is over; draining");
    }
    stop.cancel();
    let deadline = clock::after(tokio::time::Instant::now(), shutdown_grace);
    let close_the_rest = || {
        if !force_close.is_cancelled() {
            tracing::warn!("shutdown: connections still busy after {shutdown_grace:?}, closing them");
            force_close.cancel();
        }
    };
    let owner_result = namesrv_port.finish(deadline, &close_the_rest).await?;
    if let Some(controller) = controller {
        controller.finish(deadline, &close_the_rest).await??;
    }
    // The last file contents go out before the console stops saying 503.
    let writers = (kv_writer.await, config_writer.await);
    http_quit.cancel();
    if let Some(traffic_lines) = traffic_lines {
        traffic_lines.await.map_err(io::Error::other)?;
    }
    if let Some(mut http) = http {
        // It stops accepting at once; the requests it took get a moment to be answered,
        // whether the drain ended by itself or at the deadline.
        match tokio::time::timeout(CONSOLE_FINISH, &mut http).await {
            Ok(result) => result.map_err(io::Error::other)??,
            Err(_elapsed) => http.abort(),
        }
    }
    owner_result?;
    writers.0.map_err(io::Error::other)?;
    writers.1.map_err(io::Error::other)?;
    tracing::info!("the NameServer has shut down");
    Ok(())
}
