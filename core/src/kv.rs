//! The KV config table (`KVConfigManager`): namespace → key → value.
//!
//! Its persistent form is `kvConfig.json`, `{"configTable":{"<ns>":{"<key>":"<value>"}}}`,
//! interchangeable with the Java NameServer's file in both directions.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Deserialize;

use crate::json::writer::escaped_len;
use crate::json::{JsonError, JsonStyle, JsonWriter, WriteJson, from_fastjson};

/// The namespace whose keys are topics and whose values are `brokerName:queues;…`.
pub const ORDER_TOPIC_CONFIG: &str = "ORDER_TOPIC_CONFIG";

/// What one entry costs in [`KvConfig::bytes`] besides its namespace, key and value: a rough
/// share of the maps' nodes and string headers, so that many tiny entries count too.
pub const ENTRY_OVERHEAD: usize = 64;

/// All KV entries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KvConfig {
    config_table: BTreeMap<String, BTreeMap<String, String>>,
    /// [`Self::bytes`], kept up to date by every change.
    bytes: usize,
}

/// The table alone: `bytes` follows from it (and states hashed before it existed hash alike).
impl core::hash::Hash for KvConfig {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.config_table.hash(state);
    }
}

/// One change to the table, as a driver records it between whole files (the daemon appends
/// it to `kvConfig.json.journal`; [`KvConfig::apply`] replays it).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum KvChange {
    /// The key holds this value now.
    Put {
        /// The namespace.
        namespace: String,
        /// The key.
        key: String,
        /// The value.
        value: String,
    },
    /// The key is gone (DELETE_KV_CONFIG, or PUT_KV_CONFIG without a value); its namespace
    /// stays, as in Java.
    Delete {
        /// The namespace.
        namespace: String,
        /// The key.
        key: String,
    },
}

/// What a put did, for the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KvPut {
    /// The namespace did not exist.
    NewNamespace,
    /// A new key in an existing namespace.
    NewKey,
    /// An existing key got a new value.
    Updated,
    /// The key already had this value.
    Unchanged,
}

impl KvConfig {
    /// Reads a `kvConfig.json` (fastjson or strict JSON).
    ///
    /// # Errors
    /// If the text is not a KV file.
    pub fn from_json(bytes: &[u8]) -> Result<Self, JsonError> {
        // Java writes `null` map values for keys put without a value; they are not entries.
        #[derive(Deserialize, Default)]
        #[serde(rename_all = "camelCase", default)]
        struct File {
            config_table: BTreeMap<String, Option<BTreeMap<String, Option<String>>>>,
        }
        let file: File = from_fastjson(bytes)?;
        let config_table = file
            .config_table
            .into_iter()
            .map(|(ns, entries)| {
                (ns, entries.unwrap_or_default().into_iter().filter_map(|(k, v)| Some((k, v?))).collect())
            })
            .collect();
        let mut kv = Self { config_table, bytes: 0 };
        kv.bytes = kv.config_table.iter().map(|(ns, table)| namespace_cost(ns, table)).sum();
        Ok(kv)
    }

    /// The `kvConfig.json` bytes (fastjson plain style).
    #[must_use]
    pub fn to_json(&self) -> Vec<u8> {
        WriteJson::to_json(self, JsonStyle::Plain)
    }

    /// Sets one entry.
    pub fn put(&mut self, namespace: &str, key: &str, value: &str) -> KvPut {
        self.bytes = self.bytes_after_put(namespace, key, Some(value));
        let Some(table) = self.config_table.get_mut(namespace) else {
            let mut table = BTreeMap::new();
            table.insert(String::from(key), String::from(value));
            self.config_table.insert(String::from(namespace), table);
            return KvPut::NewNamespace;
        };
        match table.insert(String::from(key), String::from(value)) {
            None => KvPut::NewKey,
            Some(old) if old == value => KvPut::Unchanged,
            Some(_) => KvPut::Updated,
        }
    }

    /// PUT_KV_CONFIG without a value: Java stores null, so the namespace exists afterwards and
    /// the key reads as absent (and is not written to the file). Returns whether an entry went.
    pub fn put_null(&mut self, namespace: &str, key: &str) -> bool {
        self.bytes = self.bytes_after_put(namespace, key, None);
        self.config_table.entry(String::from(namespace)).or_default().remove(key).is_some()
    }

    /// The table's size as the KV budget counts it: namespace + key + value, each as long as
    /// `kvConfig.json` writes it ([`escaped_len`]: a control byte counts 6), +
    /// [`ENTRY_OVERHEAD`] per entry, and an empty namespace (Java keeps one after a put
    /// without a value, or once its last key is deleted) as an entry of its name alone.
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// [`Self::bytes`] after `put(namespace, key, value)` (`None`: [`Self::put_null`]),
    /// without changing anything. Costs the lengths of the strings involved, not the table's.
    #[must_use]
    pub fn bytes_after_put(&self, namespace: &str, key: &str, value: Option<&str>) -> usize {
        let (ns, key_len) = (escaped_len(namespace), escaped_len(key));
        let entry = |value: &str| ns + key_len + escaped_len(value) + ENTRY_OVERHEAD;
        let empty = ns + ENTRY_OVERHEAD;
        let (before, after) = match self.config_table.get(namespace) {
            None => (0, value.map_or(empty, entry)),
            Some(table) if table.is_empty() => (empty, value.map_or(empty, entry)),
            Some(table) => {
                let old = table.get(key);
                let before = old.map_or(0, |old| entry(old));
                // The namespace's last entry deleted: it stays, as its name alone.
                let last = old.is_some() && table.len() == 1;
                let after = match value {
                    Some(value) => entry(value),
                    None if last => empty,
                    None => 0,
                };
                (before, after)
            }
        };
        self.bytes - before + after
    }

    /// Applies a change recorded earlier. Applying a run of changes to a table that already
    /// holds them leaves it as it is: each sets its key to what the last change to it says.
    pub fn apply(&mut self, change: &KvChange) {
        match change {
            KvChange::Put { namespace, key, value } => {
                self.put(namespace, key, value);
            }
            KvChange::Delete { namespace, key } => {
                self.put_null(namespace, key);
            }
        }
    }

    /// One value.
    #[must_use]
    pub fn get(&self, namespace: &str, key: &str) -> Option<&str> {
        self.config_table.get(namespace)?.get(key).map(String::as_str)
    }

    /// Removes one entry, returning its value. An emptied namespace stays, as in Java.
    pub fn delete(&mut self, namespace: &str, key: &str) -> Option<String> {
        let table = self.config_table.get(namespace)?;
        table.get(key)?;
        self.bytes = self.bytes_after_put(namespace, key, None);
        self.config_table.get_mut(namespace)?.remove(key)
    }

    /// A whole namespace.
    #[must_use]
    pub fn namespace(&self, namespace: &str) -> Option<&BTreeMap<String, String>> {
        self.config_table.get(namespace)
    }

    /// Every namespace with its entries.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &BTreeMap<String, String>)> {
        self.config_table.iter().map(|(ns, table)| (ns.as_str(), table))
    }

    /// Number of entries over all namespaces.
    #[must_use]
    pub fn len(&self) -> usize {
        self.config_table.values().map(BTreeMap::len).sum()
    }

    /// Whether there are no entries.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What `namespace` with `table` adds to [`KvConfig::bytes`].
fn namespace_cost(namespace: &str, table: &BTreeMap<String, String>) -> usize {
    let ns = escaped_len(namespace);
    if table.is_empty() {
        return ns + ENTRY_OVERHEAD;
    }
    table.iter().map(|(key, value)| ns + escaped_len(key) + escaped_len(value) + ENTRY_OVERHEAD).sum()
}

impl WriteJson for KvConfig {
    fn write_json(&self, w: &mut JsonWriter<'_>) {
        w.object(|o| {
            o.key("configTable").object(|namespaces| {
                for (ns, table) in &self.config_table {
                    namespaces.key(ns).object(|entries| {
                        for (k, v) in table {
                            entries.key(k).string(v);
                        }
                    });
                }
            });
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_the_java_file() {
        let java = br#"{"configTable":{"ORDER_TOPIC_CONFIG":{"TopicOrder":"broker-a:4;broker-b:4"},"ns":{"k":"v","nul":null}}}"#;
        let kv = KvConfig::from_json(java).unwrap();
        assert_eq!(kv.get(ORDER_TOPIC_CONFIG, "TopicOrder"), Some("broker-a:4;broker-b:4"));
        assert_eq!(kv.get("ns", "nul"), None);
        assert_eq!(
            kv.to_json(),
            br#"{"configTable":{"ORDER_TOPIC_CONFIG":{"TopicOrder":"broker-a:4;broker-b:4"},"ns":{"k":"v"}}}"#
        );
        assert_eq!(KvConfig::from_json(&kv.to_json()).unwrap(), kv);
        assert!(KvConfig::from_json(b"{\"configTable\":[").is_err());
        assert!(KvConfig::from_json(b"not json").is_err());
    }

    #[test]
    fn changes_apply_in_order_and_again_without_effect() {
        let change = |ns: &str, key: &str, value: Option<&str>| match value {
            Some(value) => KvChange::Put { namespace: ns.into(), key: key.into(), value: value.into() },
            None => KvChange::Delete { namespace: ns.into(), key: key.into() },
        };
        let run = [
            change("n", "a", Some("1")),
            change("n", "b", Some("2")),
            change("n", "a", Some("3")),
            change("n", "b", None),
            change("m", "c", Some("4")),
        ];
        let mut kv = KvConfig::default();
        run.iter().for_each(|c| kv.apply(c));
        assert_eq!(kv.to_json(), br#"{"configTable":{"m":{"c":"4"},"n":{"a":"3"}}}"#);
        let whole = kv.clone();
        run.iter().for_each(|c| kv.apply(c));
        assert_eq!(kv, whole, "a replay over a table that holds it changes nothing");
        assert_eq!(kv.bytes(), whole.bytes());
    }

    #[test]
    fn put_reports_what_changed() {
        let mut kv = KvConfig::default();
        assert_eq!(kv.put("n", "k", "1"), KvPut::NewNamespace);
        assert_eq!(kv.put("n", "j", "1"), KvPut::NewKey);
        assert_eq!(kv.put("n", "j", "1"), KvPut::Unchanged);
        assert_eq!(kv.put("n", "j", "2"), KvPut::Updated);
        assert_eq!(kv.delete("n", "j").as_deref(), Some("2"));
        assert_eq!(kv.delete("n", "j"), None);
        assert!(kv.namespace("n").is_some());
        assert_eq!(kv.len(), 1);
    }

    /// The budget bounds the file: a string counts as long as kvConfig.json writes it, so a
    /// control byte (`\u0001` in the file) counts 6, a quote 2.
    #[test]
    fn strings_count_as_the_file_writes_them() {
        let mut kv = KvConfig::default();
        let value = "\u{1}".repeat(1000);
        kv.put("n\"s", "k\n", &value);
        assert_eq!(kv.bytes(), 4 + 3 + 6000 + ENTRY_OVERHEAD);
        let file = kv.to_json().len();
        assert!(file <= kv.bytes() + 32, "the file ({file} bytes) within the count ({})", kv.bytes());
        // Replacing it, deleting it and a recount from the file agree.
        assert_eq!(kv.bytes_after_put("n\"s", "k\n", Some("\t")), 4 + 3 + 2 + ENTRY_OVERHEAD);
        assert_eq!(KvConfig::from_json(&kv.to_json()).unwrap().bytes(), kv.bytes());
        kv.delete("n\"s", "k\n");
        assert_eq!(kv.bytes(), 4 + ENTRY_OVERHEAD);
    }

    /// The running count equals a count from scratch after every kind of change.
    #[test]
    fn bytes_follow_every_change() {
        let recount = |kv: &KvConfig| KvConfig::from_json(&kv.to_json()).unwrap().bytes;
        let mut kv = KvConfig::default();
        let steps: [(&str, &str, Option<&str>); 9] = [
            ("ns", "k", Some("value")),
            ("ns", "k", Some("v")),
            ("ns", "j", Some("vvvv")),
            ("ns", "k", None),
            ("ns", "j", None),
            ("other", "x", None),
            ("other", "x", Some("1")),
            ("ns", "k", Some("again")),
            ("ns", "absent", None),
        ];
        for (ns, key, value) in steps {
            let predicted = kv.bytes_after_put(ns, key, value);
            match value {
                Some(value) => drop(kv.put(ns, key, value)),
                None => drop(kv.put_null(ns, key)),
            }
            assert_eq!(kv.bytes(), predicted, "after {ns}/{key}={value:?}");
            assert_eq!(kv.bytes(), recount(&kv), "after {ns}/{key}={value:?}");
        }
        assert_eq!(kv.bytes(), (2 + 1 + 5 + 64) + (5 + 1 + 1 + 64));
        kv.delete("ns", "k");
        assert_eq!(kv.bytes(), (2 + 64) + (5 + 1 + 1 + 64), "an emptied namespace counts as its name");
        assert_eq!(kv.delete("none", "k"), None);
        assert_eq!(kv.bytes(), (2 + 64) + (5 + 1 + 1 + 64));
    }
}
