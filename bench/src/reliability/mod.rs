//! `loadgen`'s load, soak and crash-loop modes for a running `nameserver` (RELIABILITY.md;
//! `scripts/soak.sh` and `scripts/crash-loop.sh` start the daemon and run these). Everything
//! they check is counted; `loadgen` exits non-zero on any error, leak or memory growth.
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
//! cargo run --release -p nameserver-bench --bin loadgen -- fleet --addr 127.0.0.1:9876 --pid 1234 --secs 1800
//! ```

mod conn;
mod connections;
mod fleet;
mod kv;
mod monitor;
mod stats;

use std::net::SocketAddr;

use clap::{Args, Subcommand};

use self::connections::connections;
use self::fleet::fleet;
use self::kv::{kv_check, kv_put};

/// The modes, as `loadgen` subcommands.
#[derive(Clone, Debug, Subcommand)]
pub enum Drive {
    /// Hold many connections while a few ask for routes as fast as they can
    Connections(ConnectionsArgs),
    /// Brokers registering, flapping, freezing and expiring; clients querying; an auditor
    Fleet(FleetArgs),
    /// Put `--keys` KV entries for round `--round` as one pipelined burst
    KvPut(KvArgs),
    /// Read the crash loop's namespace back and check it (see RELIABILITY.md)
    KvCheck(KvArgs),
}

/// `kv-put` and `kv-check`.
#[derive(Args, Clone, Debug)]
pub struct KvArgs {
    /// The daemon's RocketMQ address
    #[arg(long)]
    pub addr: SocketAddr,
    /// Keys written each round
    #[arg(long, default_value_t = 300)]
    pub keys: usize,
    /// The round being written, or the last round written before this check
    #[arg(long)]
    pub round: u64,
    /// kv-check: a file holding the rounds the last check saw (one per key); updated
    #[arg(long)]
    pub state: Option<std::path::PathBuf>,
}

/// What every long-running mode takes.
#[derive(Args, Clone, Debug)]
pub struct Common {
    /// The daemon's RocketMQ address
    #[arg(long)]
    pub addr: SocketAddr,
    /// The daemon's process id, to sample its memory, threads and descriptors
    #[arg(long)]
    pub pid: Option<u32>,
    /// How long to run, in seconds
    #[arg(long, default_value_t = 60)]
    pub secs: u64,
    /// Seconds between samples
    #[arg(long, default_value_t = 10)]
    pub sample_secs: u64,
    /// Seconds before the memory baseline is taken (default: a tenth of the run, at most 180)
    #[arg(long)]
    pub warmup_secs: Option<u64>,
    /// Largest allowed resident-memory change after the warm-up, in percent of the baseline
    #[arg(long, default_value_t = 10.0)]
    pub rss_tolerance: f64,
}

/// `connections`.
#[derive(Args, Clone, Debug)]
pub struct ConnectionsArgs {
    /// Address, process, duration and memory bounds.
    #[command(flatten)]
    pub common: Common,
    /// Connections held open
    #[arg(long, default_value_t = 5000)]
    pub conns: usize,
    /// Connections asking for routes back to back
    #[arg(long, default_value_t = 16)]
    pub queriers: usize,
    /// Topics registered (by four brokers) and asked for
    #[arg(long, default_value_t = 200)]
    pub topics: usize,
}

/// `fleet`.
#[derive(Args, Clone, Debug)]
pub struct FleetArgs {
    /// Address, process, duration and memory bounds.
    #[command(flatten)]
    pub common: Common,
    /// Simulated brokers (groups of two: a master and a slave)
    #[arg(long, default_value_t = 300)]
    pub brokers: usize,
    /// Simulated clients
    #[arg(long, default_value_t = 40)]
    pub clients: usize,
    /// Topics per broker group
    #[arg(long, default_value_t = 10)]
    pub topics: usize,
    /// heartbeatTimeoutMillis the brokers register with
    #[arg(long, default_value_t = 6000)]
    pub heartbeat_timeout_ms: u64,
    /// The daemon's scanNotActiveBrokerInterval in milliseconds (for the auditor's margins)
    #[arg(long, default_value_t = 1000)]
    pub scan_ms: u64,
    /// Milliseconds between a client's requests
    #[arg(long, default_value_t = 20)]
    pub client_pause_ms: u64,
    /// Most seconds a broker goes between episodes (flap, freeze, unregister, topic change)
    #[arg(long, default_value_t = 90)]
    pub calm_secs: u64,
}

/// Runs one mode on a runtime of its own (a worker per core); whether it passed.
///
/// # Errors
/// The runtime does not start.
pub fn run(drive: Drive) -> std::io::Result<bool> {
    let runtime = tokio::runtime::Builder::new_multi_thread().thread_name("drive").enable_all().build()?;
    Ok(runtime.block_on(async {
        match drive {
            Drive::Connections(args) => connections(args).await,
            Drive::Fleet(args) => fleet(args).await,
            Drive::KvPut(args) => kv_put(args).await,
            Drive::KvCheck(args) => kv_check(args).await,
        }
    }))
}
