//! Which brokers this controller hears from: the heartbeat table (Java's
//! `DefaultBrokerHeartbeatManager`). Local to each controller and never in the log; time
//! enters only as the `now` the controller is handed.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use nameserver_core::{BrokerAddr, BrokerId, BrokerName, ClusterName, ConnId, Instant};

use crate::request::Heartbeat;

/// A heartbeat table key: cluster, group and controller id as the broker sent them (a
/// missing cluster is a key of its own, which no lookup with a cluster finds: quirk Q7).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LiveKey {
    /// `clusterName`.
    pub cluster: Option<ClusterName>,
    /// `brokerName`.
    pub broker_name: Option<BrokerName>,
    /// `brokerId`.
    pub broker_id: BrokerId,
}

/// Java's `BrokerLiveInfo`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveInfo {
    /// The address of the first heartbeat (quirk Q8).
    pub addr: Option<BrokerAddr>,
    /// The connection of the first heartbeat, closed when the entry expires.
    pub conn: ConnId,
    /// When the last heartbeat came.
    pub last: Instant,
    /// `heartbeatTimeoutMills` of the last heartbeat.
    pub timeout_millis: i64,
    /// The broker's HA epoch: only ever rises (Q8).
    pub epoch: i32,
    /// Its max physical offset: rises within an epoch (Q8).
    pub max_offset: i64,
    /// Its confirm offset, taken with `max_offset`.
    pub confirm_offset: i64,
    /// `electionPriority` of the last heartbeat, lower first.
    pub election_priority: i32,
}

impl LiveInfo {
    /// Java's predicate: alive while `last + timeout >= now`.
    #[must_use]
    pub fn alive_at(&self, now: Instant) -> bool {
        i128::from(self.last.as_millis()) + i128::from(self.timeout_millis) >= i128::from(now.as_millis())
    }
}

/// The heartbeat table.
#[derive(Clone, Debug, Default)]
pub struct Liveness {
    table: BTreeMap<LiveKey, LiveInfo>,
}

impl Liveness {
    /// Records a heartbeat that carries an id.
    pub fn heartbeat(&mut self, now: Instant, conn: ConnId, hb: &Heartbeat, broker_id: BrokerId) {
        let key = LiveKey { cluster: hb.cluster.clone(), broker_name: hb.broker_name.clone(), broker_id };
        match self.table.get_mut(&key) {
            None => {
                let info = LiveInfo {
                    addr: hb.broker_addr.clone(),
                    conn,
                    last: now,
                    timeout_millis: hb.timeout_millis,
                    epoch: hb.epoch,
                    max_offset: hb.max_offset,
                    confirm_offset: hb.confirm_offset,
                    election_priority: hb.election_priority,
                };
                self.table.insert(key, info);
            }
            Some(info) => {
                info.last = now;
                info.timeout_millis = hb.timeout_millis;
                info.election_priority = hb.election_priority;
                if hb.epoch > info.epoch || (hb.epoch == info.epoch && hb.max_offset > info.max_offset) {
                    info.epoch = hb.epoch;
                    info.max_offset = hb.max_offset;
                    info.confirm_offset = hb.confirm_offset;
                }
            }
        }
    }

    /// A broker's entry, alive or not.
    #[must_use]
    pub fn info(&self, cluster: Option<&ClusterName>, name: &BrokerName, id: BrokerId) -> Option<&LiveInfo> {
        self.table.get(&LiveKey { cluster: cluster.cloned(), broker_name: Some(name.clone()), broker_id: id })
    }

    /// Whether a broker is alive at `now` (Java's `isBrokerActive`).
    #[must_use]
    pub fn is_alive(&self, now: Instant, cluster: Option<&ClusterName>, name: &BrokerName, id: BrokerId) -> bool {
        self.info(cluster, name, id).is_some_and(|info| info.alive_at(now))
    }

    /// Removes the entries expired at `now` (`now − last > timeout`), with their connections.
    pub fn expire(&mut self, now: Instant) -> Vec<(LiveKey, ConnId)> {
        let expired: Vec<(LiveKey, ConnId)> =
            self.table.iter().filter(|(_, info)| !info.alive_at(now)).map(|(k, info)| (k.clone(), info.conn)).collect();
        for (key, _) in &expired {
            self.table.remove(key);
        }
        expired
    }

    /// Removes the entries whose heartbeats came on `conn`, which closed.
    pub fn close(&mut self, conn: ConnId) -> Vec<LiveKey> {
        let gone: Vec<LiveKey> = self.table.iter().filter(|(_, i)| i.conn == conn).map(|(k, _)| k.clone()).collect();
        for key in &gone {
            self.table.remove(key);
        }
        gone
    }

    /// Every entry, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&LiveKey, &LiveInfo)> {
        self.table.iter()
    }
}
