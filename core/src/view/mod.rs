//! One NameServer's tables as its observers show them, and how two NameServers' tables
//! differ.
//!
//! [`NsTables`] is the per-NameServer part of the daemon's `/api/view` (whose JSON it is, key
//! for key) and of `/api/brokers`; [`NsTables::of`] reads it from a [`crate::NameServer`], so
//! every driver builds it the same way. [`Divergence`] compares what two NameServers list and
//! remembers since when each difference stands.

mod divergence;
mod tables;

pub use divergence::{BrokerDiff, Divergence, Listed, TOPIC_NAMES_SHOWN, TopicDiff};
pub use tables::{BrokerGroup, LiveRow, NsTables};
