//! NameServer microbenchmarks: a 1,000-topic registration through `NameServer::handle`, one of a
//! million topics in the compressed form, and the expiry scan over 10,000 live brokers.

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput};
use nameserver_core::{ConnId, Input, Instant, NameServer, Output};

const TOPICS: usize = 1000;

/// A 1,000-topic registration, its decode included: by a new broker group into a server that
/// already has 3 groups on the same topics, and again by a known broker with a new data version
/// (the topic loop runs) or with the same one (the periodic re-registration of real brokers).
fn register(c: &mut Criterion) {
    let mut group = c.benchmark_group("register");
    group.throughput(Throughput::Elements(TOPICS as u64));
    let at = Instant::from_millis(1);
    let mut base = common::nameserver();
    for i in 0..3 {
        common::register(&mut base, at, i, common::register_command(i, common::register_body(0, TOPICS, 1), None));
    }
    let first = common::register_command(3, common::register_body(0, TOPICS, 1), None);
    group.bench_function(BenchmarkId::new("new-broker", TOPICS), |b| {
        b.iter_batched(
            || (base.clone(), first.clone()),
            |(mut ns, cmd)| {
                common::register(&mut ns, at, 3, cmd);
                ns
            },
            BatchSize::LargeInput,
        );
    });
    let mut known = base.clone();
    common::register(&mut known, at, 3, first.clone());
    for (name, counter) in [("changed-version", 2), ("same-version", 1)] {
        let again = common::register_command(3, common::register_body(0, TOPICS, counter), None);
        group.bench_function(BenchmarkId::new(name, TOPICS), |b| {
            b.iter_batched(
                || (known.clone(), again.clone()),
                |(mut ns, cmd)| {
                    common::register(&mut ns, at, 3, cmd);
                    ns
                },
                BatchSize::LargeInput,
            );
        });
    }
    group.finish();
}

/// One registration of a million topics in the compressed form (issue 18), by a new broker
/// into an empty server, its decode included, and the million events taken as the daemon
/// takes them ([`NameServer::poll_output`], each run of events whole), not logged.
fn register_million(c: &mut Criterion) {
    const MILLION: usize = 1_000_000;
    let mut group = c.benchmark_group("register");
    group.throughput(Throughput::Elements(MILLION as u64));
    group.sample_size(10).measurement_time(Duration::from_secs(10));
    let at = Instant::from_millis(1);
    let mut cmd = common::register_command(0, common::register_body_compressed(0, MILLION, 1), None);
    cmd = cmd.with_field("compressed", "true");
    group.bench_function(BenchmarkId::new("compressed-new-broker", MILLION), |b| {
        b.iter_batched(
            || (common::nameserver(), cmd.clone()),
            |(mut ns, cmd)| {
                ns.handle(at, Input::Connected { conn: ConnId(1), remote: String::from("127.0.0.1:40000") });
                ns.handle(at, Input::Received { conn: ConnId(1), cmd });
                let outputs: Vec<Output> = std::iter::from_fn(|| ns.poll_output()).collect();
                (ns, outputs)
            },
            BatchSize::PerIteration,
        );
    });
    group.finish();
}

/// One scan (`Input::Timeout` at the scan deadline) over 10,000 brokers: when all are alive
/// (every 5 s, forever), and when all have expired (each broker and its topics removed).
fn scan(c: &mut Criterion) {
    const BROKERS: usize = 10_000;
    let mut group = c.benchmark_group("scan");
    group.throughput(Throughput::Elements(BROKERS as u64));
    let build = |timeout_ms: u64| {
        let mut ns = common::nameserver();
        for i in 0..BROKERS {
            let body = common::register_body(2 * i, 2, 1);
            common::register(&mut ns, Instant::from_millis(1), i, common::register_command(i, body, Some(timeout_ms)));
        }
        ns
    };
    // Nobody expires within the benchmark: a heartbeat timeout of ten years.
    let mut alive = build(10 * 365 * 24 * 3_600_000);
    group.bench_function(BenchmarkId::new("all-alive", BROKERS), |b| {
        b.iter(|| {
            let due = alive.poll_timeout().unwrap_or(Instant::MAX);
            alive.handle(due, Input::Timeout);
            while black_box(alive.poll_output()).is_some() {}
        });
    });
    let expiring = build(1000);
    let due = Instant::from_millis(60_000);
    group.sample_size(10);
    group.bench_function(BenchmarkId::new("all-expire", BROKERS), |b| {
        b.iter_batched(
            || expiring.clone(),
            |mut ns: NameServer| {
                ns.handle(due, Input::Timeout);
                while black_box(ns.poll_output()).is_some() {}
                ns
            },
            BatchSize::LargeInput,
        );
    });
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    register(&mut c);
    register_million(&mut c);
    scan(&mut c);
    c.final_summary();
}
