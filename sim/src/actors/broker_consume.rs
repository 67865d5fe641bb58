//! What a broker does for consumers: long-polled pulls queue by queue (`PullMessageProcessor`),
//! the committed-offset requests (`ConsumerManageProcessor`), and a slave's copy of its
//! master's offsets every 10 s (`SlaveSynchronize.syncConsumerOffset`).

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::time::Duration;

use crate::actors::broker::{BrokerActor, HeldPull};
use crate::actors::client::CLIENT_API_TIMEOUT_MS;
use crate::actors::common::failure_text;
use crate::actors::offsets::{decode_table, encode_table, table_key};
use crate::node::message::{CommitHeader, Message, PullAnswer, PullHeader};
use crate::node::trace::TraceKind;
use crate::node::{Cx, Failure, Purpose, TimerKind};
use nameserver_core::names::{ConnId, TopicName};
use nameserver_core::protocol::{RemotingCommand, RequestCode, ResponseCode};
use nameserver_core::time::Instant;

/// Longest a pull is held when there is nothing to read (long polling).
const PULL_HOLD: Duration = Duration::from_secs(15);
/// `PullSysFlag.FLAG_COMMIT_OFFSET`: the pull carries the consumer's offset to commit.
pub(crate) const FLAG_COMMIT_OFFSET: i32 = 0x1;
/// The slave's sync: 3 s after start, then every 10 s.
const FIRST_SLAVE_SYNC: Duration = Duration::from_secs(3);
const SLAVE_SYNC_PERIOD: Duration = Duration::from_secs(10);

fn number<T: core::str::FromStr>(cmd: &RemotingCommand, key: &str) -> Option<T> {
    cmd.field(key).and_then(|v| v.parse().ok())
}

impl BrokerActor {
    /// The period of a timer of its consuming side: the long-poll hold and the slave's sync.
    #[must_use]
    pub(crate) fn consume_timer_period(&self, kind: TimerKind) -> Option<Duration> {
        match kind {
            TimerKind::PullHold => Some(PULL_HOLD),
            TimerKind::SlaveSync => Some(SLAVE_SYNC_PERIOD),
            _ => None,
        }
    }

    /// Keeps the long-poll timer at the earliest held pull.
    pub fn arm_pull_timer(&self, cx: &mut Cx<'_>) {
        match self.next_pull_deadline() {
            Some(at) => cx.timer(TimerKind::PullHold, at),
            None => cx.cancel_timer(TimerKind::PullHold),
        }
    }

    /// The earliest held-pull deadline.
    #[must_use]
    pub fn next_pull_deadline(&self) -> Option<Instant> {
        self.held.iter().map(|p| p.until).min()
    }

    /// Answers held pulls that waited long enough with PULL_NOT_FOUND.
    pub(crate) fn expire_pulls(&mut self, cx: &mut Cx<'_>) {
        let now = cx.now;
        let (due, keep): (Vec<HeldPull>, Vec<HeldPull>) = self.held.drain(..).partition(|p| p.until <= now);
        self.held = keep;
        for pull in due {
            let max = self.max_offset(&pull.topic, pull.queue);
            let mut reply = pull.reply;
            reply.code = ResponseCode::PullNotFound.raw();
            cx.reply(pull.conn, pull_answer(reply, pull.offset, max));
        }
    }

    /// Drops held pulls of a closed connection.
    pub fn forget_conn(&mut self, conn: ConnId) {
        self.held.retain(|p| p.conn != conn);
    }

    /// Answers held pulls of a queue that now have something to read.
    pub fn wake_pulls(&mut self, topic: &TopicName, queue: i32, cx: &mut Cx<'_>) {
        let max = self.max_offset(topic, queue);
        let (ready, keep): (Vec<HeldPull>, Vec<HeldPull>) =
            self.held.drain(..).partition(|p| &p.topic == topic && p.queue == queue && p.offset < max);
        self.held = keep;
        for pull in ready {
            let next = max.min(pull.offset + pull.max_msgs);
            cx.reply(pull.conn, pull_answer(pull.reply, next, max));
        }
    }

    /// PULL_MESSAGE of one queue: what is there from the offset on (at most `maxMsgNums`),
    /// or held until something is or 15 s pass. A master first commits the offset the pull
    /// carries; a slave ignores it.
    pub(crate) fn on_pull(&mut self, conn: ConnId, msg: &Message, cx: &mut Cx<'_>) {
        let (cmd, header) = (msg.head(), msg.header::<PullHeader>());
        let topic = header.topic.clone();
        let (queue, offset, max_msgs) = (header.queue, header.offset, header.max_msgs.max(1));
        if !self.topics.contains_key(&topic) {
            let reply = RemotingCommand::response_to(cmd, ResponseCode::TopicNotExist)
                .with_remark(alloc::format!("topic[{topic}] not exist, apply first please!"));
            cx.reply(conn, reply);
            return;
        }
        if self.is_master() && header.sys_flag & FLAG_COMMIT_OFFSET != 0 {
            if let Some(commit) = header.commit {
                self.offsets.entry(table_key(topic.as_str(), &header.group)).or_default().insert(queue, commit);
            }
        }
        let max = self.max_offset(&topic, queue);
        let reply = RemotingCommand::response_to(cmd, ResponseCode::Success);
        if offset < max {
            cx.reply(conn, pull_answer(reply, max.min(offset + max_msgs), max));
        } else {
            self.held.push(HeldPull { conn, reply, topic, queue, offset, max_msgs, until: cx.now + PULL_HOLD });
        }
    }

    /// QUERY_CONSUMER_OFFSET: the committed offset; with none, 0 while the queue's first
    /// message is still in memory (always, here, once it has one), else QUERY_NOT_FOUND.
    pub(crate) fn on_query_offset(&mut self, conn: ConnId, cmd: &RemotingCommand, cx: &mut Cx<'_>) {
        let topic = TopicName::from(cmd.field("topic").unwrap_or(""));
        let key = table_key(topic.as_str(), cmd.field("consumerGroup").unwrap_or(""));
        let queue: i32 = number(cmd, "queueId").unwrap_or(0);
        let committed = self.offsets.get(&key).and_then(|q| q.get(&queue)).copied();
        let reply = match committed {
            Some(offset) => {
                RemotingCommand::response_to(cmd, ResponseCode::Success).with_field("offset", offset.to_string())
            }
            None if self.max_offset(&topic, queue) > 0 => {
                RemotingCommand::response_to(cmd, ResponseCode::Success).with_field("offset", "0")
            }
            None => RemotingCommand::response_to(cmd, ResponseCode::QueryNotFound)
                .with_remark("Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first"),
        };
        cx.reply(conn, reply);
    }

    /// UPDATE_CONSUMER_OFFSET (oneway from consumers, so never answered then).
    pub(crate) fn on_update_offset(&mut self, conn: ConnId, msg: &Message, cx: &mut Cx<'_>) {
        let (cmd, header) = (msg.head(), msg.header::<CommitHeader>());
        let topic = header.topic.as_str();
        let reply = match (header.queue, header.offset) {
            _ if !self.topics.contains_key(topic) => RemotingCommand::response_to(cmd, ResponseCode::TopicNotExist)
                .with_remark(alloc::format!("Topic {topic} not exist!")),
            (Some(queue), Some(offset)) => {
                let key = table_key(topic, &header.group);
                self.offsets.entry(key).or_default().insert(queue, offset);
                RemotingCommand::response_to(cmd, ResponseCode::Success)
            }
            _ => RemotingCommand::response_to(cmd, ResponseCode::InvalidParameter)
                .with_remark(alloc::format!("QueueId or offset is null, topic is {topic}")),
        };
        if !cmd.is_oneway() {
            cx.reply(conn, reply);
        }
    }

    /// GET_MAX_OFFSET of one queue.
    pub(crate) fn on_max_offset(&mut self, conn: ConnId, cmd: &RemotingCommand, cx: &mut Cx<'_>) {
        let topic = TopicName::from(cmd.field("topic").unwrap_or(""));
        let max = self.max_offset(&topic, number(cmd, "queueId").unwrap_or(0));
        cx.reply(conn, RemotingCommand::response_to(cmd, ResponseCode::Success).with_field("offset", max.to_string()));
    }

    /// GET_ALL_CONSUMER_OFFSET: the whole table, for a slave.
    pub(crate) fn on_all_offsets(&mut self, conn: ConnId, cmd: &RemotingCommand, cx: &mut Cx<'_>) {
        let body = encode_table(&self.offsets);
        cx.reply(conn, RemotingCommand::response_to(cmd, ResponseCode::Success).with_body(body));
    }

    /// A slave starts copying its master's offsets (3 s after start, then every 10 s).
    pub(crate) fn start_slave_sync(&mut self, cx: &mut Cx<'_>) {
        cx.timer(TimerKind::SlaveSync, cx.now + FIRST_SLAVE_SYNC);
    }

    /// `syncConsumerOffset`: asks the master it knows of for its whole offset table.
    pub(crate) fn sync_from_master(&mut self, cx: &mut Cx<'_>) {
        cx.timer(TimerKind::SlaveSync, cx.now + SLAVE_SYNC_PERIOD);
        let Some(master) = self.master_addr.as_deref().filter(|m| *m != self.addr) else { return };
        let Some(node) = cx.dir.by_addr.get(master).copied() else { return };
        let cmd = RemotingCommand::request(RequestCode::GetAllConsumerOffset);
        cx.request(node, cmd, Purpose::SyncOffsets, CLIENT_API_TIMEOUT_MS);
    }

    /// The master's table replaces each `topic@group` entry it has (`putAll`).
    pub(crate) fn on_master_offsets(&mut self, result: Result<RemotingCommand, Failure>, cx: &mut Cx<'_>) {
        let master = self.master_addr.clone().unwrap_or_default();
        let table = match &result {
            Ok(reply) if reply.response_code() == ResponseCode::Success => decode_table(&reply.body),
            _ => None,
        };
        let Some(table) = table else {
            let why = match result {
                Err(failure) => failure_text(failure, &master),
                Ok(reply) => alloc::format!("code {} {}", reply.code, reply.remark.unwrap_or_default()),
            };
            cx.trace(TraceKind::Info, alloc::format!("SyncConsumerOffset Exception, {master}: {why}"));
            return;
        };
        let mut changed = false;
        for (key, queues) in table {
            if self.offsets.get(&key) != Some(&queues) {
                changed = true;
                self.offsets.insert(key, queues);
            }
        }
        // Java logs every sync; only the ones that change something are worth a line here.
        if changed {
            cx.trace(TraceKind::Info, alloc::format!("Update slave consumer offset from master, {master}"));
        }
    }

    /// A slave's registration answer names its master (or none): `setMasterAddr`.
    pub(crate) fn set_master_addr(&mut self, master: Option<String>, cx: &mut Cx<'_>) {
        if self.master_addr == master {
            return;
        }
        let show = |a: &Option<String>| a.clone().unwrap_or_else(|| String::from("null"));
        cx.trace(
            TraceKind::Info,
            alloc::format!("Update master address from {} to {}", show(&self.master_addr), show(&master)),
        );
        self.master_addr = master;
    }
}

/// A pull answer: the next offset to ask for, and the queue's offsets.
fn pull_answer(reply: RemotingCommand, next: u64, max: u64) -> Message {
    PullAnswer { next_begin: Some(next), max_offset: Some(max) }.response(reply)
}
