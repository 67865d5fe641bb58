//! Load, soak and crash-loop driver for a running `nameserver` (RELIABILITY.md;
//! `scripts/soak.sh` and `scripts/crash-loop.sh` start the daemon and run this). Everything
//! it checks is counted; it exits non-zero on any error, leak or memory growth.
//!
//! - `connections`: holds thousands of connections open (each asks for a route now and then,
//!   so none goes idle) while a few connections ask for routes as fast as they can.
//! - `fleet`: a few hundred simulated brokers register and heartbeat with a short
//!   `heartbeatTimeoutMillis`, and now and then flap (drop the connection and come back),
//!   freeze (stay connected but silent until they expire), unregister or change their
//!   topics; dozens of clients ask for routes, cluster info and KV entries; an auditor
//!   compares GET_BROKER_CLUSTER_INFO with what each broker did (present while it
//!   heartbeats, gone once it expired, disconnected or unregistered).
//! - `kv-put` / `kv-check`: the crash loop's writer (a burst of PUT_KV_CONFIG, each value
//!   naming its round and key) and checker (the table read back is whole: every value
//!   exactly as written, no key newer than the one before it, nothing older than the last
//!   check saw).
//!
//! With `--pid`, the daemon's resident memory, threads and open descriptors are sampled
//! from `/proc`; at the end every connection is closed and the descriptor count must come
//! back to where it was, and resident memory after the warm-up must stay within
//! `--rss-tolerance` percent.
//!
//! ```text
//! cargo run --release -p nameserver --example reliability -- fleet --addr 127.0.0.1:9876 --pid 1234 --secs 1800
//! ```

use std::collections::BTreeMap;
use std::io;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand};
use nameserver_core::codec::{self, Limits};
use nameserver_core::json::{JsonStyle, WriteJson, from_fastjson};
use nameserver_core::protocol::body::{ClusterInfo, RegisterBrokerBody, TopicConfig, TopicRouteData};
use nameserver_core::protocol::{FLAG_ONEWAY, RemotingCommand, RequestCode};
use nameserver_core::{BrokerId, TopicName};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Semaphore;

#[derive(Parser)]
#[command(about = "Load and soak driver for a running nameserver (see RELIABILITY.md)")]
struct Cli {
    #[command(subcommand)]
    mode: Mode,
}

#[derive(Subcommand)]
enum Mode {
    /// Hold many connections while a few ask for routes as fast as they can
    Connections(ConnectionsArgs),
    /// Brokers registering, flapping, freezing and expiring; clients querying; an auditor
    Fleet(FleetArgs),
    /// Put `--keys` KV entries for round `--round` as one pipelined burst
    KvPut(KvArgs),
    /// Read the crash loop's namespace back and check it (see the crate docs)
    KvCheck(KvArgs),
}

#[derive(Args, Clone)]
struct KvArgs {
    /// The daemon's RocketMQ address
    #[arg(long)]
    addr: SocketAddr,
    /// Keys written each round
    #[arg(long, default_value_t = 300)]
    keys: usize,
    /// The round being written, or the last round written before this check
    #[arg(long)]
    round: u64,
    /// kv-check: a file holding the rounds the last check saw (one per key); updated
    #[arg(long)]
    state: Option<std::path::PathBuf>,
}

#[derive(Args, Clone)]
struct Common {
    /// The daemon's RocketMQ address
    #[arg(long)]
    addr: SocketAddr,
    /// The daemon's process id, to sample its memory, threads and descriptors
    #[arg(long)]
    pid: Option<u32>,
    /// How long to run, in seconds
    #[arg(long, default_value_t = 60)]
    secs: u64,
    /// Seconds between samples
    #[arg(long, default_value_t = 10)]
    sample_secs: u64,
    /// Seconds before the memory baseline is taken (default: a tenth of the run, at most 180)
    #[arg(long)]
    warmup_secs: Option<u64>,
    /// Largest allowed resident-memory change after the warm-up, in percent of the baseline
    #[arg(long, default_value_t = 10.0)]
    rss_tolerance: f64,
}

#[derive(Args, Clone)]
struct ConnectionsArgs {
    #[command(flatten)]
    common: Common,
    /// Connections held open
    #[arg(long, default_value_t = 5000)]
    conns: usize,
    /// Connections asking for routes back to back
    #[arg(long, default_value_t = 16)]
    queriers: usize,
    /// Topics registered (by four brokers) and asked for
    #[arg(long, default_value_t = 200)]
    topics: usize,
}

#[derive(Args, Clone)]
struct FleetArgs {
    #[command(flatten)]
    common: Common,
    /// Simulated brokers (groups of two: a master and a slave)
    #[arg(long, default_value_t = 300)]
    brokers: usize,
    /// Simulated clients
    #[arg(long, default_value_t = 40)]
    clients: usize,
    /// Topics per broker group
    #[arg(long, default_value_t = 10)]
    topics: usize,
    /// heartbeatTimeoutMillis the brokers register with
    #[arg(long, default_value_t = 6000)]
    heartbeat_timeout_ms: u64,
    /// The daemon's scanNotActiveBrokerInterval in milliseconds (for the auditor's margins)
    #[arg(long, default_value_t = 1000)]
    scan_ms: u64,
    /// Milliseconds between a client's requests
    #[arg(long, default_value_t = 20)]
    client_pause_ms: u64,
    /// Most seconds a broker goes between episodes (flap, freeze, unregister, topic change)
    #[arg(long, default_value_t = 90)]
    calm_secs: u64,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a tokio runtime");
    let ok = runtime.block_on(async {
        match cli.mode {
            Mode::Connections(args) => connections(args).await,
            Mode::Fleet(args) => fleet(args).await,
            Mode::KvPut(args) => kv_put(args).await,
            Mode::KvCheck(args) => kv_check(args).await,
        }
    });
    if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

// ---------------------------------------------------------------------------------------------
// Counters, latencies, errors
// ---------------------------------------------------------------------------------------------

/// Latencies in power-of-two microsecond buckets.
struct Latencies([AtomicU64; 40]);

impl Latencies {
    fn new() -> Self {
        Self(std::array::from_fn(|_| AtomicU64::new(0)))
    }

    fn record(&self, took: Duration) {
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX).max(1);
        let bucket = (63 - micros.leading_zeros()) as usize;
        self.0[bucket.min(39)].fetch_add(1, Ordering::Relaxed);
    }

    /// The upper bound of the bucket holding quantile `q`, in microseconds.
    fn quantile(&self, q: f64) -> u64 {
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
struct Counter(AtomicU64);

impl Counter {
    fn add(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }

    fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

struct Stats {
    started: Instant,
    queries: Counter,
    not_found: Counter,
    owner_requests: Counter,
    registrations: Counter,
    heartbeats: Counter,
    flaps: Counter,
    freezes: Counter,
    expiry_closes: Counter,
    unregisters: Counter,
    topic_changes: Counter,
    audits: Counter,
    seen_present: Counter,
    seen_absent: Counter,
    errors: Counter,
    error_log: Mutex<Vec<String>>,
    latency: Latencies,
    stop: AtomicBool,
}

impl Stats {
    /// Everything but the queries, for the progress and result lines.
    fn counts(&self) -> String {
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

    fn new() -> Arc<Self> {
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

    fn error(&self, what: impl Into<String>) {
        self.errors.add();
        let mut log = self.error_log.lock().unwrap();
        if log.len() < 50 {
            let line = format!("[{:>7.1}s] {}", self.started.elapsed().as_secs_f64(), what.into());
            eprintln!("ERROR {line}");
            log.push(line);
        }
    }

    fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Sleeps `d`, or less if the run is stopping; `false` once it is.
async fn pause(stats: &Stats, d: Duration) -> bool {
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
struct Gauge<'a>(&'a AtomicU64);

impl<'a> Gauge<'a> {
    fn up(live: &'a AtomicU64) -> Self {
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
struct Dice(u64);

impl Dice {
    fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn between(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
}

// ---------------------------------------------------------------------------------------------
// The daemon, seen from /proc
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
struct Usage {
    rss_kib: u64,
    threads: u64,
    fds: usize,
}

fn usage(pid: u32) -> io::Result<Usage> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .ok_or_else(|| io::Error::other(format!("no {name} for pid {pid}")))
    };
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))?.count();
    Ok(Usage { rss_kib: field("VmRSS:")?, threads: field("Threads:")?, fds })
}

/// Prints a sample line every `sample_secs` until the run stops; returns the samples.
async fn monitor(common: Common, stats: Arc<Stats>, live: Arc<AtomicU64>) -> Vec<(f64, Usage)> {
    let mut samples = Vec::new();
    let mut last_queries = 0;
    let mut last_at = Instant::now();
    loop {
        let alive = pause(&stats, Duration::from_secs(common.sample_secs)).await;
        let now = Instant::now();
        let queries = stats.queries.get();
        let qps = (queries - last_queries) as f64 / (now - last_at).as_secs_f64();
        (last_queries, last_at) = (queries, now);
        let at = stats.started.elapsed().as_secs_f64();
        let daemon = match common.pid.map(usage) {
            Some(Ok(u)) => {
                samples.push((at, u));
                format!("rss {:.1} MiB, threads {}, fds {}", u.rss_kib as f64 / 1024.0, u.threads, u.fds)
            }
            Some(Err(error)) => {
                stats.error(format!("cannot read the daemon's /proc entry: {error}"));
                String::from("daemon gone")
            }
            None => String::from("daemon not watched"),
        };
        println!(
            "[{at:>7.1}s] {daemon} | conns {} | queries {queries} ({qps:.0}/s, not found {}), {} | p50 {} µs, p99 {} \
             µs | errors {}",
            live.load(Ordering::Relaxed),
            stats.not_found.get(),
            stats.counts(),
            stats.latency.quantile(0.5),
            stats.latency.quantile(0.99),
            stats.errors.get(),
        );
        if !alive {
            return samples;
        }
    }
}

/// The end of a run: stop every task, wait until the daemon's descriptors are back to
/// `baseline`, judge memory; prints the verdict and returns whether the run passed.
async fn conclude(
    common: &Common,
    stats: &Arc<Stats>,
    baseline: Option<Usage>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    monitor: tokio::task::JoinHandle<Vec<(f64, Usage)>>,
) -> bool {
    stats.stop.store(true, Ordering::Relaxed);
    for task in tasks {
        if let Err(error) = task.await {
            stats.error(format!("a task failed: {error}"));
        }
    }
    let samples = monitor.await.unwrap_or_default();
    let mut verdict = Vec::new();
    if let (Some(pid), Some(baseline)) = (common.pid, baseline) {
        // Every connection of this tool is closed: the daemon's descriptors come back.
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut last = usage(pid).ok();
        while let Some(now) = last {
            if now.fds <= baseline.fds || Instant::now() > deadline {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
            last = usage(pid).ok();
        }
        match last {
            Some(end) => {
                println!(
                    "daemon after every connection closed: rss {:.1} MiB, threads {}, fds {} (before the run: {:.1} MiB, \
                     {} threads, {} fds)",
                    end.rss_kib as f64 / 1024.0,
                    end.threads,
                    end.fds,
                    baseline.rss_kib as f64 / 1024.0,
                    baseline.threads,
                    baseline.fds
                );
                if end.fds > baseline.fds {
                    stats.error(format!("descriptors leaked: {} before, {} after", baseline.fds, end.fds));
                }
                let max_threads = samples.iter().map(|(_, u)| u.threads).max().unwrap_or(end.threads);
                verdict
                    .push(format!("fds {} -> {}, threads {} (max {max_threads})", baseline.fds, end.fds, end.threads));
            }
            None => stats.error("the daemon is gone"),
        }
        let warmup = common.warmup_secs.unwrap_or((common.secs / 10).min(180)) as f64;
        let after: Vec<&(f64, Usage)> = samples.iter().filter(|(at, _)| *at >= warmup).collect();
        if let Some((at, base)) = after.first() {
            let base_kib = base.rss_kib as f64;
            let max = after.iter().map(|(_, u)| u.rss_kib).max().unwrap_or(base.rss_kib) as f64;
            let min = after.iter().map(|(_, u)| u.rss_kib).min().unwrap_or(base.rss_kib) as f64;
            let last = after.last().map_or(base_kib, |(_, u)| u.rss_kib as f64);
            let worst = ((max - base_kib) / base_kib).max((base_kib - min) / base_kib) * 100.0;
            verdict.push(format!(
                "rss after warm-up (at {at:.0}s) {:.1} MiB, min {:.1}, max {:.1}, last {:.1} MiB: within {worst:.1} %",
                base_kib / 1024.0,
                min / 1024.0,
                max / 1024.0,
                last / 1024.0
            ));
            if worst > common.rss_tolerance {
                stats.error(format!(
                    "resident memory moved {worst:.1} % after the warm-up (allowed {})",
                    common.rss_tolerance
                ));
            }
        }
    }
    let secs = stats.started.elapsed().as_secs_f64();
    let errors = stats.errors.get();
    println!(
        "RESULT {} after {secs:.0}s: {} queries ({:.0}/s, {} not found), {}; latency p50 {} µs, p99 {} µs, p99.9 {} \
         µs; {}; {errors} errors",
        if errors == 0 { "ok" } else { "FAILED" },
        stats.queries.get(),
        stats.queries.get() as f64 / secs,
        stats.not_found.get(),
        stats.counts(),
        stats.latency.quantile(0.5),
        stats.latency.quantile(0.99),
        stats.latency.quantile(0.999),
        verdict.join("; "),
    );
    for line in stats.error_log.lock().unwrap().iter() {
        println!("  error: {line}");
    }
    errors == 0
}

// ---------------------------------------------------------------------------------------------
// One connection, one request at a time
// ---------------------------------------------------------------------------------------------

const REPLY_PATIENCE: Duration = Duration::from_secs(10);

struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
    opaque: i32,
}

impl Conn {
    async fn connect(addr: SocketAddr) -> io::Result<Self> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Self { stream, buf: Vec::with_capacity(8192), opaque: 0 })
    }

    fn prepare(&mut self, mut cmd: RemotingCommand) -> RemotingCommand {
        self.opaque = self.opaque.wrapping_add(1);
        cmd.opaque = self.opaque;
        cmd.version = if cmd.version == 0 { 479 } else { cmd.version };
        cmd
    }

    /// Sends `cmd` and waits for the reply with its opaque.
    async fn call(&mut self, cmd: RemotingCommand) -> Result<RemotingCommand, String> {
        let cmd = self.prepare(cmd);
        let frame = codec::encode_to_vec(&cmd).map_err(|e| e.to_string())?;
        let exchange = async {
            self.stream.write_all(&frame).await.map_err(|e| format!("write: {e}"))?;
            loop {
                match codec::decode(&self.buf, &Limits::DEFAULT) {
                    Ok(Some((reply, used))) => {
                        self.buf.drain(..used);
                        if reply.is_response() && reply.opaque == cmd.opaque {
                            return Ok(reply);
                        }
                        if reply.is_response() {
                            return Err(format!("reply with opaque {} to request {}", reply.opaque, cmd.opaque));
                        }
                        continue;
                    }
                    Ok(None) => {}
                    Err(error) => return Err(format!("undecodable reply: {error}")),
                }
                self.buf.reserve(8192);
                match self.stream.read_buf(&mut self.buf).await {
                    Ok(0) => return Err(String::from("the server closed the connection")),
                    Ok(_) => {}
                    Err(error) => return Err(format!("read: {error}")),
                }
            }
        };
        tokio::time::timeout(REPLY_PATIENCE, exchange)
            .await
            .unwrap_or_else(|_| Err(format!("no reply to code {} within {REPLY_PATIENCE:?}", cmd.code)))
    }

    async fn oneway(&mut self, cmd: RemotingCommand) -> Result<(), String> {
        let mut cmd = self.prepare(cmd);
        cmd.flag = FLAG_ONEWAY;
        let frame = codec::encode_to_vec(&cmd).map_err(|e| e.to_string())?;
        self.stream.write_all(&frame).await.map_err(|e| format!("write: {e}"))
    }
}

fn request(code: RequestCode, fields: &[(&str, &str)]) -> RemotingCommand {
    fields.iter().fold(RemotingCommand::request(code), |cmd, (k, v)| cmd.with_field(k, *v))
}

fn route_query(topic: &str) -> RemotingCommand {
    request(RequestCode::GetRouteInfoByTopic, &[("topic", topic)])
}

/// Asks for `topic`'s route and checks the answer: SUCCESS naming only `group` (when given),
/// or TOPIC_NOT_EXIST when `may_be_missing`.
async fn ask_route(
    conn: &mut Conn,
    stats: &Stats,
    topic: &str,
    group: Option<&str>,
    may_be_missing: bool,
    plain: bool,
) -> bool {
    let mut cmd = route_query(topic);
    if plain {
        cmd.version = 121;
    }
    let started = Instant::now();
    let reply = match conn.call(cmd).await {
        Ok(reply) => reply,
        Err(error) => {
            stats.error(format!("route {topic}: {error}"));
            return false;
        }
    };
    stats.latency.record(started.elapsed());
    stats.queries.add();
    match reply.code {
        0 => {
            let route: TopicRouteData = match from_fastjson(&reply.body) {
                Ok(route) => route,
                Err(error) => {
                    stats.error(format!("route {topic}: body does not parse: {error}"));
                    return false;
                }
            };
            if !plain && serde_json_free_check(&reply.body).is_err() {
                stats.error(format!("route {topic}: not standard JSON for a 5.x client"));
            }
            if let Some(group) = group {
                let names = route
                    .broker_datas
                    .iter()
                    .map(|b| b.broker_name.as_str())
                    .chain(route.queue_datas.iter().map(|q| q.broker_name.as_str()));
                for name in names {
                    if name != group {
                        stats.error(format!("route {topic} names {name}, expected only {group}"));
                    }
                }
            }
            true
        }
        17 if may_be_missing => {
            stats.not_found.add();
            true
        }
        code => {
            stats.error(format!("route {topic}: code {code} {:?}", reply.remark));
            false
        }
    }
}

/// Standard JSON quotes every key: a plain-style integer key (`{0:"..."}`) is what a 5.x
/// client cannot read.
fn serde_json_free_check(body: &[u8]) -> Result<(), ()> {
    let mut in_string = false;
    let mut escaped = false;
    let mut previous = b' ';
    for &b in body {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if b.is_ascii_digit() && matches!(previous, b'{' | b',') {
            return Err(());
        }
        if !b.is_ascii_whitespace() {
            previous = b;
        }
    }
    Ok(())
}

/// A REGISTER_BROKER of `name`/`id` at `addr` with `topics`.
fn register(
    cluster: &str,
    name: &str,
    id: i64,
    addr: &str,
    topics: &[String],
    counter: i64,
    timeout_ms: Option<u64>,
) -> RemotingCommand {
    let mut body = RegisterBrokerBody::default();
    body.topic_config_wrapper.data_version.counter = counter;
    body.topic_config_wrapper.data_version.timestamp = 1_700_000_000_000 + counter;
    for topic in topics {
        body.topic_config_wrapper
            .topic_config_table
            .insert(TopicName::from(topic.as_str()), TopicConfig::new(topic.as_str(), 4));
    }
    let id_text = id.to_string();
    let mut cmd = request(
        RequestCode::RegisterBroker,
        &[
            ("clusterName", cluster),
            ("brokerName", name),
            ("brokerAddr", addr),
            ("brokerId", &id_text),
            ("haServerAddr", addr),
            ("enableActingMaster", "false"),
        ],
    )
    .with_body(body.to_json(JsonStyle::Plain));
    if let Some(ms) = timeout_ms {
        cmd = cmd.with_field("heartbeatTimeoutMillis", ms.to_string());
    }
    cmd
}

// ---------------------------------------------------------------------------------------------
// connections: many held, a few busy
// ---------------------------------------------------------------------------------------------

async fn connections(args: ConnectionsArgs) -> bool {
    let common = args.common.clone();
    let stats = Stats::new();
    let live = Arc::new(AtomicU64::new(0));
    let baseline = common.pid.and_then(|pid| usage(pid).ok());
    println!(
        "connections: {} held, {} querying, {} topics, {}s against {} (daemon {:?})",
        args.conns, args.queriers, args.topics, common.secs, common.addr, baseline
    );
    let topics: Vec<String> = (0..args.topics).map(|i| format!("HeldTopic{i}")).collect();
    let mut tasks = Vec::new();
    // Four brokers serve the topics and re-register every 20 s, as real ones do every 30 s.
    for b in 0..4 {
        let (stats, live, topics) = (Arc::clone(&stats), Arc::clone(&live), topics.clone());
        let addr = common.addr;
        tasks.push(tokio::spawn(async move {
            let Ok(mut conn) = Conn::connect(addr).await else {
                stats.error("broker connect failed");
                return;
            };
            let _live = Gauge::up(&live);
            let name = format!("held-broker-{b}");
            let mut counter = 1;
            loop {
                let cmd =
                    register("HeldCluster", &name, 0, &format!("127.0.0.1:{}", 20_000 + b), &topics, counter, None);
                match conn.call(cmd).await {
                    Ok(reply) if reply.code == 0 => stats.registrations.add(),
                    Ok(reply) => stats.error(format!("{name} register: code {} {:?}", reply.code, reply.remark)),
                    Err(error) => stats.error(format!("{name} register: {error}")),
                }
                counter += 1;
                if !pause(&stats, Duration::from_secs(20)).await {
                    break;
                }
            }
        }));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let monitor_task = tokio::spawn(monitor(common.clone(), Arc::clone(&stats), Arc::clone(&live)));

    // The held connections: connect (200 at a time), ask once, then every 20-60 s.
    let connecting = Arc::new(Semaphore::new(200));
    let established = Arc::new(AtomicU64::new(0));
    for i in 0..args.conns {
        let (stats, live, topics, connecting, established) =
            (Arc::clone(&stats), Arc::clone(&live), topics.clone(), Arc::clone(&connecting), Arc::clone(&established));
        let addr = common.addr;
        tasks.push(tokio::spawn(async move {
            let permit = connecting.acquire_owned().await;
            let mut conn = match Conn::connect(addr).await {
                Ok(conn) => conn,
                Err(error) => {
                    stats.error(format!("held connection {i}: connect: {error}"));
                    return;
                }
            };
            let _live = Gauge::up(&live);
            let mut dice = Dice::new(i as u64 + 7);
            let topic = &topics[dice.below(topics.len() as u64) as usize];
            let ok = ask_route(&mut conn, &stats, topic, None, false, false).await;
            drop(permit);
            if ok {
                established.fetch_add(1, Ordering::Relaxed);
            }
            while ok && pause(&stats, Duration::from_secs(dice.between(20, 60))).await {
                let topic = &topics[dice.below(topics.len() as u64) as usize];
                if !ask_route(&mut conn, &stats, topic, None, false, false).await {
                    break;
                }
            }
        }));
    }
    // The busy ones.
    for q in 0..args.queriers {
        let (stats, live, topics) = (Arc::clone(&stats), Arc::clone(&live), topics.clone());
        let addr = common.addr;
        tasks.push(tokio::spawn(async move {
            let Ok(mut conn) = Conn::connect(addr).await else {
                stats.error("querier connect failed");
                return;
            };
            let _live = Gauge::up(&live);
            let mut dice = Dice::new(1000 + q as u64);
            while !stats.stopping() {
                let topic = &topics[dice.below(topics.len() as u64) as usize];
                if !ask_route(&mut conn, &stats, topic, None, false, q % 4 == 3).await {
                    break;
                }
            }
        }));
    }
    let deadline = Instant::now() + Duration::from_secs(common.secs);
    let mut reported = false;
    while Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
        if !reported && established.load(Ordering::Relaxed) as usize == args.conns {
            reported = true;
            let daemon = common.pid.and_then(|pid| usage(pid).ok());
            println!(
                "[{:>7.1}s] all {} held connections established and answered; daemon {daemon:?}",
                stats.started.elapsed().as_secs_f64(),
                args.conns
            );
        }
    }
    if !reported {
        stats.error(format!(
            "only {} of {} held connections were answered",
            established.load(Ordering::Relaxed),
            args.conns
        ));
    }
    conclude(&common, &stats, baseline, tasks, monitor_task).await
}

// ---------------------------------------------------------------------------------------------
// fleet: brokers come and go, clients ask, an auditor checks
// ---------------------------------------------------------------------------------------------

/// What one simulated broker is doing, as the auditor needs to know it.
#[derive(Clone, Copy, Debug)]
enum Phase {
    /// Not registered yet since it started, came back or unregistered.
    Starting,
    /// Registered (a SUCCESS reply arrived) and heartbeating; `since` is when that reply came.
    Live { since: Instant },
    /// Connected but silent since `last_sent` (its last register or heartbeat).
    Frozen { last_sent: Instant },
    /// Its connection was closed at `at`.
    Disconnected { at: Instant },
    /// An UNREGISTER_BROKER reply arrived at `at`.
    Unregistered { at: Instant },
}

#[derive(Clone, Copy, Debug)]
struct Tracked {
    phase: Phase,
    /// Bumped at every phase change, so the auditor can tell a phase that held throughout its
    /// query from one that changed in between.
    epoch: u64,
}

struct Fleet {
    names: Vec<(String, i64, String)>,
    tracked: Vec<Mutex<Tracked>>,
}

impl Fleet {
    fn set(&self, broker: usize, phase: Phase) {
        let mut t = self.tracked[broker].lock().unwrap();
        t.phase = phase;
        t.epoch += 1;
    }

    fn get(&self, broker: usize) -> Tracked {
        *self.tracked[broker].lock().unwrap()
    }
}

fn group_name(group: usize) -> String {
    format!("soak-g{group:03}")
}

fn group_topics(group: usize, count: usize) -> Vec<String> {
    (0..count).map(|k| format!("SoakTopic-{group:03}-{k:02}")).collect()
}

async fn fleet(args: FleetArgs) -> bool {
    let common = args.common.clone();
    let stats = Stats::new();
    let live = Arc::new(AtomicU64::new(0));
    let baseline = common.pid.and_then(|pid| usage(pid).ok());
    let groups = args.brokers.div_ceil(2);
    println!(
        "fleet: {} brokers in {groups} groups, {} clients, {} topics a group, heartbeatTimeoutMillis {}, {}s against {} \
         (daemon {:?})",
        args.brokers, args.clients, args.topics, args.heartbeat_timeout_ms, common.secs, common.addr, baseline
    );
    let fleet = Arc::new(Fleet {
        names: (0..args.brokers)
            .map(|b| {
                (group_name(b / 2), (b % 2) as i64, format!("127.0.{}.{}:{}", b / 200, b % 200 + 1, 10_911 + b % 2))
            })
            .collect(),
        tracked: (0..args.brokers).map(|_| Mutex::new(Tracked { phase: Phase::Starting, epoch: 0 })).collect(),
    });
    let mut tasks = Vec::new();
    let monitor_task = tokio::spawn(monitor(common.clone(), Arc::clone(&stats), Arc::clone(&live)));
    for b in 0..args.brokers {
        let (stats, live, fleet, args) = (Arc::clone(&stats), Arc::clone(&live), Arc::clone(&fleet), args.clone());
        tasks.push(tokio::spawn(async move {
            // Spread the start over two seconds.
            if pause(&stats, Duration::from_millis((b as u64 * 2000) / args.brokers as u64)).await {
                broker(b, &args, &stats, &live, &fleet).await;
            }
        }));
    }
    for c in 0..args.clients {
        let (stats, live, args) = (Arc::clone(&stats), Arc::clone(&live), args.clone());
        tasks.push(tokio::spawn(async move { client(c, &args, &stats, &live).await }));
    }
    {
        let (stats, live, fleet, args) = (Arc::clone(&stats), Arc::clone(&live), Arc::clone(&fleet), args.clone());
        tasks.push(tokio::spawn(async move { auditor(&args, &stats, &live, &fleet).await }));
    }
    pause(&stats, Duration::from_secs(common.secs)).await;
    conclude(&common, &stats, baseline, tasks, monitor_task).await
}

/// One broker: register, then heartbeat and re-register every second, with an episode of
/// flapping, freezing, unregistering or changing topics now and then.
async fn broker(b: usize, args: &FleetArgs, stats: &Stats, live: &AtomicU64, fleet: &Fleet) {
    let (name, id, addr) = fleet.names[b].clone();
    let group = b / 2;
    let cluster = format!("SoakCluster{}", group % 4);
    let mut dice = Dice::new(b as u64 + 1);
    let mut topics = group_topics(group, args.topics);
    let mut counter = 1_i64;
    let timeout = Duration::from_millis(args.heartbeat_timeout_ms);
    'connection: while !stats.stopping() {
        let mut conn = match Conn::connect(args.common.addr).await {
            Ok(conn) => conn,
            Err(error) => {
                stats.error(format!("{name}/{id} connect: {error}"));
                if pause(stats, Duration::from_secs(1)).await {
                    continue;
                }
                break;
            }
        };
        let gauge = Gauge::up(live);
        fleet.set(b, Phase::Starting);
        let mut tick = 0_u64;
        let calm = args.calm_secs.max(2);
        let mut next_episode = Instant::now() + Duration::from_secs(dice.between(calm / 6 + 1, calm * 2 / 3));
        loop {
            if stats.stopping() {
                break 'connection;
            }
            if tick % 3 == 0 || matches!(fleet.get(b).phase, Phase::Starting) {
                let cmd = register(&cluster, &name, id, &addr, &topics, counter, Some(args.heartbeat_timeout_ms));
                match conn.call(cmd).await {
                    Ok(reply) if reply.code == 0 => {
                        stats.registrations.add();
                        if !matches!(fleet.get(b).phase, Phase::Live { .. }) {
                            fleet.set(b, Phase::Live { since: Instant::now() });
                        }
                    }
                    Ok(reply) => stats.error(format!("{name}/{id} register: code {} {:?}", reply.code, reply.remark)),
                    Err(error) => {
                        stats.error(format!("{name}/{id} register: {error}"));
                        fleet.set(b, Phase::Disconnected { at: Instant::now() });
                        continue 'connection;
                    }
                }
            } else {
                let hb = request(
                    RequestCode::BrokerHeartbeat,
                    &[
                        ("clusterName", &cluster),
                        ("brokerAddr", &addr),
                        ("brokerName", &name),
                        ("brokerId", &id.to_string()),
                    ],
                );
                if let Err(error) = conn.oneway(hb).await {
                    stats.error(format!("{name}/{id} heartbeat: {error}"));
                }
                stats.heartbeats.add();
            }
            tick += 1;
            if Instant::now() >= next_episode {
                next_episode = Instant::now() + Duration::from_secs(dice.between(calm / 4 + 1, calm));
                match dice.below(100) {
                    // Flap: drop the connection (the NameServer unregisters at once) and come back.
                    0..=24 => {
                        stats.flaps.add();
                        drop(conn);
                        drop(gauge);
                        fleet.set(b, Phase::Disconnected { at: Instant::now() });
                        if pause(stats, Duration::from_millis(dice.between(100, 3000))).await {
                            continue 'connection;
                        }
                        break 'connection;
                    }
                    // Freeze: connected and silent until expired, then back.
                    25..=49 => {
                        stats.freezes.add();
                        fleet.set(b, Phase::Frozen { last_sent: Instant::now() });
                        let silent = timeout + Duration::from_millis(args.scan_ms * 2 + dice.between(1000, 4000));
                        if !pause(stats, silent).await {
                            break 'connection;
                        }
                        // Expired: the NameServer closed the connection, as Java's scan does.
                        let cmd =
                            register(&cluster, &name, id, &addr, &topics, counter, Some(args.heartbeat_timeout_ms));
                        match conn.call(cmd).await {
                            Err(_closed) => {
                                stats.expiry_closes.add();
                                fleet.set(b, Phase::Disconnected { at: Instant::now() });
                                continue 'connection;
                            }
                            Ok(reply) => {
                                stats.error(format!(
                                    "{name}/{id} expired, but its connection is still served: {reply:?}"
                                ));
                                fleet.set(b, Phase::Starting);
                            }
                        }
                    }
                    // Unregister, wait, come back.
                    50..=64 => match conn
                        .call(request(
                            RequestCode::UnregisterBroker,
                            &[
                                ("clusterName", &cluster),
                                ("brokerAddr", &addr),
                                ("brokerName", &name),
                                ("brokerId", &id.to_string()),
                            ],
                        ))
                        .await
                    {
                        Ok(reply) if reply.code == 0 => {
                            stats.unregisters.add();
                            fleet.set(b, Phase::Unregistered { at: Instant::now() });
                            if !pause(stats, Duration::from_millis(dice.between(500, 3000))).await {
                                break 'connection;
                            }
                            fleet.set(b, Phase::Starting);
                        }
                        Ok(reply) => stats.error(format!("{name}/{id} unregister: code {}", reply.code)),
                        Err(error) => stats.error(format!("{name}/{id} unregister: {error}")),
                    },
                    // A topic appears or goes away: the routes change.
                    _ => {
                        stats.topic_changes.add();
                        counter += 1;
                        if topics.len() > args.topics || dice.below(2) == 0 && topics.len() > 2 {
                            topics.pop();
                        } else {
                            topics.push(format!("SoakTopic-{group:03}-x{}", dice.below(3)));
                            topics.dedup();
                        }
                        tick = 0;
                        continue;
                    }
                }
            }
            if !pause(stats, Duration::from_millis(1000)).await {
                break 'connection;
            }
        }
    }
}

/// One client: route queries for random topics (a quarter of them as a 4.x client), and
/// every so often cluster info, the topic list or a KV put read back.
async fn client(c: usize, args: &FleetArgs, stats: &Stats, live: &AtomicU64) {
    let groups = args.brokers.div_ceil(2);
    let mut dice = Dice::new(10_000 + c as u64);
    let Ok(mut conn) = Conn::connect(args.common.addr).await else {
        stats.error(format!("client {c}: connect failed"));
        return;
    };
    let _live = Gauge::up(live);
    let mut n = 0_u64;
    while !stats.stopping() {
        n += 1;
        let ok = if n % 200 == 0 {
            let value = format!("{c}-{n}");
            let key = format!("client-{c}");
            let put = conn
                .call(request(RequestCode::PutKvConfig, &[("namespace", "soak"), ("key", &key), ("value", &value)]))
                .await;
            let get = conn.call(request(RequestCode::GetKvConfig, &[("namespace", "soak"), ("key", &key)])).await;
            stats.owner_requests.add();
            stats.owner_requests.add();
            match (put, get) {
                (Ok(p), Ok(g)) if p.code == 0 && g.code == 0 && g.field("value") == Some(value.as_str()) => true,
                other => {
                    stats.error(format!("client {c}: KV put/get {other:?}"));
                    false
                }
            }
        } else if n % 50 == 0 {
            let code = if n % 100 == 0 {
                RequestCode::GetAllTopicListFromNameserver
            } else {
                RequestCode::GetBrokerClusterInfo
            };
            stats.owner_requests.add();
            match conn.call(request(code, &[])).await {
                Ok(reply) if reply.code == 0 => true,
                other => {
                    stats.error(format!("client {c}: {code:?} {other:?}"));
                    false
                }
            }
        } else {
            let group = dice.below(groups as u64) as usize;
            let topic = format!("SoakTopic-{group:03}-{:02}", dice.below(args.topics as u64));
            ask_route(&mut conn, stats, &topic, Some(&group_name(group)), true, c % 4 == 3).await
        };
        if !ok {
            break;
        }
        if !pause(stats, Duration::from_millis(args.client_pause_ms)).await {
            break;
        }
    }
}

/// Every two seconds: GET_BROKER_CLUSTER_INFO, compared with each broker's phase.
async fn auditor(args: &FleetArgs, stats: &Stats, live: &AtomicU64, fleet: &Fleet) {
    let Ok(mut conn) = Conn::connect(args.common.addr).await else {
        stats.error("auditor: connect failed");
        return;
    };
    let _live = Gauge::up(live);
    let timeout = Duration::from_millis(args.heartbeat_timeout_ms);
    // Margins for the clock of this tool against the daemon's, and for scheduling delays.
    let slack = Duration::from_millis(1500);
    let expired_after = timeout + Duration::from_millis(args.scan_ms) + slack;
    while pause(stats, Duration::from_secs(2)).await {
        let before: Vec<Tracked> = (0..fleet.names.len()).map(|b| fleet.get(b)).collect();
        let asked = Instant::now();
        let reply = match conn.call(request(RequestCode::GetBrokerClusterInfo, &[])).await {
            Ok(reply) if reply.code == 0 => reply,
            other => {
                stats.error(format!("auditor: cluster info {other:?}"));
                break;
            }
        };
        stats.owner_requests.add();
        let info: ClusterInfo = match from_fastjson(&reply.body) {
            Ok(info) => info,
            Err(error) => {
                stats.error(format!("auditor: cluster info does not parse: {error}"));
                break;
            }
        };
        let mut present: BTreeMap<(String, i64), String> = BTreeMap::new();
        for (name, data) in info.broker_addr_table.iter() {
            for (BrokerId(id), addr) in &data.broker_addrs {
                present.insert((name.as_str().to_string(), *id), addr.as_str().to_string());
            }
        }
        stats.audits.add();
        for (b, (name, id, addr)) in fleet.names.iter().enumerate() {
            let after = fleet.get(b);
            if after.epoch != before[b].epoch {
                continue; // changed while the question was in flight: no verdict
            }
            let listed = present.get(&(name.clone(), *id)) == Some(addr);
            match after.phase {
                Phase::Live { since } if since < asked => {
                    stats.seen_present.add();
                    if !listed {
                        stats.error(format!(
                            "auditor: {name}/{id} is live (registered {:?} ago) but not listed",
                            since.elapsed()
                        ));
                    }
                }
                Phase::Frozen { last_sent } if asked.duration_since(last_sent) > expired_after => {
                    stats.seen_absent.add();
                    if listed {
                        stats.error(format!(
                            "auditor: {name}/{id} silent for {:?} but still listed",
                            asked.duration_since(last_sent)
                        ));
                    }
                }
                Phase::Disconnected { at } if asked.duration_since(at) > slack => {
                    stats.seen_absent.add();
                    if listed {
                        stats.error(format!(
                            "auditor: {name}/{id} disconnected {:?} ago but still listed",
                            asked.duration_since(at)
                        ));
                    }
                }
                Phase::Unregistered { at } if at < asked => {
                    stats.seen_absent.add();
                    if listed {
                        stats.error(format!("auditor: {name}/{id} unregistered but still listed"));
                    }
                }
                _ => {}
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// kv-put / kv-check: the crash loop
// ---------------------------------------------------------------------------------------------

const KV_NAMESPACE: &str = "crash";

/// The value of key `i` in round `round`: long enough that a write takes a while, and
/// different in length from round to round, so a torn file cannot pass for a whole one.
fn kv_value(round: u64, i: usize) -> String {
    let pad = 1500 + (round as usize * 37 + i * 11) % 700;
    format!("{round}:{i}:{}", "v".repeat(pad))
}

fn kv_key(i: usize) -> String {
    format!("k{i:04}")
}

/// Sends every put at once and reads replies until the connection ends (the crash loop
/// kills the daemon in the middle); prints how many were answered.
async fn kv_put(args: KvArgs) -> bool {
    let mut conn = match Conn::connect(args.addr).await {
        Ok(conn) => conn,
        Err(error) => {
            eprintln!("kv-put: cannot connect to {}: {error}", args.addr);
            return false;
        }
    };
    let mut burst = Vec::new();
    for i in 0..args.keys {
        let cmd = conn.prepare(request(
            RequestCode::PutKvConfig,
            &[("namespace", KV_NAMESPACE), ("key", &kv_key(i)), ("value", &kv_value(args.round, i))],
        ));
        codec::encode(&cmd, &mut burst).expect("a put encodes");
    }
    if let Err(error) = conn.stream.write_all(&burst).await {
        eprintln!("kv-put: could not send the puts: {error}");
        return false;
    }
    // The crash loop waits for this line before it picks the moment to kill.
    println!("sent {}", args.keys);
    let _ = std::io::Write::flush(&mut std::io::stdout());
    let mut answered = 0;
    loop {
        match codec::decode(&conn.buf, &Limits::DEFAULT) {
            Ok(Some((reply, used))) => {
                conn.buf.drain(..used);
                if reply.code != 0 {
                    eprintln!("kv-put: code {} {:?}", reply.code, reply.remark);
                    return false;
                }
                answered += 1;
                if answered == args.keys {
                    break;
                }
                continue;
            }
            Ok(None) => {}
            Err(error) => {
                eprintln!("kv-put: undecodable reply: {error}");
                return false;
            }
        }
        conn.buf.reserve(8192);
        match conn.stream.read_buf(&mut conn.buf).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
    println!("answered {answered}");
    true
}

/// Reads the namespace back and checks that it is a table some sequence of whole writes
/// produced, no older than what the last check saw; prints the rounds per key, compressed.
async fn kv_check(args: KvArgs) -> bool {
    let fail = |why: String| {
        eprintln!("kv-check: {why}");
        false
    };
    let mut conn = match Conn::connect(args.addr).await {
        Ok(conn) => conn,
        Err(error) => return fail(format!("cannot connect to {}: {error}", args.addr)),
    };
    let reply = match conn.call(request(RequestCode::GetKvlistByNamespace, &[("namespace", KV_NAMESPACE)])).await {
        Ok(reply) => reply,
        Err(error) => return fail(error),
    };
    let table: BTreeMap<String, String> = match reply.code {
        22 => BTreeMap::new(),
        0 => match from_fastjson::<nameserver_core::protocol::body::KvTable>(&reply.body) {
            Ok(kv) => kv.table.into_iter().collect(),
            Err(error) => return fail(format!("the KV list does not parse: {error}")),
        },
        code => return fail(format!("GET_KVLIST_BY_NAMESPACE answered {code} {:?}", reply.remark)),
    };
    // Each key holds a whole value from some round no later than the last one written.
    let mut rounds = Vec::with_capacity(args.keys);
    for i in 0..args.keys {
        match table.get(&kv_key(i)) {
            None => rounds.push(0),
            Some(value) => {
                let Some(round) = value.split(':').next().and_then(|r| r.parse::<u64>().ok()) else {
                    return fail(format!("{}: unreadable value", kv_key(i)));
                };
                if round == 0 || round > args.round || *value != kv_value(round, i) {
                    return fail(format!("{}: value of {} bytes is not round {round}'s", kv_key(i), value.len()));
                }
                rounds.push(round);
            }
        }
    }
    if table.len() != rounds.iter().filter(|r| **r > 0).count() {
        return fail(format!("{} keys, some of them not written by the loop", table.len()));
    }
    // Writes go key by key, round by round, so a saved table reads newest first.
    if let Some(i) = (1..rounds.len()).find(|&i| rounds[i] > rounds[i - 1]) {
        return fail(format!(
            "{} is from round {} but {} only from round {}: not a state any write produced",
            kv_key(i),
            rounds[i],
            kv_key(i - 1),
            rounds[i - 1]
        ));
    }
    if let Some(path) = &args.state {
        let before: Vec<u64> = std::fs::read_to_string(path)
            .unwrap_or_default()
            .split_whitespace()
            .filter_map(|r| r.parse().ok())
            .collect();
        if let Some(i) = before.iter().zip(&rounds).position(|(old, new)| new < old) {
            return fail(format!(
                "{} went back from round {} to {}: a confirmed write was lost",
                kv_key(i),
                before[i],
                rounds[i]
            ));
        }
        let text: Vec<String> = rounds.iter().map(u64::to_string).collect();
        if let Err(error) = std::fs::write(path, text.join(" ")) {
            return fail(format!("cannot save the state: {error}"));
        }
    }
    // Rounds per key, run-length encoded: "3x120 2x180" = keys 0-119 from round 3, the rest from round 2.
    let mut runs: Vec<(u64, usize)> = Vec::new();
    for round in rounds {
        match runs.last_mut() {
            Some((r, n)) if *r == round => *n += 1,
            _ => runs.push((round, 1)),
        }
    }
    let summary: Vec<String> = runs.iter().map(|(r, n)| format!("r{r}x{n}")).collect();
    println!("ok {}", summary.join(" "));
    true
}
