//! The bindings, run inside WebAssembly under Node (`cargo test --target wasm32-unknown-unknown`).

#![cfg(target_arch = "wasm32")]

mod golden;

use nameserver_wasm::{NameServer, Simulation, decode_frame};
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn wasm_run_matches_the_golden_hashes() {
    for (id, ms, trace, state) in golden::lines() {
        let mut sim = Simulation::built_in(&id).unwrap();
        sim.seek(ms as f64).unwrap();
        assert_eq!(sim.trace_hash(), trace, "{id}@{ms} trace");
        assert_eq!(sim.state_hash(), state, "{id}@{ms} state");
    }
}

#[wasm_bindgen_test]
fn seeking_back_reproduces_the_state() {
    let mut sim = Simulation::built_in("S5").unwrap();
    sim.seek(100_000.0).unwrap();
    let at_100 = sim.state_hash();
    sim.seek(300_000.0).unwrap();
    sim.seek(100_000.0).unwrap();
    assert_eq!(sim.state_hash(), at_100);
}

#[wasm_bindgen_test]
fn bad_input_is_an_error() {
    assert!(Simulation::new("frobnicate").is_err());
    assert!(Simulation::built_in("S99").is_err());
    let mut sim = Simulation::built_in("S1").unwrap();
    assert!(sim.inject("kill nobody").is_err());
    assert!(sim.seek(-1.0).is_err());
    assert!(NameServer::new(f64::NAN, None, None).is_err());
    assert!(decode_frame(&[0, 0, 0, 6, 9, 0, 0, 2, b'{', b'}']).is_err());
}
