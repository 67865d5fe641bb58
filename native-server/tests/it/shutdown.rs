//! Graceful shutdown: requests that arrived before it are answered, the listener closes,
//! and `run` returns once every connection has what it is owed.

use crate::support;

use std::collections::HashSet;

use nameserver_core::protocol::RequestCode;
use support::{TestServer, encode, opaque_of, request, route_query, within};
use tokio::net::TcpStream;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_in_flight_are_answered_before_the_server_stops() {
    let server = TestServer::start().await;
    let addr = server.addr;
    let mut client = server.client().await;
    // One round trip first, so the connection is surely accepted.
    assert_eq!(within("first reply", client.request(&route_query("t", -1))).await.opaque, -1);

    let mut burst = Vec::new();
    let mut owed = HashSet::new();
    for opaque in 0..300 {
        let cmd = match opaque % 3 {
            0 => route_query("TopicTest", opaque),
            1 => request(RequestCode::GetBrokerClusterInfo, opaque, &[]),
            _ => request(
                RequestCode::PutKvConfig,
                opaque,
                &[("namespace", "ns"), ("key", "k"), ("value", &opaque.to_string())],
            ),
        };
        burst.extend_from_slice(&encode(&cmd));
        owed.insert(opaque);
    }
    client.send(&burst).await;
    let stopped = tokio::spawn(server.stop());

    while !owed.is_empty() {
        let reply = within("replies owed at shutdown", client.next_frame()).await.expect("answered before closing");
        assert!(owed.remove(&opaque_of(&reply)));
    }
    assert!(within("closed after the last reply", client.closed_by_server()).await);
    let (result, _dir, config) = within("run returns", stopped).await.unwrap();
    result.unwrap();
    let kv = nameserver::load_kv(config.namesrv.kv_config_path.as_ref()).unwrap();
    assert_eq!(kv.get("ns", "k"), Some("299"), "the last put is on disk");
    assert!(TcpStream::connect(addr).await.is_err(), "no longer listening");
}

#[tokio::test]
async fn idle_connections_do_not_hold_up_the_shutdown() {
    let server = TestServer::start().await;
    let mut clients = Vec::new();
    for opaque in 0..10 {
        let mut client = server.client().await;
        within("reply", client.request(&route_query("t", opaque))).await;
        clients.push(client);
    }
    let (result, _, _) = within("run returns", server.stop()).await;
    result.unwrap();
    for client in &mut clients {
        assert!(within("closed", client.closed_by_server()).await);
    }
}
