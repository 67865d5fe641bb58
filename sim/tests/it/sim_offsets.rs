//! The cluster simulation's consumer offsets: committed on the brokers, resumed from after a
//! rebalance or a restart, consumed again only where RocketMQ would (a consumer killed
//! between consuming and committing); clients killed, restarted and shut down; burst sends.

use crate::common;

use nameserver_sim::view::ConsumerInfo;
use nameserver_sim::{Action, Actor, GroupId, Scenario, Sim, StartFrom, TraceKind, built_in, built_in_text};

use common::sim::*;

/// `S1` plus script lines, simulated (with the invariants checked) to `until` seconds.
fn s1_with(script: &str, until: u64) -> Sim {
    let text = format!("{}\n{}", built_in_text("S1").expect("S1"), script.replace("; ", "\n"));
    simulate_checked(script, &Scenario::parse(&text).expect("parses"), secs(until))
}

/// What the running master of `group` holds: each queue's max offset, and the committed
/// offsets of consumer group `cg` on TopicTest.
fn master_of<'s>(sim: &'s Sim, name: &str) -> &'s nameserver_sim::BrokerActor {
    match &sim.nodes()[sim.scenario().node_index(name).expect("node")].actor() {
        Actor::Broker(b) => b,
        other => panic!("{name} is not a running broker: {other:?}"),
    }
}

fn committed(sim: &Sim, broker: &str, queue: i32) -> Option<u64> {
    master_of(sim, broker).offsets().get("TopicTest@CG1").and_then(|q| q.get(&queue)).copied()
}

fn max_offset(sim: &Sim, broker: &str, queue: i32) -> u64 {
    master_of(sim, broker).max_offset(&"TopicTest".into(), queue)
}

/// Every message stored on broker-a and broker-b was consumed exactly once by C1.
fn consumed_exactly_once(cx: &Ctx<'_>) {
    let log = &consumer(cx.sim, "C1").log();
    let mut total = 0;
    for broker in ["broker-a", "broker-b"] {
        let group = cx.group(broker);
        for q in 0..4 {
            let max = max_offset(cx.sim, broker, q);
            total += max;
            let ranges = log.ranges((group, q));
            cx.ensure(ranges == [(0, max)], None, || format!("{broker}:{q} holds {max}, C1 consumed {ranges:?}"));
        }
    }
    let sent = cx.lines("P1", TraceKind::SendOk, "").len() as u64;
    cx.ensure(sent == total && log.consumed() == total && log.duplicates() == 0, None, || {
        format!(
            "P1 sent {sent}, brokers hold {total}, C1 consumed {} with {} duplicates",
            log.consumed(),
            log.duplicates()
        )
    });
}

// ---------------------------------------------------------------------------------------------
// Resuming at the committed offset

#[test]
fn s7_every_message_is_consumed_exactly_once_and_broker_b_resumes_at_its_committed_offsets() {
    let scenario = built_in("S7").expect("S7");
    assert!(
        scenario.script.iter().any(|e| e.at == secs(300) && e.action == Action::Heal("broker-b".into(), "NS-2".into()))
    );
    let cx = Ctx::of("S7");
    assert_eq!(cx.sim.now(), secs(450));
    consumed_exactly_once(&cx);
    // What C1 committed when it dropped broker-b's queues (216.01) is what broker-b holds for
    // CG1 until C1 takes them back (336.01), is everything C1 had consumed of them, and is
    // where its first pull of each after the heal starts.
    let before = fresh(&scenario, secs(335));
    let b = cx.group("broker-b");
    for q in 0..4 {
        let mq = format!("brokerName=broker-b, queueId={q}]");
        let dropped = cx.first(
            "C1",
            TraceKind::Offset,
            &format!(
                "[persist] Group: CG1 ClientId: C1 updateConsumeOffsetToBroker MessageQueue [topic=TopicTest, {mq}"
            ),
            secs(200),
        );
        let at_drop = dropped.and_then(|e| e.text().rsplit(' ').next()?.parse::<u64>().ok());
        let held = committed(&before, "broker-b", q);
        cx.ensure(at_drop.is_some() && held == at_drop, Some(secs(335)), || {
            format!("broker-b:{q}: committed {at_drop:?} at the drop, holds {held:?} at 335 s")
        });
        let offset = at_drop.unwrap_or(0);
        let consumed_then = consumer(&before, "C1").log().ranges((b, q)).to_vec();
        cx.ensure(consumed_then == [(0, offset)], Some(secs(335)), || {
            format!("broker-b:{q}: consumed {consumed_then:?} before the heal, committed {offset}")
        });
        let resume = cx.first("C1", TraceKind::Rebalance, &format!("add a new mq, MessageQueue [topic=TopicTest, {mq}, resume at offset {offset}, the offset committed on broker-b"), secs(300));
        cx.ensure(resume.is_some_and(|e| e.at() >= ms(336_012) && e.at() <= ms(336_030)), Some(secs(337)), || {
            format!("broker-b:{q} resumes at {offset}: {resume:?}")
        });
        let first_pull = cx
            .lines("C1", TraceKind::Pull, "from broker-b")
            .into_iter()
            .filter(|e| e.at() > secs(300))
            .filter_map(pulled)
            .find(|(_, queue, _, _)| *queue == q);
        cx.ensure(first_pull.is_some_and(|(_, _, from, _)| from == offset), Some(secs(337)), || {
            format!("C1's first pull of broker-b:{q} after the heal: {first_pull:?}, committed {offset}")
        });
    }
    // The view the page shows agrees.
    let view = ConsumerInfo::of(cx.sim, cx.node("C1")).expect("C1 is a consumer");
    assert_eq!(view.queues.len(), 8);
    for queue in view.queues.iter().filter(|q| q.broker == "broker-b") {
        assert_eq!(queue.from, Some(StartFrom::Committed.name()), "{queue:?}");
        assert_eq!(queue.next_offset, queue.max_offset, "caught up: {queue:?}");
        assert!(queue.committed_offset.is_some_and(|c| c + 1 >= queue.max_offset.unwrap_or(0)), "{queue:?}");
    }
    assert_eq!((view.consumed, view.duplicates), (consumer(cx.sim, "C1").log().consumed(), 0));
}

#[test]
fn without_faults_nothing_is_consumed_twice() {
    for id in ["S1", "S3", "S5"] {
        let cx = Ctx::of(id);
        let log = &consumer(cx.sim, "C1").log();
        cx.ensure(log.duplicates() == 0 && log.consumed() > 100, None, || format!("{id}: {log:?}"));
        cx.ensure(cx.lines("C1", TraceKind::Offset, "consumed again").is_empty(), None, || "no duplicate lines".into());
    }
    consumed_exactly_once(&Ctx::of("S1"));
}

#[test]
fn committed_offsets_follow_consumption_within_one_persist_period() {
    // The 5 s persist (from 16 s, every 5 s) commits what was consumed; in between, pulls to a
    // master commit one batch behind.
    let cx = Ctx::of("S1");
    let persists: Vec<u64> =
        cx.lines("C1", TraceKind::Offset, "[persistAll]").iter().map(|e| e.at().as_millis()).collect();
    cx.ensure(persists.first() == Some(&41_000) && persists.iter().all(|t| (t - 41_000) % 5_000 == 0), None, || {
        format!("persist lines at {persists:?}")
    });
    let sim = fresh(&built_in("S1").expect("S1"), ms(150_500));
    let c1 = consumer(&sim, "C1");
    for ((group, q), state) in c1.assigned() {
        let broker = if *group == GroupId(0) { "broker-a" } else { "broker-b" };
        let held = committed(&sim, broker, *q).unwrap_or(0);
        Ctx::new("S1 at 150.5 s", &sim).ensure(held <= state.consumed() && state.consumed() - held <= 1, None, || {
            format!("{broker}:{q}: consumed {} but committed {held}", state.consumed())
        });
    }
}

// ---------------------------------------------------------------------------------------------
// Killing, restarting and shutting down clients

#[test]
fn a_consumer_killed_between_consuming_and_committing_consumes_again_after_restart() {
    let script = "at 103.5 kill C1; at 120 restart C1";
    let at_kill = s1_with("at 103.5 kill C1", 104);
    // What C1 consumed beyond what the brokers hold as committed is what it will consume again.
    let log = at_kill.nodes()[at_kill.scenario().node_index("C1").expect("C1")].actor().clone();
    assert!(matches!(log, Actor::None), "C1 is dead");
    let mut expected = 0;
    let text = format!("{}\nat 103.5 kill C1", built_in_text("S1").expect("S1"));
    let mut before = Sim::new(&Scenario::parse(&text).expect("parses"));
    before.run_until(ms(103_499));
    let consumed = consumer(&before, "C1").log().clone();
    for (broker, group) in [("broker-a", GroupId(0)), ("broker-b", GroupId(1))] {
        for q in 0..4 {
            let upto = consumed.ranges((group, q)).last().map_or(0, |r| r.1);
            expected += upto - committed(&at_kill, broker, q).unwrap_or(0);
        }
    }
    assert!(expected > 0, "C1 had consumed messages it had not committed yet");

    let sim = s1_with(script, 180);
    let cx = Ctx::new(script, &sim);
    cx.first_within("C1", TraceKind::Lifecycle, "C1: process gone", secs(103), 103_500, 103_500);
    cx.first_within("C1", TraceKind::Lifecycle, "consumer started", secs(119), 120_000, 120_000);
    let resumed =
        cx.lines("C1", TraceKind::Rebalance, "resume at offset").into_iter().filter(|e| e.at() > secs(120)).count();
    cx.ensure(resumed == 8, Some(secs(121)), || format!("{resumed} queues resume at committed offsets"));
    let again: Vec<u64> = cx
        .lines("C1", TraceKind::Offset, "consumed again after restart: ")
        .iter()
        .filter_map(|e| number_after(e.text(), "consumed again after restart: "))
        .collect();
    let log = &consumer(&sim, "C1").log();
    cx.ensure(again.iter().sum::<u64>() == expected && log.duplicates() == expected, Some(secs(121)), || {
        format!("expected {expected} duplicates; lines say {again:?}, the log {}", log.duplicates())
    });
    // Nothing is lost: every message is consumed at least once.
    for (broker, group) in [("broker-a", GroupId(0)), ("broker-b", GroupId(1))] {
        for q in 0..4 {
            let max = max_offset(&sim, broker, q);
            cx.ensure(log.ranges((group, q)) == [(0, max)], None, || {
                format!("{broker}:{q}: {:?}", log.ranges((group, q)))
            });
        }
    }
    let view = ConsumerInfo::of(&sim, cx.node("C1")).expect("a consumer");
    assert_eq!((view.consumed, view.duplicates), (log.consumed(), expected));
}

#[test]
fn a_graceful_consumer_shutdown_commits_first_so_a_restart_consumes_nothing_twice() {
    let script = "at 103.5 shutdown C1; at 120 restart C1";
    let sim = s1_with(script, 180);
    let cx = Ctx::new(script, &sim);
    let committed_line = cx.first_within("C1", TraceKind::Offset, "[persistAll]", secs(103), 103_500, 103_500);
    cx.first_within(
        "C1",
        TraceKind::Lifecycle,
        "the consumer [CG1] shutdown OK",
        committed_line.at(),
        103_500,
        103_500,
    );
    cx.first_within(
        "C1",
        TraceKind::Lifecycle,
        "C1: exited after graceful shutdown",
        committed_line.at(),
        103_500,
        103_500,
    );
    // While down, a view still reports what it consumed.
    let down = s1_with("at 103.5 shutdown C1", 110);
    let view = ConsumerInfo::of(&down, Ctx::new("down", &down).node("C1")).expect("a consumer");
    assert!(!view.running && view.queues.is_empty() && view.consumed > 50, "{view:?}");
    // After the restart it resumes exactly where it stopped.
    consumed_exactly_once(&cx);
    cx.ensure(cx.lines("C1", TraceKind::Offset, "consumed again").is_empty(), None, || "no duplicates".into());
}

#[test]
fn a_producer_can_be_killed_restarted_and_shut_down() {
    let script = "at 100.5 kill P1; at 110.2 restart P1; at 150.5 shutdown P1";
    let sim = s1_with(script, 200);
    let cx = Ctx::new(script, &sim);
    cx.first_within("P1", TraceKind::Lifecycle, "P1: process gone", secs(100), 100_500, 100_500);
    cx.first_within("P1", TraceKind::Lifecycle, "producer started", secs(110), 110_200, 110_200);
    cx.first_within("P1", TraceKind::RouteUpdated, "Topic = TopicTest", secs(110), 110_212, 110_216);
    cx.first_within("P1", TraceKind::Lifecycle, "the producer [P1_GROUP] shutdown OK", secs(150), 150_500, 150_500);
    cx.first_within("P1", TraceKind::Lifecycle, "P1: exited after graceful shutdown", secs(150), 150_500, 150_500);
    let started: Vec<u64> = cx.sends("P1").iter().map(|s| s.started().as_millis()).filter(|t| *t > 100_000).collect();
    let expected: Vec<u64> = (111..=150).map(|s| s * 1000 + 200).collect();
    cx.ensure(started == expected, None, || format!("sends after 100 s start at {started:?}"));
    // C1 consumed everything P1 stored, once.
    consumed_exactly_once(&cx);
}

// ---------------------------------------------------------------------------------------------
// Bursts

#[test]
fn a_burst_sends_one_message_after_another_round_the_queues() {
    let sim = s1_with("at 100.5 send P1 5", 110);
    let cx = Ctx::new("burst", &sim);
    cx.first_within("P1", TraceKind::Fault, "send P1 5", secs(100), 100_500, 100_500);
    let burst: Vec<_> =
        cx.sends("P1").into_iter().filter(|s| s.started() >= ms(100_500) && s.started() < secs(101)).collect();
    cx.ensure(burst.len() == 5, Some(secs(101)), || format!("{} sends in the burst", burst.len()));
    cx.ensure(burst.windows(2).all(|w| w[1].started() == w[0].finished()), Some(secs(101)), || "back to back".into());
    // Each picks the next queue, as the periodic sends do: eight queues, a0–a3 then b0–b3.
    let queues: Vec<(String, u64)> = cx
        .lines("P1", TraceKind::SendOk, "")
        .into_iter()
        .filter(|e| e.at() > secs(100) && e.at() < secs(102))
        .map(|e| {
            let broker = if e.text().contains("brokerName=broker-a,") { "a" } else { "b" };
            (broker.to_owned(), number_after(e.text(), "queueId=").unwrap_or(99))
        })
        .collect();
    let index = |(b, q): &(String, u64)| if b == "a" { *q } else { 4 + q };
    cx.ensure(queues.len() == 7 && queues.windows(2).all(|w| (index(&w[0]) + 1) % 8 == index(&w[1])), None, || {
        format!("queues of the 100 s send, the burst and the 101 s send: {queues:?}")
    });
    // The periodic sends keep their rhythm.
    cx.ensure(cx.sends("P1").iter().any(|s| s.started() == secs(101)), None, || "the 101 s send".into());
}

#[test]
fn a_burst_to_a_dead_producer_does_nothing() {
    let sim = s1_with("at 100 kill P1; at 100.5 send P1 3", 105);
    let cx = Ctx::new("burst to a dead producer", &sim);
    cx.first_within("P1", TraceKind::Fault, "send P1 3", secs(100), 100_500, 100_500);
    cx.ensure(cx.sends("P1").iter().all(|s| s.started() < secs(100)), None, || "no send after the kill".into());
}
