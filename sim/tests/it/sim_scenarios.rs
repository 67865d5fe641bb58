//! The cluster simulation against TEACHING.md: golden traces of every built-in scenario, and
//! determinism. The times S1–S6 must reproduce and the behaviour of S7–S10 are in
//! `sim_discovery.rs`, `sim_broker_removal.rs` and `sim_faults.rs`; the time machine in
//! `sim_time_machine.rs`; the invariants and a property test over random fault scripts in
//! `sim_invariants.rs`; the shared harness in `common/sim.rs`.
//!
//! `UPDATE_GOLDEN=1 cargo test -p nameserver-sim --test it -- sim_scenarios::` rewrites the golden
//! files under `tests/testdata/scenarios/`.

use crate::common;

use std::fmt::Write as _;
use std::path::PathBuf;

use nameserver_core::time::Instant;
use nameserver_sim::{BUILT_IN, Scenario, Sim, TraceEntry, TraceKind, built_in};

use common::sim::*;

// ---------------------------------------------------------------------------------------------
// Golden traces

/// Lines a golden file leaves out: routine traffic that the trace hash still covers (the
/// periodic offset commits and a slave's periodic offset sync among them).
fn is_routine(e: &TraceEntry) -> bool {
    matches!(e.kind(), TraceKind::SendOk | TraceKind::Pull | TraceKind::Scan | TraceKind::RegisterOk)
        || (e.kind() == TraceKind::Offset && e.text().starts_with("[persistAll]"))
        || e.text().starts_with("Update slave consumer offset from master")
}

fn golden_text(id: &str, sim: &Sim) -> String {
    let title = BUILT_IN.iter().find(|(i, _, _)| *i == id).map_or("", |(_, t, _)| *t);
    let trace = sim.trace();
    let shown: Vec<&TraceEntry> = trace.iter().filter(|e| !is_routine(e)).collect();
    let mut out = String::new();
    let _ = writeln!(out, "# {id}: {title}");
    let _ = writeln!(
        out,
        "# Every trace line except send-ok, pull, scan, register-ok, periodic offset commits and slave offset \
         syncs; the hash covers all of them."
    );
    let _ = writeln!(out, "# Regenerate: UPDATE_GOLDEN=1 cargo test -p nameserver-sim --test it -- sim_scenarios::");
    let _ = writeln!(out, "seed {}", sim.scenario().seed);
    let _ = writeln!(out, "until {}", duration_s(id));
    let _ = writeln!(out, "trace-hash {:016x}", sim.trace_hash());
    let _ = writeln!(out, "lines {} shown {}", trace.len(), shown.len());
    for e in shown {
        let _ = writeln!(out, "{}", line(sim, e));
    }
    out
}

fn golden_path(id: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/testdata/scenarios").join(format!("{id}.trace"))
}

/// The first line where two texts differ: (1-based number, golden line, new line).
fn first_difference<'t>(golden: &'t str, now: &'t str) -> Option<(usize, &'t str, &'t str)> {
    let (mut a, mut b) = (golden.lines(), now.lines());
    for n in 1.. {
        match (a.next(), b.next()) {
            (None, None) => return None,
            (Some(x), Some(y)) if x == y => {}
            (x, y) => return Some((n, x.unwrap_or("<end of file>"), y.unwrap_or("<end of trace>"))),
        }
    }
    None
}

/// The time at the start of a golden trace line (`   75.000s NS-1 …`).
fn line_time(line: &str) -> Option<Instant> {
    let (whole, frac) = line.split_whitespace().next()?.strip_suffix('s')?.split_once('.')?;
    Some(ms(whole.parse::<u64>().ok()? * 1000 + frac.parse::<u64>().ok()?))
}

#[test]
fn golden_traces_of_every_built_in_scenario() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1");
    let mut stale: Vec<(&'static str, String, Option<Instant>)> = Vec::new();
    for (id, _, _) in BUILT_IN {
        let text = golden_text(id, run(id));
        let path = golden_path(id);
        if update {
            std::fs::create_dir_all(path.parent().expect("has a parent")).expect("create testdata dir");
            std::fs::write(&path, &text).expect("write golden file");
            continue;
        }
        let golden = std::fs::read_to_string(&path).unwrap_or_default();
        if let Some((n, was, now)) = first_difference(&golden, &text) {
            let at = line_time(now).or_else(|| line_time(was));
            stale.push((id, format!("{id}: line {n} differs\n  golden: {was}\n  now:    {now}"), at));
        }
    }
    if let Some((id, _, at)) = stale.first() {
        let all: Vec<&str> = stale.iter().map(|(_, message, _)| message.as_str()).collect();
        let message = format!(
            "golden traces differ (UPDATE_GOLDEN=1 rewrites them after a deliberate change):\n{}",
            all.join("\n")
        );
        Ctx::of(id).fail(*at, &message);
    }
}

#[test]
fn golden_file_headers_are_machine_readable() {
    // What other builds (wasm) compare against: seed, duration and trace hash.
    for (id, _, _) in BUILT_IN {
        let text = std::fs::read_to_string(golden_path(id)).unwrap_or_default();
        let field = |key: &str| {
            text.lines().find_map(|l| l.strip_prefix(key)).map(str::trim).unwrap_or_else(|| panic!("{id}: no `{key}`"))
        };
        assert_eq!(field("seed ").parse::<u64>().ok(), Some(42), "{id}");
        assert_eq!(field("until ").parse::<u64>().ok(), Some(duration_s(id)), "{id}");
        assert_eq!(u64::from_str_radix(field("trace-hash "), 16).ok(), Some(run(id).trace_hash()), "{id}");
    }
}
// ---------------------------------------------------------------------------------------------
// Determinism

#[test]
fn a_scenario_replays_byte_for_byte() {
    for (id, _, _) in BUILT_IN {
        let checked = run(id);
        let scenario = built_in(id).expect("built in");
        let mut again = Sim::new(&scenario);
        again.run_until(secs(duration_s(id)));
        assert_eq!(again.trace_hash(), checked.trace_hash(), "{id}: trace hash");
        assert_eq!(again.state_hash(), checked.state_hash(), "{id}: state hash");
        assert_eq!(again.trace(), checked.trace(), "{id}: trace");
        // The text form (what a share link carries) replays the same run.
        let mut from_text = Sim::new(&Scenario::parse(&scenario.to_compact()).expect("round trip"));
        from_text.run_until(secs(60));
        let mut direct = Sim::new(&scenario);
        direct.run_until(secs(60));
        assert_eq!(from_text.state_hash(), direct.state_hash(), "{id}: compact text");
    }
}

#[test]
fn another_seed_gives_another_trace() {
    let mut scenario = built_in("S1").expect("S1");
    let mut a = Sim::new(&scenario);
    a.run_until(secs(60));
    scenario.seed = 43;
    let mut b = Sim::new(&scenario);
    b.run_until(secs(60));
    assert_ne!(a.trace_hash(), b.trace_hash());
    assert_ne!(a.state_hash(), b.state_hash());
    let times = |s: &Sim| s.trace().iter().map(|e| e.at()).collect::<Vec<_>>();
    assert_ne!(times(&a), times(&b), "the jitter differs, so the timings do");
}
