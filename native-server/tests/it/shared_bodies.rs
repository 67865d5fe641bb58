//! A route body from `SHARED_FROM` bytes up (a topic on a few dozen brokers) is written from
//! the route cache's copy, between the replies encoded into the connection's buffer, rather
//! than copied into it: pipelined among small replies and read slowly (the socket taking part
//! of a body at a time), every reply still arrives whole, in order and as the core writes it.

use crate::support;

use nameserver::snapshot::SHARED_FROM;
use nameserver_core::TopicName;
use nameserver_core::json::{JsonStyle, WriteJson};
use nameserver_core::protocol::body::{RegisterBrokerBody, TopicConfig};
use nameserver_core::protocol::{RemotingCommand, RequestCode};
use support::{CoreModel, TestServer, encode, request, route_query, within};

const BROKERS: usize = 64;

/// REGISTER_BROKER of group `b{i}` holding topics `Wide` and `Wide2`.
fn register(i: usize) -> Vec<u8> {
    let mut body = RegisterBrokerBody::default();
    body.topic_config_wrapper.data_version.counter = 1;
    // Two topics: a registration of one alone, from a broker not yet registered, is refused.
    for topic in ["Wide", "Wide2"] {
        body.topic_config_wrapper.topic_config_table.insert(TopicName::from(topic), TopicConfig::new(topic, 8));
    }
    let (name, addr) = (format!("b{i}"), format!("127.0.0.1:{}", 20_000 + i));
    let fields = [
        ("clusterName", "C"),
        ("brokerName", &name),
        ("brokerAddr", &addr),
        ("brokerId", "0"),
        ("haServerAddr", &addr),
        ("compressed", "false"),
    ];
    let mut cmd = request(RequestCode::RegisterBroker, 1, &fields).with_body(body.to_json(JsonStyle::Plain));
    cmd.version = 479;
    encode(&cmd)
}

/// Route queries for the wide topic in both JSON styles, with unknown topics between them.
fn queries() -> Vec<RemotingCommand> {
    (0..600)
        .map(|opaque| match opaque % 3 {
            0 => route_query("Wide", opaque),
            1 => route_query("Nope", opaque),
            _ => {
                let mut old_client = route_query("Wide", opaque);
                old_client.version = 121;
                old_client
            }
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_route_bodies_arrive_whole_between_small_replies() {
    let server = TestServer::start().await;
    let mut model = CoreModel::new(&server.config);
    // One connection for every broker: each stays registered while it is open.
    let mut brokers = server.client().await;
    for i in 0..BROKERS {
        let frame = register(i);
        let expected = model.reply(&frame).expect("a registration reply");
        assert_eq!(within("registration", brokers.call(&frame)).await, expected);
    }
    let queries = queries();
    let expected: Vec<Vec<u8>> = queries.iter().map(|q| model.reply_to(q.clone()).expect("a reply")).collect();
    assert!(expected[0].len() > 2 * SHARED_FROM, "the wide route is shared: {} bytes", expected[0].len());
    assert!(expected[1].len() < 1024 && expected[2].len() > 2 * SHARED_FROM);

    let mut client = server.client().await;
    let frames: Vec<u8> = queries.iter().flat_map(encode).collect();
    client.send(&frames).await;
    for (i, expected) in expected.iter().enumerate() {
        let reply = within("a route reply", client.read_frame()).await;
        assert!(reply == *expected, "reply {i}: {} bytes, the core's {}", reply.len(), expected.len());
    }
}
