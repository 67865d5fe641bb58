//! The KV journal's records: `kvConfig.json.journal` holds the KV changes made since
//! `kvConfig.json` was last written whole, one record each, in order.
//!
//! The journal starts with a header naming the `kvConfig.json` its records follow: the magic
//! `NSKVJRN\x01`, that file's length (`u64 LE`) and CRC-32 (`u32 LE`), and the CRC-32 of
//! those 20 bytes. A journal whose header names another file (a crash between a whole write's
//! rename and the journal's truncate, or a file replaced by hand) is not replayed.
//!
//! Records are framed as `persist::records` frames them (length, CRC-32, payload), with its
//! rule for a torn tail (dropped with a warning; a torn header likewise: the header goes out
//! with the first records) and for corruption in the middle (the caller refuses to start).
//! The payload is a tag, `P` (put) or `D` (delete), then the namespace, the key and, for a
//! put, the value, each as `u32 LE` length + UTF-8 bytes.

use std::fmt;

use nameserver_core::kv::KvChange;

use super::records::Corrupt;
#[cfg(test)]
use super::records::{HEADER, crc};
use super::records::{frame, len32, scan};

/// The journal's own header, before its first record.
pub(crate) const FILE_HEADER: usize = 24;
const MAGIC: &[u8; 8] = b"NSKVJRN\x01";
const PUT: u8 = b'P';
const DELETE: u8 = b'D';

/// The `kvConfig.json` a journal follows, as its header names it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Base {
    /// The file's length (0: none, or empty).
    pub(crate) len: u64,
    /// The CRC-32 of its bytes.
    pub(crate) crc: u32,
}

impl Base {
    /// The base that a file of these bytes is.
    pub(crate) fn of(bytes: &[u8]) -> Self {
        Self { len: bytes.len() as u64, crc: crc32fast::hash(bytes) }
    }
}

impl fmt::Display for Base {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} bytes, CRC-32 {:08x}", self.len, self.crc)
    }
}

/// Appends the header of a journal whose records follow `base` to `out`.
pub(crate) fn encode_header(base: Base, out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&base.len.to_le_bytes());
    out.extend_from_slice(&base.crc.to_le_bytes());
    let crc = crc32fast::hash(&out[start..]);
    out.extend_from_slice(&crc.to_le_bytes());
}

/// The base a header names, if `bytes` start with a whole one.
fn header(bytes: &[u8]) -> Option<Base> {
    let (head, _) = bytes.split_first_chunk::<FILE_HEADER>()?;
    let (body, sum) = head.split_at(FILE_HEADER - 4);
    if !body.starts_with(MAGIC) || crc32fast::hash(body) != u32::from_le_bytes(sum.try_into().ok()?) {
        return None;
    }
    let len = u64::from_le_bytes(body[8..16].try_into().ok()?);
    let crc = u32::from_le_bytes(body[16..20].try_into().ok()?);
    Some(Base { len, crc })
}

/// Appends `change` as one record to `out`.
pub(crate) fn encode(change: &KvChange, out: &mut Vec<u8>) {
    frame(out, |out| {
        let text = |out: &mut Vec<u8>, s: &str| {
            out.extend_from_slice(&len32(s.len()).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        };
        match change {
            KvChange::Put { namespace, key, value } => {
                out.push(PUT);
                text(out, namespace);
                text(out, key);
                text(out, value);
            }
            KvChange::Delete { namespace, key } => {
                out.push(DELETE);
                text(out, namespace);
                text(out, key);
            }
        }
    });
}

/// What a journal holds.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Journal {
    /// The file its records follow (`None`: the header is torn, or the journal empty).
    pub(crate) base: Option<Base>,
    /// The changes, in the order they were made.
    pub(crate) changes: Vec<KvChange>,
    /// The bytes of the header and whole records.
    pub(crate) valid: usize,
    /// The bytes of a torn tail after them, dropped (0: none).
    pub(crate) torn: usize,
}

/// Reads a whole journal.
///
/// # Errors
/// A bad header or record with more than zeros after it.
pub(crate) fn decode(bytes: &[u8]) -> Result<Journal, Corrupt> {
    let mut journal = Journal::default();
    if bytes.is_empty() {
        return Ok(journal);
    }
    let Some(base) = header(bytes) else {
        // Torn: the first append cut short, nothing of it answered.
        if bytes.len() <= FILE_HEADER || bytes[FILE_HEADER..].iter().all(|b| *b == 0) {
            journal.torn = bytes.len();
            return Ok(journal);
        }
        return Err(Corrupt { offset: 0, records: 0, reason: "not a KV journal header" });
    };
    journal.base = Some(base);
    let read = scan(bytes, FILE_HEADER, payload_change)?;
    journal.changes = read.items;
    journal.valid = read.valid;
    journal.torn = read.torn;
    Ok(journal)
}

fn payload_change(payload: &[u8]) -> Option<KvChange> {
    let (&tag, mut rest) = payload.split_first()?;
    let mut text = || {
        let (len, tail) = rest.split_first_chunk::<4>()?;
        let len = usize::try_from(u32::from_le_bytes(*len)).ok()?;
        let (s, tail) = (tail.get(..len)?, tail.get(len..)?);
        rest = tail;
        String::from_utf8(s.to_vec()).ok()
    };
    let change = match tag {
        PUT => KvChange::Put { namespace: text()?, key: text()?, value: text()? },
        DELETE => KvChange::Delete { namespace: text()?, key: text()? },
        _ => return None,
    };
    rest.is_empty().then_some(change)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(key: &str, value: &str) -> KvChange {
        KvChange::Put { namespace: "ns".into(), key: key.into(), value: value.into() }
    }

    fn delete(key: &str) -> KvChange {
        KvChange::Delete { namespace: "ns".into(), key: key.into() }
    }

    const BASE: Base = Base { len: 33, crc: 0x1234_5678 };

    fn journal(changes: &[KvChange]) -> Vec<u8> {
        let mut bytes = Vec::new();
        encode_header(BASE, &mut bytes);
        changes.iter().for_each(|c| encode(c, &mut bytes));
        bytes
    }

    #[test]
    fn records_read_back_in_order_puts_and_deletes_alike() {
        let changes = [put("a", "1"), put("b", "ünïcode"), delete("a"), put("a", ""), delete("c")];
        let bytes = journal(&changes);
        let read = decode(&bytes).unwrap();
        assert_eq!(read, Journal { base: Some(BASE), changes: changes.to_vec(), valid: bytes.len(), torn: 0 });
        assert_eq!(decode(&[]).unwrap(), Journal::default());
        // The layout: the header (magic, the base's length and CRC, its own CRC), then each
        // record's length, checksum, tag and length-prefixed texts.
        let one = journal(&[delete("k")]);
        assert_eq!(&one[..8], b"NSKVJRN\x01");
        assert_eq!(&one[8..20], b"\x21\0\0\0\0\0\0\0\x78\x56\x34\x12");
        assert_eq!(&one[20..FILE_HEADER], &crc32fast::hash(&one[..20]).to_le_bytes());
        assert_eq!(&one[FILE_HEADER..FILE_HEADER + 4], &(1 + 4 + 2 + 4 + 1u32).to_le_bytes());
        assert_eq!(&one[FILE_HEADER + HEADER..], b"D\x02\0\0\0ns\x01\0\0\0k");
        assert_eq!(Base::of(b"{}"), Base { len: 2, crc: crc32fast::hash(b"{}") });
    }

    /// The records of `journal` without its header.
    fn whole_records(journal: &[u8]) -> Vec<u8> {
        journal[FILE_HEADER..].to_vec()
    }

    #[test]
    fn a_torn_tail_is_dropped_at_any_cut() {
        let whole = journal(&[put("a", "1"), put("b", "2")]);
        let first = journal(&[put("a", "1")]).len();
        for cut in first + 1..whole.len() {
            let read = decode(&whole[..cut]).unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
            assert_eq!(
                (read.changes, read.valid, read.torn),
                (vec![put("a", "1")], first, cut - first),
                "cut at {cut}"
            );
        }
        // The last record whole but its bytes garbled, or zeros where an append never landed.
        let mut garbled = whole.clone();
        *garbled.last_mut().unwrap() ^= 0xFF;
        assert_eq!(decode(&garbled).unwrap().changes, [put("a", "1")]);
        let mut zeros = whole.clone();
        zeros.extend_from_slice(&[0; 4096]);
        let read = decode(&zeros).unwrap();
        assert_eq!((read.changes.len(), read.valid, read.torn), (2, whole.len(), 4096));
        // A header cut short, or zeros after a garbled one: the first append, torn.
        for cut in 1..FILE_HEADER {
            let read = decode(&whole[..cut]).unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
            assert_eq!(read, Journal { base: None, changes: vec![], valid: 0, torn: cut }, "cut at {cut}");
        }
        let mut garbled = whole[..FILE_HEADER].to_vec();
        garbled[10] ^= 1;
        garbled.extend_from_slice(&[0; 100]);
        assert_eq!(decode(&garbled).unwrap().torn, FILE_HEADER + 100);
    }

    #[test]
    fn a_bad_record_in_the_middle_is_corruption() {
        let mut bytes = journal(&[put("a", "1"), put("b", "2"), put("c", "3")]);
        let second = journal(&[put("a", "1")]).len();
        // A flipped byte in the second record's value: its checksum fails, a record follows.
        let value_at = journal(&[put("a", "1"), put("b", "2")]).len() - 1;
        bytes[value_at] ^= 0x01;
        let error = decode(&bytes).unwrap_err();
        assert_eq!(error, Corrupt { offset: second, records: 1, reason: "checksum mismatch" });
        assert_eq!(
            error.to_string(),
            format!("record 2 at byte {second}: checksum mismatch, and more data follows it")
        );
        // A bad header with records after it (or no header at all).
        let mut headless = whole_records(&journal(&[put("a", "1")]));
        headless.extend_from_slice(&journal(&[put("b", "2")])[FILE_HEADER..]);
        let error = decode(&headless).unwrap_err();
        assert_eq!((error.offset, error.reason), (0, "not a KV journal header"));
        assert_eq!(error.to_string(), "its header: not a KV journal header, and more data follows it");
        // A record whose checksum holds but whose payload is not ours.
        let mut foreign = Vec::new();
        encode_header(BASE, &mut foreign);
        let payload = b"X\0\0\0\0";
        let len = (payload.len() as u32).to_le_bytes();
        foreign.extend_from_slice(&len);
        foreign.extend_from_slice(&crc(&len, payload).to_le_bytes());
        foreign.extend_from_slice(payload);
        foreign.extend_from_slice(&journal(&[put("a", "1")])[FILE_HEADER..]);
        assert_eq!(decode(&foreign).unwrap_err().reason, "unreadable payload");
    }
}
