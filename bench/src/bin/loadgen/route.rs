//! `loadgen route` and `loadgen pingpong`: route queries while a few brokers stay registered.

use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use nameserver_bench::fleet::{Fleet, FleetSpec};
use nameserver_bench::route::{self, RouteLoad, RouteResult};
use nameserver_bench::storm;
use nameserver_testkit::frames;

use crate::{Target, emit, loopback};

/// `route`.
#[derive(Debug, Args)]
pub(crate) struct RouteArgs {
    #[command(flatten)]
    target: Target,
    /// Connections
    #[arg(long, default_value_t = 32)]
    conns: usize,
    /// Requests in flight per connection
    #[arg(long, default_value_t = 8)]
    depth: usize,
    #[command(flatten)]
    load: LoadArgs,
}

/// `pingpong`.
#[derive(Debug, Args)]
pub(crate) struct PingpongArgs {
    #[command(flatten)]
    target: Target,
    #[command(flatten)]
    load: LoadArgs,
}

#[derive(Debug, Args)]
struct LoadArgs {
    /// Topics queried, round robin
    #[arg(long, default_value_t = 1000)]
    topics: usize,
    /// Brokers registered (each serving every topic) during the load
    #[arg(long, default_value_t = 4)]
    brokers: usize,
    /// Brokers register again this often, as real brokers do every 30 s
    #[arg(long, default_value_t = 30_000)]
    reregister_ms: u64,
    /// Compressed registration bodies
    #[arg(long)]
    compressed: bool,
    /// Warm-up before measuring
    #[arg(long, default_value_t = 2000)]
    warmup_ms: u64,
    /// Measured time
    #[arg(long, default_value_t = 10_000)]
    duration_ms: u64,
}

/// `route`: a `ROUTE` line.
pub(crate) async fn route((label, json): (&str, bool), args: &RouteArgs) -> anyhow::Result<bool> {
    let RouteArgs { target, conns, depth, load } = args;
    route_mode(("ROUTE", label, json), target, *conns, *depth, load).await
}

/// `pingpong`: a `PINGPONG` line, one connection with one request in flight.
pub(crate) async fn pingpong((label, json): (&str, bool), args: &PingpongArgs) -> anyhow::Result<bool> {
    route_mode(("PINGPONG", label, json), &args.target, 1, 1, &args.load).await
}

async fn route_mode(
    (kind, label, json): (&str, &str, bool),
    target: &Target,
    conns: usize,
    depth: usize,
    load: &LoadArgs,
) -> anyhow::Result<bool> {
    let (addr, timeout) = loopback(target)?;
    let spec = FleetSpec {
        addr,
        brokers: load.brokers,
        topics: load.topics,
        queue_spread: 1,
        compressed: load.compressed,
        period: Duration::from_millis(load.reregister_ms.max(1)),
        timeout,
        in_flight: 64,
    };
    let fleet = Fleet::start(&spec).await?;
    let templates: Arc<[frames::Template]> = frames::route_templates(load.topics.max(1)).into();
    let route_load = RouteLoad {
        addr,
        conns,
        depth,
        warmup: Duration::from_millis(load.warmup_ms),
        duration: Duration::from_millis(load.duration_ms.max(1)),
        timeout,
        timeline: false,
    };
    let (warmup, result): (RouteResult, RouteResult) = route::run(&route_load, templates).await;
    let brokers = fleet.stop().await;
    let e = &result.errors;
    let errors = e.total() + brokers.errors;
    emit(
        json,
        &format!(
            "{kind} label={label} conns={conns} depth={depth} topics={} brokers={} qps={:.0} completed={} {} \
         errors={errors} io={} lost={} protocol={} bad_codes={} registrations={} reply_bytes={:.0} warmup_ms={} \
         warmup_qps={:.0} warmup_p99_us={:.1} hist={}",
            load.topics,
            load.brokers,
            result.qps(),
            result.completed,
            result.latencies.summary(),
            e.io,
            e.lost,
            e.protocol,
            storm::codes_text(&e.codes),
            brokers.registrations,
            result.reply_bytes as f64 / result.replies.max(1) as f64,
            load.warmup_ms,
            warmup.qps(),
            warmup.latencies.summary().p99_us,
            result.latencies.to_base64()
        ),
    )?;
    Ok(errors == 0 && result.completed > 0)
}
