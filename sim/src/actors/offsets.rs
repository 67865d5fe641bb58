//! Consumer offsets: the broker's committed-offset table (`ConsumerOffsetManager`) and the
//! body a slave copies it with, and the record of what each consumer machine consumed (which
//! is how a second consumption is told apart).

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use serde::Deserialize;

use crate::node::GroupId;
use nameserver_core::json::{JsonStyle, JsonWriter};
use nameserver_core::names::{BrokerName, TopicName};

/// `ConsumerOffsetManager.offsetTable`: `topic@group` → queue id → committed offset.
pub type OffsetTable = BTreeMap<String, BTreeMap<i32, u64>>;

/// The offset table's key of a topic and a consumer group (`topic@group`). Concatenated, not
/// formatted: every pull and offset commit makes one, and `format!` costs several times as much.
#[must_use]
pub(crate) fn table_key(topic: &str, group: &str) -> String {
    [topic, "@", group].concat()
}

/// `ConsumerOffsetSerializeWrapper` as fastjson writes it: `{"offsetTable":{"T@G":{0:5}}}`.
pub(crate) fn encode_table(table: &OffsetTable) -> Vec<u8> {
    let mut out = Vec::new();
    JsonWriter::new(&mut out, JsonStyle::Plain).object(|o| {
        o.key("offsetTable").object(|groups| {
            for (key, queues) in table {
                groups.key(key).object(|q| {
                    for (queue, offset) in queues {
                        q.int_key(i64::from(*queue)).int(i64::try_from(*offset).unwrap_or(i64::MAX));
                    }
                });
            }
        });
    });
    out
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct OffsetWrapper {
    #[serde(default)]
    offset_table: OffsetTable,
}

/// Reads a `ConsumerOffsetSerializeWrapper` body.
pub(crate) fn decode_table(body: &[u8]) -> Option<OffsetTable> {
    nameserver_core::json::from_fastjson::<OffsetWrapper>(body).ok().map(|w| w.offset_table)
}

/// `MessageQueue [topic=…, brokerName=…, queueId=…]`, as clients log a queue.
pub(crate) struct QueueName<'a>(pub &'a TopicName, pub &'a BrokerName, pub i32);

impl fmt::Display for QueueName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MessageQueue [topic={}, brokerName={}, queueId={}]", self.0, self.1, self.2)
    }
}

/// Where the offset a consumer started a queue at came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StartFrom {
    /// The broker's committed offset of the group.
    Committed,
    /// The broker answered 0: nothing committed yet, and the queue's first message is still
    /// in memory, so a new group reads from the first message.
    First,
    /// No offset at all (QUERY_NOT_FOUND): `CONSUME_FROM_LAST_OFFSET` starts at the queue's
    /// max offset.
    Max,
}

impl StartFrom {
    /// `committed`, `first` or `max`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Committed => "committed",
            Self::First => "first",
            Self::Max => "max",
        }
    }
}

/// What a consumer machine has consumed, across its processes: per queue, the offsets
/// consumed (merged half-open ranges), every delivery and every second delivery. It stands
/// for what the application did with the messages, so it survives a restart.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ConsumeLog {
    ranges: BTreeMap<(GroupId, i32), Vec<(u64, u64)>>,
    /// Messages consumed, duplicates included.
    pub(crate) consumed: u64,
    /// Messages consumed a second (or later) time.
    pub(crate) duplicates: u64,
}

impl ConsumeLog {
    /// Messages consumed, duplicates included.
    #[must_use]
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// Messages consumed a second (or later) time.
    #[must_use]
    pub fn duplicates(&self) -> u64 {
        self.duplicates
    }

    /// How many of `[from, to)` of a queue were consumed already.
    #[must_use]
    pub fn overlap(&self, queue: (GroupId, i32), from: u64, to: u64) -> u64 {
        self.ranges
            .get(&queue)
            .map_or(0, |ranges| ranges.iter().map(|(a, b)| (*b).min(to).saturating_sub((*a).max(from))).sum())
    }

    /// Records the consumption of `[from, to)`; returns how many were consumed before.
    pub fn record(&mut self, queue: (GroupId, i32), from: u64, to: u64) -> u64 {
        if to <= from {
            return 0;
        }
        let again = self.overlap(queue, from, to);
        self.consumed += to - from;
        self.duplicates += again;
        let ranges = self.ranges.entry(queue).or_default();
        ranges.push((from, to));
        ranges.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
        for (a, b) in ranges.drain(..) {
            match merged.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        *ranges = merged;
        again
    }

    /// The offsets of a queue consumed so far, as merged half-open ranges.
    #[must_use]
    pub fn ranges(&self, queue: (GroupId, i32)) -> &[(u64, u64)] {
        self.ranges.get(&queue).map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_counts_second_consumptions() {
        let q = (GroupId(0), 1);
        let mut log = ConsumeLog::default();
        assert_eq!(log.record(q, 0, 5), 0);
        assert_eq!(log.record(q, 7, 9), 0);
        assert_eq!(log.ranges(q), &[(0, 5), (7, 9)]);
        assert_eq!(log.record(q, 3, 8), 3, "3, 4 and 7 again");
        assert_eq!(log.ranges(q), &[(0, 9)]);
        assert_eq!((log.consumed, log.duplicates), (12, 3));
        assert_eq!(log.overlap((GroupId(0), 2), 0, 9), 0, "another queue");
    }

    #[test]
    fn the_table_round_trips_in_fastjson_form() {
        let mut table = OffsetTable::new();
        table.entry(table_key("TopicTest", "CG1")).or_default().extend([(0, 5), (3, 12)]);
        let body = encode_table(&table);
        assert_eq!(body, br#"{"offsetTable":{"TopicTest@CG1":{0:5,3:12}}}"#);
        assert_eq!(decode_table(&body), Some(table));
        assert_eq!(decode_table(b"{}"), Some(OffsetTable::new()));
        assert_eq!(decode_table(b"not json"), None);
    }
}
