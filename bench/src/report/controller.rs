//! The embedded controller's table (issue 36): each `loadgen controller` workload's requests
//! per second and latencies, ours beside each Java column, with the ratios ours / Java
//! (reported, not targets: no status column).

use std::fmt::Write as _;

use super::{Cell, Extract, Format, Tables, shown_ratio};

/// What `scripts/bench.sh` names every controller measure with (`controller-heartbeat`, …).
pub(super) const MEASURE_PREFIX: &str = "controller-";

/// The workloads in the table's order: the measure, and how the table names it.
const WORKLOADS: [(&str, &str); 4] = [
    ("controller-heartbeat", "BROKER_HEARTBEAT (904)"),
    ("controller-replica-info", "GET_REPLICA_INFO (1004)"),
    ("controller-sync-state", "GET_SYNC_STATE_DATA (1006)"),
    ("controller-join", "a group of two forming (10 requests, 4 writes)"),
];

/// Field `key` when the run saw no error; else how many errors, and their codes.
fn unless_errors(key: &'static str) -> Box<Extract> {
    Box::new(move |m| match m.number("errors") {
        Some(0.0) => m.number(key).map(Cell::Number),
        Some(n) => Some(Cell::Refused(format!("errors({n}; codes {})", m.get("bad_codes").unwrap_or("-")))),
        None => None,
    })
}

impl Tables<'_> {
    /// Field `key` of the first controller measurement that has it (`?` when none does).
    fn controller_param(&self, key: &str) -> String {
        self.records
            .iter()
            .filter(|r| r.measure.starts_with(MEASURE_PREFIX))
            .find_map(|r| r.result.as_ref()?.get(key))
            .unwrap_or("?")
            .to_owned()
    }

    /// The warm-up of `kind`'s controller runs, as its first line gives it.
    fn controller_warmup(&self, kind: &str) -> Option<String> {
        let record = self.records.iter().find(|r| r.measure.starts_with(MEASURE_PREFIX) && r.kind == kind)?;
        record.result.as_ref()?.get("warmup_ms").map(str::to_owned)
    }

    pub(super) fn controller_table(&mut self) {
        let (conns, depth) = (self.controller_param("conns"), self.controller_param("depth"));
        let duration = self.controller_param("duration_ms");
        let groups = self.param("controller-heartbeat", "groups");
        let mut warmups = Vec::new();
        if let Some(ms) = self.controller_warmup("ours") {
            warmups.push(format!("{ms} ms"));
        }
        if let Some(ms) = self.controller_warmup("java").or_else(|| self.controller_warmup("java-g1")) {
            warmups.push(format!("Java: {ms} ms"));
        }
        let _ = write!(
            self.out,
            "\nThe embedded controller (RIP-44): {} connections × {} in flight after a warm-up ({}), {} ms measured; \
             {} broker groups of two replicas formed first (the join workload forms fresh ones); every reply must be \
             SUCCESS, else the cell shows the errors; medians of the runs.\n\n",
            conns,
            depth,
            warmups.join("; "),
            duration,
            groups,
        );
        let (mut names, mut ratios, mut align) = (String::new(), String::new(), String::new());
        for (_, name) in &self.java {
            let _ = write!(names, " {name} |");
            let _ = write!(ratios, " ours/{name} |");
            align.push_str("---:|---:|");
        }
        let _ = writeln!(self.out, "| measure | ours |{names}{ratios}");
        let _ = writeln!(self.out, "|---|---:|{align}");
        let (qps, us, joins) = (Format::Decimals(0), Format::Decimals(1), Format::Decimals(1));
        for (measure, what) in WORKLOADS {
            if !self.records.iter().any(|r| r.measure == measure) {
                continue;
            }
            self.controller_row(&format!("{what}: requests/s"), measure, &*unless_errors("qps"), qps);
            self.controller_row(&format!("{what}: p50 (µs)"), measure, &*unless_errors("p50_us"), us);
            self.controller_row(&format!("{what}: p99 (µs)"), measure, &*unless_errors("p99_us"), us);
            if measure == "controller-join" {
                self.controller_row("groups formed/s", measure, &*unless_errors("joins_per_s"), joins);
            }
        }
    }

    /// One row: ours, each Java column, then ours / each.
    fn controller_row(&mut self, label: &str, measure: &str, extract: &Extract, format: Format) {
        let ours = self.value(measure, "ours", extract, format);
        let java: Vec<String> = self.java.iter().map(|(kind, _)| self.value(measure, kind, extract, format)).collect();
        let mut line = format!("| {label} | {ours} |");
        for value in &java {
            let _ = write!(line, " {value} |");
        }
        for value in &java {
            let _ = write!(line, " {} |", shown_ratio(&ours, value).unwrap_or_else(|| String::from("n/a")));
        }
        let _ = writeln!(self.out, "{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Options, parse_raw, tables};

    const RAW: &str = "\
controller-heartbeat ours rc=0 load=1 CONTROLLER label=ours workload=heartbeat conns=16 depth=4 groups=64 qps=40000 p50_us=100.0 p99_us=900.0 joins_per_s=nan errors=0 bad_codes=- warmup_ms=2000 duration_ms=5000
controller-heartbeat ours rc=0 load=1 CONTROLLER label=ours workload=heartbeat conns=16 depth=4 groups=64 qps=60000 p50_us=80.0 p99_us=700.0 joins_per_s=nan errors=0 bad_codes=- warmup_ms=2000 duration_ms=5000
controller-heartbeat java rc=0 load=1 CONTROLLER label=java workload=heartbeat conns=16 depth=4 groups=64 qps=10000 p50_us=400.0 p99_us=9000.0 joins_per_s=nan errors=0 bad_codes=- warmup_ms=30000 duration_ms=5000
controller-join ours rc=0 load=1 CONTROLLER label=ours workload=join conns=16 depth=4 groups=0 qps=3000 p50_us=1500.0 p99_us=9000.0 joins_per_s=300.0 errors=0 bad_codes=- warmup_ms=2000 duration_ms=5000
controller-join java rc=1 load=1 CONTROLLER label=java workload=join conns=16 depth=4 groups=0 qps=900 p50_us=5000.0 p99_us=30000.0 joins_per_s=80.0 errors=3 bad_codes=2012:3 warmup_ms=30000 duration_ms=5000
";

    fn row<'a>(table: &'a str, label: &str) -> Vec<&'a str> {
        let line = table.lines().find(|l| l.starts_with(&format!("| {label} |"))).unwrap_or_else(|| panic!("{table}"));
        line.trim_matches('|').split(" | ").map(str::trim).collect()
    }

    /// Medians of ours, Java's column and the ratio; a run with errors shows them instead of a
    /// number; a workload not measured has no rows; no NameServer table around it.
    #[test]
    fn the_controller_table() {
        let table = tables(&parse_raw(RAW).unwrap(), &Options::default());
        assert!(table.starts_with("\nThe embedded controller (RIP-44): 16 connections × 4 in flight"), "{table}");
        assert!(table.contains("(2000 ms; Java: 30000 ms), 5000 ms measured; 64 broker groups"), "{table}");
        assert!(table.contains("| measure | ours | Java 384m | ours/Java 384m |\n|---|---:|---:|---:|\n"), "{table}");
        assert_eq!(row(&table, "BROKER_HEARTBEAT (904): requests/s")[1..], ["50000", "10000", "5.00"]);
        assert_eq!(row(&table, "BROKER_HEARTBEAT (904): p99 (µs)")[1..], ["800.0", "9000.0", "0.09"]);
        let join = "a group of two forming (10 requests, 4 writes): requests/s";
        assert_eq!(row(&table, join)[1..], ["3000", "errors(3; codes 2012:3)", "n/a"]);
        assert_eq!(row(&table, "groups formed/s")[1..2], ["300.0"]);
        assert!(!table.contains("GET_REPLICA_INFO") && !table.contains("Large cluster"), "{table}");
    }
}
