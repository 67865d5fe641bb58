//! The golden hashes, natively.

#![cfg(not(target_arch = "wasm32"))]

mod golden;

use nameserver_core::time::Instant;
use nameserver_sim::{Sim, built_in};

/// `(scenario, millis, trace hash, state hash)` as hex, computed by running the model.
fn compute(id: &str, ms: u64) -> (String, String) {
    let mut sim = Sim::new(&built_in(id).unwrap_or_else(|| panic!("no scenario {id}")));
    sim.run_until(Instant::from_millis(ms));
    (format!("{:016x}", sim.trace_hash()), format!("{:016x}", sim.state_hash()))
}

#[test]
fn native_run_matches_the_golden_hashes() {
    let mut text = String::from(
        "# scenario millis traceHash stateHash (checked natively by tests/native.rs, in Node by tests/web.rs and tests/js)\n",
    );
    let mut mismatches = Vec::new();
    for (id, ms, trace, state) in golden::lines() {
        let (t, s) = compute(&id, ms);
        text.push_str(&format!("{id} {ms} {t} {s}\n"));
        if (t.as_str(), s.as_str()) != (trace.as_str(), state.as_str()) {
            mismatches.push(format!("{id}@{ms}: trace {t} state {s}, golden {trace} {state}"));
        }
    }
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden-hashes.txt"), text).unwrap();
        return;
    }
    assert!(mismatches.is_empty(), "hashes changed (UPDATE_GOLDEN=1 to accept):\n{}", mismatches.join("\n"));
}
