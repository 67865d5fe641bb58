//! What a run is seen by: functions of a [`Sim`](crate::Sim) that read it and change nothing.
//! The measurements attributed to faults, the invariant checks, and the views the page shows,
//! all read from what the engine exposes and the record it writes as it runs
//! ([`History`](crate::History)).

mod check;
mod measure;
mod timings;

pub use check::{Violation, check};
pub use measure::{FaultMeasurement, StaleWindow, measurements, stale_since, stale_windows};
pub use timings::Timings;
