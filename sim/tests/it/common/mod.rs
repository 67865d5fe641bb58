//! Helpers shared by the integration tests: the simulation harness.

pub(crate) mod sim;
