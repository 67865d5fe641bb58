//! The cluster simulation's time machine: seeking, stepping back and forking.

mod common;

use nameserver_core::sim::{Action, Timeline, TraceKind, built_in};

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
    assert_eq!(tl.sim().trace().last().map(|e| e.at), Some(stepped), "the step ends on its line");
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
    assert!(tl.sim().trace().iter().any(|e| e.kind == TraceKind::Fault && e.at == secs(60)));
    // The fork equals a fresh run of its own scenario (the kill written into its script).
    let fork_scenario = tl.sim().scenario().clone();
    assert_eq!(fork_scenario.script.len(), 1);
    assert_eq!(fresh(&fork_scenario, secs(300)).state_hash(), fork.0);
    // Seeking back past the injection replays it from the checkpoints.
    tl.seek(secs(30));
    assert!(tl.sim().trace().iter().all(|e| e.kind != TraceKind::Fault));
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
