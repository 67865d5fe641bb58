//! The outer layer: length prefix, serialize-type byte, header length, body.

use alloc::vec::Vec;

use super::{DecodeError, EncodeError, Limits, binary_header, header_scan, json_header};
use crate::protocol::{RemotingCommand, RouteRequest, SerializeType};

const MAX_HEADER_LEN: usize = 0x00FF_FFFF;

/// The full length (prefix included) of the frame at the start of `buf`, once its prefix is
/// buffered; drivers use it to reserve space. Checks the prefix like [`decode`] does.
///
/// # Errors
/// A negative, too short or too large length prefix.
pub fn frame_len(buf: &[u8], limits: &Limits) -> Result<Option<usize>, DecodeError> {
    let Some(prefix) = buf.get(..4) else { return Ok(None) };
    let total = i32::from_be_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]);
    if total < 0 {
        return Err(DecodeError::NegativeLength(total));
    }
    // Checked above: total is non-negative.
    let len = total.unsigned_abs() as usize + 4;
    if len > limits.max_frame {
        return Err(DecodeError::FrameTooLarge { len, max: limits.max_frame });
    }
    if total < 4 {
        return Err(DecodeError::FrameTooShort(total));
    }
    Ok(Some(len))
}

/// Decodes one frame from the start of `buf`.
///
/// Returns the command and the number of bytes it used, or `Ok(None)` if `buf` does not yet
/// hold a whole frame.
///
/// # Errors
/// Any malformed frame; the connection should then be closed (as Java does).
pub fn decode(buf: &[u8], limits: &Limits) -> Result<Option<(RemotingCommand, usize)>, DecodeError> {
    let Some(len) = frame_len(buf, limits)? else { return Ok(None) };
    let Some(frame) = buf.get(..len) else { return Ok(None) };
    let (mut cmd, body_at) = decode_header(frame)?;
    cmd.body = frame[body_at..].to_vec();
    Ok(Some((cmd, len)))
}

/// Decodes `frame` when it holds exactly one whole frame (else `Ok(None)`), keeping its
/// bytes as the body: a large frame (a registration of many topics) is then never held twice.
///
/// # Errors
/// As [`decode`].
pub fn decode_owned(mut frame: Vec<u8>, limits: &Limits) -> Result<Option<RemotingCommand>, DecodeError> {
    if frame_len(&frame, limits)? != Some(frame.len()) {
        return Ok(None);
    }
    let (mut cmd, body_at) = decode_header(&frame)?;
    frame.drain(..body_at);
    cmd.body = frame;
    Ok(Some(cmd))
}

/// GET_ROUTEINFO_BY_TOPIC read from a whole `frame` (length prefix included, as [`decode`]
/// takes it) without allocating: what [`decode`] and then
/// [`Request::parse`](crate::protocol::Request::parse) would read, borrowed. `None` for any
/// other frame, and for the few route queries only those two can read (escaped strings, a
/// repeated or null route field, unusual JSON): the route path then takes that way.
#[must_use]
pub fn route_request(frame: &[u8]) -> Option<RouteRequest<'_>> {
    let word = u32::from_be_bytes(*frame.get(4..8)?.first_chunk::<4>()?);
    let header_len = (word & 0x00FF_FFFF) as usize;
    let header = frame.get(8..8usize.checked_add(header_len)?)?;
    match word >> 24 {
        0 => header_scan::route_request(header),
        1 => binary_header::route_request(header),
        _ => None,
    }
}

/// The command of a whole `frame` (length prefix included) without its body, and where the
/// body starts.
fn decode_header(frame: &[u8]) -> Result<(RemotingCommand, usize), DecodeError> {
    let word = u32::from_be_bytes([frame[4], frame[5], frame[6], frame[7]]);
    let type_byte = (word >> 24) as u8;
    let header_len = (word & 0x00FF_FFFF) as usize;
    let available = frame.len() - 8;
    if header_len > available {
        return Err(DecodeError::BadHeaderLength { header: header_len, available });
    }
    let header = &frame[8..8 + header_len];
    let cmd = match type_byte {
        0 => json_header::decode(header)?,
        1 => binary_header::decode(header)?,
        other => return Err(DecodeError::UnsupportedSerializeType(other)),
    };
    Ok((cmd, 8 + header_len))
}

/// Appends `cmd` as one frame to `out`, with the header form named by `cmd.serialize_type`.
///
/// # Errors
/// If the header or the frame is too large for the length fields; `out` is then unchanged.
pub fn encode(cmd: &RemotingCommand, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    encode_with_body(cmd, &cmd.body, out)
}

/// Appends a frame made of `cmd`'s header and `body` (ignoring `cmd.body`), so that a body
/// encoded once can be sent many times without being copied into a command first.
///
/// # Errors
/// As [`encode`].
pub fn encode_with_body(cmd: &RemotingCommand, body: &[u8], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let start = out.len();
    out.extend_from_slice(&[0; 8]);
    match cmd.serialize_type {
        SerializeType::Json => json_header::encode(cmd, out),
        SerializeType::Rocketmq => binary_header::encode(cmd, out),
    }
    let header_len = out.len() - start - 8;
    finish(out, start, header_len, body.len(), cmd.serialize_type)?;
    out.extend_from_slice(body);
    Ok(())
}

/// Completes the header of the frame begun at `out[start]` (eight bytes kept for the length
/// words, then `header_len` bytes of header) by filling in the length words for a body of
/// `body_len` bytes, which the caller sends right after it.
///
/// # Errors
/// As [`encode`]; `out` is then truncated to `start`.
pub(super) fn finish(
    out: &mut Vec<u8>,
    start: usize,
    header_len: usize,
    body_len: usize,
    serialize_type: SerializeType,
) -> Result<(), EncodeError> {
    if header_len > MAX_HEADER_LEN {
        out.truncate(start);
        return Err(EncodeError::HeaderTooLarge(header_len));
    }
    let total = 4 + header_len + body_len;
    let Ok(total32) = i32::try_from(total) else {
        out.truncate(start);
        return Err(EncodeError::FrameTooLarge(total + 4));
    };
    out[start..start + 4].copy_from_slice(&total32.to_be_bytes());
    // header_len fits in 24 bits (checked above).
    let word = (u32::from(serialize_type.byte()) << 24) | header_len as u32;
    out[start + 4..start + 8].copy_from_slice(&word.to_be_bytes());
    Ok(())
}

/// [`encode`] into a fresh buffer.
///
/// # Errors
/// As [`encode`].
pub fn encode_to_vec(cmd: &RemotingCommand) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::with_capacity(256 + cmd.body.len());
    encode(cmd, &mut out)?;
    Ok(out)
}

/// The opaque the template is encoded with, to find where the opaque's digits go: the
/// header's only integer this long, as every other field it holds is a code, a flag, a
/// version or a language.
const MARK: i32 = i32::MIN;

/// A command's encoded header, split around its opaque: the route path's replies differ only
/// there, and writing one is then two copies and an integer rather than a JSON writer escaping
/// every key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeadTemplate {
    /// The frame up to the opaque's digits: zeros for the two length words, then the header.
    before: Vec<u8>,
    /// The header after the opaque's digits.
    after: Vec<u8>,
    serialize_type: SerializeType,
}

impl HeadTemplate {
    /// `cmd`'s header (its body aside), any opaque; `None` when its header is not JSON or
    /// holds the opaque's digits twice (a remark or field that quotes them).
    #[must_use]
    pub fn new(cmd: &RemotingCommand) -> Option<Self> {
        if cmd.serialize_type != SerializeType::Json {
            return None;
        }
        let marked = RemotingCommand { opaque: MARK, body: Vec::new(), ..cmd.clone() };
        let mut encoded = Vec::new();
        encode(&marked, &mut encoded).ok()?;
        let mut digits = itoa::Buffer::new();
        let digits = digits.format(MARK).as_bytes();
        let mut found = encoded.windows(digits.len()).enumerate().filter(|(_, w)| *w == digits).map(|(at, _)| at);
        let at = found.next()?;
        if found.next().is_some() {
            return None;
        }
        encoded[..8].fill(0);
        let after = encoded.split_off(at + digits.len());
        encoded.truncate(at);
        Some(Self { before: encoded, after, serialize_type: cmd.serialize_type })
    }

    /// Appends the frame's length words and the header of the template's command with
    /// `opaque`, for a body of `body_len` bytes that the caller writes right after them (copied
    /// into `out`, or shared and written from elsewhere): with the body, exactly what
    /// [`encode_with_body`] would write.
    ///
    /// # Errors
    /// As [`encode_with_body`] (the frame too large); `out` is then as it was.
    pub fn encode_head(&self, opaque: i32, body_len: usize, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let start = out.len();
        let mut digits = itoa::Buffer::new();
        let digits = digits.format(opaque).as_bytes();
        out.reserve(self.before.len() + digits.len() + self.after.len());
        out.extend_from_slice(&self.before);
        out.extend_from_slice(digits);
        out.extend_from_slice(&self.after);
        let header_len = out.len() - start - 8;
        finish(out, start, header_len, body_len, self.serialize_type)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::RequestCode;

    #[test]
    fn partial_frames_are_not_errors() {
        let cmd = RemotingCommand::request(RequestCode::GetBrokerClusterInfo).with_body(b"xyz".to_vec());
        let bytes = encode_to_vec(&cmd).unwrap();
        for cut in 0..bytes.len() {
            assert_eq!(decode(&bytes[..cut], &Limits::DEFAULT), Ok(None), "cut at {cut}");
        }
        let (back, used) = decode(&bytes, &Limits::DEFAULT).unwrap().unwrap();
        assert_eq!(used, bytes.len());
        assert_eq!(back, cmd);
    }

    #[test]
    fn an_owned_frame_decodes_as_a_borrowed_one() {
        let mut cmd = RemotingCommand::request(RequestCode::RegisterBroker).with_field("brokerName", "b");
        cmd.body = alloc::vec![7; 300];
        let bytes = encode_to_vec(&cmd).unwrap();
        let (borrowed, _) = decode(&bytes, &Limits::DEFAULT).unwrap().unwrap();
        assert_eq!(decode_owned(bytes.clone(), &Limits::DEFAULT), Ok(Some(borrowed)));
        let mut two = bytes.clone();
        two.extend_from_slice(&bytes);
        assert_eq!(decode_owned(two, &Limits::DEFAULT), Ok(None), "more than one frame");
        assert_eq!(decode_owned(bytes[..bytes.len() - 1].to_vec(), &Limits::DEFAULT), Ok(None), "less than one");
        assert_eq!(decode_owned(Vec::new(), &Limits::DEFAULT), Ok(None));
    }

    #[test]
    fn length_prefix_is_checked_before_the_frame_arrives() {
        let limits = Limits { max_frame: 64, ..Limits::DEFAULT };
        assert_eq!(decode(&61i32.to_be_bytes(), &limits), Err(DecodeError::FrameTooLarge { len: 65, max: 64 }));
        assert_eq!(decode(&60i32.to_be_bytes(), &limits), Ok(None));
        assert_eq!(decode(&(-1i32).to_be_bytes(), &limits), Err(DecodeError::NegativeLength(-1)));
        assert_eq!(decode(&3i32.to_be_bytes(), &limits), Err(DecodeError::FrameTooShort(3)));
        // Java's limit counts the prefix: 16777212 is the largest accepted length value.
        assert_eq!(frame_len(&16_777_212i32.to_be_bytes(), &Limits::DEFAULT), Ok(Some(16_777_216)));
        assert!(frame_len(&16_777_213i32.to_be_bytes(), &Limits::DEFAULT).is_err());
    }

    #[test]
    fn header_length_and_type_are_checked() {
        let bad_len = [0, 0, 0, 6, 0, 0, 0, 9, b'{', b'}'];
        assert_eq!(decode(&bad_len, &Limits::DEFAULT), Err(DecodeError::BadHeaderLength { header: 9, available: 2 }));
        let bad_type = [0, 0, 0, 6, 2, 0, 0, 2, b'{', b'}'];
        assert_eq!(decode(&bad_type, &Limits::DEFAULT), Err(DecodeError::UnsupportedSerializeType(2)));
    }
}

#[cfg(test)]
mod template_tests {
    use alloc::string::String;
    use alloc::vec;

    use proptest::prelude::*;

    use super::*;
    use crate::protocol::{LanguageCode, ResponseCode};

    fn commands() -> impl Strategy<Value = RemotingCommand> {
        (any::<i32>(), any::<i32>(), any::<i16>(), proptest::option::of("[ -~]{0,12}"), any::<bool>()).prop_map(
            |(code, flag, version, remark, ext)| {
                let mut cmd = RemotingCommand::response(0, ResponseCode::Success);
                cmd.code = code;
                cmd.flag = flag;
                cmd.version = i32::from(version);
                cmd.language = LanguageCode::Java;
                cmd.remark = remark;
                if ext {
                    cmd = cmd.with_field("topic", "TopicTest");
                }
                cmd
            },
        )
    }

    proptest! {
        /// Whatever the header holds, a template writes the bytes the encoder writes, with any
        /// opaque and body; or it declines.
        #[test]
        fn a_template_writes_what_the_encoder_writes(
            cmd in commands(),
            opaque in any::<i32>(),
            body in proptest::collection::vec(any::<u8>(), 0..64),
        ) {
            let Some(template) = HeadTemplate::new(&cmd) else {
                return Ok(());
            };
            let mut expected = vec![7u8];
            encode_with_body(&RemotingCommand { opaque, ..cmd }, &body, &mut expected).unwrap();
            // The head, then the body, as a reply sent from the template is written.
            let mut head = vec![7u8];
            template.encode_head(opaque, body.len(), &mut head).unwrap();
            head.extend_from_slice(&body);
            prop_assert_eq!(head, expected);
        }
    }

    #[test]
    fn a_route_reply_has_a_template_and_a_remark_quoting_the_mark_has_none() {
        assert!(HeadTemplate::new(&RemotingCommand::response(1, ResponseCode::Success)).is_some());
        let quoting = RemotingCommand::response(1, ResponseCode::Success).with_remark(String::from("-2147483648"));
        assert_eq!(HeadTemplate::new(&quoting), None);
        let mut binary = RemotingCommand::response(1, ResponseCode::Success);
        binary.serialize_type = SerializeType::Rocketmq;
        assert_eq!(HeadTemplate::new(&binary), None);
    }
}
