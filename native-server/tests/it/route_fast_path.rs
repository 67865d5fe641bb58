//! The route fast path: a [`RouteSnapshot`] answers GET_ROUTEINFO_BY_TOPIC with exactly the
//! bytes the core writes for the same request, and forwards what it cannot answer exactly.

use crate::support;

use nameserver::snapshot::{FastPath, Outbox, RouteSnapshot};
use nameserver_core::codec::{self, Limits};
use nameserver_core::protocol::{FLAG_ONEWAY, RemotingCommand, RequestCode};
use nameserver_core::{Config, ConnId, Input, Instant, KvConfig, NameServer, Output};
use support::{decode, real_frames, register_broker_frame, request, route_query};

const CONN: ConnId = ConnId(1);

pub(crate) fn name_server(config: Config) -> NameServer {
    let mut ns = NameServer::new(config, KvConfig::default(), Instant::ZERO);
    ns.handle(Instant::ZERO, Input::Connected { conn: CONN, remote: String::from("127.0.0.1:1") });
    ns
}

/// Feeds `cmd` to the core and returns its reply frame (if any).
pub(crate) fn core_reply(ns: &mut NameServer, cmd: RemotingCommand) -> Option<Vec<u8>> {
    ns.handle(ns.now(), Input::Received { conn: CONN, cmd });
    let mut reply = None;
    while let Some(output) = ns.poll_output() {
        if let Output::Send { cmd, .. } = output {
            reply = Some(codec::encode_to_vec(&cmd).unwrap());
        }
    }
    reply
}

pub(crate) fn fast_reply(snapshot: &RouteSnapshot, cmd: &RemotingCommand) -> Option<Option<Vec<u8>>> {
    let mut out = Outbox::default();
    match snapshot.answer(cmd, &Limits::DEFAULT, &mut out) {
        FastPath::Answered(_) => Some((!out.is_empty()).then(|| out.to_vec())),
        FastPath::Forward => None,
    }
}

/// The standard-JSON body of a topic.
fn body(snapshot: &RouteSnapshot, topic: &str) -> Vec<u8> {
    snapshot.route_bodies(topic).expect("a topic with a route").standard().to_vec()
}

/// Every query the snapshot answers gets the core's bytes; returns how many it answered.
fn assert_same_as_core(ns: &mut NameServer, snapshot: &RouteSnapshot, queries: &[RemotingCommand]) -> usize {
    let mut answered = 0;
    for query in queries {
        let fast = fast_reply(snapshot, query);
        let core = core_reply(ns, query.clone());
        if let Some(fast) = fast {
            answered += 1;
            assert_eq!(
                fast.as_deref().map(String::from_utf8_lossy),
                core.as_deref().map(String::from_utf8_lossy),
                "query {query:?}"
            );
        }
    }
    answered
}

/// Route queries of every shape: the captured ones, both JSON styles, unknown and non-ASCII
/// topics, oneway, binary header.
fn queries() -> Vec<RemotingCommand> {
    let mut queries: Vec<RemotingCommand> =
        real_frames().into_iter().filter(|f| f.code == 105).map(|f| decode(&f.bytes)).collect();
    for (opaque, topic) in ["TBW102", "DemoCluster", "%RETRY%e2e_cg", "Nope", "主题/ü"].into_iter().enumerate() {
        let opaque = i32::try_from(opaque).unwrap() * 10;
        queries.push(route_query(topic, opaque));
        let mut old_client = route_query(topic, opaque + 1);
        old_client.version = 121;
        queries.push(old_client);
        let mut standard_only = old_client_with_standard_json(topic, opaque + 2);
        standard_only.language = nameserver_core::protocol::LanguageCode::Rust;
        queries.push(standard_only);
        let mut oneway = route_query(topic, opaque + 3);
        oneway.flag = FLAG_ONEWAY;
        queries.push(oneway);
        let mut binary = route_query(topic, opaque + 4);
        binary.serialize_type = nameserver_core::protocol::SerializeType::Rocketmq;
        queries.push(binary);
    }
    queries
}

fn old_client_with_standard_json(topic: &str, opaque: i32) -> RemotingCommand {
    let mut cmd = route_query(topic, opaque).with_field("acceptStandardJsonOnly", "true");
    cmd.version = 121;
    cmd
}

pub(crate) fn config() -> Config {
    Config::java_defaults("/home/rmq", "/opt/rocketmq")
}

#[test]
fn snapshot_answers_are_the_cores_bytes() {
    let mut ns = name_server(config());
    let empty = RouteSnapshot::empty().advance(&mut ns).expect("the first snapshot");
    assert_eq!(empty.topics(), 0);
    assert_eq!(assert_same_as_core(&mut ns, &empty, &queries()), queries().len(), "unknown topics too");

    assert!(core_reply(&mut ns, decode(&register_broker_frame())).is_some());
    let registered = empty.advance(&mut ns).expect("routes changed");
    assert_eq!(registered.version(), empty.version() + 1);
    assert_eq!(registered.topics(), 13);
    assert!(registered.advance(&mut ns).is_none(), "nothing changed since");
    assert_eq!(assert_same_as_core(&mut ns, &registered, &queries()), queries().len());

    // REGISTER_TOPIC_IN_NAMESRV for %RETRY%e2e_cg (captured), then unregistering the broker.
    let register_topic = real_frames().into_iter().find(|f| f.code == 217).unwrap().bytes;
    core_reply(&mut ns, decode(&register_topic));
    let with_topic = registered.advance(&mut ns).expect("a topic was added");
    assert_same_as_core(&mut ns, &with_topic, &queries());
    let unregister = real_frames().into_iter().find(|f| f.code == 104).unwrap().bytes;
    core_reply(&mut ns, decode(&unregister));
    let gone = with_topic.advance(&mut ns).expect("the broker left");
    assert_eq!(gone.topics(), 0);
    assert_same_as_core(&mut ns, &gone, &queries());
}

#[test]
fn order_topic_config_changes_reach_the_snapshot() {
    let mut config = config();
    config.order_message_enable = true;
    let mut ns = name_server(config);
    core_reply(&mut ns, decode(&register_broker_frame()));
    let before = RouteSnapshot::empty().advance(&mut ns).unwrap();
    let put = request(
        RequestCode::PutKvConfig,
        1,
        &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", "TBW102"), ("value", "broker-a:8")],
    );
    core_reply(&mut ns, put);
    let after = before.advance(&mut ns).expect("the order config is part of the route");
    let query = route_query("TBW102", 2);
    assert!(String::from_utf8_lossy(&fast_reply(&after, &query).unwrap().unwrap()).contains("broker-a:8"));
    assert_same_as_core(&mut ns, &after, &queries());
}

#[test]
fn what_the_snapshot_cannot_answer_exactly_goes_to_the_owner() {
    let mut waiting = config();
    waiting.need_wait_for_service = true;
    let mut ns = name_server(waiting);
    let not_serving = RouteSnapshot::empty().advance(&mut ns).unwrap();
    assert!(!not_serving.serving());
    assert_eq!(fast_reply(&not_serving, &route_query("TBW102", 1)), None, "\"name server not ready\" is the owner's");

    let mut ns = name_server(config());
    let snapshot = RouteSnapshot::empty().advance(&mut ns).unwrap();
    let zoned = route_query("TBW102", 2).with_field("__ZONE_MODE", "true").with_field("__ZONE_NAME", "z1");
    let no_topic = request(RequestCode::GetRouteInfoByTopic, 3, &[]);
    let other = request(RequestCode::GetBrokerClusterInfo, 4, &[]);
    let mut response = route_query("TBW102", 5);
    response.flag = nameserver_core::protocol::FLAG_RESPONSE;
    for cmd in [zoned, no_topic, other, response] {
        assert_eq!(fast_reply(&snapshot, &cmd), None, "{cmd:?}");
    }
    // A zone flag without a zone name is an ordinary query, as in the core.
    let zone_mode_only = route_query("TBW102", 6).with_field("__ZONE_MODE", "true");
    assert_eq!(assert_same_as_core(&mut ns, &snapshot, &[zone_mode_only]), 1);
}

#[test]
fn waiting_for_service_ends_with_a_new_snapshot() {
    let mut waiting = config();
    waiting.need_wait_for_service = true;
    waiting.wait_seconds_for_service = 45;
    let mut ns = name_server(waiting);
    let before = RouteSnapshot::empty().advance(&mut ns).unwrap();
    ns.handle(Instant::from_millis(45_000), Input::Timeout);
    let after = before.advance(&mut ns).expect("serving changed");
    assert!(after.serving());
    assert_eq!(assert_same_as_core(&mut ns, &after, &queries()), queries().len());
}

/// Over TCP on two worker threads: while a broker registers and drops its connection again
/// and again, every route answer is one of the two whole answers, never a mix.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn route_answers_are_whole_while_a_broker_comes_and_goes() {
    let server = support::TestServer::start().await;
    let mut model = support::CoreModel::new(&server.config);
    let query = route_query("TBW102", 0);
    let absent = decode(&model.reply_to(query.clone()).unwrap());
    model.reply(&register_broker_frame());
    let present = decode(&model.reply_to(query.clone()).unwrap());
    assert_ne!(absent, present);

    let addr = server.addr;
    // Each broker connection closes when the next one replaces it; the last one stays.
    let churn = tokio::spawn(async move {
        let mut broker = support::Client::connect(addr).await;
        for _ in 0..30 {
            broker = support::Client::connect(addr).await;
            broker.call(&register_broker_frame()).await;
        }
        broker
    });
    let mut client = server.client().await;
    let (mut seen_absent, mut seen_present) = (0, 0);
    while !churn.is_finished() || seen_present == 0 {
        assert!(seen_absent + seen_present < 100_000, "the last registration never showed");
        let reply = support::within("route reply", client.request(&query)).await;
        if reply == absent {
            seen_absent += 1;
        } else {
            assert_eq!(reply, present);
            seen_present += 1;
        }
    }
    let _last_broker = churn.await.unwrap();
}

#[test]
fn topics_of_one_shape_share_a_body_and_the_others_keep_their_own() {
    let mut config = config();
    config.order_message_enable = true;
    let config_with_order = config.clone();
    let mut ns = name_server(config);
    core_reply(&mut ns, decode(&register_broker_frame()));
    let shared = RouteSnapshot::empty().advance(&mut ns).unwrap();
    let topics: Vec<String> = shared.topic_names().map(String::from).collect();
    let shared_by = |snapshot: &RouteSnapshot, a: &str, b: &str| {
        snapshot.route_bodies(a).unwrap().shares_bodies_with(&snapshot.route_bodies(b).unwrap())
    };
    // Two topics of the captured broker with the same queues share one body.
    let (twin, other) = topics
        .iter()
        .flat_map(|a| topics.iter().map(move |b| (a, b)))
        .find(|(a, b)| a != b && shared_by(&shared, a, b))
        .expect("two topics with one body");
    // An order config makes one of them a shape of its own, from scratch and as a change.
    let put = request(
        RequestCode::PutKvConfig,
        1,
        &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", twin.as_str()), ("value", "broker-a:8")],
    );
    core_reply(&mut ns, put.clone());
    let changed = shared.advance(&mut ns).unwrap();
    let mut ns_fresh = name_server(config_with_order);
    core_reply(&mut ns_fresh, decode(&register_broker_frame()));
    core_reply(&mut ns_fresh, put);
    let fresh = RouteSnapshot::empty().advance(&mut ns_fresh).unwrap();
    let queries: Vec<RemotingCommand> = topics
        .iter()
        .enumerate()
        .flat_map(|(i, topic)| {
            let mut old = route_query(topic, i32::try_from(2 * i).unwrap());
            old.version = 121;
            [route_query(topic, i32::try_from(2 * i + 1).unwrap()), old]
        })
        .collect();
    for (ns, snapshot) in [(&mut ns, &changed), (&mut ns_fresh, &fresh)] {
        assert!(!shared_by(snapshot, twin, other));
        assert!(String::from_utf8_lossy(&body(snapshot, twin)).contains("broker-a:8"));
        assert!(!String::from_utf8_lossy(&body(snapshot, other)).contains("broker-a:8"));
        assert_eq!(assert_same_as_core(ns, snapshot, &queries), queries.len());
    }
}

#[test]
fn every_topic_is_answered_from_the_first_snapshot_and_a_change_brings_new_bodies() {
    let mut ns = name_server(config());
    core_reply(&mut ns, decode(&register_broker_frame()));
    let first = RouteSnapshot::empty().advance(&mut ns).unwrap();
    // No topic waits for the owner: each is answered on the connection, as the core would,
    // in both styles, the first time it is asked for.
    let topics: Vec<String> = first.topic_names().map(String::from).collect();
    for (i, topic) in topics.iter().enumerate() {
        let opaque = i32::try_from(2 * i).unwrap();
        let mut old = route_query(topic, opaque + 1);
        old.version = 121;
        for query in [route_query(topic, opaque), old] {
            assert_eq!(fast_reply(&first, &query), Some(core_reply(&mut ns, query.clone())), "{topic}");
        }
    }
    assert!(fast_reply(&first, &route_query("Nope", 9)).is_some(), "unknown topics are answered at once");

    // A route change gives the topic new bodies in the next snapshot; the old one keeps its
    // own (snapshots are immutable).
    let put = request(
        RequestCode::PutKvConfig,
        1,
        &[("namespace", "ORDER_TOPIC_CONFIG"), ("key", "TBW102"), ("value", "broker-a:8")],
    );
    let mut ordered = config();
    ordered.order_message_enable = true;
    let mut ns = name_server(ordered);
    core_reply(&mut ns, decode(&register_broker_frame()));
    let before = RouteSnapshot::empty().advance(&mut ns).unwrap();
    let old_body = body(&before, "TBW102");
    core_reply(&mut ns, put);
    let after = before.advance(&mut ns).unwrap();
    assert!(!String::from_utf8_lossy(&old_body).contains("broker-a:8"));
    assert_eq!(body(&before, "TBW102"), old_body);
    assert!(String::from_utf8_lossy(&body(&after, "TBW102")).contains("broker-a:8"));
    let query = route_query("TBW102", 7);
    assert_eq!(fast_reply(&after, &query), Some(core_reply(&mut ns, query.clone())));
}
