//! The daemon, seen from /proc

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::args::Common;
use super::stats::{Stats, pause};

pub(crate) use nameserver_testkit::ProcSample as Usage;

pub(crate) fn usage(pid: u32) -> io::Result<Usage> {
    Usage::of(pid)
}

/// Prints a sample line every `sample_secs` until the run stops; returns the samples.
pub(crate) async fn monitor(common: Common, stats: Arc<Stats>, live: Arc<AtomicU64>) -> Vec<(f64, Usage)> {
    let mut samples = Vec::new();
    let mut last_queries = 0;
    let mut last_at = Instant::now();
    loop {
        let alive = pause(&stats, Duration::from_secs(common.sample_secs)).await;
        let now = Instant::now();
        let queries = stats.queries.get();
        let qps = (queries - last_queries) as f64 / (now - last_at).as_secs_f64();
        (last_queries, last_at) = (queries, now);
        let at = stats.started.elapsed().as_secs_f64();
        let daemon = match common.pid.map(usage) {
            Some(Ok(u)) => {
                samples.push((at, u));
                format!("rss {:.1} MiB, threads {}, fds {}", u.rss_kib as f64 / 1024.0, u.threads, u.fds)
            }
            Some(Err(error)) => {
                stats.error(format!("cannot read the daemon's /proc entry: {error}"));
                String::from("daemon gone")
            }
            None => String::from("daemon not watched"),
        };
        println!(
            "[{at:>7.1}s] {daemon} | conns {} | queries {queries} ({qps:.0}/s, not found {}), {} | p50 {} µs, p99 {} \
             µs | errors {}",
            live.load(Ordering::Relaxed),
            stats.not_found.get(),
            stats.counts(),
            stats.latency.quantile(0.5),
            stats.latency.quantile(0.99),
            stats.errors.get(),
        );
        if !alive {
            return samples;
        }
    }
}

/// The end of a run: stop every task, wait until the daemon's descriptors are back to
/// `baseline`, judge memory; prints the verdict and returns whether the run passed.
pub(crate) async fn conclude(
    common: &Common,
    stats: &Arc<Stats>,
    baseline: Option<Usage>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    monitor: tokio::task::JoinHandle<Vec<(f64, Usage)>>,
) -> bool {
    stats.stop.store(true, Ordering::Relaxed);
    for task in tasks {
        if let Err(error) = task.await {
            stats.error(format!("a task failed: {error}"));
        }
    }
    let samples = monitor.await.unwrap_or_default();
    let mut verdict = Vec::new();
    if let (Some(pid), Some(baseline)) = (common.pid, baseline) {
        // Every connection of this tool is closed: the daemon's descriptors come back.
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut last = usage(pid).ok();
        while let Some(now) = last {
            if now.fds <= baseline.fds || Instant::now() > deadline {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
            last = usage(pid).ok();
        }
        match last {
            Some(end) => {
                println!(
                    "daemon after every connection closed: rss {:.1} MiB, threads {}, fds {} (before the run: {:.1} MiB, \
                     {} threads, {} fds)",
                    end.rss_kib as f64 / 1024.0,
                    end.threads,
                    end.fds,
                    baseline.rss_kib as f64 / 1024.0,
                    baseline.threads,
                    baseline.fds
                );
                if end.sockets > baseline.sockets {
                    stats.error(format!("sockets leaked: {} before, {} after", baseline.sockets, end.sockets));
                }
                let max_threads = samples.iter().map(|(_, u)| u.threads).max().unwrap_or(end.threads);
                verdict.push(format!(
                    "fds {} -> {} (sockets {} -> {}), threads {} (max {max_threads})",
                    baseline.fds, end.fds, baseline.sockets, end.sockets, end.threads
                ));
            }
            None => stats.error("the daemon is gone"),
        }
        let warmup = common.warmup_secs.unwrap_or((common.secs / 10).min(180)) as f64;
        let after: Vec<&(f64, Usage)> = samples.iter().filter(|(at, _)| *at >= warmup).collect();
        if let Some((at, base)) = after.first() {
            let base_kib = base.rss_kib as f64;
            let max = after.iter().map(|(_, u)| u.rss_kib).max().unwrap_or(base.rss_kib) as f64;
            let min = after.iter().map(|(_, u)| u.rss_kib).min().unwrap_or(base.rss_kib) as f64;
            let last = after.last().map_or(base_kib, |(_, u)| u.rss_kib as f64);
            let worst = ((max - base_kib) / base_kib).max((base_kib - min) / base_kib) * 100.0;
            verdict.push(format!(
                "rss after warm-up (at {at:.0}s) {:.1} MiB, min {:.1}, max {:.1}, last {:.1} MiB: within {worst:.1} %",
                base_kib / 1024.0,
                min / 1024.0,
                max / 1024.0,
                last / 1024.0
            ));
            if worst > common.rss_tolerance {
                stats.error(format!(
                    "resident memory moved {worst:.1} % after the warm-up (allowed {})",
                    common.rss_tolerance
                ));
            }
        }
    }
    let secs = stats.started.elapsed().as_secs_f64();
    let errors = stats.errors.get();
    println!(
        "RESULT {} after {secs:.0}s: {} queries ({:.0}/s, {} not found), {}; latency p50 {} µs, p99 {} µs, p99.9 {} \
         µs; {}; {errors} errors",
        if errors == 0 { "ok" } else { "FAILED" },
        stats.queries.get(),
        stats.queries.get() as f64 / secs,
        stats.not_found.get(),
        stats.counts(),
        stats.latency.quantile(0.5),
        stats.latency.quantile(0.99),
        stats.latency.quantile(0.999),
        verdict.join("; "),
    );
    for line in stats.error_log.lock().unwrap().iter() {
        println!("  error: {line}");
    }
    errors == 0
}
