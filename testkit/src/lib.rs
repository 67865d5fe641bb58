//! The project's test kit: programs the tests run beside ours, started in a directory of their
//! own, watched until ready and always stopped (SIGTERM, then SIGKILL), and the Java RocketMQ
//! runners built on them; RocketMQ clients ([`wire`]: blocking, [`client`]: async, [`scan`]:
//! the load generator's, which reads replies just enough to match them), request [`frames`],
//! certificates for TLS tests ([`pki`]), a process seen from `/proc` ([`proc`]), our own daemon
//! as a child process ([`daemon`]), the waits on states nothing announces ([`wait`]), and the
//! module-layers check every crate passes ([`layers`]).
//!
//! Nothing here is part of the NameServer; only tests and scripts use it.

mod class_archive;
pub mod client;
pub mod daemon;
pub mod frames;
pub mod java;
pub mod layers;
pub mod mqadmin_batch;
pub mod peer;
pub mod pki;
pub mod proc;
pub mod scan;
pub mod wait;
pub mod wire;

pub use client::AsyncClient;
pub use daemon::Daemon;
pub use peer::{ExternalPeer, PeerError, PeerSpec, Ready};
pub use pki::Pki;
pub use proc::ProcSample;
pub use wait::{PATIENCE, eventually, eventually_blocking, within};
