//! The cluster simulation's invariants, checked after every event of every built-in scenario,
//! and a property test over random fault scripts.

use crate::common;

use nameserver_sim::{
    Action, Actor, BUILT_IN, NodeId, NodeState, Scenario, TimerKind, built_in, built_in_text, observe,
};
use proptest::prelude::*;

use common::sim::*;

// ---------------------------------------------------------------------------------------------
// Invariants

#[test]
fn every_built_in_scenario_keeps_the_invariants_after_every_event() {
    // `run` checks after each event and fails with the seed and the trace on a violation.
    for (id, _, _) in BUILT_IN {
        let sim = run(id);
        assert_eq!(sim.now(), secs(duration_s(id)), "{id}");
        assert!(observe::check(sim).is_ok(), "{id}");
    }
}

#[test]
fn check_catches_a_forged_client_route() {
    let mut sim = fresh(&built_in("S1").expect("S1"), secs(40));
    assert_eq!(observe::check(&sim), Ok(()));
    let p1 = NodeId(u16::try_from(sim.scenario().node_index("P1").expect("P1")).expect("small"));
    if let Actor::Producer(p) = sim.nodes_mut_for_test()[usize::from(p1.0)].actor_mut_for_test() {
        let route = p.route_mut_for_test().expect("P1 has a route");
        route.queue_datas[0].write_queue_nums = 16;
    }
    let violation = observe::check(&sim).expect_err("a route no NameServer gave");
    assert_eq!(violation.node(), p1);
    assert!(violation.message().contains("no NameServer answered"), "{}", violation.message());
}

#[test]
fn check_catches_a_nameserver_that_stopped_expiring() {
    // NS-1 as it was at 30 s, put into the cluster at 200 s: its entries (last updated ≈12 s)
    // are 60 s past their 120 s timeout, as if its scan had stopped.
    let scenario = built_in("S1").expect("S1");
    let old = fresh(&scenario, secs(30)).nodes()[0].actor().clone();
    let mut sim = fresh(&scenario, secs(200));
    assert_eq!(observe::check(&sim), Ok(()));
    *sim.nodes_mut_for_test()[0].actor_mut_for_test() = old;
    let violation = observe::check(&sim).expect_err("stale live entries");
    assert_eq!(violation.node(), NodeId(0));
    assert!(violation.message().contains("outlived its timeout"), "{}", violation.message());
}

#[test]
fn check_catches_a_dead_process_with_timers() {
    let scenario = built_in("S4").expect("S4");
    let mut sim = fresh(&scenario, secs(60));
    assert_eq!(observe::check(&sim), Ok(()));
    let b = scenario.node_index("broker-b").expect("broker-b");
    assert_eq!(sim.nodes()[b].state(), NodeState::Down);
    sim.nodes_mut_for_test()[b].timers_mut_for_test().insert(TimerKind::Register, secs(72));
    let violation = observe::check(&sim).expect_err("a dead broker with a timer");
    assert!(violation.message().contains("keeps timers"), "{}", violation.message());
}

#[test]
fn fault_scripts_that_once_broke_the_model() {
    // Found by the property test below; each broke an invariant before its fix.
    for (script, until) in [
        // Frames a frozen process never read stayed on the wire forever after a kill.
        ("at 20.812 freeze broker-a-s; at 43.599 kill broker-a-s", 60),
        // A long-poll timer re-armed in the past while frozen never fired after the unfreeze.
        ("at 64.007 freeze broker-b; at 144.008 unfreeze broker-b", 170),
        // The same for a NameServer: its scan and idle checks resume at once.
        ("at 30 freeze NS-1; at 200 unfreeze NS-1; at 75 freeze broker-b", 260),
        // A restart while frozen, and a slave that restarts behind its master catches up.
        ("at 40 freeze broker-a; at 45 restart broker-a; at 60 kill broker-a-s; at 90 restart broker-a-s", 120),
    ] {
        let text = format!("{}\n{}", built_in_text("S1").expect("S1"), script.replace("; ", "\n"));
        let scenario = Scenario::parse(&text).expect("parses");
        let sim = simulate_checked(script, &scenario, secs(until));
        assert_eq!(sim.now(), secs(until));
    }
    // The restarted slave holds every message its master stored while it was down.
    let text = format!("{}\nat 60 kill broker-a-s\nat 90 restart broker-a-s", built_in_text("S1").expect("S1"));
    let sim = fresh(&Scenario::parse(&text).expect("parses"), secs(100));
    let stored = |name: &str| match &sim.nodes()[sim.scenario().node_index(name).expect("node")].actor() {
        Actor::Broker(b) => {
            Some(b.stored().iter().filter(|((t, _), _)| t.as_str() == "TopicTest").map(|(_, n)| n).sum::<u64>())
        }
        _ => None,
    };
    assert!(stored("broker-a").is_some_and(|n| n > 30), "{:?}", stored("broker-a"));
    assert_eq!(stored("broker-a-s"), stored("broker-a"));
}

// ---------------------------------------------------------------------------------------------
// Random fault scripts

const NODES: [&str; 7] = ["NS-1", "NS-2", "broker-a", "broker-a-s", "broker-b", "P1", "C1"];

/// A process or link fault on random nodes (clients included) at a random time; now and then
/// a message fault, a burst of sends or an admin action.
fn arb_action() -> impl Strategy<Value = (u64, Action)> {
    let one = (0..13u8, 0..NODES.len(), 1..NODES.len(), 0..300_000u64);
    one.prop_map(|(kind, a, offset, at)| {
        let (x, y) = (NODES[a].to_owned(), NODES[(a + offset) % NODES.len()].to_owned());
        let action = match kind {
            0 => Action::Kill(x),
            1 => Action::Freeze(x),
            2 => Action::Unfreeze(x),
            3 => Action::PowerOff(x),
            4 => Action::Restart(x),
            5 => Action::Shutdown(x),
            6 => Action::Cut(x, y),
            7 => Action::Heal(x, y),
            8 => Action::Reset(x, y),
            // Flight ids grow with time: about this many have been sent by `at`.
            9 => Action::Drop(at / 215),
            10 => Action::Delay(at / 215, at % 5000),
            11 => Action::Send("P1".into(), u32::try_from(at % 7 + 1).expect("small")),
            _ => Action::CreateTopic { group: "broker-b".into(), topic: x, queues: 2 },
        };
        (at, action)
    })
}

proptest! {
    // 16 cases keep the suite fast; PROPTEST_CASES=500 explores further.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(16),
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_fault_scripts_keep_the_invariants_and_replay(script in prop::collection::vec(arb_action(), 1..12)) {
        let mut scenario = built_in("S1").expect("S1");
        for (at, action) in script {
            scenario.push_action(ms(at), action);
        }
        let label = scenario.script.iter().map(|e| format!("at {} {:?}", e.at, e.action)).collect::<Vec<_>>().join("; ");
        let checked = simulate_checked(&label, &scenario, secs(300));
        let again = fresh(&scenario, secs(300));
        prop_assert_eq!(checked.trace_hash(), again.trace_hash());
        prop_assert_eq!(checked.state_hash(), again.state_hash());
    }
}
