//! The HTTP console's JSON views and event stream against a real server: a broker registers
//! over TCP (the real REGISTER_BROKER frame), is queried, leaves, expires or idles out, and
//! every view follows.

use crate::http_support;
use crate::support;

use std::time::Duration;

use http_support::ConsoleServer;
use nameserver::http::HttpOptions;
use serde_json::{Value, json};
use support::{Client, FrozenClock, decode, register_broker_frame, route_query};

const BROKER: &str = "127.0.0.1:31911";

async fn register(server: &ConsoleServer) -> Client {
    let mut broker = server.client().await;
    let reply = decode(&broker.call(&register_broker_frame()).await);
    assert_eq!(reply.code, 0, "registered: {reply:?}");
    broker
}

fn broker_count(view: &Value) -> usize {
    view["brokers"].as_array().map_or(0, Vec::len)
}

#[tokio::test]
async fn a_registered_broker_shows_in_every_view() {
    let server = ConsoleServer::start().await;
    let _broker = register(&server).await;

    let live = server.wait_json("/api/brokers", |v| broker_count(v) == 1).await;
    let row = &live["brokers"][0];
    assert_eq!(row["cluster"], "DemoCluster");
    assert_eq!(row["brokerAddr"], BROKER);
    assert_eq!(row["brokerName"], "broker-a");
    assert_eq!(row["brokerId"], 0);
    assert_eq!(row["haServerAddr"], "127.0.0.1:10912");
    assert_eq!(row["timeoutMs"], 120_000);
    assert!(row["ageMs"].as_u64().unwrap() < 10_000, "{row}");
    assert!(row["expiresInMs"].as_i64().unwrap() > 110_000, "{row}");
    assert_eq!(row["expiresAt"].as_u64().unwrap(), row["lastUpdate"].as_u64().unwrap() + 120_000);

    let cluster = server.get_json("/api/cluster").await;
    assert_eq!(cluster["clusterAddrTable"], json!({ "DemoCluster": ["broker-a"] }));
    assert_eq!(
        cluster["brokerAddrTable"]["broker-a"],
        json!({ "cluster": "DemoCluster", "brokerName": "broker-a", "brokerAddrs": { "0": BROKER }, "enableActingMaster": false })
    );

    let topics = server.get_json("/api/topics").await;
    let names: Vec<&str> = topics["topics"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    assert_eq!(names.len(), 13, "{names:?}");
    assert!(names.contains(&"TBW102") && names.is_sorted(), "{names:?}");

    // The route is byte for byte what a 5.x client gets over TCP: the dashboard's Router shape.
    let over_tcp = server.client().await.request(&route_query("TBW102", 7)).await;
    assert_eq!(over_tcp.code, 0);
    let over_http = server.get("/api/routes/TBW102").await;
    assert_eq!(over_http.status, 200);
    assert_eq!(over_http.body, over_tcp.body);
    let route: Value = serde_json::from_slice(&over_http.body).unwrap();
    assert_eq!(route["brokerDatas"][0]["brokerAddrs"]["0"], BROKER);
    assert_eq!(route["queueDatas"][0]["brokerName"], "broker-a");
    for field in ["readQueueNums", "writeQueueNums", "perm"] {
        assert!(route["queueDatas"][0][field].is_i64(), "{field}: {route}");
    }
    let missing = server.get("/api/routes/NoSuchTopic").await;
    assert_eq!(missing.status, 404);
    assert!(missing.text().contains("No topic route info in name server for the topic: NoSuchTopic"));

    let view = server.get_json("/api/view").await;
    assert_eq!(view["address"], server.tcp.to_string());
    assert_eq!(view["topicCount"], 13);
    assert_eq!(broker_count(&view), 1);
    assert!(view["nowMs"].as_u64().unwrap() >= view["uptimeMs"].as_u64().unwrap());

    let health = server.get_json("/healthz").await;
    assert_eq!(health["status"], "UP");
    assert_eq!((health["brokers"].as_u64(), health["topics"].as_u64()), (Some(1), Some(13)));
    assert_eq!(server.get("/no/such/page").await.status, 404);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn topics_are_addressed_percent_encoded() {
    let server = ConsoleServer::start().await;
    let _broker = register(&server).await;
    server.wait_json("/api/topics", |v| v["topics"].as_array().is_some_and(|t| !t.is_empty())).await;
    assert_eq!(server.get("/api/routes/SELF%5FTEST%5FTOPIC").await.status, 200);
    let response = server.get("/api/routes/%25RETRY%25group").await;
    assert_eq!(response.status, 404);
    assert!(response.text().contains("for the topic: %RETRY%group"), "{}", response.text());
    server.stop().await.unwrap();
}

#[tokio::test]
async fn the_kv_table_and_configuration_are_readable() {
    let server = ConsoleServer::start_with(HttpOptions::default(), |c| {
        c.kv.put("ORDER_TOPIC_CONFIG", "TopicTest", "broker-a:4");
        c.namesrv.order_message_enable = true;
    })
    .await;
    let kv = server.get_json("/api/kv").await;
    assert_eq!(kv, json!({ "configTable": { "ORDER_TOPIC_CONFIG": { "TopicTest": "broker-a:4" } } }));
    let entry = server.get_json("/api/kv/ORDER_TOPIC_CONFIG/TopicTest").await;
    assert_eq!(entry["value"], "broker-a:4");
    assert_eq!(server.get("/api/kv/ORDER_TOPIC_CONFIG/Nope").await.status, 404);
    let config = server.get_json("/api/config").await;
    assert_eq!(config["orderMessageEnable"], "true");
    assert_eq!(config["listenPort"], "9876");
    assert_eq!(server.get_json("/api/view").await["kvEntries"], 1);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn events_stream_registration_route_queries_and_unregistration_in_rocketmqs_words() {
    let server = ConsoleServer::start().await;
    let mut events = server.events().await;
    let first = events.next().await.unwrap();
    assert_eq!(first.event, "view", "the current view comes first");
    assert_eq!(broker_count(&first.json()), 0);

    let broker = register(&server).await;
    let registered = events.wait_for("log", |e| e["kind"] == "registered").await;
    let line = registered.json();
    assert_eq!(
        line["text"],
        "new broker registered, BrokerAddrInfo [clusterName=DemoCluster, brokerAddr=127.0.0.1:31911] HAService: 127.0.0.1:10912"
    );
    assert_eq!(line["level"], "info");
    assert_eq!(line["event"], "broker-registered");
    assert_eq!(registered.id.as_deref(), Some(line["seq"].to_string().as_str()));
    events.wait_for("view", |v| broker_count(v) == 1).await;

    // Route queries are sampled (at most ten a second) while someone listens.
    let mut client = server.client().await;
    let found = async {
        for opaque in 0.. {
            assert_eq!(client.request(&route_query("TBW102", opaque)).await.code, 0);
            if let Ok(Some(sse)) = tokio::time::timeout(Duration::from_millis(150), events.next()).await {
                let value = sse.json();
                if value["kind"] == "route-query" {
                    return value;
                }
            }
        }
        unreachable!()
    };
    let sample = tokio::time::timeout(support::PATIENCE, found).await.expect("a route query sample");
    let text = sample["text"].as_str().unwrap();
    assert!(text.starts_with("GET_ROUTEINFO_BY_TOPIC TBW102 from 127.0.0.1:"), "{text}");
    assert!(text.ends_with(": SUCCESS"), "{text}");
    assert!(sample["event"].is_null(), "the console's own line: {sample}");

    drop(broker);
    let closed = events.wait_for("log", |e| e["kind"] == "channel-closed").await;
    assert_eq!(
        closed.json()["text"],
        "the broker's channel destroyed, 127.0.0.1:31911, clean it's data structure at once"
    );
    let removed = events.wait_for("log", |e| e["kind"] == "unregistered").await;
    assert_eq!(
        removed.json()["text"],
        "unregisterBroker, remove from brokerLiveTable OK, BrokerAddrInfo [clusterName=DemoCluster, brokerAddr=127.0.0.1:31911]"
    );
    assert_eq!(removed.json()["event"], "broker-unregistered");
    // Its topics leave with it: a change of the topic table, not a second removal.
    let dropped = events.wait_for("log", |e| e["event"] == "topic-removed-with-broker").await.json();
    assert_eq!(dropped["kind"], "topic-changed");
    events.wait_for("view", |v| broker_count(v) == 0).await;

    // A reader that joins later gets the recent lines first.
    let mut late = server.events().await;
    late.wait_for("log", |e| e["kind"] == "registered").await;

    // Shutting down ends the streams instead of waiting for them.
    server.stop().await.unwrap();
    let ended = tokio::time::timeout(support::PATIENCE, async { while events.next().await.is_some() {} });
    ended.await.expect("the stream ends at shutdown");
}

#[tokio::test(start_paused = true)]
async fn a_silent_broker_ages_then_expires_and_the_views_follow() {
    let _frozen = FrozenClock::new();
    // No idle close, so that only the heartbeat timeout removes the broker.
    let server =
        ConsoleServer::start_with(HttpOptions::default(), |c| c.namesrv.server_channel_max_idle_time_seconds = 0).await;
    let mut events = server.events().await;
    let _broker = register(&server).await;
    server.wait_json("/api/brokers", |v| broker_count(v) == 1).await;

    tokio::time::advance(Duration::from_secs(119)).await;
    let live = server.get_json("/api/brokers").await;
    let age = live["brokers"][0]["ageMs"].as_u64().unwrap();
    assert!((119_000..120_000).contains(&age), "heartbeat age {age}");

    tokio::time::advance(Duration::from_secs(7)).await;
    let expired = events.wait_for("log", |e| e["kind"] == "expired").await.json();
    assert_eq!(
        expired["text"],
        "The broker channel expired, BrokerAddrInfo [clusterName=DemoCluster, brokerAddr=127.0.0.1:31911] 120000ms"
    );
    assert_eq!(expired["level"], "warn");
    assert!(expired["at"].as_u64().unwrap() >= 125_000, "{expired}");
    events.wait_for("view", |v| broker_count(v) == 0).await;
    assert_eq!(broker_count(&server.get_json("/api/brokers").await), 0);
    assert_eq!(server.get_json("/api/cluster").await["clusterAddrTable"], json!({}));
    let metrics = server.get("/metrics").await.text();
    assert!(metrics.contains("\nnameserver_broker_expiries_total 1\n"), "{metrics}");
    assert!(metrics.contains("\nnameserver_broker_unregistrations_total{reason=\"expired\"} 1\n"), "{metrics}");
    assert!(metrics.contains("\nnameserver_brokers 0\n"), "{metrics}");
}

#[tokio::test(start_paused = true)]
async fn an_idle_close_is_streamed() {
    let _frozen = FrozenClock::new();
    let server = ConsoleServer::start().await;
    let mut events = server.events().await;
    let _broker = register(&server).await;
    tokio::time::advance(Duration::from_secs(120)).await;
    let idle = events.wait_for("log", |e| e["kind"] == "channel-idle").await.json();
    let text = idle["text"].as_str().unwrap();
    assert!(text.starts_with("NETTY SERVER PIPELINE: IDLE exception [127.0.0.1:"), "{text}");
    events.wait_for("log", |e| e["kind"] == "unregistered").await;
    let metrics = server.get("/metrics").await.text();
    assert!(metrics.contains("\nnameserver_idle_closes_total 1\n"), "{metrics}");
    assert!(metrics.contains("\nnameserver_broker_unregistrations_total{reason=\"channel_idle\"} 1\n"), "{metrics}");
}

#[tokio::test]
async fn a_registration_that_changes_many_topics_is_streamed_in_brief() {
    use nameserver_core::protocol::body::{RegisterBrokerBody, TopicConfig};
    let server = ConsoleServer::start().await;
    let mut events = server.events().await;
    let mut body = RegisterBrokerBody::default();
    for i in 0..300 {
        let topic = format!("T{i:03}");
        body.topic_config_wrapper.topic_config_table.insert(topic.as_str().into(), TopicConfig::new(topic.as_str(), 4));
    }
    let register = support::big_broker_register(1, body.encode_compressed(479));
    let mut broker = server.client().await;
    assert_eq!(broker.request(&register).await.code, 0);
    // One broker line and 300 topic lines: the first 100 go out, then a summary.
    let mut lines = Vec::new();
    let summary = loop {
        let sse = events.wait_for("log", |_| true).await.json();
        if sse["text"].as_str().unwrap().starts_with("... and ") {
            break sse;
        }
        lines.push(sse);
    };
    assert_eq!(lines.len(), 100);
    assert_eq!(summary["text"], "... and 201 more lines of this step, in the daemon's log");
    server.wait_json("/api/topics", |v| v["topics"].as_array().is_some_and(|t| t.len() == 300)).await;
    let metrics = server.get("/metrics").await.text();
    assert!(metrics.contains("\nnameserver_topics 300\n"), "{metrics}");
    server.stop().await.unwrap();
}

/// Advances the paused clock to `at` (NameServer milliseconds since the server started),
/// stopping at every expiry scan on the way so that each runs when it is due (one jump
/// would run the overdue scans at `at`).
async fn advance_to(server: &ConsoleServer, at: u64) {
    loop {
        let view = server.get_json("/api/view").await;
        let (now, next_scan) = (view["nowMs"].as_u64().unwrap(), view["nextScanMs"].as_u64().unwrap());
        assert!(now <= at, "already at {now}, past {at}");
        if now == at {
            return;
        }
        if next_scan <= now {
            // The scan due now has not run yet.
            tokio::task::yield_now().await;
            continue;
        }
        tokio::time::advance(Duration::from_millis(at.min(next_scan) - now)).await;
    }
}

fn brokers_listed(view: &Value) -> Vec<String> {
    view["brokers"].as_array().unwrap().iter().map(|b| b["brokerAddr"].as_str().unwrap().to_string()).collect()
}

#[tokio::test(start_paused = true)]
async fn a_silent_brokers_removal_clock_names_the_idle_close_that_removes_it() {
    let _frozen = FrozenClock::new();
    let server = ConsoleServer::start().await;
    let mut events = server.events().await;
    let mut broker = register(&server).await;
    advance_to(&server, 7_300).await;
    assert_eq!(decode(&broker.call(&register_broker_frame()).await).code, 0, "heartbeat");
    let view = server.wait_json("/api/view", |v| v["brokers"][0]["lastUpdate"] == 7_300).await;
    let row = &view["brokers"][0];
    // Expired from 127 301 ms; scans run every 5 s from 5 s. Idle close: 120 s after the
    // heartbeat was read and answered.
    assert_eq!(row["scanExpireAt"], 130_000, "{row}");
    assert_eq!(row["idleCloseAt"], 127_300, "{row}");
    assert_eq!((&row["removalAt"], &row["removalBy"]), (&json!(127_300), &json!("idle")), "{row}");

    // Route queries on the broker's own connection (the second one answered by the connection
    // task alone, the topic being warm) push the idle close back, not the scan.
    advance_to(&server, 9_000).await;
    assert_eq!(broker.request(&route_query("TBW102", 9)).await.code, 0);
    advance_to(&server, 9_500).await;
    assert_eq!(broker.request(&route_query("TBW102", 10)).await.code, 0);
    let row = server.get_json("/api/view").await["brokers"][0].clone();
    assert_eq!(
        (&row["idleCloseAt"], &row["removalAt"], &row["scanExpireAt"]),
        (&json!(129_500), &json!(129_500), &json!(130_000))
    );
    let listed = server.get_json("/api/brokers").await["brokers"][0].clone();
    for field in ["idleCloseAt", "scanExpireAt", "removalAt", "removalBy"] {
        assert_eq!(listed[field], row[field], "/api/brokers {field}");
    }
    // The event stream sends the view again although no table changed.
    tokio::time::advance(Duration::from_secs(1)).await;
    events.wait_for("view", |v| v["brokers"][0]["removalAt"] == 129_500).await;

    advance_to(&server, 129_499).await;
    assert_eq!(brokers_listed(&server.get_json("/api/view").await), [BROKER]);
    tokio::time::advance(Duration::from_millis(1)).await;
    let idle = events.wait_for("log", |e| e["kind"] == "channel-idle").await.json();
    assert_eq!(idle["at"], 129_500, "removed when its clock said: {idle}");
    server.wait_json("/api/view", |v| broker_count(v) == 0).await;
}

#[tokio::test(start_paused = true)]
async fn a_silent_brokers_removal_clock_names_the_scan_that_expires_it() {
    let _frozen = FrozenClock::new();
    let server =
        ConsoleServer::start_with(HttpOptions::default(), |c| c.namesrv.server_channel_max_idle_time_seconds = 0).await;
    let mut events = server.events().await;
    let mut broker = register(&server).await;
    advance_to(&server, 7_300).await;
    assert_eq!(decode(&broker.call(&register_broker_frame()).await).code, 0, "heartbeat");
    let view = server.wait_json("/api/view", |v| v["brokers"][0]["lastUpdate"] == 7_300).await;
    let row = &view["brokers"][0];
    assert_eq!(row["idleCloseAt"], Value::Null, "idle close is off: {row}");
    assert_eq!(
        (&row["scanExpireAt"], &row["removalAt"], &row["removalBy"]),
        (&json!(130_000), &json!(130_000), &json!("scan"))
    );

    advance_to(&server, 129_999).await;
    assert_eq!(brokers_listed(&server.get_json("/api/view").await), [BROKER]);
    tokio::time::advance(Duration::from_millis(1)).await;
    let expired = events.wait_for("log", |e| e["kind"] == "expired").await.json();
    assert_eq!(expired["at"], 130_000, "removed when its clock said: {expired}");
    server.wait_json("/api/view", |v| broker_count(v) == 0).await;
}

/// REGISTER_BROKER of `name` at `addr` in cluster `C` with `topics` topics, from a 5.x broker.
fn registration(name: &str, addr: &str, topics: usize, opaque: i32) -> Vec<u8> {
    use nameserver_core::protocol::RequestCode;
    use nameserver_core::protocol::body::{RegisterBrokerBody, TopicConfig};
    let mut body = RegisterBrokerBody::default();
    for i in 0..topics {
        let topic = format!("{name}-{i:03}");
        body.topic_config_wrapper.topic_config_table.insert(topic.as_str().into(), TopicConfig::new(topic.as_str(), 4));
    }
    let fields = [
        ("clusterName", "C"),
        ("brokerName", name),
        ("brokerAddr", addr),
        ("brokerId", "0"),
        ("haServerAddr", addr),
        ("compressed", "true"),
    ];
    let mut cmd = support::request(RequestCode::RegisterBroker, opaque, &fields).with_body(body.encode_compressed(479));
    cmd.version = 479;
    nameserver_core::codec::encode_to_vec(&cmd).unwrap()
}

async fn post(server: &ConsoleServer, path: &str) -> http_support::Response {
    http_support::request(server.http, "POST", path, &[], b"").await
}

/// Waits until `n` registrations have entered the owner's intake (test hooks' record).
async fn arrived(server: &ConsoleServer, n: usize) {
    for _ in 0..2000 {
        let record = server.get("/test-hooks/owner/record").await.text();
        if record.lines().filter(|line| line.starts_with("arrived ") && line.contains(" 103 ")).count() >= n {
            return;
        }
        tokio::task::yield_now().await;
    }
    panic!("{n} registrations never arrived");
}

/// Two registrations the owner takes in one turn (intake paused while both arrive): the
/// first changes 300 topics, so its step streams 100 lines and a summary; the second's lines
/// are its own step's and are streamed too (the per-step allowance is not the turn's).
#[tokio::test]
async fn each_registration_of_one_turn_is_streamed() {
    let server = ConsoleServer::start().await;
    assert_eq!(post(&server, "/test-hooks/owner/pause").await.status, 200);
    let mut big = server.client().await;
    big.send(&registration("big", "127.0.0.1:31001", 300, 1)).await;
    arrived(&server, 1).await;
    let mut small = server.client().await;
    small.send(&registration("small", "127.0.0.1:31002", 2, 2)).await;
    arrived(&server, 2).await;
    assert_eq!(post(&server, "/test-hooks/owner/resume").await.status, 200);
    assert_eq!(decode(&big.read_frame().await).code, 0);
    assert_eq!(decode(&small.read_frame().await).code, 0);
    // A later step of its own, to know where the replayed backlog ends.
    let mut last = server.client().await;
    assert_eq!(decode(&last.call(&registration("last", "127.0.0.1:31003", 2, 3)).await).code, 0);

    let mut events = server.events().await;
    let mut texts = Vec::new();
    loop {
        let text = events.wait_for("log", |_| true).await.json()["text"].as_str().unwrap().to_string();
        if text.contains("new broker registered") && text.contains("127.0.0.1:31003") {
            break;
        }
        texts.push(text);
    }
    assert!(
        texts.iter().any(|t| t.contains("new broker registered") && t.contains("127.0.0.1:31002")),
        "the second registration of the turn is missing from the stream: {:?}",
        texts.iter().filter(|t| !t.starts_with("new topic")).collect::<Vec<_>>()
    );
}
