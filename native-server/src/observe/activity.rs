//! When each connection last read or wrote, for the removal clocks of `/api/view`.
//!
//! Connection tasks run the Netty-style idle close themselves (`conn.rs`, each with the core's
//! [`IdleClock`]): it fires `serverChannelMaxIdleTimeSeconds` after the last byte read or
//! written, route queries answered on the connection included, which the owner never sees. So
//! each task publishes its clock in an atomic of its own, and the console reads it when it
//! answers.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, PoisonError};

use nameserver_core::server::IdleClock;
use nameserver_core::{ConnId, Instant};

/// One connection's idle clock as its task last published it: the last read or write
/// (NameServer clock, milliseconds).
#[derive(Debug)]
pub(crate) struct LastIo(AtomicU64);

impl LastIo {
    pub(crate) fn publish(&self, clock: IdleClock) {
        self.0.store(clock.last().as_millis(), Relaxed);
    }

    pub(crate) fn get(&self) -> IdleClock {
        IdleClock::new(Instant::from_millis(self.0.load(Relaxed)))
    }
}

/// Every open connection's [`LastIo`]. The lock is taken when a connection opens or closes
/// and when the owner publishes a view, never on a read or a write.
#[derive(Debug, Default)]
pub(crate) struct Channels(Mutex<HashMap<ConnId, Arc<LastIo>>>);

impl Channels {
    pub(crate) fn open(&self, conn: ConnId, now: Instant) {
        let last = Arc::new(LastIo(AtomicU64::new(now.as_millis())));
        self.0.lock().unwrap_or_else(PoisonError::into_inner).insert(conn, last);
    }

    pub(crate) fn close(&self, conn: ConnId) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).remove(&conn);
    }

    pub(crate) fn get(&self, conn: ConnId) -> Option<Arc<LastIo>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).get(&conn).cloned()
    }

    /// [`Self::get`] for many connections under one lock.
    pub(crate) fn get_all(&self, conns: impl Iterator<Item = ConnId>) -> Vec<Option<Arc<LastIo>>> {
        let map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        conns.map(|conn| map.get(&conn).cloned()).collect()
    }
}
