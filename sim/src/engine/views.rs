//! The views and measurements a driver reads off a `Sim`, as methods: each is computed in
//! `observe/` from what the engine exposes.

use alloc::vec::Vec;

use crate::engine::node::TimerKind;
use crate::engine::trace::NodeId;
use crate::observe::check::Violation;
use crate::observe::measure::{FaultMeasurement, StaleWindow};
use crate::observe::view::{FlightView, NodeView, RemovalClock};
use crate::{ConsumerView, Sim};
use nameserver_core::time::Instant;

impl Sim {
    /// Every node.
    #[must_use]
    pub fn node_views(&self) -> Vec<NodeView> {
        crate::observe::view::node_views(self)
    }

    /// One node.
    #[must_use]
    pub fn node_view(&self, id: NodeId) -> NodeView {
        crate::observe::view::node_view(self, id)
    }

    /// Messages on the wire now.
    #[must_use]
    pub fn flights(&self) -> Vec<FlightView> {
        crate::observe::view::flights(self)
    }

    /// How soon NameServer `ns` drops each broker it lists, in live-table order (empty if it
    /// is not running): the idle close of the broker's channel (when the NameServer last read
    /// or wrote on it, plus the idle time) or the first scan that finds its heartbeat
    /// expired, whichever comes first.
    #[must_use]
    pub fn removal_clocks(&self, ns: NodeId) -> Vec<RemovalClock> {
        crate::observe::view::removal_clocks(self, ns)
    }

    /// A client's timer deadline, for tests and lessons.
    #[must_use]
    pub fn timer_of(&self, node: NodeId, kind: TimerKind) -> Option<Instant> {
        crate::observe::view::timer_of(self, node, kind)
    }

    /// Since when `client` has been stale.
    #[must_use]
    pub fn stale_since(&self, client: NodeId) -> Option<Instant> {
        crate::observe::measure::stale_since(self, client)
    }

    /// Every stale window so far.
    #[must_use]
    pub fn stale_windows(&self) -> Vec<StaleWindow> {
        crate::observe::measure::stale_windows(self)
    }

    /// Measurements for every fault so far.
    ///
    /// A NameServer's removal of a broker is attributed to the latest fault at or before it
    /// that could cause it (a process fault on that broker, or a link fault between that
    /// broker and that NameServer); a client's route update that stops listing the broker, to
    /// the fault of the latest removal of it before the update; a send to a broker group, to
    /// the latest fault at or before its start on a broker of that group, unless that broker
    /// was brought back (unfreeze, heal) in between. Each fault lists only what is attributed
    /// to it.
    #[must_use]
    pub fn measurements(&self) -> Vec<FaultMeasurement> {
        crate::observe::measure::measurements(self)
    }

    /// Checks the model's invariants:
    /// - every queue entry of every running NameServer names a known broker group;
    /// - no live entry outlives its timeout by more than one scan interval (counted from
    ///   when the NameServer last resumed, if it was frozen);
    /// - every client's cached route is one some NameServer answered (except a producer's
    ///   provisional TBW102 route);
    /// - a process that is not running holds no timers, requests or connections;
    /// - nothing a running process waits for (timer, answer, frame) is overdue.
    ///
    /// # Errors
    /// The first violation found.
    pub fn check(&self) -> Result<(), Violation> {
        crate::observe::check::check(self)
    }

    /// A consumer's queues with the broker's committed and max offsets, and what it consumed;
    /// `None` if `id` is not a consumer.
    #[must_use]
    pub fn consumer_view(&self, id: NodeId) -> Option<ConsumerView> {
        crate::observe::view::consumer_view(self, id)
    }
}
