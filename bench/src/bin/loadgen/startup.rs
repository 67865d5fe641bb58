//! `loadgen startup` and `loadgen port`: how long a server takes from exec to listening.

use std::time::Duration;

use anyhow::Context as _;
use clap::Args;
use nameserver_bench::startup;
use nameserver_bench::stats::{median, ms};

use crate::emit;

/// `startup`.
#[derive(Debug, Args)]
pub(crate) struct StartupArgs {
    /// Starts
    #[arg(long, default_value_t = 20)]
    reps: usize,
    /// Connect attempts are this far apart
    #[arg(long, default_value_t = 100)]
    poll_us: u64,
    /// Give up on a start after this long
    #[arg(long, default_value_t = 20_000)]
    timeout_ms: u64,
    /// The server and its arguments
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    command: Vec<String>,
}

/// `startup`: a `STARTUP` line.
pub(crate) async fn startup((label, json): (&str, bool), args: &StartupArgs) -> anyhow::Result<bool> {
    let StartupArgs { reps, poll_us, timeout_ms, command } = args;
    let (program, args) = command.split_first().context("no program given")?;
    let (poll, timeout) = (Duration::from_micros(*poll_us), Duration::from_millis(*timeout_ms));
    let (program, args) = (program.clone(), args.to_vec());
    let reps = *reps;
    let samples = tokio::task::spawn_blocking(move || {
        (0..reps).map(|_| startup::measure_once(&program, &args, poll, timeout)).collect::<Result<Vec<_>, _>>()
    })
    .await??;
    let mut listening: Vec<Duration> = samples.iter().map(|s| s.listening).collect();
    let mut first_reply: Vec<Duration> = samples.iter().map(|s| s.first_reply).collect();
    emit(
        json,
        &format!(
            "STARTUP label={label} reps={reps} listening_median_ms={} listening_min_ms={} listening_max_ms={} \
             first_reply_median_ms={}",
            ms(median(&mut listening)),
            ms(listening.first().copied().unwrap_or_default()),
            ms(listening.last().copied().unwrap_or_default()),
            ms(median(&mut first_reply))
        ),
    )?;
    Ok(true)
}

/// `port`: prints a loopback port that is free now.
pub(crate) fn port() -> anyhow::Result<bool> {
    println!("{}", startup::free_port()?);
    Ok(true)
}
