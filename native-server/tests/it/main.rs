//! The daemon's integration tests, one module per file, in one test binary: each binary links
//! the whole dependency graph on its own, which is most of `cargo test`'s time on two cores.
//! Run one module with `cargo test -p nameserver --test it -- hostile::`.
//!
//! Two tests are binaries of their own because they need a process to themselves:
//! `tests/logs.rs` captures log lines with a thread-scoped tracing subscriber, and tracing
//! caches whether a log call site is wanted once for the whole process, so the daemon code
//! other tests run on threads without a subscriber could hide lines from it;
//! `tests/open_files.rs` raises the process's open-files limit, which the daemons other tests
//! start would inherit.

mod http_support;
mod reliability;
mod support;
mod tls_support;

mod broker_lifecycle;
mod cli;
mod config_persistence;
mod config_start;
mod connections;
mod controller;
mod controller_config;
mod controller_stdout;
mod crash_safety;
mod go_away;
mod hostile;
mod http_address_server;
mod http_api;
mod http_daemon;
mod http_limits;
mod http_metrics;
mod http_peers;
mod http_static;
mod http_view;
mod http_writes;
mod kv_persistence;
mod log_files;
mod min_broker_id_notice;
mod proxy_protocol;
mod readiness;
mod route_cache;
mod route_fast_path;
mod security;
mod shared_bodies;
mod shutdown;
mod tls;
mod tls_ciphers;
mod wire_replies;
