//! WebAssembly bindings over `nameserver-core`, published as the npm package.
//!
//! Thin on purpose: no NameServer logic lives here. Three things cross the boundary:
//! [`Simulation`] (the seeded cluster model with its time machine), [`NameServer`] (the real
//! state machine for JavaScript drivers) and the codec helpers [`decode_frame`] /
//! [`encode_frame`]. Large state stays in wasm memory behind these handles; methods return
//! small plain objects (`camelCase`, numbers below 2^53, hashes as hex strings). Bad input
//! from JavaScript throws an `Error` with a clear message.

mod codec;
mod convert;
mod dto;
mod live;
mod nameserver;
mod simulation;
mod types;

pub use codec::{decode_frame, encode_frame};
pub use live::live_view;
pub use nameserver::NameServer;
pub use simulation::{Simulation, built_in_scenarios, trace_kinds};
