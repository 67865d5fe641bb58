//! The hostile-input table of RELIABILITY.md, one test per row, against the real `nameserver`
//! binary over TCP on 127.0.0.1.
//!
//! Every test starts its own daemon and a [`Witness`]: a well-behaved client whose broker is
//! registered and who asks for its route every 10 ms while the hostile peer does its thing,
//! checking each answer against the first. Where memory could grow, the daemon's resident
//! set is read from `/proc/<pid>/status` before and after.
//!
//! Outcomes follow PROTOCOL.md §1.3: anything that cannot be framed or whose header cannot be
//! read closes that connection with no reply ("decode exception"); a readable request with
//! bad content gets an error response and the connection stays open.

use crate::{reliability, support};

mod bodies;
mod budgets;
mod fairness;
mod framing;
mod peers;
mod queue;
mod requests;
mod sizes;
mod startup;
mod unwind;

use std::io::Write as _;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use nameserver_core::codec;
use nameserver_core::protocol::body::{BodyError, RegisterBrokerBody};
use nameserver_core::protocol::{FLAG_ONEWAY, FLAG_RESPONSE, RemotingCommand, RequestCode, SerializeType};
use reliability::{
    Peer, Server, WITNESS_TOPIC, Witness, json_frame, register, request, route_query, settles, typed_frame,
    zlib_against, zlib_zeros,
};

const KIB_PER_MIB: u64 = 1024;

/// One HTTP/1.1 request to the console, its body (200 expected).
fn http(console: SocketAddr, method: &str, path: &str) -> String {
    let response = crate::http_support::request_blocking(console, method, path);
    assert_eq!(response.status, 200, "{method} {path}: {}", response.text());
    response.text()
}

/// The value of a metric line starting with `series ` (0 when absent).
fn metric(console: SocketAddr, series: &str) -> u64 {
    let text = http(console, "GET", "/metrics");
    text.lines().find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok()).unwrap_or(0)
}

/// A daemon with a witness running; `settings` go into its properties file.
fn start(settings: &[(&str, &str)]) -> (Server, Witness) {
    let server = Server::start(settings, &[]);
    let witness = Witness::start(&server);
    (server, witness)
}

/// A peer that asks for the witness's route every 100 ms on its own thread, so that a short
/// idle time does not close it (and remove the broker it registered).
struct KeptAlive {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<()>,
}

impl KeptAlive {
    fn start(mut peer: Peer) -> Self {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stopping = std::sync::Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let mut opaque = 1_000_000;
            while !stopping.load(std::sync::atomic::Ordering::Relaxed) {
                assert_eq!(peer.call(&route_query(WITNESS_TOPIC, opaque)).opaque, opaque, "the kept-alive peer");
                opaque += 1;
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        Self { stop, thread }
    }

    fn finish(self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Err(panic) = self.thread.join() {
            std::panic::resume_unwind(panic);
        }
    }
}

/// Sends `bytes` on a fresh connection and expects it closed with no reply; then checks that
/// the same daemon still answers a new connection.
fn assert_closes(server: &Server, what: &str, bytes: &[u8]) {
    let mut peer = server.peer();
    peer.send(bytes);
    assert!(peer.closed_without_reply(), "{what}: the connection stays open");
    let mut next = server.peer();
    assert_eq!(next.call(&route_query(WITNESS_TOPIC, 77)).code, 0, "{what}: a new connection is served");
}

/// Sends `bytes` on a fresh connection and expects it closed without a RocketMQ frame (a TLS
/// alert may come first); then checks that the same daemon still answers a new connection.
fn assert_closes_without_frame(server: &Server, what: &str, bytes: &[u8]) {
    let mut peer = server.peer();
    peer.send(bytes);
    assert!(peer.closes_without_a_frame(), "{what}: the connection stays open or answered");
    let mut next = server.peer();
    assert_eq!(next.call(&route_query(WITNESS_TOPIC, 77)).code, 0, "{what}: a new connection is served");
}

/// A ROCKETMQ binary header: the fixed fields for a route query, then `rest`.
fn binary_header(rest: &[u8]) -> Vec<u8> {
    let mut h = vec![0, 105, 0, 0x01, 0xDF, 0, 0, 0, 7, 0, 0, 0, 0];
    h.extend_from_slice(rest);
    h
}
