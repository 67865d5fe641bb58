//! The console's peers (`--http-peers`): the consoles of the other NameServers of the same
//! cluster, read over HTTP, never on the RocketMQ port.
//!
//! NameServers never talk to each other; a broker registers with each one it knows, so when
//! its heartbeats reach one and not another they disagree, and clients of the two get
//! different routes. One task per peer reads the peer's `/api/view` every
//! [`POLL_EVERY`] (and its `/api/topics` when its routes changed), compares them with this
//! daemon's published view and route snapshot (the core's [`Divergence`]) and publishes a
//! [`PeerReport`] that `/api/peers` and `/metrics` read. Polling reads only what the owner has
//! already published: it never makes the owner or a connection wait.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{Request, Uri, header};
use axum::response::Response;
use http_body_util::{BodyExt, Empty, Limited};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use nameserver_core::view::{BrokerDiff, Divergence, NsTables, TopicDiff};
use serde::{Deserialize, Serialize};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

use super::Ctx;
use crate::observe::{Observer, wall_ms};

/// How often each peer is read.
pub(crate) const POLL_EVERY: Duration = Duration::from_secs(1);
/// How long a read of a peer's view may take, connecting included.
const VIEW_TIMEOUT: Duration = Duration::from_secs(2);
/// How long a read of a peer's topic list may take (a million topics is tens of megabytes).
const TOPICS_TIMEOUT: Duration = Duration::from_secs(20);
const VIEW_LIMIT: usize = 16 << 20;
const TOPICS_LIMIT: usize = 256 << 20;

/// A peer's console, e.g. `http://ns-2:8080` (a path prefix is kept: `http://proxy/ns-2`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerUrl {
    /// As it names the peer in `/api/peers` and in the `peer` label: scheme, authority and
    /// path prefix, no trailing slash.
    url: String,
    host: String,
    port: u16,
    /// `host:port` as given, for the `Host` header.
    authority: String,
    /// The path prefix, without a trailing slash (`""` for none).
    prefix: String,
}

impl PeerUrl {
    /// Parses `http://host[:port][/prefix]`.
    ///
    /// # Errors
    /// Not an `http://` URL with a host (the consoles speak plain HTTP; a query or a fragment
    /// would be lost).
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let uri: Uri = text.parse().map_err(|e| format!("`{text}` is not a URL: {e}"))?;
        match uri.scheme_str() {
            Some("http") => {}
            Some(other) => {
                return Err(format!("`{text}`: a peer's console is read over http://, not {other}://"));
            }
            None => return Err(format!("`{text}` has no scheme: write http://{text}")),
        }
        let authority = uri.authority().ok_or_else(|| format!("`{text}` names no host"))?;
        if authority.as_str().contains('@') {
            return Err(format!("`{text}`: user information is not supported"));
        }
        if uri.query().is_some() || text.contains('#') {
            return Err(format!("`{text}`: a peer is a console's base URL, without ? or #"));
        }
        let host = authority.host().trim_start_matches('[').trim_end_matches(']').to_string();
        let port = authority.port_u16().unwrap_or(80);
        let prefix = uri.path().trim_end_matches('/').to_string();
        Ok(Self {
            url: format!("http://{}{prefix}", authority.as_str()),
            host,
            port,
            authority: authority.as_str().to_string(),
            prefix,
        })
    }

    /// The URL as `/api/peers` and the metrics name it.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.url
    }
}

impl FromStr for PeerUrl {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        Self::parse(text)
    }
}

impl fmt::Display for PeerUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.url)
    }
}

/// What is known of one peer after its latest poll.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PeerReport {
    pub(crate) url: String,
    /// Whether the latest poll succeeded.
    pub(crate) reachable: bool,
    /// This daemon's own console (a list shared by every NameServer names it too): not
    /// compared, no gauges.
    #[serde(rename = "self")]
    pub(crate) is_self: bool,
    /// When a poll last succeeded (wall clock, ms).
    pub(crate) last_seen: Option<u64>,
    /// Why the latest poll failed.
    pub(crate) error: Option<String>,
    /// The peer's RocketMQ address and start (wall clock, ms), from its view.
    pub(crate) address: Option<String>,
    pub(crate) started_at_ms: Option<u64>,
    /// Brokers (by address) in this NameServer's brokerLiveTable and not in the peer's.
    pub(crate) brokers_only_here: Vec<BrokerDiff>,
    /// Brokers in the peer's brokerLiveTable and not in this one's.
    pub(crate) brokers_only_there: Vec<BrokerDiff>,
    /// Topics with a route here and none there.
    pub(crate) topics_only_here: TopicDiff,
    /// Topics with a route there and none here.
    pub(crate) topics_only_there: TopicDiff,
    /// When the oldest difference still present was first seen (`null`: they agree).
    pub(crate) divergent_since: Option<u64>,
}

/// Every peer's latest report, for `/api/peers` and `/metrics`.
#[derive(Debug, Default)]
pub(crate) struct PeerBoard {
    slots: Vec<ArcSwap<PeerReport>>,
}

impl PeerBoard {
    pub(crate) fn new(peers: &[PeerUrl]) -> Self {
        let report = |peer: &PeerUrl| PeerReport { url: peer.to_string(), ..PeerReport::default() };
        Self { slots: peers.iter().map(|peer| ArcSwap::from_pointee(report(peer))).collect() }
    }

    pub(crate) fn reports(&self) -> Vec<Arc<PeerReport>> {
        self.slots.iter().map(ArcSwap::load_full).collect()
    }
}

/// Starts one polling task per peer; they end when `quit` is cancelled.
pub(crate) fn spawn(peers: &[PeerUrl], board: &Arc<PeerBoard>, observer: &Arc<Observer>, quit: &CancellationToken) {
    for (slot, peer) in peers.iter().enumerate() {
        let poller = Poller {
            client: Client { peer: peer.clone(), conn: None },
            board: Arc::clone(board),
            slot,
            observer: Arc::clone(observer),
            divergence: Divergence::default(),
            their_topics: None,
            compared: None,
            report: PeerReport { url: peer.to_string(), ..PeerReport::default() },
        };
        let quit = quit.clone();
        tokio::spawn(async move {
            tokio::select! {
                () = poller.run() => {}
                () = quit.cancelled() => {}
            }
        });
    }
}

/// `GET /api/peers`.
pub(crate) async fn handler(State(ctx): State<Ctx>) -> Response {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Peers<'a> {
        now_ms: u64,
        poll_interval_ms: u64,
        peers: Vec<&'a PeerReport>,
    }
    let reports = ctx.peers.reports();
    let body = Peers {
        now_ms: wall_ms(),
        poll_interval_ms: u64::try_from(POLL_EVERY.as_millis()).unwrap_or(u64::MAX),
        peers: reports.iter().map(AsRef::as_ref).collect(),
    };
    super::api::json(serde_json::to_string(&body).unwrap_or_default())
}

/// A peer's `/api/view`: its tables and what names its daemon.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PeerView {
    #[serde(default)]
    instance: Option<String>,
    started_at_ms: u64,
    address: String,
    routes_version: u64,
    #[serde(flatten)]
    tables: NsTables,
}

#[derive(Debug, Deserialize)]
struct PeerTopics {
    topics: Vec<String>,
}

/// A peer's routes: its start (wall clock) and its routes version.
type PeerRoutes = (u64, u64);
/// Which routes a topic comparison was made from: the route snapshot version here, and the
/// peer's routes.
type RoutesKey = (u64, PeerRoutes);

/// The topics a peer listed, and which of its routes they were read from.
#[derive(Debug)]
struct TheirTopics {
    read_at: PeerRoutes,
    topics: Arc<Vec<String>>,
}

/// One peer's polling task.
struct Poller {
    client: Client,
    board: Arc<PeerBoard>,
    slot: usize,
    observer: Arc<Observer>,
    divergence: Divergence,
    their_topics: Option<TheirTopics>,
    compared: Option<RoutesKey>,
    report: PeerReport,
}

impl Poller {
    async fn run(mut self) {
        let mut tick = tokio::time::interval(POLL_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let polled = self.poll().await;
            self.publish(polled);
        }
    }

    async fn poll(&mut self) -> Result<(), String> {
        let body = self.client.get("/api/view", VIEW_LIMIT, VIEW_TIMEOUT).await?;
        let view: PeerView =
            serde_json::from_slice(&body).map_err(|e| format!("/api/view is not a NameServer console's view: {e}"))?;
        self.report.address = Some(view.address.clone());
        self.report.started_at_ms = Some(view.started_at_ms);
        let is_self = view.instance.as_deref() == Some(self.observer.instance.as_str());
        if is_self != self.report.is_self {
            if is_self {
                tracing::info!("peer {}: this daemon's own console, not compared", self.client.peer);
            }
            self.report.is_self = is_self;
            self.divergence.clear();
            self.compared = None;
        }
        if is_self {
            return Ok(());
        }
        let now = wall_ms();
        // Each side's lastUpdate on the wall clock of its start.
        let here = self.observer.view.load().tables.listed(self.observer.started_wall_ms);
        let there = view.tables.listed(view.started_at_ms);
        self.divergence.brokers(here, there, now);
        self.compare_topics((view.started_at_ms, view.routes_version), now).await
    }

    /// Compares topics when either side's routes changed since the last comparison.
    async fn compare_topics(&mut self, theirs: PeerRoutes, now: u64) -> Result<(), String> {
        let routes = self.observer.routes.load_full();
        let key = (routes.version(), theirs);
        if self.compared == Some(key) {
            return Ok(());
        }
        let topics = match &self.their_topics {
            Some(read) if read.read_at == theirs => Arc::clone(&read.topics),
            _ => {
                let body = self.client.get("/api/topics", TOPICS_LIMIT, TOPICS_TIMEOUT).await?;
                let parsed = tokio::task::spawn_blocking(move || serde_json::from_slice::<PeerTopics>(&body))
                    .await
                    .map_err(|e| e.to_string())?
                    .map_err(|e| format!("/api/topics is not a NameServer console's topic list: {e}"))?;
                let topics = Arc::new(parsed.topics);
                self.their_topics = Some(TheirTopics { read_at: theirs, topics: Arc::clone(&topics) });
                topics
            }
        };
        // Large tables take a while to compare: off the runtime's workers.
        let mut divergence = std::mem::take(&mut self.divergence);
        let compared = tokio::task::spawn_blocking(move || {
            let here: BTreeSet<&str> = routes.topic_names().collect();
            let there: BTreeSet<&str> = topics.iter().map(String::as_str).collect();
            divergence.topics(&here, &there, now);
            divergence
        })
        .await;
        match compared {
            Ok(divergence) => {
                self.divergence = divergence;
                self.compared = Some(key);
                Ok(())
            }
            Err(e) => Err(format!("comparing topics: {e}")),
        }
    }

    fn publish(&mut self, polled: Result<(), String>) {
        let report = &mut self.report;
        let was_reachable = report.reachable;
        match polled {
            Ok(()) => {
                report.reachable = true;
                report.error = None;
                report.last_seen = Some(wall_ms());
                if !was_reachable {
                    let address = report.address.as_deref().unwrap_or_default();
                    tracing::info!("peer {}: reading the console of the NameServer at {address}", report.url);
                }
            }
            Err(error) => {
                if was_reachable || (report.last_seen.is_none() && report.error.is_none()) {
                    tracing::warn!("peer {}: cannot read its console: {error}", report.url);
                }
                report.reachable = false;
                report.error = Some(error);
            }
        }
        let before: Vec<String> = brokers_named(&report.brokers_only_here, &report.brokers_only_there);
        report.brokers_only_here = self.divergence.brokers_only_here();
        report.brokers_only_there = self.divergence.brokers_only_there();
        report.topics_only_here = self.divergence.topics_only_here();
        report.topics_only_there = self.divergence.topics_only_there();
        report.divergent_since = self.divergence.since();
        if before != brokers_named(&report.brokers_only_here, &report.brokers_only_there) {
            let list = |diffs: &[BrokerDiff]| -> String {
                let names: Vec<String> =
                    diffs.iter().map(|d| format!("{} ({})", d.broker_name, d.broker_addr)).collect();
                if names.is_empty() { String::from("none") } else { names.join(", ") }
            };
            tracing::info!(
                "peer {}: brokers only here: {}; only there: {}",
                report.url,
                list(&report.brokers_only_here),
                list(&report.brokers_only_there)
            );
        }
        self.board.slots[self.slot].store(Arc::new(report.clone()));
    }
}

fn brokers_named(here: &[BrokerDiff], there: &[BrokerDiff]) -> Vec<String> {
    here.iter()
        .map(|d| format!("+{}", d.broker_addr))
        .chain(there.iter().map(|d| format!("-{}", d.broker_addr)))
        .collect()
}

/// One keep-alive HTTP/1.1 connection to a peer's console, opened again when it breaks.
struct Client {
    peer: PeerUrl,
    conn: Option<SendRequest<Empty<Bytes>>>,
}

impl Client {
    /// `GET {prefix}{path}`'s body, within `timeout` and `limit` bytes.
    async fn get(&mut self, path: &str, limit: usize, timeout: Duration) -> Result<Bytes, String> {
        let attempt = async {
            // A kept connection the peer closed in the meantime gets one retry on a new one.
            let reused = self.conn.is_some();
            match self.get_once(path, limit).await {
                Err(_) if reused => self.get_once(path, limit).await,
                result => result,
            }
        };
        match tokio::time::timeout(timeout, attempt).await {
            Ok(result) => result,
            Err(_) => {
                self.conn = None;
                Err(format!("no answer within {timeout:?}"))
            }
        }
    }

    async fn get_once(&mut self, path: &str, limit: usize) -> Result<Bytes, String> {
        let mut sender = match self.conn.take() {
            Some(sender) if !sender.is_closed() => sender,
            _ => self.connect().await?,
        };
        sender.ready().await.map_err(|e| e.to_string())?;
        let request = Request::get(format!("{}{path}", self.peer.prefix))
            .header(header::HOST, &self.peer.authority)
            .header(header::ACCEPT, "application/json")
            .body(Empty::new())
            .map_err(|e| e.to_string())?;
        let response = sender.send_request(request).await.map_err(|e| e.to_string())?;
        let status = response.status();
        let body = Limited::new(response.into_body(), limit)
            .collect()
            .await
            .map_err(|e| format!("reading {path}: {e}"))?
            .to_bytes();
        self.conn = Some(sender);
        if status.is_success() { Ok(body) } else { Err(format!("{path} answered {status}")) }
    }

    async fn connect(&self) -> Result<SendRequest<Empty<Bytes>>, String> {
        let stream = TcpStream::connect((self.peer.host.as_str(), self.peer.port))
            .await
            .map_err(|e| format!("connecting to {}: {e}", self.peer.authority))?;
        let _ = stream.set_nodelay(true);
        let (sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| e.to_string())?;
        // Drives the connection; ends when the sender is dropped or the peer closes.
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Ok(sender)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peer_urls_are_plain_http_base_urls() {
        let peer = PeerUrl::parse(" http://10.0.0.2:8080/ ").unwrap();
        assert_eq!(
            (peer.as_str(), peer.host.as_str(), peer.port, peer.prefix.as_str()),
            ("http://10.0.0.2:8080", "10.0.0.2", 8080, "")
        );
        let peer = PeerUrl::parse("http://proxy.example/ns-2/").unwrap();
        assert_eq!(
            (peer.as_str(), peer.port, peer.prefix.as_str(), peer.authority.as_str()),
            ("http://proxy.example/ns-2", 80, "/ns-2", "proxy.example")
        );
        let peer = PeerUrl::parse("http://[::1]:8081").unwrap();
        assert_eq!((peer.host.as_str(), peer.authority.as_str()), ("::1", "[::1]:8081"));
        for (bad, why) in [
            ("ns-2:8080", "no scheme"),
            ("https://ns-2:8080", "not https://"),
            ("http://", "not a URL"),
            ("http://ns-2:8080/?x=1", "without ? or #"),
            ("http://user@ns-2:8080", "user information"),
        ] {
            let error = PeerUrl::parse(bad).unwrap_err();
            assert!(error.contains(why), "{bad}: {error}");
        }
    }
}
