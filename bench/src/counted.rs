//! A fixed number of route queries, for instruction counts (`scripts/bench.sh --instructions`).
//!
//! Under callgrind a server runs some fifty times slower, so what decides is not how many
//! queries fit in a time but how many instructions one query costs: the load sends exactly
//! `requests` GET_ROUTEINFO_BY_TOPIC queries over `conns` connections, `depth` in flight on
//! each (closed loop), and returns once every one is answered. Between a warm-up and the
//! measured queries it runs a command (`callgrind_control --zero PID`), and another after the
//! last reply (`--dump`), so the dumped counts hold the measured queries and nothing else but
//! the server's own timers.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Buf;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use nameserver_testkit::frames::{OPAQUE_BASE, OPAQUE_SPAN, Template};
use nameserver_testkit::scan::{Conn, WireError, next_reply};

/// The shape of a counted load.
#[derive(Clone, Debug)]
pub struct CountedLoad {
    /// The NameServer.
    pub addr: SocketAddr,
    /// Connections.
    pub conns: usize,
    /// Requests in flight per connection.
    pub depth: usize,
    /// Longest wait for a reply.
    pub timeout: Duration,
}

/// What a counted load saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counted {
    /// Replies with SUCCESS.
    pub ok: u64,
    /// Replies with another code.
    pub bad_codes: u64,
    /// Connections that failed, closed or went silent past the timeout.
    pub io: u64,
}

/// Sends exactly `requests` route queries (round robin over `templates`) and waits for every
/// reply.
pub async fn run(load: &CountedLoad, templates: Arc<[Template]>, requests: u64) -> Counted {
    let budget = Arc::new(AtomicU64::new(requests));
    let tasks: Vec<_> = (0..load.conns.max(1))
        .map(|i| {
            let (templates, budget, load) = (Arc::clone(&templates), Arc::clone(&budget), load.clone());
            tokio::spawn(async move { connection(&load, &templates, &budget, i).await })
        })
        .collect();
    let mut total = Counted::default();
    for task in tasks {
        let one = task.await.unwrap_or(Counted { io: 1, ..Counted::default() });
        total.ok += one.ok;
        total.bad_codes += one.bad_codes;
        total.io += one.io;
    }
    total
}

/// Takes one request from the shared budget.
fn take(budget: &AtomicU64) -> bool {
    budget.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1)).is_ok()
}

async fn connection(load: &CountedLoad, templates: &[Template], budget: &AtomicU64, i: usize) -> Counted {
    let mut seen = Counted::default();
    let Ok(conn) = Conn::connect(load.addr).await else {
        seen.io += 1;
        return seen;
    };
    let (mut stream, mut inbuf) = conn.into_parts();
    let mut next_topic = i.wrapping_mul(7919) % templates.len().max(1);
    let mut sent: u32 = 0;
    let mut out = Vec::with_capacity(load.depth * 256);
    let mut push = |out: &mut Vec<u8>| {
        sent = (sent + 1) % OPAQUE_SPAN;
        templates[next_topic].append(OPAQUE_BASE + sent as i32, out);
        next_topic = (next_topic + 1) % templates.len();
    };
    let mut in_flight = 0;
    while in_flight < load.depth.max(1) && take(budget) {
        push(&mut out);
        in_flight += 1;
    }
    while in_flight > 0 {
        if !out.is_empty() {
            if stream.write_all(&out).await.is_err() {
                seen.io += 1;
                return seen;
            }
            out.clear();
        }
        if inbuf.capacity() - inbuf.len() < 16 * 1024 {
            inbuf.reserve(64 * 1024);
        }
        match tokio::time::timeout(load.timeout, stream.read_buf(&mut inbuf)).await {
            Ok(Ok(n)) if n > 0 => {}
            _ => {
                seen.io += 1;
                return seen;
            }
        }
        loop {
            match next_reply(&inbuf) {
                Ok(Some(reply)) => {
                    inbuf.advance(reply.frame_len);
                    if !reply.is_response() {
                        continue;
                    }
                    in_flight -= 1;
                    if reply.code == 0 {
                        seen.ok += 1
                    } else {
                        seen.bad_codes += 1
                    }
                    if take(budget) {
                        push(&mut out);
                        in_flight += 1;
                    }
                }
                Ok(None) => break,
                Err(WireError::Malformed(_) | WireError::Io(_) | WireError::Timeout) => {
                    seen.io += 1;
                    return seen;
                }
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use nameserver_testkit::frames::route_templates;

    /// Against the floor: exactly the requests asked for are answered, over more connections
    /// than the budget needs.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sends_exactly_the_requests_asked_for() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(crate::floor::serve(listener, Arc::from(&b"{}"[..])));
        let templates: Arc<[Template]> = route_templates(5).into();
        let load = CountedLoad { addr, conns: 3, depth: 4, timeout: Duration::from_secs(10) };
        for requests in [0, 7, 1001] {
            let seen = run(&load, Arc::clone(&templates), requests).await;
            assert_eq!(seen, Counted { ok: requests, bad_codes: 0, io: 0 });
        }
    }
}
