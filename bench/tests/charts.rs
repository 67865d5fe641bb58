//! `loadgen report --svg` on a committed small raw file draws the committed charts
//! (`docs/bench/*.svg`, shown in BENCHMARKS.md) byte for byte; and the charts are drawn from
//! the raw lines, so a changed raw file gives other charts.

use std::path::{Path, PathBuf};
use std::process::Command;

use nameserver_bench::charts::charts;
use nameserver_bench::report::parse_raw;
use nameserver_bench::stats::Latencies;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

const RAW: &str = "bench/tests/fixtures/raw-small.txt";
const REDRAW: &str =
    "cargo run -p nameserver-bench --bin loadgen -- report bench/tests/fixtures/raw-small.txt --svg docs/bench";

fn svg_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".svg"))
        .collect();
    names.sort();
    names
}

#[test]
fn the_committed_charts_are_drawn_from_the_committed_raw_file() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("charts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let status = Command::new(env!("CARGO_BIN_EXE_loadgen"))
        .arg("report")
        .arg(repo().join(RAW))
        .arg("--svg")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "loadgen report --svg: {status}");
    let committed = repo().join("docs/bench");
    assert_eq!(svg_files(&out), svg_files(&committed), "the charts drawn and the ones in docs/bench; redraw: {REDRAW}");
    for name in svg_files(&committed) {
        let (drawn, kept) = (std::fs::read(out.join(&name)).unwrap(), std::fs::read(committed.join(&name)).unwrap());
        assert!(drawn == kept, "docs/bench/{name} is not what {RAW} draws; if the change is meant, redraw: {REDRAW}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_changed_raw_file_draws_other_charts() {
    let raw = std::fs::read_to_string(repo().join(RAW)).unwrap();
    let before = charts(&parse_raw(&raw).unwrap()).unwrap();
    // The first route line's histogram replaced by one of a single 1 ms reply.
    let mut one = Latencies::new();
    one.record(std::time::Duration::from_millis(1));
    let line = raw.lines().find(|l| l.starts_with("route ")).unwrap();
    // bench.sh keeps the JSON form: `"hist":"…"`.
    let start = line.find(r#""hist":""#).unwrap() + r#""hist":""#.len();
    let end = start + line[start..].find('"').unwrap();
    let changed = raw.replacen(&line[start..end], &one.to_base64(), 1);
    let after = charts(&parse_raw(&changed).unwrap()).unwrap();
    let file = |charts: &[nameserver_bench::charts::Chart], name: &str| {
        charts.iter().find(|c| c.file == name).map(|c| c.svg.clone()).unwrap()
    };
    assert_ne!(file(&before, "route-latency.svg"), file(&after, "route-latency.svg"));
    assert_eq!(file(&before, "pingpong-latency.svg"), file(&after, "pingpong-latency.svg"));
    // A timeline point moved: the ours chart changes, the floor's does not.
    let changed = raw.replacen(r#""tl_ok":""#, r#""tl_ok":"9999,"#, 1);
    let after = charts(&parse_raw(&changed).unwrap()).unwrap();
    let first_cold_kind = raw.lines().find(|l| l.starts_with("cold ")).unwrap().split(' ').nth(1).unwrap();
    let timeline = format!("timeline-{first_cold_kind}.svg");
    assert_ne!(file(&before, &timeline), file(&after, &timeline));
    // A histogram that is not one is an error, not a chart.
    let broken = raw.replacen(r#""hist":""#, r#""hist":"AAAA"#, 1);
    assert!(charts(&parse_raw(&broken).unwrap()).is_err());
}
