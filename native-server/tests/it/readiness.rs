//! `/readyz` over HTTP: 503 while `needWaitForService` holds route queries back, 200 once
//! they are answered, 503 again from the moment shutdown begins until the drain has ended
//! (by itself or at the deadline) and the files are written; `/healthz` stays 200 (liveness)
//! throughout; then the console answers what it accepted and closes.

use crate::http_support;
use crate::support;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use http_support::ConsoleServer;
use nameserver::http::HttpOptions;
use support::{CloggedPeer, decode, eventually, register_broker_frame, route_query, within};
use tokio::io::AsyncWriteExt as _;

fn status_of(body: &[u8]) -> String {
    let value: serde_json::Value = serde_json::from_slice(body).unwrap();
    value["status"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn ready_only_once_the_wait_for_service_is_over() {
    let started = Instant::now();
    let server = ConsoleServer::start_with(HttpOptions::default(), |c| {
        c.namesrv.need_wait_for_service = true;
        c.namesrv.wait_seconds_for_service = 1;
    })
    .await;
    let early = server.get("/readyz").await;
    assert_eq!(early.status, 503, "{}", early.text());
    assert_eq!(status_of(&early.body), "WAITING_FOR_SERVICE");
    assert_eq!(server.get("/healthz").await.status, 200, "alive while not ready");
    // Route queries are refused meanwhile ("name server not ready"), which is what 503 says.
    let mut client = server.client().await;
    assert_ne!(client.request(&route_query("TBW102", 1)).await.code, 0);

    let ready = eventually("ready", || async { Some(server.get("/readyz").await).filter(|r| r.status == 200) }).await;
    assert!(started.elapsed() >= Duration::from_millis(900), "ready after {:?}", started.elapsed());
    assert_eq!(status_of(&ready.body), "READY");
    assert_eq!(ready.header("content-type"), Some("application/json"));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn ready_at_once_without_the_wait() {
    let server = ConsoleServer::start().await;
    let response = server.get("/readyz").await;
    assert_eq!((response.status, status_of(&response.body)), (200, String::from("READY")));
    server.stop().await.unwrap();
}

/// How many times each test asks `/readyz` and `/healthz` while the drain waits for the peer.
const POLLS: usize = 5;

/// Asks `/readyz` and `/healthz` once: 503 `SHUTTING_DOWN` and 200.
async fn assert_shutting_down(http: SocketAddr) {
    let ready = http_support::request(http, "GET", "/readyz", &[], b"").await;
    assert_eq!((ready.status, status_of(&ready.body)), (503, String::from("SHUTTING_DOWN")), "{}", ready.text());
    assert_eq!(http_support::request(http, "GET", "/healthz", &[], b"").await.status, 200, "alive while draining");
}

/// Begins the shutdown and returns once it has begun: the console ends its event streams then.
async fn begin_stop(server: ConsoleServer) -> tokio::task::JoinHandle<std::io::Result<()>> {
    let mut events = server.events().await;
    let stopped = server.begin_stop();
    within("the event stream ends at the stop", async { while events.next().await.is_some() {} }).await;
    stopped
}

/// After `run` returned: whoever answers on the console's port now (other tests' daemons run
/// in this process and may be given the freed port), it is not this NameServer.
async fn assert_console_closed(http: SocketAddr, tcp: SocketAddr) {
    if tokio::net::TcpStream::connect(http).await.is_ok() {
        let view = http_support::request(http, "GET", "/api/view", &[], b"").await;
        let address = serde_json::from_slice::<serde_json::Value>(&view.body).ok().map(|v| v["address"].to_string());
        assert_ne!(address, Some(format!("\"{tcp}\"")), "the console is closed after the drain");
    }
}

async fn clogged_console_server(grace: Duration) -> (ConsoleServer, CloggedPeer) {
    let server = ConsoleServer::start_with(HttpOptions::default(), |c| c.shutdown_grace = grace).await;
    let mut broker = server.client().await;
    assert_eq!(decode(&broker.call(&register_broker_frame()).await).code, 0);
    let mut client = server.client().await;
    assert_eq!(client.request(&route_query("TBW102", 1)).await.code, 0, "warms the topic");
    let peer = CloggedPeer::flood(server.tcp, "TBW102").await;
    assert_eq!(server.get("/readyz").await.status, 200);
    (server, peer)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn not_ready_from_the_start_of_a_shutdown_until_the_drain_ends() {
    // The grace period is far away: only the peer's reading ends this drain.
    let (server, peer) = clogged_console_server(Duration::from_secs(60)).await;
    let (http, tcp) = (server.http, server.tcp);
    // A console client that never finishes its request: it gets a second at the end, not the
    // rest of the grace period.
    let mut stuck = tokio::net::TcpStream::connect(http).await.unwrap();
    stuck.write_all(format!("GET /readyz HTTP/1.1\r\nHost: {http}\r\n").as_bytes()).await.unwrap();
    let stopped = begin_stop(server).await;
    for _ in 0..POLLS {
        assert_shutting_down(http).await;
    }
    assert!(!stopped.is_finished(), "the clogged connection holds the drain");
    let replies = within("the peer reads its replies to the end", peer.read_to_end()).await;
    assert!(replies > 0);
    within("run returns once the drain has ended", stopped).await.unwrap().unwrap();
    assert_console_closed(http, tcp).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drain_that_reaches_the_deadline_closes_the_console_too() {
    // Nothing here races the 1 s deadline: the peer never reads, the console client never
    // finishes its request, and both are in place before the stop.
    let (server, peer) = clogged_console_server(Duration::from_secs(1)).await;
    let (http, tcp) = (server.http, server.tcp);
    let mut stuck = tokio::net::TcpStream::connect(http).await.unwrap();
    stuck.write_all(format!("GET /readyz HTTP/1.1\r\nHost: {http}\r\n").as_bytes()).await.unwrap();
    let stopped = begin_stop(server).await;
    within("the deadline closes the peer that never reads", peer.closed_by_server()).await;
    within("run returns after the deadline", stopped).await.unwrap().unwrap();
    assert_console_closed(http, tcp).await;
    drop(stuck);
}
