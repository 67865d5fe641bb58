//! HAProxy's PROXY protocol, as Java's NettyRemotingServer (5.1.4+) reads it before its
//! TLS/plain decision, but only from the networks `--proxy-protocol-from` lists (here
//! 127.0.0.2, the proxy's address; brokers and witnesses connect from 127.0.0.1): v1 and v2,
//! IPv4 and IPv6, plaintext or TLS after the header. The client address the header carries is
//! the one the console, the log lines and the connection table show; a truncated or
//! malformed header closes that connection only. `hostile/fairness.rs` has the refusals.

use crate::http_support;
use crate::support;
use crate::tls_support;

use std::net::SocketAddr;
use std::time::Duration;

use http_support::ConsoleServer;
use nameserver::ServerConfig;
use nameserver::http::HttpOptions;
use nameserver::tls::TlsMode;
use nameserver_core::codec;
use support::{Client, FrozenClock, decode, register_broker_frame, route_query};
use tls_support::{Pki, call, read_frame, tls_connect};
use tokio::io::AsyncWriteExt as _;
use tokio::net::{TcpSocket, TcpStream};

/// A topic the real broker registers.
const TOPIC: &str = "TBW102";

fn v1(source: &str, port: u16) -> Vec<u8> {
    let family = if source.contains(':') { "TCP6" } else { "TCP4" };
    let destination = if source.contains(':') { "::1" } else { "127.0.0.1" };
    format!("PROXY {family} {source} {destination} {port} 9876\r\n").into_bytes()
}

fn v2(source: SocketAddr) -> Vec<u8> {
    let mut out = b"\r\n\r\n\0\r\nQUIT\n".to_vec();
    let addresses: Vec<u8> = match source {
        SocketAddr::V4(a) => {
            [a.ip().octets().as_slice(), &[127, 0, 0, 1], &a.port().to_be_bytes(), &[0x26, 0x94]].concat()
        }
        SocketAddr::V6(a) => {
            [a.ip().octets().as_slice(), &[0; 15], &[1], &a.port().to_be_bytes(), &[0x26, 0x94]].concat()
        }
    };
    out.extend_from_slice(&[0x21, if source.is_ipv4() { 0x11 } else { 0x21 }]);
    // A NOOP TLV after the addresses, as proxies may send.
    let tlv = [0x04, 0, 1, 0];
    out.extend_from_slice(&u16::try_from(addresses.len() + tlv.len()).unwrap().to_be_bytes());
    out.extend_from_slice(&addresses);
    out.extend_from_slice(&tlv);
    out
}

/// The proxy's address, the one `--proxy-protocol-from` lists.
const PROXY: &str = "127.0.0.2";

/// A server that reads PROXY headers from [`PROXY`].
async fn server_with(options: HttpOptions, tweak: impl FnOnce(&mut ServerConfig)) -> ConsoleServer {
    ConsoleServer::start_with(options, |c| {
        c.proxy_protocol_from = PROXY.parse().unwrap();
        tweak(c);
    })
    .await
}

/// A connection from [`PROXY`].
async fn from_proxy(addr: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(PROXY.parse().unwrap(), 0)).unwrap();
    socket.connect(addr).await.unwrap()
}

/// A plaintext connection from [`PROXY`] that first sends `header`.
async fn behind_proxy(addr: SocketAddr, header: &[u8]) -> TcpStream {
    let mut stream = from_proxy(addr).await;
    stream.write_all(header).await.unwrap();
    stream
}

/// TLS from [`PROXY`] after `header`.
async fn tls_behind_proxy(
    connector: &tokio_rustls::TlsConnector,
    addr: SocketAddr,
    header: &[u8],
) -> std::io::Result<tokio_rustls::client::TlsStream<TcpStream>> {
    let tcp = behind_proxy(addr, header).await;
    connector.connect(tokio_rustls::rustls::pki_types::ServerName::try_from("localhost").unwrap(), tcp).await
}

/// Asks for the route on `stream` until the console reports a route query from `expected`
/// (the stream may first replay earlier ones); panics if none comes.
async fn assert_route_query_reported_from(
    server: &ConsoleServer,
    stream: &mut (impl tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin),
    expected: &str,
) {
    let mut events = server.events().await;
    let wanted = format!("GET_ROUTEINFO_BY_TOPIC {TOPIC} from {expected}: SUCCESS");
    let mut seen = Vec::new();
    let started = std::time::Instant::now();
    for opaque in 0.. {
        let reply = call(stream, &route_query(TOPIC, opaque)).await.expect("a route reply");
        assert_eq!(reply.code, 0);
        while let Ok(Some(sse)) = tokio::time::timeout(Duration::from_millis(150), events.next()).await {
            let value = sse.json();
            if value["kind"] == "route-query" {
                let text = value["text"].as_str().unwrap().to_string();
                if text == wanted {
                    return;
                }
                seen.push(text);
            }
        }
        assert!(started.elapsed() < support::PATIENCE, "no route query from {expected}; saw {seen:#?}");
    }
}

async fn registered(server: &ConsoleServer) -> Client {
    let mut broker = server.client().await;
    let reply = decode(&broker.call(&register_broker_frame()).await);
    assert_eq!(reply.code, 0);
    broker
}

#[tokio::test]
async fn v1_and_v2_in_plaintext_carry_the_client_address_for_ipv4_and_ipv6() {
    let server = server_with(HttpOptions::default(), |_| {}).await;
    let _broker = registered(&server).await;
    let cases = [
        (v1("203.0.113.7", 51234), "203.0.113.7:51234"),
        (v1("2001:db8::7", 51235), "[2001:db8::7]:51235"),
        (v2("198.51.100.9:40000".parse().unwrap()), "198.51.100.9:40000"),
        (v2("[2001:db8::9]:40001".parse().unwrap()), "[2001:db8::9]:40001"),
    ];
    for (header, expected) in cases {
        let mut stream = behind_proxy(server.tcp, &header).await;
        assert_route_query_reported_from(&server, &mut stream, expected).await;
    }
    // A v2 LOCAL header (the proxy's own health check) keeps the peer's address.
    let mut local = b"\r\n\r\n\0\r\nQUIT\n".to_vec();
    local.extend_from_slice(&[0x20, 0x00, 0, 0]);
    let mut stream = behind_proxy(server.tcp, &local).await;
    let own = stream.local_addr().unwrap().to_string();
    assert_route_query_reported_from(&server, &mut stream, &own).await;
}

#[tokio::test]
async fn tls_after_a_proxy_header_for_ipv4_and_ipv6() {
    let pki = Pki::new();
    let tls = pki.server(TlsMode::Enforcing);
    let server = server_with(HttpOptions::default(), move |c| c.tls = tls).await;
    // In enforcing mode the broker registers over TLS too.
    let mut broker = tls_connect(&pki.client(false), server.tcp, b"").await.unwrap();
    assert_eq!(call(&mut broker, &decode(&register_broker_frame())).await.unwrap().code, 0);
    for (header, expected) in [
        (v1("203.0.113.7", 51234), "203.0.113.7:51234"),
        (v2("[2001:db8::9]:40001".parse().unwrap()), "[2001:db8::9]:40001"),
    ] {
        let mut stream = tls_behind_proxy(&pki.client(false), server.tcp, &header).await.expect("TLS after the header");
        assert_route_query_reported_from(&server, &mut stream, expected).await;
    }
}

#[tokio::test]
async fn a_truncated_or_malformed_header_closes_that_connection_only() {
    let server = server_with(HttpOptions::default(), |c| {
        c.io_deadline = Duration::from_secs(1);
    })
    .await;
    let _broker = registered(&server).await;
    let mut witness = server.client().await;
    let v2_header = v2("198.51.100.9:40000".parse().unwrap());
    let mut bad_version = v2_header.clone();
    bad_version[12] = 0x31;
    let mut too_short = v2_header[..16].to_vec();
    too_short[15] = 4; // four bytes cannot hold two IPv4 addresses and ports
    too_short.extend_from_slice(&[1, 2, 3, 4]);
    let cases: [(&str, Vec<u8>); 5] = [
        ("malformed v1", b"PROXY TCP4 not-an-address 10.0.0.1 1 2\r\n".to_vec()),
        ("v1 without CRLF", [b"PROXY TCP4 ".as_slice(), &[b'1'; 120]].concat()),
        ("v2 with a bad version", bad_version),
        ("v2 with addresses too short for its family", too_short),
        ("v1 then silence", b"PROXY TCP4 203.0.113.7".to_vec()),
    ];
    for (what, bytes) in cases {
        let mut stream = behind_proxy(server.tcp, &bytes).await;
        // Frames after a bad header are never read.
        let _ = stream.write_all(&codec::encode_to_vec(&route_query(TOPIC, 1)).unwrap()).await;
        assert!(read_frame(&mut stream).await.is_none(), "{what}: closed with no reply");
        assert_eq!(witness.request(&route_query(TOPIC, 2)).await.code, 0, "{what}: others unaffected");
    }
}

#[tokio::test(start_paused = true)]
async fn the_carried_address_is_in_the_log_lines_and_the_connection_table() {
    let _frozen = FrozenClock::new();
    let server = server_with(HttpOptions::default(), |_| {}).await;
    let mut events = server.events().await;
    let _broker = registered(&server).await;
    let mut idle = behind_proxy(server.tcp, &v1("203.0.113.7", 51234)).await;
    assert_eq!(call(&mut idle, &route_query(TOPIC, 1)).await.unwrap().code, 0);
    tokio::time::advance(Duration::from_secs(121)).await;
    // The core's connection table gave the idle close's log line its address.
    let idle = events
        .wait_for("log", |e| e["kind"] == "channel-idle" && e["text"].as_str().is_some_and(|t| t.contains("203.")))
        .await;
    assert_eq!(idle.json()["text"], "NETTY SERVER PIPELINE: IDLE exception [203.0.113.7:51234]");
}
