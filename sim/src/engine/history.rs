//! Everything a run has done, append-only: the trace, every message put on the wire, and the
//! records measurements are derived from. Checkpoints store only lengths ([`HistoryMark`]);
//! restoring truncates. None of it is part of the state or trace hashes.

use alloc::string::String;
use alloc::vec::Vec;
use core::num::NonZeroU64;

use crate::engine::net::{Category, WireType};
use crate::node::SendRecord;
use crate::node::trace::{NodeId, TraceEntry};
use crate::scenario::Action;
use nameserver_core::time::Instant;

/// A NameServer dropped a broker instance.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Removal {
    /// The simulated time it happened at.
    pub at: Instant,
    /// Which NameServer.
    pub ns: NodeId,
    /// The broker's address.
    pub broker_addr: String,
}

/// A client's cached route changed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RouteChange {
    /// The simulated time it happened at.
    pub at: Instant,
    /// Which client.
    pub client: NodeId,
    /// Broker addresses in the new route, sorted.
    pub addrs: Vec<String>,
}

/// An injected fault.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FaultRecord {
    /// The simulated time it happened at.
    pub at: Instant,
    /// The fault or command applied.
    pub action: Action,
    /// The node it hit (the first one for link faults).
    pub target: Option<NodeId>,
}

/// A client's route started or stopped differing from its NameServer's.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StaleMark {
    /// The simulated time it happened at.
    pub at: Instant,
    /// Which client.
    pub client: NodeId,
    /// Stale from now on (else fresh).
    pub stale: bool,
}

/// A message put on the wire (frame, FIN or RST), as it was sent.
///
/// 40 bytes, no heap: the page reads these every animation frame, and a simulated hour of S1
/// writes about 17,500 of them (0.7 MB; up to twice that with the vector's spare capacity;
/// each branch holds its own copy).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WireRecord {
    /// The flight id (what `drop`/`delay` name); `None` when the link swallowed it, so it
    /// never became a flight.
    pub id: Option<NonZeroU64>,
    /// Sent at.
    pub sent_at: Instant,
    /// When it was due to arrive when sent (later `delay`s, freezes and `drop`s show in the
    /// flights, not here). For a lost message: when it would have, at the base latency.
    pub arrive_at: Instant,
    /// The node that sent it.
    pub from: NodeId,
    /// The node it is addressed to.
    pub to: NodeId,
    /// The request code it carries or answers, or FIN/RST.
    pub what: WireType,
    /// What glyph it gets.
    pub category: Category,
    /// Whether it is an answer.
    pub response: bool,
    /// Whether the network will not deliver it as sent: a cut link swallowed it, or a
    /// resetting link answered it with a RST instead.
    pub lost: bool,
}

/// The append-only record of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct History {
    /// Every trace line.
    pub trace: Vec<TraceEntry>,
    /// Every finished send.
    pub sends: Vec<SendRecord>,
    /// Every broker removal by a NameServer.
    pub removals: Vec<Removal>,
    /// Every client route change.
    pub route_changes: Vec<RouteChange>,
    /// Every fault.
    pub faults: Vec<FaultRecord>,
    /// Every change of a client's staleness.
    pub stale: Vec<StaleMark>,
    /// Every message put on the wire, in the order sent.
    pub wire: Vec<WireRecord>,
}

/// Lengths of a [`History`] at a checkpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HistoryMark {
    trace: usize,
    sends: usize,
    removals: usize,
    route_changes: usize,
    faults: usize,
    stale: usize,
    wire: usize,
}

impl History {
    /// The current lengths.
    #[must_use]
    pub fn mark(&self) -> HistoryMark {
        HistoryMark {
            trace: self.trace.len(),
            sends: self.sends.len(),
            removals: self.removals.len(),
            route_changes: self.route_changes.len(),
            faults: self.faults.len(),
            stale: self.stale.len(),
            wire: self.wire.len(),
        }
    }

    /// Forgets everything after `mark`.
    pub fn truncate(&mut self, mark: HistoryMark) {
        self.trace.truncate(mark.trace);
        self.sends.truncate(mark.sends);
        self.removals.truncate(mark.removals);
        self.route_changes.truncate(mark.route_changes);
        self.faults.truncate(mark.faults);
        self.stale.truncate(mark.stale);
        self.wire.truncate(mark.wire);
    }
}
