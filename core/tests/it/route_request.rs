//! `codec::route_request`, the route path's reader that takes GET_ROUTEINFO_BY_TOPIC straight
//! from a frame without decoding it into a command: wherever it answers, it must answer what
//! `codec::decode` then `Request::parse` would, for every header shape a peer may send (fields
//! in any order, extra and unknown fields, repeated, null and escaped ones, both serialize
//! types); and it must answer for the headers real clients send, or the route path is slow.

use nameserver_core::codec::{self, Limits};
use nameserver_core::protocol::{RemotingCommand, Request, RequestCode, RouteRequest, SerializeType};

/// What decoding in full, then parsing, makes of `frame`: `None` when it is not a route query
/// the route path answers (a response, another code, a header error, a bad frame).
fn reference(frame: &[u8]) -> Option<(i32, bool, String, bool, Option<String>)> {
    let (cmd, _) = codec::decode(frame, &Limits::DEFAULT).ok()??;
    if cmd.is_response() || cmd.request_code() != RequestCode::GetRouteInfoByTopic {
        return None;
    }
    let Ok(Request::GetRouteInfo(q)) = Request::parse(&cmd, &Limits::DEFAULT) else { return None };
    Some((cmd.opaque, cmd.is_oneway(), q.topic.into_string(), q.standard_json, q.zone))
}

fn fast(frame: &[u8]) -> Option<(i32, bool, String, bool, Option<String>)> {
    let RouteRequest { opaque, oneway, query } = codec::route_request(frame)?;
    Some((opaque, oneway, query.topic.to_owned(), query.standard_json, query.zone.map(str::to_owned)))
}

/// Checks `frame` both ways; returns whether the fast reader answered.
fn agrees(frame: &[u8]) -> bool {
    let (fast, full) = (fast(frame), reference(frame));
    if let Some(fast) = &fast {
        assert_eq!(Some(fast), full.as_ref(), "{}", String::from_utf8_lossy(frame));
    }
    fast.is_some()
}

fn json_frame(header: &str) -> Vec<u8> {
    let mut frame = Vec::new();
    frame.extend_from_slice(&u32::try_from(4 + header.len()).unwrap().to_be_bytes());
    frame.extend_from_slice(&u32::try_from(header.len()).unwrap().to_be_bytes());
    frame.extend_from_slice(header.as_bytes());
    frame
}

/// A ROCKETMQ-header frame: code 105, version, opaque 7, flag, a remark, then `fields` as
/// given (so repeated and empty entries can be written).
fn binary_frame(version: i16, flag: i32, remark: &str, fields: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut header = Vec::new();
    header.extend_from_slice(&105i16.to_be_bytes());
    header.push(0);
    header.extend_from_slice(&version.to_be_bytes());
    header.extend_from_slice(&7i32.to_be_bytes());
    header.extend_from_slice(&flag.to_be_bytes());
    header.extend_from_slice(&u32::try_from(remark.len()).unwrap().to_be_bytes());
    header.extend_from_slice(remark.as_bytes());
    let mut ext = Vec::new();
    for (key, value) in fields {
        ext.extend_from_slice(&u16::try_from(key.len()).unwrap().to_be_bytes());
        ext.extend_from_slice(key);
        ext.extend_from_slice(&u32::try_from(value.len()).unwrap().to_be_bytes());
        ext.extend_from_slice(value);
    }
    header.extend_from_slice(&u32::try_from(ext.len()).unwrap().to_be_bytes());
    header.extend_from_slice(&ext);
    let mut frame = Vec::new();
    frame.extend_from_slice(&u32::try_from(4 + header.len()).unwrap().to_be_bytes());
    frame.extend_from_slice(&(0x0100_0000 | u32::try_from(header.len()).unwrap()).to_be_bytes());
    frame.extend_from_slice(&header);
    frame
}

#[test]
fn json_headers_in_every_shape_read_as_decoding_reads_them() {
    // (header, whether the fast reader must answer it)
    let cases: &[(&str, bool)] = &[
        // A Java client's header, and the same fields in other orders.
        (
            r#"{"code":105,"extFields":{"topic":"T"},"flag":0,"language":"JAVA","opaque":7,"serializeTypeCurrentRPC":"JSON","version":479}"#,
            true,
        ),
        (r#"{"version":479,"opaque":7,"flag":0,"language":"JAVA","extFields":{"topic":"T"},"code":105}"#, true),
        (r#"{"extFields":{"topic":"T"},"code":105}"#, true),
        (" { \"code\" : 105 ,\n\t\"extFields\" : { \"topic\" : \"T\" } , \"opaque\" : -3 } ", true),
        // The JSON style: by version, or asked for (Java's Boolean.parseBoolean, trimmed here).
        (r#"{"code":105,"version":400,"extFields":{"topic":"T"}}"#, true),
        (r#"{"code":105,"version":401,"extFields":{"topic":"T"}}"#, true),
        (r#"{"code":105,"version":0,"extFields":{"topic":"T","acceptStandardJsonOnly":"TRUE"}}"#, true),
        (r#"{"code":105,"version":0,"extFields":{"acceptStandardJsonOnly":" true ","topic":"T"}}"#, true),
        (r#"{"code":105,"version":0,"extFields":{"topic":"T","acceptStandardJsonOnly":"yes"}}"#, true),
        // Zones: only with __ZONE_MODE true and a name that is not blank.
        (r#"{"code":105,"extFields":{"topic":"T","__ZONE_MODE":"true","__ZONE_NAME":" z1 "}}"#, true),
        (r#"{"code":105,"extFields":{"__ZONE_NAME":"z1","topic":"T"}}"#, true),
        (r#"{"code":105,"extFields":{"topic":"T","__ZONE_MODE":"true","__ZONE_NAME":"  "}}"#, true),
        (r#"{"code":105,"extFields":{"topic":"T","__ZONE_MODE":"false","__ZONE_NAME":"z1"}}"#, true),
        // Extra extFields are ignored, whatever their value (a null one too).
        (r#"{"code":105,"extFields":{"lo":"x","topic":"T","zz":"y","signature":"s","n":null}}"#, true),
        (r#"{"code":105,"extFields":{"topic":""}}"#, true),
        (r#"{"code":105,"remark":"a remark","extFields":{"topic":"T"}}"#, true),
        (r#"{"code":105,"remark":null,"flag":null,"extFields":{"topic":"T"}}"#, true),
        // Oneway; a response is no query.
        (r#"{"code":105,"flag":2,"opaque":9,"extFields":{"topic":"T"}}"#, true),
        (r#"{"code":105,"flag":1,"extFields":{"topic":"T"}}"#, false),
        (r#"{"code":105,"flag":3,"extFields":{"topic":"T"}}"#, false),
        // A later field replaces an earlier one, as decoding does.
        (r#"{"code":105,"opaque":1,"opaque":2,"extFields":{"topic":"A"},"extFields":{"topic":"B"}}"#, true),
        // Left to decoding: repeated, null and escaped route fields, unknown top-level keys,
        // lenient numbers, anything after the object, no topic, other codes.
        (r#"{"code":105,"extFields":{"topic":"A","topic":"B"}}"#, false),
        (r#"{"code":105,"extFields":{"topic":"A","topic":null}}"#, false),
        (r#"{"code":105,"extFields":{"topic":null}}"#, false),
        (r#"{"code":105,"extFields":{"topic":"T\u0041"}}"#, false),
        (r#"{"code":105,"extFields":{"to\u0070ic":"T"}}"#, false),
        (r#"{"code":105,"extFields":{"topic":"T","acceptStandardJsonOnly":"tr\u0075e"}}"#, false),
        (r#"{"code":105,"unknown":1,"extFields":{"topic":"T"}}"#, false),
        (r#"{"code":"105","extFields":{"topic":"T"}}"#, false),
        (r#"{"code":105,"version":4.01E2,"extFields":{"topic":"T"}}"#, false),
        (r#"{"code":105,"extFields":{"topic":"T"}} x"#, false),
        (r#"{"code":105,"extFields":{"topic":"T"}"#, false),
        (r#"{"code":105,"extFields":null}"#, false),
        (r#"{"code":105}"#, false),
        (r#"{"code":106,"extFields":{"topic":"T"}}"#, false),
        (r#"{"extFields":{"topic":"T"}}"#, false),
        ("[105]", false),
        ("{}", false),
    ];
    for (header, answers) in cases {
        assert_eq!(agrees(&json_frame(header)), *answers, "{header}");
    }
}

#[test]
fn binary_headers_read_as_decoding_reads_them() {
    let cases: &[(Vec<u8>, bool)] = &[
        (binary_frame(479, 0, "", &[(b"topic", b"T")]), true),
        (binary_frame(400, 0, "", &[(b"topic", b"T")]), true),
        (binary_frame(0, 0, "r", &[(b"x", b"1"), (b"topic", b"T"), (b"acceptStandardJsonOnly", b"true")]), true),
        (binary_frame(479, 0, "", &[(b"topic", b"T"), (b"__ZONE_MODE", b"TRUE"), (b"__ZONE_NAME", b"z")]), true),
        (binary_frame(479, 2, "", &[(b"topic", b"T")]), true),
        (binary_frame(479, 0, "", &[(b"topic", b"T"), (b"other", b"")]), true),
        // An empty value is no value: no topic.
        (binary_frame(479, 0, "", &[(b"topic", b"")]), false),
        (binary_frame(479, 1, "", &[(b"topic", b"T")]), false),
        (binary_frame(479, 0, "", &[(b"topic", b"A"), (b"topic", b"B")]), false),
        (binary_frame(479, 0, "", &[(b"topic", b"\xff")]), false),
        (binary_frame(479, 0, "", &[]), false),
    ];
    for (frame, answers) in cases {
        assert_eq!(agrees(frame), *answers, "{frame:?}");
    }
    // Lengths that overrun the header: decoding fails, and so does the fast reader.
    let good = binary_frame(479, 0, "", &[(b"topic", b"T")]);
    for cut in 9..good.len() {
        let mut bad = good[..cut].to_vec();
        let header_len = u32::try_from(cut - 8).unwrap();
        bad[..4].copy_from_slice(&u32::try_from(cut - 4).unwrap().to_be_bytes());
        bad[4..8].copy_from_slice(&(0x0100_0000 | header_len).to_be_bytes());
        assert!(!agrees(&bad), "cut at {cut}");
    }
}

/// Every frame a real client sent: the route queries are read by the fast reader (so the
/// route path never decodes them), the same as decoding reads them; nothing else is.
#[test]
fn real_client_route_queries_take_the_fast_reader() {
    let mut routes = 0;
    for line in include_str!("../testdata/real-client-requests.jsonl").lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let hex = v["frame_hex"].as_str().unwrap();
        let frame: Vec<u8> =
            (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
        let is_route = v["code"] == 105;
        assert_eq!(agrees(&frame), is_route, "{}", v["sender"]);
        routes += usize::from(is_route);
    }
    assert!(routes >= 6);
    // And a query as our own tools and Java send it, in both serialize types.
    let mut cmd = RemotingCommand::request(RequestCode::GetRouteInfoByTopic).with_field("topic", "TopicTest");
    cmd.version = 479;
    for serialize_type in [SerializeType::Json, SerializeType::Rocketmq] {
        cmd.serialize_type = serialize_type;
        assert!(agrees(&codec::encode_to_vec(&cmd).unwrap()), "{serialize_type:?}");
    }
}
