//! [`Traffic`]: how many commands of each code the connections read and wrote since it was
//! last taken, as Java's `RemotingCodeDistributionHandler` counts them for
//! `namesrv_traffic.log` (`traffic_log.rs` takes them once a second).
//!
//! Every frame read is counted, so counting costs what the request metrics cost: a relaxed
//! add in one of [`SHARDS`] cache-aligned shards chosen by the connection. A code the core
//! does not know (rare: a newer client, a probe) is counted under a lock.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use nameserver_core::ConnId;
use nameserver_core::protocol::{RequestCode, ResponseCode};

/// Independent copies of the counts; a connection counts in `id % SHARDS`.
const SHARDS: usize = 8;
const REQUESTS: usize = RequestCode::KNOWN.len();
const RESPONSES: usize = ResponseCode::KNOWN.len();

/// Counts by code of the commands read (requests) and written (responses and the requests
/// the daemon sends), when on.
#[derive(Debug)]
pub(crate) struct Traffic {
    on: bool,
    read: Distribution<REQUESTS>,
    written: Distribution<RESPONSES>,
}

impl Traffic {
    /// Counting if `on` (`--log-dir`), else every call returns at once.
    pub(crate) fn new(on: bool) -> Self {
        Self {
            on,
            read: Distribution::new(std::array::from_fn(|slot| RequestCode::KNOWN[slot].raw())),
            written: Distribution::new(std::array::from_fn(|slot| ResponseCode::KNOWN[slot].raw())),
        }
    }

    /// Connection `conn` read a command of `code`.
    #[inline]
    pub(crate) fn read(&self, conn: ConnId, code: i32) {
        if self.on {
            self.read.count(conn, code, 1);
        }
    }

    /// Connection `conn` wrote a command of `code`.
    #[inline]
    pub(crate) fn written(&self, conn: ConnId, code: i32) {
        self.written_many(conn, code, 1);
    }

    /// Connection `conn` read `count` commands of `code`.
    #[inline]
    pub(crate) fn read_many(&self, conn: ConnId, code: i32, count: u64) {
        if self.on {
            self.read.count(conn, code, count);
        }
    }

    /// Connection `conn` wrote `count` commands of `code`.
    #[inline]
    pub(crate) fn written_many(&self, conn: ConnId, code: i32, count: u64) {
        if self.on {
            self.written.count(conn, code, count);
        }
    }

    /// The counts since the last call (codes counted at least once), read and written.
    pub(crate) fn take(&self) -> (BTreeMap<i32, u64>, BTreeMap<i32, u64>) {
        (self.read.take(), self.written.take())
    }
}

#[derive(Debug)]
#[repr(align(128))]
struct Shard<const N: usize>([AtomicU64; N]);

#[derive(Debug)]
struct Distribution<const N: usize> {
    known: [i32; N],
    shards: Box<[Shard<N>]>,
    others: Mutex<BTreeMap<i32, u64>>,
}

impl<const N: usize> Distribution<N> {
    fn new(known: [i32; N]) -> Self {
        Self {
            known,
            shards: (0..SHARDS).map(|_| Shard(std::array::from_fn(|_| AtomicU64::new(0)))).collect(),
            others: Mutex::default(),
        }
    }

    fn count(&self, conn: ConnId, code: i32, count: u64) {
        match self.known.iter().position(|&known| known == code) {
            Some(slot) => {
                let shard = usize::try_from(conn.0 % SHARDS as u64).unwrap_or(0);
                self.shards[shard].0[slot].fetch_add(count, Relaxed);
            }
            None => *self.lock_others().entry(code).or_default() += count,
        }
    }

    fn take(&self) -> BTreeMap<i32, u64> {
        let mut counts = std::mem::take(&mut *self.lock_others());
        for (slot, &code) in self.known.iter().enumerate() {
            let total: u64 = self.shards.iter().map(|shard| shard.0[slot].swap(0, Relaxed)).sum();
            if total > 0 {
                *counts.entry(code).or_default() += total;
            }
        }
        counts
    }

    fn lock_others(&self) -> std::sync::MutexGuard<'_, BTreeMap<i32, u64>> {
        // Nothing panics while holding it; a poisoned map still holds counts.
        self.others.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_code_across_shards_and_starts_again_once_taken() {
        let traffic = Traffic::new(true);
        for conn in 0..20 {
            traffic.read(ConnId(conn), 105);
        }
        traffic.read(ConnId(3), 103);
        traffic.read(ConnId(4), 77_777);
        traffic.written(ConnId(5), 0);
        traffic.written(ConnId(5), 17);
        let (read, written) = traffic.take();
        assert_eq!(read, BTreeMap::from([(103, 1), (105, 20), (77_777, 1)]));
        assert_eq!(written, BTreeMap::from([(0, 1), (17, 1)]));
        assert_eq!(traffic.take(), (BTreeMap::new(), BTreeMap::new()));
    }

    #[test]
    fn counts_nothing_when_off() {
        let traffic = Traffic::new(false);
        traffic.read(ConnId(1), 105);
        traffic.written(ConnId(1), 0);
        assert_eq!(traffic.take(), (BTreeMap::new(), BTreeMap::new()));
    }
}
