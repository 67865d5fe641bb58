//! The long run (`scripts/java/long-run.sh`): a million or more seeded random requests per
//! version, compared with the same comparator and table as the differential test.
//!
//! Speed comes from lanes: each lane is a [`Random`] generator of its own seed whose brokers,
//! topics and KV namespace carry that seed, so lanes touch disjoint state and run concurrently,
//! each lock-step on its own connections (Java serves some codes from other executors, so
//! pipelining on one connection would reorder replies against state changes). Requests about the
//! whole server (cluster info, all topics) are sent between rounds, when every lane is idle.
//!
//! `JAVA_LONG_REQUESTS` (default 1,000,000 per version), `JAVA_LONG_SEED` (default 1),
//! `JAVA_LONG_LANES` (default 16), `JAVA_LONG_ROUND` (requests per lane between global queries,
//! default 250), `JAVA_ORACLE_VERSIONS` (default all).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Barrier;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use nameserver_core::protocol::SerializeType;
use nameserver_testkit::ExternalPeer;
use nameserver_testkit::java::{self, Version};

use super::{Compared, Side, exec, start_ours, versions};
use crate::compare::{self, Row};
use crate::corpus::{Action, PROFILES, Random, Seq, Step};

/// How many undocumented differences are printed in full.
const EXAMPLES: usize = 10;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|v| v.replace('_', "").parse().ok()).unwrap_or(default)
}

/// A request's shape: code, header serialisation, Java's outcome (reply code, close, silence)
/// and the kind of Java's body.
type Shape = (i32, &'static str, String, &'static str);

/// What one lane (or the global queries) saw.
#[derive(Default)]
struct Tally {
    requests: u64,
    shapes: BTreeSet<Shape>,
    /// Differing fields per table row that covers them.
    per_row: BTreeMap<String, u64>,
    /// Differing fields no row covers, per code and field.
    uncovered: BTreeMap<(i32, String), u64>,
    examples: Vec<String>,
}

impl Tally {
    fn add(&mut self, rows: &[Row], step: &Step, c: &Compared, place: &str) {
        self.requests += 1;
        let opaque = match &step.action {
            Action::Call { cmd, .. } => cmd.opaque,
            _ => 0,
        };
        let serialize = match &step.action {
            Action::Call { cmd, .. } if cmd.serialize_type == SerializeType::Rocketmq => "ROCKETMQ",
            Action::Call { .. } => "JSON",
            _ => "raw",
        };
        let outcome = if c.java.contains_key("closed") {
            String::from("closed")
        } else if c.java.contains_key("noReply") {
            String::from("no reply")
        } else {
            c.java.get("code").map_or_else(|| String::from("undecodable"), ToString::to_string)
        };
        let body = if c.java.get("body").is_some_and(|b| b == "empty") {
            "empty"
        } else if c.java.contains_key("bodyForm") {
            "properties"
        } else if c.java.keys().any(|k| k.starts_with("body.")) || c.java.contains_key("bodyBytes") {
            "json"
        } else {
            "none"
        };
        self.shapes.insert((c.code, serialize, outcome, body));
        for d in &c.differences {
            if let Some(row) = rows.iter().find(|r| r.covers(d)) {
                *self.per_row.entry(row.id.clone()).or_default() += 1;
            } else {
                *self.uncovered.entry((d.code, d.field.clone())).or_default() += 1;
                if self.examples.len() < EXAMPLES {
                    self.examples.push(format!(
                        "{place} {}:{} (opaque {}) code {} field {}: Java `{}` ours `{}`",
                        c.seq, c.case, opaque, d.code, d.field, d.java, d.ours
                    ));
                }
            }
        }
    }

    fn merge(&mut self, other: Self) {
        self.requests += other.requests;
        self.shapes.extend(other.shapes);
        for (k, n) in other.per_row {
            *self.per_row.entry(k).or_default() += n;
        }
        for (k, n) in other.uncovered {
            *self.uncovered.entry(k).or_default() += n;
        }
        let room = EXAMPLES.saturating_sub(self.examples.len());
        self.examples.extend(other.examples.into_iter().take(room));
    }
}

/// The lanes' shared plan.
struct Plan<'a> {
    version: Version,
    java: &'a ExternalPeer,
    ours: &'a ExternalPeer,
    rows: &'a [Row],
    seed: u64,
    rounds: u64,
    per_round: u64,
    barrier: Barrier,
    sent: AtomicU64,
}

/// One lane: `rounds` rounds of `per_round` requests, then its brokers' connections closed.
fn lane(plan: &Plan<'_>, lane: u32) -> Tally {
    let seed = plan.seed * 1000 + u64::from(lane);
    let mut generator = Random::new(plan.version, seed, lane, false);
    let mut java = Side::new(plan.java, plan.version.is_4x());
    let mut ours = Side::new(plan.ours, false);
    let mut tally = Tally::default();
    let name = format!("long/seed{seed}");
    for round in 0..plan.rounds {
        let place = format!("{} lane {lane} round {round}", plan.version.as_str());
        let mut sent = 0;
        while sent < plan.per_round {
            generator.step();
            if round + 1 == plan.rounds && sent + 1 == plan.per_round {
                generator.close_all();
            }
            for step in generator.drain() {
                if let Some(c) = exec(plan.version, &mut java, &mut ours, &name, &step) {
                    tally.add(plan.rows, &step, &c, &place);
                    sent += 1;
                }
            }
        }
        plan.sent.fetch_add(sent, Ordering::Relaxed);
        plan.barrier.wait();
        plan.barrier.wait();
    }
    tally
}

/// Between rounds, every lane idle: the requests about the whole server.
fn global_queries(plan: &Plan<'_>, java: &mut Side, ours: &mut Side, round: u64, opaque: &mut i32) -> Tally {
    let mut tally = Tally::default();
    let place = format!("{} global round {round}", plan.version.as_str());
    for (case, code) in [("cluster-info", 106), ("all-topics", 206)] {
        let p = PROFILES[usize::try_from(round).unwrap_or(0) % PROFILES.len()];
        let mut cmd = Seq::req_as(p, code, &[]);
        *opaque += 1;
        cmd.opaque = *opaque;
        let step = Step { case: case.to_string(), action: Action::Call { conn: 0, cmd } };
        if let Some(c) = exec(plan.version, java, ours, "long/global", &step) {
            tally.add(plan.rows, &step, &c, &place);
        }
    }
    tally
}

/// Runs the long run against `version`; returns its tally and prints its figures.
fn run_version(version: Version, rows: &[Row], requests: u64, seed: u64, lanes: u32, per_round: u64) -> Tally {
    let started = Instant::now();
    let (java, ours) = std::thread::scope(|scope| {
        let java = scope.spawn(|| java::start_namesrv(version, &[]));
        let ours = start_ours().unwrap_or_else(|e| panic!("{e}"));
        (java.join().unwrap().unwrap_or_else(|e| panic!("{e}")), ours)
    });
    let per_lane = requests.div_ceil(u64::from(lanes));
    let per_round = per_round.min(per_lane);
    let plan = Plan {
        version,
        java: &java,
        ours: &ours,
        rows,
        seed,
        rounds: per_lane.div_ceil(per_round),
        per_round,
        barrier: Barrier::new(usize::try_from(lanes).unwrap() + 1),
        sent: AtomicU64::new(0),
    };
    let running = Instant::now();
    let total = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..lanes)
            .map(|l| {
                scope.spawn({
                    let plan = &plan;
                    move || lane(plan, l)
                })
            })
            .collect();
        let mut java_side = Side::new(plan.java, version.is_4x());
        let mut ours_side = Side::new(plan.ours, false);
        let mut global = Tally::default();
        let mut opaque = 0;
        let mut reported = Instant::now();
        for round in 0..plan.rounds {
            plan.barrier.wait();
            global.merge(global_queries(&plan, &mut java_side, &mut ours_side, round, &mut opaque));
            plan.barrier.wait();
            if reported.elapsed().as_secs() >= 60 {
                reported = Instant::now();
                let sent = plan.sent.load(Ordering::Relaxed);
                println!(
                    "{}: {sent} requests after {:.0} s ({:.0}/s)",
                    version.as_str(),
                    running.elapsed().as_secs_f64(),
                    sent as f64 / running.elapsed().as_secs_f64()
                );
            }
        }
        for h in handles {
            global.merge(h.join().unwrap());
        }
        global
    });
    let wall = running.elapsed().as_secs_f64();
    drop((java, ours));
    println!(
        "LONG RUN {}: seed {seed}, {lanes} lanes, {} requests in {wall:.0} s ({:.0}/s; {:.0} s with start-up), {} distinct shapes, {} differing fields covered by the table, {} not covered",
        version.as_str(),
        total.requests,
        total.requests as f64 / wall,
        started.elapsed().as_secs_f64(),
        total.shapes.len(),
        total.per_row.values().sum::<u64>(),
        total.uncovered.values().sum::<u64>(),
    );
    let shapes: Vec<String> =
        total.shapes.iter().map(|(code, ser, outcome, body)| format!("{code}/{ser}/{outcome}/{body}")).collect();
    println!("  shapes (code/serialisation/Java's outcome/body): {}", shapes.join(" "));
    for (id, n) in &total.per_row {
        println!("  row {id}: {n}");
    }
    for ((code, field), n) in &total.uncovered {
        println!("  UNCOVERED code {code} field {field}: {n}");
    }
    for e in &total.examples {
        println!("  example: {e}");
    }
    if !total.uncovered.is_empty() {
        println!(
            "  reproduce: JAVA_LONG_SEED={seed} JAVA_LONG_LANES={lanes} JAVA_LONG_ROUND={per_round} JAVA_ORACLE_VERSIONS={} scripts/java/long-run.sh {requests}",
            version.as_str()
        );
    }
    total
}

#[test]
#[ignore = "the long run: scripts/java/long-run.sh"]
fn java_long_run() {
    if java::skip_requested("the Java long run") {
        return;
    }
    println!("{}", java::java_version().unwrap_or_else(|e| panic!("{e}")));
    let rows = compare::parse_table(include_str!("../../../docs/PROTOCOL.md"))
        .unwrap_or_else(|e| panic!("docs/PROTOCOL.md: {e}"));
    let requests = env_or("JAVA_LONG_REQUESTS", 1_000_000u64);
    let seed = env_or("JAVA_LONG_SEED", 1u64);
    let lanes = env_or("JAVA_LONG_LANES", 16u32).clamp(1, 200);
    let per_round = env_or("JAVA_LONG_ROUND", 250u64).max(1);
    let mut failed = Vec::new();
    for version in versions() {
        let tally = run_version(version, &rows, requests, seed, lanes, per_round);
        if !tally.uncovered.is_empty() {
            failed.push(version.as_str());
        }
    }
    assert!(failed.is_empty(), "differences outside docs/PROTOCOL.md's table against {failed:?}");
}
