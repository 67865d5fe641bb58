//! Route-query load: N connections, each keeping D GET_ROUTEINFO_BY_TOPIC requests in flight
//! (closed loop: a reply frees its slot for the next request) over K topics.
//!
//! Each connection reads whatever replies have arrived, answers each with the next request,
//! and writes the batch in one call. A reply's latency runs from the write that carried its
//! request to the read that returned it. Only requests sent after the warm-up and answered
//! before the end count, in the histogram and in the throughput.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Buf, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::frames::{OPAQUE_BASE, OPAQUE_SPAN, Template};
use crate::stats::Latencies;
use crate::wire::{WireError, next_reply};

/// The shape of a route load.
#[derive(Clone, Debug)]
pub struct RouteLoad {
    /// The NameServer.
    pub addr: SocketAddr,
    /// Connections.
    pub conns: usize,
    /// Requests in flight per connection.
    pub depth: usize,
    /// Time before measuring.
    pub warmup: Duration,
    /// Time measured.
    pub duration: Duration,
    /// Longest wait for a reply before the connection counts its requests as lost.
    pub timeout: Duration,
}

/// Errors by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Errors {
    /// Connections that failed or closed.
    pub io: u64,
    /// Requests never answered: their connection failed or went silent past the timeout.
    pub lost: u64,
    /// Replies with a code other than SUCCESS, by code.
    pub codes: BTreeMap<i32, u64>,
    /// Replies that match no request in flight, or that do not parse.
    pub protocol: u64,
}

impl Errors {
    /// Every error.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.io + self.lost + self.protocol + self.codes.values().sum::<u64>()
    }

    fn merge(&mut self, other: &Self) {
        self.io += other.io;
        self.lost += other.lost;
        self.protocol += other.protocol;
        for (code, n) in &other.codes {
            *self.codes.entry(*code).or_default() += n;
        }
    }
}

/// What a route load measured.
#[derive(Clone, Debug, Default)]
pub struct RouteResult {
    /// Replies received in the measured window.
    pub completed: u64,
    /// The measured window.
    pub window: Duration,
    /// Latencies of requests sent and answered inside the window.
    pub latencies: Latencies,
    /// Errors over the whole run.
    pub errors: Errors,
    /// Reply bytes over the whole run.
    pub reply_bytes: u64,
    /// Replies over the whole run.
    pub replies: u64,
}

impl RouteResult {
    /// Replies per second in the window.
    #[must_use]
    pub fn qps(&self) -> f64 {
        self.completed as f64 / self.window.as_secs_f64().max(1e-9)
    }

    fn merge(&mut self, other: &Self) {
        self.completed += other.completed;
        self.latencies.merge(&other.latencies);
        self.errors.merge(&other.errors);
        self.reply_bytes += other.reply_bytes;
        self.replies += other.replies;
    }
}

/// Runs the load with one template per topic and returns the merged result.
pub async fn run(load: &RouteLoad, templates: Arc<[Template]>) -> RouteResult {
    let start = Instant::now();
    let window = Window { from: start + load.warmup, to: start + load.warmup + load.duration };
    let tasks: Vec<_> = (0..load.conns)
        .map(|i| {
            let templates = Arc::clone(&templates);
            let first_topic = i.wrapping_mul(7919) % templates.len().max(1);
            let (addr, depth, timeout) = (load.addr, load.depth.max(1), load.timeout);
            tokio::spawn(async move {
                let mut conn = RouteConn::new(templates, first_topic, depth, window);
                conn.run(addr, timeout).await;
                conn.result
            })
        })
        .collect();
    let mut total = RouteResult { window: load.duration, ..RouteResult::default() };
    for task in tasks {
        match task.await {
            Ok(result) => total.merge(&result),
            Err(_) => total.errors.io += 1,
        }
    }
    total
}

#[derive(Clone, Copy, Debug)]
struct Window {
    from: Instant,
    to: Instant,
}

struct RouteConn {
    templates: Arc<[Template]>,
    next_topic: usize,
    depth: usize,
    window: Window,
    /// When each slot's request was written; `None` when the slot is free.
    sent_at: Vec<Option<Instant>>,
    /// Each slot's current opaque.
    opaque: Vec<i32>,
    generation: u32,
    in_flight: usize,
    out: Vec<u8>,
    result: RouteResult,
}

impl RouteConn {
    fn new(templates: Arc<[Template]>, first_topic: usize, depth: usize, window: Window) -> Self {
        Self {
            templates,
            next_topic: first_topic,
            depth,
            window,
            sent_at: vec![None; depth],
            opaque: vec![0; depth],
            generation: 0,
            in_flight: 0,
            out: Vec::with_capacity(depth * 256),
            result: RouteResult::default(),
        }
    }

    /// Queues the next request in `slot`; its opaque says which slot it is.
    fn push(&mut self, slot: usize, now: Instant) {
        let generations = OPAQUE_SPAN / self.depth as u32;
        self.generation = (self.generation + 1) % generations;
        let opaque = OPAQUE_BASE + (self.generation * self.depth as u32 + slot as u32) as i32;
        self.templates[self.next_topic].append(opaque, &mut self.out);
        self.next_topic = (self.next_topic + 1) % self.templates.len();
        self.opaque[slot] = opaque;
        self.sent_at[slot] = Some(now);
        self.in_flight += 1;
    }

    async fn run(&mut self, addr: SocketAddr, timeout: Duration) {
        let mut stream = match TcpStream::connect(addr).await {
            Ok(stream) => stream,
            Err(_) => {
                self.result.errors.io += 1;
                return;
            }
        };
        let _ = stream.set_nodelay(true);
        let mut inbuf = BytesMut::with_capacity(64 * 1024);
        let now = Instant::now();
        for slot in 0..self.depth {
            self.push(slot, now);
        }
        loop {
            if !self.out.is_empty() {
                if stream.write_all(&self.out).await.is_err() {
                    self.lose_all(true);
                    return;
                }
                self.out.clear();
            }
            if self.in_flight == 0 {
                return;
            }
            if inbuf.capacity() - inbuf.len() < 16 * 1024 {
                inbuf.reserve(64 * 1024);
            }
            match tokio::time::timeout(timeout, stream.read_buf(&mut inbuf)).await {
                Ok(Ok(n)) if n > 0 => {}
                Ok(_) => {
                    self.lose_all(true);
                    return;
                }
                Err(_) => {
                    self.lose_all(false);
                    return;
                }
            }
            let now = Instant::now();
            let sending = now < self.window.to;
            loop {
                let reply = match next_reply(&inbuf) {
                    Ok(Some(reply)) => reply,
                    Ok(None) => break,
                    Err(WireError::Malformed(_) | WireError::Io(_) | WireError::Timeout) => {
                        self.result.errors.protocol += 1;
                        self.lose_all(true);
                        return;
                    }
                };
                inbuf.advance(reply.frame_len);
                self.on_reply(reply.code, reply.opaque, reply.frame_len, now, sending);
            }
        }
    }

    fn on_reply(&mut self, code: i32, opaque: i32, frame_len: usize, now: Instant, sending: bool) {
        self.result.replies += 1;
        self.result.reply_bytes += frame_len as u64;
        let slot = opaque.wrapping_sub(OPAQUE_BASE).unsigned_abs() as usize % self.depth;
        let Some(sent) = self.sent_at[slot].filter(|_| self.opaque[slot] == opaque) else {
            self.result.errors.protocol += 1;
            return;
        };
        self.sent_at[slot] = None;
        self.in_flight -= 1;
        if code != 0 {
            *self.result.errors.codes.entry(code).or_default() += 1;
        } else if now <= self.window.to && now >= self.window.from {
            self.result.completed += 1;
            if sent >= self.window.from {
                self.result.latencies.record(now - sent);
            }
        }
        if sending {
            self.push(slot, now);
        }
    }

    /// The connection failed (`io`) or went silent: everything in flight is lost.
    fn lose_all(&mut self, io: bool) {
        if io {
            self.result.errors.io += 1;
        }
        self.result.errors.lost += self.in_flight as u64;
        self.in_flight = 0;
    }
}
