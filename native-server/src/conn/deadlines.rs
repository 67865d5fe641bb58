//! The two deadlines that keep a peer from holding its slot with a trickle: the frame being
//! received must be complete in time, and a backlog of unread replies may not last a whole
//! idle period. Both are clocks of one connection, kept apart from its I/O.

use std::time::Duration;

use nameserver_core::codec::{self, Limits};
use tokio::time::Instant;

/// Bytes of encoded replies a peer may leave unread before the connection's task stops
/// reading from it; a peer that leaves this much unread for a whole idle period is closed.
pub(super) const HIGH_WATER: usize = 256 * 1024;
/// A frame gets a second more than the base deadline per this many bytes it announces.
const FRAME_BYTES_PER_SECOND: usize = 64 * 1024;

/// One connection's frame and backlog clocks.
#[derive(Debug, Default)]
pub(super) struct PeerDeadlines {
    /// When the first bytes of the frame not yet complete arrived.
    frame_started: Option<Instant>,
    /// Since when the connection's task has not read from the peer (replies unread, a full
    /// lane, a drain).
    unread_since: Option<Instant>,
    /// Since when at least [`HIGH_WATER`] bytes of replies wait for the peer (reads and
    /// writes now and then do not reset it: only the backlog falling below does).
    backlog_since: Option<Instant>,
}

impl PeerDeadlines {
    /// A frame was taken whole: no frame is partly received.
    pub(super) fn frame_taken(&mut self) {
        self.frame_started = None;
    }

    /// After the buffer's whole frames were taken: what is left (`buffered` bytes) is a frame
    /// begun now, unless one was begun before.
    pub(super) fn rest_buffered(&mut self, buffered: usize) {
        if buffered == 0 {
            self.frame_started = None;
        } else if self.frame_started.is_none() {
            self.frame_started = Some(Instant::now());
        }
    }

    /// When the frame being received (the start of `inbuf`) must be complete: `base` from its
    /// first bytes, plus a second per 64 KiB it announces. `None` when no frame is partly
    /// received.
    pub(super) fn frame_due(&self, inbuf: &[u8], limits: &Limits, base: Duration) -> Option<Instant> {
        let started = self.frame_started?;
        let announced = match codec::frame_len(inbuf, limits) {
            Ok(Some(len)) if inbuf.len() >= len => return None,
            Ok(Some(len)) => len,
            Ok(None) => 0,
            Err(_) => return None,
        };
        let extra = Duration::from_secs(u64::try_from(announced.div_ceil(FRAME_BYTES_PER_SECOND)).unwrap_or(u64::MAX));
        Some(crate::clock::after(started, base.saturating_add(extra)))
    }

    /// When a peer that has left at least [`HIGH_WATER`] bytes of replies unread (`unwritten`
    /// now) since `backlog_since` is closed: one idle period later (`None`: no such backlog,
    /// or no idle time).
    pub(super) fn backlog_due(&mut self, unwritten: usize, idle: Option<Duration>) -> Option<Instant> {
        if unwritten < HIGH_WATER {
            self.backlog_since = None;
            return None;
        }
        let since = *self.backlog_since.get_or_insert_with(Instant::now);
        Some(crate::clock::after(since, idle?))
    }

    /// While the task does not read, the frame being received is not late: its deadline
    /// moves by the time reading stopped, so a peer is never closed for the daemon's pause.
    pub(super) fn reading(&mut self, reads: bool) {
        match (reads, self.unread_since) {
            (false, None) => self.unread_since = Some(Instant::now()),
            (true, Some(since)) => {
                self.unread_since = None;
                if let Some(started) = &mut self.frame_started {
                    *started += since.elapsed();
                }
            }
            _ => {}
        }
    }
}
