//! Golden vectors: the byte examples of PROTOCOL.md (real fastjson output) and frames captured
//! from real RocketMQ software, decoded, typed and re-encoded.

use nameserver_core::codec::{self, DecodeError, Limits};
use nameserver_core::json::{JsonStyle, WriteJson, from_fastjson};
use nameserver_core::protocol::body::{
    BrokerMemberGroup, ClusterInfo, DataVersion, KvTable, RegisterBrokerBody, TopicConfig, TopicList, TopicRouteData,
};
use nameserver_core::protocol::{LanguageCode, RemotingCommand, Request, RequestCode, SerializeType};

fn hex(s: &str) -> Vec<u8> {
    let digits: String = s.chars().filter(char::is_ascii_hexdigit).collect();
    (0..digits.len()).step_by(2).map(|i| u8::from_str_radix(&digits[i..i + 2], 16).unwrap()).collect()
}

fn decode_one(bytes: &[u8]) -> RemotingCommand {
    let (cmd, used) = codec::decode(bytes, &Limits::DEFAULT).unwrap().expect("a whole frame");
    assert_eq!(used, bytes.len(), "the frame uses every byte");
    cmd
}

fn route_query() -> RemotingCommand {
    let mut cmd = RemotingCommand::request(RequestCode::GetRouteInfoByTopic).with_field("topic", "TopicTest");
    cmd.opaque = 7;
    cmd.version = 479;
    cmd
}

#[test]
fn protocol_1_4_json_header_frame_is_byte_exact() {
    let header = r#"{"code":105,"extFields":{"topic":"TopicTest"},"flag":0,"language":"JAVA","opaque":7,"serializeTypeCurrentRPC":"JSON","version":479}"#;
    assert_eq!(header.len(), 131);
    let mut expected = hex("00000087 00000083");
    expected.extend_from_slice(header.as_bytes());
    assert_eq!(codec::encode_to_vec(&route_query()).unwrap(), expected);
    let back = decode_one(&expected);
    assert_eq!(back, route_query());
    assert_eq!(codec::encode_to_vec(&back).unwrap(), expected);
}

#[test]
fn protocol_1_4_binary_header_frame_is_byte_exact() {
    let frame = hex(
        "0000002d 01000029 0069 00 01df 00000007 00000000 00000000 00000014 0005 746f706963 00000009 546f70696354657374",
    );
    let cmd = decode_one(&frame);
    assert_eq!(cmd.serialize_type, SerializeType::Rocketmq);
    assert_eq!(cmd.request_code(), RequestCode::GetRouteInfoByTopic);
    assert_eq!((cmd.opaque, cmd.version, cmd.flag, cmd.language), (7, 479, 0, LanguageCode::Java));
    assert_eq!(cmd.field("topic"), Some("TopicTest"));
    assert_eq!(cmd.remark, None);
    assert_eq!(codec::encode_to_vec(&cmd).unwrap(), frame);
    // The same command with a JSON header is the §1.4 JSON frame.
    let json = RemotingCommand { serialize_type: SerializeType::Json, ..cmd };
    assert_eq!(json, route_query());
}

#[test]
fn protocol_2_2_response_header_round_trips() {
    let header = r#"{"code":17,"flag":1,"language":"JAVA","opaque":7,"remark":"No topic route info in name server for the topic: X\nSee https://rocketmq.apache.org/docs/bestPractice/06FAQ for further details.","serializeTypeCurrentRPC":"JSON","version":0}"#;
    let mut frame = Vec::new();
    frame.extend_from_slice(&(4 + header.len() as u32).to_be_bytes());
    frame.extend_from_slice(&(header.len() as u32).to_be_bytes());
    frame.extend_from_slice(header.as_bytes());
    let cmd = decode_one(&frame);
    assert!(cmd.is_response());
    assert_eq!(cmd.remark.as_deref().unwrap().lines().count(), 2);
    assert_eq!(cmd.ext_fields, None);
    assert_eq!(codec::encode_to_vec(&cmd).unwrap(), frame);
}

/// Decodes `text` as `T` and writes it back in `style`: it must be byte-identical.
fn round_trip<T: serde::de::DeserializeOwned + WriteJson>(text: &str, style: JsonStyle) -> T {
    let value: T = from_fastjson(text.as_bytes()).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(String::from_utf8(value.to_json(style)).unwrap(), text);
    value
}

const ROUTE_PLAIN: &str = r#"{"brokerDatas":[{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:10921"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false},{"brokerAddrs":{0:"127.0.0.2:10911"},"brokerName":"broker-b","cluster":"DefaultCluster","enableActingMaster":true,"zoneName":"zone1"}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-b","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4},{"brokerName":"broker-a","perm":6,"readQueueNums":8,"topicSysFlag":0,"writeQueueNums":8}]}"#;

#[test]
fn protocol_8_3_topic_route_data_in_both_styles() {
    let plain: TopicRouteData = round_trip(ROUTE_PLAIN, JsonStyle::Plain);
    let standard = ROUTE_PLAIN.replace("{0:", "{\"0\":").replace(",1:", ",\"1\":");
    let from_standard: TopicRouteData = round_trip(&standard, JsonStyle::Standard);
    assert_eq!(plain, from_standard);
    assert_eq!(plain.broker_datas[0].broker_addrs.len(), 2);
    // Standard output is strict JSON.
    serde_json::from_str::<serde_json::Value>(&standard).unwrap();
    assert!(serde_json::from_str::<serde_json::Value>(ROUTE_PLAIN).is_err(), "plain style is not JSON");
}

#[test]
fn protocol_8_3_route_with_every_optional_part() {
    let text = r#"{"brokerDatas":[{"brokerAddrs":{"0":"127.0.0.1:10911"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false}],"filterServerTable":{"127.0.0.1:10911":["127.0.0.1:30000"]},"orderTopicConf":"broker-a:4;broker-b:4","queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":8,"topicSysFlag":0,"writeQueueNums":8}],"topicQueueMappingByBroker":{"broker-a":{"bname":"broker-a","currIdMap":{"0":0,"1":3},"dirty":false,"epoch":1,"scope":"__global__","topic":"T","totalQueues":8}}}"#;
    let route: TopicRouteData = round_trip(text, JsonStyle::Standard);
    let plain = String::from_utf8(route.to_json(JsonStyle::Plain)).unwrap();
    assert!(plain.contains(r#""currIdMap":{0:0,1:3}"#), "{plain}");
}

#[test]
fn protocol_8_3_escaping() {
    let route = TopicRouteData { order_topic_conf: Some("a/bé中".into()), ..TopicRouteData::default() };
    let plain = String::from_utf8(route.to_json(JsonStyle::Plain)).unwrap();
    let standard = String::from_utf8(route.to_json(JsonStyle::Standard)).unwrap();
    assert!(plain.contains(r#""orderTopicConf":"a/bé中""#));
    // fastjson2 (5.5.0) writes `/` and non-ASCII raw in the standard style too.
    assert!(standard.contains(r#""orderTopicConf":"a/bé中""#));
    assert_eq!(from_fastjson::<TopicRouteData>(standard.as_bytes()).unwrap(), route);
}

#[test]
fn protocol_8_4_cluster_info() {
    let text = r#"{"brokerAddrTable":{"broker-b":{"brokerAddrs":{0:"127.0.0.2:10911"},"brokerName":"broker-b","cluster":"DefaultCluster","enableActingMaster":true,"zoneName":"zone1"},"broker-a":{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:10921"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false}},"clusterAddrTable":{"DefaultCluster":["broker-b","broker-a"]}}"#;
    let info: ClusterInfo = round_trip(text, JsonStyle::Plain);
    assert_eq!(info.broker_addr_table.len(), 2);
    round_trip::<ClusterInfo>(r#"{"brokerAddrTable":{},"clusterAddrTable":{}}"#, JsonStyle::Plain);
}

#[test]
fn protocol_8_5_to_8_9_small_bodies() {
    round_trip::<TopicList>(r#"{"topicList":["TopicTest","TBW102"]}"#, JsonStyle::Plain);
    round_trip::<TopicList>(
        r#"{"brokerAddr":"127.0.0.1:10911","topicList":["DefaultCluster","broker-a"]}"#,
        JsonStyle::Plain,
    );
    round_trip::<TopicList>(r#"{"topicList":[]}"#, JsonStyle::Plain);
    round_trip::<KvTable>(r#"{"table":{"TopicOrder":"broker-a:4;broker-b:4"}}"#, JsonStyle::Plain);
    round_trip::<DataVersion>(r#"{"counter":5,"stateVersion":0,"timestamp":1700000000000}"#, JsonStyle::Plain);
    round_trip::<TopicConfig>(
        r#"{"attributes":{},"order":false,"perm":6,"readQueueNums":4,"topicFilterType":"SINGLE_TAG","topicName":"TopicTest","topicSysFlag":0,"writeQueueNums":4}"#,
        JsonStyle::Plain,
    );
    for text in [
        r#"{"brokerMemberGroup":{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:10921"},"brokerName":"broker-a","cluster":"DefaultCluster"}}"#,
        r#"{"brokerMemberGroup":{"brokerAddrs":{},"brokerName":"nobroker","cluster":"C"}}"#,
    ] {
        let group = BrokerMemberGroup::from_response_body(text.as_bytes()).unwrap();
        assert_eq!(String::from_utf8(group.to_json(JsonStyle::Plain)).unwrap(), text);
    }
}

#[test]
fn protocol_9_1_register_body() {
    let text = r#"{"filterServerList":[],"topicConfigSerializeWrapper":{"dataVersion":{"counter":5,"stateVersion":0,"timestamp":1700000000000},"mappingDataVersion":{"counter":0,"stateVersion":0,"timestamp":1700000000001},"topicConfigTable":{"TopicTest":{"attributes":{},"order":false,"perm":6,"readQueueNums":4,"topicFilterType":"SINGLE_TAG","topicName":"TopicTest","topicSysFlag":0,"writeQueueNums":4}},"topicQueueMappingDetailMap":{},"topicQueueMappingInfoMap":{}}}"#;
    let body = RegisterBrokerBody::decode(text.as_bytes(), false, 479, 1 << 20).unwrap();
    assert_eq!(String::from_utf8(body.to_json(JsonStyle::Plain)).unwrap(), text);
    let packed = body.encode_compressed(479);
    let unpacked = RegisterBrokerBody::decode(&packed, true, 479, 1 << 20).unwrap();
    assert_eq!(unpacked.topic_config_wrapper.topic_config_table, body.topic_config_wrapper.topic_config_table);
}

#[derive(serde::Deserialize)]
struct Vector {
    sender: String,
    code: i32,
    header: serde_json::Value,
    body_text: String,
    frame_hex: String,
}

fn vectors() -> Vec<Vector> {
    include_str!("../testdata/real-client-requests.jsonl").lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn real_client_frames_decode_and_parse() {
    let all = vectors();
    assert!(all.len() >= 18);
    for v in &all {
        let frame = hex(&v.frame_hex);
        let cmd = decode_one(&frame);
        assert_eq!(cmd.code, v.code, "{}", v.sender);
        assert_eq!(i64::from(cmd.opaque), v.header["opaque"].as_i64().unwrap());
        assert_eq!(i64::from(cmd.version), v.header["version"].as_i64().unwrap());
        assert_eq!(cmd.language.name(), v.header["language"].as_str());
        assert_eq!(cmd.body, v.body_text.as_bytes());
        if let Some(fields) = v.header["extFields"].as_object() {
            for (k, val) in fields {
                assert_eq!(cmd.field(k), val.as_str(), "{k}");
            }
        }
        let request =
            Request::parse(&cmd, &Limits::DEFAULT).unwrap_or_else(|e| panic!("{} code {}: {e}", v.sender, v.code));
        assert!(!matches!(request, Request::Unsupported(_)), "code {}", v.code);
        // Our encoding of the same command decodes to the same command.
        assert_eq!(decode_one(&codec::encode_to_vec(&cmd).unwrap()), cmd);
    }
}

#[test]
fn real_broker_registration_is_understood() {
    let v = vectors().into_iter().find(|v| v.code == 103).unwrap();
    let cmd = decode_one(&hex(&v.frame_hex));
    let Request::RegisterBroker(register) = Request::parse(&cmd, &Limits::DEFAULT).unwrap() else { panic!() };
    assert_eq!(register.broker.broker_name.as_str(), "broker-a");
    assert_eq!(register.enable_acting_master, Some(false));
    let table = &register.body.topic_config_wrapper.topic_config_table;
    assert!(table.len() > 10);
    assert_eq!(table.get("TBW102").unwrap().perm, 7);
    assert_eq!(table.get("rmq_sys_SYNC_BROKER_MEMBER__broker-a").unwrap().perm, 1);
}

#[test]
fn ali_ons_header_has_no_serialize_type_field() {
    let v = vectors().into_iter().find(|v| v.sender.contains("ali-ons")).unwrap();
    assert!(v.header.get("serializeTypeCurrentRPC").is_none());
    let cmd = decode_one(&hex(&v.frame_hex));
    assert_eq!(cmd.version, 121);
}

#[test]
fn every_prefix_of_a_real_frame_is_incomplete_not_an_error() {
    for v in vectors() {
        let frame = hex(&v.frame_hex);
        for cut in [0, 1, 3, 4, 7, 8, frame.len() / 2, frame.len() - 1] {
            assert_eq!(codec::decode(&frame[..cut], &Limits::DEFAULT), Ok(None));
        }
    }
}

#[test]
fn frames_over_the_limit_are_refused_before_buffering() {
    let limits = Limits { max_frame: 1024, ..Limits::DEFAULT };
    let v = vectors().into_iter().find(|v| v.code == 103).unwrap();
    let frame = hex(&v.frame_hex);
    assert!(matches!(codec::decode(&frame[..4], &limits), Err(DecodeError::FrameTooLarge { .. })));
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn text() -> impl Strategy<Value = String> {
        proptest::string::string_regex("[ -~\\n\\t\u{e9}\u{4e2d}\u{1F600}\"\\\\/]{1,24}").unwrap()
    }

    fn command() -> impl Strategy<Value = RemotingCommand> {
        (
            any::<i16>(),
            0..14u8,
            any::<i16>(),
            any::<i32>(),
            0..4i32,
            proptest::option::of(text()),
            proptest::option::of(proptest::collection::btree_map(text(), text(), 0..6)),
            proptest::collection::vec(any::<u8>(), 0..64),
            any::<bool>(),
        )
            .prop_map(|(code, lang, version, opaque, flag, remark, ext, body, binary)| RemotingCommand {
                code: i32::from(code),
                language: LanguageCode::from(lang),
                version: i32::from(version),
                opaque,
                flag,
                remark,
                // Both forms drop an empty map: the binary form has no way to say "empty".
                ext_fields: ext.filter(|m| !m.is_empty()),
                ext_fields_lossy: false,
                serialize_type: if binary { SerializeType::Rocketmq } else { SerializeType::Json },
                body,
            })
    }

    proptest! {
        #[test]
        fn encode_then_decode_is_identity(cmd in command()) {
            let bytes = codec::encode_to_vec(&cmd).unwrap();
            prop_assert_eq!(decode_one(&bytes), cmd);
        }

        #[test]
        fn decode_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            let _ = codec::decode(&bytes, &Limits::DEFAULT);
        }

        #[test]
        fn decode_never_panics_on_plausible_frames(cmd in command(), flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4)) {
            let mut bytes = codec::encode_to_vec(&cmd).unwrap();
            for (at, value) in flips {
                let i = at % bytes.len();
                bytes[i] = value;
            }
            if let Ok(Some((_, used))) = codec::decode(&bytes, &Limits::DEFAULT) {
                prop_assert!(used <= bytes.len());
            }
        }

        #[test]
        fn body_reader_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = from_fastjson::<TopicRouteData>(&bytes);
            let _ = RegisterBrokerBody::decode(&bytes, true, 479, 1 << 16);
            let _ = RegisterBrokerBody::decode(&bytes, false, 479, 1 << 16);
        }
    }
}
