//! A reply's header encoded once and written again with another opaque: the route path's
//! replies differ only there, and writing one is then two copies and an integer rather than a
//! JSON writer escaping every key.

use alloc::vec::Vec;

use super::EncodeError;
use super::frame;
use crate::protocol::{RemotingCommand, SerializeType};

/// The opaque the template is encoded with, to find where the opaque's digits go: the
/// header's only integer this long, as every other field it holds is a code, a flag, a
/// version or a language.
const MARK: i32 = i32::MIN;

/// A command's encoded header, split around its opaque.
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
        frame::encode(&marked, &mut encoded).ok()?;
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

    /// Appends the frame of the template's command with `opaque` and `body` to `out`, exactly
    /// as [`frame::encode_with_body`] would.
    ///
    /// # Errors
    /// As [`frame::encode_with_body`] (the frame too large); `out` is then as it was.
    pub fn encode_with_body(&self, opaque: i32, body: &[u8], out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let start = out.len();
        let mut digits = itoa::Buffer::new();
        let digits = digits.format(opaque).as_bytes();
        out.reserve(self.before.len() + digits.len() + self.after.len() + body.len());
        out.extend_from_slice(&self.before);
        out.extend_from_slice(digits);
        out.extend_from_slice(&self.after);
        let header_len = out.len() - start - 8;
        frame::finish(out, start, header_len, body, self.serialize_type)
    }
}

#[cfg(test)]
mod tests {
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
            frame::encode_with_body(&RemotingCommand { opaque, ..cmd }, &body, &mut expected).unwrap();
            let mut written = vec![7u8];
            template.encode_with_body(opaque, &body, &mut written).unwrap();
            prop_assert_eq!(written, expected);
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
