//! Exact reply bytes over TCP: real client frames in, the bytes Java (and the core) would
//! write out.

use crate::support;

use nameserver_core::protocol::{FLAG_ONEWAY, RemotingCommand, RequestCode};
use support::{
    CoreModel, TestServer, ali_ons_route_query, decode, encode, hex, real_frames, request, route_query, within,
};

/// Prefix and header of a reply frame written out literally.
fn frame(prefix_hex: &str, header: &str) -> Vec<u8> {
    let mut bytes = hex(prefix_hex);
    bytes.extend_from_slice(header.as_bytes());
    bytes
}

#[tokio::test]
async fn unknown_topic_gets_code_17_with_javas_remark() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let reply = within("route reply", client.call(&ali_ons_route_query())).await;
    let expected = frame(
        "000000f9 000000f5",
        r#"{"code":17,"flag":1,"language":"JAVA","opaque":1,"remark":"No topic route info in name server for the topic: TopicTest\nSee https://rocketmq.apache.org/docs/bestPractice/06FAQ for further details.","serializeTypeCurrentRPC":"JSON","version":513}"#,
    );
    assert_eq!(String::from_utf8_lossy(&reply), String::from_utf8_lossy(&expected));
    assert_eq!(reply, expected);
}

#[tokio::test]
async fn unknown_request_code_gets_code_3_and_the_connection_stays_open() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let mut unknown = RemotingCommand { code: 4242, ..RemotingCommand::default() };
    unknown.opaque = 77;
    let reply = within("code 3 reply", client.call(&encode(&unknown))).await;
    let expected = frame(
        "00000090 0000008c",
        r#"{"code":3,"flag":1,"language":"JAVA","opaque":77,"remark":" request type 4242 not supported","serializeTypeCurrentRPC":"JSON","version":513}"#,
    );
    assert_eq!(String::from_utf8_lossy(&reply), String::from_utf8_lossy(&expected));
    assert_eq!(reply, expected);
    let next = within("reply after code 3", client.request(&route_query("TopicTest", 78))).await;
    assert_eq!((next.code, next.opaque), (17, 78));
}

#[tokio::test]
async fn oneway_requests_get_no_reply() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let mut oneway_route = route_query("TopicTest", 5);
    oneway_route.flag = FLAG_ONEWAY;
    let mut oneway_unknown = request(RequestCode::from(4242), 6, &[]);
    oneway_unknown.flag = FLAG_ONEWAY;
    let mut oneway_heartbeat = request(RequestCode::BrokerHeartbeat, 7, &[]);
    oneway_heartbeat.flag = FLAG_ONEWAY;
    for cmd in [&oneway_route, &oneway_unknown, &oneway_heartbeat] {
        client.send(&encode(cmd)).await;
    }
    let reply = within("reply to the two-way request", client.request(&route_query("TopicTest", 8))).await;
    assert_eq!(reply.opaque, 8, "the first reply answers the first two-way request");
}

#[tokio::test]
async fn every_real_client_frame_gets_the_cores_reply() {
    let server = TestServer::start().await;
    let mut model = CoreModel::new(&server.config);
    let mut client = server.client().await;
    for real in real_frames() {
        let expected = model.reply(&real.bytes).expect("every captured request wants a reply");
        let reply = within("reply", client.call(&real.bytes)).await;
        assert_eq!(
            String::from_utf8_lossy(&reply),
            String::from_utf8_lossy(&expected),
            "code {} from {}",
            real.code,
            real.sender
        );
    }
}

#[tokio::test]
async fn binary_header_request_gets_a_json_reply() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    // PROTOCOL.md §1.4: GET_ROUTEINFO_BY_TOPIC for TopicTest, ROCKETMQ header, opaque 7.
    let query = hex(
        "0000002d 01000029 0069 00 01df 00000007 00000000 00000000 00000014 0005 746f706963 00000009 546f70696354657374",
    );
    let reply = within("reply", client.call(&query)).await;
    assert_eq!(reply, CoreModel::new(&server.config).reply(&query).unwrap());
    assert_eq!(&reply[4..8], &[0, 0, 0, 0xf5], "JSON header");
    assert_eq!(decode(&reply).opaque, 7);
}
