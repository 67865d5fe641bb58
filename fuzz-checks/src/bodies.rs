//! The `bodies` target: every body reader on arbitrary bytes (the first byte picks the type)
//! never panics, and whatever parses writes back (plain style) to text that parses to the
//! same value, and to strict JSON in the standard style.
//!
//! | first byte % 10 | reader |
//! |---|---|
//! | 0 | `TopicRouteData` |
//! | 1 | `ClusterInfo` |
//! | 2 | `TopicList` |
//! | 3 | `KvTable` |
//! | 4 | `DataVersion` |
//! | 5 | `TopicConfig` |
//! | 6 | `BrokerMemberGroup` (a response body) |
//! | 7 | `RegisterBrokerBody`, JSON and zlib |
//! | 8 | `kvConfig.json` |
//! | 9 | a properties file |

use core::fmt::Debug;

use nameserver_core::KvConfig;
use nameserver_core::json::{JsonStyle, WriteJson, from_fastjson};
use nameserver_core::properties;
use nameserver_core::protocol::body::{
    BrokerMemberGroup, ClusterInfo, DataVersion, KvTable, RegisterBrokerBody, TopicConfig, TopicList, TopicRouteData,
};
use serde::de::DeserializeOwned;

fn round_trip<T: DeserializeOwned + WriteJson + PartialEq + Debug>(body: &[u8]) {
    let Ok(value) = from_fastjson::<T>(body) else { return };
    let plain = value.to_json(JsonStyle::Plain);
    let back = from_fastjson::<T>(&plain)
        .unwrap_or_else(|e| panic!("our plain output does not parse: {e}: {}", String::from_utf8_lossy(&plain)));
    assert_eq!(back, value);
    let standard = value.to_json(JsonStyle::Standard);
    if let Err(e) = serde_json::from_slice::<serde_json::Value>(&standard) {
        panic!("standard style is not strict JSON: {e}: {}", String::from_utf8_lossy(&standard));
    }
}

/// Runs one input: a selector byte and a body.
///
/// # Panics
/// When a property above breaks.
pub fn run(data: &[u8]) {
    const LIMIT: usize = 1 << 20;
    let Some((&selector, body)) = data.split_first() else { return };
    match selector % 10 {
        0 => round_trip::<TopicRouteData>(body),
        1 => round_trip::<ClusterInfo>(body),
        2 => round_trip::<TopicList>(body),
        3 => round_trip::<KvTable>(body),
        4 => round_trip::<DataVersion>(body),
        5 => round_trip::<TopicConfig>(body),
        6 => {
            if let Ok(group) = BrokerMemberGroup::from_response_body(body) {
                let text = group.to_json(JsonStyle::Plain);
                assert_eq!(BrokerMemberGroup::from_response_body(&text).unwrap(), group);
            }
        }
        7 => {
            for (compressed, version) in [(true, 479), (true, 400), (false, 30)] {
                let _ = RegisterBrokerBody::decode(body, compressed, version, LIMIT);
            }
            if let Ok(decoded) = RegisterBrokerBody::decode(body, false, 479, LIMIT) {
                let json = decoded.to_json(JsonStyle::Plain);
                let back = RegisterBrokerBody::decode(&json, false, 479, LIMIT)
                    .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&json)));
                assert_eq!(back, decoded);
            }
        }
        8 => {
            if let Ok(kv) = KvConfig::from_json(body) {
                assert_eq!(KvConfig::from_json(&kv.to_json()).unwrap(), kv);
            }
        }
        _ => {
            if let Ok(entries) = properties::parse(&String::from_utf8_lossy(body)) {
                assert_eq!(properties::parse(&properties::to_escaped_text(&entries)).unwrap(), entries);
            }
        }
    }
}
