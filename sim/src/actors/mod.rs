//! The processes of the cluster other than the NameServer: brokers, producers and consumers,
//! small actors with RocketMQ's timings, written against the engine's node API.

pub(crate) mod broker;
pub(crate) mod broker_consume;
pub(crate) mod client;
pub(crate) mod common;
pub(crate) mod consumer;
pub(crate) mod offsets;
pub(crate) mod producer;
