//! What the page reads from the cluster simulation besides the trace: the wire log, timers
//! with their kinds and periods, and each NameServer's removal clock per broker.

use crate::common;

use std::collections::BTreeMap;

use nameserver_core::time::Instant;
use nameserver_core::view::LiveRow;
use nameserver_sim::view::{ClusterView, FlightInfo, NodeInfo};
use nameserver_sim::{
    Category, IDLE_CLOSE, NodeState, RemovalPath, Scenario, Sim, Timeline, TraceKind, WireRecord, WireType, built_in,
    built_in_text,
};

use common::sim::*;

fn wire_between<'s>(sim: &'s Sim, cx: &Ctx<'_>, a: &str, b: &str) -> Vec<&'s WireRecord> {
    let (a, b) = (cx.node(a), cx.node(b));
    sim.history().wire().iter().filter(|r| (r.from(), r.to()) == (a, b) || (r.from(), r.to()) == (b, a)).collect()
}

// ---------------------------------------------------------------------------------------------
// The wire log

#[test]
fn the_wire_log_records_every_message_as_sent() {
    let sim = run("S1");
    let cx = Ctx::new("S1", sim);
    let wire = &sim.history().wire();
    assert!(std::mem::size_of::<WireRecord>() <= 40, "records stay compact");
    cx.ensure(wire.windows(2).all(|w| w[0].sent_at() <= w[1].sent_at()), None, || "the log is in sending order".into());
    cx.ensure(wire.iter().all(|r| r.arrive_at() > r.sent_at() && !r.lost() && r.id().is_some()), None, || {
        "nothing is lost in S1".into()
    });
    // Flight ids are handed out in sending order, one per message.
    let ids: Vec<u64> = wire.iter().filter_map(|r| r.id().map(|id| id.get())).collect();
    cx.ensure(ids.windows(2).all(|w| w[1] == w[0] + 1), None, || "one record per flight".into());
    // Every message still on the wire is in the log as sent.
    for f in sim.net().flights().values() {
        let found = wire.iter().any(|r| {
            r.id().map(|id| id.get()) == Some(f.id())
                && (r.from(), r.to(), r.sent_at(), r.arrive_at()) == (f.from(), f.to(), f.sent_at(), f.arrive_at())
        });
        cx.ensure(found, Some(f.sent_at()), || format!("flight {} is not in the wire log", f.id()));
    }
    // broker-a registers with NS-1 at 1, 11, 41, 71, ...: each request is answered, and the
    // answer is named after the request.
    let pair = wire_between(sim, &cx, "broker-a", "NS-1");
    let requests: Vec<Instant> = pair
        .iter()
        .filter(|r| {
            r.from() == cx.node("broker-a")
                && r.what() == WireType::Command(nameserver_core::protocol::RequestCode::RegisterBroker)
        })
        .map(|r| r.sent_at())
        .collect();
    assert_eq!(&requests[..4], &[secs(1), secs(11), secs(41), secs(71)]);
    for sent in &requests {
        let answer = pair.iter().find(|r| r.from() == cx.node("NS-1") && r.sent_at() >= *sent);
        cx.ensure(
            answer.is_some_and(|a| {
                a.response() && a.category() == Category::Register && a.what().name() == "REGISTER_BROKER" && !a.lost()
            }),
            Some(*sent),
            || format!("the answer to the registration at {sent}: {answer:?}"),
        );
    }
    // P1's successful sends are exactly the SEND_MESSAGE answers that reached it.
    let p1 = cx.node("P1");
    let answers = wire
        .iter()
        .filter(|r| r.to() == p1 && r.response() && r.category() == Category::Send && r.arrive_at() <= sim.now())
        .count();
    let ok = cx.sends("P1").iter().flat_map(|s| s.attempts().iter()).filter(|a| a.failure().is_none()).count();
    assert_eq!(answers, ok, "one SEND_MESSAGE answer per successful attempt");
    let categories: BTreeMap<&str, usize> = wire.iter().fold(BTreeMap::new(), |mut m, r| {
        *m.entry(r.category().name()).or_default() += 1;
        m
    });
    for category in ["register", "route", "send", "pull", "heartbeat"] {
        assert!(categories.get(category).is_some_and(|n| *n > 0), "{category}: {categories:?}");
    }
}

#[test]
fn a_cut_link_swallows_and_a_reset_link_answers_with_rst() {
    // S7 cuts broker-b from NS-2 from 75 to 300: everything sent between them meanwhile is lost.
    let sim = run("S7");
    let cx = Ctx::new("S7", sim);
    let pair = wire_between(sim, &cx, "broker-b", "NS-2");
    let during: Vec<_> = pair.iter().filter(|r| r.sent_at() >= secs(75) && r.sent_at() < secs(300)).collect();
    cx.ensure(!during.is_empty() && during.iter().all(|r| r.lost() && r.id().is_none()), Some(secs(300)), || {
        format!("messages across the cut: {during:?}")
    });
    cx.ensure(during.iter().all(|r| r.arrive_at() == r.sent_at() + std::time::Duration::from_millis(2)), None, || {
        "a lost message is due at the base latency".into()
    });
    cx.ensure(
        pair.iter().filter(|r| r.sent_at() < secs(75) || r.sent_at() >= secs(300)).all(|r| !r.lost()),
        None,
        || "nothing else is lost".into(),
    );
    cx.ensure(sim.history().wire().iter().filter(|r| r.lost()).count() == during.len(), None, || {
        "only that link loses messages".into()
    });
    // Its idle close at ≈192 sends a FIN that never arrives either.
    cx.ensure(during.iter().any(|r| r.from() == cx.node("NS-2") && r.what() == WireType::Fin), Some(secs(193)), || {
        "NS-2's FIN into the cut".into()
    });

    // A resetting link: broker-b's registration at 72 never reaches NS-1; a RST comes back.
    let text = format!("{}\nat 50 reset broker-b NS-1", built_in_text("S1").expect("S1"));
    let sim = fresh(&Scenario::parse(&text).expect("parses"), secs(80));
    let cx = Ctx::new("S1 + reset", &sim);
    let pair = wire_between(&sim, &cx, "broker-b", "NS-1");
    let lost: Vec<_> = pair.iter().filter(|r| r.lost()).collect();
    cx.ensure(
        lost.len() == 1
            && lost[0].sent_at() == secs(72)
            && lost[0].from() == cx.node("broker-b")
            && lost[0].what().name() == "REGISTER_BROKER"
            && lost[0].id().is_none(),
        Some(secs(72)),
        || format!("the rejected registration: {lost:?}"),
    );
    let rst = pair.iter().find(|r| r.sent_at() == secs(72) && r.what() == WireType::Rst);
    cx.ensure(
        rst.is_some_and(|r| {
            r.from() == cx.node("NS-1") && r.category() == Category::Reset && !r.lost() && r.id().is_some()
        }),
        Some(secs(72)),
        || format!("the RST back: {rst:?}"),
    );
}

#[test]
fn the_wire_log_is_truncated_with_the_rest_of_the_history() {
    let scenario = built_in("S5").expect("S5");
    let mut tl = Timeline::new(&scenario);
    tl.seek(ms(61_234));
    let at_61 = tl.sim().history().wire().to_vec();
    tl.seek(secs(200));
    assert!(tl.sim().history().wire().len() > at_61.len());
    tl.seek(ms(61_234));
    assert_eq!(tl.sim().history().wire(), at_61, "back to the same log");
    assert_eq!(fresh(&scenario, ms(61_234)).history().wire(), at_61, "equal to a fresh run's");
    // Flights report the category their wire record has, answers included.
    for f in FlightInfo::all(tl.sim()) {
        let record = at_61.iter().find(|r| r.id().map(|id| id.get()) == Some(f.id)).expect("recorded");
        assert_eq!((f.category, f.response), (record.category().name(), record.response()), "{f:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Timers

#[test]
fn timers_carry_their_kind_and_the_period_the_model_uses() {
    let sim = run("S1");
    let cx = Ctx::new("S1", sim);
    let mut tl = Timeline::new(&built_in("S1").expect("S1"));
    tl.seek(ms(30_500));
    let kinds = |node: &str| -> BTreeMap<&'static str, Option<u64>> {
        NodeInfo::of(tl.sim(), cx.node(node)).timers.iter().map(|t| (t.kind, t.period_ms)).collect()
    };
    assert_eq!(kinds("broker-a").get("register"), Some(&Some(30_000)));
    assert_eq!(kinds("NS-1").get("scan"), Some(&Some(10_000)));
    let p1 = kinds("P1");
    assert_eq!((p1["route-poll"], p1["heartbeat"], p1["send"]), (Some(30_000), Some(30_000), Some(1000)));
    let c1 = kinds("C1");
    assert_eq!((c1["route-poll"], c1["heartbeat"], c1["rebalance"]), (Some(30_000), Some(30_000), Some(20_000)));

    // The periods are the spacing the run shows: broker-a's registrations, NS-1's scans,
    // P1's route polls.
    let spacing =
        |times: Vec<Instant>| -> Vec<u64> { times.windows(2).map(|w| w[1].as_millis() - w[0].as_millis()).collect() };
    let broker_a = cx.node("broker-a");
    let registrations: Vec<Instant> = sim
        .history()
        .wire()
        .iter()
        .filter(|r| r.from() == broker_a && r.to() == cx.node("NS-1") && r.what().name() == "REGISTER_BROKER")
        .map(|r| r.sent_at())
        .collect();
    assert!(spacing(registrations)[1..].iter().all(|d| *d == 30_000));
    let scans: Vec<Instant> = cx.lines("NS-1", TraceKind::Scan, "").iter().map(|e| e.at()).collect();
    assert!(spacing(scans).iter().all(|d| *d == 10_000));
    let p1 = cx.node("P1");
    let polls: Vec<Instant> = sim
        .history()
        .wire()
        .iter()
        .filter(|r| r.from() == p1 && r.what().name() == "GET_ROUTEINFO_BY_TOPIC")
        .map(|r| r.sent_at())
        .collect();
    assert!(spacing(polls).iter().all(|d| *d == 30_000));

    // 5.x scans every 5 s.
    let mut tl = Timeline::new(&built_in("S6-fault-5.x").expect("S6-fault-5.x"));
    tl.seek(secs(30));
    let scan = NodeInfo::of(tl.sim(), cx.node("NS-2")).timers.into_iter().find(|t| t.kind == "scan");
    assert_eq!(scan.and_then(|t| t.period_ms), Some(5_000));
}

/// `Scenario::timings` is what the timers run with, `namesrv` lines included.
#[test]
fn timings_are_the_periods_the_timers_run_with() {
    let s1 = built_in("S1").expect("S1");
    let t = s1.timings();
    let cx = Ctx::new("S1", run("S1"));
    let mut tl = Timeline::new(&s1);
    tl.seek(ms(30_500));
    let period = |node: &str, kind: &str| {
        NodeInfo::of(tl.sim(), cx.node(node)).timers.iter().find(|x| x.kind == kind).and_then(|x| x.period_ms)
    };
    assert_eq!(Some(t.scan_interval().as_millis() as u64), period("NS-1", "scan"));
    assert_eq!(Some(t.register_period().as_millis() as u64), period("broker-a", "register"));
    assert_eq!(Some(t.route_poll_period().as_millis() as u64), period("P1", "route-poll"));
    assert_eq!(Some(t.idle_close().expect("idle on").as_millis() as u64), period("NS-1", IDLE_CLOSE));
    assert_eq!(t.broker_timeout().as_millis(), 120_000);

    let text = format!(
        "{}\nnamesrv serverChannelMaxIdleTimeSeconds 45\nnamesrv scanNotActiveBrokerInterval 7000",
        built_in_text("S1").expect("S1")
    );
    let tuned = Scenario::parse(&text).expect("parses");
    let t = tuned.timings();
    assert_eq!((t.scan_interval().as_millis(), t.idle_close().map(|d| d.as_millis())), (7_000, Some(45_000)));
    let mut tl = Timeline::new(&tuned);
    tl.seek(ms(30_500));
    let ns1 = NodeInfo::of(tl.sim(), cx.node("NS-1"));
    let periods = |kind: &str| ns1.timers.iter().filter(|x| x.kind == kind).map(|x| x.period_ms).collect::<Vec<_>>();
    assert_eq!(periods("scan"), [Some(7_000)]);
    assert!(!periods(IDLE_CLOSE).is_empty() && periods(IDLE_CLOSE).iter().all(|p| *p == Some(45_000)));
    assert_eq!(Scenario::parse(&format!("{text}\nidle off")).expect("parses").timings().idle_close(), None);
}

#[test]
fn idle_close_timers_name_the_peer_and_go_off_when_idle_close_is() {
    let mut tl = Timeline::new(&built_in("S5").expect("S5"));
    tl.seek(secs(190));
    let sim = tl.sim();
    let cx = Ctx::new("S5 at 190 s", sim);
    let idle: Vec<_> = NodeInfo::of(sim, cx.node("NS-1")).timers.into_iter().filter(|t| t.kind == IDLE_CLOSE).collect();
    let peers: Vec<&str> = idle.iter().filter_map(|t| t.peer.as_deref()).collect();
    for peer in ["broker-a", "broker-a-s", "broker-b", "P1"] {
        assert!(peers.contains(&peer), "{peer} in {peers:?}");
    }
    assert!(idle.iter().all(|t| t.period_ms == Some(120_000) && t.label.ends_with(t.peer.as_deref().expect("a peer"))));
    // broker-b has been silent since its last registration: its idle close is 120 s after the
    // NameServer last wrote to it.
    let broker_b = cx.node("broker-b");
    let last_write = sim
        .history()
        .wire()
        .iter()
        .filter(|r| r.from() == cx.node("NS-1") && r.to() == broker_b)
        .map(|r| r.sent_at())
        .max()
        .expect("NS-1 answered broker-b");
    let timer = idle.iter().find(|t| t.peer.as_deref() == Some("broker-b")).expect("broker-b's idle timer");
    assert_eq!(timer.at, (last_write + std::time::Duration::from_secs(120)).as_millis());

    let mut tl = Timeline::new(&built_in("S5-scan-only").expect("S5-scan-only"));
    tl.seek(secs(190));
    assert!(NodeInfo::all(tl.sim()).iter().flat_map(|v| v.timers.iter()).all(|t| t.kind != IDLE_CLOSE));
}

// ---------------------------------------------------------------------------------------------
// Removal clocks

/// Broker-b's row, with its removal clock, in `ns`'s tables at `at`, and when `ns` actually
/// removed it.
fn clock_and_removal(id: &str, ns: &str, at: Instant) -> (LiveRow, Instant) {
    let mut tl = Timeline::new(&built_in(id).expect("scenario"));
    tl.seek(at);
    let cx = Ctx::new(id, tl.sim());
    let clock = ClusterView::of(&tl, None)
        .ns
        .remove(ns)
        .and_then(|tables| tables.brokers.into_iter().find(|row| row.broker_addr == BROKER_B))
        .unwrap_or_else(|| cx.fail(Some(at), &format!("{ns} lists no broker-b")));
    let ns_id = cx.node(ns);
    let run = run(id);
    let removed = run
        .history()
        .removals()
        .iter()
        .find(|r| r.ns() == ns_id && r.broker_addr() == BROKER_B && r.at() >= at)
        .map(|r| r.at())
        .unwrap_or_else(|| Ctx::new(id, run).fail(None, &format!("{ns} never removes broker-b")));
    (clock, removed)
}

#[test]
fn removal_clocks_predict_the_idle_close() {
    for ns in ["NS-1", "NS-2"] {
        let (clock, removed) = clock_and_removal("S5", ns, secs(190));
        assert_eq!(clock.removal_by, RemovalPath::Idle, "{ns}: {clock:?}");
        assert_eq!(clock.removal_at, removed.as_millis(), "{ns}: {clock:?}");
        assert_eq!(clock.idle_close_at, Some(removed.as_millis()));
        assert!(clock.scan_expire_at > removed.as_millis(), "{ns}: the scan would come later: {clock:?}");
        assert!((192_001..=192_003).contains(&removed.as_millis()), "{ns} removed at {removed}");
    }
}

#[test]
fn removal_clocks_predict_the_scan_without_idle_close() {
    for (ns, at) in [("NS-1", 195_000), ("NS-2", 198_000)] {
        let (clock, removed) = clock_and_removal("S5-scan-only", ns, secs(190));
        assert_eq!(clock.removal_by, RemovalPath::Scan, "{ns}: {clock:?}");
        let removed = removed.as_millis();
        assert_eq!((clock.idle_close_at, clock.scan_expire_at, clock.removal_at), (None, removed, removed));
        assert_eq!(removed, at);
    }
}

#[test]
fn removal_clocks_of_live_brokers_stay_ahead() {
    let mut tl = Timeline::new(&built_in("S5").expect("S5"));
    for s in (20..300).step_by(7) {
        tl.seek(secs(s));
        let view = ClusterView::of(&tl, None);
        for clock in view.ns.get("NS-1").map_or(&[][..], |tables| &tables.brokers) {
            assert!(clock.removal_at > view.time, "at {s} s: {clock:?}");
            assert_eq!(clock.removal_at, clock.idle_close_at.unwrap_or(clock.scan_expire_at).min(clock.scan_expire_at));
        }
        let broker_b = view.nodes.iter().find(|n| n.name == "broker-b").expect("broker-b");
        assert_eq!(broker_b.state == NodeState::Frozen.name(), s >= 75);
    }
}
