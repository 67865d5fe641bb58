//! The NameServer as a sans-IO state machine.
//!
//! Drivers feed [`Input`]s with the current time through [`NameServer::handle`], then drain
//! [`NameServer::poll_output`] until it returns `None`, then arm one timer for
//! [`NameServer::poll_timeout`]. See the crate docs for the full contract.

mod handlers;
mod idle;
mod outputs;
mod removal;
mod route_reply;

pub use idle::IdleClock;
pub use removal::{Removal, RemovalPath};
pub use route_reply::{RouteReply, RouteSource, route_reply};

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;
use core::time::Duration;

use crate::config::{Config, RemoteConfig};
use crate::event::{Event, UnregisterReason};
use crate::event_run::EventRun;
use crate::json::{JsonStyle, WriteJson};
use crate::kv::{KvConfig, ORDER_TOPIC_CONFIG};
use crate::limits::Limits;
use crate::names::{ConnId, RequestId, TopicName};
use crate::protocol::body::TopicRouteData;
use crate::protocol::{Parsed, RemotingCommand};
use crate::route::{RouteChanges, RouteFilter, RouteRecipe, RouteShape, RouteTable};
use crate::time::Instant;
use outputs::OutputQueue;

/// Delay from start to the first expiry scan (both 4.9.x and 5.x).
pub const SCAN_INITIAL_DELAY: Duration = Duration::from_millis(5000);

/// Something that happened to the NameServer.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Input {
    /// A connection was accepted. `remote` is the peer address, for log lines.
    Connected {
        /// The connection.
        conn: ConnId,
        /// The peer, e.g. `127.0.0.1:53120`.
        remote: String,
    },
    /// A whole command arrived on a connection.
    Received {
        /// The connection.
        conn: ConnId,
        /// The command.
        cmd: RemotingCommand,
    },
    /// [`Input::Received`] with the request already read by [`Parsed::read`], with the limits
    /// this NameServer was given ([`NameServer::with_limits`]): a driver with threads reads
    /// each request on its connection's, and the owner of the tables only applies it.
    Parsed {
        /// The connection.
        conn: ConnId,
        /// The command.
        cmd: RemotingCommand,
        /// `cmd`, read.
        parsed: Parsed,
    },
    /// A connection closed (by the peer, by an error, or after [`Output::Close`]).
    Disconnected {
        /// The connection.
        conn: ConnId,
    },
    /// Nothing was read or written on a connection for `serverChannelMaxIdleTimeSeconds`
    /// (the driver's [`IdleClock`] for it expired).
    Idle {
        /// The connection.
        conn: ConnId,
        /// Its last read or write ([`IdleClock::last`]).
        last_io: Instant,
        /// The idle time the driver closed it by.
        idle: Duration,
    },
    /// The instant returned by [`NameServer::poll_timeout`] has passed.
    Timeout,
    /// A request that came on no connection (an operator's console writing a KV entry):
    /// answered as a client's would be, by [`Output::Answer`] with the same `id` unless it is
    /// oneway. Registering or unregistering a broker needs the connection it holds, so those
    /// get REQUEST_CODE_NOT_SUPPORTED here.
    Request {
        /// The driver's name for it, echoed in the answer.
        id: RequestId,
        /// The command.
        cmd: RemotingCommand,
    },
}

/// Something the driver must do.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Output {
    /// Write this command to the connection (a reply).
    Send {
        /// The connection.
        conn: ConnId,
        /// The command.
        cmd: RemotingCommand,
    },
    /// Send this oneway command to a broker's own address (NOTIFY_MIN_BROKER_ID_CHANGE), as
    /// Java's NameServer does with its remoting client: the driver connects to `broker_addr`
    /// (reusing an earlier connection if it likes), writes it and waits for nothing. A failure
    /// is the driver's to log; the NameServer never hears of it.
    NotifyBroker {
        /// The broker's server address (`host:port`, as it registered).
        broker_addr: crate::names::BrokerAddr,
        /// The oneway request.
        cmd: RemotingCommand,
    },
    /// Close the connection.
    Close {
        /// The connection.
        conn: ConnId,
    },
    /// Log these events, in order: the events one step logged one after another, handed over
    /// as one run (a registration of a million topics logs a million "new topic registered",
    /// kept as names until each [`Event`] is taken from the run).
    Events(EventRun),
    /// The KV table changed (the change is in effect): make it durable. `kvConfigPath` holds
    /// the whole table as [`crate::KvConfig::to_json`] of [`NameServer::kv`] writes it; a
    /// driver may write that file after each change or record the changes and write it now
    /// and then (the daemon's journal).
    KvChanged(crate::kv::KvChange),
    /// Write these bytes (properties text) to `configStorePath` (crash-safely).
    PersistConfig(Vec<u8>),
    /// The reply to [`Input::Request`] `id`.
    Answer {
        /// The request's id.
        id: RequestId,
        /// The reply.
        cmd: RemotingCommand,
    },
}

/// One NameServer: route tables, KV config, configuration and connection bookkeeping.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NameServer {
    config: Config,
    limits: Limits,
    remote_config: RemoteConfig,
    routes: RouteTable,
    kv: KvConfig,
    conns: BTreeMap<ConnId, String>,
    out: OutputQueue,
    now: Instant,
    started: Instant,
    next_scan: Instant,
    extra_changes: RouteChanges,
    all_routes_changed: bool,
}

impl NameServer {
    /// A NameServer started at `now` with `config` and the KV entries loaded from disk.
    #[must_use]
    pub fn new(config: Config, kv: KvConfig, now: Instant) -> Self {
        Self {
            config,
            limits: Limits::DEFAULT,
            remote_config: RemoteConfig::All,
            routes: RouteTable::new(),
            kv,
            conns: BTreeMap::new(),
            out: OutputQueue::default(),
            now,
            started: now,
            next_scan: now + SCAN_INITIAL_DELAY,
            extra_changes: RouteChanges::default(),
            all_routes_changed: true,
        }
    }

    /// Uses `limits` for bodies it decodes (compressed registrations).
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Lets UPDATE_NAMESRV_CONFIG change only the keys `remote` allows (Java: all).
    #[must_use]
    pub fn with_remote_config(mut self, remote: RemoteConfig) -> Self {
        self.remote_config = remote;
        self
    }

    /// Processes one input at time `now`. Time never goes backwards: an earlier `now` than a
    /// previous call is treated as the previous one (clamped, in every build).
    pub fn handle(&mut self, now: Instant, input: Input) {
        self.now = self.now.max(now);
        self.run_scans();
        match input {
            Input::Connected { conn, remote } => {
                self.conns.insert(conn, remote);
            }
            Input::Received { conn, cmd } => {
                let parsed = (!cmd.is_response()).then(|| Parsed::read(&cmd, &self.limits));
                self.received(conn, &cmd, parsed);
            }
            Input::Parsed { conn, cmd, parsed } => self.received(conn, &cmd, Some(parsed)),
            Input::Request { id, cmd } => {
                if cmd.is_response() {
                    return;
                }
                let parsed = Parsed::read(&cmd, &self.limits);
                if let Some(reply) = self.process(None, &cmd, parsed)
                    && !cmd.is_oneway()
                {
                    self.out.push(Output::Answer { id, cmd: reply });
                }
            }
            Input::Disconnected { conn } => {
                self.conns.remove(&conn);
                self.destroy_channel(conn, UnregisterReason::ChannelClosed);
            }
            Input::Idle { conn, last_io, idle } => {
                let remote = self.conns.remove(&conn).unwrap_or_else(|| alloc::format!("{conn}"));
                let (idle_ms, now) = (crate::time::millis(idle), self.now);
                self.out.push_event(Event::ChannelIdle { conn, remote, last_io, idle_ms, now });
                self.destroy_channel(conn, UnregisterReason::ChannelIdle { last_io, idle_ms, now });
                self.out.push(Output::Close { conn });
            }
            Input::Timeout => {}
        }
    }

    /// A command that came on `conn`, read unless it is a response (`parsed`).
    fn received(&mut self, conn: ConnId, cmd: &RemotingCommand, parsed: Option<Parsed>) {
        // Responses would answer requests of ours; we never wait for any.
        let Some(parsed) = parsed.filter(|_| !cmd.is_response()) else { return };
        if let Some(reply) = self.process(Some(conn), cmd, parsed)
            && !cmd.is_oneway()
        {
            self.out.push(Output::Send { conn, cmd: reply });
        }
    }

    /// The next thing the driver must do, if any. Events logged one after another come as one
    /// [`Output::Events`], handed over without moving each.
    #[must_use]
    pub fn poll_output(&mut self) -> Option<Output> {
        self.out.pop()
    }

    /// When [`Input::Timeout`] is due next: the next expiry scan or, while route queries
    /// wait for `needWaitForService`, the wait's end if sooner (a driver answering from a
    /// snapshot refreshes it then). Delivering it early is harmless; late delays expiry.
    /// Always `Some` (a scan is always scheduled).
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        if self.serving_routes() { Some(self.next_scan) } else { Some(self.next_scan.min(self.serving_routes_from())) }
    }

    /// When the next expiry scan runs (`scanNotActiveBroker`).
    #[must_use]
    pub fn next_scan(&self) -> Instant {
        self.next_scan
    }

    /// The route tables.
    #[must_use]
    pub fn routes(&self) -> &RouteTable {
        &self.routes
    }

    /// The KV entries.
    #[must_use]
    pub fn kv(&self) -> &KvConfig {
        &self.kv
    }

    /// The configuration in effect.
    #[must_use]
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Open connections with their peer addresses.
    #[must_use]
    pub fn connections(&self) -> &BTreeMap<ConnId, String> {
        &self.conns
    }

    /// The latest time seen.
    #[must_use]
    pub fn now(&self) -> Instant {
        self.now
    }

    /// The first scan at or after `t` on the fixed-rate schedule (every
    /// `scanNotActiveBrokerInterval` from the next one, [`Self::poll_timeout`]), if nothing
    /// is late.
    #[must_use]
    pub fn scan_at_or_after(&self, t: Instant) -> Instant {
        if t <= self.next_scan {
            return self.next_scan;
        }
        let interval = crate::time::millis(self.config.scan_not_active_broker_interval).max(1);
        let behind = t.as_millis() - self.next_scan.as_millis();
        self.next_scan + Duration::from_millis(behind.div_ceil(interval) * interval)
    }

    /// The GET_ROUTEINFO_BY_TOPIC success body for `topic` in `style`, or `None` for
    /// TOPIC_NOT_EXIST: [`Self::route_data`] written in `style`.
    #[must_use]
    pub fn route_body(&self, topic: &TopicName, style: JsonStyle) -> Option<Vec<u8>> {
        Some(self.route_data(topic)?.to_json(style))
    }

    /// The route GET_ROUTEINFO_BY_TOPIC answers for `topic`, or `None` for TOPIC_NOT_EXIST.
    /// Drivers that answer route queries from a snapshot encode exactly this.
    #[must_use]
    pub fn route_data(&self, topic: &TopicName) -> Option<TopicRouteData> {
        let recipe = self.route_recipe(self.route_shape(topic)?)?;
        Some(recipe.build(|name| self.routes.group_route(name)))
    }

    /// What the route of a topic of `shape` is built from, to build later
    /// ([`RouteRecipe::build`], each group from [`RouteTable::group_route`]); `None` when such a
    /// topic has no route (TOPIC_NOT_EXIST).
    #[must_use]
    pub fn route_recipe(&self, shape: RouteShape<'_>) -> Option<RouteRecipe> {
        let filter = RouteFilter { support_acting_master: self.config.support_acting_master };
        self.routes.route_recipe(shape, filter)
    }

    /// What `topic`'s [`Self::route_data`] is made of besides the broker tables: two topics
    /// with equal shapes get the same route (so the same body in each style) until the next
    /// input.
    #[must_use]
    pub fn route_shape(&self, topic: &TopicName) -> Option<RouteShape<'_>> {
        Some(self.with_order_conf(topic, self.routes.route_shape(topic)?))
    }

    /// [`Self::route_shape`] of each of `topics` (`None`: every topic with queues), in order
    /// (see [`RouteTable::for_each_route_shape`]).
    pub fn for_each_route_shape<'a>(
        &'a self,
        topics: Option<&'a BTreeSet<TopicName>>,
        mut f: impl FnMut(&'a TopicName, Option<RouteShape<'a>>),
    ) {
        self.routes.for_each_route_shape(topics, |topic, shape| {
            f(topic, shape.map(|shape| self.with_order_conf(topic, shape)));
        });
    }

    fn with_order_conf<'a>(&'a self, topic: &TopicName, mut shape: RouteShape<'a>) -> RouteShape<'a> {
        if self.config.order_message_enable {
            shape.order_conf = self.kv.get(ORDER_TOPIC_CONFIG, topic.as_str());
        }
        shape
    }

    /// When route queries start being answered: start-up plus `waitSecondsForService` with
    /// `needWaitForService`, else start-up itself.
    #[must_use]
    pub fn serving_routes_from(&self) -> Instant {
        if self.config.need_wait_for_service {
            self.started + Duration::from_secs(self.config.wait_seconds_for_service)
        } else {
            self.started
        }
    }

    /// Whether route queries are answered without waiting (`needWaitForService` is off or
    /// its wait is over); when false they get "name server not ready".
    #[must_use]
    pub fn serving_routes(&self) -> bool {
        self.now >= self.serving_routes_from()
    }

    /// The topics whose [`Self::route_data`] may have changed since the last call; `None`
    /// means every topic (a configuration change, or the first call). An optional step of
    /// the run loop (see the crate docs) for drivers that answer route queries from a
    /// snapshot; changes accumulate until it is called.
    pub fn poll_route_changes(&mut self) -> Option<RouteChanges> {
        let mut changes = self.routes.take_changes();
        changes.topics.append(&mut core::mem::take(&mut self.extra_changes).topics);
        if core::mem::take(&mut self.all_routes_changed) { None } else { Some(changes) }
    }

    /// Runs every scan due by now (fixed rate; missed runs collapse into one).
    fn run_scans(&mut self) {
        if self.now < self.next_scan {
            return;
        }
        let mut log = EventRun::new();
        let (items, conns) = self.routes.expired_items(self.now, &mut log);
        self.emit(log);
        self.unregister(&items);
        let mut closed = Vec::new();
        for conn in conns {
            if !closed.contains(&conn) {
                closed.push(conn);
                self.out.push(Output::Close { conn });
            }
        }
        // Fixed rate: the next slot after now, in one step however long the gap was.
        self.next_scan = self.scan_at_or_after(self.now + Duration::from_millis(1));
    }

    fn destroy_channel(&mut self, conn: ConnId, reason: UnregisterReason) {
        let mut log = EventRun::new();
        let items = self.routes.channel_items(conn, reason, &mut log);
        self.emit(log);
        self.unregister(&items);
    }

    fn emit(&mut self, log: EventRun) {
        self.out.push_events(log);
    }
}
