//! The simulation harness shared by the `sim_*` tests: running built-in scenarios (once per
//! test process), reading a run, and failing with context.
//!
//! Tolerance. One-way latency is 2 ms ± 1 ms, drawn from the seeded PRNG, so a time that
//! TEACHING.md gives as "≈t" for something that happens `n` network hops after an exact
//! instant `t` (a timer, a scan, a script action) is asserted inside
//! `[t + n·1 ms, t + n·3 ms]`: exact to the millisecond up to the jitter, and no looser.
//! Timers, scans and timeouts carry no jitter and are asserted to the millisecond.
//!
//! Every scenario is simulated once per test process (with [`Sim::check`] after every event)
//! and shared by the tests that read it. A failing assertion prints the scenario, its seed and
//! the trace entries up to the moment in question.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Mutex, OnceLock};

use nameserver_core::time::Instant;
use nameserver_sim::{Actor, NodeId, Scenario, SendRecord, Sim, TraceEntry, TraceKind, built_in, observe};

// ---------------------------------------------------------------------------------------------
// Running scenarios

/// How long each built-in scenario is simulated (and its golden trace covers), in seconds.
pub(crate) fn duration_s(id: &str) -> u64 {
    match id {
        // The 600 s isolation ends at ≈681.
        "S6-fault-4.9" => 720,
        // Healed at 300; C1 takes broker-b's queues back at its 336.01 poll and catches up.
        "S7" => 450,
        _ => 300,
    }
}

pub(crate) fn ms(ms: u64) -> Instant {
    Instant::from_millis(ms)
}

pub(crate) fn secs(s: u64) -> Instant {
    Instant::from_millis(s * 1000)
}

/// Runs `scenario` to `until`, checking the invariants after every single event.
pub(crate) fn simulate_checked(label: &str, scenario: &Scenario, until: Instant) -> Sim {
    let mut sim = Sim::new(scenario);
    while sim.step_event(until) {
        if let Err(v) = observe::check(&sim) {
            let node = sim.directory().name(v.node()).to_owned();
            Ctx::new(label, &sim).fail(Some(sim.now()), &format!("invariant broken at {node}: {}", v.message()));
        }
    }
    sim.run_until(until);
    sim
}

/// The run of built-in scenario `id` to its duration, simulated once per process.
pub(crate) fn run(id: &str) -> &'static Sim {
    static RUNS: Mutex<BTreeMap<String, &'static OnceLock<Sim>>> = Mutex::new(BTreeMap::new());
    let cell: &'static OnceLock<Sim> = {
        let mut runs = RUNS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        runs.entry(id.to_owned()).or_insert_with(|| Box::leak(Box::new(OnceLock::new())))
    };
    cell.get_or_init(|| {
        let scenario = built_in(id).unwrap_or_else(|| panic!("no built-in scenario {id}"));
        simulate_checked(id, &scenario, secs(duration_s(id)))
    })
}

// ---------------------------------------------------------------------------------------------
// Reading a run, and failing with context

/// A run being asserted on; failures print the seed and the trace up to the moment in question.
pub(crate) struct Ctx<'a> {
    pub(crate) label: &'a str,
    pub(crate) sim: &'a Sim,
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(label: &'a str, sim: &'a Sim) -> Self {
        Self { label, sim }
    }

    pub(crate) fn of(id: &'a str) -> Self {
        Self::new(id, run(id))
    }

    #[track_caller]
    pub(crate) fn fail(&self, around: Option<Instant>, message: &str) -> ! {
        let trace = self.sim.trace();
        let end =
            around.map_or(trace.len(), |t| trace.partition_point(|e| e.at() <= t + std::time::Duration::from_secs(1)));
        let mut out = format!(
            "{}: {message}\nscenario {} (seed {}), simulated to {}; last trace entries before {}:\n",
            self.label,
            self.label,
            self.sim.scenario().seed,
            self.sim.now(),
            trace.get(end.saturating_sub(1)).map_or(Instant::ZERO, |e| e.at()),
        );
        for entry in &trace[end.saturating_sub(30)..end] {
            let _ = writeln!(out, "{}", line(self.sim, entry));
        }
        panic!("{out}");
    }

    #[track_caller]
    pub(crate) fn ensure(&self, ok: bool, around: Option<Instant>, message: impl FnOnce() -> String) {
        if !ok {
            self.fail(around, &message());
        }
    }

    pub(crate) fn node(&self, name: &str) -> NodeId {
        let index = self.sim.scenario().node_index(name).unwrap_or_else(|| panic!("{}: no node {name}", self.label));
        NodeId(u16::try_from(index).expect("few nodes"))
    }

    /// Trace entries of `node` of `kind` whose text contains `text`.
    pub(crate) fn lines(&self, node: &str, kind: TraceKind, text: &str) -> Vec<&'a TraceEntry> {
        let id = self.node(node);
        self.sim.trace().iter().filter(|e| e.node() == id && e.kind() == kind && e.text().contains(text)).collect()
    }

    /// The first such entry at or after `from`.
    pub(crate) fn first(&self, node: &str, kind: TraceKind, text: &str, from: Instant) -> Option<&'a TraceEntry> {
        self.lines(node, kind, text).into_iter().find(|e| e.at() >= from)
    }

    /// The first such entry at or after `from`, which must exist and lie in `[lo, hi]`.
    #[track_caller]
    pub(crate) fn first_within(
        &self,
        node: &str,
        kind: TraceKind,
        text: &str,
        from: Instant,
        lo: u64,
        hi: u64,
    ) -> &'a TraceEntry {
        let found = self.first(node, kind, text, from);
        match found {
            Some(e) if e.at() >= ms(lo) && e.at() <= ms(hi) => e,
            other => self.fail(
                Some(ms(hi)),
                &format!(
                    "expected {node} {} \"{text}\" at {}..={}, found {:?}",
                    kind.name(),
                    ms(lo),
                    ms(hi),
                    other.map(|e| e.at().to_string())
                ),
            ),
        }
    }

    /// Asserts `at` lies in `[lo, hi]` milliseconds.
    #[track_caller]
    pub(crate) fn within(&self, what: &str, at: Option<Instant>, lo: u64, hi: u64) -> Instant {
        match at {
            Some(t) if t >= ms(lo) && t <= ms(hi) => t,
            other => self.fail(
                Some(ms(hi)),
                &format!("{what}: expected {}..={}, got {:?}", ms(lo), ms(hi), other.map(|t| t.to_string())),
            ),
        }
    }

    /// Finished sends of `producer`.
    pub(crate) fn sends(&self, producer: &str) -> Vec<&'a SendRecord> {
        let id = self.node(producer);
        self.sim.history().sends().iter().filter(|s| s.producer() == id).collect()
    }

    pub(crate) fn group(&self, name: &str) -> nameserver_sim::GroupId {
        let name = nameserver_core::BrokerName::from(name);
        self.sim.directory().group(&name).unwrap_or_else(|| panic!("no group {name}"))
    }

    /// The measurement of the fault whose script text is `action`.
    pub(crate) fn measurement(&self, action: &str) -> nameserver_sim::FaultMeasurement {
        observe::measurements(self.sim)
            .into_iter()
            .find(|m| m.action() == action)
            .unwrap_or_else(|| self.fail(None, &format!("no measurement for `{action}`")))
    }

    pub(crate) fn ns_removal(&self, m: &nameserver_sim::FaultMeasurement, ns: &str) -> Option<Instant> {
        let id = self.node(ns);
        m.ns_removal().iter().find(|(n, _)| *n == id).and_then(|(_, at)| *at)
    }

    pub(crate) fn client_update(&self, m: &nameserver_sim::FaultMeasurement, client: &str) -> Option<Instant> {
        let id = self.node(client);
        m.client_update().iter().find(|(n, _)| *n == id).and_then(|(_, at)| *at)
    }
}

pub(crate) fn line(sim: &Sim, e: &TraceEntry) -> String {
    format!("{:>11} {:<10} {:<18} {}", e.at().to_string(), sim.directory().name(e.node()), e.kind().name(), e.text())
}

/// A running producer's state.
pub(crate) fn producer<'s>(sim: &'s Sim, name: &str) -> &'s nameserver_sim::ProducerActor {
    let index = sim.scenario().node_index(name).expect("node exists");
    match &sim.nodes()[index].actor() {
        Actor::Producer(p) => p,
        other => panic!("{name} is not a running producer: {other:?}"),
    }
}

/// A running consumer's state.
pub(crate) fn consumer<'s>(sim: &'s Sim, name: &str) -> &'s nameserver_sim::ConsumerActor {
    let index = sim.scenario().node_index(name).expect("node exists");
    match &sim.nodes()[index].actor() {
        Actor::Consumer(c) => c,
        other => panic!("{name} is not a running consumer: {other:?}"),
    }
}

/// Whether NameServer `ns` lists `addr` in its `brokerLiveTable`.
pub(crate) fn ns_lists(sim: &Sim, ns: &str, addr: &str) -> bool {
    let index = sim.scenario().node_index(ns).expect("node exists");
    match &sim.nodes()[index].actor() {
        Actor::NameServer(n) => n.ns().routes().broker_live_table().keys().any(|k| k.broker_addr.as_str() == addr),
        _ => false,
    }
}

/// Whether a client's cached route names `addr`.
pub(crate) fn route_has(route: Option<&nameserver_core::protocol::body::TopicRouteData>, addr: &str) -> bool {
    route.is_some_and(|r| r.broker_datas.iter().any(|b| b.broker_addrs.values().any(|a| a.as_str() == addr)))
}

pub(crate) const BROKER_A: &str = "10.0.1.1:10911";
pub(crate) const BROKER_B: &str = "10.0.1.3:10911";

/// A fresh simulation of `scenario` run to `t`.
pub(crate) fn fresh(scenario: &Scenario, t: Instant) -> Sim {
    let mut sim = Sim::new(scenario);
    sim.run_until(t);
    sim
}

/// A consumer's pull line (`pull N messages of T from X (addr), queueId=Q, offsets A-B`):
/// the instance read, the queue id, and the offsets `[A, B + 1)`.
pub(crate) fn pulled(e: &TraceEntry) -> Option<(&str, i32, u64, u64)> {
    let rest = e.text().strip_prefix("pull ")?;
    let from = rest.split(" from ").nth(1)?.split_whitespace().next()?;
    let queue = rest.split("queueId=").nth(1)?.split(',').next()?.parse().ok()?;
    let (a, b) = rest.split("offsets ").nth(1)?.split_once('-')?;
    Some((from, queue, a.parse().ok()?, b.parse::<u64>().ok()? + 1))
}

/// The number after `key` in a trace line (`queueId=3]` → 3 for `queueId=`).
pub(crate) fn number_after(text: &str, key: &str) -> Option<u64> {
    let digits: String = text.split(key).nth(1)?.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}
