//! One RocketMQ-protocol port and the tasks behind it, the NameServer's and the embedded
//! controller's alike: the acceptor (`listener.rs`), a task per connection (`conn.rs`) and
//! the owner, which drives the port's state machine (`owner_loop.rs`).
//!
//! Every port keeps the same [`Rules`] (the connection limit, frame limits, TLS mode and
//! certificate, idle close, the per-source caps, PROXY headers and deadlines, the request
//! rules), each with counts of its own; it is started ([`Port::start`]) and drained at
//! shutdown ([`Port::finish`]) the same way.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use nameserver_core::codec::Limits;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, mpsc};
use tokio::task::{JoinError, JoinHandle};
use tokio_util::sync::CancellationToken;

use crate::acl::Auth;
use crate::conn::Shared;
use crate::intake::Intake;
use crate::messages::Inbound;
use crate::observe::Observer;
use crate::owner_loop::{self, Machine};
use crate::snapshot::RouteSnapshot;
use crate::source::{Fairness, SourceList};
use crate::tls::reload::TlsPort;

/// What every port of one daemon obeys.
#[derive(Clone, Debug)]
pub(crate) struct Rules {
    /// Frame and body limits.
    pub(crate) limits: Limits,
    /// `serverChannelMaxIdleTimeSeconds`; `None` when 0.
    pub(crate) idle: Option<Duration>,
    /// `tls.server.mode` and the certificate in use.
    pub(crate) tls: Arc<TlsPort>,
    /// Who may send what (`--acl-file`, `--auth`, `--allow-from`).
    pub(crate) auth: Arc<Auth>,
    /// `--proxy-protocol-from`.
    pub(crate) proxies: SourceList,
    /// `--per-source-exempt`.
    pub(crate) exempt: SourceList,
    /// `--max-connections-per-source` (`None`: the default).
    pub(crate) per_source: Option<usize>,
    /// The handshake and frame deadline.
    pub(crate) io_deadline: Duration,
    /// Connections served at once, per port.
    pub(crate) max_connections: usize,
    /// Replies that may wait for one peer.
    pub(crate) outbound_queue: usize,
    /// Cancelled when the drain begins.
    pub(crate) stop: CancellationToken,
    /// Cancelled when the shutdown grace period is over.
    pub(crate) force_close: CancellationToken,
}

/// What is a port's own besides its machine.
#[derive(Debug)]
pub(crate) struct Own {
    /// Its counters and connection table.
    pub(crate) observe: Arc<Observer>,
    /// The route snapshot its connections answer from (`None`: they answer no route query).
    pub(crate) routes: Option<Arc<ArcSwap<RouteSnapshot>>>,
    /// Begun while a graceful shutdown still serves: newer clients get GO_AWAY.
    pub(crate) going_away: crate::going_away::GoingAway,
    /// The owner's channel: its sender (the acceptor's, and the console's), its receiver.
    pub(crate) inbound: (mpsc::Sender<Inbound>, mpsc::Receiver<Inbound>),
}

/// A port's running tasks.
#[derive(Debug)]
pub(crate) struct Port {
    acceptor: JoinHandle<()>,
    owner: JoinHandle<()>,
    /// How the owner ended, once it has (see [`Self::ended`]).
    ended: Option<Result<(), JoinError>>,
    /// Every connection holds a permit: all of them back means every connection has ended.
    limit: Arc<Semaphore>,
    permits: u32,
}

impl Port {
    /// Starts the owner of `machine` and the acceptor on `listener`.
    pub(crate) fn start<M: Machine>(listener: TcpListener, rules: &Rules, own: Own, machine: M) -> Self {
        let Own { observe, routes, going_away, inbound: (owner, inbound) } = own;
        let intake = Arc::new(Intake::new(Arc::clone(&observe)));
        let shared = Arc::new(Shared {
            owner,
            intake: Arc::clone(&intake),
            routes,
            limits: rules.limits,
            reads: M::READS_REQUESTS,
            reading_heavy: std::sync::atomic::AtomicBool::new(false),
            idle: rules.idle,
            shutdown: rules.stop.clone(),
            going_away,
            force_close: rules.force_close.clone(),
            observe,
            tls: Arc::clone(&rules.tls),
            auth: Arc::clone(&rules.auth),
            fairness: Fairness::new(
                rules.proxies.clone(),
                rules.exempt.clone(),
                rules.per_source,
                rules.max_connections,
                rules.io_deadline,
            ),
        });
        let run = owner_loop::run(machine, inbound, intake, rules.stop.clone(), rules.force_close.clone());
        // On a multi-thread runtime the owner gets a thread of its own: one long step (a
        // registration of a million topics takes seconds; the controller fsyncs) must not hold
        // a worker, or I/O readiness may stop being polled and route queries on every
        // connection wait for it. A current-thread runtime (tests) has no other worker to keep
        // free.
        let runtime = tokio::runtime::Handle::current();
        let owner = match runtime.runtime_flavor() {
            tokio::runtime::RuntimeFlavor::MultiThread => tokio::task::spawn_blocking(move || runtime.block_on(run)),
            _ => tokio::spawn(run),
        };
        let permits = u32::try_from(rules.max_connections.clamp(1, Semaphore::MAX_PERMITS)).unwrap_or(u32::MAX);
        let limit = Arc::new(Semaphore::new(permits as usize));
        let acceptor =
            tokio::spawn(crate::listener::accept(listener, shared, Arc::clone(&limit), rules.outbound_queue));
        Self { acceptor, owner, ended: None, limit, permits }
    }

    /// Resolves if the owner ends before the drain (it panicked); [`Self::finish`] reports it.
    pub(crate) async fn ended(&mut self) {
        if self.ended.is_none() {
            self.ended = Some((&mut self.owner).await);
        }
    }

    /// Whether the owner has ended, as [`Self::ended`] saw.
    pub(crate) fn has_ended(&self) -> bool {
        self.ended.is_some()
    }

    /// Waits for the port's tasks after the stop: the owner answers what it took, then every
    /// connection writes what it is owed; past `deadline`, `close_the_rest` closes them. The
    /// outer error: the acceptor panicked; the inner one, how the owner ended, for the caller
    /// to report when it is done.
    pub(crate) async fn finish(
        self,
        deadline: tokio::time::Instant,
        close_the_rest: &impl Fn(),
    ) -> io::Result<io::Result<()>> {
        let Self { acceptor, mut owner, ended, limit, permits } = self;
        let owner_result = match ended {
            Some(result) => result,
            None => match tokio::time::timeout_at(deadline, &mut owner).await {
                Ok(result) => result,
                Err(_elapsed) => {
                    close_the_rest();
                    owner.await
                }
            },
        };
        acceptor.await.map_err(io::Error::other)?;
        // The owner has handed every connection its replies; let them write those out.
        if tokio::time::timeout_at(deadline, limit.acquire_many(permits)).await.is_err() {
            close_the_rest();
            let _ = limit.acquire_many(permits).await;
        }
        Ok(owner_result.map_err(io::Error::other))
    }
}
