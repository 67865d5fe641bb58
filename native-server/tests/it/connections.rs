//! Connection handling: pipelined requests, slow readers, bad frames, the frame and
//! connection limits.

use crate::support;

use std::collections::HashMap;
use std::time::Duration;

use nameserver_core::protocol::{FLAG_ONEWAY, RemotingCommand, RequestCode};
use support::{
    Client, CoreModel, TestServer, decode, encode, opaque_of, register_broker_frame, request, route_query, within,
};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpSocket;

/// A mix of fast-path and owner-path requests, every seventh oneway.
fn mixed_requests(count: i32) -> Vec<RemotingCommand> {
    (0..count)
        .map(|opaque| {
            let mut cmd = match opaque % 6 {
                0 => route_query("TBW102", opaque),
                1 => route_query("NoSuchTopic", opaque),
                2 => request(RequestCode::GetBrokerClusterInfo, opaque, &[]),
                3 => request(RequestCode::GetKvConfig, opaque, &[("namespace", "ns"), ("key", "k")]),
                4 => RemotingCommand { code: 4242, opaque, ..RemotingCommand::default() },
                _ => route_query("DemoCluster", opaque).with_field("acceptStandardJsonOnly", "true"),
            };
            if opaque % 7 == 6 {
                cmd.flag = FLAG_ONEWAY;
            }
            cmd
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_requests_are_all_answered_with_their_opaques() {
    let server = TestServer::start().await;
    let mut model = CoreModel::new(&server.config);
    let mut broker = server.client().await;
    let registered = within("register", broker.call(&register_broker_frame())).await;
    assert_eq!(registered, model.reply(&register_broker_frame()).unwrap());

    let requests = mixed_requests(600);
    let mut expected: HashMap<i32, Vec<u8>> = HashMap::new();
    let mut burst = Vec::new();
    for cmd in &requests {
        if let Some(reply) = model.reply_to(cmd.clone()) {
            expected.insert(cmd.opaque, reply);
        }
        burst.extend_from_slice(&encode(cmd));
    }
    let mut client = server.client().await;
    client.send(&burst).await;
    let mut answered = HashMap::new();
    while answered.len() < expected.len() {
        let reply = within("all replies", client.read_frame()).await;
        assert!(answered.insert(opaque_of(&reply), reply).is_none(), "one reply per opaque");
    }
    assert_eq!(answered.len(), expected.len());
    for (opaque, reply) in &answered {
        assert_eq!(
            String::from_utf8_lossy(reply),
            String::from_utf8_lossy(&expected[opaque]),
            "reply to opaque {opaque}"
        );
    }
}

#[tokio::test]
async fn a_bad_frame_closes_only_that_connection() {
    let server = TestServer::start().await;
    let mut good = server.client().await;
    let mut bad = server.client().await;
    // Serialize type 2 does not exist: Java logs "decode exception" and closes.
    bad.send(&[0, 0, 0, 6, 2, 0, 0, 2, b'{', b'}']).await;
    assert!(within("bad connection closed", bad.closed_by_server()).await);
    let reply = within("good connection still served", good.request(&route_query("TBW102", 3))).await;
    assert_eq!(reply.opaque, 3);
}

#[tokio::test]
async fn a_frame_over_the_limit_closes_the_connection_before_it_is_buffered() {
    let server = TestServer::start_with(|c| c.limits.max_frame = 64 * 1024).await;
    let mut client = server.client().await;
    // Announce 1 MiB and send nothing more: the prefix alone must close the connection.
    client.send(&(1024 * 1024_i32).to_be_bytes()).await;
    assert!(within("closed on the prefix", client.closed_by_server()).await);
    let mut other = server.client().await;
    let big_but_allowed = route_query(&"t".repeat(60 * 1024), 9);
    assert_eq!(within("a large frame under the limit", other.request(&big_but_allowed)).await.code, 17);
}

/// A registration of megabytes is read a slice at a time, in turn with other connections: it
/// arrives in pieces, is read whole, and the query pipelined behind it is answered after it
/// with the route it brought; another connection is answered meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_of_many_reads_is_read_whole_in_turn_with_other_connections() {
    use nameserver_core::json::{JsonStyle, WriteJson};
    use nameserver_core::protocol::body::{RegisterBrokerBody, TopicConfig};
    let server = TestServer::start().await;
    let mut body = RegisterBrokerBody::default();
    for i in 0..12_000 {
        let topic = format!("Large{i:05}");
        body.topic_config_wrapper.topic_config_table.insert(topic.as_str().into(), TopicConfig::new(topic.as_str(), 8));
    }
    let fields = [
        ("clusterName", "LargeCluster"),
        ("brokerName", "large"),
        ("brokerAddr", "127.0.0.1:5"),
        ("brokerId", "0"),
        ("haServerAddr", "127.0.0.1:6"),
        ("compressed", "false"),
    ];
    let mut register = request(RequestCode::RegisterBroker, 1, &fields).with_body(body.to_json(JsonStyle::Plain));
    register.version = 479;
    let mut bytes = encode(&register);
    assert!(bytes.len() > 1024 * 1024, "{} bytes", bytes.len());
    bytes.extend_from_slice(&encode(&route_query("Large11999", 2)));

    let mut broker = server.client().await;
    let mut other = server.client().await;
    for (i, piece) in bytes.chunks(200 * 1024).enumerate() {
        broker.send(piece).await;
        let reply =
            within("the other connection, meanwhile", other.request(&route_query("Nope", 100 + i as i32))).await;
        assert_eq!((reply.opaque, reply.code), (100 + i as i32, 17));
    }
    let registered = decode(&within("the registration", broker.read_frame()).await);
    assert_eq!((registered.opaque, registered.code), (1, 0));
    let route = decode(&within("the query behind it", broker.read_frame()).await);
    assert_eq!((route.opaque, route.code), (2, 0));
    assert!(String::from_utf8_lossy(&route.body).contains("\"brokerName\":\"large\""));
}

#[tokio::test]
async fn connections_beyond_the_limit_wait_for_a_free_slot() {
    let server = TestServer::start_with(|c| c.max_connections = 1).await;
    let mut first = server.client().await;
    assert_eq!(within("first served", first.request(&route_query("t", 1))).await.opaque, 1);
    let mut second = server.client().await;
    second.send(&encode(&route_query("t", 2))).await;
    let early = tokio::time::timeout(Duration::from_millis(300), second.read_frame()).await;
    assert!(early.is_err(), "the second connection waits while the first holds the only slot");
    drop(first);
    assert_eq!(opaque_of(&within("second served once the first left", second.read_frame()).await), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_reader_does_not_delay_other_clients() {
    let server = TestServer::start_with(|c| c.outbound_queue = 16).await;
    let mut broker = server.client().await;
    within("register", broker.call(&register_broker_frame())).await;

    // A peer that sends and never reads, with a small receive window so it backs up at once.
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut slow = socket.connect(server.addr).await.unwrap();
    let mut burst = Vec::new();
    for opaque in 0..2000 {
        burst.extend_from_slice(&encode(&request(RequestCode::GetBrokerClusterInfo, opaque, &[])));
        burst.extend_from_slice(&encode(&route_query("BenchmarkTest", opaque)));
    }
    let flood = tokio::spawn(async move {
        loop {
            if slow.write_all(&burst).await.is_err() {
                return slow;
            }
        }
    });

    let mut client = server.client().await;
    // Each answer within the patience of `within`: none waits for the slow reader.
    for opaque in 0..200 {
        let reply = within("route reply next to a slow reader", client.request(&route_query("TBW102", opaque))).await;
        assert_eq!((reply.code, reply.opaque), (0, opaque));
        if opaque % 20 == 0 {
            let cluster = within(
                "owner reply next to a slow reader",
                client.request(&request(RequestCode::GetBrokerClusterInfo, -opaque - 1, &[])),
            )
            .await;
            assert_eq!(cluster.code, 0);
        }
    }

    // Its replies pile up in its queue until the owner gives up on it and closes it.
    let mut slow = within("the slow reader is closed", flood).await.unwrap();
    let _ = slow.shutdown().await;
}

#[tokio::test]
async fn replies_to_one_connection_do_not_wait_for_another() {
    let server = TestServer::start().await;
    let mut clients: Vec<Client> = Vec::new();
    for _ in 0..20 {
        clients.push(server.client().await);
    }
    for (opaque, client) in (0..).zip(clients.iter_mut()) {
        client.send(&encode(&route_query("TBW102", opaque))).await;
    }
    for (opaque, client) in (0..).zip(clients.iter_mut()) {
        assert_eq!(decode(&within("reply", client.read_frame()).await).opaque, opaque);
    }
}
