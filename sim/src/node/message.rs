//! What actors send each other: a command, its custom header typed where one simulated actor
//! writes it and another reads it (pulls, offset commits, sends and their answers: most
//! frames of a run). Building the extFields map of strings and parsing numbers back out of it
//! cost a large part of a simulated hour, for text only the message inspector reads;
//! [`Message::command`] gives that text on demand, the same map as the sender built before.

use alloc::borrow::Cow;
use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};

use nameserver_core::names::{BrokerName, TopicName};
use nameserver_core::protocol::{RemotingCommand, RequestCode, ResponseCode};

/// A command as an actor sends or receives it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Message {
    /// The command. Its extFields are `None` when `header` is typed: the header stands for them.
    pub(crate) cmd: RemotingCommand,
    pub(crate) header: Header,
}

/// A message's custom header.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Header {
    /// The command's own extFields.
    Fields,
    /// PULL_MESSAGE's.
    Pull(PullHeader),
    /// A PULL_MESSAGE answer's.
    PullAnswer(PullAnswer),
    /// UPDATE_CONSUMER_OFFSET's.
    Commit(CommitHeader),
    /// SEND_MESSAGE's.
    Send(SendHeader),
    /// A SEND_MESSAGE answer's.
    SendAnswer(SendAnswer),
}

impl From<RemotingCommand> for Message {
    fn from(cmd: RemotingCommand) -> Self {
        Self { cmd, header: Header::Fields }
    }
}

impl Message {
    /// `cmd` (without extFields) with a typed header.
    fn typed(cmd: RemotingCommand, header: Header) -> Self {
        debug_assert!(cmd.ext_fields.is_none(), "a typed header stands for every field");
        Self { cmd, header }
    }

    /// The command the wire carries: the typed header written as extFields.
    #[must_use]
    pub fn command(&self) -> Cow<'_, RemotingCommand> {
        match self.header.fields() {
            None => Cow::Borrowed(&self.cmd),
            Some(fields) => Cow::Owned(RemotingCommand { ext_fields: Some(fields), ..self.cmd.clone() }),
        }
    }

    /// [`Self::command`], taken.
    #[must_use]
    pub fn into_command(self) -> RemotingCommand {
        match self.header.fields() {
            None => self.cmd,
            Some(fields) => RemotingCommand { ext_fields: Some(fields), ..self.cmd },
        }
    }

    /// The typed header `T`: as sent, or read from the command's extFields as the receiver
    /// would read them (a command that came as bytes).
    #[must_use]
    pub fn header<T: TypedHeader>(&self) -> Cow<'_, T> {
        match T::of(&self.header) {
            Some(header) => Cow::Borrowed(header),
            None => Cow::Owned(T::read(&self.cmd)),
        }
    }

    /// The command without its extFields when they are typed: code, flag, opaque, remark,
    /// body.
    #[must_use]
    pub fn head(&self) -> &RemotingCommand {
        &self.cmd
    }

    /// An upper bound of the length of the extFields' text (keys and values, with room for
    /// quotes and separators), without writing them.
    #[must_use]
    pub(crate) fn fields_text_bound(&self) -> usize {
        let entry = |k: usize, v: usize| k + v + 8;
        match &self.header {
            Header::Fields => self.cmd.ext_fields.iter().flatten().map(|(k, v)| entry(k.len(), v.len())).sum(),
            Header::Pull(h) => h.group.len() + h.topic.as_str().len() + TYPED_ENTRIES * entry(KEY_MAX, NUMBER_MAX),
            Header::PullAnswer(_) => TYPED_ENTRIES * entry(KEY_MAX, NUMBER_MAX),
            Header::Commit(h) => {
                h.group.len()
                    + h.topic.as_str().len()
                    + h.broker.as_str().len()
                    + TYPED_ENTRIES * entry(KEY_MAX, NUMBER_MAX)
            }
            Header::Send(h) => {
                h.producer_group.len()
                    + h.topic.as_str().len()
                    + h.default_topic.as_str().len()
                    + TYPED_ENTRIES * entry(KEY_MAX, NUMBER_MAX)
            }
            Header::SendAnswer(h) => {
                h.msg_id.as_ref().map_or(0, String::len) + TYPED_ENTRIES * entry(KEY_MAX, NUMBER_MAX)
            }
        }
    }
}

/// At least the entries of any typed header, the longest key among them, the longest number.
const TYPED_ENTRIES: usize = 12;
const KEY_MAX: usize = 24;
const NUMBER_MAX: usize = 20;

impl Header {
    /// The typed header as extFields; `None` for [`Header::Fields`] (the command holds them).
    fn fields(&self) -> Option<BTreeMap<String, String>> {
        let mut fields = BTreeMap::new();
        match self {
            Self::Fields => return None,
            Self::Pull(h) => h.write(&mut fields),
            Self::PullAnswer(h) => h.write(&mut fields),
            Self::Commit(h) => h.write(&mut fields),
            Self::Send(h) => h.write(&mut fields),
            Self::SendAnswer(h) => h.write(&mut fields),
        }
        Some(fields)
    }
}

/// A custom header one actor writes and another reads.
pub trait TypedHeader: Clone {
    /// This header, if `header` is one.
    fn of(header: &Header) -> Option<&Self>;
    /// The header as its receiver reads it from extFields (absent or unparsable fields as it
    /// takes them).
    fn read(cmd: &RemotingCommand) -> Self;
    /// The header as its sender writes it into extFields.
    fn write(&self, fields: &mut BTreeMap<String, String>);
}

/// PULL_MESSAGE (`PullMessageRequestHeader`), as a consumer writes it and a broker reads it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PullHeader {
    /// `consumerGroup`.
    pub(crate) group: String,
    /// `topic`.
    pub(crate) topic: TopicName,
    /// `queueId` (0 if absent).
    pub(crate) queue: i32,
    /// `queueOffset` (0 if absent).
    pub(crate) offset: u64,
    /// `maxMsgNums` (32 if absent).
    pub(crate) max_msgs: u64,
    /// `sysFlag` (0 if absent).
    pub(crate) sys_flag: i32,
    /// `commitOffset`.
    pub(crate) commit: Option<u64>,
}

impl PullHeader {
    /// The request.
    #[must_use]
    pub(crate) fn request(self) -> Message {
        Message::typed(RemotingCommand::request(RequestCode::PullMessage), Header::Pull(self))
    }
}

impl TypedHeader for PullHeader {
    fn of(header: &Header) -> Option<&Self> {
        if let Header::Pull(h) = header { Some(h) } else { None }
    }

    fn read(cmd: &RemotingCommand) -> Self {
        Self {
            group: String::from(cmd.field("consumerGroup").unwrap_or("")),
            topic: TopicName::from(cmd.field("topic").unwrap_or("")),
            queue: number(cmd, "queueId").unwrap_or(0),
            offset: number(cmd, "queueOffset").unwrap_or(0),
            max_msgs: number(cmd, "maxMsgNums").unwrap_or(32),
            sys_flag: number(cmd, "sysFlag").unwrap_or(0),
            commit: number(cmd, "commitOffset"),
        }
    }

    fn write(&self, fields: &mut BTreeMap<String, String>) {
        put(fields, "consumerGroup", self.group.as_str());
        put(fields, "topic", self.topic.as_str());
        put(fields, "queueId", self.queue.to_string());
        put(fields, "queueOffset", self.offset.to_string());
        put(fields, "maxMsgNums", self.max_msgs.to_string());
        put(fields, "sysFlag", self.sys_flag.to_string());
        if let Some(commit) = self.commit {
            put(fields, "commitOffset", commit.to_string());
        }
        put(fields, "suspendTimeoutMillis", "15000");
        put(fields, "subscription", "*");
        put(fields, "subVersion", "0");
    }
}

/// A PULL_MESSAGE answer (`PullMessageResponseHeader`), as a broker writes it and a consumer
/// reads it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PullAnswer {
    /// `nextBeginOffset`.
    pub(crate) next_begin: Option<u64>,
    /// `maxOffset`.
    pub(crate) max_offset: Option<u64>,
}

impl PullAnswer {
    /// The answer `reply` (a response without extFields) with this header.
    #[must_use]
    pub(crate) fn response(self, reply: RemotingCommand) -> Message {
        Message::typed(reply, Header::PullAnswer(self))
    }
}

impl TypedHeader for PullAnswer {
    fn of(header: &Header) -> Option<&Self> {
        if let Header::PullAnswer(h) = header { Some(h) } else { None }
    }

    fn read(cmd: &RemotingCommand) -> Self {
        Self { next_begin: number(cmd, "nextBeginOffset"), max_offset: number(cmd, "maxOffset") }
    }

    fn write(&self, fields: &mut BTreeMap<String, String>) {
        if let Some(next) = self.next_begin {
            put(fields, "nextBeginOffset", next.to_string());
        }
        put(fields, "minOffset", "0");
        if let Some(max) = self.max_offset {
            put(fields, "maxOffset", max.to_string());
        }
        put(fields, "suggestWhichBrokerId", "0");
    }
}

/// UPDATE_CONSUMER_OFFSET (`UpdateConsumerOffsetRequestHeader`), as a consumer writes it and a
/// broker reads it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CommitHeader {
    /// `consumerGroup`.
    pub(crate) group: String,
    /// `topic`.
    pub(crate) topic: TopicName,
    /// `queueId`.
    pub(crate) queue: Option<i32>,
    /// `commitOffset`.
    pub(crate) offset: Option<u64>,
    /// `brokerName`.
    pub(crate) broker: BrokerName,
}

impl CommitHeader {
    /// The request.
    #[must_use]
    pub(crate) fn request(self) -> Message {
        Message::typed(RemotingCommand::request(RequestCode::UpdateConsumerOffset), Header::Commit(self))
    }
}

impl TypedHeader for CommitHeader {
    fn of(header: &Header) -> Option<&Self> {
        if let Header::Commit(h) = header { Some(h) } else { None }
    }

    fn read(cmd: &RemotingCommand) -> Self {
        Self {
            group: String::from(cmd.field("consumerGroup").unwrap_or("")),
            topic: TopicName::from(cmd.field("topic").unwrap_or("")),
            queue: number(cmd, "queueId"),
            offset: number(cmd, "commitOffset"),
            broker: BrokerName::from(cmd.field("brokerName").unwrap_or("")),
        }
    }

    fn write(&self, fields: &mut BTreeMap<String, String>) {
        put(fields, "consumerGroup", self.group.as_str());
        put(fields, "topic", self.topic.as_str());
        if let Some(queue) = self.queue {
            put(fields, "queueId", queue.to_string());
        }
        if let Some(offset) = self.offset {
            put(fields, "commitOffset", offset.to_string());
        }
        put(fields, "brokerName", self.broker.as_str());
    }
}

/// SEND_MESSAGE (`SendMessageRequestHeader`), as a producer writes it and a broker reads it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SendHeader {
    /// `producerGroup`.
    pub(crate) producer_group: String,
    /// `topic`.
    pub(crate) topic: TopicName,
    /// `defaultTopic`.
    pub(crate) default_topic: TopicName,
    /// `defaultTopicQueueNums`.
    pub(crate) default_queue_nums: Option<i32>,
    /// `queueId`.
    pub(crate) queue: Option<i32>,
}

impl SendHeader {
    /// The request, carrying `body`.
    #[must_use]
    pub(crate) fn request(self, body: String) -> Message {
        Message::typed(RemotingCommand::request(RequestCode::SendMessage).with_body(body), Header::Send(self))
    }
}

impl TypedHeader for SendHeader {
    fn of(header: &Header) -> Option<&Self> {
        if let Header::Send(h) = header { Some(h) } else { None }
    }

    fn read(cmd: &RemotingCommand) -> Self {
        Self {
            producer_group: String::from(cmd.field("producerGroup").unwrap_or("")),
            topic: TopicName::from(cmd.field("topic").unwrap_or("")),
            default_topic: TopicName::from(cmd.field("defaultTopic").unwrap_or("")),
            default_queue_nums: number(cmd, "defaultTopicQueueNums"),
            queue: number(cmd, "queueId"),
        }
    }

    fn write(&self, fields: &mut BTreeMap<String, String>) {
        put(fields, "producerGroup", self.producer_group.as_str());
        put(fields, "topic", self.topic.as_str());
        put(fields, "defaultTopic", self.default_topic.as_str());
        if let Some(nums) = self.default_queue_nums {
            put(fields, "defaultTopicQueueNums", nums.to_string());
        }
        if let Some(queue) = self.queue {
            put(fields, "queueId", queue.to_string());
        }
    }
}

/// A SEND_MESSAGE answer (`SendMessageResponseHeader`), as a broker writes it and a producer
/// reads it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SendAnswer {
    /// `msgId`.
    pub(crate) msg_id: Option<String>,
    /// `queueId`.
    pub(crate) queue: Option<i32>,
    /// `queueOffset`.
    pub(crate) offset: Option<u64>,
}

impl SendAnswer {
    /// The SUCCESS answer to the request of `opaque`.
    #[must_use]
    pub(crate) fn response(self, opaque: i32) -> Message {
        Message::typed(RemotingCommand::response(opaque, ResponseCode::Success), Header::SendAnswer(self))
    }
}

impl TypedHeader for SendAnswer {
    fn of(header: &Header) -> Option<&Self> {
        if let Header::SendAnswer(h) = header { Some(h) } else { None }
    }

    fn read(cmd: &RemotingCommand) -> Self {
        Self {
            msg_id: cmd.field("msgId").map(String::from),
            queue: number(cmd, "queueId"),
            offset: number(cmd, "queueOffset"),
        }
    }

    fn write(&self, fields: &mut BTreeMap<String, String>) {
        if let Some(msg_id) = &self.msg_id {
            put(fields, "msgId", msg_id.as_str());
        }
        if let Some(queue) = self.queue {
            put(fields, "queueId", queue.to_string());
        }
        if let Some(offset) = self.offset {
            put(fields, "queueOffset", offset.to_string());
        }
    }
}

fn number<T: core::str::FromStr>(cmd: &RemotingCommand, key: &str) -> Option<T> {
    cmd.field(key).and_then(|v| v.parse().ok())
}

fn put(fields: &mut BTreeMap<String, String>, key: &str, value: impl Into<String>) {
    fields.insert(String::from(key), value.into());
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn text() -> impl Strategy<Value = String> {
        proptest::string::string_regex("(.|[\\x00-\\x1f\"\\\\]){0,12}").expect("a valid pattern")
    }

    fn header() -> impl Strategy<Value = Header> {
        let n64 = || proptest::option::of(any::<u64>());
        let n32 = || proptest::option::of(any::<i32>());
        prop_oneof![
            (text(), text(), any::<i32>(), any::<u64>(), any::<u64>(), any::<i32>(), n64()).prop_map(
                |(group, topic, queue, offset, max_msgs, sys_flag, commit)| Header::Pull(PullHeader {
                    group,
                    topic: TopicName::new(topic),
                    queue,
                    offset,
                    max_msgs,
                    sys_flag,
                    commit
                })
            ),
            (n64(), n64())
                .prop_map(|(next_begin, max_offset)| Header::PullAnswer(PullAnswer { next_begin, max_offset })),
            (text(), text(), n32(), n64(), text()).prop_map(|(group, topic, queue, offset, broker)| {
                Header::Commit(CommitHeader {
                    group,
                    topic: TopicName::new(topic),
                    queue,
                    offset,
                    broker: BrokerName::new(broker),
                })
            }),
            (text(), text(), text(), n32(), n32()).prop_map(|(group, topic, default_topic, nums, queue)| {
                Header::Send(SendHeader {
                    producer_group: group,
                    topic: TopicName::new(topic),
                    default_topic: TopicName::new(default_topic),
                    default_queue_nums: nums,
                    queue,
                })
            }),
            (proptest::option::of(text()), n32(), n64())
                .prop_map(|(msg_id, queue, offset)| Header::SendAnswer(SendAnswer { msg_id, queue, offset })),
        ]
    }

    fn read_back(header: &Header) -> Header {
        let cmd = Message::typed(RemotingCommand::default(), header.clone()).into_command();
        let msg = Message::from(cmd);
        match header {
            Header::Fields => Header::Fields,
            Header::Pull(_) => Header::Pull(msg.header::<PullHeader>().into_owned()),
            Header::PullAnswer(_) => Header::PullAnswer(msg.header::<PullAnswer>().into_owned()),
            Header::Commit(_) => Header::Commit(msg.header::<CommitHeader>().into_owned()),
            Header::Send(_) => Header::Send(msg.header::<SendHeader>().into_owned()),
            Header::SendAnswer(_) => Header::SendAnswer(msg.header::<SendAnswer>().into_owned()),
        }
    }

    proptest! {
        /// A receiver reads from a typed header what it would have read from the extFields the
        /// header writes, and those fit the bound a frame is sized by.
        #[test]
        fn a_typed_header_reads_as_its_fields(header in header()) {
            prop_assert_eq!(read_back(&header), header.clone());
            let msg = Message::typed(RemotingCommand::default(), header);
            let text: usize = msg.command().ext_fields.iter().flatten().map(|(k, v)| k.len() + v.len() + 8).sum();
            prop_assert!(text <= msg.fields_text_bound());
        }
    }

    #[test]
    fn a_pull_writes_the_fields_java_sends() {
        let pull = PullHeader {
            group: String::from("CG"),
            topic: TopicName::from("T"),
            queue: 3,
            offset: 10,
            max_msgs: 32,
            sys_flag: 7,
            commit: Some(9),
        };
        let cmd = pull.request().into_command();
        let fields: alloc::vec::Vec<(&str, &str)> =
            cmd.ext_fields.iter().flatten().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(
            fields,
            [
                ("commitOffset", "9"),
                ("consumerGroup", "CG"),
                ("maxMsgNums", "32"),
                ("queueId", "3"),
                ("queueOffset", "10"),
                ("subVersion", "0"),
                ("subscription", "*"),
                ("suspendTimeoutMillis", "15000"),
                ("sysFlag", "7"),
                ("topic", "T"),
            ]
        );
        assert_eq!(cmd.request_code(), RequestCode::PullMessage);
    }
}
