//! What the embedded controller publishes for the console: each broker group's master, epochs
//! and sync-state set, the brokers heartbeating, and the elections counted since start
//! (`/api/controller`, `/metrics`). The controller's owner replaces it after every change.

use serde::Serialize;

/// The controller as the console shows it.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ControllerView {
    /// `controllerDLegerGroup`.
    pub(crate) group: String,
    /// `controllerDLegerSelfId`.
    pub(crate) self_id: String,
    /// The controller's listener.
    pub(crate) address: String,
    /// Always true for the one controller this release runs.
    pub(crate) is_leader: bool,
    /// Brokers whose heartbeats have not expired.
    pub(crate) active_brokers: usize,
    /// Entries of the event log applied (replayed ones included).
    pub(crate) log_entries: u64,
    /// Elections committed since the daemon started, by result.
    pub(crate) elections: Elections,
    /// Each broker group, by name.
    pub(crate) broker_groups: Vec<BrokerGroupView>,
}

/// Elections by result, in the words of Java's `rocketmq_controller_election_total`.
#[derive(Clone, Copy, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Elections {
    /// A master other than the one before.
    pub(crate) new_master_elected: u64,
    /// The master before, again.
    pub(crate) keep_current_master: u64,
    /// No replica could be elected (the master epoch still rises).
    pub(crate) no_master_elected: u64,
}

/// One broker group.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BrokerGroupView {
    pub(crate) cluster: Option<String>,
    pub(crate) broker_name: String,
    pub(crate) master_id: Option<i64>,
    pub(crate) master_address: Option<String>,
    pub(crate) master_epoch: i32,
    pub(crate) sync_state_set_epoch: i32,
    pub(crate) sync_state_set: Vec<i64>,
    /// The id the next replica to apply gets.
    pub(crate) next_broker_id: i64,
    pub(crate) replicas: Vec<ReplicaView>,
}

/// One replica of a group.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReplicaView {
    pub(crate) broker_id: i64,
    pub(crate) address: String,
    /// Its heartbeats have not expired.
    pub(crate) alive: bool,
}
