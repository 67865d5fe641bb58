//! The cluster simulation against TEACHING.md, S3–S5: how fast a stopped, killed or silent
//! broker leaves the NameServers and the clients.
//!
//! Tolerance. One-way latency is 2 ms ± 1 ms, drawn from the seeded PRNG, so a time that
//! TEACHING.md gives as "≈t" for something that happens `n` network hops after an exact
//! instant `t` (a timer, a scan, a script action) is asserted inside
//! `[t + n·1 ms, t + n·3 ms]`: exact to the millisecond up to the jitter, and no looser.
//! Timers, scans and timeouts carry no jitter and are asserted to the millisecond.

use crate::common;

use nameserver_sim::{Failure, Scenario, SendOutcome, SendRecord, Sim, TimerKind, TraceKind, built_in_text, observe};

use common::sim::*;

// ---------------------------------------------------------------------------------------------
// S1–S6: the times TEACHING.md lists

/// S3 and S4: the NameServers learn within milliseconds; P1 only at its 64.01 poll.
fn assert_fast_removal(id: &'static str, action: &str, via: TraceKind) {
    let cx = Ctx::of(id);
    let m = cx.measurement(action);
    let ns1 = cx.within("NS-1 drops broker-b", cx.ns_removal(&m, "NS-1"), 50_001, 50_003);
    cx.within("NS-2 drops broker-b", cx.ns_removal(&m, "NS-2"), 50_001, 50_003);
    for ns in ["NS-1", "NS-2"] {
        let removed = cx.first_within(ns, TraceKind::Unregistered, BROKER_B, secs(50), 50_001, 50_003);
        let cause = cx.first(ns, via, "", secs(50));
        cx.ensure(cause.is_some_and(|c| c.at() == removed.at()), Some(removed.at()), || {
            format!("{ns} removal comes from {via:?}")
        });
    }
    let p1 = cx.within("P1 drops broker-b at its 64.01 poll", cx.client_update(&m, "P1"), 64_012, 64_016);
    let c1 = cx.within("C1 drops broker-b at its 66.01 poll", cx.client_update(&m, "C1"), 66_012, 66_016);
    cx.first_within("C1", TraceKind::Rebalance, "pull from [broker-a]", secs(50), c1.as_millis(), c1.as_millis());
    // The stale window of P1: from NS-1's removal to its poll, ≈14 s.
    let windows = observe::stale_windows(cx.sim);
    let window = windows.iter().find(|w| w.client() == cx.node("P1") && w.from() >= secs(50));
    cx.ensure(window.is_some_and(|w| w.from() == ns1 && w.to() == Some(p1)), Some(p1), || {
        format!("P1 stale window {window:?}")
    });
    cx.within("stale window length", Some(ms(p1.as_millis() - ns1.as_millis())), 14_009, 14_015);
    // 0 lost sends; the ones that picked broker-b fail fast and are retried on broker-a in the same call.
    cx.ensure(m.sends_failed() == 0 && m.sends_indeterminate() == 0, None, || format!("lost sends: {m:?}"));
    cx.ensure((1..=8).contains(&m.sends_retried()), None, || format!("retried sends: {}", m.sends_retried()));
    let (a, b) = (cx.group("broker-a"), cx.group("broker-b"));
    for send in cx.sends("P1").into_iter().filter(|s| s.started() >= secs(50)) {
        let hits_b = send.attempts().iter().any(|x| x.group() == b);
        cx.ensure(!hits_b || send.started() < p1, Some(send.started()), || {
            format!("broker-b attempt after P1 dropped it: {send:?}")
        });
        if hits_b {
            let shape = send.attempts().len() == 2
                && send.attempts()[0].group() == b
                && send.attempts()[0].failure() == Some(Failure::ConnectFailed)
                && send.attempts()[1].group() == a
                && send.attempts()[1].failure().is_none()
                && send.outcome() == SendOutcome::Ok;
            cx.ensure(shape, Some(send.finished()), || format!("retried send: {send:?}"));
        }
    }
}

#[test]
fn s3_graceful_shutdown_unregisters_at_once() {
    assert_fast_removal("S3", "shutdown broker-b", TraceKind::Unregistered);
    let cx = Ctx::of("S3");
    for ns in ["10.0.0.1:9876", "10.0.0.2:9876"] {
        cx.first_within(
            "broker-b",
            TraceKind::Info,
            &format!("unregisterBroker OK, NamesrvAddr: {ns}"),
            secs(50),
            50_002,
            50_006,
        );
    }
    cx.first_within("broker-b", TraceKind::Lifecycle, "exited after graceful shutdown", secs(50), 50_002, 50_010);
    cx.ensure(cx.sim.trace().iter().all(|e| e.kind() != TraceKind::ChannelClosed), None, || {
        "the unregistration, not the close, removes broker-b".into()
    });
}

#[test]
fn s4_kill_closes_the_channel_and_removes_at_once() {
    assert_fast_removal("S4", "kill broker-b", TraceKind::ChannelClosed);
    let cx = Ctx::of("S4");
    for ns in ["NS-1", "NS-2"] {
        let closed = cx.first(ns, TraceKind::ChannelClosed, "", secs(50));
        cx.ensure(closed.is_some_and(|e| e.text().contains("clean it's data structure at once")), None, || {
            "wording".into()
        });
    }
    cx.ensure(cx.lines("broker-b", TraceKind::Info, "unregisterBroker").is_empty(), None, || {
        "kill -9 sends nothing".into()
    });
}

#[test]
fn s5_silent_failure_takes_the_idle_path() {
    let cx = Ctx::of("S5");
    // broker-b's last registration before the freeze: sent at 72.000, answered ≈72.004.
    let last = cx.lines("broker-b", TraceKind::RegisterOk, "").into_iter().rfind(|e| e.at() < secs(75));
    cx.within("broker-b's last registration round trip", last.map(|e| e.at()), 72_002, 72_006);
    let m = cx.measurement("freeze broker-b");
    let mut removals = Vec::new();
    for ns in ["NS-1", "NS-2"] {
        let at = cx.within(&format!("{ns} removal"), cx.ns_removal(&m, ns), 192_001, 192_003);
        let idle = cx.first(ns, TraceKind::ChannelIdle, "NETTY SERVER PIPELINE: IDLE exception", secs(75));
        cx.ensure(idle.is_some_and(|e| e.at() == at), Some(at), || format!("{ns}: the idle close removes broker-b"));
        removals.push(at);
        // ≈117 s from the freeze to the NameServer.
        cx.within("freeze → NameServer", Some(ms(at.as_millis() - 75_000)), 117_001, 117_003);
    }
    cx.ensure(cx.sim.trace().iter().all(|e| e.kind() != TraceKind::Expired), None, || {
        "the scan never gets to it".into()
    });
    // P1's 184.01 poll still sees broker-b; its 214.01 poll drops it (≈139 s after the freeze).
    let p1 = cx.within("P1 drops broker-b", cx.client_update(&m, "P1"), 214_012, 214_016);
    cx.within("C1 drops broker-b", cx.client_update(&m, "C1"), 216_012, 216_016);
    cx.ensure(
        cx.lines("P1", TraceKind::RouteUpdated, "").iter().all(|e| e.at() < secs(75) || e.at() == p1),
        Some(p1),
        || "P1's route changes only at 214.01".into(),
    );
    // The STALE badge: from ≈192.0 to 214.01.
    let window =
        observe::stale_windows(cx.sim).into_iter().find(|w| w.client() == cx.node("P1") && w.from() > secs(75));
    cx.ensure(window.as_ref().is_some_and(|w| w.from() == removals[0] && w.to() == Some(p1)), Some(p1), || {
        format!("P1 stale window {window:?}")
    });
    // Every send routed to broker-b in 75–214 blocks for the whole 3000 ms, then fails with no retry.
    let b = cx.group("broker-b");
    let to_b: Vec<&SendRecord> = cx
        .sends("P1")
        .into_iter()
        .filter(|s| {
            s.started() >= secs(75) && s.started() <= p1 && s.attempts().first().is_some_and(|a| a.group() == b)
        })
        .collect();
    cx.ensure(to_b.first().is_some_and(|s| s.started() <= secs(79)), Some(secs(80)), || {
        "first send to broker-b".into()
    });
    let mut timed_out = 0;
    for s in &to_b {
        match s.attempts()[0].failure() {
            Some(Failure::Timeout) => {
                timed_out += 1;
                let shape = s.attempts().len() == 1
                    && s.finished().as_millis() - s.started().as_millis() == 3000
                    && s.outcome() == SendOutcome::Indeterminate;
                cx.ensure(shape, Some(s.finished()), || format!("a timed-out send: {s:?}"));
            }
            // P1's heartbeat to broker-b timing out closes the channel under a send in flight
            // (clientCloseSocketIfTimeout): that send fails fast and is retried on broker-a.
            Some(Failure::Closed) => {
                let at = s.attempts()[1.min(s.attempts().len() - 1)].at();
                let heartbeat =
                    cx.lines("P1", TraceKind::Info, "send heart beat to broker[broker-b").iter().any(|e| e.at() == at);
                cx.ensure(heartbeat && s.outcome() == SendOutcome::Ok, Some(at), || format!("a closed send: {s:?}"));
            }
            _ => cx.fail(Some(s.finished()), &format!("a send to a frozen broker: {s:?}")),
        }
    }
    cx.ensure(timed_out >= 25 && timed_out + 3 >= to_b.len(), Some(p1), || {
        format!("{timed_out} of {} timed out", to_b.len())
    });
    cx.ensure(m.sends_failed() == 0 && m.sends_indeterminate() == timed_out as u32, None, || format!("{m:?}"));
    // P1's heartbeats to broker-b fail while its route still lists broker-b.
    let beat = cx.first("P1", TraceKind::Info, "send heart beat to broker[broker-b", secs(75));
    cx.ensure(beat.is_some_and(|e| e.at() < p1), Some(p1), || "P1's heartbeat failures".into());
}

#[test]
fn s5_scan_only_removes_at_the_scans() {
    let cx = Ctx::of("S5-scan-only");
    let m = cx.measurement("freeze broker-b");
    for (ns, at) in [("NS-1", 195_000), ("NS-2", 198_000)] {
        cx.within(&format!("{ns} removal"), cx.ns_removal(&m, ns), at, at);
        let expired = cx.first_within(ns, TraceKind::Expired, BROKER_B, secs(75), at, at);
        cx.ensure(
            expired.text().starts_with("The broker channel expired") && expired.text().ends_with("120000ms"),
            None,
            || format!("wording: {}", expired.text()),
        );
    }
    cx.ensure(cx.sim.trace().iter().all(|e| e.kind() != TraceKind::ChannelIdle), None, || "idle is off".into());
    cx.within("P1 drops broker-b", cx.client_update(&m, "P1"), 214_012, 214_016);
}

/// The idle close follows `serverChannelMaxIdleTimeSeconds`: 60 s removes broker-b 60 s after
/// its channel last carried something; 0 turns the idle close off, as `idle off` does.
#[test]
fn s5_idle_close_follows_server_channel_max_idle_time_seconds() {
    let base = built_in_text("S5").expect("S5");
    let text = format!("{base}\nnamesrv serverChannelMaxIdleTimeSeconds 60");
    let scenario = Scenario::parse(&text).expect("parses");
    assert_eq!(Scenario::parse(&scenario.to_text()).as_ref(), Ok(&scenario), "the key survives the text form");
    let sim = simulate_checked("S5 idle 60 s", &scenario, secs(220));
    let cx = Ctx::new("S5 idle 60 s", &sim);
    let m = cx.measurement("freeze broker-b");
    for ns in ["NS-1", "NS-2"] {
        // The channel last carried the 72.00x registration and its answer.
        let at = cx.within(&format!("{ns} removal"), cx.ns_removal(&m, ns), 132_001, 132_003);
        let idle = cx.first(ns, TraceKind::ChannelIdle, "NETTY SERVER PIPELINE: IDLE exception", secs(75));
        cx.ensure(idle.is_some_and(|e| e.at() == at), Some(at), || format!("{ns}: the idle close removes broker-b"));
    }
    let off = Scenario::parse(&format!("{base}\nnamesrv serverChannelMaxIdleTimeSeconds 0")).expect("parses");
    let sim = simulate_checked("S5 idle 0", &off, secs(220));
    let cx = Ctx::new("S5 idle 0", &sim);
    let m = cx.measurement("freeze broker-b");
    // As S5-scan-only: the scans at 195 and 198 s remove it.
    for (ns, at) in [("NS-1", 195_000), ("NS-2", 198_000)] {
        cx.within(&format!("{ns} removal"), cx.ns_removal(&m, ns), at, at);
    }
    cx.ensure(cx.sim.trace().iter().all(|e| e.kind() != TraceKind::ChannelIdle), None, || "idle is off".into());
}

#[test]
fn namesrv_lines_reject_unknown_keys_and_bad_values() {
    let err = Scenario::parse("namesrv serverChannelMaxIdleTime 60").expect_err("misspelt key");
    assert!(err.message.contains("not a NameServer configuration key"), "{err}");
    let err = Scenario::parse("namesrv serverChannelMaxIdleTimeSeconds soon").expect_err("bad value");
    assert!(err.message.contains("serverChannelMaxIdleTimeSeconds"), "{err}");
    let err = Scenario::parse("namesrv serverChannelMaxIdleTimeSeconds").expect_err("no value");
    assert!(err.message.contains("needs more arguments"), "{err}");
}

#[test]
fn s5_phase_earlier_freeze_is_detected_30s_earlier() {
    let cx = Ctx::of("S5-phase");
    let last = cx.lines("broker-b", TraceKind::RegisterOk, "").into_iter().rfind(|e| e.at() < ms(71_900));
    cx.within("last registration before 71.9", last.map(|e| e.at()), 42_002, 42_006);
    let m = cx.measurement("freeze broker-b");
    let ns1 = cx.within("NS-1 removal", cx.ns_removal(&m, "NS-1"), 162_001, 162_003);
    cx.within("NS-2 removal", cx.ns_removal(&m, "NS-2"), 162_001, 162_003);
    cx.within("P1 drops broker-b", cx.client_update(&m, "P1"), 184_012, 184_016);
    let s5 = Ctx::of("S5");
    let late = s5.ns_removal(&s5.measurement("freeze broker-b"), "NS-1").expect("S5 removes");
    cx.within("0.2 s earlier → 30 s earlier", Some(ms(late.as_millis() - ns1.as_millis())), 29_998, 30_002);
    // The scan-only variant of the phase experiment: NS-1 at its 165 s scan, NS-2 at 168.
    let text = format!("{}\nidle off", built_in_text("S5-phase").expect("S5-phase"));
    let sim = simulate_checked("S5-phase scan-only", &Scenario::parse(&text).expect("parses"), secs(200));
    let cx = Ctx::new("S5-phase scan-only", &sim);
    let m = cx.measurement("freeze broker-b");
    cx.within("NS-1 removal", cx.ns_removal(&m, "NS-1"), 165_000, 165_000);
    cx.within("NS-2 removal", cx.ns_removal(&m, "NS-2"), 168_000, 168_000);
}

/// With `needWaitForService` the NameServer's timer is its `poll_timeout`: the wait's end
/// comes before the first scan, wakes it without a scan line, and the scans keep their times.
#[test]
fn the_nameservers_timer_wakes_it_at_the_end_of_the_wait_for_service() {
    let base = built_in_text("S1").expect("S1");
    let text = format!("{base}\nnamesrv needWaitForService true\nnamesrv waitSecondsForService 3");
    let mut sim = Sim::new(&Scenario::parse(&text).expect("parses"));
    let ns = sim.directory().nameservers()[0];
    sim.run_until(ms(1));
    let start = sim.nodes()[usize::from(ns.0)].started_at().expect("started");
    assert_eq!(sim.timer_of(ns, TimerKind::Scan), Some(start + std::time::Duration::from_secs(3)));
    sim.run_until(start + std::time::Duration::from_millis(3_001));
    assert_eq!(sim.timer_of(ns, TimerKind::Scan), Some(start + std::time::Duration::from_secs(5)));
    let scans = |sim: &Sim| sim.trace().iter().filter(|e| e.node() == ns && e.kind() == TraceKind::Scan).count();
    assert_eq!(scans(&sim), 0, "the wait's end is not a scan");
    sim.run_until(start + std::time::Duration::from_secs(5));
    assert_eq!(scans(&sim), 1, "the first scan at 5 s");
}
