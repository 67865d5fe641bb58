//! `loadgen hold`: a registered fleet held while the server's memory is read.

use std::time::Duration;

use anyhow::Context as _;
use clap::Args;
use nameserver_bench::fleet::{Fleet, FleetSpec};
use nameserver_bench::rss_kib;
use nameserver_bench::stats::ms;
use nameserver_core::codec;
use nameserver_testkit::frames;
use nameserver_testkit::scan::Conn;

use crate::{FleetSize, Target, emit, loopback};

/// `hold`.
#[derive(Debug, Args)]
pub(crate) struct HoldArgs {
    #[command(flatten)]
    target: Target,
    #[command(flatten)]
    fleet: FleetSize,
    /// The server's process id
    #[arg(long)]
    pid: u32,
    /// Wait after the last registration before reading VmRSS
    #[arg(long, default_value_t = 1000)]
    settle_ms: u64,
    /// Topic i has 8 + i % N queues: 1 gives every topic the same route, the number of
    /// topics gives every topic a route of its own
    #[arg(long, default_value_t = 1)]
    queue_spread: usize,
    /// Ask for every topic's route once (and check it is found) before reading VmRSS
    #[arg(long)]
    query_each: bool,
}

/// `hold`: a `HOLD` line.
pub(crate) async fn hold((label, json): (&str, bool), args: &HoldArgs) -> anyhow::Result<bool> {
    let HoldArgs { target, fleet: FleetSize { brokers, topics, in_flight }, pid, settle_ms, queue_spread, query_each } =
        args;
    let (addr, timeout) = loopback(target)?;
    let idle = rss_kib(*pid).with_context(|| format!("reading the VmRSS of process {pid}"))?;
    let spec = FleetSpec {
        addr,
        brokers: *brokers,
        topics: *topics,
        queue_spread: *queue_spread,
        compressed: false,
        period: Duration::from_secs(3600),
        timeout,
        in_flight: *in_flight,
    };
    // The frames are built before the clock: it measures the server registering them.
    let prepared = Fleet::prepare(&spec);
    let started = std::time::Instant::now();
    let fleet = prepared.start().await?;
    let registered = started.elapsed();
    let mut not_found = 0;
    if *query_each {
        let mut conn = Conn::connect(addr).await?;
        for i in 0..*topics {
            let frame = codec::encode_to_vec(&frames::route_query(&frames::topic_name(i)))?;
            let (reply, _) = conn.call(&frame, timeout).await?;
            not_found += u64::from(reply.code != 0);
        }
    }
    tokio::time::sleep(Duration::from_millis(*settle_ms)).await;
    let loaded = rss_kib(*pid)?;
    let report = fleet.stop().await;
    emit(
        json,
        &format!(
            "HOLD label={label} brokers={brokers} topics={topics} queue_spread={queue_spread} \
             query_each={query_each} rss_before_kib={idle} rss_loaded_kib={loaded} register_all_ms={} \
             registrations={} errors={} not_found={not_found}",
            ms(registered),
            report.registrations,
            report.errors
        ),
    )?;
    Ok(report.errors == 0 && not_found == 0)
}
