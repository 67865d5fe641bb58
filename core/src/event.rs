//! Events: what a NameServer did, for humans. Drivers log them, the simulation traces them.
//!
//! `Display` gives the line the Java NameServer logs for the same thing, so operators can grep
//! for the words they know ("new broker registered", "The broker channel expired", …).

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::names::{BrokerAddr, BrokerId, BrokerName, ClusterName, ConnId, TopicName};
use crate::protocol::RequestCode;
use crate::protocol::body::QueueData;

/// Why a broker instance was unregistered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnregisterReason {
    /// It sent UNREGISTER_BROKER (graceful shutdown).
    Request,
    /// The connection it registered on closed.
    ChannelClosed,
    /// The connection it registered on was idle too long.
    ChannelIdle,
    /// Its heartbeat timed out in a scan.
    Expired,
}

/// Something worth a log line.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Event {
    /// A broker instance registered with no live entry before.
    BrokerRegistered {
        /// Cluster.
        cluster: ClusterName,
        /// Address.
        broker_addr: BrokerAddr,
        /// Group.
        broker_name: BrokerName,
        /// Id.
        broker_id: BrokerId,
        /// HA address.
        ha_server_addr: String,
    },
    /// A registration was refused by the single-topic rule.
    RegistrationRejected {
        /// Address.
        broker_addr: BrokerAddr,
        /// Group.
        broker_name: BrokerName,
    },
    /// A registration lost to a live instance with a higher state version.
    RegistrationConflict {
        /// Address.
        broker_addr: BrokerAddr,
        /// The live address holding the id.
        holder: BrokerAddr,
    },
    /// A topic got queues on a broker group for the first time.
    TopicRegistered {
        /// Topic.
        topic: TopicName,
        /// The new queues.
        queue_data: QueueData,
    },
    /// A broker group's queues of a topic changed.
    TopicChanged {
        /// Topic.
        topic: TopicName,
        /// Before.
        old: QueueData,
        /// After.
        new: QueueData,
    },
    /// A scan found a broker whose heartbeat is older than its timeout.
    BrokerExpired {
        /// Cluster.
        cluster: ClusterName,
        /// Address.
        broker_addr: BrokerAddr,
        /// Its timeout.
        timeout_ms: u64,
    },
    /// A connection closed (or idled out) on which a broker had registered.
    ChannelDestroyed {
        /// The connection.
        conn: ConnId,
        /// The broker registered on it.
        broker_addr: BrokerAddr,
    },
    /// A connection was closed for being idle.
    ChannelIdle {
        /// The connection.
        conn: ConnId,
        /// The peer's address as the driver reported it.
        remote: String,
    },
    /// A live entry was removed.
    BrokerUnregistered {
        /// Cluster.
        cluster: ClusterName,
        /// Address.
        broker_addr: BrokerAddr,
        /// Why.
        reason: UnregisterReason,
    },
    /// An unregister that would have removed a fresher registration was dropped (upstream bug
    /// #11043).
    StaleUnregisterIgnored {
        /// Address.
        broker_addr: BrokerAddr,
        /// The connection the unregister came from.
        from: ConnId,
        /// The connection the live registration belongs to.
        live_on: ConnId,
    },
    /// A broker group lost its last member.
    BrokerNameRemoved {
        /// Group.
        broker_name: BrokerName,
    },
    /// A cluster lost its last broker group.
    ClusterRemoved {
        /// Cluster.
        cluster: ClusterName,
    },
    /// A topic's queues on a removed broker group were dropped.
    TopicRemovedWithBroker {
        /// Topic.
        topic: TopicName,
        /// Group.
        broker_name: BrokerName,
    },
    /// DELETE_TOPIC_IN_NAMESRV removed (part of) a topic.
    TopicDeleted {
        /// Topic.
        topic: TopicName,
        /// Only this cluster's queues.
        cluster: Option<ClusterName>,
    },
    /// WIPE or ADD_WRITE_PERM touched a broker group's topics.
    WritePermChanged {
        /// Group.
        broker_name: BrokerName,
        /// Whether write permission was added (else wiped).
        added: bool,
        /// Topics touched.
        topics: u32,
    },
    /// A KV entry was set.
    KvPut {
        /// Namespace.
        namespace: String,
        /// Key.
        key: String,
        /// Value.
        value: String,
    },
    /// A KV entry was deleted.
    KvDeleted {
        /// Namespace.
        namespace: String,
        /// Key.
        key: String,
    },
    /// UPDATE_NAMESRV_CONFIG changed the configuration.
    ConfigUpdated {
        /// The properties applied, as received.
        entries: String,
    },
    /// UPDATE_NAMESRV_CONFIG was refused.
    ConfigUpdateRefused {
        /// Why.
        reason: String,
    },
    /// A header field was missing or did not parse, and the request went on without it
    /// (Java's decoder logs it and leaves the field null).
    HeaderFieldIgnored {
        /// The request.
        request: RequestCode,
        /// The field.
        field: &'static str,
        /// What arrived (`None`: nothing).
        value: Option<String>,
    },
    /// A group's lowest broker id changed: NOTIFY_MIN_BROKER_ID_CHANGE goes to these members.
    MinBrokerIdChanged {
        /// The new lowest id.
        min_broker_id: BrokerId,
        /// The members notified.
        notify: Vec<BrokerAddr>,
        /// The member that went away, after an unregistration.
        offline: Option<BrokerAddr>,
    },
}

impl Event {
    /// Whether Java logs this line at WARN (else INFO), so every driver logs it alike.
    #[must_use]
    pub fn is_warning(&self) -> bool {
        matches!(
            self,
            Self::RegistrationRejected { .. }
                | Self::RegistrationConflict { .. }
                | Self::BrokerExpired { .. }
                | Self::ChannelIdle { .. }
                | Self::StaleUnregisterIgnored { .. }
                | Self::ConfigUpdateRefused { .. }
                | Self::HeaderFieldIgnored { .. }
        )
    }
}

struct AddrInfo<'a>(&'a ClusterName, &'a BrokerAddr);

impl fmt::Display for AddrInfo<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BrokerAddrInfo [clusterName={}, brokerAddr={}]", self.0, self.1)
    }
}

struct Queue<'a>(&'a QueueData);

impl fmt::Display for Queue<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let q = self.0;
        write!(
            f,
            "QueueData [brokerName={}, readQueueNums={}, writeQueueNums={}, perm={}, topicSysFlag={}]",
            q.broker_name, q.read_queue_nums, q.write_queue_nums, q.perm, q.topic_sys_flag
        )
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BrokerRegistered { cluster, broker_addr, ha_server_addr, .. } => {
                write!(f, "new broker registered, {} HAService: {ha_server_addr}", AddrInfo(cluster, broker_addr))
            }
            Self::RegistrationRejected { broker_addr, broker_name } => write!(
                f,
                "register broker failed: {broker_name} {broker_addr} sent a single-topic registration before a full one"
            ),
            Self::RegistrationConflict { broker_addr, holder } => {
                write!(
                    f,
                    "Registering broker {broker_addr} conflicts with the existing broker {holder}, it has a higher state version"
                )
            }
            Self::TopicRegistered { topic, queue_data } => {
                write!(f, "new topic registered, {topic} {}", Queue(queue_data))
            }
            Self::TopicChanged { topic, old, new } => {
                write!(f, "topic changed, {topic} OLD: {} NEW: {}", Queue(old), Queue(new))
            }
            Self::BrokerExpired { cluster, broker_addr, timeout_ms } => {
                write!(f, "The broker channel expired, {} {timeout_ms}ms", AddrInfo(cluster, broker_addr))
            }
            Self::ChannelDestroyed { broker_addr, .. } => {
                write!(f, "the broker's channel destroyed, {broker_addr}, clean it's data structure at once")
            }
            Self::ChannelIdle { remote, .. } => write!(f, "NETTY SERVER PIPELINE: IDLE exception [{remote}]"),
            Self::BrokerUnregistered { cluster, broker_addr, .. } => {
                write!(f, "unregisterBroker, remove from brokerLiveTable OK, {}", AddrInfo(cluster, broker_addr))
            }
            Self::StaleUnregisterIgnored { broker_addr, from, live_on } => write!(
                f,
                "unregisterBroker ignored, {broker_addr} from {from} is stale: the broker re-registered on {live_on}"
            ),
            Self::BrokerNameRemoved { broker_name } => {
                write!(f, "unregisterBroker, remove name from brokerAddrTable OK, {broker_name}")
            }
            Self::ClusterRemoved { cluster } => {
                write!(f, "unregisterBroker, remove cluster from clusterAddrTable {cluster}")
            }
            Self::TopicRemovedWithBroker { topic, broker_name } => {
                write!(f, "removeTopicByBrokerName, remove one broker's topic {topic} {broker_name}")
            }
            Self::TopicDeleted { topic, cluster: Some(cluster) } => {
                write!(f, "delete topic {topic} of cluster {cluster}")
            }
            Self::TopicDeleted { topic, cluster: None } => write!(f, "delete topic {topic}"),
            Self::WritePermChanged { broker_name, added: true, topics } => {
                write!(f, "add write perm of broker {broker_name}, {topics} topics")
            }
            Self::WritePermChanged { broker_name, added: false, topics } => {
                write!(f, "wipe write perm of broker {broker_name}, {topics} topics")
            }
            Self::KvPut { namespace, key, value } => {
                write!(f, "putKVConfig create new config item, Namespace: {namespace} Key: {key} Value: {value}")
            }
            Self::KvDeleted { namespace, key } => {
                write!(f, "deleteKVConfig delete a config item, Namespace: {namespace} Key: {key}")
            }
            Self::ConfigUpdated { entries } => write!(f, "updateConfig, {entries}"),
            Self::ConfigUpdateRefused { reason } => write!(f, "updateConfig refused: {reason}"),
            Self::HeaderFieldIgnored { request, field, value } => {
                let value = value.as_deref().map_or_else(|| String::from("missing"), |v| alloc::format!("`{v}`"));
                write!(
                    f,
                    "Failed field [{field}] decoding in {}: {value}; going on without it, as Java does",
                    request.java_name().unwrap_or("?")
                )
            }
            Self::MinBrokerIdChanged { min_broker_id, notify, offline } => {
                write!(f, "min broker id changed to {min_broker_id}, notify [")?;
                for (i, addr) in notify.iter().enumerate() {
                    write!(f, "{}{addr}", if i == 0 { "" } else { ", " })?;
                }
                match offline {
                    Some(addr) => write!(f, "], offline broker addr {addr}"),
                    None => f.write_str("], offline broker addr null"),
                }
            }
        }
    }
}
