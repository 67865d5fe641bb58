//! Times simulated time of the base cluster: `cargo run --release -p nameserver-core --example hour [-- seconds]`.

use nameserver_core::sim::{Sim, built_in};
use nameserver_core::time::Instant;

fn main() {
    let seconds: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(3600);
    let scenario = built_in("S1").expect("S1 exists");
    let start = std::time::Instant::now();
    let mut sim = Sim::new(&scenario);
    sim.run_until(Instant::from_millis(seconds * 1000));
    let took = start.elapsed();
    println!("{} events, {} trace lines, {:?}", sim.events_processed(), sim.trace().len(), took);
}
