//! The page's one view per frame: the cluster now, and the logs since the caller's cursor
//! (appended only while the branch runs forward; whole, marked `reset`, otherwise).

use crate::common;

use nameserver_core::view::NsTables;
use nameserver_sim::view::{ClusterView, Cursor, SendInfo, TraceEvent, WireEvent};
use nameserver_sim::{Action, Timeline, built_in};

use common::sim::*;

fn whole(tl: &Timeline) -> (Vec<TraceEvent>, Vec<SendInfo>, Vec<WireEvent>) {
    let sim = tl.sim();
    (
        sim.trace().iter().map(|e| TraceEvent::of(sim, e)).collect(),
        sim.history().sends().iter().map(|s| SendInfo::of(sim, s)).collect(),
        sim.history().wire().iter().map(|r| WireEvent::of(sim, r)).collect(),
    )
}

#[test]
fn a_cursor_of_the_branch_at_or_before_now_gets_what_was_appended_since() {
    let mut tl = Timeline::new(&built_in("S5").expect("S5"));
    tl.seek(secs(40));
    let first = ClusterView::of(&tl, None);
    assert!(first.delta.reset, "no cursor: everything");
    assert_eq!((first.delta.trace_from, first.delta.sends_from), (0, 0));
    assert!(first.delta.wire.is_empty(), "a reset shows positions, not motion");
    let (trace, sends, _) = whole(&tl);
    assert_eq!((first.delta.trace.clone(), first.delta.sends.clone()), (trace, sends));

    let held = first.delta.cursor;
    tl.seek(secs(130));
    let next = ClusterView::of(&tl, Some(&held));
    let (trace, sends, wire) = whole(&tl);
    assert!(!next.delta.reset);
    assert_eq!(next.delta.trace_from, held.trace);
    assert_eq!(next.delta.trace, trace[held.trace..]);
    assert_eq!(next.delta.sends_from, held.sends);
    assert_eq!(next.delta.sends, sends[held.sends..]);
    assert!(!next.delta.sends.is_empty() && !next.delta.wire.is_empty(), "S5 sends on");
    assert_eq!(next.delta.wire, wire[held.wire..]);
    assert_eq!(
        next.delta.cursor,
        Cursor { branch: 0, time: 130_000, trace: trace.len(), sends: sends.len(), wire: wire.len() }
    );
    // Nothing new at the same time.
    let again = ClusterView::of(&tl, Some(&next.delta.cursor));
    assert!(!again.delta.reset && again.delta.trace.is_empty() && again.delta.wire.is_empty());
}

#[test]
fn a_cursor_of_a_later_time_or_another_branch_gets_everything_marked_reset() {
    let mut tl = Timeline::new(&built_in("S5").expect("S5"));
    tl.seek(secs(130));
    let late = ClusterView::of(&tl, None).delta.cursor;
    tl.seek(secs(60));
    let back = ClusterView::of(&tl, Some(&late));
    let (trace, sends, _) = whole(&tl);
    assert!(back.delta.reset, "the run went back");
    assert_eq!((back.delta.trace_from, back.delta.trace.len()), (0, trace.len()));
    assert_eq!((back.delta.sends_from, back.delta.sends), (0, sends));
    assert!(back.delta.wire.is_empty());

    let at_60 = back.delta.cursor;
    let fork = tl.fork(false);
    tl.inject(Action::Kill("broker-a".into()));
    let forked = ClusterView::of(&tl, Some(&at_60));
    assert!(forked.delta.reset, "another branch");
    assert_eq!(forked.delta.cursor.branch, fork);
    assert_eq!(forked.branches.iter().filter(|b| b.current).map(|b| b.id).collect::<Vec<_>>(), [fork]);
}

#[test]
fn the_view_holds_each_running_nameservers_tables_as_the_core_reads_them() {
    let mut tl = Timeline::new(&built_in("S5").expect("S5"));
    tl.seek(secs(40));
    let view = ClusterView::of(&tl, None);
    let sim = tl.sim();
    let names: Vec<&str> = view.ns.keys().map(String::as_str).collect();
    assert_eq!(names, ["NS-1", "NS-2"]);
    let ns1 = &view.ns["NS-1"];
    assert!(!ns1.brokers.is_empty(), "brokers registered by 40 s");
    assert!(ns1.brokers.iter().all(|row| row.idle_close_at.is_some()), "S5 closes idle channels: {ns1:?}");
    // It serialises as `/api/view` does and reads back.
    let json = serde_json::to_value(&view).expect("json");
    let back: NsTables = serde_json::from_value(json["ns"]["NS-1"].clone()).expect("NsTables");
    assert_eq!(&back, ns1);
    assert_eq!(view.routes["NS-1"].keys().map(String::as_str).collect::<Vec<_>>(), sim.scenario().topic_names());
    assert!(view.clients.contains_key("P1"));
}

#[test]
fn nameservers_that_both_list_a_broker_heard_at_times_apart_show_a_clock_gap() {
    // S7: the link between broker-b and NS-2 is cut silently at 75 s; both NameServers keep
    // listing broker-b until NS-2's 120 s run out, but only NS-1 hears its registrations.
    let mut tl = Timeline::new(&built_in("S7").expect("S7"));
    tl.seek(secs(70));
    assert!(ClusterView::of(&tl, None).lacks.clocks.is_empty(), "before the cut they hear it together");
    tl.seek(secs(170));
    let view = ClusterView::of(&tl, None);
    assert!(view.lacks.brokers.is_empty(), "the tables still agree: {:?}", view.lacks);
    let gaps = &view.lacks.clocks;
    assert_eq!(gaps.len(), 1, "{gaps:?}");
    let gap = &gaps[0];
    assert_eq!((gap.name.as_str(), gap.stalest.as_str(), gap.freshest.as_str()), ("broker-b", "NS-2", "NS-1"));
    let heard = |ns: &str| view.ns[ns].brokers.iter().find(|r| r.broker_addr == gap.addr).unwrap().last_update;
    assert_eq!((gap.stalest_heard, gap.freshest_heard), (heard("NS-2"), heard("NS-1")));
    assert!(gap.freshest_heard - gap.stalest_heard >= 60_000, "{gap:?}");
}
