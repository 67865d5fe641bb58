//! Counters, latencies, errors

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Latencies in power-of-two microsecond buckets.
pub(crate) struct Latencies([AtomicU64; 40]);

impl Latencies {
    pub(crate) fn new() -> Self {
        Self(std::array::from_fn(|_| AtomicU64::new(0)))
    }

    pub(crate) fn record(&self, took: Duration) {
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX).max(1);
        let bucket = (63 - micros.leading_zeros()) as usize;
        self.0[bucket.min(39)].fetch_add(1, Ordering::Relaxed);
    }

    /// The upper bound of the bucket holding quantile `q`, in microseconds.
    pub(crate) fn quantile(&self, q: f64) -> u64 {
        let counts: Vec<u64> = self.0.iter().map(|c| c.load(Ordering::Relaxed)).collect();
        let total: u64 = counts.iter().sum();
        let wanted = (total as f64 * q).ceil() as u64;
        let mut seen = 0;
        for (bucket, count) in counts.iter().enumerate() {
            seen += count;
            if seen >= wanted.max(1) {
                return 2u64 << bucket;
            }
        }
        0
    }
}

#[derive(Default)]
pub(crate) struct Counter(AtomicU64);

impl Counter {
    pub(crate) fn add(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

pub(crate) struct Stats {
    pub(crate) started: Instant,
    pub(crate) queries: Counter,
    pub(crate) not_found: Counter,
    pub(crate) owner_requests: Counter,
    pub(crate) registrations: Counter,
    pub(crate) heartbeats: Counter,
    pub(crate) flaps: Counter,
    pub(crate) freezes: Counter,
    pub(crate) expiry_closes: Counter,
    pub(crate) unregisters: Counter,
    pub(crate) topic_changes: Counter,
    pub(crate) audits: Counter,
    pub(crate) seen_present: Counter,
    pub(crate) seen_absent: Counter,
    pub(crate) errors: Counter,
    pub(crate) error_log: Mutex<Vec<String>>,
    pub(crate) latency: Latencies,
    pub(crate) stop: AtomicBool,
}

impl Stats {
    /// Everything but the queries, for the progress and result lines.
    pub(crate) fn counts(&self) -> String {
        format!(
            "owner requests {}, registrations {}, heartbeats {}, flaps {}, freezes {} (expired and closed {}), \
             unregisters {}, topic changes {}, audits {} (present {}, absent {} checked)",
            self.owner_requests.get(),
            self.registrations.get(),
            self.heartbeats.get(),
            self.flaps.get(),
            self.freezes.get(),
            self.expiry_closes.get(),
            self.unregisters.get(),
            self.topic_changes.get(),
            self.audits.get(),
            self.seen_present.get(),
            self.seen_absent.get(),
        )
    }

    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self {
            started: Instant::now(),
            queries: Counter::default(),
            not_found: Counter::default(),
            owner_requests: Counter::default(),
            registrations: Counter::default(),
            heartbeats: Counter::default(),
            flaps: Counter::default(),
            freezes: Counter::default(),
            expiry_closes: Counter::default(),
            unregisters: Counter::default(),
            topic_changes: Counter::default(),
            audits: Counter::default(),
            seen_present: Counter::default(),
            seen_absent: Counter::default(),
            errors: Counter::default(),
            error_log: Mutex::new(Vec::new()),
            latency: Latencies::new(),
            stop: AtomicBool::new(false),
        })
    }

    pub(crate) fn error(&self, what: impl Into<String>) {
        self.errors.add();
        let mut log = self.error_log.lock().unwrap();
        if log.len() < 50 {
            let line = format!("[{:>7.1}s] {}", self.started.elapsed().as_secs_f64(), what.into());
            eprintln!("ERROR {line}");
            log.push(line);
        }
    }

    pub(crate) fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Sleeps `d`, or less if the run is stopping; `false` once it is.
pub(crate) async fn pause(stats: &Stats, d: Duration) -> bool {
    let end = Instant::now() + d;
    while !stats.stopping() {
        let now = Instant::now();
        if now >= end {
            return true;
        }
        tokio::time::sleep((end - now).min(Duration::from_millis(250))).await;
    }
    false
}

/// Counts a live connection of this tool while it exists.
pub(crate) struct Gauge<'a>(&'a AtomicU64);

impl<'a> Gauge<'a> {
    pub(crate) fn up(live: &'a AtomicU64) -> Self {
        live.fetch_add(1, Ordering::Relaxed);
        Self(live)
    }
}

impl Drop for Gauge<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A small xorshift generator: the tool needs no crate for dice.
pub(crate) struct Dice(u64);

impl Dice {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    pub(crate) fn between(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
}
