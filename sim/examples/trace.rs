//! Prints the trace of a built-in scenario: `cargo run -p nameserver-sim --example trace -- S5 220`.

use nameserver_core::time::Instant;
use nameserver_sim::{Sim, built_in};

fn main() {
    let mut args = std::env::args().skip(1);
    let id = args.next().unwrap_or_else(|| String::from("S1"));
    let seconds: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(75);
    let Some(scenario) = built_in(&id) else {
        eprintln!("unknown scenario {id}");
        std::process::exit(2);
    };
    let mut sim = Sim::new(&scenario);
    sim.run_until(Instant::from_millis(seconds * 1000));
    for entry in sim.trace() {
        println!(
            "{:>9} {:<10} {:<18} {}",
            entry.at().to_string(),
            sim.directory().name(entry.node()),
            entry.kind().name(),
            entry.text()
        );
    }
    eprintln!(
        "{} events, trace hash {:016x}, state hash {:016x}",
        sim.events_processed(),
        sim.trace_hash(),
        sim.state_hash()
    );
}
