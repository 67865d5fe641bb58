//! `loadgen cold`: route load on a fresh server through a registration storm, then cold and
//! warm.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use clap::Args;
use nameserver_bench::fleet::{Fleet, FleetSpec};
use nameserver_bench::route::{self, Phases, RouteLoad, RouteResult};
use nameserver_bench::stats::ms;
use nameserver_bench::{storm, timeline};
use nameserver_testkit::frames;

use crate::{FleetSize, Target, emit, loopback, runtime};

/// `cold`.
#[derive(Debug, Args)]
pub(crate) struct ColdArgs {
    #[command(flatten)]
    target: Target,
    #[command(flatten)]
    fleet: FleetSize,
    /// Connections
    #[arg(long, default_value_t = 32)]
    conns: usize,
    /// Requests in flight per connection
    #[arg(long, default_value_t = 8)]
    depth: usize,
    /// Length of the cold and of the warm phase
    #[arg(long, default_value_t = 5000)]
    phase_ms: u64,
    /// Brokers register again this often (real brokers: every 30 s)
    #[arg(long, default_value_t = 30_000)]
    reregister_ms: u64,
    /// Worker threads of the brokers' runtime (the route load runs on a runtime of its
    /// own, with `--threads` workers)
    #[arg(long, default_value_t = 1)]
    fleet_threads: usize,
}

/// `cold`: a `COLD` line. Replies during the storm may be TOPIC_NOT_EXIST (17): a topic's first
/// broker may not have registered yet; afterwards every reply must be SUCCESS.
///
/// Before the clock starts, the registration frames are built and the route connections are
/// open, each with one query answered (so the storm's slowest reply is not the server
/// accepting 132 connections at once). The route load and the brokers run on two runtimes: a
/// route connection never waits in a worker's queue behind a broker task writing 1.7 MB, so
/// its latencies are the server's and the OS scheduler's, not the generator's own queueing.
/// The floor goes through the same generator.
pub(crate) fn cold((label, json): (&str, bool), route_threads: usize, args: &ColdArgs) -> anyhow::Result<bool> {
    let ColdArgs {
        ref target,
        fleet: FleetSize { brokers, topics, in_flight },
        conns,
        depth,
        phase_ms,
        reregister_ms,
        fleet_threads,
    } = *args;
    let (addr, timeout) = loopback(target)?;
    let route_runtime = runtime("route-load", route_threads)?;
    let fleet_runtime = runtime("fleet", fleet_threads)?;
    let templates: Arc<[frames::Template]> = frames::route_templates(topics.max(1)).into();
    let phase = Duration::from_millis(phase_ms.max(1));
    let spec = FleetSpec {
        addr,
        brokers,
        topics,
        queue_spread: 1,
        compressed: false,
        period: Duration::from_millis(reregister_ms.max(1)),
        timeout,
        in_flight,
    };
    let prepared = Fleet::prepare(&spec);
    let route_load = RouteLoad { addr, conns, depth, warmup: Duration::ZERO, duration: phase, timeout, timeline: true };
    let opened = route_runtime.block_on(route::open(&route_load, &templates));
    let (registered, results, report) = fleet_runtime.block_on(async {
        let start = std::time::Instant::now();
        let phases = Arc::new(Phases::open(start, vec![phase, phase]));
        let load = route_runtime.spawn({
            let phases = Arc::clone(&phases);
            async move { route::run_opened(opened, &route_load, templates, phases).await }
        });
        let fleet = prepared.start().await;
        phases.end_first(std::time::Instant::now());
        let registered = start.elapsed();
        let results = load.await.context("the route load failed")?;
        let report = match fleet {
            Ok(fleet) => {
                let answered: Vec<String> =
                    fleet.answered().iter().map(|at| format!("{:.1}", (*at - start).as_secs_f64() * 1000.0)).collect();
                (fleet.stop().await, answered)
            }
            Err(error) => return Err(error.context("registering the fleet")),
        };
        anyhow::Ok((registered, results, report))
    })?;
    let (report, answered) = report;
    let [storm, cold, warm] = <[RouteResult; 3]>::try_from(results).map_err(|_| anyhow::anyhow!("three phases"))?;
    let storm_codes = &storm.errors.codes;
    let not_found = storm_codes.get(&17).copied().unwrap_or(0);
    let failed_codes: u64 = storm_codes.iter().filter(|(code, _)| **code != 17).map(|(_, n)| n).sum::<u64>()
        + cold.errors.codes.values().sum::<u64>()
        + warm.errors.codes.values().sum::<u64>();
    let e = &storm.errors;
    let errors = e.io + e.lost + e.protocol + failed_codes + report.errors;
    let phase_text = |name: &str, r: &RouteResult| {
        let s = r.latencies.summary();
        format!(
            "{name}_qps={:.0} {name}_ok_qps={:.0} {name}_p50_us={:.1} {name}_p99_us={:.1} {name}_p999_us={:.1} \
             {name}_max_us={:.1} {name}_max_sent_ms={}",
            r.qps(),
            r.ok_qps(),
            s.p50_us,
            s.p99_us,
            s.p999_us,
            s.max_us,
            r.slowest.map_or_else(|| String::from("nan"), |(_, sent)| ms(sent))
        )
    };
    let mut codes = std::collections::BTreeMap::new();
    for (code, n) in [&storm, &cold, &warm].iter().flat_map(|r| &r.errors.codes) {
        *codes.entry(*code).or_default() += n;
    }
    emit(
        json,
        &format!(
            "COLD label={label} brokers={brokers} topics={topics} conns={conns} depth={depth} phase_ms={phase_ms} \
         route_threads={route_threads} fleet_threads={fleet_threads} register_all_ms={} {} \
         storm_not_found={not_found} {} {} errors={errors} io={} lost={} protocol={} codes={} registrations={} \
         tl_bucket_ms={} tl_registered_ms={} {}",
            ms(registered),
            phase_text("storm", &storm),
            phase_text("cold", &cold),
            phase_text("warm", &warm),
            e.io,
            e.lost,
            e.protocol,
            storm::codes_text(&codes),
            report.registrations,
            timeline::BUCKET.as_millis(),
            timeline::or_dash(&answered),
            storm.timeline.clone().unwrap_or_default().fields()
        ),
    )?;
    Ok(errors == 0 && cold.completed > 0 && warm.completed > 0)
}
