//! The cluster simulation against TEACHING.md, S1–S2: registration, discovery, and no route
//! info until a broker registers.
//!
//! Tolerance. One-way latency is 2 ms ± 1 ms, drawn from the seeded PRNG, so a time that
//! TEACHING.md gives as "≈t" for something that happens `n` network hops after an exact
//! instant `t` (a timer, a scan, a script action) is asserted inside
//! `[t + n·1 ms, t + n·3 ms]`: exact to the millisecond up to the jitter, and no looser.
//! Timers, scans and timeouts carry no jitter and are asserted to the millisecond.

use crate::common;

use nameserver_sim::{SendOutcome, Sim, TimerKind, TraceKind, built_in, observe};

use common::sim::*;

// ---------------------------------------------------------------------------------------------
// S1–S6: the times TEACHING.md lists

#[test]
fn s1_registration_and_discovery() {
    let cx = Ctx::of("S1");
    // NS-2 is down when the brokers start: their first registrations to it are refused.
    for broker in ["broker-a", "broker-a-s", "broker-b"] {
        let refused =
            cx.first(broker, TraceKind::RegisterFailed, "10.0.0.2:9876: connect to 10.0.0.2:9876 failed", ms(0));
        cx.ensure(refused.is_some_and(|e| e.at() < secs(3)), Some(secs(3)), || format!("{broker}: start-up refusal"));
    }
    // NS-2 is empty until the first periodic registration at ≈11.
    let first_on_ns2 = cx.first_within("NS-2", TraceKind::Registered, "", ms(0), 11_001, 11_003);
    cx.ensure(first_on_ns2.text().contains("10.0.1.1:10911"), Some(secs(12)), || "broker-a is first on NS-2".into());
    cx.first_within("NS-2", TraceKind::Registered, "10.0.1.2:10911", ms(0), 11_501, 11_503);
    cx.first_within("NS-2", TraceKind::Registered, "10.0.1.3:10911", ms(0), 12_001, 12_003);
    // NS-1 had them from their start.
    cx.first_within("NS-1", TraceKind::Registered, "10.0.1.1:10911", ms(0), 1_001, 1_003);
    cx.first_within("NS-1", TraceKind::Registered, "10.0.1.3:10911", ms(0), 2_001, 2_003);

    // Registrations go broker → NameServer every 30 s: 11, 41, 71, … (answered within a round trip).
    for (broker, first) in [("broker-a", 11_000), ("broker-a-s", 11_500), ("broker-b", 12_000)] {
        let oks = cx.lines(broker, TraceKind::RegisterOk, "");
        for k in 0..9 {
            let sent = first + k * 30_000;
            for ns in ["10.0.0.1:9876", "10.0.0.2:9876"] {
                let ok = oks.iter().any(|e| e.text().contains(ns) && e.at() >= ms(sent + 2) && e.at() <= ms(sent + 6));
                cx.ensure(ok, Some(ms(sent + 6)), || format!("{broker} registration at {} to {ns}", ms(sent)));
            }
        }
        let next = cx.sim.timer_of(cx.node(broker), TimerKind::Register);
        cx.ensure(next == Some(ms(first + 10 * 30_000)), None, || format!("{broker}: next registration {next:?}"));
    }
    // NameServers never open a connection: not to each other, not to brokers.
    for conn in cx.sim.net().conns().values() {
        let client = cx.sim.directory().roles()[usize::from(conn.client().0)];
        cx.ensure(client != nameserver_sim::Role::NameServer, None, || "a NameServer opened a connection".into());
    }

    // P1 (bound to NS-1) has the full route at ≈4.01; C1 (bound to NS-2) gets TOPIC_NOT_EXIST at
    // 6.01 and its first route only at its 36.01 poll.
    let full = "queueDatas=[broker-a r4/w4 RW; broker-b r4/w4 RW]";
    cx.first_within("P1", TraceKind::RouteUpdated, full, ms(0), 4_012, 4_016);
    cx.first_within("C1", TraceKind::RouteNotFound, "get Topic [TopicTest]", ms(0), 6_012, 6_016);
    let c1_route = cx.first_within("C1", TraceKind::RouteUpdated, "", ms(0), 36_012, 36_016);
    cx.ensure(c1_route.text().contains(full), Some(secs(37)), || "C1's first route is the full one".into());
    cx.ensure(cx.sim.timer_of(cx.node("P1"), TimerKind::RoutePoll) == Some(ms(304_010)), None, || {
        "P1 polls at 4.01 + 30k".into()
    });
    cx.ensure(cx.sim.timer_of(cx.node("C1"), TimerKind::RoutePoll) == Some(ms(306_010)), None, || {
        "C1 polls at 6.01 + 30k".into()
    });

    // Sends rotate through the 8 queues a0–a3, b0–b3.
    let queues: std::collections::BTreeSet<String> = cx
        .lines("P1", TraceKind::SendOk, "")
        .iter()
        .filter(|e| e.at() < secs(75))
        .filter_map(|e| {
            e.text().split("messageQueue=MessageQueue [").nth(1).map(|q| q.split(']').next().unwrap_or("").to_owned())
        })
        .collect();
    cx.ensure(queues.len() == 8, Some(secs(75)), || format!("P1 used {} queues: {queues:?}", queues.len()));
    cx.ensure(cx.sends("P1").iter().all(|s| s.outcome() == SendOutcome::Ok && s.attempts().len() == 1), None, || {
        "every S1 send succeeds at once".into()
    });

    // Scans every 10 s (NS-1 at 5, 15, …; NS-2 at 8, 18, …) and nothing is ever removed.
    for (ns, first) in [("NS-1", 5_000), ("NS-2", 8_000)] {
        let scans: Vec<u64> = cx.lines(ns, TraceKind::Scan, "").iter().map(|e| e.at().as_millis()).collect();
        let expected: Vec<u64> = (0..).map(|k| first + k * 10_000).take_while(|t| *t <= 300_000).collect();
        cx.ensure(scans == expected, None, || format!("{ns} scans at {scans:?}"));
        cx.ensure(cx.lines(ns, TraceKind::Scan, " 0 expired").len() == scans.len(), None, || {
            "a scan expired something".into()
        });
    }
    for kind in [TraceKind::Unregistered, TraceKind::Expired, TraceKind::ChannelIdle, TraceKind::ChannelClosed] {
        cx.ensure(cx.sim.trace().iter().all(|e| e.kind() != kind), None, || format!("S1 has a {} line", kind.name()));
    }
    cx.ensure(observe::stale_windows(cx.sim).iter().all(|w| w.to().is_some()), None, || {
        "a client is stale at the end".into()
    });
}

#[test]
fn s2_no_route_info_until_a_broker_registers() {
    let cx = Ctx::of("S2");
    cx.first_within("P1", TraceKind::RouteNotFound, "get Topic [TopicTest]", ms(0), 4_012, 4_016);
    // t = 5 … 20: each send asks on demand (topic, then TBW102), both fail, and the send fails
    // at once with "No route info" without touching a broker.
    let sends = cx.sends("P1");
    for t in 5..=20u64 {
        let send = sends.iter().find(|s| s.started() == secs(t));
        let ok = send.is_some_and(|s| {
            s.outcome() == SendOutcome::Failed && s.attempts().is_empty() && s.finished() <= ms(t * 1000 + 12)
        });
        cx.ensure(ok, Some(secs(t)), || format!("the send at {t} s: {send:?}"));
        let from = secs(t);
        cx.first_within("P1", TraceKind::RouteNotFound, "[TopicTest]", from, t * 1000 + 2, t * 1000 + 6);
        cx.first_within("P1", TraceKind::RouteNotFound, "[TBW102]", from, t * 1000 + 4, t * 1000 + 12);
        cx.first_within(
            "P1",
            TraceKind::SendFailed,
            "No route info of this topic: TopicTest",
            from,
            t * 1000 + 4,
            t * 1000 + 12,
        );
    }
    // broker-a registers at ≈20.0 and the send at 21 succeeds.
    cx.first_within("NS-1", TraceKind::Registered, BROKER_A, ms(0), 20_011, 20_013);
    let first_ok = sends.iter().find(|s| s.outcome() == SendOutcome::Ok);
    cx.ensure(first_ok.is_some_and(|s| s.started() == secs(21) && s.finished() <= ms(21_012)), Some(secs(22)), || {
        format!("first successful send: {first_ok:?}")
    });
    cx.ensure(sends.iter().filter(|s| s.started() > secs(21)).all(|s| s.outcome() == SendOutcome::Ok), None, || {
        "a send after 21 failed".into()
    });
    // From then on P1 queries no more per send: the next query is the 34.01 poll, which adds broker-b.
    let mut sim = Sim::new(&built_in("S2").expect("S2"));
    sim.run_until(ms(21_500));
    let queries = producer(&sim, "P1").client().route_queries();
    sim.run_until(ms(34_009));
    Ctx::new("S2 (to 34.009)", &sim).ensure(producer(&sim, "P1").client().route_queries() == queries, None, || {
        "P1 queried between 21.5 and 34".into()
    });
    sim.run_until(ms(34_020));
    Ctx::new("S2 (to 34.020)", &sim)
        .ensure(producer(&sim, "P1").client().route_queries() == queries + 1, None, || "P1's 34.01 poll".into());
    let route = cx.first_within("P1", TraceKind::RouteUpdated, "", secs(22), 34_012, 34_016);
    cx.ensure(route.text().contains(BROKER_B), Some(secs(35)), || "the poll brings broker-b".into());
}
