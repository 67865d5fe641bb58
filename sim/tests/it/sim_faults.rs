//! The cluster simulation against TEACHING.md, S6–S10: client fault tolerance, disagreeing
//! NameServers, a master down, NameServers failing, auto-created topics.
//!
//! Tolerance. One-way latency is 2 ms ± 1 ms, drawn from the seeded PRNG, so a time that
//! TEACHING.md gives as "≈t" for something that happens `n` network hops after an exact
//! instant `t` (a timer, a scan, a script action) is asserted inside
//! `[t + n·1 ms, t + n·3 ms]`: exact to the millisecond up to the jitter, and no looser.
//! Timers, scans and timeouts carry no jitter and are asserted to the millisecond.

use crate::common;

use nameserver_sim::{Failure, SendOutcome, SendRecord, Sim, Timeline, TraceEntry, TraceKind, built_in};

use common::sim::*;

// ---------------------------------------------------------------------------------------------
// S1–S6: the times TEACHING.md lists

#[test]
fn s6_fault_tolerance_off_half_the_sends_time_out() {
    let cx = Ctx::of("S6");
    let b = cx.group("broker-b");
    let sends = cx.sends("P1");
    let window: Vec<&&SendRecord> =
        sends.iter().filter(|s| s.started() >= secs(75) && s.started() <= secs(117)).collect();
    let timed_out = window.iter().filter(|s| s.outcome() == SendOutcome::Indeterminate).count();
    let share = timed_out as f64 / window.len() as f64;
    cx.ensure((0.35..=0.65).contains(&share), Some(secs(120)), || {
        format!("{timed_out} of {} sends timed out", window.len())
    });
    for s in window.iter().filter(|s| s.outcome() == SendOutcome::Indeterminate) {
        let shape = s.attempts().len() == 1
            && s.attempts()[0].group() == b
            && s.finished().as_millis() - s.started().as_millis() == 3000;
        cx.ensure(shape, Some(s.finished()), || format!("timed-out send: {s:?}"));
    }
    // From 120 broker-b answers again, starting with the send that was waiting on it.
    let back = sends
        .iter()
        .find(|s| s.finished() >= secs(120) && s.attempts().iter().any(|a| a.group() == b && a.failure().is_none()));
    cx.within("first broker-b success", back.map(|s| s.finished()), 120_001, 120_003);
    cx.ensure(
        sends.iter().filter(|s| s.started() >= ms(119_500)).all(|s| s.outcome() == SendOutcome::Ok),
        None,
        || "a send failed after 120".into(),
    );
    cx.ensure(cx.sim.history().removals().is_empty(), None, || "the NameServers never removed broker-b".into());
}

#[test]
fn s6_fault_tolerance_classic_isolates_for_600s() {
    let cx = Ctx::of("S6-fault-4.9");
    let b = cx.group("broker-b");
    let sends = cx.sends("P1");
    let to_b: Vec<&&SendRecord> =
        sends.iter().filter(|s| s.started() >= secs(75) && s.attempts().iter().any(|a| a.group() == b)).collect();
    let first = to_b.first().copied();
    let ok = first.is_some_and(|s| {
        s.started() == secs(78) && s.finished() == secs(81) && s.outcome() == SendOutcome::Indeterminate
    });
    cx.ensure(ok, Some(secs(82)), || format!("the first send to broker-b after the freeze: {first:?}"));
    // broker-b recovered at 120 but stays avoided until 81 + 600 = 681.
    let next = to_b.get(1).copied();
    cx.within("next broker-b attempt", next.map(|s| s.started()), 681_000, 685_000);
    cx.ensure(next.is_some_and(|s| s.outcome() == SendOutcome::Ok), Some(secs(685)), || "broker-b works again".into());
    cx.ensure(sends.iter().filter(|s| s.started() > secs(81)).all(|s| s.outcome() == SendOutcome::Ok), None, || {
        "after the isolation every send succeeds (on broker-a)".into()
    });
}

#[test]
fn s6_fault_tolerance_modern_probes_every_10_to_15s() {
    let cx = Ctx::of("S6-fault-5.x");
    let b = cx.group("broker-b");
    let attempts: Vec<_> = cx
        .sends("P1")
        .into_iter()
        .flat_map(|s| s.attempts().iter())
        .filter(|a| a.group() == b && a.at() >= secs(75))
        .collect();
    let frozen: Vec<_> = attempts.iter().filter(|a| a.at() < secs(120)).collect();
    cx.ensure(frozen.len() >= 3, Some(secs(120)), || format!("{} probes while frozen", frozen.len()));
    for pair in frozen.windows(2) {
        cx.ensure(pair[0].failure() == Some(Failure::Timeout), Some(pair[1].at()), || "each probe times out".into());
        let gap = pair[1].at().as_millis() - (pair[0].at().as_millis() + 3000);
        cx.ensure((10_000..=15_000).contains(&gap), Some(pair[1].at()), || format!("probe gap {gap} ms"));
    }
    let back = attempts.iter().find(|a| a.at() >= secs(120) && a.failure().is_none());
    cx.within("traffic returns to broker-b", back.map(|a| a.at()), 120_001, 135_000);
    // Fewer failures than with fault tolerance off.
    let lost = |id: &str| Ctx::of(id).sends("P1").iter().filter(|s| s.outcome() != SendOutcome::Ok).count();
    cx.ensure(lost("S6-fault-5.x") < lost("S6"), None, || "isolation avoids failures".into());
}

// ---------------------------------------------------------------------------------------------
// S7–S10: the points each lesson makes, as trace lines it can gate on

#[test]
fn s7_two_nameservers_disagree_then_converge() {
    let cx = Ctx::of("S7");
    let m = cx.measurement("cut broker-b NS-2");
    // Only NS-2 expires broker-b (its channel goes idle behind the silent cut).
    cx.within("NS-2 drops broker-b", cx.ns_removal(&m, "NS-2"), 192_001, 192_003);
    cx.ensure(cx.ns_removal(&m, "NS-1").is_none(), None, || "NS-1 keeps broker-b".into());
    let failed = cx.first("broker-b", TraceKind::RegisterFailed, "10.0.0.2:9876", secs(75));
    cx.ensure(failed.is_some_and(|e| e.at() < secs(300)), Some(secs(300)), || {
        "registrations to NS-2 fail during the cut".into()
    });
    // C1 (bound to NS-2) loses broker-b at its 216.01 poll and rebalances at once: it drops
    // broker-b's four queues, committing each one's offset to broker-b first.
    let dropped = cx.within("C1 drops broker-b", cx.client_update(&m, "C1"), 216_012, 216_016);
    cx.first_within(
        "C1",
        TraceKind::Rebalance,
        "pull from [broker-a]",
        secs(200),
        dropped.as_millis(),
        dropped.as_millis(),
    );
    for q in 0..4 {
        let mq = format!("brokerName=broker-b, queueId={q}]");
        let removed = cx.first(
            "C1",
            TraceKind::Rebalance,
            &format!("remove unnecessary mq, MessageQueue [topic=TopicTest, {mq}"),
            secs(200),
        );
        let committed = cx.first(
            "C1",
            TraceKind::Offset,
            &format!(
                "[persist] Group: CG1 ClientId: C1 updateConsumeOffsetToBroker MessageQueue [topic=TopicTest, {mq}"
            ),
            secs(200),
        );
        cx.ensure(
            removed.is_some_and(|e| e.at() == dropped) && committed.is_some_and(|e| e.at() == dropped),
            Some(dropped),
            || format!("C1 commits and drops queue {q} of broker-b at {dropped}"),
        );
    }
    cx.ensure(cx.client_update(&m, "P1").is_none(), None, || "P1 keeps broker-b".into());
    // broker-b's queues go unconsumed while P1 (bound to NS-1) keeps writing about half its
    // messages there.
    let idle = cx.lines("C1", TraceKind::Pull, "from broker-b").iter().all(|e| e.at() <= dropped || e.at() > secs(336));
    cx.ensure(idle, None, || "C1 pulled broker-b between its drop and the heal".into());
    let sends: Vec<_> =
        cx.lines("P1", TraceKind::SendOk, "").into_iter().filter(|e| e.at() > dropped && e.at() < secs(300)).collect();
    let to_b = sends.iter().filter(|e| e.text().contains("brokerName=broker-b,")).count();
    cx.ensure((0.4..=0.6).contains(&(to_b as f64 / sends.len() as f64)), Some(secs(300)), || {
        format!("{to_b} of {} sends went to broker-b", sends.len())
    });
    // The heal at 300: broker-b's next registration (312) reaches NS-2, C1's 336.01 poll takes
    // broker-b's queues back at the offsets it committed, and it catches up.
    cx.first_within("broker-b", TraceKind::Fault, "heal broker-b NS-2", secs(299), 300_000, 300_000);
    cx.first_within("NS-2", TraceKind::Registered, BROKER_B, secs(300), 312_001, 312_003);
    let back = cx.first_within("C1", TraceKind::RouteUpdated, "", secs(300), 336_012, 336_016);
    cx.ensure(back.text().contains(BROKER_B), Some(back.at()), || "C1 sees broker-b again".into());
    let resumed =
        cx.lines("C1", TraceKind::Rebalance, "resume at offset").into_iter().filter(|e| e.at() >= back.at()).count();
    cx.ensure(resumed == 4, Some(back.at()), || format!("{resumed} broker-b queues resume at a committed offset"));
    let caught_up: u64 = cx
        .lines("C1", TraceKind::Pull, "from broker-b")
        .into_iter()
        .filter(|e| e.at() >= back.at() && e.at() < back.at() + std::time::Duration::from_millis(20))
        .filter_map(pulled)
        .map(|(_, _, a, b)| b - a)
        .sum();
    cx.ensure(caught_up as usize >= to_b, Some(back.at()), || format!("C1 caught up {caught_up} messages at once"));

    // The tables, through the time machine: divergent at 200 and 240, converged at 340.
    let mut tl = Timeline::new(&built_in("S7").expect("S7"));
    tl.seek(secs(200));
    let sim = tl.sim();
    Ctx::new("S7 at 200 s", sim).ensure(
        ns_lists(sim, "NS-1", BROKER_B) && !ns_lists(sim, "NS-2", BROKER_B),
        None,
        || "NS-1 lists broker-b and NS-2 does not".into(),
    );
    tl.seek(secs(240));
    let sim = tl.sim();
    let (p1, c1) = (producer(sim, "P1").client().route(), consumer(sim, "C1").client().route());
    Ctx::new("S7 at 240 s", sim).ensure(route_has(p1, BROKER_B) && !route_has(c1, BROKER_B), None, || {
        "clients bound to different NameServers see different routes".into()
    });
    tl.seek(secs(340));
    let sim = tl.sim();
    let c1 = consumer(sim, "C1").client().route();
    Ctx::new("S7 at 340 s", sim)
        .ensure(ns_lists(sim, "NS-2", BROKER_B) && route_has(c1, BROKER_B), None, || "converged after the heal".into());
    tl.seek(secs(450));
    assert_eq!(tl.sim().state_hash(), run("S7").state_hash(), "the timeline reaches the state of a straight run");
}

#[test]
fn s8_master_down_slave_alive() {
    let cx = Ctx::of("S8");
    for ns in ["NS-1", "NS-2"] {
        cx.first_within(ns, TraceKind::ChannelClosed, BROKER_A, secs(50), 50_001, 50_003);
    }
    // Writes leave broker-a at P1's next poll: the group stays in the route with its slave only
    // (still brokerId 1: no promotion), and producers skip a group without a master.
    let route = cx.first_within("P1", TraceKind::RouteUpdated, "broker-a {1=10.0.1.2:10911}", secs(50), 64_012, 64_016);
    cx.ensure(route.text().contains("queueDatas=[broker-a r4/w4 RW; broker-b r4/w4 RW]"), Some(route.at()), || {
        "broker-a's queues are still listed".into()
    });
    let a = cx.group("broker-a");
    let skipped = cx
        .sends("P1")
        .into_iter()
        .filter(|s| s.started() > route.at() && s.started() < secs(154))
        .all(|s| s.outcome() == SendOutcome::Ok && s.attempts().iter().all(|x| x.group() != a));
    cx.ensure(skipped, Some(secs(154)), || "a send went to broker-a while it had no master".into());
    // No promotion: the slave just loses its master at its next registration (71.5).
    cx.first_within(
        "broker-a-s",
        TraceKind::Info,
        "Update master address from 10.0.1.1:10911 to null",
        secs(50),
        71_502,
        71_506,
    );
    cx.ensure(
        cx.lines("NS-1", TraceKind::Registered, "").iter().all(|e| e.at() < secs(50) || e.at() >= secs(150)),
        None,
        || "nothing re-registers as master before the restart".into(),
    );
    // C1 keeps broker-a's queues and reads them from the slave from its 66.01 poll on.
    let c1_route =
        cx.first_within("C1", TraceKind::RouteUpdated, "broker-a {1=10.0.1.2:10911}", secs(50), 66_012, 66_016);
    cx.first_within(
        "C1",
        TraceKind::Info,
        "pulls of broker-a's queues go to slave broker-a-s (10.0.1.2:10911) now, not broker-a (10.0.1.1:10911)",
        secs(50),
        c1_route.at().as_millis(),
        c1_route.at().as_millis() + 3_000,
    );
    cx.ensure(cx.lines("C1", TraceKind::Rebalance, "remove unnecessary mq").is_empty(), None, || {
        "C1 never drops broker-a's queues".into()
    });
    let mut sim = Sim::new(&built_in("S8").expect("S8"));
    sim.run_until(secs(100));
    let slave = cx.node("broker-a-s");
    for q in 0..4 {
        let from = consumer(&sim, "C1").assigned().get(&(a, q)).and_then(|p| p.from());
        Ctx::new("S8 at 100 s", &sim)
            .ensure(from == Some(slave), None, || format!("C1 pulls broker-a:{q} from {from:?}"));
    }
    // C2, started at 60 in another group, reads broker-a's backlog from the slave from offset 0.
    let starts = cx.lines("C2", TraceKind::Rebalance, "start at offset 0: nothing committed on broker-a-s yet");
    cx.ensure(starts.len() == 4, Some(secs(61)), || format!("C2 takes broker-a's queues from the slave: {starts:?}"));
    let backlog: u64 = cx
        .lines("C2", TraceKind::Pull, "of TopicTest from broker-a-s (10.0.1.2:10911)")
        .into_iter()
        .filter(|e| e.at() < secs(61))
        .filter_map(pulled)
        .map(|(_, _, from, to)| to - from)
        .sum();
    cx.ensure(backlog >= 20, Some(secs(61)), || format!("C2 reads broker-a's backlog from the slave: {backlog}"));
    // The master returns: registered at once, back in P1's route at its 154.01 poll, and it kept
    // its commit log (queue offsets continue).
    cx.first_within("NS-1", TraceKind::Registered, BROKER_A, secs(150), 150_001, 150_003);
    let back = cx.first_within(
        "P1",
        TraceKind::RouteUpdated,
        "broker-a {0=10.0.1.1:10911, 1=10.0.1.2:10911}",
        secs(150),
        154_012,
        154_016,
    );
    let resumed = cx.first("P1", TraceKind::SendOk, "brokerName=broker-a,", back.at());
    let offset = resumed.and_then(|e| number_after(e.text(), "queueOffset=")).unwrap_or(0);
    cx.ensure(
        resumed.is_some_and(|e| e.at() < back.at() + std::time::Duration::from_secs(5)) && offset >= 5,
        Some(back.at()),
        || format!("sends to the returned master: {resumed:?}"),
    );
    cx.first_within(
        "C1",
        TraceKind::Info,
        "pulls of broker-a's queues go to master broker-a (10.0.1.1:10911) now",
        secs(150),
        156_012,
        171_100,
    );
    cx.first_within(
        "broker-a-s",
        TraceKind::Info,
        "Update master address from null to 10.0.1.1:10911",
        secs(150),
        161_502,
        161_506,
    );
    let reading = cx.first("C1", TraceKind::Pull, "from broker-a (10.0.1.1:10911)", secs(157));
    cx.ensure(reading.is_some_and(|e| e.at() < secs(170)), Some(secs(170)), || "C1 reads from the master again".into());
}

#[test]
fn s9_nameservers_fail() {
    let cx = Ctx::of("S9");
    // NS-1 dies: P1 (bound to it) fails its 64.01 poll and switches to NS-2, keeping its route.
    cx.first_within("P1", TraceKind::RouteQueryFailed, "switch name server to 10.0.0.2:9876", secs(50), 64_012, 64_016);
    // Both dead from 100 to 120: running clients keep their cached routes and keep working.
    let p1_ok = cx
        .sends("P1")
        .iter()
        .filter(|s| s.started() >= secs(100) && s.started() < secs(131))
        .all(|s| s.outcome() == SendOutcome::Ok);
    cx.ensure(p1_ok, Some(secs(131)), || "P1 keeps sending on its cached route".into());
    let pulls = cx.lines("C1", TraceKind::Pull, "").iter().filter(|e| e.at() > secs(100) && e.at() < secs(120)).count();
    cx.ensure(pulls >= 15, Some(secs(120)), || format!("C1 keeps consuming: {pulls} pulls"));
    // A producer started now cannot send: "No route info of this topic".
    let p2 = cx.sends("P2");
    let before: Vec<_> = p2.iter().filter(|s| s.started() < secs(120)).collect();
    let none = before.iter().all(|s| s.outcome() == SendOutcome::Failed && s.attempts().is_empty());
    cx.ensure(before.len() >= 9 && none, Some(secs(120)), || format!("P2 before 120: {before:?}"));
    let said = cx.lines("P2", TraceKind::SendFailed, "No route info of this topic: TopicTest").len();
    cx.ensure(said >= before.len(), Some(secs(120)), || "P2 logs No route info".into());
    // NS-1 restarts empty at 120: it answers TOPIC_NOT_EXIST until the brokers' next
    // registrations (131, 131.5, 132) refill it.
    cx.first_within("NS-1", TraceKind::Lifecycle, "boot success", secs(120), 120_000, 120_000);
    let empty = cx.first(
        "P2",
        TraceKind::RouteNotFound,
        "RouteInfoFromNameServer is not exist value (10.0.0.1:9876)",
        secs(120),
    );
    cx.ensure(empty.is_some_and(|e| e.at() < secs(131)), Some(secs(131)), || "the restarted NS-1 has no route".into());
    cx.first_within("NS-1", TraceKind::Registered, BROKER_A, secs(120), 131_001, 131_003);
    cx.first_within("NS-1", TraceKind::Registered, "10.0.1.2:10911", secs(120), 131_501, 131_503);
    cx.first_within("NS-1", TraceKind::Registered, BROKER_B, secs(120), 132_001, 132_003);
    cx.first_within(
        "C1",
        TraceKind::RouteQueryFailed,
        "switch name server to 10.0.0.1:9876",
        secs(100),
        126_012,
        126_016,
    );
    let first_ok = p2.iter().find(|s| s.outcome() == SendOutcome::Ok);
    cx.within("P2's first successful send", first_ok.map(|s| s.finished()), 131_003, 132_100);
}

/// The lines of brokers creating NewTopic from TBW102.
fn creations<'a>(cx: &Ctx<'a>) -> Vec<&'a TraceEntry> {
    cx.sim
        .trace()
        .iter()
        .filter(|e| e.text().starts_with("Create new topic by default topic:[TBW102] config:[NewTopic]"))
        .collect()
}

#[test]
fn s10_auto_created_topic_lands_on_one_broker() {
    let cx = Ctx::of("S10");
    // The first send (49) finds no route for NewTopic and falls back to TBW102, on both brokers.
    cx.first_within("P1", TraceKind::RouteNotFound, "get Topic [NewTopic]", secs(49), 49_002, 49_006);
    let provisional = cx.first_within("P1", TraceKind::RouteUpdated, "Topic = NewTopic", secs(49), 49_004, 49_012);
    cx.ensure(
        provisional.text().contains(BROKER_A) && provisional.text().contains(BROKER_B),
        Some(provisional.at()),
        || "the TBW102 route names both brokers".into(),
    );
    // One broker creates the topic and re-registers at once.
    let created = creations(&cx);
    cx.ensure(created.len() == 1, None, || format!("topic created {} times", created.len()));
    let (broker, at) = (cx.sim.directory().name(created[0].node()).to_owned(), created[0].at().as_millis());
    for ns in ["NS-1", "NS-2"] {
        let line =
            cx.first_within(ns, TraceKind::TopicChanged, "new topic registered, NewTopic", secs(49), at + 1, at + 3);
        cx.ensure(line.text().contains(&format!("brokerName={broker},")), Some(line.at()), || {
            "on the creating broker".into()
        });
    }
    // The next poll (64.01) pins every later send to that broker.
    let pinned = cx.first_within("P1", TraceKind::RouteUpdated, "Topic = NewTopic", secs(50), 64_012, 64_016);
    let other = if broker == "broker-a" { "broker-b" } else { "broker-a" };
    cx.ensure(!pinned.text().contains(&format!("{other} ")), Some(pinned.at()), || {
        format!("route still names {other}")
    });
    let group = cx.group(&broker);
    let later = cx.sends("P1").into_iter().filter(|s| s.started() > pinned.at()).collect::<Vec<_>>();
    cx.ensure(
        !later.is_empty() && later.iter().all(|s| s.outcome() == SendOutcome::Ok && s.attempts()[0].group() == group),
        None,
        || format!("later sends: {later:?}"),
    );
    cx.first_within(
        "C1",
        TraceKind::RouteUpdated,
        &format!("queueDatas=[{broker} r4/w4 RW]]"),
        secs(50),
        66_012,
        66_016,
    );
}

#[test]
fn s10_burst_lands_the_topic_on_both_brokers() {
    let cx = Ctx::of("S10-burst");
    // Five sends at 4.5 rotate through the provisional route's 8 queues: both brokers create
    // NewTopic and register it at once.
    cx.first_within("P1", TraceKind::Fault, "send P1 5", secs(4), 4_500, 4_500);
    let created = creations(&cx);
    let brokers: Vec<&str> = created.iter().map(|e| cx.sim.directory().name(e.node())).collect();
    cx.ensure(
        brokers.len() == 2 && brokers.contains(&"broker-a") && brokers.contains(&"broker-b"),
        Some(secs(5)),
        || format!("NewTopic created on {brokers:?}"),
    );
    cx.ensure(created.iter().all(|e| e.at() < secs(5)), Some(secs(5)), || "both in the first second".into());
    let burst: Vec<_> =
        cx.sends("P1").into_iter().filter(|s| s.started() >= ms(4_500) && s.started() < secs(5)).collect();
    cx.ensure(burst.len() == 5 && burst.iter().all(|s| s.outcome() == SendOutcome::Ok), Some(secs(5)), || {
        format!("the burst: {burst:?}")
    });
    cx.ensure(burst.windows(2).all(|w| w[1].started() >= w[0].finished()), Some(secs(5)), || {
        "one send after another".into()
    });
    for ns in ["NS-1", "NS-2"] {
        for broker in ["broker-a", "broker-b"] {
            let line =
                cx.first(ns, TraceKind::TopicChanged, &format!("NewTopic QueueData [brokerName={broker},"), secs(4));
            cx.ensure(line.is_some_and(|e| e.at() < secs(5)), Some(secs(5)), || {
                format!("{ns} has NewTopic on {broker}")
            });
        }
    }
    // P1's next poll (34.01) brings the real route: both brokers, and later sends use both.
    let route = cx.first_within("P1", TraceKind::RouteUpdated, "Topic = NewTopic", secs(5), 34_012, 34_016);
    cx.ensure(route.text().contains("queueDatas=[broker-a r4/w4 RW; broker-b r4/w4 RW]"), Some(route.at()), || {
        format!("the route holds both brokers: {}", route.text())
    });
    let c1 = cx.first("C1", TraceKind::RouteUpdated, "Topic = NewTopic", secs(6));
    cx.ensure(c1.is_some_and(|e| e.text().contains("queueDatas=[broker-a r4/w4 RW; broker-b r4/w4 RW]")), None, || {
        "C1's route holds both brokers".into()
    });
}
