//! The controller's wire codes (RocketMQ's `RequestCode` 904 and 1001–1013, `ResponseCode`
//! 2000–2016), kept apart from the NameServer's so that its port's counters stay as they are.
//!
//! Unknown values are kept as received, by the core's `wire_enum!` rule.

use nameserver_core::protocol::ResponseCode;
use nameserver_core::wire_enum;

wire_enum! {
    /// Request codes a controller serves or sends.
    pub enum ControllerRequestCode: i32 {
        /// `BROKER_HEARTBEAT`, oneway from brokers to every controller.
        BrokerHeartbeat = 904,
        /// `CONTROLLER_ALTER_SYNC_STATE_SET`
        AlterSyncStateSet = 1001,
        /// `CONTROLLER_ELECT_MASTER`
        ElectMaster = 1002,
        /// `CONTROLLER_REGISTER_BROKER`
        RegisterBroker = 1003,
        /// `CONTROLLER_GET_REPLICA_INFO`
        GetReplicaInfo = 1004,
        /// `CONTROLLER_GET_METADATA_INFO`
        GetMetadataInfo = 1005,
        /// `CONTROLLER_GET_SYNC_STATE_DATA`
        GetSyncStateData = 1006,
        /// `GET_BROKER_EPOCH_CACHE` (admin to brokers; a controller does not serve it).
        GetBrokerEpochCache = 1007,
        /// `NOTIFY_BROKER_ROLE_CHANGED`, sent by the controller, oneway.
        NotifyBrokerRoleChanged = 1008,
        /// `UPDATE_CONTROLLER_CONFIG`
        UpdateControllerConfig = 1009,
        /// `GET_CONTROLLER_CONFIG`
        GetControllerConfig = 1010,
        /// `CLEAN_BROKER_DATA`
        CleanBrokerData = 1011,
        /// `CONTROLLER_GET_NEXT_BROKER_ID`
        GetNextBrokerId = 1012,
        /// `CONTROLLER_APPLY_BROKER_ID`
        ApplyBrokerId = 1013,
    }
}

wire_enum! {
    /// The controller's response codes; the system ones (0, 1, 3, 16) are the core's
    /// [`ResponseCode`].
    pub enum ControllerResponseCode: i32 {
        /// `CONTROLLER_FENCED_MASTER_EPOCH`
        FencedMasterEpoch = 2000,
        /// `CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH`
        FencedSyncStateSetEpoch = 2001,
        /// `CONTROLLER_INVALID_MASTER`
        InvalidMaster = 2002,
        /// `CONTROLLER_INVALID_REPLICAS`
        InvalidReplicas = 2003,
        /// `CONTROLLER_MASTER_NOT_AVAILABLE`
        MasterNotAvailable = 2004,
        /// `CONTROLLER_INVALID_REQUEST`
        InvalidRequest = 2005,
        /// `CONTROLLER_BROKER_NOT_ALIVE`
        BrokerNotAlive = 2006,
        /// `CONTROLLER_NOT_LEADER`
        NotLeader = 2007,
        /// `CONTROLLER_BROKER_METADATA_NOT_EXIST`
        BrokerMetadataNotExist = 2008,
        /// `CONTROLLER_INVALID_CLEAN_BROKER_METADATA`
        InvalidCleanBrokerMetadata = 2009,
        /// `CONTROLLER_BROKER_NEED_TO_BE_REGISTERED`
        BrokerNeedToBeRegistered = 2010,
        /// `CONTROLLER_MASTER_STILL_EXIST`
        MasterStillExist = 2011,
        /// `CONTROLLER_ELECT_MASTER_FAILED`
        ElectMasterFailed = 2012,
        /// `CONTROLLER_ALTER_SYNC_STATE_SET_FAILED`
        AlterSyncStateSetFailed = 2013,
        /// `CONTROLLER_BROKER_ID_INVALID`
        BrokerIdInvalid = 2014,
        /// `CONTROLLER_JRAFT_INTERNAL_ERROR` (Java's JRaft controller only).
        JraftInternalError = 2015,
        /// `CONTROLLER_BROKER_LIVE_INFO_NOT_EXISTS` (Java's JRaft controller only).
        BrokerLiveInfoNotExists = 2016,
    }
}

impl From<ControllerResponseCode> for ResponseCode {
    /// A controller code as the core's response code (an `Unknown` there), for
    /// `RemotingCommand::response_to`.
    fn from(code: ControllerResponseCode) -> Self {
        Self::from(code.raw())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_unknown_ones_are_kept() {
        for code in ControllerRequestCode::KNOWN {
            assert_eq!(ControllerRequestCode::from(code.raw()), *code);
        }
        for code in ControllerResponseCode::KNOWN {
            assert_eq!(ResponseCode::from(*code).raw(), code.raw());
        }
        assert_eq!(ControllerRequestCode::from(1014), ControllerRequestCode::Unknown(1014));
        assert_eq!(ControllerResponseCode::NotLeader.raw(), 2007);
    }
}
