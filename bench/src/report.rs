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
mod tests {
    use super::*;

    /// Lines of a full run on 2026-12-01 (route, memory, storms, start-up, large cluster).
    const FULL_RUN: &str = include_str!("../tests/fixtures/raw-full-run.txt");

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
        let records: Vec<Record> =
            parse_raw(raw).unwrap().into_iter().filter(|r| !r.kind.starts_with("java")).collect();
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
}
