//! Routes built lazily: a snapshot's route body is built on the first query after a change,
//! kept within `--route-cache-bytes`, and once evicted built again on its next query, byte
//! for byte the bytes a kept one gives, which are the core's.

use crate::route_fast_path::{config, core_reply, fast_reply, name_server};
use crate::support::route_query;

use nameserver::snapshot::RouteSnapshot;
use nameserver_core::protocol::RemotingCommand;
use nameserver_core::{ConnId, Input, NameServer};
use nameserver_testkit::frames::{self, BrokerSpec};
use proptest::prelude::*;

/// Registers broker `broker` of a fleet with topics `0..topics`, topic `i` with `8 + i % spread`
/// queues (so `spread == topics` gives every topic a route of its own).
fn register(ns: &mut NameServer, broker: usize, topics: usize, spread: usize) {
    register_member(ns, broker, 0, topics, spread);
}

/// [`register`] for member `id` of broker `broker`'s group (0: its master), at an address of
/// its own.
fn register_member(ns: &mut NameServer, broker: usize, id: usize, topics: usize, spread: usize) {
    let body = frames::encode_register_body(&frames::register_body(topics, spread), false);
    let mut spec = BrokerSpec::fleet(broker);
    if id > 0 {
        spec.addr = format!("127.0.0.2:{}", 10_000 + 10 * broker + id);
    }
    let mut cmd = frames::register_command(&spec, &body, false, 1).with_field("brokerId", id.to_string());
    cmd.body = body;
    assert!(core_reply(ns, cmd).is_some(), "registration answered");
}

/// A query for topic `i`: in standard JSON, or as a client before 4.9.4 in fastjson's plain
/// style.
fn query(i: usize, plain: bool) -> RemotingCommand {
    let mut query = route_query(&frames::topic_name(i), 7);
    if plain {
        query.version = 121;
    }
    query
}

/// Asks `snapshot` and the core; asserts the same reply; returns whether a body was built.
fn ask(ns: &mut NameServer, snapshot: &RouteSnapshot, query: &RemotingCommand) -> bool {
    let builds = snapshot.cache_stats().builds;
    let fast = fast_reply(snapshot, query).expect("answered on the connection");
    assert_eq!(fast, core_reply(ns, query.clone()), "{query:?}");
    snapshot.cache_stats().builds > builds
}

/// A NameServer with brokers `0..brokers` registered, each with `topics` topics of `spread`
/// queue counts. (A line of snapshots takes the NameServer's changes: each gets its own.)
fn cluster(brokers: usize, topics: usize, spread: usize) -> NameServer {
    let mut ns = name_server(config());
    for broker in 0..brokers {
        register(&mut ns, broker, topics, spread);
    }
    ns
}

#[test]
fn an_evicted_route_is_answered_byte_for_byte_as_a_kept_one_in_both_styles() {
    let mut ns = cluster(3, 20, 20);
    let roomy = RouteSnapshot::empty().advance(&mut ns).unwrap();
    // Smaller than any body: each is dropped as soon as it has been written out.
    let tiny = RouteSnapshot::with_cache_bytes(1).advance(&mut cluster(3, 20, 20)).unwrap();
    assert_eq!(roomy.cache_stats().builds + tiny.cache_stats().builds, 0, "a registration builds no route");
    for round in 0..2 {
        for i in 0..20 {
            for plain in [false, true] {
                let query = query(i, plain);
                let kept = fast_reply(&roomy, &query);
                let rebuilt = fast_reply(&tiny, &query);
                assert_eq!(kept, rebuilt, "round {round}, {query:?}");
                assert_eq!(kept.unwrap(), core_reply(&mut ns, query), "round {round}");
            }
        }
    }
    let (roomy, tiny) = (roomy.cache_stats(), tiny.cache_stats());
    assert_eq!((roomy.builds, roomy.bodies), (40, 40), "each route built once per style, then kept");
    assert_eq!((tiny.builds, tiny.bodies, tiny.bytes), (80, 0, 0), "each query built its body");
}

#[test]
fn a_small_cache_drops_the_route_asked_for_least_recently() {
    let mut ns = cluster(1, 4, 4);
    // What each of the four bodies costs.
    let measure = RouteSnapshot::empty().advance(&mut cluster(1, 4, 4)).unwrap();
    let cost: Vec<usize> = (0..4)
        .map(|i| {
            let before = measure.cache_stats().bytes;
            assert!(ask(&mut ns, &measure, &query(i, false)));
            measure.cache_stats().bytes - before
        })
        .collect();
    // Room for any three of them, not for the four.
    let budget = cost.iter().sum::<usize>() - 1;
    let snapshot = RouteSnapshot::with_cache_bytes(budget).advance(&mut ns).unwrap();
    let mut ask = |i: usize| ask(&mut ns, &snapshot, &query(i, false));
    assert!(ask(0) && ask(1) && ask(2), "built on the first query");
    assert!(!ask(0), "kept");
    assert!(ask(3), "built");
    assert!(!ask(0) && !ask(2) && !ask(3), "1, asked for least recently, made room for 3");
    assert!(ask(1), "1 is built again");
    // A route asked for once does not push out the ones asked for again.
    assert!(!ask(0) && !ask(2) && !ask(3));
    assert!(snapshot.cache_stats().bytes <= budget);
}

#[test]
fn a_change_drops_the_bodies_it_changes_and_keeps_the_others() {
    let mut ns = cluster(1, 10, 10);
    let first = RouteSnapshot::empty().advance(&mut ns).unwrap();
    for i in 0..10 {
        ask(&mut ns, &first, &query(i, false));
    }
    // Broker 1 serves topics 0..5 only: their routes change, the other five do not.
    register(&mut ns, 1, 5, 10);
    let second = first.advance(&mut ns).unwrap();
    drop(first);
    assert_eq!(second.cache_stats().bodies, 5, "the changed routes' bodies went with the snapshot replaced");
    for i in 0..10 {
        assert_eq!(ask(&mut ns, &second, &query(i, false)), i < 5, "topic {i}");
    }
}

#[derive(Clone, Debug)]
enum Op {
    Register {
        broker: usize,
        topics: usize,
        spread: usize,
    },
    /// A slave joins a group: its `BrokerData` changes, not its queues.
    Slave {
        broker: usize,
        id: usize,
    },
    /// The brokers' connection closes: every broker is unregistered.
    Close,
    Query {
        topic: usize,
        plain: bool,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..3usize, 1..12usize, 1..12usize).prop_map(|(broker, topics, spread)| Op::Register {
            broker,
            topics,
            spread
        }),
        (0..3usize, 1..3usize).prop_map(|(broker, id)| Op::Slave { broker, id }),
        Just(Op::Close),
        (0..14usize, any::<bool>()).prop_map(|(topic, plain)| Op::Query { topic, plain }),
        (0..14usize, any::<bool>()).prop_map(|(topic, plain)| Op::Query { topic, plain }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Against the core as the model: whatever the budget and the order of changes and
    /// queries, every answer is the core's, and the bodies kept stay within the budget.
    #[test]
    fn answers_are_the_cores_and_the_cache_stays_within_its_budget(
        budget in prop_oneof![Just(1usize), 200..4_000usize, Just(1usize << 20)],
        ops in proptest::collection::vec(op(), 1..40),
    ) {
        let mut ns = name_server(config());
        let mut snapshot = RouteSnapshot::with_cache_bytes(budget).advance(&mut ns).unwrap();
        for op in ops {
            match op {
                Op::Register { broker, topics, spread } => register(&mut ns, broker, topics, spread),
                Op::Slave { broker, id } => register_member(&mut ns, broker, id, 3, 3),
                Op::Close => {
                    ns.handle(ns.now(), Input::Disconnected { conn: ConnId(1) });
                    while ns.poll_output().is_some() {}
                    ns.handle(ns.now(), Input::Connected { conn: ConnId(1), remote: String::from("127.0.0.1:1") });
                }
                Op::Query { topic, plain } => {
                    ask(&mut ns, &snapshot, &query(topic, plain));
                }
            }
            if let Some(next) = snapshot.advance(&mut ns) {
                snapshot = next;
            }
            prop_assert!(snapshot.cache_stats().bytes <= budget, "{:?} over {budget}", snapshot.cache_stats());
        }
    }
}
