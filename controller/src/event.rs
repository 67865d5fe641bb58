//! Events: the state changes the controller commits to its log, and their encoding.
//!
//! One log entry holds the events of one request, in order:
//!
//! ```text
//! entry  = version:u8 (1)  count:u32  event*
//! event  = type:u8  fields                       (type ids are Java's EventType ids)
//! text   = len:u32  utf8        option = 0 | 1 value        ids = count:u32  i64*
//! ```
//!
//! Integers are big-endian. This is our format, not Java's (Java writes fastjson per event);
//! `tests/testdata/events.bin` pins it byte for byte, and a change to it needs a new version.
//! A new event type (64, [`Event::RaiseMasterEpoch`], Java has none) leaves every entry written
//! before it readable; a binary older than it cannot read a log holding it.

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;

use nameserver_core::{BrokerAddr, BrokerId, BrokerName, ClusterName};

use crate::binary::{DecodeError, Reader, Writer};

/// The format version written first in every entry.
pub const ENTRY_VERSION: u8 = 1;

/// One committed change of the replica tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// `ALTER_SYNC_STATE_SET_EVENT` (1): the group's set is replaced, its epoch +1.
    AlterSyncStateSet {
        /// The group.
        broker_name: BrokerName,
        /// The new set.
        new_set: BTreeSet<BrokerId>,
    },
    /// `APPLY_BROKER_ID_EVENT` (2): an id is given to a replica (a new group is created).
    ApplyBrokerId {
        /// The cluster, as the request named it.
        cluster: Option<ClusterName>,
        /// The group.
        broker_name: BrokerName,
        /// The replica's address (the check code's part before `;`).
        broker_address: BrokerAddr,
        /// The id.
        new_broker_id: BrokerId,
        /// `registerCheckCode`, kept so that a retry with the same code is accepted.
        register_check_code: String,
    },
    /// `ELECT_MASTER_EVENT` (3): the master epoch +1; with a master, the set becomes {master}.
    ElectMaster {
        /// The group.
        broker_name: BrokerName,
        /// The new master; `None` for a failed election (quirk Q3).
        new_master: Option<BrokerId>,
    },
    /// `CLEAN_BROKER_DATA_EVENT` (5): ids, or the whole group, forgotten.
    CleanBrokerData {
        /// The group.
        broker_name: BrokerName,
        /// The ids; `None` wipes the group.
        ids: Option<BTreeSet<BrokerId>>,
    },
    /// Ours (64; Java has no such event): the group's master epoch is raised to at least
    /// `master_epoch` before an election, because a live replica holds that epoch from
    /// another controller (PROTOCOL.md §20.4): the election that follows gives one more.
    RaiseMasterEpoch {
        /// The group.
        broker_name: BrokerName,
        /// The highest epoch a live replica holds.
        master_epoch: i32,
    },
    /// `UPDATE_BROKER_ADDRESS` (6): a registered replica moved.
    UpdateBrokerAddress {
        /// The cluster, as the request named it.
        cluster: Option<ClusterName>,
        /// The group.
        broker_name: BrokerName,
        /// The replica.
        broker_id: BrokerId,
        /// Its new address.
        broker_address: BrokerAddr,
    },
}

impl Event {
    /// Java's `EventType` id, the type byte of the encoding.
    #[must_use]
    pub fn type_id(&self) -> u8 {
        match self {
            Self::AlterSyncStateSet { .. } => 1,
            Self::ApplyBrokerId { .. } => 2,
            Self::ElectMaster { .. } => 3,
            Self::CleanBrokerData { .. } => 5,
            Self::UpdateBrokerAddress { .. } => 6,
            Self::RaiseMasterEpoch { .. } => 64,
        }
    }

    /// The group the event changes.
    #[must_use]
    pub fn broker_name(&self) -> &BrokerName {
        match self {
            Self::AlterSyncStateSet { broker_name, .. }
            | Self::ApplyBrokerId { broker_name, .. }
            | Self::ElectMaster { broker_name, .. }
            | Self::CleanBrokerData { broker_name, .. }
            | Self::UpdateBrokerAddress { broker_name, .. }
            | Self::RaiseMasterEpoch { broker_name, .. } => broker_name,
        }
    }

    fn write(&self, w: &mut Writer) {
        w.u8(self.type_id());
        match self {
            Self::AlterSyncStateSet { broker_name, new_set } => {
                w.text(broker_name.as_str());
                w.ids(new_set);
            }
            Self::ApplyBrokerId { cluster, broker_name, broker_address, new_broker_id, register_check_code } => {
                w.opt_text(cluster.as_ref().map(ClusterName::as_str));
                w.text(broker_name.as_str());
                w.text(broker_address.as_str());
                w.i64(new_broker_id.0);
                w.text(register_check_code);
            }
            Self::ElectMaster { broker_name, new_master } => {
                w.text(broker_name.as_str());
                w.opt_i64(new_master.map(|id| id.0));
            }
            Self::CleanBrokerData { broker_name, ids } => {
                w.text(broker_name.as_str());
                match ids {
                    Some(ids) => {
                        w.u8(1);
                        w.ids(ids);
                    }
                    None => w.u8(0),
                }
            }
            Self::UpdateBrokerAddress { cluster, broker_name, broker_id, broker_address } => {
                w.opt_text(cluster.as_ref().map(ClusterName::as_str));
                w.text(broker_name.as_str());
                w.i64(broker_id.0);
                w.text(broker_address.as_str());
            }
            Self::RaiseMasterEpoch { broker_name, master_epoch } => {
                w.text(broker_name.as_str());
                w.i32(*master_epoch);
            }
        }
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let name = |r: &mut Reader<'_>| r.text().map(BrokerName::new);
        Ok(match r.u8()? {
            1 => Self::AlterSyncStateSet { broker_name: name(r)?, new_set: r.ids()? },
            2 => Self::ApplyBrokerId {
                cluster: r.opt_text()?.map(ClusterName::new),
                broker_name: name(r)?,
                broker_address: BrokerAddr::new(r.text()?),
                new_broker_id: BrokerId(r.i64()?),
                register_check_code: r.text()?,
            },
            3 => Self::ElectMaster { broker_name: name(r)?, new_master: r.opt_i64()?.map(BrokerId) },
            5 => {
                let broker_name = name(r)?;
                let ids = match r.u8()? {
                    0 => None,
                    1 => Some(r.ids()?),
                    other => return Err(DecodeError::BadFlag(other)),
                };
                Self::CleanBrokerData { broker_name, ids }
            }
            6 => Self::UpdateBrokerAddress {
                cluster: r.opt_text()?.map(ClusterName::new),
                broker_name: name(r)?,
                broker_id: BrokerId(r.i64()?),
                broker_address: BrokerAddr::new(r.text()?),
            },
            64 => Self::RaiseMasterEpoch { broker_name: name(r)?, master_epoch: r.i32()? },
            other => return Err(DecodeError::UnknownEventType(other)),
        })
    }
}

/// One log entry: the events of one request (none for a read through the log).
#[must_use]
pub fn encode_entry(events: &[Event]) -> Vec<u8> {
    let mut w = Writer::default();
    w.u8(ENTRY_VERSION);
    w.len(events.len());
    for event in events {
        event.write(&mut w);
    }
    w.0
}

/// The events of one log entry.
///
/// # Errors
/// If the bytes are not an entry [`encode_entry`] wrote.
pub fn decode_entry(bytes: &[u8]) -> Result<Vec<Event>, DecodeError> {
    let mut r = Reader(bytes);
    let version = r.u8()?;
    if version != ENTRY_VERSION {
        return Err(DecodeError::UnknownVersion(version));
    }
    // The smallest event is a type byte and an empty name.
    let n = r.count(5)?;
    let events = (0..n).map(|_| Event::read(&mut r)).collect::<Result<Vec<_>, _>>()?;
    r.finish()?;
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damaged_entries_are_errors_not_panics() {
        let entry = encode_entry(&[Event::ElectMaster { broker_name: BrokerName::new("b"), new_master: None }]);
        for cut in 0..entry.len() {
            assert!(decode_entry(&entry[..cut]).is_err(), "cut at {cut}");
        }
        let mut bad = entry.clone();
        bad[0] = 9;
        assert_eq!(decode_entry(&bad), Err(DecodeError::UnknownVersion(9)));
        let mut long = entry;
        long.push(0);
        assert_eq!(decode_entry(&long), Err(DecodeError::Trailing(1)));
        assert_eq!(decode_entry(&[1, 0xFF, 0xFF, 0xFF, 0xFF]), Err(DecodeError::Truncated));
    }
}
