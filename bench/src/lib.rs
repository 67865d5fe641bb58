//! Benchmark tools for RocketMQ NameServers, over TCP on the loopback interface.
//!
//! - [`route`]: N connections × pipeline depth D of GET_ROUTEINFO_BY_TOPIC over K topics,
//!   while a [`fleet`] of brokers stays registered (connections open, registering again every
//!   period like real brokers);
//! - [`storm`]: many brokers registering at once, and one very large registration;
//! - [`startup`]: exec → listening;
//! - [`floor`]: a server that frames each request and answers a fixed, route-sized body with
//!   no routing work, the ceiling of the protocol on the machine.
//!
//! Frames are built with the core codec ([`frames`]); replies are read just enough to match
//! them to their requests ([`wire`]); latencies go into HDR histograms ([`stats`]). Each
//! measurement is printed as a [`measurement::Measurement`]; [`report`] turns a run's raw
//! lines into the comparison tables. The
//! binaries are `loadgen` and `floor`; `scripts/bench.sh` runs them against this NameServer,
//! rocketmq-rust's and the floor in one go.

pub mod fleet;
pub mod floor;
pub mod frames;
pub mod measurement;
pub mod report;
pub mod route;
pub mod startup;
pub mod stats;
pub mod storm;
pub mod wire;

/// Resident memory of process `pid` in KiB (`VmRSS` of `/proc/PID/status`).
///
/// # Errors
/// The process does not exist or the line is missing (not Linux).
pub fn rss_kib(pid: u32) -> std::io::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("no VmRSS for pid {pid}")))
}
