//! Events: what a NameServer did, for humans. Drivers log them, the simulation traces them.
//!
//! `Display` gives the line the Java NameServer logs for the same thing, so operators can grep
//! for the words they know ("new broker registered", "The broker channel expired", …).
//!
//! [`Event::kind`] is the one vocabulary every driver classifies events by: its [`EventKind`]
//! has a stable name, the [`Severity`] Java logs the line at and the [`EventCategory`] the
//! console and the page group lines by. No driver keeps its own list.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::excerpt::Excerpt;
use crate::names::{BrokerAddr, BrokerId, BrokerName, ClusterName, ConnId, TopicName};
use crate::protocol::RequestCode;
use crate::protocol::body::QueueData;
use crate::time::Instant;

/// Why a broker instance was unregistered, with the numbers the deciding rule compared (the
/// page shows them as the rule fires; the log line does not).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnregisterReason {
    /// UNREGISTER_BROKER arrived on connection `from` (the broker's graceful shutdown, or an
    /// operator's tool).
    Request {
        /// The connection it arrived on.
        from: ConnId,
    },
    /// The connection it registered on closed.
    ChannelClosed,
    /// The connection it registered on was idle too long: nothing read or written since
    /// `last_io`, and `last_io + idle_ms <= now`.
    ChannelIdle {
        /// The connection's last read or write.
        last_io: Instant,
        /// The idle time the driver closes by (`serverChannelMaxIdleTimeSeconds`).
        idle_ms: u64,
        /// When it was closed.
        now: Instant,
    },
    /// Its heartbeat timed out in a scan: `last_update + timeout_ms < now`.
    Expired {
        /// Its last registration or heartbeat.
        last_update: Instant,
        /// Its timeout.
        timeout_ms: u64,
        /// When the scan ran.
        now: Instant,
    },
}

/// Something worth a log line.
#[derive(Clone, Debug, PartialEq, Eq, Hash, strum::EnumDiscriminants)]
#[strum_discriminants(
    name(EventKind),
    doc = "Which [`Event`] it is, without its fields: `EventKind::ALL` lists every one.",
    derive(Hash, PartialOrd, Ord, strum::VariantArray, strum::IntoStaticStr),
    strum(serialize_all = "kebab-case")
)]
pub enum Event {
    /// A broker instance registered with no live entry before.
    BrokerRegistered {
        /// The cluster it belongs to (`clusterName`).
        cluster: ClusterName,
        /// The broker instance, by its `host:port` (`brokerAddr`).
        broker_addr: BrokerAddr,
        /// Its broker group: master and slaves share it (`brokerName`).
        broker_name: BrokerName,
        /// Its id in the group: 0 is the master (`brokerId`).
        broker_id: BrokerId,
        /// HA address.
        ha_server_addr: String,
        /// When it registered: its live entry's last update.
        last_update: Instant,
        /// Its timeout.
        timeout_ms: u64,
        /// When a scan may remove it unless it registers again (`last_update + timeout_ms`;
        /// removed from one millisecond after).
        deadline: Instant,
    },
    /// A registration was refused by the single-topic rule.
    RegistrationRejected {
        /// The broker instance, by its `host:port` (`brokerAddr`).
        broker_addr: BrokerAddr,
        /// Its broker group: master and slaves share it (`brokerName`).
        broker_name: BrokerName,
    },
    /// A registration lost to a live instance with a higher state version.
    RegistrationConflict {
        /// The broker instance, by its `host:port` (`brokerAddr`).
        broker_addr: BrokerAddr,
        /// The live address holding the id.
        holder: BrokerAddr,
    },
    /// A topic got queues on a broker group for the first time.
    TopicRegistered {
        /// The topic, by name.
        topic: TopicName,
        /// The new queues.
        queue_data: QueueData,
    },
    /// A broker group's queues of a topic changed.
    TopicChanged {
        /// The topic, by name.
        topic: TopicName,
        /// The queues before the change.
        old: QueueData,
        /// The queues after it.
        new: QueueData,
    },
    /// A scan found a broker whose heartbeat is older than its timeout.
    BrokerExpired {
        /// The cluster it belongs to (`clusterName`).
        cluster: ClusterName,
        /// The broker instance, by its `host:port` (`brokerAddr`).
        broker_addr: BrokerAddr,
        /// Its timeout.
        timeout_ms: u64,
        /// Its last registration or heartbeat: `last_update + timeout_ms < now`.
        last_update: Instant,
        /// When the scan ran.
        now: Instant,
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
        /// Its last read or write: `last_io + idle_ms <= now`.
        last_io: Instant,
        /// The idle time the driver closes by (`serverChannelMaxIdleTimeSeconds`).
        idle_ms: u64,
        /// When it was closed.
        now: Instant,
    },
    /// A live entry was removed.
    BrokerUnregistered {
        /// The cluster it belongs to (`clusterName`).
        cluster: ClusterName,
        /// The broker instance, by its `host:port` (`brokerAddr`).
        broker_addr: BrokerAddr,
        /// Which path removed it: a request, a closed or idle connection, or a scan.
        reason: UnregisterReason,
    },
    /// An unregister that would have removed a fresher registration was dropped (upstream bug
    /// #11043).
    StaleUnregisterIgnored {
        /// The broker instance, by its `host:port` (`brokerAddr`).
        broker_addr: BrokerAddr,
        /// The connection the unregister came from.
        from: ConnId,
        /// The connection the live registration belongs to.
        live_on: ConnId,
    },
    /// A broker group lost its last member.
    BrokerNameRemoved {
        /// Its broker group: master and slaves share it (`brokerName`).
        broker_name: BrokerName,
    },
    /// A cluster lost its last broker group.
    ClusterRemoved {
        /// The cluster it belongs to (`clusterName`).
        cluster: ClusterName,
    },
    /// A topic's queues on a removed broker group were dropped.
    TopicRemovedWithBroker {
        /// The topic, by name.
        topic: TopicName,
        /// Its broker group: master and slaves share it (`brokerName`).
        broker_name: BrokerName,
    },
    /// DELETE_TOPIC_IN_NAMESRV removed (part of) a topic.
    TopicDeleted {
        /// The topic, by name.
        topic: TopicName,
        /// Only this cluster's queues.
        cluster: Option<ClusterName>,
    },
    /// WIPE or ADD_WRITE_PERM touched a broker group's topics.
    WritePermChanged {
        /// Its broker group: master and slaves share it (`brokerName`).
        broker_name: BrokerName,
        /// Whether write permission was added (else wiped).
        added: bool,
        /// Topics touched.
        topics: u32,
    },
    /// A KV entry was set.
    KvPut {
        /// The KV namespace (e.g. `ORDER_TOPIC_CONFIG`).
        namespace: String,
        /// The key within the namespace.
        key: String,
        /// The value stored.
        value: String,
    },
    /// A KV entry was deleted.
    KvDeleted {
        /// The KV namespace (e.g. `ORDER_TOPIC_CONFIG`).
        namespace: String,
        /// The key within the namespace.
        key: String,
    },
    /// UPDATE_NAMESRV_CONFIG changed the configuration.
    ConfigUpdated {
        /// The properties applied, as received.
        entries: String,
    },
    /// UPDATE_NAMESRV_CONFIG was refused.
    ConfigUpdateRefused {
        /// Why the update was refused, as the reply's remark says it.
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
    /// Which event this is: its name, severity and category.
    #[must_use]
    pub fn kind(&self) -> EventKind {
        self.into()
    }
}

/// How Java logs a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::VariantArray, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum Severity {
    /// INFO.
    Info,
    /// WARN: something an operator may have to look into.
    Warn,
}

impl Severity {
    /// Both levels.
    pub const ALL: &'static [Self] = <Self as strum::VariantArray>::VARIANTS;

    /// `info` or `warn`.
    #[must_use]
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// The group a line is shown under: the console's `kind` and the simulation's trace kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::VariantArray, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum EventCategory {
    /// A broker instance registered anew.
    Registered,
    /// A registration was refused.
    RegisterFailed,
    /// One broker instance was removed, whatever the path (the page marks removals by it).
    Unregistered,
    /// A scan found a broker's heartbeat too old.
    Expired,
    /// A broker's connection closed.
    ChannelClosed,
    /// A connection was closed for being idle.
    ChannelIdle,
    /// The topic table changed (registered, changed, deleted, dropped with its broker group,
    /// write permission).
    TopicChanged,
    /// A KV entry was set or deleted.
    Kv,
    /// The configuration was updated, or an update refused.
    Config,
    /// A request was not applied as sent (a header field ignored, a stale unregister dropped).
    Request,
    /// Brokers are notified of a group's new lowest id.
    Notified,
    /// Bookkeeping that follows another line (a broker group or cluster left empty).
    Info,
}

impl EventCategory {
    /// Every category.
    pub const ALL: &'static [Self] = <Self as strum::VariantArray>::VARIANTS;

    /// The stable name (`registered`, `register-failed`, `topic-changed`, …).
    #[must_use]
    pub fn name(self) -> &'static str {
        self.into()
    }
}

impl EventKind {
    /// Every kind: one per [`Event`] variant.
    pub const ALL: &'static [Self] = <Self as strum::VariantArray>::VARIANTS;

    /// The stable name: the variant in kebab case (`broker-registered`, `kv-put`, …).
    #[must_use]
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The level Java logs this line at.
    #[must_use]
    pub fn severity(self) -> Severity {
        match self {
            Self::RegistrationRejected
            | Self::RegistrationConflict
            | Self::BrokerExpired
            | Self::ChannelIdle
            | Self::StaleUnregisterIgnored
            | Self::ConfigUpdateRefused
            | Self::HeaderFieldIgnored => Severity::Warn,
            Self::BrokerRegistered
            | Self::TopicRegistered
            | Self::TopicChanged
            | Self::ChannelDestroyed
            | Self::BrokerUnregistered
            | Self::BrokerNameRemoved
            | Self::ClusterRemoved
            | Self::TopicRemovedWithBroker
            | Self::TopicDeleted
            | Self::WritePermChanged
            | Self::KvPut
            | Self::KvDeleted
            | Self::ConfigUpdated
            | Self::MinBrokerIdChanged => Severity::Info,
        }
    }

    /// The group the line is shown under.
    #[must_use]
    pub fn category(self) -> EventCategory {
        match self {
            Self::BrokerRegistered => EventCategory::Registered,
            Self::RegistrationRejected | Self::RegistrationConflict => EventCategory::RegisterFailed,
            Self::BrokerUnregistered => EventCategory::Unregistered,
            Self::BrokerExpired => EventCategory::Expired,
            Self::ChannelDestroyed => EventCategory::ChannelClosed,
            Self::ChannelIdle => EventCategory::ChannelIdle,
            Self::TopicRegistered
            | Self::TopicChanged
            | Self::TopicRemovedWithBroker
            | Self::TopicDeleted
            | Self::WritePermChanged => EventCategory::TopicChanged,
            Self::KvPut | Self::KvDeleted => EventCategory::Kv,
            Self::ConfigUpdated | Self::ConfigUpdateRefused => EventCategory::Config,
            Self::HeaderFieldIgnored | Self::StaleUnregisterIgnored => EventCategory::Request,
            Self::MinBrokerIdChanged => EventCategory::Notified,
            Self::BrokerNameRemoved | Self::ClusterRemoved => EventCategory::Info,
        }
    }
}

/// Client text as a log line shows it.
fn x(text: &(impl AsRef<str> + ?Sized)) -> Excerpt<'_> {
    Excerpt::of(text)
}

struct AddrInfo<'a>(&'a ClusterName, &'a BrokerAddr);

impl fmt::Display for AddrInfo<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BrokerAddrInfo [clusterName={}, brokerAddr={}]", x(self.0), x(self.1))
    }
}

/// A topic's line ([`Event::TopicRegistered`], [`Event::TopicChanged`]) but for its topic:
/// the words before the name ([`Self::head`]), and after it (its `Display`). A writer of
/// many topics' lines that share their queues formats the part after the name once.
#[derive(Clone, Copy, Debug)]
pub(crate) enum TopicText<'a> {
    Registered(&'a QueueData),
    Changed { old: &'a QueueData, new: &'a QueueData },
}

impl TopicText<'_> {
    pub(crate) const fn head(self) -> &'static str {
        match self {
            Self::Registered(_) => "new topic registered, ",
            Self::Changed { .. } => "topic changed, ",
        }
    }

    pub(crate) fn severity(self) -> Severity {
        match self {
            Self::Registered(_) => EventKind::TopicRegistered.severity(),
            Self::Changed { .. } => EventKind::TopicChanged.severity(),
        }
    }

    /// The whole line about `topic`.
    fn line(self, f: &mut fmt::Formatter<'_>, topic: &TopicName) -> fmt::Result {
        write!(f, "{}{}{self}", self.head(), x(topic))
    }
}

/// What follows the topic's name.
impl fmt::Display for TopicText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_tail(f)
    }
}

impl TopicText<'_> {
    /// What follows the topic's name, written to `out` (its `Display`).
    pub(crate) fn write_tail(self, out: &mut impl fmt::Write) -> fmt::Result {
        match self {
            Self::Registered(queue_data) => {
                out.write_str(" ")?;
                write_queue(out, queue_data)
            }
            Self::Changed { old, new } => {
                out.write_str(" OLD: ")?;
                write_queue(out, old)?;
                out.write_str(" NEW: ")?;
                write_queue(out, new)
            }
        }
    }
}

/// Java's `QueueData.toString()`, written piece by piece into any writer rather than through
/// `write!`: where every topic's queues differ, a registration writes one per topic.
fn write_queue(out: &mut impl fmt::Write, q: &QueueData) -> fmt::Result {
    out.write_str("QueueData [brokerName=")?;
    x(&q.broker_name).write_to(out)?;
    let mut digits = itoa::Buffer::new();
    for (label, n) in [
        (", readQueueNums=", q.read_queue_nums),
        (", writeQueueNums=", q.write_queue_nums),
        (", perm=", q.perm),
        (", topicSysFlag=", q.topic_sys_flag),
    ] {
        out.write_str(label)?;
        out.write_str(digits.format(n))?;
    }
    out.write_str("]")
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BrokerRegistered { cluster, broker_addr, ha_server_addr, .. } => {
                write!(f, "new broker registered, {} HAService: {}", AddrInfo(cluster, broker_addr), x(ha_server_addr))
            }
            Self::RegistrationRejected { broker_addr, broker_name } => write!(
                f,
                "register broker failed: {} {} sent a single-topic registration before a full one",
                x(broker_name),
                x(broker_addr)
            ),
            Self::RegistrationConflict { broker_addr, holder } => {
                write!(
                    f,
                    "Registering broker {} conflicts with the existing broker {}, it has a higher state version",
                    x(broker_addr),
                    x(holder)
                )
            }
            Self::TopicRegistered { topic, queue_data } => TopicText::Registered(queue_data).line(f, topic),
            Self::TopicChanged { topic, old, new } => TopicText::Changed { old, new }.line(f, topic),
            Self::BrokerExpired { cluster, broker_addr, timeout_ms, .. } => {
                write!(f, "The broker channel expired, {} {timeout_ms}ms", AddrInfo(cluster, broker_addr))
            }
            Self::ChannelDestroyed { broker_addr, .. } => {
                write!(f, "the broker's channel destroyed, {}, clean it's data structure at once", x(broker_addr))
            }
            Self::ChannelIdle { remote, .. } => write!(f, "NETTY SERVER PIPELINE: IDLE exception [{}]", x(remote)),
            Self::BrokerUnregistered { cluster, broker_addr, .. } => {
                write!(f, "unregisterBroker, remove from brokerLiveTable OK, {}", AddrInfo(cluster, broker_addr))
            }
            Self::StaleUnregisterIgnored { broker_addr, from, live_on } => write!(
                f,
                "unregisterBroker ignored, {} from {from} is stale: the broker re-registered on {live_on}",
                x(broker_addr)
            ),
            Self::BrokerNameRemoved { broker_name } => {
                write!(f, "unregisterBroker, remove name from brokerAddrTable OK, {}", x(broker_name))
            }
            Self::ClusterRemoved { cluster } => {
                write!(f, "unregisterBroker, remove cluster from clusterAddrTable {}", x(cluster))
            }
            Self::TopicRemovedWithBroker { topic, broker_name } => {
                write!(f, "removeTopicByBrokerName, remove one broker's topic {} {}", x(topic), x(broker_name))
            }
            Self::TopicDeleted { topic, cluster: Some(cluster) } => {
                write!(f, "delete topic {} of cluster {}", x(topic), x(cluster))
            }
            Self::TopicDeleted { topic, cluster: None } => write!(f, "delete topic {}", x(topic)),
            Self::WritePermChanged { broker_name, added: true, topics } => {
                write!(f, "add write perm of broker {}, {topics} topics", x(broker_name))
            }
            Self::WritePermChanged { broker_name, added: false, topics } => {
                write!(f, "wipe write perm of broker {}, {topics} topics", x(broker_name))
            }
            Self::KvPut { namespace, key, value } => {
                write!(
                    f,
                    "putKVConfig create new config item, Namespace: {} Key: {} Value: {}",
                    x(namespace),
                    x(key),
                    x(value)
                )
            }
            Self::KvDeleted { namespace, key } => {
                write!(f, "deleteKVConfig delete a config item, Namespace: {} Key: {}", x(namespace), x(key))
            }
            Self::ConfigUpdated { entries } => write!(f, "updateConfig, {}", x(entries)),
            Self::ConfigUpdateRefused { reason } => write!(f, "updateConfig refused: {}", x(reason)),
            Self::HeaderFieldIgnored { request, field, value } => {
                let value = value.as_deref().map_or_else(|| String::from("missing"), |v| alloc::format!("`{}`", x(v)));
                write!(
                    f,
                    "Failed field [{field}] decoding in {}: {value}; going on without it, as Java does",
                    request.java_name().unwrap_or("?")
                )
            }
            Self::MinBrokerIdChanged { min_broker_id, notify, offline } => {
                write!(f, "min broker id changed to {min_broker_id}, notify [")?;
                for (i, addr) in notify.iter().enumerate() {
                    write!(f, "{}{}", if i == 0 { "" } else { ", " }, x(addr))?;
                }
                match offline {
                    Some(addr) => write!(f, "], offline broker addr {}", x(addr)),
                    None => f.write_str("], offline broker addr null"),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use alloc::collections::BTreeSet;
    use alloc::vec::Vec;

    use super::*;

    #[test]
    fn names_are_distinct_and_every_category_is_used() {
        let names: BTreeSet<_> = EventKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(names.len(), EventKind::ALL.len());
        let categories: BTreeSet<_> = EventCategory::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(categories.len(), EventCategory::ALL.len());
        for category in EventCategory::ALL {
            assert!(EventKind::ALL.iter().any(|k| k.category() == *category), "{category:?} has no event");
        }
    }

    #[test]
    fn an_event_is_its_kind() {
        let topic = TopicName::new("TopicTest");
        let broker_name = BrokerName::new("broker-a");
        let event = Event::TopicRemovedWithBroker { topic, broker_name };
        assert_eq!(event.kind(), EventKind::TopicRemovedWithBroker);
        assert_eq!(event.kind().name(), "topic-removed-with-broker");
        assert_eq!(event.kind().category().name(), "topic-changed");
        assert_eq!(event.kind().severity().name(), "info");
    }

    /// Java logs exactly these at WARN; the console and the daemon's log show the same level.
    #[test]
    fn warnings_are_the_ones_java_warns_about() {
        let warn: Vec<_> = EventKind::ALL.iter().filter(|k| k.severity() == Severity::Warn).map(|k| k.name()).collect();
        assert_eq!(
            warn,
            [
                "registration-rejected",
                "registration-conflict",
                "broker-expired",
                "channel-idle",
                "stale-unregister-ignored",
                "config-update-refused",
                "header-field-ignored",
            ]
        );
    }

    /// Only the removal of a broker instance is `unregistered`: the page marks removals by it.
    #[test]
    fn unregistered_is_one_broker_removed() {
        let removals: Vec<_> =
            EventKind::ALL.iter().filter(|k| k.category() == EventCategory::Unregistered).copied().collect();
        assert_eq!(removals, [EventKind::BrokerUnregistered]);
    }
}
