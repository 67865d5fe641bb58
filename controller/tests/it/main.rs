//! The controller's tests: every code, the election policy and Java's quirks, the scans,
//! the event encoding's golden bytes, and apply against a model.

mod apply_model;
mod codes;
mod common;
mod election;
mod followed_epochs;
mod fuzz_regressions;
mod golden;
mod quirks;
mod scans;
