//! `loadgen`: drives a RocketMQ NameServer on the loopback interface and prints one
//! `KIND key=value …` line per measurement (one JSON object with `--json`); `loadgen report`
//! turns the raw results `scripts/bench.sh` recorded into its comparison tables.
//!
//! ```text
//! loadgen route        --addr 127.0.0.1:9876 --conns 32 --depth 8 --topics 1000 --brokers 4
//! loadgen pingpong     --addr 127.0.0.1:9876 --topics 1000 --brokers 4
//! loadgen storm        --addr 127.0.0.1:9876 --brokers 100 --topics 1000 [--compressed]
//! loadgen register-one --addr 127.0.0.1:9876 --topics 10000 --reps 5 [--compressed] [--pid SERVER_PID]
//! loadgen cold         --addr 127.0.0.1:9876 --brokers 100 --topics 10000 --conns 32 --depth 8
//! loadgen hold         --addr 127.0.0.1:9876 --brokers 100 --topics 1000 --pid SERVER_PID
//! loadgen counted      --addr 127.0.0.1:9876 --requests 200000 --before 'CMD' --after 'CMD'
//! loadgen controller   --addr 127.0.0.1:9878 --workload heartbeat --conns 16 --depth 4 --groups 64
//! loadgen startup      --reps 20 -- target/release/nameserver --listen-port {port} --bind-address 127.0.0.1
//! loadgen port
//! loadgen report       RAW_FILE [--smoke] [--criterion target/criterion] [--svg DIR]
//! loadgen connections  --addr 127.0.0.1:9876 --pid SERVER_PID --secs 600 --conns 5000
//! loadgen fleet        --addr 127.0.0.1:9876 --pid SERVER_PID --secs 1800 --brokers 300
//! loadgen kv-put       --addr 127.0.0.1:9876 --round 3
//! loadgen kv-check     --addr 127.0.0.1:9876 --round 3 --state FILE
//! ```
//!
//! The last four are the soak and crash-loop drivers (`nameserver_bench::reliability`,
//! RELIABILITY.md): they print progress lines and a `RESULT` line rather than measurements.
//! The others each have a file here, named after the subcommand.

mod cold;
mod controller;
mod counted;
mod hold;
mod report;
mod route;
mod startup;
mod storm;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context as _, bail};
use clap::{Args, Parser, Subcommand};
use nameserver_bench::measurement::Measurement;
use nameserver_bench::reliability;

/// Load generator for RocketMQ NameServers (loopback only).
#[derive(Debug, Parser)]
#[command(name = "loadgen", version)]
struct Cli {
    /// Worker threads of the generator's runtime
    #[arg(long, global = true, default_value_t = 2)]
    threads: usize,
    /// A label copied into the output line (e.g. ours, peer, floor)
    #[arg(long, global = true, default_value = "-")]
    label: String,
    /// Print each measurement as one JSON object instead of `KIND key=value …`
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    mode: Mode,
}

/// How many brokers register, and how many topics each.
#[derive(Debug, Args)]
struct FleetSize {
    /// Brokers
    #[arg(long, default_value_t = 100)]
    brokers: usize,
    /// Topics per broker
    #[arg(long, default_value_t = 1000)]
    topics: usize,
    /// Most first registrations in flight at once
    #[arg(long, default_value_t = 64)]
    in_flight: usize,
}

#[derive(Debug, Subcommand)]
enum Mode {
    /// N connections × depth D of GET_ROUTEINFO_BY_TOPIC over K topics while B brokers stay registered
    Route(route::RouteArgs),
    /// One connection, one request in flight: round-trip latency
    Pingpong(route::PingpongArgs),
    /// B brokers, connected first, each register T topics at the same moment
    Storm(storm::StormArgs),
    /// Time to answer one registration of T topics (REPS new brokers, one after another)
    RegisterOne(storm::RegisterOneArgs),
    /// Route load on a fresh server while B brokers × T topics register (the storm), then
    /// for two phases after the last registration was answered (cold, then warm)
    Cold(cold::ColdArgs),
    /// Registers B brokers × T topics, keeps them connected and reads the server's VmRSS
    Hold(hold::HoldArgs),
    /// Exactly N route queries after a warm-up, while B brokers stay registered (no
    /// re-registration): runs `--before` between the two and `--after` once all are answered
    /// (callgrind's zero and dump, for `scripts/bench.sh --instructions`)
    Counted(counted::CountedArgs),
    /// N connections × depth D of controller requests (RIP-44) on an embedded controller's
    /// port, after a warm-up; every reply must be SUCCESS (`nameserver_bench::controller_load`)
    Controller(controller::ControllerArgs),
    /// Prints a loopback port that is free now
    Port,
    #[command(flatten)]
    Drive(reliability::Drive),
    /// Prints the Markdown comparison tables of a bench run from its raw file (lines of
    /// `MEASURE KIND rc=N load=X RESULT`, RESULT as printed by the other modes)
    Report(report::ReportArgs),
    /// Exec → listening: spawn PROGRAM (every `{port}` in ARGS replaced by a free port) REPS times
    Startup(startup::StartupArgs),
}

#[derive(Debug, Args)]
struct Target {
    /// The NameServer (a loopback address)
    #[arg(long, default_value = "127.0.0.1:9876")]
    addr: SocketAddr,
    /// How long one reply may take
    #[arg(long, default_value_t = 60_000)]
    timeout_ms: u64,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Mode::Report(args) = &cli.mode {
        return match report::report(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("loadgen: {error:#}");
                ExitCode::from(2)
            }
        };
    }
    let outcome = match &cli.mode {
        Mode::Cold(args) => cold::cold((&cli.label, cli.json), cli.threads, args),
        Mode::Drive(drive) => reliability::run(drive.clone()).context("cannot start the driver's runtime"),
        _ => runtime("loadgen", cli.threads).and_then(|runtime| runtime.block_on(run(&cli))),
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(error) => {
            eprintln!("loadgen: {error:#}");
            ExitCode::from(2)
        }
    }
}

/// A multi-thread runtime of `threads` workers named `name`.
fn runtime(name: &str, threads: usize) -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.max(1))
        .thread_name(name)
        .enable_all()
        .build()
        .with_context(|| format!("cannot start the {name} runtime"))
}

/// Prints one measurement, written once as `KIND key=value …`, in the form asked for.
fn emit(json: bool, line: &str) -> anyhow::Result<()> {
    let measurement = Measurement::parse(line).context("loadgen printed a malformed measurement")?;
    if json {
        println!("{}", measurement.to_json());
    } else {
        println!("{measurement}");
    }
    Ok(())
}

fn loopback(target: &Target) -> anyhow::Result<(SocketAddr, Duration)> {
    if !target.addr.ip().is_loopback() {
        bail!("{} is not a loopback address; loadgen only targets this machine", target.addr);
    }
    Ok((target.addr, Duration::from_millis(target.timeout_ms)))
}

/// Runs one mode; `Ok(false)` when it saw errors.
async fn run(cli: &Cli) -> anyhow::Result<bool> {
    let out = (cli.label.as_str(), cli.json);
    match &cli.mode {
        Mode::Route(args) => route::route(out, args).await,
        Mode::Pingpong(args) => route::pingpong(out, args).await,
        Mode::Storm(args) => storm::storm(out, args).await,
        Mode::RegisterOne(args) => storm::register_one(out, args).await,
        Mode::Hold(args) => hold::hold(out, args).await,
        Mode::Counted(args) => counted::counted(out, args).await,
        Mode::Controller(args) => controller::controller(out, args).await,
        Mode::Port => startup::port(),
        Mode::Startup(args) => startup::startup(out, args).await,
        Mode::Cold(_) => bail!("the cold mode starts runtimes of its own, from main"),
        Mode::Report(_) => bail!("the report runs without a runtime, from main"),
        Mode::Drive(_) => bail!("the reliability modes start a runtime of their own, from main"),
    }
}
