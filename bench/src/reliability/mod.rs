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

mod args;
mod conn;
mod connections;
mod fleet;
mod kv;
mod monitor;
mod stats;

use clap::Subcommand;

pub use self::args::{Common, ConnectionsArgs, FleetArgs, KvArgs};
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
