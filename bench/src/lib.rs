//! Benchmark tools for RocketMQ NameServers, over TCP on the loopback interface.
//!
//! - [`route`]: N connections × pipeline depth D of GET_ROUTEINFO_BY_TOPIC over K topics,
//!   while a [`fleet`] of brokers stays registered (connections open, registering again every
//!   period like real brokers);
//! - [`counted`]: exactly N route queries, for callgrind's instruction counts;
//! - [`controller_load`]: N connections × depth D of RIP-44 controller requests (heartbeats,
//!   reads, groups forming) against an embedded controller's port;
//! - [`storm`]: many brokers registering at once, and one very large registration;
//! - [`startup`]: exec → listening;
//! - [`floor`]: a server that frames each request and answers a fixed, route-sized body with
//!   no routing work, the ceiling of the protocol on the machine;
//! - [`reliability`]: long runs that count every error, leak and change of memory (held
//!   connections, a churning fleet with an auditor, the crash loop's KV writer and checker).
//!
//! Frames are built with the core codec (`nameserver_testkit::frames`); replies are read just
//! enough to match them to their requests (`nameserver_testkit::scan`); latencies go into HDR
//! histograms ([`stats`]). Each
//! measurement is printed as a [`measurement::Measurement`]; [`report`] turns a run's raw
//! lines into the comparison tables. The
//! binaries are `loadgen` and `floor`; `scripts/bench.sh` runs them against this NameServer,
//! rocketmq-rust's and the floor in one go.

pub mod charts;
mod closed_loop;
pub mod controller_load;
pub mod counted;
pub mod fleet;
pub mod floor;
pub mod measurement;
pub mod reliability;
pub mod report;
pub mod route;
pub mod startup;
pub mod stats;
pub mod storm;
pub mod timeline;

/// Resident memory of process `pid` in KiB (`VmRSS`).
///
/// # Errors
/// The process does not exist or is not readable (not Linux).
pub fn rss_kib(pid: u32) -> std::io::Result<u64> {
    nameserver_testkit::ProcSample::of(pid).map(|sample| sample.rss_kib)
}
