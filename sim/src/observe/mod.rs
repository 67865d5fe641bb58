//! What a run is seen by: its record (history), the measurements attributed to faults, the
//! invariant checks, and the views the page shows.

pub(crate) mod check;
pub(crate) mod history;
pub(crate) mod measure;
pub(crate) mod view;

pub(crate) use history::History;
