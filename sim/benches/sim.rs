//! One simulated hour of the base cluster (scenario S1): the cost of the deterministic
//! simulation behind the page's time machine.

use criterion::Criterion;
use nameserver_core::time::Instant;
use nameserver_sim::{Sim, built_in};

fn hour(c: &mut Criterion) {
    let scenario = built_in("S1").expect("S1 is built in");
    let mut group = c.benchmark_group("sim");
    group.sample_size(10);
    group.bench_function("S1-one-hour", |b| {
        b.iter(|| {
            let mut sim = Sim::new(&scenario);
            sim.run_until(Instant::from_millis(3_600_000));
            sim.events_processed()
        });
    });
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    hour(&mut c);
    c.final_summary();
}
