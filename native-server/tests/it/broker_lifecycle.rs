//! A broker's life as clients see it: registered and routed to, removed at once when its
//! connection closes, expired after 120 s of silence, closed after 120 s of idleness. Time
//! moves only through tokio's paused clock.

use crate::support;

use std::time::Duration;

use support::{Client, CoreModel, FrozenClock, TestServer, decode, encode, register_broker_frame, route_query, within};

/// A topic the real broker registers.
const TOPIC: &str = "TBW102";

/// Asks for `TOPIC`'s route on a fresh connection, returning the response code.
async fn route_code(server: &TestServer, opaque: i32) -> i32 {
    let mut client = server.client().await;
    client.request(&route_query(TOPIC, opaque)).await.code
}

/// Asks until the route is gone: the owner applies a change a moment after the event.
async fn wait_until_unrouted(server: &TestServer) {
    for attempt in 0..1000 {
        if route_code(server, attempt).await == 17 {
            return;
        }
        tokio::task::yield_now().await;
    }
    panic!("the broker is still routed to");
}

async fn register(server: &TestServer) -> Client {
    let mut broker = server.client().await;
    let reply = decode(&broker.call(&register_broker_frame()).await);
    assert_eq!(reply.code, 0, "registered: {reply:?}");
    broker
}

#[tokio::test]
async fn registered_broker_is_routed_to_with_the_cores_bytes() {
    let server = TestServer::start().await;
    let mut model = CoreModel::new(&server.config);
    let mut broker = server.client().await;
    let registered = within("register reply", broker.call(&register_broker_frame())).await;
    assert_eq!(registered, model.reply(&register_broker_frame()).unwrap());

    let mut client = server.client().await;
    for (opaque, version) in [(1, 479), (2, 121)] {
        let mut query = route_query(TOPIC, opaque);
        query.version = version;
        let reply = within("route reply", client.call(&encode(&query))).await;
        let expected = model.reply_to(query).unwrap();
        assert_eq!(String::from_utf8_lossy(&reply), String::from_utf8_lossy(&expected));
        assert!(String::from_utf8_lossy(&reply).contains("127.0.0.1:31911"));
    }
}

#[tokio::test]
async fn closing_the_broker_connection_removes_it_at_once() {
    let server = TestServer::start().await;
    let broker = within("register", register(&server)).await;
    assert_eq!(route_code(&server, 1).await, 0);
    drop(broker);
    within("unrouted after close", wait_until_unrouted(&server)).await;
}

#[tokio::test(start_paused = true)]
async fn silent_broker_expires_after_120_seconds() {
    let _frozen = FrozenClock::new();
    // No idle close here, so that only the heartbeat timeout can remove the broker.
    let server = TestServer::start_with(|c| c.namesrv.server_channel_max_idle_time_seconds = 0).await;
    let mut broker = register(&server).await;

    tokio::time::advance(Duration::from_secs(119)).await;
    assert_eq!(route_code(&server, 1).await, 0, "alive at 119 s");

    // Expired when last update + 120 s < now, found by the scan at 125 s.
    tokio::time::advance(Duration::from_secs(7)).await;
    wait_until_unrouted(&server).await;
    assert!(broker.closed_by_server().await, "the expired broker's connection is closed");
}

#[tokio::test(start_paused = true)]
async fn idle_connection_is_closed_and_its_broker_removed() {
    let _frozen = FrozenClock::new();
    let server = TestServer::start().await;
    let mut broker = register(&server).await;

    tokio::time::advance(Duration::from_secs(119)).await;
    assert_eq!(route_code(&server, 1).await, 0, "still registered at 119 s");

    // 120 s without a read or write: idle. Not expired: that needs more than 120 s since the
    // registration, so only the idle close can remove the broker here.
    tokio::time::advance(Duration::from_secs(1)).await;
    assert!(broker.closed_by_server().await, "the idle connection is closed");
    wait_until_unrouted(&server).await;
}

#[tokio::test(start_paused = true)]
async fn a_connection_that_keeps_talking_is_not_idle() {
    let _frozen = FrozenClock::new();
    let server = TestServer::start().await;
    let mut client = server.client().await;
    for opaque in 0..5 {
        tokio::time::advance(Duration::from_secs(100)).await;
        assert_eq!(client.request(&route_query(TOPIC, opaque)).await.opaque, opaque);
    }
}
