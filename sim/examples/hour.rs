//! Times simulated time of the base cluster (S1):
//! `cargo run --release -p nameserver-sim --example hour [-- seconds [runs]]`.
//!
//! Prints every run and the fastest, since a shared machine makes single runs noisy.

use nameserver_core::time::Instant;
use nameserver_sim::{Sim, built_in};

fn main() {
    let mut args = std::env::args().skip(1);
    let seconds: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(3600);
    let runs: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(5).max(1);
    let scenario = built_in("S1").expect("S1 exists");
    let mut best = std::time::Duration::MAX;
    for _ in 0..runs {
        let start = std::time::Instant::now();
        let mut sim = Sim::new(&scenario);
        sim.run_until(Instant::from_millis(seconds * 1000));
        let took = start.elapsed();
        best = best.min(took);
        println!("{} events, {} trace lines, {took:?}", sim.events_processed(), sim.trace().len());
    }
    println!("fastest of {runs}: {best:?} for {seconds} simulated seconds");
}
