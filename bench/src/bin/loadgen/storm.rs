//! `loadgen storm` and `loadgen register-one`: registrations, many at once or one large one
//! at a time.

use std::time::Duration;

use anyhow::Context as _;
use clap::Args;
use nameserver_bench::rss_kib;
use nameserver_bench::stats::ms;
use nameserver_bench::storm;

use crate::{FleetSize, Target, emit, loopback};

/// `storm`.
#[derive(Debug, Args)]
pub(crate) struct StormArgs {
    #[command(flatten)]
    target: Target,
    #[command(flatten)]
    fleet: FleetSize,
    /// zlib-compressed bodies (4.9.x `compressedRegister=true`) instead of JSON
    #[arg(long)]
    compressed: bool,
}

/// `register-one`.
#[derive(Debug, Args)]
pub(crate) struct RegisterOneArgs {
    #[command(flatten)]
    target: Target,
    /// Topics in the registration
    #[arg(long, default_value_t = 10_000)]
    topics: usize,
    /// Registrations, each by a new broker group
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// zlib-compressed body instead of JSON
    #[arg(long)]
    compressed: bool,
    /// The server's process id: also report its VmRSS before and after
    #[arg(long)]
    pid: Option<u32>,
    /// Wait after the last registration before reading VmRSS
    #[arg(long, default_value_t = 1000)]
    settle_ms: u64,
}

/// `storm`: a `STORM` line.
pub(crate) async fn storm((label, json): (&str, bool), args: &StormArgs) -> anyhow::Result<bool> {
    let StormArgs { target, fleet: FleetSize { brokers, topics, .. }, compressed } = args;
    let (addr, timeout) = loopback(target)?;
    let r = storm::storm(addr, *brokers, *topics, *compressed, timeout).await?;
    let secs = r.wall.as_secs_f64().max(1e-9);
    emit(
        json,
        &format!(
            "STORM label={label} brokers={brokers} topics={topics} compressed={compressed} frame_bytes={} wall_ms={} \
             registrations_per_s={:.1} topics_per_s={:.0} ok={} errors={} bad_codes={} {}",
            r.frame_bytes,
            ms(r.wall),
            r.ok as f64 / secs,
            (r.ok as f64 * *topics as f64) / secs,
            r.ok,
            r.errors,
            storm::codes_text(&r.codes),
            r.latencies.summary()
        ),
    )?;
    Ok(r.errors == 0)
}

/// `register-one`: a `REGISTER_ONE` line.
pub(crate) async fn register_one((label, json): (&str, bool), args: &RegisterOneArgs) -> anyhow::Result<bool> {
    let RegisterOneArgs { target, topics, reps, compressed, pid, settle_ms } = args;
    let (addr, timeout) = loopback(target)?;
    let before = pid.map(rss_kib).transpose().context("reading the server's VmRSS")?;
    let r = storm::register_one(addr, *topics, *reps, *compressed, timeout).await?;
    let after = match pid {
        Some(pid) => {
            tokio::time::sleep(Duration::from_millis(*settle_ms)).await;
            Some(rss_kib(*pid)?)
        }
        None => None,
    };
    let kib = |v: Option<u64>| v.map_or_else(|| String::from("nan"), |v| v.to_string());
    let all: Vec<String> = r.samples.iter().map(|d| ms(*d)).collect();
    emit(
        json,
        &format!(
            "REGISTER_ONE label={label} topics={topics} compressed={compressed} frame_bytes={} median_ms={} \
             first_ms={} min_ms={} samples_ms={} errors={} bad_codes={} rss_before_kib={} rss_after_kib={}",
            r.frame_bytes,
            ms(r.median()),
            r.samples.first().map_or_else(|| String::from("nan"), |d| ms(*d)),
            r.samples.iter().min().map_or_else(|| String::from("nan"), |d| ms(*d)),
            all.join(","),
            r.errors,
            storm::codes_text(&r.codes),
            kib(before),
            kib(after)
        ),
    )?;
    Ok(r.errors == 0 && !r.samples.is_empty())
}
