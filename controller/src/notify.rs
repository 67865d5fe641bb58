//! NOTIFY_BROKER_ROLE_CHANGED (1008): after a successful election, each replica of the group
//! this controller hears from is told the new master, oneway, at its registered address.

use alloc::collections::BTreeSet;
use alloc::string::ToString;
use alloc::vec::Vec;

use nameserver_core::protocol::{FLAG_ONEWAY, RemotingCommand};
use nameserver_core::{BrokerAddr, BrokerId};

use crate::body::{SyncStateSetBody, plain};
use crate::code::ControllerRequestCode;
use crate::handlers::Elected;

/// The 1008 requests for `elected`, one per member `alive` says is alive, by address.
pub(crate) fn role_changed(elected: &Elected, alive: impl Fn(BrokerId) -> bool) -> Vec<(BrokerAddr, RemotingCommand)> {
    let body = plain(&SyncStateSetBody::new(BTreeSet::from([elected.master]), elected.set_epoch));
    let mut request = RemotingCommand {
        code: ControllerRequestCode::NotifyBrokerRoleChanged.raw(),
        flag: FLAG_ONEWAY,
        ..RemotingCommand::default()
    }
    .with_field("masterEpoch", elected.master_epoch.to_string())
    .with_field("syncStateSetEpoch", elected.set_epoch.to_string())
    .with_field("masterBrokerId", elected.master.0.to_string())
    .with_body(body);
    if let Some(master_addr) = &elected.master_addr {
        request = request.with_field("masterAddress", master_addr.as_str());
    }
    elected.members.iter().filter(|(id, _)| alive(**id)).map(|(_, addr)| (addr.clone(), request.clone())).collect()
}
