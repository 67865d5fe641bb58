//! The cluster simulation's time machine: seeking, stepping back and forking.

use crate::common;

use std::time::Duration;

use nameserver_core::time::Instant;
use nameserver_sim::view::NodeInfo;
use nameserver_sim::{Action, NodeState, Scenario, ScriptEvent, Timeline, TraceKind, built_in, built_in_text};

use common::sim::*;

// ---------------------------------------------------------------------------------------------
// The time machine

#[test]
fn seeking_equals_a_fresh_run() {
    let scenario = built_in("S5").expect("S5");
    let mut tl = Timeline::new(&scenario);
    let at = |s: u64| fresh(&scenario, secs(s)).state_hash();
    tl.seek(secs(300));
    let h300 = tl.sim().state_hash();
    let t300 = tl.sim().trace_hash();
    assert_eq!(h300, at(300));
    tl.seek(secs(100));
    assert_eq!(tl.sim().state_hash(), at(100), "back to 100");
    assert_eq!(tl.sim().trace_hash(), fresh(&scenario, secs(100)).trace_hash());
    tl.seek(ms(192_002));
    assert_eq!(tl.sim().state_hash(), fresh(&scenario, ms(192_002)).state_hash(), "to an instant between checkpoints");
    tl.seek(secs(300));
    assert_eq!((tl.sim().state_hash(), tl.sim().trace_hash()), (h300, t300), "300 → 100 → 300");
    tl.seek(ms(57_321));
    assert_eq!(tl.sim().state_hash(), fresh(&scenario, ms(57_321)).state_hash());
    assert_eq!(tl.sim().trace().len(), fresh(&scenario, ms(57_321)).trace().len(), "history truncated on restore");
}

#[test]
fn step_then_step_back_restores_the_state() {
    let scenario = built_in("S3").expect("S3");
    let mut tl = Timeline::new(&scenario);
    tl.seek(ms(49_500));
    let before = tl.sim().state_hash();
    let lines = tl.step(secs(300));
    assert!(lines >= 1, "a step writes at least one line");
    let stepped = tl.sim().now();
    assert!(stepped > ms(49_500) && stepped <= secs(50), "the next line is the shutdown at 50: {stepped}");
    assert_eq!(tl.sim().trace().last().map(|e| e.at()), Some(stepped), "the step ends on its line");
    assert_eq!(tl.sim().state_hash(), fresh(&scenario, stepped).state_hash());
    let second = {
        tl.step(secs(300));
        tl.sim().state_hash()
    };
    tl.step_back();
    assert_eq!(tl.sim().now(), stepped);
    tl.step_back();
    assert_eq!(tl.sim().state_hash(), before, "two steps back is where we started");
    tl.step(secs(300));
    tl.step(secs(300));
    assert_eq!(tl.sim().state_hash(), second, "stepping again gives the same states");
}

#[test]
fn injecting_in_the_past_forks_and_keeps_the_original() {
    let scenario = built_in("S1").expect("S1");
    let mut tl = Timeline::new(&scenario);
    tl.seek(secs(300));
    let original = (tl.sim().state_hash(), tl.sim().trace_hash());
    tl.seek(secs(60));
    tl.inject(Action::Kill(String::from("broker-b")));
    assert_eq!(tl.current_branch(), 1, "a new branch");
    assert_eq!(tl.branches().len(), 2);
    tl.seek(secs(300));
    let fork = (tl.sim().state_hash(), tl.sim().trace_hash());
    assert_ne!(fork, original, "the fork's future differs");
    assert!(tl.sim().trace().iter().any(|e| e.kind() == TraceKind::Fault && e.at() == secs(60)));
    // The fork equals a fresh run of its own scenario (the kill written into its script).
    let fork_scenario = tl.sim().scenario().clone();
    assert_eq!(fork_scenario.script.len(), 1);
    assert_eq!(fresh(&fork_scenario, secs(300)).state_hash(), fork.0);
    // Seeking back past the injection replays it from the checkpoints.
    tl.seek(secs(30));
    assert!(tl.sim().trace().iter().all(|e| e.kind() != TraceKind::Fault));
    tl.seek(secs(300));
    assert_eq!((tl.sim().state_hash(), tl.sim().trace_hash()), fork, "replayed after seeking back");
    tl.seek(ms(60_000));
    assert_eq!(tl.sim().state_hash(), fresh(&fork_scenario, secs(60)).state_hash(), "at the fork point");
    // The original branch is untouched.
    assert!(tl.select(0));
    assert_eq!(tl.sim().now(), secs(60), "selecting keeps the time");
    tl.seek(secs(300));
    assert_eq!((tl.sim().state_hash(), tl.sim().trace_hash()), original);
    assert!(tl.select(1));
    assert_eq!((tl.sim().state_hash(), tl.sim().trace_hash()), fork);
    assert!(!tl.select(7));
    assert_eq!(tl.label(1), "fork 1 of 0 at 60.000s");
}

// ---------------------------------------------------------------------------------------------
// Honest forks: the parent's later interventions stay on the parent

fn kill_b() -> Action {
    Action::Kill(String::from("broker-b"))
}

fn freeze_b() -> Action {
    Action::Freeze(String::from("broker-b"))
}

/// S1 with `kill broker-b` injected at 50 s on the main branch, then back at 40 s.
fn main_with_a_kill_at_50() -> Timeline {
    let mut tl = Timeline::new(&built_in("S1").expect("S1"));
    tl.seek(secs(50));
    tl.inject(kill_b());
    assert_eq!(tl.branches().len(), 1, "injecting at the head does not fork");
    tl.seek(secs(120));
    tl.seek(secs(40));
    assert_eq!(tl.later_injected(), [ScriptEvent { at: secs(50), action: kill_b() }]);
    tl
}

/// The branch equals a fresh run of its own scenario text at each of `times`.
fn assert_equals_its_own_scenario(tl: &mut Timeline, times: &[Instant]) {
    let own = Scenario::parse(&tl.branches()[tl.current_branch()].scenario().to_text()).expect("parses");
    for t in times {
        tl.seek(*t);
        let mut again = Timeline::new(&own);
        again.seek(*t);
        assert_eq!(
            (tl.sim().state_hash(), tl.sim().trace_hash()),
            (again.sim().state_hash(), again.sim().trace_hash()),
            "at {t}"
        );
    }
}

#[test]
fn a_fork_drops_what_was_injected_later_on_its_parent() {
    let mut tl = main_with_a_kill_at_50();
    tl.inject(freeze_b());
    assert_eq!(tl.current_branch(), 1, "injecting in the past forks");
    let branch = &tl.branches()[1];
    assert_eq!((branch.dropped(), branch.kept()), (1, 0));
    assert_eq!(branch.scenario().script, [ScriptEvent { at: secs(40), action: freeze_b() }]);
    assert_eq!(branch.injected(), [ScriptEvent { at: secs(40), action: freeze_b() }]);
    assert!(tl.later_injected().is_empty());
    // Equal to a fresh run of its own script: at the fork point, between checkpoints, after it,
    // and before it (replayed from checkpoints whose queues no longer hold the kill).
    assert_equals_its_own_scenario(&mut tl, &[secs(40), ms(57_321), secs(300), secs(20), secs(250)]);
    tl.seek(secs(300));
    let sim = tl.sim();
    let cx = Ctx::new("S1 + freeze@40 (kill@50 dropped)", sim);
    cx.ensure(sim.trace().iter().all(|e| !(e.kind() == TraceKind::Fault && e.text().contains("kill"))), None, || {
        "no kill on the fork".into()
    });
    // The freeze's removal is the idle close of broker-b's channel: 120 s after each
    // NameServer last wrote to it, which the wire log shows, and the trace confirms.
    let broker_b = cx.node("broker-b");
    let m = cx.measurement("freeze broker-b");
    for ns in ["NS-1", "NS-2"] {
        let last_write = sim
            .history()
            .wire()
            .iter()
            .filter(|r| r.from() == cx.node(ns) && r.to() == broker_b && r.sent_at() < secs(40))
            .map(|r| r.sent_at())
            .max()
            .expect("answered broker-b");
        let idle = last_write + Duration::from_secs(120);
        cx.within(&format!("{ns} removal"), cx.ns_removal(&m, ns), idle.as_millis(), idle.as_millis());
        cx.first_within(ns, TraceKind::ChannelIdle, "", secs(40), idle.as_millis(), idle.as_millis());
        cx.first_within(ns, TraceKind::Unregistered, BROKER_B, secs(40), idle.as_millis(), idle.as_millis());
    }
    cx.ensure(NodeInfo::of(sim, broker_b).state == NodeState::Frozen.name(), None, || {
        "broker-b is frozen, not down".into()
    });
    // P1 polls at 4.01 + 30·k s: the first poll after the ≈132.002 removals is at 154.01.
    cx.within("P1 drops broker-b at its 154.01 poll", cx.client_update(&m, "P1"), 154_012, 154_016);
    // The main branch keeps its kill.
    assert!(tl.select(0));
    tl.seek(secs(60));
    let main = tl.sim();
    assert_eq!(NodeInfo::of(main, broker_b).state, NodeState::Down.name());
    assert_eq!(main.scenario().script, [ScriptEvent { at: secs(50), action: kill_b() }]);
}

#[test]
fn a_fork_can_keep_later_injections_and_each_fault_gets_only_its_own_removals() {
    let mut tl = main_with_a_kill_at_50();
    let id = tl.fork(true);
    assert_eq!((tl.branches()[id].dropped(), tl.branches()[id].kept()), (0, 1));
    tl.inject(freeze_b());
    assert_eq!((tl.current_branch(), tl.branches().len()), (id, 2), "at the fork's head: no second fork");
    let script = &tl.branches()[id].scenario().script;
    assert_eq!(
        script,
        &[ScriptEvent { at: secs(40), action: freeze_b() }, ScriptEvent { at: secs(50), action: kill_b() }]
    );
    assert_eq!(tl.later_injected(), [ScriptEvent { at: secs(50), action: kill_b() }]);
    assert_equals_its_own_scenario(&mut tl, &[secs(300), secs(45)]);
    tl.seek(secs(300));
    let cx = Ctx::new("S1 + freeze@40 + kill@50", tl.sim());
    let kill = cx.measurement("kill broker-b");
    let freeze = cx.measurement("freeze broker-b");
    for ns in ["NS-1", "NS-2"] {
        cx.within(&format!("{ns} removal by the kill"), cx.ns_removal(&kill, ns), 50_001, 50_003);
        cx.ensure(cx.ns_removal(&freeze, ns).is_none(), None, || format!("the freeze claims {ns}'s removal"));
    }
    cx.within("P1 update by the kill", cx.client_update(&kill, "P1"), 64_012, 64_016);
    cx.ensure(freeze.client_update().iter().all(|(_, at)| at.is_none()), None, || "the freeze claims an update".into());
    // Attempts on broker-b of sends started in 40–50 belong to the freeze, later ones to the kill.
    let b = cx.group("broker-b");
    let attempts = |from: u64, to: u64| -> u32 {
        cx.sends("P1")
            .into_iter()
            .filter(|s| s.started() >= secs(from) && s.started() < secs(to))
            .map(|s| s.attempts().iter().filter(|a| a.group() == b).count() as u32)
            .sum()
    };
    let (early, late) = (attempts(40, 50), attempts(50, 300));
    cx.ensure(early > 0 && late > 0, None, || format!("attempts on broker-b: {early} then {late}"));
    cx.ensure(freeze.attempts() == early && kill.attempts() == late, None, || {
        format!("{early} and {late} attempts: {freeze:?} {kill:?}")
    });
}

#[test]
fn a_link_fault_is_measured_whichever_end_it_names_first() {
    let text = format!("{}\nat 75 cut NS-2 broker-b", built_in_text("S1").expect("S1"));
    let sim = simulate_checked("S1 + cut NS-2 broker-b", &Scenario::parse(&text).expect("parses"), secs(250));
    let cx = Ctx::new("S1 + cut NS-2 broker-b", &sim);
    let m = cx.measurement("cut NS-2 broker-b");
    cx.within("NS-2 drops broker-b", cx.ns_removal(&m, "NS-2"), 192_001, 192_003);
    cx.ensure(cx.ns_removal(&m, "NS-1").is_none(), None, || "NS-1 keeps broker-b".into());
    cx.within("C1 drops broker-b", cx.client_update(&m, "C1"), 216_012, 216_016);
}
