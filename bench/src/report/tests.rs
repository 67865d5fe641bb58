//! The tables of raw runs: a full run, a smoke run, Java columns, ratios run by run and pair by
//! pair.

use super::*;

/// Lines of a full run on 2026-12-01 (route, memory, storms, start-up, large cluster).
const FULL_RUN: &str = include_str!("../../tests/fixtures/raw-full-run.txt");

fn row<'a>(table: &'a str, label: &str) -> Vec<&'a str> {
    let line = table.lines().find(|l| l.starts_with(&format!("| {label} |"))).unwrap_or_else(|| panic!("{table}"));
    line.trim_matches('|').split(" | ").map(str::trim).collect()
}

#[test]
fn the_table_of_a_full_run() {
    let records = parse_raw(FULL_RUN).unwrap();
    let table = tables(&records, &Options::default());
    // Five route runs each: the medians; ours/peer and ours/floor the medians of the five
    // runs' ratios (ours/floor 0.66, 0.87, 0.80, 0.84, 0.62: 0.80, where the medians give
    // 0.83); the floor target.
    assert_eq!(
        row(&table, "route QPS, 32x8, 1000 topics, 4 brokers"),
        [
            "route QPS, 32x8, 1000 topics, 4 brokers",
            "445612",
            "30734",
            "535243",
            "14.09",
            "0.80",
            "≥ 0.7 × floor",
            "met"
        ]
    );
    assert_eq!(
        row(&table, "route p99 (µs), same load")[1..],
        ["1393.7", "19677.2", "1079.3", "0.07", "1.14", "≤ ⅓ × peer", "met"]
    );
    // Three runs, KiB shown in MiB.
    assert_eq!(row(&table, "RSS after 100 brokers × 1000 topics (MiB)")[1..4], ["39.0", "130.7", "26.7"]);
    // The peer refused the compressed storm: shown, and no ratio.
    assert_eq!(
        row(&table, "storm 100 × 1000 compressed, wall (ms)")[1..6],
        ["628.634", "refused(29:100)", "2.251", "n/a", "279.27"]
    );
    assert_eq!(row(&table, "exec → listening, median of 20 (ms)")[7], "met");
    // The peer's large-cluster run printed nothing: n/a, and targets on ours alone.
    assert_eq!(
        row(&table, "route p99 (µs), cold")[1..],
        ["11149.3", "n/a", "10436.6", "n/a", "1.07", "≤ 5 ms", "MISSED"]
    );
    assert_eq!(row(&table, "cold QPS / warm QPS")[1..4], ["0.98", "n/a", "0.93"]);
    assert_eq!(row(&table, "one 1000000-topic registration, compressed (ms)")[2], "refused(29:1)");
    assert_eq!(row(&table, "RSS after it (MiB)")[1..3], ["315.1", "n/a"]);
    assert!(table.contains("Large cluster: 100 brokers × 10000 topics"), "{table}");
    assert!(!table.contains("criterion"), "{table}");
}

#[test]
fn a_smoke_run_without_the_peer_claims_no_status() {
    let records: Vec<Record> = parse_raw(FULL_RUN).unwrap().into_iter().filter(|r| r.kind != "peer").collect();
    let mut criterion = BTreeMap::new();
    criterion.insert(String::from("sim/S1-one-hour"), 122_712_345.0);
    let table = tables(&records, &Options { smoke: true, criterion: Some(criterion) });
    let route = row(&table, "route QPS, 32x8, 1000 topics, 4 brokers");
    assert_eq!(route[2..], ["skipped", "535243", "n/a", "0.80", "≥ 0.7 × floor", "- (smoke)"]);
    assert_eq!(row(&table, "one simulated hour of S1 (ms, criterion)")[1], "122.7");
    assert_eq!(row(&table, "scan, 10,000 live brokers (ms, criterion)")[1], "n/a");
}

#[test]
fn java_columns_and_the_warm_up_rows() {
    let raw = "\
route ours rc=0 load=1 ROUTE conns=4 depth=2 topics=20 brokers=2 qps=40000 p50_us=100.0 p99_us=400.0 warmup_ms=2000 warmup_qps=30000 warmup_p99_us=500.0
route java rc=0 load=1 ROUTE conns=4 depth=2 topics=20 brokers=2 qps=8000 p50_us=500.0 p99_us=4000.0 warmup_ms=30000 warmup_qps=2000 warmup_p99_us=90000.0
route java-g1 rc=0 load=1 ROUTE conns=4 depth=2 topics=20 brokers=2 qps=10000 p50_us=400.0 p99_us=2000.0 warmup_ms=30000 warmup_qps=2500 warmup_p99_us=80000.0
route floor rc=0 load=1 ROUTE conns=4 depth=2 topics=20 brokers=2 qps=50000 p50_us=80.0 p99_us=300.0 warmup_ms=2000 warmup_qps=45000 warmup_p99_us=350.0
hold java rc=0 load=1 HOLD rss_before_kib=153600 rss_loaded_kib=204800
";
    let table = tables(&parse_raw(raw).unwrap(), &Options { smoke: true, criterion: None });
    assert!(
        table.starts_with(
            "| measure | ours | peer | floor | Java 384m | Java 4g G1 | ours/peer | ours/floor | ours/Java 384m | \
             ours/Java 4g G1 | target | status |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n"
        ),
        "{table}"
    );
    assert_eq!(
        row(&table, "route QPS, 4x2, 20 topics, 2 brokers")[1..],
        ["40000", "skipped", "50000", "8000", "10000", "n/a", "0.80", "5.00", "4.00", "≥ 0.7 × floor", "- (smoke)"]
    );
    let warmup = "route QPS during the warm-up (2000 ms; Java: 30000 ms)";
    assert_eq!(row(&table, warmup)[1..9], ["30000", "skipped", "45000", "2000", "2500", "n/a", "0.67", "15.00"]);
    assert_eq!(row(&table, "RSS idle (MiB)")[1..6], ["n/a", "skipped", "n/a", "150.0", "n/a"]);
    // Without Java, the columns are the usual ones.
    let records: Vec<Record> = parse_raw(raw).unwrap().into_iter().filter(|r| !r.kind.starts_with("java")).collect();
    let table = tables(&records, &Options::default());
    assert!(table.starts_with("| measure | ours | peer | floor | ours/peer | ours/floor | target | status |\n"));
}

#[test]
fn paired_ratios_are_the_median_of_each_pairs_ratio() {
    let raw = "\
route ours rc=0 load=1 ROUTE qps=1
hold-queried-alike ours rc=0 load=1 HOLD register_all_ms=100
hold-queried-distinct ours rc=0 load=1 HOLD register_all_ms=110
hold-queried-distinct ours rc=0 load=1 HOLD register_all_ms=150
hold-queried-alike ours rc=0 load=1 HOLD register_all_ms=100
hold-queried-alike ours rc=0 load=1 HOLD register_all_ms=200
hold-queried-distinct ours rc=0 load=1 HOLD register_all_ms=220
register-large-info ours rc=0 load=1 HOLD register_all_ms=1300
register-large-warn ours rc=0 load=1 HOLD register_all_ms=1000
register-large-warn ours rc=0 load=1 HOLD register_all_ms=1000
register-large-info ours rc=0 load=1 HOLD register_all_ms=1100
register-large-info ours rc=0 load=1 HOLD register_all_ms=1400
register-large-warn ours rc=0 load=1 HOLD register_all_ms=1000
";
    let table = tables(&parse_raw(raw).unwrap(), &Options::default());
    let ratio = row(&table, "every route different / alike, time to register (median of paired runs)");
    // 1.1, 1.5 and 1.1 (a pair in either order, as bench.sh alternates them): the median of
    // the pairs, where the medians' ratio would be 1.5.
    assert_eq!(ratio[1..4], ["1.10", "skipped", "n/a"]);
    assert_eq!(ratio.last(), Some(&"met"));
    let logs = row(&table, "INFO / WARN, time to register (median of paired runs)");
    assert_eq!(logs[1], "1.30");
    assert_eq!(logs.last(), Some(&"MISSED"));
}

#[test]
fn a_rows_ratios_pair_each_run_with_the_same_repetitions_run_of_the_other_kind() {
    // A host that slows through the run: each repetition's pair is close, the medians
    // come from different repetitions (their ratio would be 420 / 450 = 0.93).
    let raw = "\
route ours rc=0 load=1 ROUTE conns=4 depth=2 topics=20 brokers=2 qps=500 p99_us=100
route floor rc=0 load=1 ROUTE conns=4 depth=2 topics=20 brokers=2 qps=510 p99_us=100
route floor rc=0 load=1 ROUTE conns=4 depth=2 topics=20 brokers=2 qps=450 p99_us=100
route ours rc=0 load=1 ROUTE conns=4 depth=2 topics=20 brokers=2 qps=440 p99_us=100
route ours rc=0 load=1 ROUTE conns=4 depth=2 topics=20 brokers=2 qps=400 p99_us=100
route floor rc=0 load=1 ROUTE conns=4 depth=2 topics=20 brokers=2 qps=405 p99_us=100
route ours rc=2 load=1
route floor rc=0 load=1 ROUTE conns=4 depth=2 topics=20 brokers=2 qps=999 p99_us=100
route ours rc=0 load=1 ROUTE conns=4 depth=2 topics=20 brokers=2 qps=300 p99_us=100
route floor rc=0 load=1 ROUTE conns=4 depth=2 topics=20 brokers=2 qps=400 p99_us=100
";
    let table = tables(&parse_raw(raw).unwrap(), &Options::default());
    // 0.98, 0.98, 0.99 and 0.75; the failed run's repetition left out, not shifted.
    let route = row(&table, "route QPS, 4x2, 20 topics, 2 brokers");
    assert_eq!(route[1..], ["420", "skipped", "450", "n/a", "0.98", "≥ 0.7 × floor", "met"]);
    // Without a number on both sides a ratio says n/a, even when single runs have one.
    let raw = "route ours rc=0 load=1 ROUTE qps=500\nroute floor rc=0 load=1 ROUTE p99_us=100\n";
    let table = tables(&parse_raw(raw).unwrap(), &Options::default());
    assert_eq!(row(&table, "route QPS, ?x?, ? topics, ? brokers")[5], "n/a");
}

#[test]
fn a_failed_run_leaves_its_pair_out_not_the_pairs_after_it() {
    let raw = "\
route ours rc=0 load=1 ROUTE qps=1
hold-queried-alike ours rc=0 load=1 HOLD register_all_ms=100
hold-queried-distinct ours rc=0 load=1 HOLD register_all_ms=110
hold-queried-alike ours rc=1 load=1
hold-queried-distinct ours rc=0 load=1 HOLD register_all_ms=900
hold-queried-alike ours rc=0 load=1 HOLD register_all_ms=200
hold-queried-distinct ours rc=0 load=1 HOLD register_all_ms=240
hold-queried-alike ours rc=0 load=1 HOLD register_all_ms=100
hold-queried-distinct ours rc=0 load=1 HOLD register_all_ms=110
";
    let table = tables(&parse_raw(raw).unwrap(), &Options::default());
    let ratio = row(&table, "every route different / alike, time to register (median of paired runs)");
    // 1.1, 1.2 and 1.1; paired across the failure (900/200, 240/100) it would be 2.4.
    assert_eq!(ratio[1], "1.10");
}

#[test]
fn significant_digits_as_c_does() {
    assert_eq!(significant(0.082_44, 4), "0.08244");
    assert_eq!(significant(111.81, 4), "111.8");
    assert_eq!(significant(0.950_31, 4), "0.9503");
    assert_eq!(significant(2.0, 4), "2");
    assert_eq!(significant(12_345.6, 4), "1.235e+04");
    assert_eq!(significant(0.000_012_34, 4), "1.234e-05");
}

#[test]
fn bad_raw_lines_are_named() {
    let err = parse_raw("route ours rc=0 load=1 ROUTE qps=1\nroute ours 0 1\n").unwrap_err();
    assert_eq!(err.line, 2);
    let err = parse_raw("route ours rc=0 load=1 ROUTE qps\n").unwrap_err();
    assert!(err.why.contains("not key=value"), "{err}");
    let ok = parse_raw("cold peer rc=2 load=6.07 \n").unwrap();
    assert!(ok[0].result.is_none());
}
