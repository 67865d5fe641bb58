//! The replica tables as one snapshot, in the primitives of the event encoding:
//!
//! ```text
//! snapshot = version:u8 (1)  groups:u32 (name  replicas?  sync?)*
//! replicas = cluster:option  next_id:i64  count:u32 (id:i64  addr:text  check_code:text)*
//! sync     = cluster:option  master_epoch:i32  set_epoch:i32  set:ids  master:option
//! ```

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::vec::Vec;

use nameserver_core::{BrokerAddr, BrokerId, BrokerName, ClusterName};

use crate::binary::{DecodeError, Reader, Writer};
use crate::replicas::{BrokerReplicas, Replica, ReplicasInfo, SyncState};

const SNAPSHOT_VERSION: u8 = 1;

impl ReplicasInfo {
    /// The tables as snapshot bytes.
    #[must_use]
    pub fn to_snapshot(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u8(SNAPSHOT_VERSION);
        let names: BTreeSet<&BrokerName> = self.replicas.keys().chain(self.sync.keys()).collect();
        w.len(names.len());
        for name in names {
            w.text(name.as_str());
            match self.replicas.get(name) {
                Some(group) => {
                    w.u8(1);
                    w.opt_text(group.cluster.as_ref().map(ClusterName::as_str));
                    w.i64(group.next_id);
                    w.len(group.brokers.len());
                    for (id, replica) in &group.brokers {
                        w.i64(id.0);
                        w.text(replica.addr.as_str());
                        w.text(&replica.check_code);
                    }
                }
                None => w.u8(0),
            }
            match self.sync.get(name) {
                Some(sync) => {
                    w.u8(1);
                    w.opt_text(sync.cluster.as_ref().map(ClusterName::as_str));
                    w.i32(sync.master_epoch);
                    w.i32(sync.set_epoch);
                    w.ids(&sync.set);
                    w.opt_i64(sync.master.map(|id| id.0));
                }
                None => w.u8(0),
            }
        }
        w.0
    }

    /// Tables from [`Self::to_snapshot`]'s bytes.
    ///
    /// # Errors
    /// If the bytes are not a snapshot.
    pub fn from_snapshot(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader(bytes);
        let version = r.u8()?;
        if version != SNAPSHOT_VERSION {
            return Err(DecodeError::UnknownVersion(version));
        }
        let mut info = Self::default();
        for _ in 0..r.count(6)? {
            let name = BrokerName::new(r.text()?);
            if flag(&mut r)? {
                let cluster = r.opt_text()?.map(ClusterName::new);
                let next_id = r.i64()?;
                let mut brokers = BTreeMap::new();
                for _ in 0..r.count(16)? {
                    let id = BrokerId(r.i64()?);
                    brokers.insert(id, Replica { addr: BrokerAddr::new(r.text()?), check_code: r.text()? });
                }
                info.replicas.insert(name.clone(), BrokerReplicas { cluster, next_id, brokers });
            }
            if flag(&mut r)? {
                let sync = SyncState {
                    cluster: r.opt_text()?.map(ClusterName::new),
                    master_epoch: r.i32()?,
                    set_epoch: r.i32()?,
                    set: r.ids()?,
                    master: r.opt_i64()?.map(BrokerId),
                };
                info.sync.insert(name, sync);
            }
        }
        r.finish()?;
        Ok(info)
    }
}

fn flag(r: &mut Reader<'_>) -> Result<bool, DecodeError> {
    match r.u8()? {
        0 => Ok(false),
        1 => Ok(true),
        other => Err(DecodeError::BadFlag(other)),
    }
}
