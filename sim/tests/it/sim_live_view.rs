//! Live mode's assembly: daemons' `/api/view` answers (recorded from real daemons in
//! `testdata/live/`: `a` with one broker registered, `b` with none, `a-before` just before the
//! registration) into the simulation's `ClusterView`, on the wall clock, with who lacks what.
//! Re-recorded by starting two daemons, registering `broker-a` with the first (as
//! `tests/browser/lib/daemon.mjs` does) and saving their console answers.

use nameserver_core::view::NsTables;
use nameserver_sim::view::{ClusterView, LiveRequest, MissingBroker};
use serde_json::{Value, json};

fn recorded(name: &str) -> Value {
    let path = format!("{}/tests/testdata/live/{name}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).expect("recorded answer")).expect("JSON")
}

fn wall(view: &Value, ms: &str) -> u64 {
    view["wallMs"].as_u64().unwrap() - view["uptimeMs"].as_u64().unwrap() + ms.parse::<u64>().unwrap()
}

/// `a` and `b` both reachable at `a`'s view time, `a`'s registration as a step.
fn request(b_up: bool) -> (LiveRequest, Value, Value) {
    let (a, b) = (recorded("a"), recorded("b"));
    let req = json!({
        "at": a["wallMs"],
        "topic": "TBW102",
        "daemons": [
            {
                "label": "http://a", "up": true, "view": a,
                "route": recorded("a-route-TBW102"), "topics": recorded("a-topics")["topics"],
                "steps": [{ "prev": recorded("a-before"), "view": a, "recent": [] }],
            },
            { "label": "http://b", "up": b_up, "view": b, "route": null, "topics": recorded("b-topics")["topics"] },
        ],
    });
    (serde_json::from_value(req).expect("a live request"), a, b)
}

#[test]
fn two_daemons_become_two_nameservers_and_the_broker_one_lists() {
    let (req, a, b) = request(true);
    let view = ClusterView::live(&req);
    let (na, nb) = (a["address"].as_str().unwrap(), b["address"].as_str().unwrap());
    let nodes: Vec<(&str, &str, &str, &str)> =
        view.nodes.iter().map(|n| (n.name.as_str(), n.role, n.state, n.addr.as_str())).collect();
    assert_eq!(
        nodes,
        [(na, "nameserver", "up", na), (nb, "nameserver", "up", nb), ("broker-a", "broker", "up", "127.0.0.1:31911")]
    );
    assert_eq!((view.nodes[2].group.as_deref(), view.nodes[2].broker_id), (Some("broker-a"), Some(0)));
    assert_eq!(view.time, a["wallMs"].as_u64().unwrap());
    // The tables keep the console's shape, every time moved to the wall clock.
    let tables: NsTables = serde_json::from_value(a.clone()).unwrap();
    let shown = &view.ns[na];
    assert_eq!((shown.brokers.len(), &shown.broker_addr_table), (1, &tables.broker_addr_table));
    let row = &shown.brokers[0];
    assert_eq!(row.last_update, wall(&a, "304"));
    assert_eq!((row.scan_expire_at, row.removal_at), (wall(&a, "125003"), wall(&a, "120313")));
    assert_eq!(row.idle_close_at, Some(wall(&a, "120313")));
    assert_eq!(shown.next_scan_ms, wall(&a, "5003"));
    assert_eq!(view.nodes[0].timers[0].at, wall(&a, "5003"));
    assert!(view.ns[nb].brokers.is_empty());
    // The chosen topic's route where the daemon has one.
    let route = view.routes[na]["TBW102"].as_ref().expect("a's route");
    assert_eq!(route.queue_datas[0].broker_name, "broker-a");
    assert_eq!(route.broker_datas[0].broker_addrs["0"], "127.0.0.1:31911");
    assert_eq!(view.routes[nb]["TBW102"], None);
    // The registration between a's two views, both ways.
    let wire: Vec<(&str, &str, bool, &str, u64)> =
        view.delta.wire.iter().map(|w| (w.from.as_str(), w.to.as_str(), w.response, w.what, w.sent_at)).collect();
    let at = wall(&a, "304");
    assert_eq!(
        wire,
        [("broker-a", na, false, "REGISTER_BROKER", at - 1), (na, "broker-a", true, "REGISTER_BROKER", at)]
    );
}

#[test]
fn the_nameserver_without_the_broker_lacks_it_and_the_topics() {
    let (req, a, b) = request(true);
    let view = ClusterView::live(&req);
    let (na, nb) = (a["address"].as_str().unwrap(), b["address"].as_str().unwrap());
    assert_eq!(view.lacks.brokers.len(), 1, "{:?}", view.lacks);
    let lack = &view.lacks.brokers[0];
    assert_eq!((lack.ns.as_str(), &lack.others), (nb, &vec![na.to_owned()]));
    let missing = MissingBroker {
        name: "broker-a".into(),
        addr: "127.0.0.1:31911".into(),
        last_heard: None,
        freshest: na.into(),
        freshest_heard: wall(&a, "304"),
    };
    assert_eq!(lack.brokers, [missing]);
    assert_eq!(view.lacks.topics.len(), 1);
    let topics = &view.lacks.topics[0];
    assert_eq!((topics.ns.as_str(), topics.other.as_str(), topics.topics.len()), (nb, na, 13));
    // A daemon out of reach is a NameServer that is down: no tables, nothing it lacks.
    let (req, _, _) = request(false);
    let view = ClusterView::live(&req);
    assert_eq!(view.nodes[1].state, "down");
    assert!(!view.ns.contains_key(nb));
    assert_eq!(view.lacks, Default::default());
}

#[test]
fn a_daemon_without_a_view_yet_is_named_by_its_console() {
    let req: LiveRequest = serde_json::from_value(json!({
        "at": 5, "daemons": [{ "label": "http://c", "up": false, "view": null }],
    }))
    .unwrap();
    let view = ClusterView::live(&req);
    assert_eq!((view.nodes[0].name.as_str(), view.nodes[0].state), ("http://c", "down"));
    assert!(view.ns.is_empty() && view.delta.wire.is_empty());
}

#[test]
fn the_simulation_names_what_a_nameserver_lacks_by_the_same_rule() {
    use nameserver_sim::{Timeline, built_in};
    // S7: the link between broker-b and NS-2 is cut silently at 75 s; NS-2 drops broker-b.
    let mut tl = Timeline::new(&built_in("S7").expect("S7"));
    tl.seek(nameserver_core::time::Instant::from_millis(60_000));
    assert_eq!(ClusterView::of(&tl, None).lacks, Default::default());
    tl.seek(nameserver_core::time::Instant::from_millis(240_000));
    let lacks = ClusterView::of(&tl, None).lacks;
    assert_eq!(lacks.brokers.len(), 1, "{lacks:?}");
    let lack = &lacks.brokers[0];
    assert_eq!((lack.ns.as_str(), lack.others.as_slice()), ("NS-2", ["NS-1".to_owned()].as_slice()));
    let names: Vec<&str> = lack.brokers.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["broker-b"]);
    assert_eq!((lack.brokers[0].freshest.as_str(), lack.brokers[0].last_heard), ("NS-1", None));
    assert!(lacks.topics.is_empty(), "the simulation compares no topic lists");
}
