//! `RegisterBrokerBody` in both forms (PROTOCOL.md §9): JSON, and the zlib-compressed binary
//! form. Decompression is bounded, so a zip bomb is an error, not an out-of-memory.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use serde::{Deserialize, Deserializer};

use super::topic_config::known_filter_type;
use super::{DataVersion, TopicConfig, TopicConfigTable, TopicQueueMappingInfo};
use crate::json::{JsonError, JsonStyle, JsonWriter, WriteJson, from_fastjson};
use crate::names::TopicName;

/// Request versions from which the body is a RegisterBrokerBody (`V3_0_11`); older brokers
/// send a bare topic-config wrapper.
pub const V3_0_11: i32 = 37;
/// Request versions from which the compressed form carries the static-topic mapping section
/// (`V5_0_0`).
pub const V5_0_0: i32 = 413;

/// A broker's topic table and filter servers, as sent with REGISTER_BROKER.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RegisterBrokerBody {
    /// Filter-server addresses (always empty from 5.x brokers).
    pub filter_server_list: Vec<String>,
    /// The topic configuration and its version.
    #[serde(rename = "topicConfigSerializeWrapper", default = "TopicConfigWrapper::java_new")]
    pub topic_config_wrapper: TopicConfigWrapper,
}

/// `TopicConfigSerializeWrapper` / `TopicConfigAndMappingSerializeWrapper`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TopicConfigWrapper {
    /// Version of the topic table (missing: Java's `new DataVersion()`, stamped "now").
    #[serde(default = "DataVersion::java_new")]
    pub data_version: DataVersion,
    /// Topics by name.
    #[serde(deserialize_with = "topic_table")]
    pub topic_config_table: TopicConfigTable,
    /// Static-topic mappings by topic (5.x).
    pub topic_queue_mapping_info_map: BTreeMap<String, TopicQueueMappingInfo>,
    /// Version of the mappings (5.x).
    pub mapping_data_version: Option<DataVersion>,
}

impl TopicConfigWrapper {
    /// Java's `new TopicConfigSerializeWrapper()`: empty, its version stamped "now".
    #[must_use]
    pub fn java_new() -> Self {
        Self { data_version: DataVersion::java_new(), ..Self::default() }
    }
}

/// Why a register body could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BodyError {
    /// The JSON form did not parse.
    Json(JsonError),
    /// The zlib stream is corrupt.
    Zlib,
    /// The zlib stream inflates past the configured limit.
    TooLarge {
        /// The limit in bytes.
        max: usize,
    },
    /// The decompressed data ended early (Java: "End of compressed data has reached").
    Truncated,
    /// A topic line of the compressed form is malformed.
    BadTopicConfig(String),
    /// More topics than the NameServer is configured to take in one registration.
    TooManyTopics {
        /// Topics in the body.
        count: usize,
        /// The limit.
        max: usize,
    },
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Json(e) => write!(f, "bad JSON body: {e}"),
            Self::Zlib => f.write_str("corrupt zlib data"),
            Self::TooLarge { max } => write!(f, "compressed body inflates past {max} bytes"),
            Self::Truncated => f.write_str("End of compressed data has reached"),
            Self::BadTopicConfig(line) => write!(f, "bad topic config line `{line}`"),
            Self::TooManyTopics { count, max } => {
                write!(f, "{count} topics in one registration, more than the {max} this name server accepts")
            }
        }
    }
}

impl core::error::Error for BodyError {}

impl From<JsonError> for BodyError {
    fn from(e: JsonError) -> Self {
        Self::Json(e)
    }
}

/// Whether `body` starts with a zlib header (RFC 1950: CM 8, check bits).
#[must_use]
pub fn looks_like_zlib(body: &[u8]) -> bool {
    match body {
        [cmf, flg, ..] => cmf & 0x0F == 8 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0,
        _ => false,
    }
}

impl RegisterBrokerBody {
    /// Reads a body the way the Java NameServer does, chosen by the request `version`, plus one
    /// leniency: a zlib body sent with `compressed=false` (5.x brokers do this) is understood.
    ///
    /// # Errors
    /// Malformed JSON, corrupt or oversized zlib data, or a bad topic line.
    pub fn decode(body: &[u8], compressed: bool, version: i32, max_decompressed: usize) -> Result<Self, BodyError> {
        Self::decode_capped(body, compressed, version, max_decompressed, None)
    }

    /// [`Self::decode`], refusing a body of more than `max_topics` topics (Java has no such
    /// limit). The compressed form announces its count, which is checked before any topic is
    /// read; the JSON form, bounded by the frame size, is counted once parsed.
    ///
    /// # Errors
    /// As [`Self::decode`], and [`BodyError::TooManyTopics`].
    pub fn decode_capped(
        body: &[u8],
        compressed: bool,
        version: i32,
        max_decompressed: usize,
        max_topics: Option<usize>,
    ) -> Result<Self, BodyError> {
        let check = |count: usize| match max_topics {
            Some(max) if count > max => Err(BodyError::TooManyTopics { count, max }),
            _ => Ok(()),
        };
        if body.is_empty() {
            return Ok(Self::default());
        }
        let decoded = if version < V3_0_11 {
            Self { filter_server_list: Vec::new(), topic_config_wrapper: from_fastjson(body)? }
        } else if compressed || looks_like_zlib(body) {
            let raw = miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(body, max_decompressed).map_err(|e| {
                if e.status == miniz_oxide::inflate::TINFLStatus::HasMoreOutput {
                    BodyError::TooLarge { max: max_decompressed }
                } else {
                    BodyError::Zlib
                }
            })?;
            return decode_uncompressed_binary(&raw, version, check);
        } else {
            from_fastjson(body)?
        };
        check(decoded.topic_config_wrapper.topic_config_table.len())?;
        Ok(decoded)
    }

    /// The compressed form (zlib level 9 over the binary layout), as 4.9.x brokers with
    /// `compressedRegister=true` send it.
    #[must_use]
    pub fn encode_compressed(&self, version: i32) -> Vec<u8> {
        let mut raw = Vec::new();
        let wrapper = &self.topic_config_wrapper;
        push_chunk(&mut raw, &wrapper.data_version.to_json(JsonStyle::Plain));
        push_len(&mut raw, wrapper.topic_config_table.len());
        for config in wrapper.topic_config_table.values() {
            let mut line = alloc::format!(
                "{} {} {} {} {}",
                config.topic_name,
                config.read_queue_nums,
                config.write_queue_nums,
                config.perm,
                config.topic_filter_type
            );
            if version >= V5_0_0 {
                line.push(' ');
                line.push_str(&String::from_utf8_lossy(&attributes_json(&config.attributes)));
            }
            push_chunk(&mut raw, line.as_bytes());
        }
        let mut filters = Vec::new();
        JsonWriter::new(&mut filters, JsonStyle::Plain).string_array(&self.filter_server_list);
        push_chunk(&mut raw, &filters);
        if version >= V5_0_0 {
            push_len(&mut raw, wrapper.topic_queue_mapping_info_map.len());
            for info in wrapper.topic_queue_mapping_info_map.values() {
                push_chunk(&mut raw, &info.to_json(JsonStyle::Plain));
            }
        }
        miniz_oxide::deflate::compress_to_vec_zlib(&raw, 9)
    }
}

impl WriteJson for RegisterBrokerBody {
    fn write_json(&self, w: &mut JsonWriter<'_>) {
        let wrapper = &self.topic_config_wrapper;
        w.object(|o| {
            o.key("filterServerList").string_array(&self.filter_server_list);
            o.key("topicConfigSerializeWrapper").object(|t| {
                t.key("dataVersion").value(&wrapper.data_version);
                if let Some(v) = &wrapper.mapping_data_version {
                    t.key("mappingDataVersion").value(v);
                }
                t.key("topicConfigTable").object(|m| {
                    for (name, config) in &wrapper.topic_config_table {
                        m.key(name.as_str()).value(config);
                    }
                });
                t.key("topicQueueMappingDetailMap").object(|_| {});
                t.key("topicQueueMappingInfoMap").object(|m| {
                    for (topic, info) in &wrapper.topic_queue_mapping_info_map {
                        m.key(topic).value(info);
                    }
                });
            });
        });
    }
}

fn attributes_json(attributes: &BTreeMap<String, String>) -> Vec<u8> {
    let mut out = Vec::new();
    JsonWriter::new(&mut out, JsonStyle::Plain).object(|m| {
        for (k, v) in attributes {
            m.key(k).string(v);
        }
    });
    out
}

fn push_len(out: &mut Vec<u8>, len: usize) {
    out.extend_from_slice(&(len as u32).to_be_bytes());
}

fn push_chunk(out: &mut Vec<u8>, chunk: &[u8]) {
    push_len(out, chunk.len());
    out.extend_from_slice(chunk);
}

struct Cursor<'a> {
    buf: &'a [u8],
}

impl<'a> Cursor<'a> {
    fn int(&mut self) -> Result<usize, BodyError> {
        let (head, rest) = self.buf.split_first_chunk::<4>().ok_or(BodyError::Truncated)?;
        self.buf = rest;
        usize::try_from(i32::from_be_bytes(*head)).map_err(|_| BodyError::Truncated)
    }

    fn chunk(&mut self) -> Result<&'a [u8], BodyError> {
        let len = self.int()?;
        if len > self.buf.len() {
            return Err(BodyError::Truncated);
        }
        let (chunk, rest) = self.buf.split_at(len);
        self.buf = rest;
        Ok(chunk)
    }
}

fn decode_uncompressed_binary(
    raw: &[u8],
    version: i32,
    check: impl Fn(usize) -> Result<(), BodyError>,
) -> Result<RegisterBrokerBody, BodyError> {
    let mut cur = Cursor { buf: raw };
    let data_version: DataVersion = from_fastjson(cur.chunk()?)?;
    let count = cur.int()?;
    check(count)?;
    // Each line takes at least 4 bytes: a count larger than what is left is a lie.
    let mut lines = Vec::with_capacity(count.min(cur.buf.len() / 4));
    for _ in 0..count {
        let config = decode_topic_line(cur.chunk()?)?;
        lines.push((config.topic_name.clone(), config));
    }
    let table = lines.into_iter().collect();
    let filter_server_list: Vec<String> = from_fastjson(cur.chunk()?)?;
    let mut mappings = BTreeMap::new();
    if version >= V5_0_0 {
        let count = cur.int()?;
        for _ in 0..count {
            let info: TopicQueueMappingInfo = from_fastjson(cur.chunk()?)?;
            mappings.insert(info.topic.clone().unwrap_or_default(), info);
        }
    }
    Ok(RegisterBrokerBody {
        filter_server_list,
        topic_config_wrapper: TopicConfigWrapper {
            data_version,
            topic_config_table: table,
            topic_queue_mapping_info_map: mappings,
            mapping_data_version: None,
        },
    })
}

/// Reads `topicConfigTable` in one piece (see [`TopicConfigTable`]'s `FromIterator`).
fn topic_table<'de, D: Deserializer<'de>>(deserializer: D) -> Result<TopicConfigTable, D::Error> {
    struct Visitor;
    impl<'de> serde::de::Visitor<'de> for Visitor {
        type Value = TopicConfigTable;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a map of topic configs")
        }

        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0));
            while let Some(entry) = map.next_entry()? {
                entries.push(entry);
            }
            Ok(entries.into_iter().collect())
        }
    }
    deserializer.deserialize_map(Visitor)
}

/// `topicName readQueueNums writeQueueNums perm topicFilterType [attributesJson]`.
fn decode_topic_line(line: &[u8]) -> Result<TopicConfig, BodyError> {
    let text = core::str::from_utf8(line)
        .map_err(|_| BodyError::BadTopicConfig(String::from_utf8_lossy(line).into_owned()))?;
    let bad = || BodyError::BadTopicConfig(text.to_string());
    let mut fields = text.split(' ');
    let mut next = || fields.next().ok_or_else(bad);
    let int = |s: &str| s.parse::<i32>().map_err(|_| bad());
    let (name, read, write, perm, filter) = (next()?, next()?, next()?, next()?, next()?);
    let attributes = fields.next();
    Ok(TopicConfig {
        topic_name: TopicName::from(name),
        read_queue_nums: int(read)?,
        write_queue_nums: int(write)?,
        perm: int(perm)?,
        topic_filter_type: known_filter_type(filter).ok_or_else(bad)?,
        // Java ignores a bad sixth field.
        topic_sys_flag: 0,
        order: false,
        attributes: match attributes {
            None | Some("{}") => BTreeMap::new(),
            Some(json) => from_fastjson(json.as_bytes()).unwrap_or_default(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_topic() -> RegisterBrokerBody {
        let mut body = RegisterBrokerBody::default();
        body.topic_config_wrapper.data_version =
            DataVersion { counter: 5, state_version: 0, timestamp: 1_700_000_000_000 };
        body.topic_config_wrapper
            .topic_config_table
            .insert(TopicName::from("TopicTest"), TopicConfig::new("TopicTest", 4));
        body
    }

    #[test]
    fn compressed_layout_matches_protocol_example() {
        // PROTOCOL.md §9.2: the decompressed bytes for one topic.
        let packed = one_topic().encode_compressed(479);
        assert_eq!(&packed[..2], &[0x78, 0xDA]);
        let raw = miniz_oxide::inflate::decompress_to_vec_zlib(&packed).unwrap();
        let mut expected = Vec::new();
        expected.extend_from_slice(&[0, 0, 0, 0x38]);
        expected.extend_from_slice(br#"{"counter":5,"stateVersion":0,"timestamp":1700000000000}"#);
        expected.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 0x1d]);
        expected.extend_from_slice(b"TopicTest 4 4 6 SINGLE_TAG {}");
        expected.extend_from_slice(&[0, 0, 0, 2]);
        expected.extend_from_slice(b"[]");
        expected.extend_from_slice(&[0, 0, 0, 0]);
        assert_eq!(raw, expected);
        assert_eq!(RegisterBrokerBody::decode(&packed, true, 479, 1 << 20).unwrap(), one_topic());
    }

    #[test]
    fn zlib_body_with_compressed_false_is_understood() {
        let packed = one_topic().encode_compressed(479);
        assert_eq!(RegisterBrokerBody::decode(&packed, false, 479, 1 << 20).unwrap(), one_topic());
    }

    #[test]
    fn four_nine_compressed_form_has_five_fields_and_no_mappings() {
        let packed = one_topic().encode_compressed(400);
        let raw = miniz_oxide::inflate::decompress_to_vec_zlib(&packed).unwrap();
        assert!(raw.windows(26).any(|w| w == b"TopicTest 4 4 6 SINGLE_TAG"));
        assert!(raw.ends_with(b"[]"), "no mapping section before 5.0.0");
        assert_eq!(RegisterBrokerBody::decode(&packed, true, 400, 1 << 20).unwrap(), one_topic());
    }

    #[test]
    fn zip_bomb_is_an_error() {
        let bomb = miniz_oxide::deflate::compress_to_vec_zlib(&alloc::vec![0u8; 4 << 20], 9);
        assert!(bomb.len() < 20_000);
        assert_eq!(RegisterBrokerBody::decode(&bomb, true, 479, 1 << 20), Err(BodyError::TooLarge { max: 1 << 20 }));
    }

    #[test]
    fn truncated_and_corrupt_bodies_are_errors() {
        let raw = [0u8, 0, 0, 50, b'{'];
        let packed = miniz_oxide::deflate::compress_to_vec_zlib(&raw, 9);
        assert_eq!(RegisterBrokerBody::decode(&packed, true, 479, 1 << 20), Err(BodyError::Truncated));
        assert_eq!(RegisterBrokerBody::decode(&[0x78, 0xDA, 1, 2, 3], true, 479, 1 << 20), Err(BodyError::Zlib));
        assert!(matches!(
            RegisterBrokerBody::decode(b"{\"filterServerList\":3}", false, 479, 1 << 20),
            Err(BodyError::Json(_))
        ));
    }

    #[test]
    fn bad_topic_lines() {
        for line in ["T 4 4 6", "T x 4 6 SINGLE_TAG", "T 4 4 6 NO_TAG"] {
            assert!(decode_topic_line(line.as_bytes()).is_err(), "{line}");
        }
        let config = decode_topic_line(b"T 1 2 6 MULTI_TAG not-json").unwrap();
        assert_eq!((config.read_queue_nums, config.write_queue_nums), (1, 2));
        assert!(config.attributes.is_empty());
    }

    #[test]
    fn json_form_round_trips_and_old_versions_send_a_bare_wrapper() {
        let body = one_topic();
        let json = body.to_json(JsonStyle::Plain);
        assert_eq!(RegisterBrokerBody::decode(&json, false, 479, 1 << 20).unwrap(), body);
        let wrapper_json = br#"{"dataVersion":{"counter":5,"timestamp":1700000000000},"topicConfigTable":{"TopicTest":{"perm":6,"readQueueNums":4,"topicName":"TopicTest","writeQueueNums":4}}}"#;
        assert_eq!(RegisterBrokerBody::decode(wrapper_json, false, 30, 1 << 20).unwrap(), body);
        assert_eq!(RegisterBrokerBody::decode(b"", false, 479, 1 << 20).unwrap(), RegisterBrokerBody::default());
    }

    #[test]
    fn a_topic_cap_refuses_larger_bodies_in_both_forms() {
        let mut body = one_topic();
        body.topic_config_wrapper
            .topic_config_table
            .insert(TopicName::from("TopicTest2"), TopicConfig::new("TopicTest2", 2));
        let too_many = Err(BodyError::TooManyTopics { count: 2, max: 1 });
        for (bytes, compressed) in [(body.to_json(JsonStyle::Plain), false), (body.encode_compressed(479), true)] {
            let decode = |max| RegisterBrokerBody::decode_capped(&bytes, compressed, 479, 1 << 20, max);
            assert_eq!(decode(Some(1)), too_many, "compressed: {compressed}");
            assert_eq!(decode(Some(2)).unwrap(), body);
            assert_eq!(decode(None).unwrap(), body);
        }
        assert_eq!(
            BodyError::TooManyTopics { count: 2, max: 1 }.to_string(),
            "2 topics in one registration, more than the 1 this name server accepts"
        );
    }

    #[test]
    fn a_topic_listed_twice_keeps_its_last_entry() {
        let json = br#"{"topicConfigSerializeWrapper":{"topicConfigTable":{"B":{"topicName":"B","readQueueNums":1},"A":{"topicName":"A"},"B":{"topicName":"B","readQueueNums":3}}}}"#;
        let table =
            RegisterBrokerBody::decode(json, false, 479, 1 << 20).unwrap().topic_config_wrapper.topic_config_table;
        assert_eq!(table.keys().map(TopicName::as_str).collect::<Vec<_>>(), ["A", "B"]);
        assert_eq!(table[&TopicName::from("B")].read_queue_nums, 3);
    }
}
