//! Reading replies: just enough of each frame to match it to its request and check its code.
//!
//! The generator must stay cheap next to the server it measures, so replies are not decoded
//! in full: the length words are read and the header is scanned for `code`, `opaque` and
//! `flag` (JSON), or read at their fixed offsets (ROCKETMQ binary).

use std::io;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::{Buf, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Largest reply frame accepted (the protocol's default frame limit).
pub const MAX_FRAME: usize = 16 * 1024 * 1024;

/// What the generator needs from a reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reply {
    /// The response code (0 is SUCCESS).
    pub code: i32,
    /// The request's opaque, echoed.
    pub opaque: i32,
    /// Bit 0: response; bit 1: oneway.
    pub flag: i32,
    /// The whole frame, length prefix included.
    pub frame_len: usize,
}

impl Reply {
    /// Whether this frame is a response (a server may also send requests, such as
    /// NOTIFY_MIN_BROKER_ID_CHANGE, to brokers).
    #[must_use]
    pub fn is_response(&self) -> bool {
        self.flag & 1 != 0
    }
}

/// Why a reply could not be read.
#[derive(Debug)]
pub enum WireError {
    /// The connection failed or closed.
    Io(io::Error),
    /// No reply within the timeout.
    Timeout,
    /// The bytes are not a well-formed frame.
    Malformed(&'static str),
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Io(e) => write!(f, "i/o: {e}"),
            Self::Timeout => f.write_str("timed out"),
            Self::Malformed(what) => write!(f, "malformed reply: {what}"),
        }
    }
}

impl std::error::Error for WireError {}

impl From<io::Error> for WireError {
    fn from(e: io::Error) -> Self {
        Self::Io(e)
    }
}

/// The first whole frame of `buf`, or `None` while it is incomplete.
///
/// # Errors
/// A length word out of range or a header without the fields.
pub fn next_reply(buf: &[u8]) -> Result<Option<Reply>, WireError> {
    let Some(prefix) = buf.first_chunk::<8>() else { return Ok(None) };
    let total = u32::from_be_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]) as usize;
    if !(4..=MAX_FRAME).contains(&total) {
        return Err(WireError::Malformed("frame length"));
    }
    let frame_len = total + 4;
    if buf.len() < frame_len {
        return Ok(None);
    }
    let word = u32::from_be_bytes([prefix[4], prefix[5], prefix[6], prefix[7]]);
    let header_len = (word & 0x00FF_FFFF) as usize;
    let header = buf.get(8..8 + header_len).filter(|_| header_len <= total - 4);
    let header = header.ok_or(WireError::Malformed("header length"))?;
    let (code, opaque, flag) = match word >> 24 {
        0 => (
            json_int(header, b"\"code\":").ok_or(WireError::Malformed("no code"))?,
            json_int(header, b"\"opaque\":").ok_or(WireError::Malformed("no opaque"))?,
            json_int(header, b"\"flag\":").unwrap_or(0),
        ),
        1 if header.len() >= 13 => (
            i32::from(i16::from_be_bytes([header[0], header[1]])),
            i32::from_be_bytes([header[5], header[6], header[7], header[8]]),
            i32::from_be_bytes([header[9], header[10], header[11], header[12]]),
        ),
        _ => return Err(WireError::Malformed("serialize type")),
    };
    Ok(Some(Reply { code, opaque, flag, frame_len }))
}

/// The integer after the first occurrence of `key` (the top-level fields come first in every
/// server's headers, before any extFields or remark).
fn json_int(header: &[u8], key: &[u8]) -> Option<i32> {
    let at = header.windows(key.len()).position(|w| w == key)? + key.len();
    let rest = &header[at..];
    let rest = &rest[rest.iter().take_while(|b| b.is_ascii_whitespace()).count()..];
    let (negative, digits) = match rest.split_first() {
        Some((b'-', tail)) => (true, tail),
        _ => (false, rest),
    };
    let len = digits.iter().take_while(|b| b.is_ascii_digit()).count();
    if len == 0 || len > 10 {
        return None;
    }
    let mut n: i64 = 0;
    for d in &digits[..len] {
        n = n * 10 + i64::from(d - b'0');
    }
    i32::try_from(if negative { -n } else { n }).ok()
}

/// One connection that sends frames and waits for replies.
#[derive(Debug)]
pub struct Conn {
    stream: TcpStream,
    inbuf: BytesMut,
}

impl Conn {
    /// Connects with `TCP_NODELAY`, as RocketMQ peers do.
    ///
    /// # Errors
    /// The connection is refused.
    pub async fn connect(addr: SocketAddr) -> io::Result<Self> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Self { stream, inbuf: BytesMut::with_capacity(16 * 1024) })
    }

    /// The socket, and what was read past the last reply.
    #[must_use]
    pub fn into_parts(self) -> (TcpStream, BytesMut) {
        (self.stream, self.inbuf)
    }

    /// Writes `frame` and waits for the response to it, skipping requests the server sends;
    /// returns the reply and the time from the first byte written to the reply read.
    ///
    /// # Errors
    /// I/O errors, a malformed reply, or no reply within `timeout`.
    pub async fn call(&mut self, frame: &[u8], timeout: Duration) -> Result<(Reply, Duration), WireError> {
        let start = Instant::now();
        let deadline = tokio::time::Instant::from_std(start + timeout);
        tokio::time::timeout_at(deadline, self.stream.write_all(frame)).await.map_err(|_| WireError::Timeout)??;
        loop {
            let reply = tokio::time::timeout_at(deadline, self.next()).await.map_err(|_| WireError::Timeout)??;
            if reply.is_response() {
                return Ok((reply, start.elapsed()));
            }
        }
    }

    /// The next whole frame from the server.
    async fn next(&mut self) -> Result<Reply, WireError> {
        loop {
            if let Some(reply) = next_reply(&self.inbuf)? {
                self.inbuf.advance(reply.frame_len);
                return Ok(reply);
            }
            if self.inbuf.capacity() - self.inbuf.len() < 4096 {
                self.inbuf.reserve(64 * 1024);
            }
            if self.stream.read_buf(&mut self.inbuf).await? == 0 {
                return Err(WireError::Io(io::ErrorKind::UnexpectedEof.into()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use nameserver_core::codec::encode_to_vec;
    use nameserver_core::protocol::{RemotingCommand, RequestCode, ResponseCode, SerializeType};

    use super::*;

    #[test]
    fn reads_json_and_binary_replies() {
        let mut request = RemotingCommand::request(RequestCode::GetRouteInfoByTopic);
        request.opaque = -77;
        for serialize_type in [SerializeType::Json, SerializeType::Rocketmq] {
            let mut reply = RemotingCommand::response_to(&request, ResponseCode::TopicNotExist)
                .with_remark("\"code\":5 in a remark")
                .with_body(vec![1, 2, 3]);
            reply.serialize_type = serialize_type;
            let bytes = encode_to_vec(&reply).unwrap();
            assert_eq!(next_reply(&bytes[..bytes.len() - 1]).unwrap(), None);
            let parsed = next_reply(&bytes).unwrap().unwrap();
            assert_eq!((parsed.code, parsed.opaque, parsed.flag, parsed.frame_len), (17, -77, 1, bytes.len()));
        }
    }

    #[test]
    fn rejects_bad_lengths() {
        assert!(next_reply(&[0, 0, 0, 2, 0, 0, 0, 0]).is_err());
        assert!(next_reply(&[0, 0, 0, 6, 0, 0, 0, 9, b'{', b'}']).is_err());
    }
}
