//! The RemotingCommand codec (PROTOCOL.md §1–§3).
//!
//! ```text
//! 0        4              8            8+H          8+H+B
//! | total  | type|hdr_len | header (H) | body (B)   |
//!   total = 4 + H + B; type = 0 JSON, 1 ROCKETMQ; all integers big-endian
//! ```
//!
//! Guarantees: [`decode`] never panics and returns `Ok(None)` until a whole frame is buffered.
//! It checks the length prefix against [`Limits::max_frame`] as soon as four bytes are there,
//! before anything is allocated, and every inner length against the bytes that hold it.

mod binary_header;
mod frame;
mod header_scan;
mod json_header;

use alloc::string::String;
use core::fmt;

/// Re-exported: [`decode`] takes it.
pub use crate::limits::Limits;
pub use frame::{
    HeadTemplate, decode, decode_owned, encode, encode_to_vec, encode_with_body, frame_len, route_request,
};

/// Why a frame could not be decoded. Java logs "decode exception" and closes the connection
/// in every one of these cases; so do our drivers.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeError {
    /// The length prefix is negative.
    NegativeLength(i32),
    /// The frame is longer than [`Limits::max_frame`] allows.
    FrameTooLarge {
        /// The frame length including its prefix.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The length prefix leaves no room for the header-length word.
    FrameTooShort(i32),
    /// The header length exceeds what the frame holds.
    BadHeaderLength {
        /// The header length from the frame.
        header: usize,
        /// Bytes available for header and body.
        available: usize,
    },
    /// The serialize-type byte is neither 0 (JSON) nor 1 (ROCKETMQ).
    UnsupportedSerializeType(u8),
    /// The JSON header is not a JSON object of the expected shape.
    BadJsonHeader(String),
    /// A length inside a ROCKETMQ binary header overruns the header.
    BadBinaryHeader(&'static str),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NegativeLength(n) => write!(f, "negative frame length {n}"),
            Self::FrameTooLarge { len, max } => write!(f, "frame of {len} bytes exceeds the {max}-byte limit"),
            Self::FrameTooShort(n) => write!(f, "frame length {n} is shorter than the header-length word"),
            Self::BadHeaderLength { header, available } => {
                write!(f, "decode error, bad header length: {header} (frame holds {available})")
            }
            Self::UnsupportedSerializeType(t) => write!(f, "unsupported serialize type {t}"),
            Self::BadJsonHeader(e) => write!(f, "bad JSON header: {e}"),
            Self::BadBinaryHeader(e) => write!(f, "bad ROCKETMQ header: {e}"),
        }
    }
}

impl core::error::Error for DecodeError {}

/// Why a command could not be encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeError {
    /// The header does not fit in the 24-bit header-length field.
    HeaderTooLarge(usize),
    /// The frame does not fit in the 32-bit length prefix.
    FrameTooLarge(usize),
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::HeaderTooLarge(n) => write!(f, "header of {n} bytes exceeds 16 MiB - 1"),
            Self::FrameTooLarge(n) => write!(f, "frame of {n} bytes exceeds the length prefix"),
        }
    }
}

impl core::error::Error for EncodeError {}
