//! `TopicList` and `KVTable`.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Deserialize;

use crate::json::{JsonWriter, WriteJson};

/// A set of topic names, sometimes with one broker address (`TopicList`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TopicList {
    /// One broker address (only GET_SYSTEM_TOPIC_LIST_FROM_NS sets it).
    pub broker_addr: Option<String>,
    /// The names (set semantics).
    pub topic_list: Vec<String>,
}

impl WriteJson for TopicList {
    fn write_json(&self, w: &mut JsonWriter<'_>) {
        w.object(|o| {
            o.opt_str("brokerAddr", self.broker_addr.as_deref());
            o.key("topicList").string_array(&self.topic_list);
        });
    }
}

/// A string-to-string table (`KVTable`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(default)]
pub struct KvTable {
    /// The entries.
    pub table: BTreeMap<String, String>,
}

impl WriteJson for KvTable {
    fn write_json(&self, w: &mut JsonWriter<'_>) {
        w.object(|o| {
            o.key("table").object(|m| {
                for (k, v) in &self.table {
                    m.key(k).string(v);
                }
            });
        });
    }
}
