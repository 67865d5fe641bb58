//! Which reported epochs the leader follows (quirk Q16, docs/PROTOCOL.md §20.4): the one
//! rule deciding when a heartbeat's `epoch` may raise a group's next master epoch, or make
//! the leader elect a group's master again above it.
//!
//! Java's controller never reads a heartbeat's epoch but to rank candidates. Following it
//! is what lets a group move here from another controller (its brokers' epoch files are
//! ahead), but a heartbeat is unauthenticated and cheap: followed freely, anyone reaching the
//! port could report ever-rising epochs and have the master elected again at each, every
//! election shrinking the sync-state set to the master alone. So an epoch is followed only
//!
//! - from a replica this controller knows: its cluster, group and registered id, sending from
//!   the address it registered (1003) with, and
//! - once per registration: a broker registers at each start and reports its real epoch
//!   then; what it holds afterwards came from this controller and never exceeds the group's.
//!
//! Local to the leader and never in the log, like the heartbeats it reads.

use alloc::collections::BTreeMap;

use nameserver_core::{BrokerAddr, BrokerId, BrokerName};

use crate::replicas::ReplicasInfo;
use crate::request::Heartbeat;

/// Reported epochs at or above this are not followed: no broker gets there (an election a
/// second for 34 years), and one heartbeat could otherwise push a group's master epoch to
/// where the next elections wrap it below the brokers' epochs.
pub(crate) const HELD_EPOCH_LIMIT: i32 = 1 << 30;

/// A registration's allowance.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Grant {
    /// The address the replica registered from.
    addr: BrokerAddr,
    /// The epoch followed; `None` until a heartbeat reports one above the group's.
    epoch: Option<i32>,
}

/// Per registered replica, the epoch its heartbeats made the leader follow, if any.
#[derive(Clone, Debug, Default)]
pub struct FollowedEpochs {
    grants: BTreeMap<(BrokerName, BrokerId), Grant>,
}

impl FollowedEpochs {
    /// A registration (1003) answered SUCCESS: the replica may have one epoch followed
    /// again, reported from `addr`.
    pub fn registered(&mut self, name: &BrokerName, id: BrokerId, addr: &BrokerAddr) {
        self.grants.insert((name.clone(), id), Grant { addr: addr.clone(), epoch: None });
    }

    /// Takes a heartbeat from replica `id`: whether its epoch is now followed. True at most
    /// once per registration, and only for an epoch above the group's master epoch, sent
    /// from the registered address of a replica the tables hold, in the group's cluster.
    pub fn report(&mut self, tables: &ReplicasInfo, hb: &Heartbeat, id: BrokerId) -> bool {
        let Some(name) = hb.broker_name.as_ref() else { return false };
        let Some((replicas, sync)) = tables.group(name) else { return false };
        let Some(registered) = replicas.brokers.get(&id) else { return false };
        let Some(grant) = self.grants.get_mut(&(name.clone(), id)) else { return false };
        let known = hb.cluster == replicas.cluster
            && hb.broker_addr.as_ref() == Some(&grant.addr)
            && grant.addr == registered.addr;
        let above = hb.epoch > sync.master_epoch && hb.epoch < HELD_EPOCH_LIMIT;
        if !known || !above || grant.epoch.is_some() {
            return false;
        }
        grant.epoch = Some(hb.epoch);
        true
    }

    /// The epoch followed for replica `id` of `name` since its last registration.
    #[must_use]
    pub fn epoch(&self, name: &BrokerName, id: BrokerId) -> Option<i32> {
        self.grants.get(&(name.clone(), id)).and_then(|g| g.epoch)
    }
}
