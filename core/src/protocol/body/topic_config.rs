//! `TopicConfig`: one topic as a broker describes it in its registration.

use alloc::borrow::Cow;
use alloc::collections::BTreeMap;
use alloc::string::String;

use serde::{Deserialize, Deserializer};

use crate::json::{JsonWriter, WriteJson};
use crate::names::TopicName;

/// Permission bits of topics and queues (`PermName`).
pub mod perm {
    /// `PERM_PRIORITY`
    pub const PRIORITY: i32 = 8;
    /// `PERM_READ`
    pub const READ: i32 = 4;
    /// `PERM_WRITE`
    pub const WRITE: i32 = 2;
    /// `PERM_INHERIT`
    pub const INHERIT: i32 = 1;

    /// Whether `perm` allows writing.
    #[must_use]
    pub const fn is_writeable(perm: i32) -> bool {
        perm & WRITE != 0
    }

    /// Whether `perm` allows reading.
    #[must_use]
    pub const fn is_readable(perm: i32) -> bool {
        perm & READ != 0
    }
}

/// A broker's configuration of one topic. Missing fields take Java's field defaults.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TopicConfig {
    /// The topic.
    pub topic_name: TopicName,
    /// Queues consumers read.
    pub read_queue_nums: i32,
    /// Queues producers write.
    pub write_queue_nums: i32,
    /// Permission bits ([`perm`]).
    pub perm: i32,
    /// `SINGLE_TAG` or `MULTI_TAG` (those two are not copied per topic).
    #[serde(deserialize_with = "filter_type")]
    pub topic_filter_type: Cow<'static, str>,
    /// Unit flags (bit 0 unit, bit 1 unit-sub).
    pub topic_sys_flag: i32,
    /// Whether the topic is ordered.
    pub order: bool,
    /// 5.x attributes (`queue.type`, `message.type`, …); absent in 4.9.x.
    pub attributes: BTreeMap<String, String>,
}

impl Default for TopicConfig {
    fn default() -> Self {
        Self {
            topic_name: TopicName::default(),
            read_queue_nums: 16,
            write_queue_nums: 16,
            perm: perm::READ | perm::WRITE,
            topic_filter_type: Cow::Borrowed(SINGLE_TAG),
            topic_sys_flag: 0,
            order: false,
            attributes: BTreeMap::new(),
        }
    }
}

/// `TopicFilterType.SINGLE_TAG`, the default.
const SINGLE_TAG: &str = "SINGLE_TAG";
/// `TopicFilterType.MULTI_TAG`.
const MULTI_TAG: &str = "MULTI_TAG";

/// A filter type as sent, sharing the two names Java has rather than copying them; `None`
/// for any other text (the compressed form allows no other).
pub(super) fn known_filter_type(text: &str) -> Option<Cow<'static, str>> {
    match text {
        SINGLE_TAG => Some(Cow::Borrowed(SINGLE_TAG)),
        MULTI_TAG => Some(Cow::Borrowed(MULTI_TAG)),
        _ => None,
    }
}

/// A filter type as sent in JSON, which allows any text.
fn filter_type_of(text: &str) -> Cow<'static, str> {
    known_filter_type(text).unwrap_or_else(|| Cow::Owned(String::from(text)))
}

fn filter_type<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Cow<'static, str>, D::Error> {
    struct Visitor;
    impl serde::de::Visitor<'_> for Visitor {
        type Value = Cow<'static, str>;

        fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.write_str("a topic filter type")
        }

        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(filter_type_of(v))
        }
    }
    deserializer.deserialize_str(Visitor)
}

impl TopicConfig {
    /// A read-write topic with `queues` read and write queues.
    #[must_use]
    pub fn new(topic: impl Into<TopicName>, queues: i32) -> Self {
        Self { topic_name: topic.into(), read_queue_nums: queues, write_queue_nums: queues, ..Self::default() }
    }
}

impl WriteJson for TopicConfig {
    fn write_json(&self, w: &mut JsonWriter<'_>) {
        w.object(|o| {
            o.key("attributes").object(|m| {
                for (k, v) in &self.attributes {
                    m.key(k).string(v);
                }
            });
            o.key("order").bool(self.order);
            o.key("perm").int(i64::from(self.perm));
            o.key("readQueueNums").int(i64::from(self.read_queue_nums));
            o.key("topicFilterType").string(&self.topic_filter_type);
            o.key("topicName").string(self.topic_name.as_str());
            o.key("topicSysFlag").int(i64::from(self.topic_sys_flag));
            o.key("writeQueueNums").int(i64::from(self.write_queue_nums));
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{JsonStyle, from_fastjson};

    #[test]
    fn matches_the_5x_broker_json() {
        // PROTOCOL.md §8.9.
        let text = br#"{"attributes":{},"order":false,"perm":6,"readQueueNums":4,"topicFilterType":"SINGLE_TAG","topicName":"TopicTest","topicSysFlag":0,"writeQueueNums":4}"#;
        let config = from_fastjson::<TopicConfig>(text).unwrap();
        assert_eq!(config, TopicConfig::new("TopicTest", 4));
        assert_eq!(config.to_json(JsonStyle::Plain), text);
    }
}
