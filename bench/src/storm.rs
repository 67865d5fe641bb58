//! Registration storms: many brokers registering at once, and one very large registration.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use tokio::sync::Barrier;

use crate::stats::{Latencies, median};
use nameserver_testkit::frames::{self, BrokerSpec};
use nameserver_testkit::scan::Conn;

/// What a storm measured.
#[derive(Clone, Debug, Default)]
pub struct StormResult {
    /// From the moment every broker starts sending to the last reply.
    pub wall: Duration,
    /// Each registration, from its first byte written to its reply.
    pub latencies: Latencies,
    /// Registrations answered with SUCCESS.
    pub ok: u64,
    /// Registrations refused, unanswered or failed.
    pub errors: u64,
    /// Refusals by response code.
    pub codes: BTreeMap<i32, u64>,
    /// Bytes of one registration frame.
    pub frame_bytes: usize,
}

/// `brokers` brokers, already connected, each send one registration of `topics` topics at
/// the same moment.
///
/// # Errors
/// A broker cannot connect.
pub async fn storm(
    addr: SocketAddr,
    brokers: usize,
    topics: usize,
    compressed: bool,
    timeout: Duration,
) -> anyhow::Result<StormResult> {
    let body = frames::encode_register_body(&frames::register_body(topics, 1), compressed);
    let barrier = Arc::new(Barrier::new(brokers + 1));
    let mut tasks = Vec::with_capacity(brokers);
    let mut frame_bytes = 0;
    for i in 0..brokers {
        let frame = frames::register_frame(&BrokerSpec::fleet(i), &body, compressed, 1);
        frame_bytes = frame.len();
        let mut conn = Conn::connect(addr).await.with_context(|| format!("connecting to {addr}"))?;
        let barrier = Arc::clone(&barrier);
        tasks.push(tokio::spawn(async move {
            barrier.wait().await;
            conn.call(&frame, timeout).await.map(|(reply, took)| (reply.code, took))
        }));
    }
    barrier.wait().await;
    let start = Instant::now();
    let mut result = StormResult { frame_bytes, ..StormResult::default() };
    for task in tasks {
        match task.await {
            Ok(Ok((0, took))) => {
                result.ok += 1;
                result.latencies.record(took);
            }
            Ok(Ok((code, _))) => {
                result.errors += 1;
                *result.codes.entry(code).or_default() += 1;
            }
            _ => result.errors += 1,
        }
    }
    result.wall = start.elapsed();
    Ok(result)
}

/// What [`register_one`] measured.
#[derive(Clone, Debug, Default)]
pub struct OneResult {
    /// Each registration's time to its reply, in order.
    pub samples: Vec<Duration>,
    /// Registrations refused or failed.
    pub errors: u64,
    /// Refusals by response code.
    pub codes: BTreeMap<i32, u64>,
    /// Bytes of one registration frame.
    pub frame_bytes: usize,
}

impl OneResult {
    /// The median of the samples.
    #[must_use]
    pub fn median(&self) -> Duration {
        median(&mut self.samples.clone())
    }
}

/// `reps` brokers, one after another on one connection, each registering `topics` topics
/// for the first time (each is a new broker group, so every topic gets a new queue entry).
///
/// # Errors
/// The connection fails.
pub async fn register_one(
    addr: SocketAddr,
    topics: usize,
    reps: usize,
    compressed: bool,
    timeout: Duration,
) -> anyhow::Result<OneResult> {
    let body = frames::encode_register_body(&frames::register_body(topics, 1), compressed);
    let mut conn = Conn::connect(addr).await.with_context(|| format!("connecting to {addr}"))?;
    let mut result = OneResult::default();
    for rep in 0..reps {
        let broker = BrokerSpec { name: format!("bench-big-{rep}"), addr: format!("127.0.0.1:{}", 9_000 + rep) };
        let frame = frames::register_frame(&broker, &body, compressed, i32::try_from(rep).unwrap_or(0) + 1);
        result.frame_bytes = frame.len();
        match conn.call(&frame, timeout).await {
            Ok((reply, took)) if reply.code == 0 => result.samples.push(took),
            Ok((reply, _)) => {
                result.errors += 1;
                *result.codes.entry(reply.code).or_default() += 1;
            }
            Err(error) => {
                result.errors += 1;
                return Err(error).context("registering");
            }
        }
    }
    Ok(result)
}

/// `code:count,…`, or `-` when empty.
#[must_use]
pub fn codes_text(codes: &BTreeMap<i32, u64>) -> String {
    if codes.is_empty() {
        return String::from("-");
    }
    codes.iter().map(|(code, n)| format!("{code}:{n}")).collect::<Vec<_>>().join(",")
}
