//! What `loadgen`'s reliability modes take on the command line.

use std::net::SocketAddr;

use clap::Args;

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
