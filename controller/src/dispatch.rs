//! Which validation each leader-only request gets, and the answers any controller gives
//! from what it holds itself: 1005's metadata and the configuration (1009, 1010).

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};

use nameserver_core::properties::{self, PropertiesError};
use nameserver_core::protocol::ResponseCode;

use crate::config::UpdateRefusal;
use crate::controller::{Controller, Output};
use crate::handlers::{Outcome, header};
use crate::log::ReplicatedLog;
use crate::request::ControllerRequest;

impl<L: ReplicatedLog> Controller<L> {
    /// The validation of a leader-only request.
    pub(crate) fn validate(&self, request: &ControllerRequest) -> Outcome {
        let ctx = self.context();
        match request {
            ControllerRequest::AlterSyncStateSet { broker_name, master_broker_id, master_epoch, body } => {
                ctx.alter_sync_state_set(broker_name.as_ref(), *master_broker_id, *master_epoch, body.as_ref())
            }
            ControllerRequest::ElectMaster(elect) => ctx.elect_master(elect),
            ControllerRequest::RegisterBroker { cluster, broker_name, broker_id, broker_address } => {
                ctx.register_broker(cluster.as_ref(), broker_name.as_ref(), *broker_id, broker_address.as_ref())
            }
            ControllerRequest::GetReplicaInfo { broker_name } => ctx.replica_info(broker_name.as_ref()),
            ControllerRequest::GetSyncStateData { broker_names } => ctx.sync_state_data(broker_names.as_deref()),
            ControllerRequest::CleanBrokerData { cluster, broker_name, ids_to_clean, clean_living } => {
                ctx.clean_broker_data(cluster.as_ref(), broker_name.as_ref(), ids_to_clean.as_deref(), *clean_living)
            }
            ControllerRequest::GetNextBrokerId { cluster, broker_name } => {
                ctx.next_broker_id(cluster.as_ref(), broker_name.as_ref())
            }
            ControllerRequest::ApplyBrokerId { cluster, broker_name, applied_broker_id, register_check_code } => ctx
                .apply_broker_id(
                    cluster.as_ref(),
                    broker_name.as_ref(),
                    *applied_broker_id,
                    register_check_code.as_deref(),
                ),
            local => unreachable!("{local:?} is answered by any controller, never queued"),
        }
    }

    /// CONTROLLER_GET_METADATA_INFO (1005): `isLeader` is the log's view, true even before
    /// the leader serves (quirk Q12).
    pub(crate) fn metadata(&self) -> Outcome {
        let leadership = self.log.leadership();
        let peers = self.config.peer_list();
        let leader_addr =
            leadership.leader.as_ref().and_then(|id| peers.iter().find(|(p, _)| p == id)).map(|(_, addr)| addr.clone());
        let peers_text: String = peers.iter().map(|(id, addr)| alloc::format!("{id}:{addr};")).collect();
        Outcome::new(
            ResponseCode::Success,
            header([
                ("group", Some(self.config.group.clone())),
                ("controllerLeaderId", leadership.leader.clone()),
                ("controllerLeaderAddress", leader_addr),
                ("isLeader", Some(leadership.is_leader.to_string())),
                ("peers", Some(peers_text)),
            ]),
        )
    }

    /// UPDATE_CONTROLLER_CONFIG (1009): a key refused ([`ControllerConfig::check_update`]:
    /// black-listed, kept from remote updates by `--remote-config`, or a value its type cannot
    /// hold) refuses the whole update; otherwise every key is set and the file is written
    /// before the reply.
    ///
    /// [`ControllerConfig::check_update`]: crate::ControllerConfig::check_update
    pub(crate) fn update_config(
        &mut self,
        entries: Option<Result<BTreeMap<String, String>, PropertiesError>>,
    ) -> Outcome {
        let entries = match entries {
            None => return Outcome::new(ResponseCode::Success, None),
            Some(Err(_)) => return Outcome::new(ResponseCode::SystemError, None).remark("string2Properties error"),
            Some(Ok(entries)) => entries,
        };
        match self.config.check_update(&entries, self.config.remote_config) {
            Ok(()) => {}
            Err(UpdateRefusal::BlackListed(_)) => {
                return Outcome::new(ResponseCode::NoPermission, None).remark("Can not update config in black list.");
            }
            Err(UpdateRefusal::InvalidValue { key, value, expected }) => {
                return Outcome::new(ResponseCode::InvalidParameter, None)
                    .remark(format!("`{value}` is not a valid value for {key}: expected {expected}"));
            }
        }
        for (key, value) in &entries {
            self.config.set(key, value);
        }
        let text = properties::to_plain_text(&self.config.to_persisted());
        self.outputs.push_back(Output::PersistConfig { text });
        Outcome::new(ResponseCode::Success, None)
    }
}
