//! `loadgen counted`: exactly N route queries, with shell commands around them (callgrind's
//! zero and dump).

use std::sync::Arc;
use std::time::Duration;

use anyhow::bail;
use clap::Args;
use nameserver_bench::counted;
use nameserver_bench::fleet::{Fleet, FleetSpec};
use nameserver_testkit::frames;

use crate::{Target, emit, loopback};

/// `counted`.
#[derive(Debug, Args)]
pub(crate) struct CountedArgs {
    #[command(flatten)]
    target: Target,
    /// Connections
    #[arg(long, default_value_t = 4)]
    conns: usize,
    /// Requests in flight per connection
    #[arg(long, default_value_t = 8)]
    depth: usize,
    /// Topics queried, round robin
    #[arg(long, default_value_t = 1000)]
    topics: usize,
    /// Brokers registered (each serving every topic)
    #[arg(long, default_value_t = 4)]
    brokers: usize,
    /// Queries before `--before` runs (every topic's route is built by then)
    #[arg(long, default_value_t = 2000)]
    warmup: u64,
    /// Queries measured
    #[arg(long, default_value_t = 200_000)]
    requests: u64,
    /// Shell command run after the warm-up
    #[arg(long)]
    before: Option<String>,
    /// Shell command run after the last measured reply
    #[arg(long)]
    after: Option<String>,
}

/// `counted`: a `COUNTED` line.
pub(crate) async fn counted((label, json): (&str, bool), args: &CountedArgs) -> anyhow::Result<bool> {
    let CountedArgs { target, conns, depth, topics, brokers, warmup, requests, before, after } = args;
    let (addr, timeout) = loopback(target)?;
    let spec = FleetSpec {
        addr,
        brokers: *brokers,
        topics: *topics,
        queue_spread: 1,
        compressed: false,
        period: Duration::from_secs(24 * 3600),
        timeout,
        in_flight: 64,
    };
    let fleet = Fleet::start(&spec).await?;
    let templates: Arc<[frames::Template]> = frames::route_templates((*topics).max(1)).into();
    let load = counted::CountedLoad { addr, conns: *conns, depth: *depth, timeout };
    let warm = counted::run(&load, Arc::clone(&templates), *warmup).await;
    shell(before.as_deref()).await?;
    let seen = counted::run(&load, templates, *requests).await;
    shell(after.as_deref()).await?;
    let report = fleet.stop().await;
    let errors = warm.bad_codes + warm.io + seen.bad_codes + seen.io + report.errors;
    emit(
        json,
        &format!(
            "COUNTED label={label} conns={conns} depth={depth} topics={topics} brokers={brokers} \
             requests={requests} ok={} bad_codes={} io={} errors={errors} registrations={}",
            seen.ok, seen.bad_codes, seen.io, report.registrations
        ),
    )?;
    Ok(errors == 0 && seen.ok == *requests)
}

/// Runs `command` with `sh -c` (none: nothing) and fails unless it succeeds.
async fn shell(command: Option<&str>) -> anyhow::Result<()> {
    let Some(command) = command else { return Ok(()) };
    let mut sh = std::process::Command::new("sh");
    sh.arg("-c").arg(command);
    let status = tokio::task::spawn_blocking(move || sh.status()).await??;
    if !status.success() {
        bail!("`{command}` failed: {status}");
    }
    Ok(())
}
