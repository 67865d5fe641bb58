//! The simulation's integration tests, one module per file, in one test binary (each binary
//! links the whole dependency graph on its own). Run one module with
//! `cargo test -p nameserver-sim --test it -- sim_faults::`.

mod common;

mod sim_broker_removal;
mod sim_cluster_view;
mod sim_discovery;
mod sim_faults;
mod sim_frames;
mod sim_invariants;
mod sim_live_view;
mod sim_offsets;
mod sim_public_fields;
mod sim_scenarios;
mod sim_time_machine;
mod sim_views;
