//! A deterministic, seeded model of a RocketMQ cluster that drives the real NameServer.
//!
//! Every NameServer in the model is the real [`nameserver_core::NameServer`], and every message
//! between nodes is a real `RemotingCommand`, as the real codec decodes it from its bytes (which
//! are encoded only when read: the message inspector, the state hash). Brokers, producers
//! and consumers are small actors with RocketMQ's timings. Time is virtual (milliseconds); events
//! are ordered by (time, class, sequence number) in a `BTreeMap`; randomness comes from a
//! seeded in-crate PRNG; every table is a `BTreeMap`. The same seed and script give the same
//! trace, byte for byte, natively and in WebAssembly.
//!
//! A crate of its own on `nameserver-core`, so the daemon does not compile what it never runs;
//! `no_std` + `alloc` like the core, so it builds for the same targets.

// The `ts` feature's derives (ts-rs) are written against std's prelude.
#![cfg_attr(not(feature = "ts"), no_std)]
extern crate alloc;
#[cfg(test)]
extern crate std;

mod actors;
mod engine;
mod node;
pub mod observe;
pub mod scenario;
mod timeline;
pub mod view;

pub use actors::broker::BrokerActor;
pub use actors::client::ClientCore;
pub use actors::consumer::{ConsumerActor, QueueState};
pub use actors::offsets::{ConsumeLog, OffsetTable, StartFrom};
pub use actors::producer::ProducerActor;
pub use engine::actor::Actor;
pub use engine::frame::Frame;
pub use engine::history::{FaultRecord, History, Removal, RouteChange, StaleMark, WireRecord};
pub use engine::namesrv::NsNode;
pub use engine::net::{Category, Conn, Flight, Label, Link, Net, Payload, WireType};
pub use engine::rng::Rng;
pub use engine::{Node, Sim};
pub use nameserver_core::server::RemovalPath;
pub use node::operands::Operands;
pub use node::trace::{Fnv64, NodeId, TraceEntry, TraceKind};
pub use node::{
    Directory, Failure, GroupId, NodeState, Purpose, QueueRef, Role, SendAttempt, SendOutcome, SendRecord, TimerKind,
};
pub use observe::{FaultMeasurement, StaleWindow, Timings, Violation};
pub use scenario::built_in::{BASE, BUILT_IN, built_in, built_in_text};
pub use scenario::text::ScenarioError;
pub use scenario::{Action, NodeSpec, Profile, Scenario, ScriptEvent};
pub use timeline::{Branch, Timeline};
pub use view::IDLE_CLOSE;
