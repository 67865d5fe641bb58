//! Nothing is writable over HTTP by default: every route refuses every method but GET and
//! HEAD. With a token, KV entries can be put and deleted (through the owner, as PUT_KV_CONFIG
//! and DELETE_KV_CONFIG), and nothing else. Only www/ and pkg/ of the page directory are
//! served.

use crate::http_support;
use crate::support;

use http_support::{ConsoleServer, request};
use nameserver::http::{HttpOptions, Page};
use nameserver_core::protocol::RequestCode;
use support::request as tcp_request;

const TOKEN: &str = "s3cret-token";

/// Every route the console has (and one it has not).
const ROUTES: &[&str] = &[
    "/",
    "/www",
    "/www/",
    "/www/index.html",
    "/pkg/nameserver_wasm_bg.wasm",
    "/api",
    "/api/view",
    "/api/cluster",
    "/api/brokers",
    "/api/topics",
    "/api/routes/TBW102",
    "/api/kv",
    "/api/kv/ns/key",
    "/api/config",
    "/api/peers",
    "/api/events",
    "/metrics",
    "/healthz",
    "/rocketmq/nsaddr",
    "/rocketmq/nsaddr-unit",
    "/no/such/route",
];

const WRITES: &[&str] = &["PUT", "POST", "DELETE", "PATCH", "OPTIONS"];

/// A page directory: www/ and pkg/, and a file beside them that must never be served.
fn page_root() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("www")).unwrap();
    std::fs::create_dir(root.path().join("pkg")).unwrap();
    std::fs::write(root.path().join("www/index.html"), "<!doctype html><title>page</title>").unwrap();
    std::fs::write(root.path().join("pkg/nameserver_wasm_bg.wasm"), b"\0asm").unwrap();
    std::fs::write(root.path().join("secret.txt"), "not for the web").unwrap();
    root
}

#[tokio::test]
async fn every_route_refuses_every_write_method_by_default() {
    let root = page_root();
    let options = HttpOptions { page: Page::Dir(root.path().to_path_buf()), ..HttpOptions::default() };
    let server = ConsoleServer::start_with(options, |_| {}).await;
    for route in ROUTES {
        for method in WRITES {
            let response = request(server.http, method, route, &[("Authorization", "Bearer anything")], b"x").await;
            assert_eq!(response.status, 405, "{method} {route}: {}", response.text());
            assert_eq!(response.header("allow"), Some("GET, HEAD"), "{method} {route}");
        }
    }
    // Reads work, and the KV table is untouched.
    assert_eq!(server.get("/www/index.html").await.status, 200);
    assert_eq!(request(server.http, "HEAD", "/api/kv", &[], b"").await.status, 200);
    assert_eq!(server.get_json("/api/kv").await, serde_json::json!({ "configTable": {} }));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn only_www_and_pkg_of_the_page_directory_are_served() {
    let root = page_root();
    let options = HttpOptions { page: Page::Dir(root.path().to_path_buf()), ..HttpOptions::default() };
    let server = ConsoleServer::start_with(options, |_| {}).await;
    let page = server.get("/www/").await;
    assert_eq!(page.status, 200);
    assert!(page.text().contains("<title>page</title>"));
    assert_eq!(page.header("cache-control"), Some("no-cache"));
    let wasm = server.get("/pkg/nameserver_wasm_bg.wasm").await;
    assert_eq!((wasm.status, wasm.header("content-type")), (200, Some("application/wasm")));
    assert_eq!(server.get("/").await.header("location"), Some("/www/"));
    for path in
        ["/secret.txt", "/www/../secret.txt", "/www/%2e%2e/secret.txt", "/pkg/..%2fsecret.txt", "/www/missing.js"]
    {
        let response = server.get(path).await;
        assert_ne!(response.status, 200, "{path}");
        assert!(!response.text().contains("not for the web"), "{path}");
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn without_a_page_directory_only_the_api_is_served() {
    let server = ConsoleServer::start().await;
    let page = server.get("/www/").await;
    assert_eq!(page.status, 404);
    assert!(page.text().contains("built without its page"), "{}", page.text());
    assert_eq!(server.get("/healthz").await.status, 200);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn with_a_token_kv_entries_can_be_put_and_deleted_and_nothing_else() {
    let options = HttpOptions { token: Some(String::from(TOKEN)), ..HttpOptions::default() };
    let server = ConsoleServer::start_with(options, |_| {}).await;
    let bearer = format!("Bearer {TOKEN}");
    let mut events = server.events().await;

    let anonymous = request(server.http, "PUT", "/api/kv/ns/key", &[], b"v1").await;
    assert_eq!(anonymous.status, 401);
    assert_eq!(anonymous.header("www-authenticate"), Some("Bearer"));
    let wrong = request(server.http, "PUT", "/api/kv/ns/key", &[("Authorization", "Bearer s3cret-tokem")], b"v1").await;
    assert_eq!(wrong.status, 403);
    for route in ROUTES.iter().filter(|r| !r.starts_with("/api/kv/")) {
        for method in WRITES {
            let response = request(server.http, method, route, &[("Authorization", &bearer)], b"x").await;
            assert_eq!(response.status, 405, "{method} {route} with the token");
        }
    }
    assert_eq!(request(server.http, "POST", "/api/kv/ns/key", &[("Authorization", &bearer)], b"v").await.status, 405);
    assert_eq!(
        server.get_json("/api/kv").await,
        serde_json::json!({ "configTable": {} }),
        "refused writes wrote nothing"
    );

    let put = request(server.http, "PUT", "/api/kv/ns/key", &[("Authorization", &bearer)], b"v1").await;
    assert_eq!(put.status, 200, "{}", put.text());
    let line = events.wait_for("log", |e| e["kind"] == "kv").await.json();
    assert_eq!(line["text"], "putKVConfig create new config item, Namespace: ns Key: key Value: v1");
    server.wait_json("/api/kv", |v| v["configTable"]["ns"]["key"] == "v1").await;
    // Over TCP it is the same table, and it was persisted.
    let mut admin = server.client().await;
    let got = admin.request(&tcp_request(RequestCode::GetKvConfig, 1, &[("namespace", "ns"), ("key", "key")])).await;
    assert_eq!(got.field("value"), Some("v1"));
    // Answered once on disk: the journal beside kvConfig.json, which a start replays, holds it.
    let file = std::path::PathBuf::from(&server.config.namesrv.kv_config_path);
    assert_eq!(nameserver::load_kv(&file).unwrap().get("ns", "key"), Some("v1"));

    let delete = request(server.http, "DELETE", "/api/kv/ns/key", &[("Authorization", &bearer)], b"").await;
    assert_eq!(delete.status, 200, "{}", delete.text());
    server.wait_json("/api/kv", |v| v["configTable"]["ns"].get("key").is_none()).await;
    assert_eq!(server.get("/api/kv/ns/key").await.status, 404);
    server.stop().await.unwrap();
}

/// `/metrics` as series (with their labels) → value.
async fn metrics(server: &ConsoleServer) -> std::collections::BTreeMap<String, f64> {
    let text = server.get("/metrics").await.text();
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| line.rsplit_once(' '))
        .filter_map(|(series, value)| Some((series.to_string(), value.parse().ok()?)))
        .collect()
}

#[tokio::test]
async fn console_writes_are_requests_to_the_owner_not_connections() {
    let options = HttpOptions { token: Some(String::from(TOKEN)), ..HttpOptions::default() };
    let server = ConsoleServer::start_with(options, |_| {}).await;
    let mut admin = server.client().await;
    let got = admin.request(&tcp_request(RequestCode::GetKvConfig, 1, &[("namespace", "ns"), ("key", "key")])).await;
    assert_eq!(got.code, 22, "no entry yet");
    let before = metrics(&server).await;
    assert_eq!(before["nameserver_connections_accepted_total"], 1.0, "the admin client");

    let bearer = format!("Bearer {TOKEN}");
    for _ in 0..3 {
        let put = request(server.http, "PUT", "/api/kv/ns/key", &[("Authorization", &bearer)], b"v1").await;
        assert_eq!(put.status, 200, "{}", put.text());
    }
    let delete = request(server.http, "DELETE", "/api/kv/ns/key", &[("Authorization", &bearer)], b"").await;
    assert_eq!(delete.status, 200, "{}", delete.text());

    let after = metrics(&server).await;
    for series in ["nameserver_connections_accepted_total", "nameserver_connections"] {
        assert_eq!(after[series], before[series], "{series}");
    }
    // Still requests the core answered, counted as such.
    let answered = |request: &str| {
        after
            .iter()
            .filter(|(series, _)| {
                series.starts_with("nameserver_requests_total{")
                    && series.contains(&format!("request=\"{request}\""))
                    && series.contains("response=\"SUCCESS\"")
            })
            .map(|(_, value)| *value)
            .sum::<f64>()
    };
    assert_eq!(answered("PUT_KV_CONFIG"), 3.0);
    assert_eq!(answered("DELETE_KV_CONFIG"), 1.0);
    let got = admin.request(&tcp_request(RequestCode::GetKvConfig, 2, &[("namespace", "ns"), ("key", "key")])).await;
    assert_eq!(got.code, 22, "deleted");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn other_origins_read_the_api_only_when_allowed() {
    let page = "http://127.0.0.1:3000";
    let server = ConsoleServer::start().await;
    let response = request(server.http, "GET", "/api/view", &[("Origin", page)], b"").await;
    assert_eq!(response.status, 200);
    assert_eq!(response.header("access-control-allow-origin"), None, "same origin only by default");
    server.stop().await.unwrap();

    let options = HttpOptions { allow_origins: vec![String::from(page)], ..HttpOptions::default() };
    let server = ConsoleServer::start_with(options, |_| {}).await;
    let response = request(server.http, "GET", "/api/view", &[("Origin", page)], b"").await;
    assert_eq!(response.header("access-control-allow-origin"), Some(page));
    let other = request(server.http, "GET", "/api/view", &[("Origin", "http://evil.example")], b"").await;
    assert_eq!(other.header("access-control-allow-origin"), None);
    let preflight = request(
        server.http,
        "OPTIONS",
        "/api/kv/ns/key",
        &[("Origin", page), ("Access-Control-Request-Method", "PUT")],
        b"",
    )
    .await;
    let methods = preflight.header("access-control-allow-methods").unwrap_or_default().to_string();
    assert!(!methods.contains("PUT"), "no token, no writes: {methods}");
    let put = request(server.http, "PUT", "/api/kv/ns/key", &[("Origin", page)], b"v").await;
    assert_eq!(put.status, 405);
    server.stop().await.unwrap();
}

/// The response head of `GET /api/events` sent with `Origin: origin`, and the first event's
/// type.
async fn event_stream_head(http: std::net::SocketAddr, origin: &str) -> (String, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(http).await.unwrap();
    let head =
        format!("GET /api/events HTTP/1.1\r\nHost: {http}\r\nOrigin: {origin}\r\nAccept: text/event-stream\r\n\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    let text = loop {
        let mut chunk = [0; 4096];
        let n = tokio::time::timeout(support::PATIENCE, stream.read(&mut chunk)).await.unwrap().unwrap();
        assert!(n > 0, "the stream closed");
        raw.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&raw).to_string();
        if text.contains("\r\n\r\n") && text.contains("event: ") {
            break text;
        }
    };
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let event = body.split("event: ").nth(1).unwrap().lines().next().unwrap().to_string();
    (head.to_ascii_lowercase(), event)
}

#[tokio::test]
async fn a_page_on_another_daemon_reads_every_live_path_and_writes_only_with_the_token() {
    // The page at http://A:8080/www/?live=http://A:8080,http://B:8080 reads B from A's origin.
    let page = "http://127.0.0.1:8080";
    let options =
        HttpOptions { allow_origins: vec![String::from(page)], token: Some(TOKEN.into()), ..HttpOptions::default() };
    let b = ConsoleServer::start_with(options, |_| {}).await;
    let mut broker = b.client().await;
    assert_eq!(support::decode(&broker.call(&support::register_broker_frame()).await).code, 0);
    b.wait_json("/api/topics", |v| v["topics"].as_array().is_some_and(|t| !t.is_empty())).await;
    for path in [
        "/api/view",
        "/api/brokers",
        "/api/cluster",
        "/api/topics",
        "/api/routes/TBW102",
        "/api/peers",
        "/api/kv",
        "/api/config",
        "/metrics",
    ] {
        let response = request(b.http, "GET", path, &[("Origin", page)], b"").await;
        assert_eq!(response.status, 200, "{path}");
        assert_eq!(response.header("access-control-allow-origin"), Some(page), "{path}");
        let vary: Vec<&str> = response.headers.iter().filter(|(k, _)| k == "vary").map(|(_, v)| v.as_str()).collect();
        assert!(
            vary.iter().any(|v| v.to_ascii_lowercase().contains("origin")),
            "{path}: caches must not mix origins: {vary:?}"
        );
        let other = request(b.http, "GET", path, &[("Origin", "http://evil.example")], b"").await;
        assert_eq!(other.header("access-control-allow-origin"), None, "{path}");
    }
    // The event stream (EventSource sends Origin and no preflight).
    let (head, first) = event_stream_head(b.http, page).await;
    assert!(head.contains(&format!("access-control-allow-origin: {page}")), "{head}");
    assert!(head.contains("content-type: text/event-stream"), "{head}");
    assert_eq!(first, "view");
    let (head, _) = event_stream_head(b.http, "http://evil.example").await;
    assert!(!head.contains("access-control-allow-origin"), "{head}");

    // Writes: the preflight allows PUT (a token is set), the write itself still needs it.
    let preflight = request(
        b.http,
        "OPTIONS",
        "/api/kv/ns/key",
        &[
            ("Origin", page),
            ("Access-Control-Request-Method", "PUT"),
            ("Access-Control-Request-Headers", "authorization"),
        ],
        b"",
    )
    .await;
    assert!(preflight.header("access-control-allow-methods").is_some_and(|m| m.contains("PUT")), "{preflight:?}");
    let refused = request(b.http, "PUT", "/api/kv/ns/key", &[("Origin", page)], b"v").await;
    assert_eq!(refused.status, 401);
    assert_eq!(refused.header("access-control-allow-origin"), Some(page), "the page can read why");
    let wrong =
        request(b.http, "PUT", "/api/kv/ns/key", &[("Origin", page), ("Authorization", "Bearer nope")], b"v").await;
    assert_eq!(wrong.status, 403);
    assert_eq!(b.get("/api/kv/ns/key").await.status, 404, "nothing was written");
    let bearer = format!("Bearer {TOKEN}");
    let put = request(b.http, "PUT", "/api/kv/ns/key", &[("Origin", page), ("Authorization", &bearer)], b"v").await;
    assert_eq!(put.status, 200, "{}", put.text());
    b.stop().await.unwrap();
}

#[tokio::test]
async fn a_console_on_loopback_answers_only_requests_addressed_to_this_machine() {
    let server = ConsoleServer::start().await;
    let status = |host: &'static str, path: &'static str| async move {
        let mut stream = tokio::net::TcpStream::connect(server.http).await.unwrap();
        let head = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
        tokio::io::AsyncWriteExt::write_all(&mut stream, head.as_bytes()).await.unwrap();
        let mut text = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut stream, &mut text).await.unwrap();
        text.lines().next().unwrap_or_default().to_string()
    };
    // A name that resolves to 127.0.0.1 is how another web page would reach it (DNS rebinding).
    for host in ["evil.example", "evil.example:8080", "127.0.0.1.nip.io"] {
        assert_eq!(status(host, "/api/view").await, "HTTP/1.1 421 Misdirected Request", "{host}");
    }
    assert_eq!(status("localhost:8080", "/api/view").await, "HTTP/1.1 200 OK");
    // Clients find the address server by rocketmq.namesrv.domain (jmenv.tbsite.net by default).
    assert_eq!(status("jmenv.tbsite.net:8080", "/rocketmq/nsaddr").await, "HTTP/1.1 200 OK");
    server.stop().await.unwrap();
}
