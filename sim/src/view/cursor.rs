//! [`Cursor`] and [`Delta`]: the logs a caller has not seen yet.
//!
//! A caller keeps the cursor of its last view and passes it back. The logs of one branch only
//! grow while time runs forward, so from a cursor of the current branch at or before now the
//! delta is what was appended since. A cursor of another branch, or of a later time (the run
//! went back, which truncated the logs), cannot say what the caller holds: the delta is then
//! the whole trace and every send, marked `reset`, and no wire (those show positions, not
//! motion).

use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::flights::WireEvent;
use super::history::{SendInfo, TraceEvent};
use crate::Timeline;

/// Where a caller is in the current branch's logs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Cursor {
    /// The branch.
    pub branch: usize,
    /// Its time (ms).
    pub time: u64,
    /// Trace lines held.
    pub trace: usize,
    /// Finished sends held.
    pub sends: usize,
    /// Wire messages held.
    pub wire: usize,
}

/// The logs since a cursor, and the cursor to pass next time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Delta {
    /// The caller's cursor was from another branch or a later time (or none): `trace` and
    /// `sends` are whole and replace what it holds.
    pub reset: bool,
    /// The index of `trace`'s first line.
    pub trace_from: usize,
    /// Trace lines from `trace_from` on.
    pub trace: Vec<TraceEvent>,
    /// The index of `sends`' first send.
    pub sends_from: usize,
    /// Finished sends from `sends_from` on.
    pub sends: Vec<SendInfo>,
    /// Messages put on the wire since the cursor, in sending order (empty on a reset).
    pub wire: Vec<WireEvent>,
    /// Where this delta leaves the caller.
    pub cursor: Cursor,
}

impl Delta {
    /// The current branch's logs since `from` (`None`: nothing held yet).
    #[must_use]
    pub fn since(timeline: &Timeline, from: Option<&Cursor>) -> Self {
        let sim = timeline.sim();
        let (trace, sends, wire) = (sim.trace(), sim.history().sends(), sim.history().wire());
        let cursor = Cursor {
            branch: timeline.current_branch(),
            time: sim.now().as_millis(),
            trace: trace.len(),
            sends: sends.len(),
            wire: wire.len(),
        };
        let kept = from.filter(|c| c.branch == cursor.branch && c.time <= cursor.time);
        let (trace_from, sends_from, wire_from) = match kept {
            Some(c) => (c.trace.min(trace.len()), c.sends.min(sends.len()), c.wire.min(wire.len())),
            None => (0, 0, wire.len()),
        };
        Self {
            reset: kept.is_none(),
            trace_from,
            trace: trace[trace_from..].iter().map(|e| TraceEvent::of(sim, e)).collect(),
            sends_from,
            sends: sends[sends_from..].iter().map(|s| SendInfo::of(sim, s)).collect(),
            wire: wire[wire_from..].iter().map(|r| WireEvent::of(sim, r)).collect(),
            cursor,
        }
    }
}
