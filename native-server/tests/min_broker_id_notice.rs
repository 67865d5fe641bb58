//! NOTIFY_MIN_BROKER_ID_CHANGE (905) reaches brokers as in Java: the daemon connects to each
//! member broker's registered address (its server side) and writes the oneway notice there,
//! with Java's header fields. A fake broker listens on loopback to receive it.

mod support;

use std::time::Duration;

use nameserver_core::json::{JsonStyle, WriteJson};
use nameserver_core::protocol::body::{RegisterBrokerBody, TopicConfig};
use nameserver_core::protocol::{RemotingCommand, RequestCode};
use nameserver_core::{Config, TopicName};
use support::{Client, TestServer, decode, encode, request, route_query, within};
use tokio::io::AsyncReadExt as _;
use tokio::net::TcpListener;

/// REGISTER_BROKER of member `id` of acting-master group `g` at `addr` (HA port `ha`).
fn register(addr: &str, id: i64, ha: &str, opaque: i32) -> RemotingCommand {
    let mut body = RegisterBrokerBody::default();
    body.topic_config_wrapper.data_version.counter = 1;
    for topic in ["NoticeTopic", "NoticeTopic2"] {
        body.topic_config_wrapper.topic_config_table.insert(TopicName::from(topic), TopicConfig::new(topic, 4));
    }
    let id = id.to_string();
    let fields = [
        ("clusterName", "C"),
        ("brokerName", "g"),
        ("brokerAddr", addr),
        ("brokerId", id.as_str()),
        ("haServerAddr", ha),
        ("enableActingMaster", "true"),
    ];
    let mut cmd = request(RequestCode::RegisterBroker, opaque, &fields).with_body(body.to_json(JsonStyle::Plain));
    cmd.version = 479;
    cmd
}

/// Accepts one connection on `broker` and reads the one frame written to it before the FIN.
async fn receive_notice(broker: &TcpListener) -> RemotingCommand {
    let (mut stream, _) = broker.accept().await.unwrap();
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).await.unwrap();
    decode(&bytes)
}

fn enabled(config: &mut nameserver::ServerConfig) {
    config.namesrv = Config { notify_min_broker_id_changed: true, ..config.namesrv.clone() };
}

#[tokio::test]
async fn the_notice_goes_to_the_member_brokers_own_address_with_javas_fields() {
    let server = TestServer::start_with(enabled).await;
    let slave_server = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let slave_addr = slave_server.local_addr().unwrap().to_string();
    let mut slave = server.client().await;
    assert_eq!(slave.request(&register(&slave_addr, 1, "127.0.0.1:1", 1)).await.code, 0);
    let mut master = server.client().await;
    assert_eq!(master.request(&register("127.0.0.1:2", 0, "127.0.0.1:3", 2)).await.code, 0);

    // A lower id registered: Java notifies every member but the new minimum.
    let notice = within("the notice at the slave's address", receive_notice(&slave_server)).await;
    assert_eq!(notice.request_code(), RequestCode::NotifyMinBrokerIdChange);
    assert!(notice.is_oneway() && !notice.is_response());
    let fields: Vec<(&str, &str)> = notice.ext_fields.iter().flatten().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(fields, [("haBrokerAddr", "127.0.0.1:3"), ("minBrokerAddr", "127.0.0.1:2"), ("minBrokerId", "0")]);
    // Nothing was written on the slave's own registration connection.
    assert!(tokio::time::timeout(Duration::from_millis(200), slave.next_frame()).await.is_err());

    // The master leaves (its connection closes): the slave hears of it with the offline address.
    drop(master);
    let notice = within("the second notice", receive_notice(&slave_server)).await;
    let fields: Vec<(&str, &str)> = notice.ext_fields.iter().flatten().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        fields,
        [("minBrokerAddr", slave_addr.as_str()), ("minBrokerId", "1"), ("offlineBrokerAddr", "127.0.0.1:2")]
    );
}

#[tokio::test]
async fn an_unreachable_broker_address_never_holds_up_the_server() {
    let server = TestServer::start_with(enabled).await;
    // A port with nothing listening: every notice to it fails, and is only logged.
    let closed = TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap().to_string();
    let mut slave = server.client().await;
    assert_eq!(slave.request(&register(&closed, 1, "127.0.0.1:1", 1)).await.code, 0);
    let mut client = Client::connect(server.addr).await;
    for round in 0..20 {
        let mut master = server.client().await;
        assert_eq!(master.request(&register("127.0.0.1:2", 0, "127.0.0.1:3", 2)).await.code, 0);
        drop(master);
        let reply = within("a route query meanwhile", client.call(&encode(&route_query("NoticeTopic", round)))).await;
        assert_eq!(decode(&reply).code, 0);
    }
}
