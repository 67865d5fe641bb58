//! The primitives of our own binary encoding (events and snapshots): big-endian integers,
//! length-prefixed UTF-8, a presence byte before optional values. Reading never panics.

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use nameserver_core::BrokerId;

/// Why bytes are not an encoding of ours.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeError {
    /// The bytes end inside a value.
    Truncated,
    /// A format version this build does not know.
    UnknownVersion(u8),
    /// An event type this build does not know.
    UnknownEventType(u8),
    /// A presence byte other than 0 or 1.
    BadFlag(u8),
    /// Text that is not UTF-8.
    BadText,
    /// Bytes left over after the last value.
    Trailing(usize),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Truncated => f.write_str("truncated"),
            Self::UnknownVersion(v) => write!(f, "unknown format version {v}"),
            Self::UnknownEventType(t) => write!(f, "unknown event type {t}"),
            Self::BadFlag(b) => write!(f, "presence byte {b} is neither 0 nor 1"),
            Self::BadText => f.write_str("text is not UTF-8"),
            Self::Trailing(n) => write!(f, "{n} bytes after the last value"),
        }
    }
}

impl core::error::Error for DecodeError {}

/// Appends values to a buffer.
#[derive(Debug, Default)]
pub(crate) struct Writer(pub(crate) Vec<u8>);

impl Writer {
    pub(crate) fn u8(&mut self, v: u8) {
        self.0.push(v);
    }

    pub(crate) fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }

    pub(crate) fn i32(&mut self, v: i32) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }

    pub(crate) fn i64(&mut self, v: i64) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }

    /// A length that fits the tables of one controller; more is a bug, not input.
    pub(crate) fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).expect("a controller table holds fewer than 2^32 items"));
    }

    pub(crate) fn text(&mut self, s: &str) {
        self.len(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }

    pub(crate) fn opt_text(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.u8(1);
                self.text(s);
            }
            None => self.u8(0),
        }
    }

    pub(crate) fn opt_i64(&mut self, v: Option<i64>) {
        match v {
            Some(v) => {
                self.u8(1);
                self.i64(v);
            }
            None => self.u8(0),
        }
    }

    pub(crate) fn ids(&mut self, ids: &BTreeSet<BrokerId>) {
        self.len(ids.len());
        for id in ids {
            self.i64(id.0);
        }
    }
}

/// Reads values off a byte slice.
#[derive(Debug)]
pub(crate) struct Reader<'a>(pub(crate) &'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let (head, rest) = self.0.split_first_chunk::<N>().ok_or(DecodeError::Truncated)?;
        self.0 = rest;
        Ok(*head)
    }

    pub(crate) fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take::<1>()?[0])
    }

    pub(crate) fn u32(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_be_bytes(self.take()?))
    }

    pub(crate) fn i32(&mut self) -> Result<i32, DecodeError> {
        Ok(i32::from_be_bytes(self.take()?))
    }

    pub(crate) fn i64(&mut self) -> Result<i64, DecodeError> {
        Ok(i64::from_be_bytes(self.take()?))
    }

    /// A count of items, checked against the bytes left so that no count allocates more
    /// than the input could fill (each item takes at least `min_item` bytes).
    pub(crate) fn count(&mut self, min_item: usize) -> Result<usize, DecodeError> {
        let n = usize::try_from(self.u32()?).map_err(|_| DecodeError::Truncated)?;
        if n.saturating_mul(min_item) > self.0.len() {
            return Err(DecodeError::Truncated);
        }
        Ok(n)
    }

    pub(crate) fn text(&mut self) -> Result<String, DecodeError> {
        let n = self.count(1)?;
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        String::from_utf8(head.to_vec()).map_err(|_| DecodeError::BadText)
    }

    fn present(&mut self) -> Result<bool, DecodeError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(DecodeError::BadFlag(other)),
        }
    }

    pub(crate) fn opt_text(&mut self) -> Result<Option<String>, DecodeError> {
        if self.present()? { self.text().map(Some) } else { Ok(None) }
    }

    pub(crate) fn opt_i64(&mut self) -> Result<Option<i64>, DecodeError> {
        if self.present()? { self.i64().map(Some) } else { Ok(None) }
    }

    pub(crate) fn ids(&mut self) -> Result<BTreeSet<BrokerId>, DecodeError> {
        let n = self.count(8)?;
        (0..n).map(|_| self.i64().map(BrokerId)).collect()
    }

    /// Fails unless every byte was read.
    pub(crate) fn finish(&self) -> Result<(), DecodeError> {
        if self.0.is_empty() { Ok(()) } else { Err(DecodeError::Trailing(self.0.len())) }
    }
}
