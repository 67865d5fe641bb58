//! The comparison tables of a `scripts/bench.sh` run, built from its raw results: medians of
//! the repetitions per server kind, ratios ours/peer and ours/floor, and each target's status.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::measurement::{Measurement, ParseError};
use crate::stats::median_f64;

mod controller;

/// One line of `raw.txt`: `MEASURE KIND rc=N load=X RESULT`, the result empty when the
/// generator printed nothing.
#[derive(Clone, Debug)]
pub struct Record {
    /// The script's name of the measure (`route`, `hold-queried-alike`, `register-huge`, …).
    pub measure: String,
    /// `ours`, `peer` or `floor`.
    pub kind: String,
    /// What the generator printed, if anything.
    pub result: Option<Measurement>,
}

/// A raw line that cannot be read.
#[derive(Debug)]
pub struct BadLine {
    /// 1-based.
    pub line: usize,
    /// What is wrong.
    pub why: String,
}

impl std::fmt::Display for BadLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "raw line {}: {}", self.line, self.why)
    }
}

impl std::error::Error for BadLine {}

/// Reads every non-empty line of a raw file.
///
/// # Errors
/// The first line that is not `MEASURE KIND rc=N load=X [RESULT]`.
pub fn parse_raw(text: &str) -> Result<Vec<Record>, BadLine> {
    let mut records = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let bad = |why: String| BadLine { line: i + 1, why };
        let mut parts = line.trim().splitn(5, ' ');
        let (Some(measure), Some(kind), Some(rc), Some(load)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad(String::from("expected MEASURE KIND rc=N load=X")));
        };
        if !rc.starts_with("rc=") || !load.starts_with("load=") {
            return Err(bad(String::from("expected rc=N load=X after the measure and kind")));
        }
        let result = match parts.next().map(str::trim).filter(|r| !r.is_empty()) {
            Some(text) => Some(Measurement::parse(text).map_err(|e: ParseError| bad(e.to_string()))?),
            None => None,
        };
        records.push(Record { measure: measure.to_owned(), kind: kind.to_owned(), result });
    }
    Ok(records)
}

/// What the tables need besides the raw lines.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// A smoke run: tiny counts, so no status is claimed.
    pub smoke: bool,
    /// Criterion medians in nanoseconds by benchmark id (`scan/all-alive/10000`); the
    /// criterion rows are printed when this is given.
    pub criterion: Option<BTreeMap<String, f64>>,
}

/// How a cell's number is written.
#[derive(Clone, Copy, Debug)]
enum Format {
    Decimals(usize),
    /// Four significant digits, as C's `%.4g`.
    Significant4,
}

impl Format {
    fn write(self, v: f64) -> String {
        match self {
            Self::Decimals(d) => format!("{v:.d$}"),
            Self::Significant4 => significant(v, 4),
        }
    }
}

/// C's `%.Ng`: N significant digits, trailing zeros dropped, an exponent outside 1e-4..1e N.
fn significant(v: f64, digits: i32) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let rounded: f64 = format!("{v:.*e}", (digits - 1) as usize).parse().unwrap_or(v);
    let exp = rounded.abs().log10().floor() as i32;
    let trim = |s: String| if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_owned() } else { s };
    if exp < -4 || exp >= digits {
        let text = format!("{v:.*e}", (digits - 1) as usize);
        let (mantissa, e) = text.split_once('e').unwrap_or((&text, "0"));
        let e: i32 = e.parse().unwrap_or(0);
        format!("{}e{}{:02}", trim(mantissa.to_owned()), if e < 0 { '-' } else { '+' }, e.abs())
    } else {
        trim(format!("{v:.*}", (digits - 1 - exp).max(0) as usize))
    }
}

/// One server's value for a measure.
#[derive(Clone, Debug)]
enum Cell {
    Number(f64),
    /// The server refused the registrations: the reply codes and counts.
    Refused(String),
}

/// The rule a row's target is checked with.
#[derive(Clone, Copy, Debug)]
enum Check {
    None,
    /// ours / floor ≥ x
    FloorAtLeast(f64),
    /// ours / peer ≤ x
    PeerAtMost(f64),
    /// ours ≥ x
    Min(f64),
    /// ours ≤ x
    Max(f64),
}

type Extract = dyn Fn(&Measurement) -> Option<Cell>;

fn number(key: &'static str) -> Box<Extract> {
    Box::new(move |m| m.number(key).map(Cell::Number))
}

fn mib(key: &'static str) -> Box<Extract> {
    Box::new(move |m| m.number(key).map(|kib| Cell::Number(kib / 1024.0)))
}

/// `key` when the measurement saw no error, else what the server answered.
fn unless_refused(key: &'static str) -> Box<Extract> {
    Box::new(move |m| match m.number("errors") {
        Some(0.0) => m.number(key).map(Cell::Number),
        Some(_) => Some(Cell::Refused(format!("refused({})", m.get("bad_codes").unwrap_or("")))),
        None => None,
    })
}

/// A cell's number as shown, if it shows one.
fn shown(text: &str) -> Option<f64> {
    text.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// `ours / other`, two decimals, when both cells show numbers and `other`'s is not zero.
/// Ratios of cells that are not medians of runs use the numbers as shown, so that such a row
/// agrees with itself.
fn shown_ratio(ours: &str, other: &str) -> Option<String> {
    match (shown(ours), shown(other)) {
        (Some(a), Some(b)) if b != 0.0 => Some(format!("{:.2}", a / b)),
        _ => None,
    }
}

/// A row's ratios of ours to the peer, the floor and each Java kind, as shown (`None`: n/a).
struct Ratios {
    peer: Option<String>,
    floor: Option<String>,
    java: Vec<Option<String>>,
}

impl Ratios {
    /// Ours over each other cell's number as shown, for rows whose cells are not medians of
    /// runs (paired ratios, criterion).
    fn of_shown(ours: &str, [peer, floor]: [&str; 2], java: &[String]) -> Self {
        Self {
            peer: shown_ratio(ours, peer),
            floor: shown_ratio(ours, floor),
            java: java.iter().map(|value| shown_ratio(ours, value)).collect(),
        }
    }
}

/// The Java kinds `scripts/bench.sh --java` measures, and their column names.
const JAVA_KINDS: [(&str, &str); 2] = [("java", "Java 384m"), ("java-g1", "Java 4g G1")];

struct Tables<'a> {
    records: &'a [Record],
    options: &'a Options,
    has_peer: bool,
    /// The Java kinds in the run: a column each, and a ratio ours/that column.
    java: Vec<(&'static str, &'static str)>,
    out: String,
}

impl Tables<'_> {
    /// Field `key` of the first `measure` line that has it, as text (`?` when none does).
    fn param(&self, measure: &str, key: &str) -> String {
        self.records
            .iter()
            .filter(|r| r.measure == measure)
            .find_map(|r| r.result.as_ref()?.get(key))
            .unwrap_or("?")
            .to_owned()
    }

    /// The median over the repetitions of `measure` against `kind`, written in `format`;
    /// `n/a` when none has a value.
    fn value(&self, measure: &str, kind: &str, extract: &Extract, format: Format) -> String {
        let mut numbers = Vec::new();
        for cell in self.records.iter().filter(|r| r.measure == measure && r.kind == kind) {
            match cell.result.as_ref().and_then(extract) {
                Some(Cell::Number(v)) => numbers.push(v),
                Some(Cell::Refused(text)) => return text,
                None => {}
            }
        }
        median_f64(&mut numbers).map_or_else(|| String::from("n/a"), |v| format.write(v))
    }

    fn row(&mut self, label: &str, measure: &str, extract: &Extract, format: Format, target: &str, check: Check) {
        let ours = self.value(measure, "ours", extract, format);
        let floor = self.value(measure, "floor", extract, format);
        let peer = if self.has_peer { self.value(measure, "peer", extract, format) } else { String::from("skipped") };
        let java: Vec<String> = self.java.iter().map(|(kind, _)| self.value(measure, kind, extract, format)).collect();
        let ratio = |other: &str, kind: &str| {
            (shown(&ours).is_some() && shown(other).is_some()).then(|| self.run_ratio(measure, kind, extract)).flatten()
        };
        let ratios = Ratios {
            peer: ratio(&peer, "peer"),
            floor: ratio(&floor, "floor"),
            java: java.iter().zip(&self.java).map(|(value, (kind, _))| ratio(value, kind)).collect(),
        };
        self.cells(label, [ours, peer, floor], &java, ratios, target, check);
    }

    /// The median over the repetitions of ours / `kind`, the n-th run of ours against the
    /// n-th of `kind` (bench.sh runs the kinds of one repetition side by side, so a host that
    /// slows through a run moves both halves of a pair, not one median). A pair with a run
    /// that has no number is left out.
    fn run_ratio(&self, measure: &str, kind: &str, extract: &Extract) -> Option<String> {
        let runs = |kind: &str| -> Vec<Option<f64>> {
            let runs = self.records.iter().filter(|r| r.measure == measure && r.kind == kind);
            runs.map(|r| match r.result.as_ref().and_then(extract) {
                Some(Cell::Number(v)) => Some(v),
                _ => None,
            })
            .collect()
        };
        let mut ratios: Vec<f64> = runs("ours")
            .into_iter()
            .zip(runs(kind))
            .filter_map(|pair| match pair {
                (Some(a), Some(b)) if b != 0.0 => Some(a / b),
                _ => None,
            })
            .collect();
        median_f64(&mut ratios).map(|v| Format::Decimals(2).write(v))
    }

    /// The median over the repetitions against `kind` of `top`'s `key` over `bottom`'s, run
    /// by run (bench.sh alternates the two measures, so each pair ran side by side). A pair
    /// with a failed run is left out, and the pairs after it stay as they ran.
    fn paired(&self, top: &str, bottom: &str, kind: &str, key: &str) -> String {
        let (mut pending_top, mut pending_bottom) = (None, None);
        let mut ratios = Vec::new();
        for record in self.records.iter().filter(|r| r.kind == kind) {
            let value = record.result.as_ref().and_then(|result| result.number(key));
            match record.measure.as_str() {
                m if m == top => pending_top = Some(value),
                m if m == bottom => pending_bottom = Some(value),
                _ => continue,
            }
            if let (Some(a), Some(b)) = (pending_top, pending_bottom) {
                if let (Some(a), Some(b)) = (a, b)
                    && b != 0.0
                {
                    ratios.push(a / b);
                }
                (pending_top, pending_bottom) = (None, None);
            }
        }
        median_f64(&mut ratios).map_or_else(|| String::from("n/a"), |v| Format::Decimals(2).write(v))
    }

    /// A row of [`Self::paired`] ratios, one per server kind.
    fn paired_row(&mut self, label: &str, (top, bottom): (&str, &str), key: &str, target: &str, check: Check) {
        let ours = self.paired(top, bottom, "ours", key);
        let floor = self.paired(top, bottom, "floor", key);
        let peer = if self.has_peer { self.paired(top, bottom, "peer", key) } else { String::from("skipped") };
        let java: Vec<String> = self.java.iter().map(|(kind, _)| self.paired(top, bottom, kind, key)).collect();
        let ratios = Ratios::of_shown(&ours, [&peer, &floor], &java);
        self.cells(label, [ours, peer, floor], &java, ratios, target, check);
    }

    fn criterion_row(&mut self, label: &str, id: &str, unit_ns: f64, target: &str, check: Check) {
        let median = self.options.criterion.as_ref().and_then(|c| c.get(id)).copied();
        let ours = median.map_or_else(|| String::from("n/a"), |ns| Format::Significant4.write(ns / unit_ns));
        let java = vec![String::from("n/a"); self.java.len()];
        let ratios = Ratios { peer: None, floor: None, java: vec![None; java.len()] };
        self.cells(label, [ours, String::from("n/a"), String::from("n/a")], &java, ratios, target, check);
    }

    /// One row: ours, peer, floor, then each Java column; the ratios in the same order.
    fn cells(
        &mut self,
        label: &str,
        [ours, peer, floor]: [String; 3],
        java: &[String],
        ratios: Ratios,
        target: &str,
        check: Check,
    ) {
        let Ratios { peer: to_peer, floor: to_floor, java: to_java } = ratios;
        let status = |ok: Option<bool>| match ok {
            None => "-",
            Some(true) => "met",
            Some(false) => "MISSED",
        };
        let status = if self.options.smoke {
            "- (smoke)"
        } else {
            status(match check {
                Check::None => None,
                Check::FloorAtLeast(x) => to_floor.as_deref().and_then(shown).map(|r| r >= x),
                Check::PeerAtMost(x) => to_peer.as_deref().and_then(shown).map(|r| r <= x),
                Check::Min(x) => shown(&ours).map(|v| v >= x),
                Check::Max(x) => shown(&ours).map(|v| v <= x),
            })
        };
        let na = || String::from("n/a");
        let (mut values, mut ratios) = (String::new(), String::new());
        for (value, ratio) in java.iter().zip(to_java) {
            let _ = write!(values, " {value} |");
            let _ = write!(ratios, " {} |", ratio.unwrap_or_else(na));
        }
        let _ = writeln!(
            self.out,
            "| {label} | {ours} | {peer} | {floor} |{values} {} | {} |{ratios} {target} | {status} |",
            to_peer.unwrap_or_else(na),
            to_floor.unwrap_or_else(na)
        );
    }

    fn header(&mut self) {
        let (mut names, mut ratios, mut align) = (String::new(), String::new(), String::new());
        for (_, name) in &self.java {
            let _ = write!(names, " {name} |");
            let _ = write!(ratios, " ours/{name} |");
            align.push_str("---:|---:|");
        }
        let _ = writeln!(
            self.out,
            "| measure | ours | peer | floor |{names} ours/peer | ours/floor |{ratios} target | status |"
        );
        let _ = writeln!(self.out, "|---|---:|---:|---:|{align}---:|---:|---|---|");
    }

    fn main_table(&mut self) {
        let (us, ms, qps, mib1) = (Format::Decimals(1), Format::Decimals(3), Format::Decimals(0), Format::Decimals(1));
        let route = |k| self.param("route", k);
        let route_label = format!(
            "route QPS, {}x{}, {} topics, {} brokers",
            route("conns"),
            route("depth"),
            route("topics"),
            route("brokers")
        );
        let (mem_b, mem_t) = (self.param("hold", "brokers"), self.param("hold", "topics"));
        let big = self.param("register-one", "topics");
        let (storm_b, storm_t) = (self.param("storm-json", "brokers"), self.param("storm-json", "topics"));
        let starts = self.param("startup", "reps");
        self.header();
        self.row(&route_label, "route", &*number("qps"), qps, "≥ 0.7 × floor", Check::FloorAtLeast(0.7));
        self.row("route p99 (µs), same load", "route", &*number("p99_us"), us, "≤ ⅓ × peer", Check::PeerAtMost(0.3334));
        self.row("route p50 (µs), same load", "route", &*number("p50_us"), us, "", Check::None);
        self.warmup_rows();
        self.row("ping-pong p50 (µs), 1 connection", "pingpong", &*number("p50_us"), us, "", Check::None);
        self.row("ping-pong p99 (µs), 1 connection", "pingpong", &*number("p99_us"), us, "", Check::None);
        self.row("RSS idle (MiB)", "hold", &*mib("rss_before_kib"), mib1, "", Check::None);
        let loaded = format!("RSS after {mem_b} brokers × {mem_t} topics (MiB)");
        self.row(&loaded, "hold", &*mib("rss_loaded_kib"), mib1, "≤ ½ × peer", Check::PeerAtMost(0.5));
        let alike = "RSS, same, every route asked for once (MiB)";
        self.row(alike, "hold-queried-alike", &*mib("rss_loaded_kib"), mib1, "", Check::None);
        let distinct = "RSS, same but every topic's queues different, every route asked for once (MiB)";
        self.row(distinct, "hold-queried-distinct", &*mib("rss_loaded_kib"), mib1, "", Check::None);
        let register = format!("time to register {mem_b} × {mem_t}, 64 at a time (ms)");
        self.row(&register, "hold", &*number("register_all_ms"), ms, "", Check::None);
        let alike = "same, all routes alike (ms)";
        self.row(alike, "hold-queried-alike", &*number("register_all_ms"), ms, "", Check::None);
        let distinct = "same, every route different (ms)";
        self.row(distinct, "hold-queried-distinct", &*number("register_all_ms"), ms, "", Check::None);
        let pairs = ("hold-queried-distinct", "hold-queried-alike");
        let ratio = "every route different / alike, time to register (median of paired runs)";
        self.paired_row(ratio, pairs, "register_all_ms", "≤ 1.2", Check::Max(1.2));
        let one = format!("one {big}-topic registration, fresh server (ms)");
        self.row(&one, "register-one", &*number("first_ms"), ms, "≤ ⅓ × peer", Check::PeerAtMost(0.3334));
        for body in ["JSON", "compressed"] {
            let label = format!("storm {storm_b} × {storm_t} {body}, wall (ms)");
            let measure = format!("storm-{}", body.to_lowercase());
            self.row(&label, &measure, &*unless_refused("wall_ms"), ms, "", Check::None);
        }
        let listening = format!("exec → listening, median of {starts} (ms)");
        self.row(&listening, "startup", &*number("listening_median_ms"), ms, "≤ 10 ms", Check::Max(10.0));
        let reply = format!("exec → first reply, median of {starts} (ms)");
        self.row(&reply, "startup", &*number("first_reply_median_ms"), ms, "", Check::None);
        if self.options.criterion.is_some() {
            let (in_ms, in_us) = (1e6, 1e3);
            self.criterion_row(
                "scan, 10,000 live brokers (ms, criterion)",
                "scan/all-alive/10000",
                in_ms,
                "",
                Check::None,
            );
            let expire = "scan, 10,000 brokers all expiring (ms, criterion)";
            self.criterion_row(expire, "scan/all-expire/10000", in_ms, "", Check::None);
            let register = "register 1,000 topics via NameServer::handle (ms, criterion)";
            self.criterion_row(register, "register/new-broker/1000", in_ms, "", Check::None);
            let decode = "decode a real route query (µs, criterion)";
            self.criterion_row(decode, "decode/105-rocketmq-rust", in_us, "", Check::None);
            self.criterion_row("encode a reply header (µs, criterion)", "encode/reply-header", in_us, "", Check::None);
            let body = "route body, 4 brokers, standard JSON (µs, criterion)";
            self.criterion_row(body, "route-body/to_json-standard/4", in_us, "", Check::None);
            let sim = "one simulated hour of S1 (ms, criterion)";
            self.criterion_row(sim, "sim/S1-one-hour", in_ms, "≤ 50 ms", Check::Max(50.0));
        }
    }

    /// The route load's warm-up, measured on its own (a JIT compiles during it): rows only when
    /// the run kept it (`warmup_qps`), labelled with each kind's warm-up length.
    fn warmup_rows(&mut self) {
        let length = |kind: &str| {
            let r = self.records.iter().find(|r| r.measure == "route" && r.kind == kind)?;
            r.result.as_ref()?.get("warmup_ms").map(str::to_owned)
        };
        let mut lengths = Vec::new();
        if let Some(ms) = length("ours") {
            lengths.push(format!("{ms} ms"));
        }
        if let Some(ms) = length("java").or_else(|| length("java-g1")) {
            lengths.push(format!("Java: {ms} ms"));
        }
        if !self
            .records
            .iter()
            .any(|r| r.measure == "route" && r.result.as_ref().is_some_and(|m| m.get("warmup_qps").is_some()))
        {
            return;
        }
        let lengths = lengths.join("; ");
        let (us, qps) = (Format::Decimals(1), Format::Decimals(0));
        let label = format!("route QPS during the warm-up ({lengths})");
        self.row(&label, "route", &*number("warmup_qps"), qps, "", Check::None);
        let label = format!("route p99 (µs) during the warm-up ({lengths})");
        self.row(&label, "route", &*number("warmup_p99_us"), us, "", Check::None);
    }

    fn large_table(&mut self) {
        let (us, ms, qps, mib1) = (Format::Decimals(1), Format::Decimals(3), Format::Decimals(0), Format::Decimals(1));
        let (brokers, topics) = (self.param("cold", "brokers"), self.param("cold", "topics"));
        let phase = self.param("cold", "phase_ms");
        let big = self.param("register-one-large", "topics");
        let huge = self.param("register-huge", "topics");
        let _ = write!(
            self.out,
            "\nLarge cluster: {brokers} brokers × {topics} topics; the route load through the registrations: median of \
             its runs, the rest one run each; the floor answers a route-sized body for {brokers} brokers.\n\n"
        );
        self.header();
        let rss = format!("RSS after {brokers} × {topics} registered (MiB)");
        self.row(&rss, "hold-large", &*mib("rss_loaded_kib"), mib1, "≤ 150 MiB", Check::Max(150.0));
        let info = "time to register them all, 64 at a time, logging at INFO (ms)";
        self.row(info, "register-large-info", &*number("register_all_ms"), ms, "", Check::None);
        let warn = "same, logging at WARN (ms)";
        self.row(warn, "register-large-warn", &*number("register_all_ms"), ms, "", Check::None);
        let pairs = ("register-large-info", "register-large-warn");
        let ratio = "INFO / WARN, time to register (median of paired runs)";
        self.paired_row(ratio, pairs, "register_all_ms", "≤ 1.2", Check::Max(1.2));
        let all = "time to register them all, route load running (ms)";
        self.row(all, "cold", &*number("register_all_ms"), ms, "", Check::None);
        let slowest = "slowest route reply during the registrations (µs)";
        self.row(slowest, "cold", &*number("storm_max_us"), us, "≤ 50 ms", Check::Max(50_000.0));
        self.row("route p99 (µs) during the registrations", "cold", &*number("storm_p99_us"), us, "", Check::None);
        let cold = format!("route QPS, first {phase} ms after (cold), SUCCESS only");
        self.row(&cold, "cold", &*number("cold_ok_qps"), qps, "", Check::None);
        self.row("route p99 (µs), cold", "cold", &*number("cold_p99_us"), us, "≤ 5 ms", Check::Max(5000.0));
        self.row("slowest route reply, cold (µs)", "cold", &*number("cold_max_us"), us, "", Check::None);
        let warm = format!("route QPS, the next {phase} ms (warm)");
        self.row(&warm, "cold", &*number("warm_ok_qps"), qps, "", Check::None);
        self.row("route p99 (µs), warm", "cold", &*number("warm_p99_us"), us, "", Check::None);
        let cold_to_warm: Box<Extract> = Box::new(|m| match (m.number("cold_ok_qps"), m.number("warm_ok_qps")) {
            (Some(c), Some(w)) if w != 0.0 => Some(Cell::Number(c / w)),
            _ => None,
        });
        self.row("cold QPS / warm QPS", "cold", &*cold_to_warm, Format::Decimals(2), "≥ 0.5", Check::Min(0.5));
        let one = format!("one {big}-topic registration, fresh server (ms)");
        self.row(&one, "register-one-large", &*number("first_ms"), ms, "≤ ⅓ × peer", Check::PeerAtMost(0.3334));
        let huge_label = format!("one {huge}-topic registration, compressed (ms)");
        self.row(&huge_label, "register-huge", &*unless_refused("first_ms"), ms, "≤ 1500 ms", Check::Max(1500.0));
        let after: Box<Extract> = Box::new(|m| match m.number("errors") {
            Some(0.0) => m.number("rss_after_kib").map(|kib| Cell::Number(kib / 1024.0)),
            _ => None,
        });
        self.row("RSS after it (MiB)", "register-huge", &*after, mib1, "≤ 500 MiB", Check::Max(500.0));
    }
}

/// The Markdown tables: the main one when the run measured route load, then the large
/// cluster's (unless the run measured the controller alone), then the embedded controller's
/// when the run measured it. The peer's column reads `skipped` when the run had no peer.
#[must_use]
pub fn tables(records: &[Record], options: &Options) -> String {
    let has_peer = records.iter().any(|r| r.kind == "peer");
    let java = JAVA_KINDS.into_iter().filter(|(kind, _)| records.iter().any(|r| r.kind == *kind)).collect();
    let mut tables = Tables { records, options, has_peer, java, out: String::new() };
    if records.iter().any(|r| r.measure == "route") {
        tables.main_table();
    }
    if records.iter().any(|r| !r.measure.starts_with(controller::MEASURE_PREFIX)) {
        tables.large_table();
    }
    if records.iter().any(|r| r.measure.starts_with(controller::MEASURE_PREFIX)) {
        tables.controller_table();
    }
    tables.out
}

/// Criterion's median estimates (nanoseconds) under a `target/criterion` directory, by id
/// (`group/function/parameter`); benchmarks without `new/estimates.json` are left out.
///
/// # Errors
/// A directory cannot be listed, or an estimates file cannot be read or has no median.
pub fn criterion_medians(dir: &std::path::Path) -> std::io::Result<BTreeMap<String, f64>> {
    let mut medians = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(path) = pending.pop() {
        let estimates = path.join("new/estimates.json");
        if estimates.is_file() {
            let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&estimates)?)?;
            let median = json["median"]["point_estimate"]
                .as_f64()
                .ok_or_else(|| std::io::Error::other(format!("{}: no median.point_estimate", estimates.display())))?;
            let id = path.strip_prefix(dir).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            medians.insert(id, median);
            continue;
        }
        for entry in std::fs::read_dir(&path)? {
            let entry = entry?;
            if entry.file_type()?.is_dir() && entry.file_name() != "report" {
                pending.push(entry.path());
            }
        }
    }
    Ok(medians)
}

#[cfg(test)]
mod tests;
