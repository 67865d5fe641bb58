//! Requests: unknown codes, oneway requests, missing fields, responses from a peer.

use super::*;

#[test]
fn h12_unknown_request_codes_are_not_supported_and_keep_the_connection() {
    let (server, witness) = start(&[]);
    let mut peer = server.peer();
    for (opaque, code) in [4242, -1, 0, i32::MAX, i32::MIN, 32_767, 10].into_iter().enumerate() {
        let opaque = i32::try_from(opaque).unwrap();
        let reply = peer.call(&RemotingCommand { code, opaque, version: 479, ..RemotingCommand::default() });
        assert_eq!((reply.code, reply.opaque), (3, opaque), "code {code}: {reply:?}");
        assert_eq!(reply.remark, Some(format!(" request type {code} not supported")));
    }
    // The same in the ROCKETMQ header form.
    let cmd = RemotingCommand {
        code: 4243,
        opaque: 99,
        serialize_type: SerializeType::Rocketmq,
        ..RemotingCommand::default()
    };
    assert_eq!(peer.call(&cmd).code, 3);
    assert_eq!(peer.call(&route_query(WITNESS_TOPIC, 100)).code, 0);
    witness.finish();
}

#[test]
fn h13_oneway_requests_get_no_reply_and_still_take_effect() {
    let (server, witness) = start(&[]);
    let mut peer = server.peer();
    let oneway = |mut cmd: RemotingCommand| {
        cmd.flag = FLAG_ONEWAY;
        codec::encode_to_vec(&cmd).unwrap()
    };
    let mut burst = Vec::new();
    burst.extend(oneway(route_query(WITNESS_TOPIC, 1)));
    burst.extend(oneway(route_query("NoSuchTopic", 2)));
    burst.extend(oneway(RemotingCommand { code: 4242, opaque: 3, ..RemotingCommand::default() }));
    burst.extend(oneway(request(RequestCode::GetKvConfig, 4, &[])));
    burst.extend(oneway(register("OnewayCluster", "oneway", "127.0.0.1:8", &["OnewayTopic", "OnewayTopic2"], 5)));
    burst.extend(oneway(request(RequestCode::PutKvConfig, 6, &[("namespace", "ns"), ("key", "k"), ("value", "v")])));
    burst.extend(
        codec::encode_to_vec(&request(RequestCode::GetKvConfig, 7, &[("namespace", "ns"), ("key", "k")])).unwrap(),
    );
    assert!(peer.send(&burst));
    // The first reply on the connection is the one to the only two-way request, and the
    // oneway put before it took effect: the owner handles a connection's requests in order.
    let reply = peer.reply();
    assert_eq!((reply.code, reply.opaque, reply.field("value")), (0, 7, Some("v")), "{reply:?}");
    // So did the oneway registration; its route was published before that reply was sent.
    // (A route query sent right behind a oneway write, without waiting for a reply, may be
    // answered from the route snapshot before the write is applied: nothing tells the
    // connection when a oneway request is done. Java gives no order either: registrations
    // and route queries run in different thread pools.)
    let route = peer.call(&route_query("OnewayTopic", 8));
    assert_eq!(route.code, 0, "{route:?}");
    assert!(peer.silent_for(Duration::from_millis(300)));
    witness.finish();
}

#[test]
fn h14_missing_or_invalid_header_fields_are_system_errors() {
    let (server, witness) = start(&[]);
    let mut peer = server.peer();
    let broker = [("clusterName", "c"), ("brokerName", "b"), ("brokerAddr", "127.0.0.1:9"), ("haServerAddr", "x")];
    // A route query without a topic: Java 5.5.0 looks up "null" (the Java oracle's answer).
    let not_found = "No topic route info in name server for the topic: null\nSee https://rocketmq.apache.org/docs/bestPractice/06FAQ for further details.";
    for cmd in [
        request(RequestCode::GetRouteInfoByTopic, 0, &[]),
        RemotingCommand { code: 105, version: 479, ..RemotingCommand::default() },
    ] {
        let reply = peer.call(&cmd);
        assert_eq!((reply.code, reply.remark.as_deref()), (17, Some(not_found)), "{cmd:?}: {reply:?}");
    }
    for (opaque, (cmd, remark)) in [
        (request(RequestCode::RegisterBroker, 0, &broker), "the custom field <brokerId> is null"),
        (request(RequestCode::RegisterBroker, 0, &broker[1..]), "the custom field <clusterName> is null"),
        (
            request(
                RequestCode::UnregisterBroker,
                0,
                &[("clusterName", "c"), ("brokerAddr", "a"), ("brokerName", "b"), ("brokerId", "zero")],
            ),
            "the custom field <brokerId> is invalid: `zero`",
        ),
        (request(RequestCode::PutKvConfig, 0, &[("namespace", "ns")]), "namespace or key is null"),
    ]
    .into_iter()
    .enumerate()
    {
        let mut cmd = cmd;
        cmd.opaque = i32::try_from(opaque).unwrap();
        let reply = peer.call(&cmd);
        assert_eq!((reply.code, reply.opaque), (1, cmd.opaque), "{cmd:?}: {reply:?}");
        assert_eq!(reply.remark.as_deref(), Some(remark), "{cmd:?}");
    }
    // Where Java's null cannot corrupt the tables it carries on, and so does this server
    // (PROTOCOL.md §3): answered, nothing changed.
    for (opaque, (cmd, code)) in [
        (request(RequestCode::GetKvConfig, 0, &[("key", "k")]), 22),
        // Java 5.5.0 throws without clusterName or brokerAddr (the Java oracle's answer).
        (request(RequestCode::QueryDataVersion, 0, &[]), 1),
        (request(RequestCode::BrokerHeartbeat, 0, &[("clusterName", "c")]), 1),
        (request(RequestCode::GetTopicsByCluster, 0, &[]), 0),
        (request(RequestCode::DeleteTopicInNamesrv, 0, &[]), 0),
        (request(RequestCode::WipeWritePermOfBroker, 0, &[]), 0),
        (request(RequestCode::RegisterBroker, 0, &[("bodyCrc32", "x"), ("heartbeatTimeoutMillis", "y")]), 1),
    ]
    .into_iter()
    .enumerate()
    {
        let mut cmd = cmd;
        cmd.opaque = 50 + i32::try_from(opaque).unwrap();
        let reply = peer.call(&cmd);
        assert_eq!((reply.code, reply.opaque), (code, cmd.opaque), "{cmd:?}: {reply:?}");
    }
    assert_eq!(peer.call(&route_query(WITNESS_TOPIC, 100)).code, 0);
    witness.finish();
}

#[test]
fn h20_a_response_from_a_peer_is_ignored() {
    let (server, witness) = start(&[]);
    let mut peer = server.peer();
    let mut response = route_query(WITNESS_TOPIC, 1);
    response.flag = FLAG_RESPONSE;
    let mut unknown = RemotingCommand { code: 0, opaque: 2, flag: FLAG_RESPONSE, ..RemotingCommand::default() };
    unknown.body = b"{}".to_vec();
    let mut burst = codec::encode_to_vec(&response).unwrap();
    burst.extend(codec::encode_to_vec(&unknown).unwrap());
    burst.extend(codec::encode_to_vec(&route_query(WITNESS_TOPIC, 3)).unwrap());
    assert!(peer.send(&burst));
    assert_eq!(peer.reply().opaque, 3, "the responses got no reply");
    assert!(peer.silent_for(Duration::from_millis(300)));
    witness.finish();
}
