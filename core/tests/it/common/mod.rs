//! Helpers shared by the integration tests: the request harness.

pub(crate) mod requests;
