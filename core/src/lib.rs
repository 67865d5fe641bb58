//! The RocketMQ NameServer as a sans-IO state machine, with the remoting codec.
//!
//! This crate is the whole NameServer: the route tables (`topicQueueTable`, `brokerAddrTable`,
//! `clusterAddrTable`, `brokerLiveTable`, `filterServerTable`), the KV config, every request
//! the Java NameServer answers, and the `RemotingCommand` codec, byte-compatible with Apache
//! RocketMQ 4.9.x and 5.x peers.
//!
//! It is **not** a server: it has no networking code, reads no clock, takes no lock and never
//! touches a file. It is `#![no_std]` (with `alloc`) and deterministic, so the same code runs in
//! the tokio daemon, in WebAssembly and inside the cluster simulation (`nameserver-sim`).
//!
//! # Run loop
//!
//! A driver owns one [`NameServer`] and repeats:
//!
//! 1. wait for a connection event, a decoded frame, a request on no connection (an operator's
//!    console: [`Input::Request`], never a made-up [`ConnId`]), an idle connection (below),
//!    or the deadline from [`NameServer::poll_timeout`];
//! 2. make **one** call to [`NameServer::handle`] with the current time and that [`Input`];
//! 3. drain [`NameServer::poll_output`] until it returns `None`, acting on each [`Output`]
//!    (send a reply, hand a request its [`Output::Answer`], close a connection, log the
//!    events of a run, persist KV or config bytes): outputs leave by this one drain, events
//!    logged one after another as one [`Output::Events`] (an [`event_run::EventRun`], taken
//!    whole);
//! 4. if it answers route queries from its own snapshot of the routes (as the daemon's
//!    connection tasks do), call [`NameServer::poll_route_changes`] and rebuild the routes of
//!    the topics it names (all of them on `None`); other drivers skip this step;
//! 5. go back to 1, with a timer at the new `poll_timeout`: the next expiry scan, or the end
//!    of the start-up wait (`needWaitForService`) while that comes first, so a driver never
//!    computes a deadline of its own.
//!
//! Only the driver sees bytes, so it keeps the idle close (Netty's
//! `IdleStateHandler(0, 0, serverChannelMaxIdleTimeSeconds)`) with one [`server::IdleClock`]
//! per connection: [`touch`](server::IdleClock::touch) it on every read and write, wake at its
//! [`deadline`](server::IdleClock::deadline), and deliver [`Input::Idle`] once it has
//! [`expired`](server::IdleClock::expired), with its [`last`](server::IdleClock::last) read or
//! write and the idle time it closed by: the events of the close quote both.
//!
//! `now` never goes backwards: a `now` earlier than the previous call's is taken as the
//! previous one, in every build, so timestamps that arrive slightly out of order do no harm.
//! Delivering [`Input::Timeout`] early is harmless; delivering it late only delays expiry.
//! Frames are decoded by the driver with [`codec::decode`], which returns `Ok(None)` until a whole frame is buffered and an error
//! (close the connection, as Java does) on malformed input.
//!
//! ```
//! use nameserver_core::{Config, ConnId, Input, Instant, KvConfig, NameServer, Output};
//! use nameserver_core::protocol::{RemotingCommand, RequestCode, ResponseCode};
//!
//! let mut ns = NameServer::new(Config::java_defaults("/home/u", "/opt/rmq"), KvConfig::default(), Instant::ZERO);
//! let conn = ConnId(1);
//! ns.handle(Instant::from_millis(1), Input::Connected { conn, remote: "127.0.0.1:5000".into() });
//! let query = RemotingCommand::request(RequestCode::GetRouteInfoByTopic).with_field("topic", "TopicTest");
//! ns.handle(Instant::from_millis(2), Input::Received { conn, cmd: query });
//! match ns.poll_output() {
//!     Some(Output::Send { cmd, .. }) => assert_eq!(cmd.response_code(), ResponseCode::TopicNotExist),
//!     other => panic!("{other:?}"),
//! }
//! ```
//!
//! The crate is `no_std` + `alloc` in every build: errors implement `core::error::Error`,
//! which is `std::error::Error`. Its one feature, `ts` (off by default), derives TypeScript
//! declarations of the view types with ts-rs, which needs std; only the wasm crate's
//! declaration test turns it on.

// The `ts` feature's derives (ts-rs) are written against std's prelude.
#![cfg_attr(not(feature = "ts"), no_std)]
extern crate alloc;
#[cfg(test)]
extern crate std;

pub mod auth;
pub mod codec;
pub mod config;
pub mod event;
pub mod event_run;
pub mod excerpt;
#[cfg(test)]
mod hash_fed;
pub mod json;
pub mod kv;
pub mod limits;
pub mod names;
pub mod properties;
pub mod protocol;
pub mod route;
pub mod server;
pub mod time;
pub mod view;

pub use config::Config;
pub use event::Event;
pub use kv::KvConfig;
pub use limits::Limits;
pub use names::{BrokerAddr, BrokerId, BrokerName, ClusterName, ConnId, RequestId, TopicName};
pub use server::{Input, NameServer, Output};
pub use time::Instant;
