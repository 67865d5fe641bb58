//! Typed controller requests, parsed once at the edge.
//!
//! Java's header decoder never rejects a controller header: a missing or unparsable field
//! keeps its Java default or stays null (quirk Q10 of the crate docs). So [`ControllerRequest::parse`]
//! cannot fail; a field Java would later dereference is an `Option`, and the handler answers
//! SYSTEM_ERROR where Java's NullPointerException would.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use nameserver_core::json::from_fastjson;
use nameserver_core::properties::{self, PropertiesError};
use nameserver_core::protocol::RemotingCommand;
use nameserver_core::{BrokerAddr, BrokerId, BrokerName, ClusterName};

use crate::body::SyncStateSetBody;
use crate::code::ControllerRequestCode;

/// Java's default heartbeat timeout, when a 904 carries none (`BrokerHeartbeatManager`).
pub const DEFAULT_HEARTBEAT_TIMEOUT_MILLIS: i64 = 10_000;

/// A controller request, fully recognised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ControllerRequest {
    /// `BROKER_HEARTBEAT` (904).
    Heartbeat(Heartbeat),
    /// `CONTROLLER_ALTER_SYNC_STATE_SET` (1001).
    AlterSyncStateSet {
        /// `brokerName`.
        broker_name: Option<BrokerName>,
        /// `masterBrokerId`.
        master_broker_id: Option<BrokerId>,
        /// `masterEpoch`.
        master_epoch: Option<i32>,
        /// The proposed set; `None` when the body is absent or not a `SyncStateSet`.
        body: Option<SyncStateSetBody>,
    },
    /// `CONTROLLER_ELECT_MASTER` (1002).
    ElectMaster(ElectMaster),
    /// `CONTROLLER_REGISTER_BROKER` (1003).
    RegisterBroker {
        /// `clusterName`.
        cluster: Option<ClusterName>,
        /// `brokerName`.
        broker_name: Option<BrokerName>,
        /// `brokerId`, the controller-assigned id.
        broker_id: Option<BrokerId>,
        /// `brokerAddress`.
        broker_address: Option<BrokerAddr>,
    },
    /// `CONTROLLER_GET_REPLICA_INFO` (1004).
    GetReplicaInfo {
        /// `brokerName`.
        broker_name: Option<BrokerName>,
    },
    /// `CONTROLLER_GET_METADATA_INFO` (1005).
    GetMetadataInfo,
    /// `CONTROLLER_GET_SYNC_STATE_DATA` (1006).
    GetSyncStateData {
        /// The names in the body; `None` when it is absent, empty or not a JSON array of names.
        broker_names: Option<Vec<BrokerName>>,
    },
    /// `UPDATE_CONTROLLER_CONFIG` (1009).
    UpdateControllerConfig {
        /// The properties in the body; `None` when there is no body.
        entries: Option<Result<BTreeMap<String, String>, PropertiesError>>,
    },
    /// `GET_CONTROLLER_CONFIG` (1010).
    GetControllerConfig,
    /// `CLEAN_BROKER_DATA` (1011).
    CleanBrokerData {
        /// `clusterName` (admin may leave it out: quirk Q7).
        cluster: Option<ClusterName>,
        /// `brokerName`.
        broker_name: Option<BrokerName>,
        /// `brokerControllerIdsToClean`, `"1;2;3"`, parsed by the handler as Java does.
        ids_to_clean: Option<String>,
        /// `isCleanLivingBroker`.
        clean_living: bool,
    },
    /// `CONTROLLER_GET_NEXT_BROKER_ID` (1012).
    GetNextBrokerId {
        /// `clusterName`.
        cluster: Option<ClusterName>,
        /// `brokerName`.
        broker_name: Option<BrokerName>,
    },
    /// `CONTROLLER_APPLY_BROKER_ID` (1013).
    ApplyBrokerId {
        /// `clusterName`.
        cluster: Option<ClusterName>,
        /// `brokerName`.
        broker_name: Option<BrokerName>,
        /// `appliedBrokerId`.
        applied_broker_id: Option<BrokerId>,
        /// `registerCheckCode`, `"<brokerAddr>;<epochMillis>"`.
        register_check_code: Option<String>,
    },
    /// Any other code (`REQUEST_CODE_NOT_SUPPORTED`).
    Unsupported(ControllerRequestCode),
}

/// BROKER_HEARTBEAT's header, with Java's defaults filled in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heartbeat {
    /// `clusterName`.
    pub cluster: Option<ClusterName>,
    /// `brokerAddr` (kept from the first heartbeat only).
    pub broker_addr: Option<BrokerAddr>,
    /// `brokerName`.
    pub broker_name: Option<BrokerName>,
    /// `brokerId`; a heartbeat without one is refused (2005).
    pub broker_id: Option<BrokerId>,
    /// `epoch`, −1 when absent.
    pub epoch: i32,
    /// `maxOffset`, −1 when absent.
    pub max_offset: i64,
    /// `confirmOffset`, −1 when absent.
    pub confirm_offset: i64,
    /// `heartbeatTimeoutMills`, 10 000 when absent.
    pub timeout_millis: i64,
    /// `electionPriority`, `Integer.MAX_VALUE` when absent (lower wins).
    pub election_priority: i32,
}

/// CONTROLLER_ELECT_MASTER's header, with Java's field defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElectMaster {
    /// `clusterName`, `""` by default.
    pub cluster: ClusterName,
    /// `brokerName`, `""` by default.
    pub broker_name: BrokerName,
    /// `brokerId`, −1 by default (the controller's own trigger).
    pub broker_id: BrokerId,
    /// `designateElect`: an admin naming the new master.
    pub designate_elect: bool,
}

impl ElectMaster {
    /// The controller's own trigger (`ofControllerTrigger`): no cluster, no id.
    #[must_use]
    pub fn by_controller(broker_name: BrokerName) -> Self {
        Self { cluster: ClusterName::new(""), broker_name, broker_id: BrokerId(-1), designate_elect: false }
    }
}

impl ControllerRequest {
    /// Recognises `cmd` as one of the requests a controller serves; never fails (Q10).
    #[must_use]
    pub fn parse(cmd: &RemotingCommand) -> Self {
        let text = |key: &str| cmd.field(key).map(ToString::to_string);
        let cluster = || text("clusterName").map(ClusterName::new);
        let broker_name = || text("brokerName").map(BrokerName::new);
        let long = |key: &str| cmd.field(key).and_then(|v| v.parse::<i64>().ok());
        let int = |key: &str| cmd.field(key).and_then(|v| v.parse::<i32>().ok());
        let id = |key: &str| long(key).map(BrokerId);
        // Java's `Boolean.parseBoolean`.
        let flag = |key: &str| cmd.field(key).is_some_and(|v| v.eq_ignore_ascii_case("true"));
        match ControllerRequestCode::from(cmd.code) {
            ControllerRequestCode::BrokerHeartbeat => Self::Heartbeat(Heartbeat {
                cluster: cluster(),
                broker_addr: text("brokerAddr").map(BrokerAddr::new),
                broker_name: broker_name(),
                broker_id: id("brokerId"),
                epoch: int("epoch").unwrap_or(-1),
                max_offset: long("maxOffset").unwrap_or(-1),
                confirm_offset: long("confirmOffset").unwrap_or(-1),
                timeout_millis: long("heartbeatTimeoutMills").unwrap_or(DEFAULT_HEARTBEAT_TIMEOUT_MILLIS),
                election_priority: int("electionPriority").unwrap_or(i32::MAX),
            }),
            ControllerRequestCode::AlterSyncStateSet => Self::AlterSyncStateSet {
                broker_name: broker_name(),
                master_broker_id: id("masterBrokerId"),
                master_epoch: int("masterEpoch"),
                body: from_fastjson(&cmd.body).ok(),
            },
            ControllerRequestCode::ElectMaster => Self::ElectMaster(ElectMaster {
                cluster: cluster().unwrap_or_else(|| ClusterName::new("")),
                broker_name: broker_name().unwrap_or_else(|| BrokerName::new("")),
                broker_id: id("brokerId").unwrap_or(BrokerId(-1)),
                designate_elect: flag("designateElect"),
            }),
            ControllerRequestCode::RegisterBroker => Self::RegisterBroker {
                cluster: cluster(),
                broker_name: broker_name(),
                broker_id: id("brokerId"),
                broker_address: text("brokerAddress").map(BrokerAddr::new),
            },
            ControllerRequestCode::GetReplicaInfo => Self::GetReplicaInfo { broker_name: broker_name() },
            ControllerRequestCode::GetMetadataInfo => Self::GetMetadataInfo,
            ControllerRequestCode::GetSyncStateData => Self::GetSyncStateData {
                broker_names: from_fastjson::<Vec<BrokerName>>(&cmd.body).ok().filter(|names| !names.is_empty()),
            },
            ControllerRequestCode::UpdateControllerConfig => Self::UpdateControllerConfig {
                entries: (!cmd.body.is_empty()).then(|| properties::parse(&String::from_utf8_lossy(&cmd.body))),
            },
            ControllerRequestCode::GetControllerConfig => Self::GetControllerConfig,
            ControllerRequestCode::CleanBrokerData => Self::CleanBrokerData {
                cluster: cluster(),
                broker_name: broker_name(),
                ids_to_clean: text("brokerControllerIdsToClean"),
                clean_living: flag("isCleanLivingBroker"),
            },
            ControllerRequestCode::GetNextBrokerId => {
                Self::GetNextBrokerId { cluster: cluster(), broker_name: broker_name() }
            }
            ControllerRequestCode::ApplyBrokerId => Self::ApplyBrokerId {
                cluster: cluster(),
                broker_name: broker_name(),
                applied_broker_id: id("appliedBrokerId"),
                register_check_code: text("registerCheckCode"),
            },
            other => Self::Unsupported(other),
        }
    }

    /// Whether only the serving leader answers it (the others say CONTROLLER_NOT_LEADER).
    #[must_use]
    pub fn leader_only(&self) -> bool {
        !matches!(
            self,
            Self::Heartbeat(_)
                | Self::GetMetadataInfo
                | Self::UpdateControllerConfig { .. }
                | Self::GetControllerConfig
                | Self::Unsupported(_)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_and_garbled_fields_take_javas_defaults() {
        let cmd = RemotingCommand { code: 904, ..RemotingCommand::default() }.with_field("epoch", "x");
        let ControllerRequest::Heartbeat(hb) = ControllerRequest::parse(&cmd) else { panic!() };
        assert_eq!((hb.epoch, hb.max_offset, hb.timeout_millis, hb.election_priority), (-1, -1, 10_000, i32::MAX));
        assert_eq!(hb.broker_id, None);
        let elect = RemotingCommand { code: 1002, ..RemotingCommand::default() };
        assert_eq!(
            ControllerRequest::parse(&elect),
            ControllerRequest::ElectMaster(ElectMaster::by_controller(BrokerName::new("")))
        );
    }

    #[test]
    fn the_empty_name_list_of_1006_reads_as_none() {
        let cmd = RemotingCommand { code: 1006, body: b"[]".to_vec(), ..RemotingCommand::default() };
        assert_eq!(ControllerRequest::parse(&cmd), ControllerRequest::GetSyncStateData { broker_names: None });
    }
}
