//! RocketMQ's address server (PROTOCOL.md §13): clients without a namesrvAddr fetch
//! `http://<rocketmq.namesrv.domain>:8080/rocketmq/<subgroup>` and read `host:port;host:port`.

use crate::http_support;
use crate::support;

use http_support::ConsoleServer;
use nameserver::http::HttpOptions;

#[tokio::test]
async fn by_default_it_lists_this_daemons_own_address() {
    let server = ConsoleServer::start().await;
    let response = server.get("/rocketmq/nsaddr").await;
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("text/plain; charset=utf-8"));
    assert_eq!(response.text(), server.tcp.to_string());
    // What a client does with it: trim, cut at the first line break, split at ';'.
    let list: Vec<String> = response.text().trim().lines().next().unwrap().split(';').map(String::from).collect();
    let mut client = support::Client::connect(list[0].parse().unwrap()).await;
    assert_eq!(client.request(&support::route_query("TopicTest", 1)).await.code, 17, "a working NameServer");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn it_lists_the_configured_addresses_for_every_subgroup() {
    let list = "192.0.2.10:9876;192.0.2.11:9876";
    let options = HttpOptions { nsaddr: Some(String::from(list)), ..HttpOptions::default() };
    let server = ConsoleServer::start_with(options, |_| {}).await;
    // The default subgroup, a custom one, and the unit form a client with a unit name asks for.
    for path in ["/rocketmq/nsaddr", "/rocketmq/ns-group", "/rocketmq/nsaddr-unit1?nofix=1"] {
        let response = server.get(path).await;
        assert_eq!((response.status, response.text().as_str()), (200, list), "{path}");
    }
    assert_eq!(server.get("/rocketmq/").await.status, 404);
    server.stop().await.unwrap();
}
