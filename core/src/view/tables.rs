//! [`NsTables`]: `brokerLiveTable` (each row with its removal clock), `brokerAddrTable`,
//! `clusterAddrTable`, whether route queries are answered and when the next expiry scan
//! runs, in the JSON shape of the daemon's `/api/view`: names in camelCase, times in
//! milliseconds on the NameServer's clock.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::protocol::body::DataVersion;
use crate::route::BrokerLiveInfo;
use crate::server::{NameServer, Removal, RemovalPath};
use crate::time::Instant;

use super::divergence::Listed;

/// One NameServer's tables at one moment.
///
/// Reading is lenient: a peer daemon of an older build may lack fields added since, and is
/// still compared by what it has (a row needs only its keys, group, id and `lastUpdate`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default)]
pub struct NsTables {
    /// The NameServer's clock when the tables were read.
    pub uptime_ms: u64,
    /// Whether route queries are answered (`needWaitForService`).
    pub serving: bool,
    /// When the next expiry scan runs.
    pub next_scan_ms: u64,
    /// `clusterAddrTable`: cluster → broker groups.
    pub cluster_addr_table: BTreeMap<String, Vec<String>>,
    /// `brokerAddrTable`: broker group → members (GET_BROKER_CLUSTER_INFO's shape).
    pub broker_addr_table: BTreeMap<String, BrokerGroup>,
    /// `brokerLiveTable`, in its order (cluster, then address).
    pub brokers: Vec<LiveRow>,
}

/// One `brokerLiveTable` row with its removal clock: when this NameServer drops the broker if
/// nothing from it arrives ([`Removal`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LiveRow {
    /// The live-table key: cluster.
    pub cluster: String,
    /// The live-table key: the broker's address.
    pub broker_addr: String,
    /// Its group.
    pub broker_name: String,
    /// Its id in the group (0: master).
    pub broker_id: i64,
    /// Empty when the registration had none (Java's null).
    #[serde(default)]
    pub ha_server_addr: String,
    /// Its last registration or heartbeat.
    pub last_update: u64,
    /// How long it may stay silent (its `heartbeatTimeoutMillis`).
    #[serde(default)]
    pub timeout_ms: u64,
    /// `lastUpdate` + `timeoutMs`.
    #[serde(default)]
    pub expires_at: u64,
    /// Its topic-config data version.
    #[serde(default)]
    pub data_version: DataVersion,
    /// The first expiry scan that finds it expired.
    #[serde(default)]
    pub scan_expire_at: u64,
    /// The idle close of its channel (`null`: idle close off, or the channel not tracked).
    #[serde(default)]
    pub idle_close_at: Option<u64>,
    /// The earlier of the two.
    #[serde(default)]
    pub removal_at: u64,
    /// Which one that is.
    #[serde(default)]
    pub removal_by: RemovalPath,
}

/// One `brokerAddrTable` entry (`BrokerData`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct BrokerGroup {
    /// The cluster the group first registered in.
    pub cluster: String,
    /// The group's name.
    pub broker_name: String,
    /// Broker id (a string key, as in standard JSON) → address.
    pub broker_addrs: BTreeMap<String, String>,
    /// The zone (5.x); absent when null.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub zone_name: Option<String>,
    /// Whether the group runs in acting-master mode (5.x).
    pub enable_acting_master: bool,
}

fn millis(d: core::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl NsTables {
    /// `ns`'s tables as of its clock. `idle_close_at` gives the idle close of a live broker's
    /// channel, which only the driver knows (it keeps the channels' [`crate::server::IdleClock`]s);
    /// `None` when idle close is off or the channel is not tracked.
    #[must_use]
    pub fn of(ns: &NameServer, mut idle_close_at: impl FnMut(&BrokerLiveInfo) -> Option<Instant>) -> Self {
        let routes = ns.routes();
        let brokers = routes
            .broker_live_table()
            .iter()
            .map(|(key, live)| {
                let removal = ns.removal(live, idle_close_at(live));
                let mut row = LiveRow {
                    cluster: key.cluster.to_string(),
                    broker_addr: key.broker_addr.to_string(),
                    broker_name: live.broker_name.to_string(),
                    broker_id: live.broker_id.0,
                    ha_server_addr: live.ha_server_addr.clone().unwrap_or_default(),
                    last_update: live.last_update.as_millis(),
                    timeout_ms: millis(live.heartbeat_timeout),
                    expires_at: live.expires_at().as_millis(),
                    data_version: live.data_version,
                    scan_expire_at: removal.scan_expire_at.as_millis(),
                    idle_close_at: None,
                    removal_at: 0,
                    removal_by: RemovalPath::Scan,
                };
                row.set_idle_close_at(removal.idle_close_at);
                row
            })
            .collect();
        let cluster_addr_table = routes
            .cluster_addr_table()
            .iter()
            .map(|(cluster, names)| (cluster.to_string(), names.iter().map(ToString::to_string).collect()))
            .collect();
        let broker_addr_table = routes
            .broker_addr_table()
            .iter()
            .map(|(name, data)| {
                let group = BrokerGroup {
                    cluster: data.cluster.to_string(),
                    broker_name: data.broker_name.to_string(),
                    broker_addrs: data
                        .broker_addrs
                        .iter()
                        .map(|(id, addr)| (id.to_string(), addr.to_string()))
                        .collect(),
                    zone_name: data.zone_name.clone(),
                    enable_acting_master: data.enable_acting_master,
                };
                (name.to_string(), group)
            })
            .collect();
        Self {
            uptime_ms: ns.now().as_millis(),
            serving: ns.serving_routes(),
            next_scan_ms: ns.next_scan().as_millis(),
            cluster_addr_table,
            broker_addr_table,
            brokers,
        }
    }

    /// Each listed broker by address, for [`super::Divergence::brokers`], its last registration
    /// or heartbeat on a clock whose zero is `epoch` (e.g. the wall-clock milliseconds when
    /// this NameServer's clock started, so two NameServers' times compare).
    #[must_use]
    pub fn listed(&self, epoch: u64) -> BTreeMap<String, Listed> {
        self.brokers
            .iter()
            .map(|row| {
                let listed = Listed {
                    cluster: row.cluster.clone(),
                    broker_name: row.broker_name.clone(),
                    broker_id: row.broker_id,
                    last_heard: epoch.saturating_add(row.last_update),
                };
                (row.broker_addr.clone(), listed)
            })
            .collect()
    }
}

impl LiveRow {
    /// Sets the idle close of the broker's channel (a driver that learns it later than the
    /// tables were read: the daemon's connection tasks move it on every read and write) and
    /// the removal clock that follows from it.
    pub fn set_idle_close_at(&mut self, idle_close_at: Option<Instant>) {
        let removal = Removal::first_of(idle_close_at, Instant::from_millis(self.scan_expire_at));
        self.idle_close_at = removal.idle_close_at.map(Instant::as_millis);
        self.removal_at = removal.at.as_millis();
        self.removal_by = removal.by;
    }
}
