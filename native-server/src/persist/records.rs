//! The record framing of the daemon's append-only files (the KV journal, the controller's
//! event log) and the rule that tells a crash's torn tail from corruption.
//!
//! A record is `len: u32 LE`, `crc: u32 LE`, then `len` bytes of payload; `crc` is the CRC-32
//! of the four length bytes followed by the payload, so a run of zeros (a file extended but
//! never written) is no record.
//!
//! Reading takes every whole record up to the first bad one. A bad record with nothing but
//! itself (or zeros) after it is a **torn tail**: an append cut short by a crash, never
//! answered, so the caller drops it with a warning. A bad record with data after it is
//! corruption in the middle, which no crash of ours makes: the caller refuses to start.

use std::fmt;

/// The bytes before a record's payload.
pub(crate) const HEADER: usize = 8;

/// Appends one record to `out` whose payload `payload` writes.
pub(crate) fn frame(out: &mut Vec<u8>, payload: impl FnOnce(&mut Vec<u8>)) {
    let start = out.len();
    out.extend_from_slice(&[0; HEADER]);
    payload(out);
    let len = len32(out.len() - start - HEADER).to_le_bytes();
    out[start..start + 4].copy_from_slice(&len);
    let crc = crc(&len, &out[start + HEADER..]);
    out[start + 4..start + HEADER].copy_from_slice(&crc.to_le_bytes());
}

/// A length as a record writes it. Payloads are far below 4 GiB (the frame limit is 16 MiB).
pub(crate) fn len32(len: usize) -> u32 {
    u32::try_from(len).expect("a record under 4 GiB")
}

pub(crate) fn crc(len: &[u8], payload: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(len);
    hasher.update(payload);
    hasher.finalize()
}

/// The records of a file after its header.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Scan<T> {
    /// The payloads, parsed, in order.
    pub(crate) items: Vec<T>,
    /// The bytes of the header and whole records.
    pub(crate) valid: usize,
    /// The bytes of a torn tail after them, dropped (0: none).
    pub(crate) torn: usize,
}

/// A record in the middle of a file that does not read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Corrupt {
    /// Where the bad record starts.
    pub(crate) offset: usize,
    /// The records read before it.
    pub(crate) records: usize,
    /// What is wrong with it.
    pub(crate) reason: &'static str,
}

impl fmt::Display for Corrupt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.offset == 0 {
            return write!(f, "its header: {}, and more data follows it", self.reason);
        }
        write!(f, "record {} at byte {}: {}, and more data follows it", self.records + 1, self.offset, self.reason)
    }
}

/// Reads the records of `bytes` from `start` (the end of the file's header), each payload
/// through `parse` (`None`: not a payload of this file).
///
/// # Errors
/// A bad record with more than zeros after it.
pub(crate) fn scan<T>(
    bytes: &[u8],
    start: usize,
    mut parse: impl FnMut(&[u8]) -> Option<T>,
) -> Result<Scan<T>, Corrupt> {
    let mut items = Vec::new();
    let mut at = start;
    while at < bytes.len() {
        let (reason, end) = match record(&bytes[at..]) {
            Ok((payload, used)) => match parse(payload) {
                Some(item) => {
                    items.push(item);
                    at += used;
                    continue;
                }
                None => ("unreadable payload", Some(used)),
            },
            Err(bad) => bad,
        };
        // Torn: cut short, or nothing but zeros after the bad record's end.
        let end = end.map_or(bytes.len(), |len| (at + len).min(bytes.len()));
        if bytes[end..].iter().all(|b| *b == 0) {
            return Ok(Scan { items, valid: at, torn: bytes.len() - at });
        }
        return Err(Corrupt { offset: at, records: items.len(), reason });
    }
    Ok(Scan { items, valid: at, torn: 0 })
}

/// What is wrong with a record, and where it ends if its length can be believed.
type Bad = (&'static str, Option<usize>);

/// The payload of the record at the start of `bytes` and the record's length.
fn record(bytes: &[u8]) -> Result<(&[u8], usize), Bad> {
    let Some((head, rest)) = bytes.split_first_chunk::<HEADER>() else { return Err(("cut short", None)) };
    let (len, sum) = head.split_at(4);
    let len_field = usize::try_from(u32::from_le_bytes(len.try_into().expect("4 bytes"))).unwrap_or(usize::MAX);
    let Some(payload) = rest.get(..len_field) else { return Err(("cut short", None)) };
    if crc(len, payload) != u32::from_le_bytes(sum.try_into().expect("4 bytes")) {
        return Err(("checksum mismatch", Some(HEADER + len_field)));
    }
    Ok((payload, HEADER + len_field))
}
