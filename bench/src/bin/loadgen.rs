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

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, bail};
use clap::{Args, Parser, Subcommand};
use nameserver_bench::controller_load::{self, ControllerLoad};
use nameserver_bench::fleet::{Fleet, FleetSpec};
use nameserver_bench::measurement::Measurement;
use nameserver_bench::route::{self, Phases, RouteLoad, RouteResult};
use nameserver_bench::stats::{median, ms};
use nameserver_bench::{charts, counted, reliability, report, rss_kib, startup, storm, timeline};
use nameserver_core::codec;
use nameserver_testkit::frames;
use nameserver_testkit::scan::Conn;

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
    Route {
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
    },
    /// One connection, one request in flight: round-trip latency
    Pingpong {
        #[command(flatten)]
        target: Target,
        #[command(flatten)]
        load: LoadArgs,
    },
    /// B brokers, connected first, each register T topics at the same moment
    Storm {
        #[command(flatten)]
        target: Target,
        #[command(flatten)]
        fleet: FleetSize,
        /// zlib-compressed bodies (4.9.x `compressedRegister=true`) instead of JSON
        #[arg(long)]
        compressed: bool,
    },
    /// Time to answer one registration of T topics (REPS new brokers, one after another)
    RegisterOne {
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
    },
    /// Route load on a fresh server while B brokers × T topics register (the storm), then
    /// for two phases after the last registration was answered (cold, then warm)
    Cold {
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
    },
    /// Registers B brokers × T topics, keeps them connected and reads the server's VmRSS
    Hold {
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
    },
    /// Exactly N route queries after a warm-up, while B brokers stay registered (no
    /// re-registration): runs `--before` between the two and `--after` once all are answered
    /// (callgrind's zero and dump, for `scripts/bench.sh --instructions`)
    Counted {
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
    },
    /// N connections × depth D of controller requests (RIP-44) on an embedded controller's
    /// port, after a warm-up; every reply must be SUCCESS (`nameserver_bench::controller_load`)
    Controller {
        #[command(flatten)]
        target: Target,
        #[command(flatten)]
        load: ControllerLoad,
    },
    /// Prints a loopback port that is free now
    Port,
    #[command(flatten)]
    Drive(reliability::Drive),
    /// Prints the Markdown comparison tables of a bench run from its raw file (lines of
    /// `MEASURE KIND rc=N load=X RESULT`, RESULT as printed by the other modes)
    Report {
        /// The raw file
        raw: std::path::PathBuf,
        /// A smoke run: no target status is claimed
        #[arg(long)]
        smoke: bool,
        /// Criterion's output directory (target/criterion): adds the microbenchmark rows
        #[arg(long)]
        criterion: Option<std::path::PathBuf>,
        /// Also write the charts (latency by percentile, the large cluster's timelines) as
        /// SVG files into this directory
        #[arg(long)]
        svg: Option<std::path::PathBuf>,
    },
    /// Exec → listening: spawn PROGRAM (every `{port}` in ARGS replaced by a free port) REPS times
    Startup {
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
    },
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Mode::Report { raw, smoke, criterion, svg } = &cli.mode {
        return match report(raw, *smoke, criterion.as_deref(), svg.as_deref()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("loadgen: {error:#}");
                ExitCode::from(2)
            }
        };
    }
    let outcome = match &cli.mode {
        Mode::Cold { target, fleet, conns, depth, phase_ms, reregister_ms, fleet_threads } => cold_mode(
            (&cli.label, cli.json),
            target,
            fleet,
            (*conns, *depth),
            *phase_ms,
            *reregister_ms,
            (cli.threads, *fleet_threads),
        ),
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

/// A multi-thread runtime of `threads` workers named `name`.
fn runtime(name: &str, threads: usize) -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.max(1))
        .thread_name(name)
        .enable_all()
        .build()
        .with_context(|| format!("cannot start the {name} runtime"))
}

fn report(
    raw: &std::path::Path,
    smoke: bool,
    criterion: Option<&std::path::Path>,
    svg: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(raw).with_context(|| format!("reading {}", raw.display()))?;
    let records = report::parse_raw(&text).with_context(|| raw.display().to_string())?;
    if let Some(dir) = svg {
        let charts = charts::charts(&records).map_err(anyhow::Error::msg).with_context(|| raw.display().to_string())?;
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        for chart in charts {
            let path = dir.join(&chart.file);
            std::fs::write(&path, chart.svg).with_context(|| format!("writing {}", path.display()))?;
        }
    }
    let criterion = criterion
        .map(|dir| report::criterion_medians(dir).with_context(|| format!("reading {}", dir.display())))
        .transpose()?;
    print!("{}", report::tables(&records, &report::Options { smoke, criterion }));
    Ok(())
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
    let (label, json) = (&cli.label, cli.json);
    match &cli.mode {
        Mode::Route { target, conns, depth, load } => {
            route_mode(("ROUTE", label, json), target, *conns, *depth, load).await
        }
        Mode::Pingpong { target, load } => route_mode(("PINGPONG", label, json), target, 1, 1, load).await,
        Mode::Storm { target, fleet: FleetSize { brokers, topics, .. }, compressed } => {
            let (addr, timeout) = loopback(target)?;
            let r = storm::storm(addr, *brokers, *topics, *compressed, timeout).await?;
            let secs = r.wall.as_secs_f64().max(1e-9);
            emit(
                json,
                &format!(
                    "STORM label={label} brokers={brokers} topics={topics} compressed={compressed} frame_bytes={} \
                 wall_ms={} registrations_per_s={:.1} topics_per_s={:.0} ok={} errors={} bad_codes={} {}",
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
        Mode::RegisterOne { target, topics, reps, compressed, pid, settle_ms } => {
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
        Mode::Cold { .. } => bail!("the cold mode starts runtimes of its own, from main"),
        Mode::Hold {
            target,
            fleet: FleetSize { brokers, topics, in_flight },
            pid,
            settle_ms,
            queue_spread,
            query_each,
        } => {
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
            let started = std::time::Instant::now();
            let fleet = Fleet::start(&spec).await?;
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
        Mode::Counted { target, conns, depth, topics, brokers, warmup, requests, before, after } => {
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
        Mode::Controller { target, load } => {
            let (addr, timeout) = loopback(target)?;
            let result = controller_load::run(addr, load, timeout).await?;
            emit(json, &result.line(load, label))?;
            Ok(result.errors() == 0 && result.measured.completed > 0)
        }
        Mode::Report { .. } => bail!("the report runs without a runtime, from main"),
        Mode::Drive(_) => bail!("the reliability modes start a runtime of their own, from main"),
        Mode::Port => {
            println!("{}", startup::free_port()?);
            Ok(true)
        }
        Mode::Startup { reps, poll_us, timeout_ms, command } => {
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
    }
}

/// See [`Mode::Cold`]. Replies during the storm may be TOPIC_NOT_EXIST (17): a topic's first
/// broker may not have registered yet; afterwards every reply must be SUCCESS.
///
/// Before the clock starts, the registration frames are built and the route connections are
/// open, each with one query answered (so the storm's slowest reply is not the server
/// accepting 132 connections at once). The route load and the brokers run on two runtimes: a
/// route connection never waits in a worker's queue behind a broker task writing 1.7 MB, so
/// its latencies are the server's and the OS scheduler's, not the generator's own queueing.
/// The floor goes through the same generator.
fn cold_mode(
    (label, json): (&str, bool),
    target: &Target,
    &FleetSize { brokers, topics, in_flight }: &FleetSize,
    (conns, depth): (usize, usize),
    phase_ms: u64,
    reregister_ms: u64,
    (route_threads, fleet_threads): (usize, usize),
) -> anyhow::Result<bool> {
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
