//! The core's integration tests, one module per file, in one test binary: each binary links
//! the whole dependency graph on its own, which is most of `cargo test`'s time on two cores.
//! Run one module with `cargo test -p nameserver-core --test it -- requests_kv::`.

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
mod route_request;
mod view_divergence;
mod view_tables;
