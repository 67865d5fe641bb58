//! A fleet of brokers: each registers its topics on its own connection, keeps that
//! connection open and registers again every period, as real brokers do every 30 s.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use tokio::sync::watch;
use tokio::task::JoinSet;

use nameserver_testkit::frames::{self, BrokerSpec, OPAQUE_BASE, OPAQUE_SPAN, Template};
use nameserver_testkit::scan::Conn;

/// What a fleet is made of.
#[derive(Clone, Debug)]
pub struct FleetSpec {
    /// The NameServer.
    pub addr: SocketAddr,
    /// Number of brokers.
    pub brokers: usize,
    /// Topics per broker: every broker serves topics `0..topics`.
    pub topics: usize,
    /// Queue counts vary over this many values (see [`frames::register_body`]).
    pub queue_spread: usize,
    /// Compressed registration bodies instead of JSON.
    pub compressed: bool,
    /// Time between registrations of one broker.
    pub period: Duration,
    /// How long a registration may take.
    pub timeout: Duration,
    /// Most first registrations in flight at once while starting.
    pub in_flight: usize,
}

/// Brokers registered and holding their connections open.
#[derive(Debug)]
pub struct Fleet {
    stop: watch::Sender<bool>,
    tasks: JoinSet<()>,
    registrations: Arc<AtomicU64>,
    errors: Arc<AtomicU64>,
    answered: Vec<Instant>,
}

/// What a fleet did while it ran.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FleetReport {
    /// Registrations answered with SUCCESS.
    pub registrations: u64,
    /// Registrations that failed or were refused.
    pub errors: u64,
}

impl Fleet {
    /// Builds every broker's registration frame (body, CRC, header) ahead of time, so that
    /// starting the fleet only writes them: a measurement that starts its clock before
    /// [`Prepared::start`] does not count the generator encoding 100 × 1.7 MB.
    #[must_use]
    pub fn prepare(spec: &FleetSpec) -> Prepared {
        let body =
            frames::encode_register_body(&frames::register_body(spec.topics, spec.queue_spread), spec.compressed);
        let frames = (0..spec.brokers)
            .map(|i| {
                let broker = BrokerSpec::fleet(i);
                let cmd = frames::register_command(&broker, &body, spec.compressed, OPAQUE_BASE);
                (broker, Template::with_body(&cmd, &body))
            })
            .collect();
        Prepared { spec: spec.clone(), frames }
    }

    /// [`Self::prepare`], then [`Prepared::start`].
    ///
    /// # Errors
    /// As [`Prepared::start`].
    pub async fn start(spec: &FleetSpec) -> anyhow::Result<Self> {
        Self::prepare(spec).start().await
    }

    /// When each broker's first registration was answered, in order.
    #[must_use]
    pub fn answered(&self) -> &[Instant] {
        &self.answered
    }

    /// Closes every broker connection.
    pub async fn stop(mut self) -> FleetReport {
        let _ = self.stop.send(true);
        while self.tasks.join_next().await.is_some() {}
        FleetReport {
            registrations: self.registrations.load(Ordering::Relaxed),
            errors: self.errors.load(Ordering::Relaxed),
        }
    }
}

/// A fleet whose registration frames are built, not yet connected.
#[derive(Debug)]
pub struct Prepared {
    spec: FleetSpec,
    frames: Vec<(BrokerSpec, Template)>,
}

impl Prepared {
    /// Connects every broker and returns once each one's first registration was answered
    /// with SUCCESS (at most [`FleetSpec::in_flight`] registrations are in flight while
    /// starting). The brokers' tasks run on the runtime this is called on.
    ///
    /// # Errors
    /// A broker cannot connect or its first registration fails.
    pub async fn start(self) -> anyhow::Result<Fleet> {
        let Self { spec, frames } = self;
        let (stop, stopped) = watch::channel(false);
        let registrations = Arc::new(AtomicU64::new(0));
        let errors = Arc::new(AtomicU64::new(0));
        let mut tasks = JoinSet::new();
        let gate = Arc::new(tokio::sync::Semaphore::new(spec.in_flight.max(1)));
        let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel(spec.brokers.max(1));
        for (broker, frame) in frames {
            let mut broker = Broker {
                spec: broker,
                addr: spec.addr,
                frame,
                registered: 0,
                period: spec.period,
                timeout: spec.timeout,
                registrations: Arc::clone(&registrations),
                errors: Arc::clone(&errors),
            };
            let (gate, ready, stopped) = (Arc::clone(&gate), ready_tx.clone(), stopped.clone());
            tasks.spawn(async move {
                let first = {
                    let _permit = gate.acquire().await;
                    broker.first().await
                };
                match first {
                    Ok(conn) => {
                        let _ = ready.send(Ok(())).await;
                        broker.keep(conn, stopped).await;
                    }
                    Err(error) => {
                        let _ = ready.send(Err(error)).await;
                    }
                }
            });
        }
        drop(ready_tx);
        let mut answered = Vec::with_capacity(spec.brokers);
        for _ in 0..spec.brokers {
            match ready_rx.recv().await {
                Some(Ok(())) => answered.push(Instant::now()),
                Some(Err(error)) => return Err(error),
                None => bail!("a broker task ended before registering"),
            }
        }
        Ok(Fleet { stop, tasks, registrations, errors, answered })
    }
}

struct Broker {
    spec: BrokerSpec,
    addr: SocketAddr,
    /// The registration frame, built once; only its opaque changes.
    frame: Template,
    /// Registrations sent so far.
    registered: u32,
    period: Duration,
    timeout: Duration,
    registrations: Arc<AtomicU64>,
    errors: Arc<AtomicU64>,
}

impl Broker {
    async fn register(&mut self, conn: &mut Conn) -> anyhow::Result<()> {
        self.registered = (self.registered + 1) % OPAQUE_SPAN;
        self.frame.set_opaque(OPAQUE_BASE.saturating_add_unsigned(self.registered));
        let (reply, _) = conn
            .call(self.frame.bytes(), self.timeout)
            .await
            .with_context(|| format!("{} registering", self.spec.name))?;
        if reply.code != 0 {
            bail!("{} registration answered with code {}", self.spec.name, reply.code);
        }
        self.registrations.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    async fn first(&mut self) -> anyhow::Result<Conn> {
        let mut conn = Conn::connect(self.addr).await.with_context(|| format!("connecting to {}", self.addr))?;
        self.register(&mut conn).await?;
        Ok(conn)
    }

    async fn keep(&mut self, mut conn: Conn, mut stopped: watch::Receiver<bool>) {
        loop {
            tokio::select! {
                () = tokio::time::sleep(self.period) => {
                    if self.register(&mut conn).await.is_err() {
                        self.errors.fetch_add(1, Ordering::Relaxed);
                        return;
                    }
                }
                _ = stopped.changed() => return,
            }
        }
    }
}
