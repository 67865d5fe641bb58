//! The project's test kit: programs the tests run beside ours, started in a directory of their
//! own, watched until ready and always stopped (SIGTERM, then SIGKILL), and the Java RocketMQ
//! runners built on them.
//!
//! Nothing here is part of the NameServer; only tests and scripts use it.

pub mod java;
pub mod peer;
pub mod wire;

pub use peer::{ExternalPeer, PeerError, PeerSpec, Ready};
