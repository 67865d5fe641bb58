//! The core's integration tests, one module per file, in one test binary: each binary links
//! the whole dependency graph on its own, which is most of `cargo test`'s time on two cores.
//! Run one module with `cargo test -p nameserver-core --test it -- sim_faults::`.

mod common;

mod auth;
mod codec_vectors;
mod fuzz_regressions;
mod requests_config;
mod requests_dispatch;
mod requests_java_edges;
mod requests_kv;
mod requests_liveness;
mod requests_register;
mod requests_routes;
mod requests_topics;
mod route_model;
mod sim_broker_removal;
mod sim_discovery;
mod sim_faults;
mod sim_invariants;
mod sim_offsets;
mod sim_scenarios;
mod sim_time_machine;
mod sim_views;
