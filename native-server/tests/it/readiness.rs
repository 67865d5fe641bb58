//! `/readyz` over HTTP: 503 while `needWaitForService` holds route queries back, 200 once
//! they are answered, 503 again from the moment shutdown begins while connections drain;
//! `/healthz` stays 200 (liveness) throughout.

use crate::http_support;
use crate::support;

use std::time::{Duration, Instant};

use http_support::ConsoleServer;
use nameserver::http::HttpOptions;
use support::{PATIENCE, clogged_peer, decode, register_broker_frame, route_query};

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

    let ready = loop {
        let response = server.get("/readyz").await;
        if response.status == 200 {
            break response;
        }
        assert!(started.elapsed() < PATIENCE, "never ready: {}", response.text());
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn not_ready_once_shutdown_begins_while_connections_drain() {
    let server = ConsoleServer::start_with(HttpOptions::default(), |c| c.shutdown_grace = Duration::from_secs(3)).await;
    let mut broker = server.client().await;
    assert_eq!(decode(&broker.call(&register_broker_frame()).await).code, 0);
    let mut client = server.client().await;
    assert_eq!(client.request(&route_query("TBW102", 1)).await.code, 0, "warms the topic");
    let flood = clogged_peer(server.tcp, "TBW102").await;
    assert_eq!(server.get("/readyz").await.status, 200);

    let (http, tcp) = (server.http, server.tcp);
    let begun = Instant::now();
    let stopped = server.begin_stop();
    let mut seen = None;
    while begun.elapsed() < Duration::from_secs(2) {
        let response = http_support::request(http, "GET", "/readyz", &[], b"").await;
        if response.status == 503 {
            seen = Some(status_of(&response.body));
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(seen.as_deref(), Some("SHUTTING_DOWN"), "503 while the clogged connection drains");
    assert_eq!(http_support::request(http, "GET", "/healthz", &[], b"").await.status, 200);
    stopped.await.unwrap().unwrap();
    assert!(begun.elapsed() >= Duration::from_secs(2), "the drain lasted the grace period: {:?}", begun.elapsed());
    // Other tests' daemons run in this process and may be given the freed port: whoever
    // answers there now, it is not this NameServer.
    if tokio::net::TcpStream::connect(http).await.is_ok() {
        let view = http_support::request(http, "GET", "/api/view", &[], b"").await;
        let address = serde_json::from_slice::<serde_json::Value>(&view.body).ok().map(|v| v["address"].to_string());
        assert_ne!(address, Some(format!("\"{tcp}\"")), "the console is closed after the drain");
    }
    flood.await.unwrap();
}
