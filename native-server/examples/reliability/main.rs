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

mod conn;
mod connections;
mod fleet;
mod kv;
mod monitor;
mod stats;

use std::net::SocketAddr;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::connections::connections;
use crate::fleet::fleet;
use crate::kv::{kv_check, kv_put};

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
