//! NameServers comparing themselves through their consoles (`--http-peers`): two daemons on
//! loopback, A started with B as its peer, and brokers (the real REGISTER_BROKER frames) that
//! register with one and not the other. Real time: each peer is polled every second.

use crate::http_support;
use crate::support;

use std::net::SocketAddr;

use http_support::{ConsoleServer, request};
use nameserver::http::{Console, HttpOptions, PeerUrl};
use serde_json::Value;
use support::{Client, TestServer, big_broker_register, decode, register_broker_frame, server_config, within};
use tokio::io::AsyncReadExt as _;
use tokio::net::TcpListener;

/// broker-a of DemoCluster (the captured frame).
const BROKER_A: &str = "127.0.0.1:31911";
/// `big` of BigCluster.
const BROKER_BIG: &str = "127.0.0.1:5";

fn peer(http: SocketAddr) -> PeerUrl {
    PeerUrl::parse(&format!("http://{http}")).unwrap()
}

async fn with_peers(peers: Vec<PeerUrl>) -> ConsoleServer {
    ConsoleServer::start_with(HttpOptions { peers, ..HttpOptions::default() }, |_| {}).await
}

async fn register_a(server: &ConsoleServer) -> Client {
    let mut broker = server.client().await;
    assert_eq!(decode(&broker.call(&register_broker_frame()).await).code, 0);
    broker
}

async fn register_big(server: &ConsoleServer) -> Client {
    use nameserver_core::protocol::body::{RegisterBrokerBody, TopicConfig};
    let mut body = RegisterBrokerBody::default();
    // Two topics: a registration with one topic from an unknown broker is refused (Java 5.x).
    for topic in ["BigTopic", "BigTopic2"] {
        body.topic_config_wrapper.topic_config_table.insert(topic.into(), TopicConfig::new(topic, 4));
    }
    let mut broker = server.client().await;
    let reply = broker.request(&big_broker_register(1, body.encode_compressed(479))).await;
    assert_eq!(reply.code, 0, "{reply:?}");
    broker
}

/// Polls `GET path` on `server` (real time) until `check` accepts it.
async fn until(server: &ConsoleServer, path: &str, check: impl Fn(&Value) -> bool) -> Value {
    let what = format!("GET {path} matches");
    support::eventually(&what, || async { Some(server.get_json(path).await).filter(|value| check(value)) }).await
}

fn addrs(list: &Value) -> Vec<&str> {
    list.as_array().unwrap().iter().map(|b| b["brokerAddr"].as_str().unwrap()).collect()
}

/// The value of the one sample of `series` (name and labels exactly as written), if any.
fn sample(metrics: &str, series: &str) -> Option<f64> {
    metrics.lines().find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn brokers_and_topics_one_nameserver_lacks_are_reported_until_they_agree() {
    let b = ConsoleServer::start().await;
    let a = with_peers(vec![peer(b.http)]).await;
    let label = format!("peer=\"http://{}\"", b.http);
    let peers = until(&a, "/api/peers", |v| v["peers"][0]["reachable"] == true).await;
    assert_eq!(peers["peers"][0]["url"], format!("http://{}", b.http));
    assert_eq!(peers["peers"][0]["address"], b.tcp.to_string());
    assert_eq!(peers["peers"][0]["self"], false);
    assert_eq!(peers["peers"][0]["divergentSince"], Value::Null);

    // broker-a reaches A only, big reaches B only.
    let registered = wall_now();
    let _a_to_a = register_a(&a).await;
    let _big_to_b = register_big(&b).await;
    let peers = until(&a, "/api/peers", |v| {
        addrs(&v["peers"][0]["brokersOnlyHere"]) == [BROKER_A]
            && addrs(&v["peers"][0]["brokersOnlyThere"]) == [BROKER_BIG]
    })
    .await;
    let report = &peers["peers"][0];
    let here = &report["brokersOnlyHere"][0];
    assert_eq!(
        (&here["cluster"], &here["brokerName"], &here["brokerId"]),
        (&"DemoCluster".into(), &"broker-a".into(), &0.into())
    );
    let wall = |v: &Value| v.as_u64().unwrap_or_else(|| panic!("a wall-clock time: {v}"));
    let now = wall(&peers["nowMs"]);
    let since = wall(&here["since"]);
    assert!(registered <= since && since <= now, "since {since}, registered at {registered}, now {now}");
    let heard = wall(&here["hereLastHeard"]);
    assert!(registered <= heard && heard <= now, "{here}");
    assert_eq!(here["thereLastHeard"], Value::Null, "B never listed it: {here}");
    let there = &report["brokersOnlyThere"][0];
    assert_eq!((&there["cluster"], &there["brokerName"]), (&"BigCluster".into(), &"big".into()));
    assert_eq!(there["hereLastHeard"], Value::Null);
    // B's clock: its start plus the broker's lastUpdate there.
    let b_view = b.get_json("/api/view").await;
    let b_heard = b_view["startedAtMs"].as_u64().unwrap() + b_view["brokers"][0]["lastUpdate"].as_u64().unwrap();
    assert_eq!(wall(&there["thereLastHeard"]), b_heard);
    // Topics: broker-a's 13 here, big's two there.
    let peers = until(&a, "/api/peers", |v| v["peers"][0]["topicsOnlyThere"]["count"] == 2).await;
    let report = &peers["peers"][0];
    assert_eq!(report["topicsOnlyHere"]["count"], 13);
    assert_eq!(report["topicsOnlyHere"]["names"].as_array().unwrap().len(), 10, "a few names: {report}");
    assert_eq!(report["topicsOnlyThere"]["names"], serde_json::json!(["BigTopic", "BigTopic2"]));
    assert_eq!(wall(&report["divergentSince"]), since, "the oldest difference");

    let metrics = a.get("/metrics").await.text();
    assert_eq!(sample(&metrics, &format!("nameserver_peer_up{{{label}}}")), Some(1.0), "{metrics}");
    let missing = |what: &str, direction: &str| {
        sample(&metrics, &format!("nameserver_peer_{what}_missing{{{label},direction=\"{direction}\"}}"))
    };
    assert_eq!(missing("brokers", "missing_there"), Some(1.0), "{metrics}");
    assert_eq!(missing("brokers", "missing_here"), Some(1.0), "{metrics}");
    assert_eq!(missing("topics", "missing_there"), Some(13.0), "{metrics}");
    assert_eq!(missing("topics", "missing_here"), Some(2.0), "{metrics}");
    let divergence = sample(&metrics, &format!("nameserver_peer_divergence_seconds{{{label}}}")).unwrap();
    // Seconds since the oldest difference (whole seconds or finer).
    let bound = (wall_now() - since) as f64 / 1000.0 + 1.0;
    assert!((0.0..=bound).contains(&divergence), "{divergence} s, {bound} s since the difference began");
    // B was started without peers: it compares nothing.
    assert_eq!(b.get_json("/api/peers").await["peers"], serde_json::json!([]));
    assert!(!b.get("/metrics").await.text().contains("nameserver_peer_up{"));

    // Each broker registers with the other NameServer too: the difference clears.
    let _a_to_b = register_a(&b).await;
    let _big_to_a = register_big(&a).await;
    let peers = until(&a, "/api/peers", |v| v["peers"][0]["divergentSince"].is_null()).await;
    let report = &peers["peers"][0];
    assert_eq!((addrs(&report["brokersOnlyHere"]).len(), addrs(&report["brokersOnlyThere"]).len()), (0, 0));
    assert_eq!((&report["topicsOnlyHere"]["count"], &report["topicsOnlyThere"]["count"]), (&0.into(), &0.into()));
    let metrics = a.get("/metrics").await.text();
    for (what, direction) in [("brokers", "missing_there"), ("brokers", "missing_here"), ("topics", "missing_there")] {
        let series = format!("nameserver_peer_{what}_missing{{{label},direction=\"{direction}\"}}");
        assert_eq!(sample(&metrics, &series), Some(0.0), "{series}: {metrics}");
    }
    assert_eq!(sample(&metrics, &format!("nameserver_peer_divergence_seconds{{{label}}}")), Some(0.0));
    a.stop().await.unwrap();
    b.stop().await.unwrap();
}

/// The next poll `listener` gets, its request read (and left unanswered); the polls queued
/// before are dropped, so this one has just begun.
async fn next_poll(listener: &std::net::TcpListener) -> tokio::net::TcpStream {
    while listener.accept().is_ok() {}
    let listener = TcpListener::from_std(listener.try_clone().unwrap()).unwrap();
    let (mut poll, _) = within("a poll of the silent peer", listener.accept()).await.unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut byte = [0];
        within("the poll's request", poll.read_exact(&mut byte)).await.unwrap();
        head.push(byte[0]);
    }
    poll
}

fn wall_now() -> u64 {
    let since_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
    u64::try_from(since_epoch.as_millis()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_peer_is_reported_and_holds_nothing_up() {
    // One port nobody listens on, one that accepts connections and never answers.
    let closed = TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap();
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    silent.set_nonblocking(true).unwrap();
    let a = with_peers(vec![peer(closed), peer(silent.local_addr().unwrap())]).await;
    let peers = until(&a, "/api/peers", |v| {
        v["peers"].as_array().unwrap().iter().all(|p| p["reachable"] == false && p["error"].is_string())
    })
    .await;
    let errors: Vec<&str> = peers["peers"].as_array().unwrap().iter().map(|p| p["error"].as_str().unwrap()).collect();
    assert!(errors[0].contains("connecting to"), "{errors:?}");
    assert!(errors[1].contains("no answer within"), "{errors:?}");
    assert_eq!(peers["peers"][0]["lastSeen"], Value::Null);

    // While a poll of the silent peer is open, the console and the RocketMQ side answer: the
    // poll is still open when they have (A gives up on it after 2 s, closing it).
    for _ in 0..3 {
        let poll = next_poll(&silent).await;
        let _broker = register_a(&a).await;
        for path in ["/api/view", "/api/peers", "/metrics", "/api/topics"] {
            assert_eq!(a.get(path).await.status, 200, "{path}");
        }
        let mut byte = [0];
        let still_open = matches!(poll.try_read(&mut byte), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock);
        assert!(still_open, "the answers waited for the poll to end");
    }
    let metrics = a.get("/metrics").await.text();
    for unreachable in [closed, silent.local_addr().unwrap()] {
        let label = format!("peer=\"http://{unreachable}\"");
        assert_eq!(sample(&metrics, &format!("nameserver_peer_up{{{label}}}")), Some(0.0), "{metrics}");
        assert!(!metrics.contains(&format!("nameserver_peer_brokers_missing{{{label}")), "unknown, not 0: {metrics}");
    }
    // Shutting down with a poll of the silent peer open.
    let _poll = next_poll(&silent).await;
    within("the stop", a.stop()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_peer_list_naming_this_daemon_leaves_it_out() {
    let b = ConsoleServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let config = server_config(dir.path());
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let own = listener.local_addr().unwrap();
    let options = HttpOptions { peers: vec![peer(own), peer(b.http)], ..HttpOptions::default() };
    let a = TestServer::serve(dir, config, Some(Console { listener, options })).await;
    let peers = support::eventually("both peers reachable", || async {
        let response = request(own, "GET", "/api/peers", &[], b"").await;
        let peers: Value = serde_json::from_slice(&response.body).unwrap();
        peers["peers"].as_array().unwrap().iter().all(|p| p["reachable"] == true).then_some(peers)
    })
    .await;
    assert_eq!((&peers["peers"][0]["self"], &peers["peers"][1]["self"]), (&true.into(), &false.into()));
    let mut broker = Client::connect(a.addr).await;
    assert_eq!(decode(&broker.call(&register_broker_frame()).await).code, 0);
    let missing =
        format!("nameserver_peer_brokers_missing{{peer=\"http://{}\",direction=\"missing_there\"}} 1", b.http);
    let metrics = support::eventually("broker-a missing there", || async {
        Some(request(own, "GET", "/metrics", &[], b"").await.text()).filter(|metrics| metrics.contains(&missing))
    })
    .await;
    assert!(!metrics.contains(&format!("peer=\"http://{own}\"")), "no series for itself: {metrics}");
    a.stop().await.0.unwrap();
    b.stop().await.unwrap();
}
