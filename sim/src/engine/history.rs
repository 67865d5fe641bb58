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
    pub(crate) at: Instant,
    /// Which NameServer.
    pub(crate) ns: NodeId,
    /// The broker's address.
    pub(crate) broker_addr: String,
}

impl Removal {
    /// The simulated time it happened at.
    #[must_use]
    pub fn at(&self) -> Instant {
        self.at
    }

    /// Which NameServer.
    #[must_use]
    pub fn ns(&self) -> NodeId {
        self.ns
    }

    /// The broker's address.
    #[must_use]
    pub fn broker_addr(&self) -> &str {
        &self.broker_addr
    }
}

/// A client's cached route changed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RouteChange {
    /// The simulated time it happened at.
    pub(crate) at: Instant,
    /// Which client.
    pub(crate) client: NodeId,
    /// Broker addresses in the new route, sorted.
    pub(crate) addrs: Vec<String>,
}

/// An injected fault.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FaultRecord {
    /// The simulated time it happened at.
    pub(crate) at: Instant,
    /// The fault or command applied.
    pub(crate) action: Action,
    /// The node it hit (the first one for link faults).
    pub(crate) target: Option<NodeId>,
}

impl FaultRecord {
    /// The simulated time it happened at.
    #[must_use]
    pub fn at(&self) -> Instant {
        self.at
    }

    /// The fault or command applied.
    #[must_use]
    pub fn action(&self) -> &Action {
        &self.action
    }

    /// The node it hit (the first one for link faults).
    #[must_use]
    pub fn target(&self) -> Option<NodeId> {
        self.target
    }
}

/// A client's route started or stopped differing from its NameServer's.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StaleMark {
    /// The simulated time it happened at.
    pub(crate) at: Instant,
    /// Which client.
    pub(crate) client: NodeId,
    /// Stale from now on (else fresh).
    pub(crate) stale: bool,
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
    pub(crate) id: Option<NonZeroU64>,
    /// Sent at.
    pub(crate) sent_at: Instant,
    /// When it was due to arrive when sent (later `delay`s, freezes and `drop`s show in the
    /// flights, not here). For a lost message: when it would have, at the base latency.
    pub(crate) arrive_at: Instant,
    /// The node that sent it.
    pub(crate) from: NodeId,
    /// The node it is addressed to.
    pub(crate) to: NodeId,
    /// The request code it carries or answers, or FIN/RST.
    pub(crate) what: WireType,
    /// What glyph it gets.
    pub(crate) category: Category,
    /// Whether it is an answer.
    pub(crate) response: bool,
    /// Whether the network will not deliver it as sent: a cut link swallowed it, or a
    /// resetting link answered it with a RST instead.
    pub(crate) lost: bool,
}

impl WireRecord {
    /// The flight id (what `drop`/`delay` name); `None` when the link swallowed it, so it
    /// never became a flight.
    #[must_use]
    pub fn id(&self) -> Option<NonZeroU64> {
        self.id
    }

    /// Sent at.
    #[must_use]
    pub fn sent_at(&self) -> Instant {
        self.sent_at
    }

    /// When it was due to arrive when sent (later `delay`s, freezes and `drop`s show in the
    /// flights, not here). For a lost message: when it would have, at the base latency.
    #[must_use]
    pub fn arrive_at(&self) -> Instant {
        self.arrive_at
    }

    /// The node that sent it.
    #[must_use]
    pub fn from(&self) -> NodeId {
        self.from
    }

    /// The node it is addressed to.
    #[must_use]
    pub fn to(&self) -> NodeId {
        self.to
    }

    /// The request code it carries or answers, or FIN/RST.
    #[must_use]
    pub fn what(&self) -> WireType {
        self.what
    }

    /// What glyph it gets.
    #[must_use]
    pub fn category(&self) -> Category {
        self.category
    }

    /// Whether it is an answer.
    #[must_use]
    pub fn response(&self) -> bool {
        self.response
    }

    /// Whether the network will not deliver it as sent: a cut link swallowed it, or a
    /// resetting link answered it with a RST instead.
    #[must_use]
    pub fn lost(&self) -> bool {
        self.lost
    }
}

/// The append-only record of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct History {
    /// Every trace line.
    pub(crate) trace: Vec<TraceEntry>,
    /// Every finished send.
    pub(crate) sends: Vec<SendRecord>,
    /// Every broker removal by a NameServer.
    pub(crate) removals: Vec<Removal>,
    /// Every client route change.
    pub(crate) route_changes: Vec<RouteChange>,
    /// Every fault.
    pub(crate) faults: Vec<FaultRecord>,
    /// Every change of a client's staleness.
    pub(crate) stale: Vec<StaleMark>,
    /// Every message put on the wire, in the order sent.
    pub(crate) wire: Vec<WireRecord>,
}

impl History {
    /// Every finished send.
    #[must_use]
    pub fn sends(&self) -> &[SendRecord] {
        &self.sends
    }

    /// Every fault.
    #[must_use]
    pub fn faults(&self) -> &[FaultRecord] {
        &self.faults
    }

    /// Every message put on the wire, in the order sent.
    #[must_use]
    pub fn wire(&self) -> &[WireRecord] {
        &self.wire
    }

    /// Every broker removal by a NameServer.
    #[must_use]
    pub fn removals(&self) -> &[Removal] {
        &self.removals
    }
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
