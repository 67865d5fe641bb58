//! The numbers a rule compared when a traced event happened, as the core gave them with the
//! event (or, for a route answer, as the reply carried them): the page's rule card quotes them
//! and never works them out again. They ride beside a trace line, outside its text and the
//! trace hash, so golden traces keep Java's words.

use nameserver_core::event::{Event, UnregisterReason};
use nameserver_core::time::Instant;

/// One rule's operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operands {
    /// A broker instance registered: a scan may remove it after `deadline`
    /// (`last_update + timeout_ms`) unless it registers again.
    Registered {
        /// This registration.
        last_update: Instant,
        /// Its timeout.
        timeout_ms: u64,
        /// When its removal clock runs out.
        deadline: Instant,
    },
    /// A scan found the broker silent: `last_update + timeout_ms < now`.
    Expired {
        /// Its last registration or heartbeat.
        last_update: Instant,
        /// Its timeout.
        timeout_ms: u64,
        /// When the scan ran.
        now: Instant,
    },
    /// Its connection was closed for silence: `last_io + idle_ms <= now`.
    IdleClose {
        /// The connection's last read or write.
        last_io: Instant,
        /// The idle time.
        idle_ms: u64,
        /// When it was closed.
        now: Instant,
    },
    /// A route answer listing `groups` broker groups.
    Route {
        /// How many broker groups (`brokerDatas`) the answer listed.
        groups: u32,
    },
    /// A route answer of TOPIC_NOT_EXIST.
    TopicNotExist,
}

impl Operands {
    /// The operands of a NameServer's event, if its rule compared any.
    #[must_use]
    pub fn of(event: &Event) -> Option<Self> {
        match *event {
            Event::BrokerRegistered { last_update, timeout_ms, deadline, .. } => {
                Some(Self::Registered { last_update, timeout_ms, deadline })
            }
            Event::BrokerExpired { last_update, timeout_ms, now, .. }
            | Event::BrokerUnregistered {
                reason: UnregisterReason::Expired { last_update, timeout_ms, now }, ..
            } => Some(Self::Expired { last_update, timeout_ms, now }),
            Event::ChannelIdle { last_io, idle_ms, now, .. }
            | Event::BrokerUnregistered { reason: UnregisterReason::ChannelIdle { last_io, idle_ms, now }, .. } => {
                Some(Self::IdleClose { last_io, idle_ms, now })
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nameserver_core::names::{BrokerAddr, ClusterName, ConnId};

    #[test]
    fn a_removal_carries_the_numbers_of_the_rule_that_removed() {
        let at = Instant::from_millis;
        let (cluster, broker_addr) = (ClusterName::new("DefaultCluster"), BrokerAddr::new("10.0.1.3:10911"));
        let reason = UnregisterReason::Expired { last_update: at(72_006), timeout_ms: 120_000, now: at(195_000) };
        let removed = Event::BrokerUnregistered { cluster: cluster.clone(), broker_addr: broker_addr.clone(), reason };
        assert_eq!(
            Operands::of(&removed),
            Some(Operands::Expired { last_update: at(72_006), timeout_ms: 120_000, now: at(195_000) })
        );
        let reason = UnregisterReason::ChannelIdle { last_io: at(72_006), idle_ms: 120_000, now: at(192_006) };
        let closed = Event::BrokerUnregistered { cluster, broker_addr, reason };
        assert_eq!(
            Operands::of(&closed),
            Some(Operands::IdleClose { last_io: at(72_006), idle_ms: 120_000, now: at(192_006) })
        );
        let idle = Event::ChannelIdle {
            conn: ConnId(3),
            remote: "10.0.1.3:50000".into(),
            last_io: at(1),
            idle_ms: 2,
            now: at(3),
        };
        assert_eq!(Operands::of(&idle), Some(Operands::IdleClose { last_io: at(1), idle_ms: 2, now: at(3) }));
        let asked = Event::BrokerUnregistered {
            cluster: ClusterName::new("c"),
            broker_addr: BrokerAddr::new("a"),
            reason: UnregisterReason::Request { from: ConnId(1) },
        };
        assert_eq!(Operands::of(&asked), None, "no rule decided an UNREGISTER_BROKER");
    }
}
