//! Helpers shared by the integration tests: the request harness and the simulation harness.

pub(crate) mod requests;
pub(crate) mod sim;
