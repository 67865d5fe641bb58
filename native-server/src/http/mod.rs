//! The HTTP console: the teaching page, a live read-only view of the NameServer's tables, an
//! event stream, Prometheus metrics, a health check and RocketMQ's address-server endpoint.
//!
//! It has its own listener (127.0.0.1:8080 by default; `--http-bind 0.0.0.0` or
//! `NAMESERVER_HTTP_BIND` for probes and scrapes from other hosts) and never slows the
//! RocketMQ side:
//!
//! - what it shows is published in `observe`: the owner publishes a view of the small
//!   tables after every change (topics are read from the route snapshot the connections
//!   already answer from) and pushes events into a lossy broadcast; connection tasks count
//!   requests in sharded atomics and sample route queries only while an event reader is
//!   connected; read handlers only load those, never message the owner;
//! - nothing is writable: every method but GET and HEAD gets 405, unless the operator set a
//!   token, and then only `PUT`/`DELETE /api/kv/{namespace}/{key}` with
//!   `Authorization: Bearer <token>`, sent to the owner as a console request
//!   (`Inbound::Request`: PUT_KV_CONFIG / DELETE_KV_CONFIG with a reply channel, not a
//!   connection);
//! - it answers only requests addressed to an IP, `localhost` or a name given with
//!   `--http-allowed-hosts` (421 otherwise), so that other web pages cannot read it by DNS
//!   rebinding; the address server is exempt;
//! - it holds at most `--http-max-connections` connections and 32 event streams, and closes
//!   a connection that has not sent a request's headers 10 s after connecting or after its
//!   last response (`accept.rs`), so that it never takes port 9876's descriptors;
//! - with [`HttpOptions::peers`], one task per peer reads that peer's console every second
//!   (`peers.rs`) and publishes how the two differ; handlers and metrics read only that report.
//!
//! | path | what |
//! |---|---|
//! | `/www/`, `/pkg/` | the page and its WebAssembly package (`/www/?live` opens the live view; see [`Page`]) |
//! | `/api` | this list, as JSON |
//! | `/api/view` | everything the live page shows at once (what `/api/events` sends as `view`) |
//! | `/api/cluster` | GET_BROKER_CLUSTER_INFO: `brokerAddrTable`, `clusterAddrTable` |
//! | `/api/brokers` | `brokerLiveTable` with heartbeat ages and removal clocks |
//! | `/api/topics` | topics with a route |
//! | `/api/routes/{topic}` | the route clients get (`TopicRouteData`, the dashboard's Router shape) |
//! | `/api/kv`, `/api/kv/{namespace}/{key}` | the KV config |
//! | `/api/config` | the configuration in effect (GET_NAMESRV_CONFIG) |
//! | `/api/peers` | each peer's console (`--http-peers`): reachable, and the brokers and topics only here or only there, since when |
//! | `/api/events` | server-sent events: `log`, `view`, `lagged` |
//! | `/metrics` | Prometheus text (OpenMetrics when asked for) |
//! | `/healthz` | liveness: 200 while the daemon runs |
//! | `/readyz` | readiness: 200 while route queries are answered; 503 before (`needWaitForService`) and once shutdown begins |
//! | `/rocketmq/nsaddr` | the address server: `host:port;host:port` (any subgroup) |
//!
//! Static files, JSON and metrics are sent gzip- or brotli-compressed when the client accepts
//! it (the event stream never is).

mod accept;
mod api;
mod controller;
mod events;
mod metrics;
mod page;
mod peers;
mod process;
mod tls;

use std::io;
use std::net::SocketAddr;
use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use prometheus_client::registry::Registry;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, mpsc};
use tokio_util::sync::CancellationToken;
use tower_http::compression::CompressionLayer;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::messages::Inbound;
use crate::observe::Observer;

pub use page::{CONTENT_SECURITY_POLICY, Page};
pub use peers::PeerUrl;

/// Default for the `--http-port` flag.
pub const DEFAULT_PORT: u16 = 8080;

/// Default for [`HttpOptions::max_connections`]: with [`DEFAULT_MAX_EVENT_STREAMS`], well
/// inside the descriptors `open_files::MARGIN` keeps aside from port 9876.
pub const DEFAULT_MAX_CONNECTIONS: usize = 128;
/// Default for [`HttpOptions::max_event_streams`].
pub const DEFAULT_MAX_EVENT_STREAMS: usize = 32;
/// Default for [`HttpOptions::header_timeout`].
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// What the HTTP console serves besides the API.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// Where the page comes from.
    pub page: Page,
    /// With a token, `PUT`/`DELETE /api/kv/{namespace}/{key}` accept `Authorization: Bearer
    /// <token>`; without one nothing is writable.
    pub token: Option<String>,
    /// What `/rocketmq/nsaddr` lists (`host:port;host:port`); `None`: this daemon's address.
    pub nsaddr: Option<String>,
    /// Origins allowed to read the API from another page (CORS); empty: same origin only.
    pub allow_origins: Vec<String>,
    /// Other NameServers' consoles to compare this one with (`/api/peers`, `nameserver_peer_*`).
    pub peers: Vec<PeerUrl>,
    /// Serve HTTPS with the RocketMQ port's certificate (`--http-tls`).
    pub tls: bool,
    /// Host names requests may be addressed to besides IP addresses and `localhost`
    /// (`--http-allowed-hosts`); others get 421, so that a web page cannot read the console by
    /// DNS rebinding. The address server (`/rocketmq/`) answers any name.
    pub allowed_hosts: Vec<String>,
    /// Connections served at once (`--http-max-connections`); more wait in the backlog.
    pub max_connections: usize,
    /// Event streams open at once; the next gets 503.
    pub max_event_streams: usize,
    /// How long a connection may take to send a request's headers, from connecting or from
    /// its last response.
    pub header_timeout: Duration,
}

impl HttpOptions {
    /// Refuses settings that would open the console to every web page.
    ///
    /// # Errors
    /// `*` among the allowed origins while a token makes KV writable: any page a browser
    /// opens could then write with a token it finds or is given.
    pub fn check(&self) -> Result<(), String> {
        if self.token.is_some() && self.allow_origins.iter().any(|origin| origin.trim() == "*") {
            return Err(String::from(
                "--http-allow-origin '*' with a token would let every web page send KV writes to this console; name the origins that may",
            ));
        }
        Ok(())
    }
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            page: Page::default(),
            token: None,
            nsaddr: None,
            allow_origins: Vec::new(),
            peers: Vec::new(),
            tls: false,
            allowed_hosts: Vec::new(),
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_event_streams: DEFAULT_MAX_EVENT_STREAMS,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
        }
    }
}

/// The HTTP side of a server: its listener and options, handed to [`crate::serve`].
#[derive(Debug)]
pub struct Console {
    /// Where to serve.
    pub listener: TcpListener,
    /// What to serve.
    pub options: HttpOptions,
}

/// What every handler gets.
#[derive(Clone, Debug)]
pub(crate) struct Ctx(Arc<CtxInner>);

#[derive(Debug)]
pub(crate) struct CtxInner {
    pub(crate) observer: Arc<Observer>,
    pub(crate) registry: Registry,
    pub(crate) options: HttpOptions,
    pub(crate) stop: CancellationToken,
    pub(crate) owner: mpsc::Sender<Inbound>,
    /// The RocketMQ listener's address.
    pub(crate) rocketmq: SocketAddr,
    /// Event streams that may still open.
    pub(crate) event_streams: Arc<Semaphore>,
    /// What is known of each peer (`--http-peers`).
    pub(crate) peers: Arc<peers::PeerBoard>,
}

impl Deref for Ctx {
    type Target = CtxInner;
    fn deref(&self) -> &CtxInner {
        &self.0
    }
}

/// Serves the console on `console.listener`. Once `stop` is cancelled (shutdown begins)
/// `/readyz` answers 503 and event streams end; the console keeps answering until `quit` is
/// cancelled (the RocketMQ side has drained).
#[allow(clippy::too_many_arguments)]
pub(crate) async fn serve(
    console: Console,
    tls: Option<Arc<crate::tls::reload::TlsPort>>,
    observer: Arc<Observer>,
    owner: mpsc::Sender<Inbound>,
    rocketmq: SocketAddr,
    stop: CancellationToken,
    quit: CancellationToken,
) -> io::Result<()> {
    let Console { listener, options } = console;
    let scheme = if tls.is_some() { "https" } else { "http" };
    let address = listener.local_addr()?;
    options.page.log_at_start();
    if !address.ip().is_loopback() {
        let writes = if options.token.is_some() { "KV writes need the token" } else { "it is read-only" };
        tracing::info!("HTTP console on {address}: reachable from other hosts ({writes})");
    }
    // Answer nothing before the owner has published its first view.
    let _ = observer.view_version.subscribe().wait_for(|version| *version > 0).await;
    let writes = if options.token.is_some() { "KV writes with the token" } else { "read-only" };
    tracing::info!(
        "HTTP console on {scheme}://{address}/ ({writes}): live page /www/?live, API /api, events /api/events, metrics /metrics, health /healthz, readiness /readyz, address server /rocketmq/nsaddr"
    );
    if !options.peers.is_empty() {
        let list: Vec<&str> = options.peers.iter().map(PeerUrl::as_str).collect();
        tracing::info!("HTTP console: comparing this NameServer with its peers' consoles: {}", list.join(", "));
    }
    let board = Arc::new(peers::PeerBoard::new(&options.peers));
    peers::spawn(&options.peers, &board, &observer, &quit);
    let event_streams = Arc::new(Semaphore::new(options.max_event_streams));
    let ctx = Ctx(Arc::new(CtxInner {
        registry: metrics::registry(Arc::clone(&observer), Arc::clone(&board)),
        observer,
        options,
        stop: stop.clone(),
        owner,
        rocketmq,
        event_streams,
        peers: board,
    }));
    let slots = Arc::new(Semaphore::new(ctx.options.max_connections.max(1)));
    let header_timeout = ctx.options.header_timeout;
    let app = router(ctx);
    match tls {
        Some(port) => {
            let listener = tls::TlsListener::new(listener, Arc::clone(&slots), port, quit.clone())?;
            accept::serve(listener, slots, app, header_timeout, quit).await
        }
        None => accept::serve(listener, slots, app, header_timeout, quit).await,
    }
}

fn router(ctx: Ctx) -> Router {
    let mut app = Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics::handler))
        .route("/rocketmq/{subgroup}", get(nsaddr))
        .route("/api", get(api::index))
        .route("/api/view", get(api::view))
        .route("/api/cluster", get(api::cluster))
        .route("/api/brokers", get(api::brokers))
        .route("/api/topics", get(api::topics))
        .route("/api/routes/{topic}", get(api::route))
        .route("/api/kv", get(api::kv))
        .route("/api/kv/{namespace}/{key}", get(api::kv_get).put(api::kv_put).delete(api::kv_delete))
        .route("/api/config", get(api::config))
        .route("/api/peers", get(peers::handler))
        .route("/api/controller", get(api::controller))
        .route("/api/events", get(events::stream));
    app = app.merge(page::routes(&ctx.options.page));
    #[cfg(feature = "test-hooks")]
    {
        app = app.merge(test_hook_routes());
    }
    let mut app = app
        .fallback(|| async { (StatusCode::NOT_FOUND, "not found\n") })
        // gzip or br when accepted; the default predicate leaves the event stream, images and
        // tiny bodies alone, and range responses are never compressed.
        .layer(CompressionLayer::new())
        .layer(middleware::from_fn_with_state(ctx.clone(), read_only))
        .layer(SetResponseHeaderLayer::if_not_present(header::CACHE_CONTROL, HeaderValue::from_static("no-cache")))
        .layer(SetResponseHeaderLayer::overriding(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")));
    let origins: Vec<HeaderValue> =
        ctx.options.allow_origins.iter().filter_map(|o| HeaderValue::from_str(o).ok()).collect();
    if !origins.is_empty() {
        let origins = if origins.iter().any(|o| o == "*") { AllowOrigin::any() } else { AllowOrigin::list(origins) };
        let mut methods = vec![Method::GET, Method::HEAD];
        if ctx.options.token.is_some() {
            methods.extend([Method::PUT, Method::DELETE]);
        }
        app = app.layer(
            CorsLayer::new()
                .allow_origin(origins)
                .allow_methods(methods)
                .allow_headers([header::AUTHORIZATION, header::CONTENT_TYPE]),
        );
    }
    app.with_state(ctx)
}

/// `POST /test-hooks/owner/pause` and `/resume`, `GET /test-hooks/owner/record`: the owner's
/// intake for the integration tests ([`crate::test_hooks::OwnerControl`]).
#[cfg(feature = "test-hooks")]
fn test_hook_routes() -> Router<Ctx> {
    use axum::routing::post;
    Router::new()
        .route(
            "/test-hooks/owner/pause",
            post(|State(ctx): State<Ctx>| async move {
                ctx.observer.test_hooks.pause(true);
                "paused\n"
            }),
        )
        .route(
            "/test-hooks/owner/resume",
            post(|State(ctx): State<Ctx>| async move {
                ctx.observer.test_hooks.pause(false);
                "resumed\n"
            }),
        )
        .route(
            "/test-hooks/owner/record",
            get(|State(ctx): State<Ctx>| async move { ctx.observer.test_hooks.record() }),
        )
}

/// Refuses every method but GET and HEAD, except token-authorised KV writes.
async fn read_only(State(ctx): State<Ctx>, request: Request, next: Next) -> Response {
    // The address server is exempt: clients reach it by rocketmq.namesrv.domain, a host name.
    if !known_host(request.headers(), &ctx.options.allowed_hosts) && !request.uri().path().starts_with("/rocketmq/") {
        return api::error(
            StatusCode::MISDIRECTED_REQUEST,
            "this console answers requests addressed to an IP address, localhost or a name given with --http-allowed-hosts",
        );
    }
    let method = request.method();
    if method == Method::GET || method == Method::HEAD {
        return next.run(request).await;
    }
    #[cfg(feature = "test-hooks")]
    if request.uri().path().starts_with("/test-hooks/") {
        return next.run(request).await;
    }
    let kv_write = (method == Method::PUT || method == Method::DELETE) && request.uri().path().starts_with("/api/kv/");
    match &ctx.options.token {
        Some(token) if kv_write => {
            let given = request
                .headers()
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "));
            match given {
                Some(given) if same_secret(given.as_bytes(), token.as_bytes()) => next.run(request).await,
                Some(_) => api::error(StatusCode::FORBIDDEN, "wrong token"),
                None => {
                    let mut response =
                        api::error(StatusCode::UNAUTHORIZED, "KV writes need Authorization: Bearer <token>");
                    response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
                    response
                }
            }
        }
        _ => {
            let mut response = api::error(StatusCode::METHOD_NOT_ALLOWED, "the HTTP console is read-only");
            response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
            response
        }
    }
}

/// Whether the `Host` header names this machine: an IP address, `localhost` or one of
/// `allowed` (a domain name pointing at this machine is how a web page would reach the console
/// by DNS rebinding, whatever address it listens on).
fn known_host(headers: &HeaderMap, allowed: &[String]) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else { return true };
    let name = match host.strip_prefix('[') {
        Some(rest) => return rest.split(']').next().is_some_and(|ip| ip.parse::<std::net::Ipv6Addr>().is_ok()),
        None => host.split(':').next().unwrap_or_default(),
    };
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<std::net::Ipv4Addr>().is_ok()
        || allowed.iter().any(|a| a.eq_ignore_ascii_case(name))
}

/// Compares without stopping at the first difference (the length is not secret).
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

/// `GET /healthz`: 200 while the daemon runs, with a few numbers.
async fn healthz(State(ctx): State<Ctx>) -> Response {
    let view = ctx.observer.view.load();
    let routes = ctx.observer.routes.load();
    let body = serde_json::json!({
        "status": "UP",
        "serving": routes.serving(),
        "uptimeMs": ctx.observer.now().as_millis(),
        "brokers": view.tables.brokers.len(),
        "topics": routes.topics(),
    });
    api::json(body.to_string())
}

/// `GET /readyz`: 200 while route queries are answered; 503 while `needWaitForService` holds
/// them back and once shutdown has begun (load balancers and Kubernetes stop sending then).
async fn readyz(State(ctx): State<Ctx>) -> Response {
    let status = if ctx.stop.is_cancelled() {
        "SHUTTING_DOWN"
    } else if !ctx.observer.routes.load().serving() {
        "WAITING_FOR_SERVICE"
    } else {
        "READY"
    };
    let body = serde_json::json!({ "status": status }).to_string();
    let code = if status == "READY" { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    (code, [(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], body).into_response()
}

/// `GET /rocketmq/{subgroup}`: RocketMQ's address server (PROTOCOL.md §13). Clients fetch
/// `http://<rocketmq.namesrv.domain>:8080/rocketmq/nsaddr` and read `host:port;host:port`.
async fn nsaddr(State(ctx): State<Ctx>, headers: HeaderMap) -> Response {
    let list = match &ctx.options.nsaddr {
        Some(list) => list.clone(),
        None => own_address(ctx.rocketmq, &headers),
    };
    ([(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"))], list).into_response()
}

/// This daemon's RocketMQ address as the asking client can reach it: the bound address, or,
/// when bound to every interface, the host the client used to reach this console.
fn own_address(rocketmq: SocketAddr, headers: &HeaderMap) -> String {
    let port = rocketmq.port();
    if !rocketmq.ip().is_unspecified() {
        return rocketmq.to_string();
    }
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default();
    let host = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().map(|ip| format!("[{ip}]")),
        None => host.split(':').next().map(String::from),
    };
    match host.filter(|h| !h.is_empty()) {
        Some(host) => format!("{host}:{port}"),
        None => format!("127.0.0.1:{port}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_address_follows_the_bind_address_then_the_host_header() {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_static("ns.example:8080"));
        assert_eq!(own_address("10.0.0.5:9876".parse().unwrap(), &headers), "10.0.0.5:9876");
        assert_eq!(own_address("0.0.0.0:9876".parse().unwrap(), &headers), "ns.example:9876");
        headers.insert(header::HOST, HeaderValue::from_static("[::1]:8080"));
        assert_eq!(own_address("[::]:9876".parse().unwrap(), &headers), "[::1]:9876");
        assert_eq!(own_address("0.0.0.0:9876".parse().unwrap(), &HeaderMap::new()), "127.0.0.1:9876");
    }

    #[test]
    fn only_addresses_localhost_and_allowed_names_pass() {
        let allowed = [String::from("nameserver-0.nameserver-headless")];
        let with = |host: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::HOST, HeaderValue::from_static(host));
            known_host(&headers, &allowed)
        };
        for ok in [
            "127.0.0.1:8080",
            "localhost:8080",
            "LOCALHOST",
            "[::1]:8080",
            "10.1.2.3",
            "nameserver-0.nameserver-headless:8080",
        ] {
            assert!(with(ok), "{ok}");
        }
        for bad in ["evil.example:8080", "localhost.evil.example", "127.0.0.1.nip.io:8080", "[evil]:80", "nameserver-0"]
        {
            assert!(!with(bad), "{bad}");
        }
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret(b"s3cret", b"s3cret"));
        assert!(!same_secret(b"s3cret", b"s3creT"));
        assert!(!same_secret(b"s3cret", b"s3cre"));
    }
}
