//! The console's own limits, so that it can never take what port 9876 needs or serve a page
//! that reached it by a name it does not know: event streams are capped (the next gets 503),
//! a connection that sends no request is closed at the header deadline, and a request
//! addressed to an unknown host name gets 421 on any bind address, not only on loopback.
//! (Connections beyond `--http-max-connections` under a low open-files limit: `tests/open_files.rs`.)

use std::time::Duration;

use nameserver::http::{Console, HttpOptions};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::http_support::ConsoleServer;
use crate::support::{PATIENCE, TestServer, eventually, server_config};

/// Sends `head` as it is and returns the status code of the response.
async fn status(addr: std::net::SocketAddr, head: &str) -> u16 {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    let mut chunk = [0; 1024];
    while !raw.windows(2).any(|w| w == b"\r\n") {
        let n = tokio::time::timeout(PATIENCE, stream.read(&mut chunk)).await.expect("a response").unwrap();
        assert!(n > 0, "closed before a status line");
        raw.extend_from_slice(&chunk[..n]);
    }
    String::from_utf8_lossy(&raw[9..12]).parse().unwrap()
}

#[tokio::test]
async fn the_event_stream_past_the_cap_gets_503_and_a_closed_one_frees_its_slot() {
    let options = HttpOptions { max_event_streams: 3, ..HttpOptions::default() };
    let server = ConsoleServer::start_with(options, |_| {}).await;
    let mut open = Vec::new();
    for _ in 0..3 {
        open.push(server.events().await);
    }
    let refused = server.get("/api/events").await;
    assert_eq!(refused.status, 503, "{}", refused.text());
    assert!(refused.text().contains("too many event streams"), "{}", refused.text());
    assert_eq!(server.get("/healthz").await.status, 200, "everything else is still served");
    drop(open.pop());
    // The slot comes back once the server sees the stream end.
    let head = format!("GET /api/events HTTP/1.1\r\nHost: {}\r\n\r\n", server.http);
    eventually("the closed stream's slot comes back", || async {
        (status(server.http, &head).await == 200).then_some(())
    })
    .await;
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_connection_that_sends_no_request_is_closed_at_the_header_deadline() {
    let options = HttpOptions { header_timeout: Duration::from_millis(300), ..HttpOptions::default() };
    let server = ConsoleServer::start_with(options, |_| {}).await;
    let mut silent = TcpStream::connect(server.http).await.unwrap();
    let mut byte = [0; 1];
    let read = tokio::time::timeout(PATIENCE, silent.read(&mut byte)).await.expect("closed within the hang guard");
    assert!(matches!(read, Ok(0) | Err(_)), "closed with nothing sent: {read:?}");
    // So is one that stops after a response: the deadline runs again from it.
    let mut kept = TcpStream::connect(server.http).await.unwrap();
    let head = format!("GET /healthz HTTP/1.1\r\nHost: {}\r\n\r\n", server.http);
    kept.write_all(head.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    let n = tokio::time::timeout(PATIENCE, kept.read_to_end(&mut raw)).await.expect("closed within the hang guard");
    assert!(n.is_ok() && raw.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&raw));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn on_every_interface_an_unknown_host_name_gets_421() {
    let dir = tempfile::tempdir().unwrap();
    let config = server_config(dir.path());
    let listener = TcpListener::bind("0.0.0.0:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let options = HttpOptions { allowed_hosts: vec![String::from("ns-0.rocketmq.example")], ..HttpOptions::default() };
    let server = TestServer::serve(dir, config, Some(Console { listener, options })).await;
    let http: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let get = |path: &str, host: &str| format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    // Let the console publish its first view (it answers nothing before).
    eventually("the console answers", || async {
        (status(http, &get("/healthz", "127.0.0.1")).await == 200).then_some(())
    })
    .await;
    assert_eq!(status(http, &get("/api/view", "evil.example")).await, 421);
    assert_eq!(status(http, &get("/www/", "evil.example:8080")).await, 421);
    assert_eq!(status(http, &get("/api/view", "10.0.0.7:8080")).await, 200, "an IP address");
    assert_eq!(status(http, &get("/api/view", "NS-0.rocketmq.example:8080")).await, 200, "a name it was given");
    assert_eq!(
        status(http, &get("/rocketmq/nsaddr", "evil.example")).await,
        200,
        "the address server answers any name"
    );
    server.stop().await.0.unwrap();
}
