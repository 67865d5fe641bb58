//! The fuzz targets' bodies as plain functions, one module per target: each `run` reads one
//! input and panics when a property of the code under test breaks.
//!
//! Two drivers share them. libFuzzer runs them in `fuzz/` (`cargo +nightly fuzz`,
//! `scripts/fuzz.sh`) for millions of executions guided by coverage; `tests/smoke.rs` runs
//! them on stable in the test command, over each target's seeds ([`seeds`]) and a fixed number
//! of seeded random and mutated inputs, so that a property broken where cheap inputs reach it
//! fails `scripts/test.sh` and not only the next long fuzzing run.

pub mod bodies;
pub mod controller;
pub mod decode;
mod reader;
mod replies;
pub mod seeds;
pub mod server;

/// One fuzz target: its name in `fuzz/` and its body.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// The name `cargo fuzz run` and `scripts/fuzz.sh` take.
    pub name: &'static str,
    /// Runs one input; panics on a broken property.
    pub run: fn(&[u8]),
}

/// Every target, in the order `scripts/fuzz.sh` runs them.
pub const TARGETS: [Target; 4] = [
    Target { name: "decode", run: decode::run },
    Target { name: "bodies", run: bodies::run },
    Target { name: "server", run: server::run },
    Target { name: "controller", run: controller::run },
];
