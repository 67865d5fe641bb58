//! A broker instance: registers with every NameServer every 30 s, unregisters on graceful
//! shutdown, re-registers at once when it creates a topic, and stores what producers send,
//! queue by queue. What it does for consumers (pulls, offsets, a slave's sync) is in
//! `broker_consume.rs`.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::hash::{Hash, Hasher};
use core::time::Duration;

use crate::actors::common::failure_text;
use crate::actors::offsets::OffsetTable;
use crate::node::message::{Message, SendAnswer, SendHeader};
use crate::node::trace::{NodeId, TraceKind};
use crate::node::{Cx, Effect, Failure, GroupId, Purpose, TimerKind};
use nameserver_core::json::{JsonStyle, WriteJson};
use nameserver_core::names::{BrokerName, ConnId, TopicName};
use nameserver_core::protocol::body::{DataVersion, RegisterBrokerBody, TopicConfig, perm};
use nameserver_core::protocol::{RemotingCommand, RequestCode, ResponseCode};
use nameserver_core::time::Instant;

/// First periodic registration after start, then the period (Java: 10 s, then
/// `registerNameServerPeriod` = 30 s).
const FIRST_REGISTER: Duration = Duration::from_secs(10);
pub(crate) const REGISTER_PERIOD: Duration = Duration::from_secs(30);
/// The default topic auto-creation copies from.
pub(crate) const DEFAULT_TOPIC: &str = "TBW102";
/// Wall-clock epoch for data versions (brokers put wall-clock time in them).
const WALL_CLOCK_EPOCH_MS: i64 = 1_700_000_000_000;

/// A consumer's pull waiting for messages.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct HeldPull {
    pub(crate) conn: ConnId,
    /// The answer's header, without fields yet (cheaper to keep than the request).
    pub(crate) reply: RemotingCommand,
    pub(crate) topic: TopicName,
    pub(crate) queue: i32,
    pub(crate) offset: u64,
    pub(crate) max_msgs: u64,
    pub(crate) until: Instant,
}

/// What a broker keeps on disk: `topics.json` (with its data version), the commit log and
/// `consumerOffset.json` (kept at once here; Java flushes it every 5 s).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct BrokerDisk {
    topics: BTreeMap<TopicName, TopicConfig>,
    data_version: DataVersion,
    stored: BTreeMap<(TopicName, i32), u64>,
    offsets: OffsetTable,
}

/// One broker process.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BrokerActor {
    /// Group (brokerName).
    pub(crate) group: BrokerName,
    /// Group index.
    pub(crate) group_id: GroupId,
    /// brokerId.
    pub(crate) id: i64,
    /// The cluster it registers in (`brokerClusterName`).
    pub(crate) cluster: String,
    /// Listen address.
    pub(crate) addr: String,
    /// HA address.
    pub(crate) ha_addr: String,
    /// Topic configuration.
    pub(crate) topics: BTreeMap<TopicName, TopicConfig>,
    /// Topic-config data version.
    pub(crate) data_version: DataVersion,
    /// `autoCreateTopicEnable`.
    pub(crate) auto_create: bool,
    /// Messages stored per queue (each queue's max offset).
    pub(crate) stored: BTreeMap<(TopicName, i32), u64>,
    /// Committed consumer offsets (`ConsumerOffsetManager`).
    pub(crate) offsets: OffsetTable,
    /// A slave's master, as its last registration answer named it (`SlaveSynchronize`).
    pub(crate) master_addr: Option<String>,
    /// NameServers still to answer an unregistration during shutdown.
    pub(crate) unregistering: u32,
    pub(crate) held: Vec<HeldPull>,
    cached_body: Option<CachedBody>,
}

/// The registration body of one topic-table version (by its counter) and its `bodyCrc32`:
/// encoding the table and summing it are the costly part of a registration, redone only on
/// change.
#[derive(Clone, Debug, PartialEq, Eq)]
struct CachedBody {
    counter: u64,
    body: Vec<u8>,
    crc: u32,
}

/// The CRC follows from the body: hashed as the pair (counter, body) alone.
impl Hash for CachedBody {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.counter, &self.body).hash(state);
    }
}

impl BrokerActor {
    /// Messages stored per queue (each queue's max offset).
    #[must_use]
    pub fn stored(&self) -> &BTreeMap<(TopicName, i32), u64> {
        &self.stored
    }

    /// Committed consumer offsets (`ConsumerOffsetManager`).
    #[must_use]
    pub fn offsets(&self) -> &OffsetTable {
        &self.offsets
    }
}

impl BrokerActor {
    /// The period of one of its timers, as it arms them.
    #[must_use]
    pub(crate) fn timer_period(&self, kind: TimerKind) -> Option<Duration> {
        match kind {
            TimerKind::Register => Some(REGISTER_PERIOD),
            _ => self.consume_timer_period(kind),
        }
    }

    /// A broker of `group` with the given topics.
    #[must_use]
    pub fn new(
        group: BrokerName,
        group_id: GroupId,
        id: i64,
        cluster: String,
        addr: String,
        topics: Vec<TopicConfig>,
    ) -> Self {
        let ha_addr = match addr.rsplit_once(':') {
            Some((host, port)) => alloc::format!("{host}:{}", port.parse::<u32>().unwrap_or(10911) + 1),
            None => addr.clone(),
        };
        Self {
            group,
            group_id,
            id,
            cluster,
            addr,
            ha_addr,
            topics: topics.into_iter().map(|t| (t.topic_name.clone(), t)).collect(),
            data_version: DataVersion { counter: 1, state_version: 0, timestamp: WALL_CLOCK_EPOCH_MS },
            auto_create: true,
            stored: BTreeMap::new(),
            offsets: OffsetTable::new(),
            master_addr: None,
            unregistering: 0,
            held: Vec::new(),
            cached_body: None,
        }
    }

    /// What survives the process.
    pub(crate) fn disk(&self) -> BrokerDisk {
        BrokerDisk {
            topics: self.topics.clone(),
            data_version: self.data_version,
            stored: self.stored.clone(),
            offsets: self.offsets.clone(),
        }
    }

    /// Starts from what an earlier process left on disk.
    pub(crate) fn load(&mut self, disk: BrokerDisk) {
        self.topics = disk.topics;
        self.data_version = disk.data_version;
        self.stored = disk.stored;
        self.offsets = disk.offsets;
    }

    /// Whether this is the group's master.
    #[must_use]
    pub fn is_master(&self) -> bool {
        self.id == 0
    }

    /// Starts: a forced registration, then the periodic one.
    pub fn on_start(&mut self, cx: &mut Cx<'_>) {
        let ns: Vec<&str> = cx.dir.nameservers.iter().map(|n| cx.dir.addr(*n)).collect();
        let line = alloc::format!(
            "The broker[{}, {}] boot success. serializeType=JSON and name server is {}",
            self.group,
            self.addr,
            ns.join(";")
        );
        cx.trace(TraceKind::Lifecycle, line);
        self.register_all(cx);
        cx.timer(TimerKind::Register, cx.now + FIRST_REGISTER);
        if !self.is_master() {
            self.start_slave_sync(cx);
        }
    }

    /// A timer fired.
    pub fn on_timer(&mut self, kind: TimerKind, cx: &mut Cx<'_>) {
        match kind {
            TimerKind::Register => {
                self.register_all(cx);
                cx.timer(TimerKind::Register, cx.now + REGISTER_PERIOD);
            }
            TimerKind::PullHold => self.expire_pulls(cx),
            TimerKind::SlaveSync => self.sync_from_master(cx),
            _ => {}
        }
    }

    /// Graceful shutdown: UNREGISTER_BROKER to every NameServer; exit once all answered.
    pub fn shutdown(&mut self, cx: &mut Cx<'_>) {
        cx.cancel_timer(TimerKind::Register);
        cx.trace(
            TraceKind::Lifecycle,
            alloc::format!("shutdown broker[{}, {}], unregister from all name servers", self.group, self.addr),
        );
        let nameservers = cx.dir.nameservers.clone();
        self.unregistering = u32::try_from(nameservers.len()).unwrap_or(u32::MAX);
        for ns in nameservers {
            let cmd = RemotingCommand::request(RequestCode::UnregisterBroker)
                .with_field("brokerAddr", self.addr.as_str())
                .with_field("brokerId", self.id.to_string())
                .with_field("brokerName", self.group.as_str())
                .with_field("clusterName", self.cluster.as_str());
            cx.request(ns, cmd, Purpose::Unregister(ns), 3000);
        }
        if self.unregistering == 0 {
            cx.effect(Effect::Exit);
        }
    }

    /// `mqadmin updateTopic` or auto-creation: add the topic and re-register at once.
    pub fn create_topic(&mut self, topic: TopicName, queues: i32, cx: &mut Cx<'_>) {
        let config = TopicConfig::new(topic.clone(), queues);
        cx.trace(
            TraceKind::Info,
            alloc::format!("create new topic [{topic}], queues {queues}, on broker[{}]", self.group),
        );
        self.topics.insert(topic, config);
        self.bump_data_version(cx.now);
        self.register_all(cx);
    }

    fn bump_data_version(&mut self, now: Instant) {
        self.data_version.counter += 1;
        self.data_version.timestamp = WALL_CLOCK_EPOCH_MS + i64::try_from(now.as_millis()).unwrap_or(i64::MAX);
    }

    /// The registration body and its `bodyCrc32`.
    fn register_body(&mut self) -> (Vec<u8>, u32) {
        let counter = u64::try_from(self.data_version.counter).unwrap_or(0);
        if let Some(cached) = self.cached_body.as_ref().filter(|c| c.counter == counter) {
            return (cached.body.clone(), cached.crc);
        }
        let mut body = RegisterBrokerBody::default();
        body.topic_config_wrapper.data_version = self.data_version;
        body.topic_config_wrapper.topic_config_table = self.topics.clone().into();
        let bytes = body.to_json(JsonStyle::Plain);
        let crc = crc32fast::hash(&bytes) & 0x7FFF_FFFF;
        self.cached_body = Some(CachedBody { counter, body: bytes.clone(), crc });
        (bytes, crc)
    }

    /// `registerBrokerAll`: the same request to every NameServer.
    fn register_all(&mut self, cx: &mut Cx<'_>) {
        let (body, crc) = self.register_body();
        let mut cmd = RemotingCommand::request(RequestCode::RegisterBroker)
            .with_field("brokerAddr", self.addr.as_str())
            .with_field("brokerId", self.id.to_string())
            .with_field("brokerName", self.group.as_str())
            .with_field("clusterName", self.cluster.as_str())
            .with_field("compressed", "false")
            .with_field("haServerAddr", self.ha_addr.as_str())
            .with_field("bodyCrc32", crc.to_string())
            .with_body(body);
        if cx.dir.profile == crate::scenario::Profile::Modern {
            cmd = cmd.with_field("enableActingMaster", "false");
        }
        let timeout = if cx.dir.profile == crate::scenario::Profile::Modern { 24_000 } else { 6_000 };
        for ns in cx.dir.nameservers.clone() {
            cx.request(ns, cmd.clone(), Purpose::Register(ns), timeout);
        }
    }

    /// An answer (or its absence) to one of this broker's requests.
    pub fn on_response(&mut self, purpose: Purpose, result: Result<Message, Failure>, cx: &mut Cx<'_>) {
        // Every answer a broker waits for is a NameServer's or a broker's with its own fields.
        let result = result.map(Message::into_command);
        match purpose {
            Purpose::Register(ns) => {
                let addr = cx.dir.addr(ns).to_string();
                match result {
                    Ok(reply) if reply.response_code() == ResponseCode::Success => {
                        let master =
                            reply.field("masterAddr").map(|m| alloc::format!(", master {m}")).unwrap_or_default();
                        cx.trace(
                            TraceKind::RegisterOk,
                            alloc::format!("register broker[{}]to name server {addr} OK{master}", self.id),
                        );
                        if !self.is_master() {
                            self.set_master_addr(reply.field("masterAddr").map(String::from), cx);
                        }
                    }
                    Ok(reply) => cx.trace(
                        TraceKind::RegisterFailed,
                        alloc::format!(
                            "registerBroker Exception, {addr}: code {} {}",
                            reply.code,
                            reply.remark.unwrap_or_default()
                        ),
                    ),
                    Err(failure) => {
                        cx.trace(
                            TraceKind::RegisterFailed,
                            alloc::format!("registerBroker Exception, {addr}: {}", failure_text(failure, &addr)),
                        );
                    }
                }
            }
            Purpose::Unregister(ns) => {
                let addr = cx.dir.addr(ns).to_string();
                if result.is_ok() {
                    cx.trace(TraceKind::Info, alloc::format!("unregisterBroker OK, NamesrvAddr: {addr}"));
                } else {
                    cx.trace(TraceKind::Info, alloc::format!("unregisterBroker Exception, {addr}"));
                }
                self.unregistering = self.unregistering.saturating_sub(1);
                if self.unregistering == 0 {
                    cx.effect(Effect::Exit);
                }
            }
            Purpose::SyncOffsets => self.on_master_offsets(result, cx),
            _ => {}
        }
    }

    /// A request from a client (or, for GET_ALL_CONSUMER_OFFSET, a slave).
    pub fn on_request(&mut self, conn: ConnId, msg: &Message, from: NodeId, cx: &mut Cx<'_>) {
        let cmd = msg.head();
        match cmd.request_code() {
            RequestCode::HeartBeat => cx.reply(conn, RemotingCommand::response_to(cmd, ResponseCode::Success)),
            RequestCode::SendMessage => self.on_send(conn, msg, from, cx),
            RequestCode::PullMessage => self.on_pull(conn, msg, cx),
            RequestCode::QueryConsumerOffset => self.on_query_offset(conn, &msg.command(), cx),
            RequestCode::UpdateConsumerOffset => self.on_update_offset(conn, msg, cx),
            RequestCode::GetMaxOffset => self.on_max_offset(conn, &msg.command(), cx),
            RequestCode::GetAllConsumerOffset => self.on_all_offsets(conn, cmd, cx),
            _ if cmd.is_oneway() => {}
            other => cx.reply(
                conn,
                RemotingCommand::response_to(cmd, ResponseCode::RequestCodeNotSupported)
                    .with_remark(alloc::format!(" request type {} not supported", other.raw())),
            ),
        }
    }

    fn on_send(&mut self, conn: ConnId, msg: &Message, from: NodeId, cx: &mut Cx<'_>) {
        let (cmd, header) = (msg.head(), msg.header::<SendHeader>());
        let topic = header.topic.clone();
        if !self.is_master() {
            let reply = RemotingCommand::response_to(cmd, ResponseCode::NoPermission)
                .with_remark(alloc::format!("the broker[{}] sending message is forbidden", self.addr));
            cx.reply(conn, reply);
            return;
        }
        if !self.topics.contains_key(&topic) {
            let default =
                self.topics.get(DEFAULT_TOPIC).filter(|d| perm::is_writeable(d.perm) || d.perm & perm::INHERIT != 0);
            match default {
                Some(default) if self.auto_create => {
                    let wanted = header.default_queue_nums.unwrap_or(4);
                    let queues = wanted.min(default.write_queue_nums);
                    cx.trace(
                        TraceKind::Info,
                        alloc::format!(
                            "Create new topic by default topic:[{DEFAULT_TOPIC}] config:[{topic}] producer:[{}]",
                            cx.dir.name(from)
                        ),
                    );
                    self.create_topic(topic.clone(), queues, cx);
                }
                _ => {
                    let reply = RemotingCommand::response_to(cmd, ResponseCode::TopicNotExist)
                        .with_remark(alloc::format!("topic[{topic}] not exist, apply first please!"));
                    cx.reply(conn, reply);
                    return;
                }
            }
        }
        let Some(config) = self.topics.get(&topic).filter(|t| perm::is_writeable(t.perm)) else {
            let reply = RemotingCommand::response_to(cmd, ResponseCode::NoPermission)
                .with_remark(alloc::format!("the topic[{topic}] sending message is forbidden"));
            cx.reply(conn, reply);
            return;
        };
        let queue = header.queue.unwrap_or(0).max(0);
        let valid = config.write_queue_nums.max(config.read_queue_nums);
        if queue >= valid {
            let reply = RemotingCommand::response_to(cmd, ResponseCode::SystemError).with_remark(alloc::format!(
                "request queueId[{queue}] is illegal, topic[{topic}] has {valid} queues, Producer: {}",
                cx.dir.addr(from)
            ));
            cx.reply(conn, reply);
            return;
        }
        let position: u64 = self.stored.values().sum();
        let offset = self.store(&topic, queue);
        cx.effect(Effect::Replicate { group: self.group_id, topic: topic.clone() });
        let answer = SendAnswer {
            msg_id: Some(alloc::format!("{}-{position}", self.group)),
            queue: Some(queue),
            offset: Some(offset),
        };
        cx.reply(conn, answer.response(cmd.opaque));
        self.wake_pulls(&topic, queue, cx);
    }

    /// Stores one message in a queue; returns its offset there.
    pub fn store(&mut self, topic: &TopicName, queue: i32) -> u64 {
        let count = self.stored.entry((topic.clone(), queue)).or_insert(0);
        *count += 1;
        *count - 1
    }

    /// A queue's max offset (the offset its next message will get).
    #[must_use]
    pub fn max_offset(&self, topic: &TopicName, queue: i32) -> u64 {
        self.stored.get(&(topic.clone(), queue)).copied().unwrap_or(0)
    }

    /// A slave learns that its master holds `count` messages in a queue.
    pub fn replicated(&mut self, topic: &TopicName, queue: i32, count: u64, cx: &mut Cx<'_>) {
        let mine = self.stored.entry((topic.clone(), queue)).or_insert(0);
        if *mine >= count {
            return;
        }
        *mine = count;
        self.wake_pulls(topic, queue, cx);
    }
}
