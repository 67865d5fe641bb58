//! Helpers shared by the integration tests; each test crate uses only part of them.
#![allow(dead_code)]

pub(crate) mod requests;
pub(crate) mod sim;
