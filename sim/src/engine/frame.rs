//! A frame in flight: the message it carries, encoded only when someone reads its bytes.
//!
//! Actors exchange messages (commands, their headers typed where both ends are actors:
//! `node/message.rs`); encoding every one at send time and decoding it at arrival cost most
//! of a simulated hour, for bytes nobody read. A message whose bytes decode back to its
//! command travels as it is, and [`Frame::bytes`] encodes it on demand (the message
//! inspector, the state hash) into the same bytes as at send time. Any other is encoded when
//! sent and decoded on arrival, as the wire would have it.

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::vec::Vec;
use core::hash::{Hash, Hasher};

use crate::node::message::Message;
use nameserver_core::codec::{self, Limits};
use nameserver_core::protocol::{RemotingCommand, SerializeType};

/// What a frame on the wire carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame(Carried);

#[derive(Clone, Debug, PartialEq, Eq)]
enum Carried {
    /// A message whose command equals the decoding of its own encoding (boxed: a flight, moved
    /// into the flight table and out again, stays small).
    Message(Box<Message>),
    /// The encoding of a command that would not decode back to itself.
    Bytes(Vec<u8>),
}

impl Frame {
    /// The frame of `msg`, or `None` if it cannot be encoded (the sender then sends nothing).
    #[must_use]
    pub(crate) fn of(msg: Message) -> Option<Self> {
        if decodes_to_itself(&msg) {
            return Some(Self(Carried::Message(Box::new(msg))));
        }
        codec::encode_to_vec(&msg.command()).ok().map(|bytes| Self(Carried::Bytes(bytes)))
    }

    /// The frame's bytes, as `codec::encode` writes its command.
    #[must_use]
    pub fn bytes(&self) -> Cow<'_, [u8]> {
        match &self.0 {
            // `of` kept only commands that encode.
            Carried::Message(msg) => Cow::Owned(codec::encode_to_vec(&msg.command()).unwrap_or_default()),
            Carried::Bytes(bytes) => Cow::Borrowed(bytes),
        }
    }

    /// The command its receiver reads: `codec::decode` of its bytes, `None` if they do not
    /// decode (a frame above the decoder's limit).
    #[must_use]
    pub fn command(&self) -> Option<Cow<'_, RemotingCommand>> {
        match &self.0 {
            Carried::Message(msg) => Some(msg.command()),
            Carried::Bytes(bytes) => decode(bytes).map(Cow::Owned),
        }
    }

    /// The message its receiver reads: [`Self::command`], its header still typed if it was.
    pub(crate) fn into_message(self) -> Option<Message> {
        match self.0 {
            Carried::Message(msg) => Some(*msg),
            Carried::Bytes(bytes) => decode(&bytes).map(Message::from),
        }
    }
}

/// Hashes as its bytes would (`Vec<u8>`'s hash of them), so the state hash is the same whether
/// a frame travels as a command or as bytes.
impl Hash for Frame {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.bytes().as_ref().hash(state);
    }
}

fn decode(bytes: &[u8]) -> Option<RemotingCommand> {
    codec::decode(bytes, &Limits::DEFAULT).ok().flatten().map(|(cmd, _)| cmd)
}

/// Whether decoding `msg`'s encoding gives its command back: the JSON header carries every
/// field and its strings exactly, the decoder sets `ext_fields_lossy` only for input our
/// encoder never writes, and a frame within the decoder's limit is read whole. The size is
/// bounded from above (JSON escapes a byte into at most six), so a command near the limit goes
/// the exact way, as bytes.
fn decodes_to_itself(msg: &Message) -> bool {
    let cmd = msg.head();
    if cmd.serialize_type != SerializeType::Json || cmd.ext_fields_lossy {
        return false;
    }
    let text = cmd.remark.as_ref().map_or(0, alloc::string::String::len) + msg.fields_text_bound();
    FIXED_HEADER + 6 * text + cmd.body.len() <= Limits::DEFAULT.max_frame
}

/// More than the frame's prefix and every header byte but the strings take.
const FIXED_HEADER: usize = 256;

#[cfg(test)]
mod tests {
    use alloc::collections::BTreeMap;
    use alloc::string::String;

    use proptest::prelude::*;

    use super::*;
    use nameserver_core::protocol::LanguageCode;

    fn text() -> impl Strategy<Value = String> {
        proptest::string::string_regex("(.|[\\x00-\\x1f\"\\\\\u{2028}\u{fffd}]){0,12}").expect("a valid pattern")
    }

    fn command() -> impl Strategy<Value = RemotingCommand> {
        (
            any::<i32>(),
            any::<u8>(),
            any::<i32>(),
            any::<i32>(),
            0..4i32,
            proptest::option::of(text()),
            proptest::option::of(proptest::collection::btree_map(text(), text(), 0..6)),
            proptest::collection::vec(any::<u8>(), 0..64),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(code, lang, version, opaque, flag, remark, ext_fields, body, binary, lossy)| {
                RemotingCommand {
                    code,
                    language: LanguageCode::from(lang),
                    version,
                    opaque,
                    flag,
                    remark,
                    ext_fields,
                    ext_fields_lossy: lossy,
                    serialize_type: if binary { SerializeType::Rocketmq } else { SerializeType::Json },
                    body,
                }
            })
    }

    proptest! {
        /// A receiver reads what it would have decoded from the bytes, whichever way the frame
        /// travels, and the bytes are those encoding gives at send time.
        #[test]
        fn a_frame_reads_as_its_bytes_decode(cmd in command()) {
            let sent = codec::encode_to_vec(&cmd).expect("small commands encode");
            let frame = Frame::of(cmd.into()).expect("small commands encode");
            let bytes = frame.bytes();
            prop_assert_eq!(bytes.as_ref(), sent.as_slice());
            let decoded = codec::decode(&sent, &Limits::DEFAULT).expect("it decodes").map(|(cmd, _)| cmd);
            prop_assert_eq!(frame.command().map(Cow::into_owned), decoded);
        }
    }

    #[test]
    fn a_command_over_the_frame_limit_travels_as_bytes_that_do_not_decode() {
        let mut cmd = RemotingCommand::default().with_header_fields();
        cmd.body = alloc::vec![0; Limits::DEFAULT.max_frame];
        let frame = Frame::of(cmd.into()).expect("it encodes");
        assert!(matches!(frame.0, Carried::Bytes(_)));
        assert_eq!(frame.command(), None, "the receiver's decoder refuses it");
        let empty = RemotingCommand { ext_fields: Some(BTreeMap::new()), ..RemotingCommand::default() };
        assert!(matches!(Frame::of(empty.into()).map(|f| f.0), Some(Carried::Message(_))));
    }
}
