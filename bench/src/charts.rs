//! The charts of a bench run, as SVG text written here (no plotting library, so the same raw
//! file always gives the same bytes): latency by percentile of each server kind, from the HDR
//! histograms the route and ping-pong lines keep (`hist=`, every run of a kind merged), and
//! the large cluster's timeline of each kind (registrations answered, route QPS per 100 ms,
//! p99 per second; the registration, cold and warm phases shaded), from the `cold` line whose
//! registration time is the median of its runs.

use std::fmt::Write as _;

use crate::measurement::Measurement;
use crate::report::Record;
use crate::stats::Latencies;

/// Server kinds in the order their curves are drawn and listed; others follow by name.
const KINDS: [&str; 5] = ["ours", "java", "java-g1", "peer", "floor"];

/// A kind's colour and its name in a legend.
fn style(kind: &str) -> (&'static str, String) {
    match kind {
        "ours" => ("#1f77b4", String::from("ours")),
        "java" => ("#d62728", String::from("Java 5.5.0, small heap")),
        "java-g1" => ("#9467bd", String::from("Java 5.5.0, 4 GiB G1")),
        "peer" => ("#ff7f0e", String::from("rocketmq-rust")),
        "floor" => ("#7f7f7f", String::from("floor")),
        other => ("#2ca02c", other.to_owned()),
    }
}

/// One chart: its file name and its SVG text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chart {
    /// `route-latency.svg`, `timeline-ours.svg`, …
    pub file: String,
    /// The SVG document.
    pub svg: String,
}

/// Every chart the records have data for.
///
/// # Errors
/// A `hist=` field that is not a histogram, or a timeline field that is not a list of numbers.
pub fn charts(records: &[Record]) -> Result<Vec<Chart>, String> {
    let mut charts = Vec::new();
    for (measure, file, what) in
        [("route", "route-latency.svg", "Route queries"), ("pingpong", "pingpong-latency.svg", "Ping-pong")]
    {
        if let Some(svg) = percentile_chart(records, measure, what)? {
            charts.push(Chart { file: file.to_owned(), svg });
        }
    }
    for kind in kinds(records) {
        if let Some(svg) = timeline_chart(records, &kind)? {
            charts.push(Chart { file: format!("timeline-{kind}.svg"), svg });
        }
    }
    Ok(charts)
}

/// The kinds in the records: [`KINDS`] first, in that order, then the rest by name.
fn kinds(records: &[Record]) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for r in records {
        if !seen.contains(&r.kind) {
            seen.push(r.kind.clone());
        }
    }
    let rank = |k: &String| KINDS.iter().position(|x| x == k).unwrap_or(KINDS.len());
    seen.sort_by(|a, b| rank(a).cmp(&rank(b)).then_with(|| a.cmp(b)));
    seen
}

const WIDTH: f64 = 760.0;
const FONT: &str = "font-family=\"DejaVu Sans, Arial, sans-serif\"";

/// A plotting area: where it sits in the document and the ranges it shows.
#[derive(Clone, Copy, Debug)]
struct Area {
    left: f64,
    top: f64,
    width: f64,
    height: f64,
    x: (f64, f64),
    /// log10 of the range when `log_y`.
    y: (f64, f64),
    log_y: bool,
}

impl Area {
    fn px(&self, x: f64) -> f64 {
        self.left + (x - self.x.0) / (self.x.1 - self.x.0) * self.width
    }

    fn py(&self, y: f64) -> f64 {
        let v = if self.log_y { y.max(1e-9).log10() } else { y };
        let t = ((v - self.y.0) / (self.y.1 - self.y.0)).clamp(0.0, 1.0);
        self.top + self.height - t * self.height
    }

    /// Frame, horizontal grid lines and their labels.
    fn frame(&self, out: &mut String, y_ticks: &[(f64, String)]) {
        for (v, label) in y_ticks {
            let y = self.py(*v);
            let _ = writeln!(
                out,
                r##"<line x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#dddddd"/><text x="{:.1}" y="{:.1}" text-anchor="end" font-size="11">{}</text>"##,
                self.left,
                self.left + self.width,
                self.left - 6.0,
                y + 4.0,
                escape(label)
            );
        }
        let _ = writeln!(
            out,
            r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="none" stroke="#444444"/>"##,
            self.left, self.top, self.width, self.height
        );
    }

    /// Vertical grid lines with labels under the area.
    fn x_ticks(&self, out: &mut String, ticks: &[(f64, String)], labelled: bool) {
        for (v, label) in ticks {
            let x = self.px(*v);
            let _ = write!(
                out,
                r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#dddddd"/>"##,
                self.top,
                self.top + self.height
            );
            if labelled {
                let _ = write!(
                    out,
                    r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle" font-size="11">{}</text>"#,
                    self.top + self.height + 15.0,
                    escape(label)
                );
            }
            out.push('\n');
        }
    }

    /// A small circle at each point (a series of one point draws no line).
    fn dots(&self, out: &mut String, points: &[(f64, f64)], colour: &str) {
        for (x, y) in points {
            let _ =
                writeln!(out, r#"<circle cx="{:.1}" cy="{:.1}" r="2.5" fill="{colour}"/>"#, self.px(*x), self.py(*y));
        }
    }

    fn polyline(&self, out: &mut String, points: &[(f64, f64)], colour: &str) {
        if points.is_empty() {
            return;
        }
        let mut d = String::new();
        for (x, y) in points {
            let _ = write!(d, "{}{:.1},{:.1}", if d.is_empty() { "" } else { " " }, self.px(*x), self.py(*y));
        }
        let _ = writeln!(out, r#"<polyline points="{d}" fill="none" stroke="{colour}" stroke-width="1.6"/>"#);
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

fn document(height: f64, title: &str, subtitle: &str, body: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {WIDTH:.0} {height:.0}\" {FONT}>\n\
         <rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n\
         <text x=\"{x:.1}\" y=\"20\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">{}</text>\n\
         <text x=\"{x:.1}\" y=\"37\" text-anchor=\"middle\" font-size=\"12\">{}</text>\n{body}</svg>\n",
        escape(title),
        escape(subtitle),
        x = WIDTH / 2.0,
    )
}

/// A latency in µs as people read it: `850 µs`, `1.2 ms`, `3 s`.
fn duration_label(us: f64) -> String {
    if us >= 1e6 {
        format!("{} s", trim(us / 1e6))
    } else if us >= 1e3 {
        format!("{} ms", trim(us / 1e3))
    } else {
        format!("{} µs", trim(us))
    }
}

/// Grid values 1, 2, 5 × 10^k within the decades `lo..=hi` (log10).
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mut ticks = Vec::new();
    for decade in lo.floor() as i32..=hi.ceil() as i32 {
        for m in [1.0, 2.0, 5.0] {
            let v = m * 10f64.powi(decade);
            let l = v.log10();
            if l >= lo - 1e-9 && l <= hi + 1e-9 {
                ticks.push(v);
            }
        }
    }
    ticks
}

/// The log10 range of `values`, widened to whole decades.
fn decades(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::MAX, f64::MIN);
    for v in values.filter(|v| *v > 0.0) {
        lo = lo.min(v.log10());
        hi = hi.max(v.log10());
    }
    if lo > hi {
        return (0.0, 1.0);
    }
    let (lo, hi) = (lo.floor(), hi.ceil());
    if hi > lo { (lo, hi) } else { (lo, lo + 1.0) }
}

fn legend(out: &mut String, left: f64, top: f64, entries: &[(String, String)]) {
    for (i, (colour, text)) in entries.iter().enumerate() {
        let y = top + 16.0 * i as f64;
        let _ = writeln!(
            out,
            r#"<line x1="{left:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{colour}" stroke-width="3"/><text x="{:.1}" y="{:.1}" font-size="12">{}</text>"#,
            left + 22.0,
            left + 28.0,
            y + 4.0,
            escape(text)
        );
    }
}

fn percentile_chart(records: &[Record], measure: &str, what: &str) -> Result<Option<String>, String> {
    let mut curves: Vec<(String, Latencies, usize)> = Vec::new();
    for kind in kinds(records) {
        let mut merged = Latencies::new();
        let mut runs = 0;
        for m in results(records, measure, &kind) {
            if let Some(text) = m.get("hist") {
                let h = Latencies::from_base64(text).map_err(|e| format!("{measure} {kind}: hist: {e}"))?;
                merged.merge(&h);
                runs += 1;
            }
        }
        if runs > 0 && merged.count() > 0 {
            curves.push((kind, merged, runs));
        }
    }
    if curves.is_empty() {
        return Ok(None);
    }
    // Each curve ends where its samples do (1 − 1/count), the axis at the longest, 99.999 % at most.
    let end = |h: &Latencies| (h.count() as f64).log10().clamp(1.0, 5.0);
    let x_max = curves.iter().map(|(_, h, _)| end(h)).fold(1.0, f64::max).ceil();
    let points: Vec<Vec<(f64, f64)>> = curves
        .iter()
        .map(|(_, h, _)| {
            let last = end(h);
            (0..=200)
                .filter_map(|i| {
                    let x = last * f64::from(i) / 200.0;
                    h.at_quantile_us(1.0 - 10f64.powf(-x)).map(|us| (x, us))
                })
                .collect()
        })
        .collect();
    let y = decades(points.iter().flatten().map(|(_, us)| *us));
    let area = Area { left: 80.0, top: 52.0, width: 640.0, height: 300.0, x: (0.0, x_max), y, log_y: true };
    let mut body = String::new();
    let y_ticks: Vec<(f64, String)> = log_ticks(y.0, y.1).into_iter().map(|v| (v, duration_label(v))).collect();
    area.frame(&mut body, &y_ticks);
    let x_ticks: Vec<(f64, String)> = ["0%", "90%", "99%", "99.9%", "99.99%", "99.999%"]
        .iter()
        .enumerate()
        .take(x_max as usize + 1)
        .map(|(k, label)| (k as f64, (*label).to_owned()))
        .collect();
    area.x_ticks(&mut body, &x_ticks, true);
    let _ = writeln!(
        body,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="12">percentile (log scale of 1 / (1 − p))</text>"#,
        area.left + area.width / 2.0,
        area.top + area.height + 34.0
    );
    let _ = writeln!(
        body,
        r#"<text x="18" y="{:.1}" text-anchor="middle" font-size="12" transform="rotate(-90 18 {:.1})">latency (log scale)</text>"#,
        area.top + area.height / 2.0,
        area.top + area.height / 2.0
    );
    let mut entries = Vec::new();
    for ((kind, h, runs), points) in curves.iter().zip(&points) {
        let (colour, name) = style(kind);
        area.polyline(&mut body, points, colour);
        let s = h.summary();
        entries.push((
            colour.to_owned(),
            format!(
                "{name}: p50 {}, p99 {}, max {} ({runs} run{}, {} replies)",
                duration_label(s.p50_us),
                duration_label(s.p99_us),
                duration_label(s.max_us),
                if *runs == 1 { "" } else { "s" },
                s.count
            ),
        ));
    }
    let legend_top = area.top + area.height + 56.0;
    legend(&mut body, area.left, legend_top, &entries);
    let first = results(records, measure, "").next().or_else(|| records.iter().find_map(|r| r.result.as_ref()));
    let param = |key: &str| first.and_then(|m| m.get(key)).unwrap_or("?").to_owned();
    let title = format!("{what}: latency by percentile");
    let subtitle = format!(
        "{} connection(s) × {} in flight, {} topics on {} brokers; every run of each server merged",
        param("conns"),
        param("depth"),
        param("topics"),
        param("brokers")
    );
    Ok(Some(document(legend_top + 16.0 * entries.len() as f64 + 8.0, &title, &subtitle, &body)))
}

/// The measurements of `measure` against `kind` (any kind when empty).
fn results<'a>(records: &'a [Record], measure: &'a str, kind: &'a str) -> impl Iterator<Item = &'a Measurement> {
    records
        .iter()
        .filter(move |r| r.measure == measure && (kind.is_empty() || r.kind == kind))
        .filter_map(|r| r.result.as_ref())
}

/// A comma-separated list of numbers (`-`: none; `nan`: a gap).
fn list(m: &Measurement, key: &str) -> Result<Vec<f64>, String> {
    match m.get(key) {
        None | Some("-") => Ok(Vec::new()),
        Some(text) => {
            text.split(',').map(|v| v.parse::<f64>().map_err(|_| format!("{key}: `{v}` is not a number"))).collect()
        }
    }
}

fn timeline_chart(records: &[Record], kind: &str) -> Result<Option<String>, String> {
    let mut runs: Vec<&Measurement> = results(records, "cold", kind)
        .filter(|m| m.get("tl_ok").is_some() && m.number("register_all_ms").is_some())
        .collect();
    if runs.is_empty() {
        return Ok(None);
    }
    runs.sort_by(|a, b| {
        a.number("register_all_ms").unwrap_or(0.0).total_cmp(&b.number("register_all_ms").unwrap_or(0.0))
    });
    let m = runs[(runs.len() - 1) / 2];
    let bucket_s = m.number("tl_bucket_ms").unwrap_or(100.0) / 1000.0;
    let registered_s: Vec<f64> = list(m, "tl_registered_ms")?.into_iter().map(|ms| ms / 1000.0).collect();
    let storm_end = m.number("register_all_ms").unwrap_or(0.0) / 1000.0;
    let phase = m.number("phase_ms").unwrap_or(0.0) / 1000.0;
    let end = (storm_end + 2.0 * phase).max(bucket_s);
    // Whole buckets only: the last one, cut by the end of the load, would read as a drop.
    let qps: Vec<(f64, f64)> = list(m, "tl_ok")?
        .iter()
        .enumerate()
        .map(|(i, n)| (i as f64 * bucket_s, n / bucket_s))
        .filter(|(t, _)| t + bucket_s <= end + 1e-9)
        .map(|(t, v)| (t + bucket_s / 2.0, v))
        .collect();
    // A second cut by the end is drawn at the middle of what it covers (its p99 is one still).
    let p99: Vec<(f64, f64)> = list(m, "tl_p99_us")?
        .iter()
        .enumerate()
        .filter(|(i, v)| v.is_finite() && (*i as f64) < end)
        .map(|(i, v)| ((i as f64 + (i as f64 + 1.0).min(end)) / 2.0, *v))
        .collect();
    let brokers = m.number("brokers").unwrap_or(registered_s.len() as f64).max(1.0);
    let (count_ticks, count_max) = linear_ticks(brokers, &|v| format!("{v:.0}"));
    let rate = |v: f64| if v >= 1000.0 { format!("{} k", trim(v / 1000.0)) } else { format!("{v:.0}") };
    let (qps_ticks, qps_max) = linear_ticks(qps.iter().map(|(_, v)| *v).fold(1.0, f64::max), &rate);
    let p99_range = decades(p99.iter().map(|(_, v)| *v));
    let p99_ticks: Vec<(f64, String)> =
        log_ticks(p99_range.0, p99_range.1).into_iter().map(|v| (v, duration_label(v))).collect();
    let panel = |i: usize, y: (f64, f64), log_y: bool| Area {
        left: 80.0,
        top: 66.0 + 150.0 * i as f64,
        width: 640.0,
        height: 120.0,
        x: (0.0, end),
        y,
        log_y,
    };
    let areas = [panel(0, (0.0, count_max), false), panel(1, (0.0, qps_max), false), panel(2, p99_range, true)];
    let mut body = String::new();
    // The phases, shaded in each panel; named in the last when there is room.
    let bottom = areas[2].top + areas[2].height;
    let phases = [
        (0.0, storm_end, "#fde7d3", "registering"),
        (storm_end, storm_end + phase, "#d6e6f5", "cold"),
        (storm_end + phase, storm_end + 2.0 * phase, "#dcefd6", "warm"),
    ];
    for (from, to, colour, label) in phases {
        let (x0, x1) = (areas[0].px(from), areas[0].px(to.min(end)));
        if x1 <= x0 {
            continue;
        }
        for area in &areas {
            let _ = writeln!(
                body,
                r#"<rect x="{x0:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{colour}"/>"#,
                area.top,
                x1 - x0,
                area.height
            );
        }
        if x1 - x0 >= 70.0 {
            let _ = writeln!(
                body,
                r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="11" fill="#555555">{label}</text>"##,
                (x0 + x1) / 2.0,
                bottom - 6.0
            );
        }
    }
    let step = nice_ceiling(end / 8.0);
    // As many decimals as the step has (0.05 s steps: two).
    let decimals = if step >= 1.0 { 0 } else { (-step.log10().floor()) as usize };
    let time_ticks: Vec<(f64, String)> = (0..)
        .map(|i| f64::from(i) * step)
        .take_while(|t| *t <= end + 1e-9)
        .map(|t| (t, format!("{t:.decimals$} s")))
        .collect();
    let titles = [
        format!("registrations answered (of {brokers:.0})"),
        format!("route QPS (SUCCESS replies per {:.0} ms, as a rate)", bucket_s * 1000.0),
        String::from("route p99 of each second's requests (log scale)"),
    ];
    for (i, ((area, ticks), title)) in areas.iter().zip([count_ticks, qps_ticks, p99_ticks]).zip(&titles).enumerate() {
        area.frame(&mut body, &ticks);
        area.x_ticks(&mut body, &time_ticks, i == areas.len() - 1);
        let _ = writeln!(
            body,
            r#"<text x="{:.1}" y="{:.1}" font-size="12" font-weight="bold">{}</text>"#,
            area.left,
            area.top - 6.0,
            escape(title)
        );
    }
    let (colour, name) = style(kind);
    // Registrations answered: a step line from 0.
    let mut steps = vec![(0.0, 0.0)];
    for (i, t) in registered_s.iter().enumerate() {
        steps.push((*t, i as f64));
        steps.push((*t, i as f64 + 1.0));
    }
    steps.push((end, registered_s.len() as f64));
    areas[0].polyline(&mut body, &steps, colour);
    areas[1].polyline(&mut body, &qps, colour);
    areas[2].polyline(&mut body, &p99, colour);
    areas[2].dots(&mut body, &p99, colour);
    let _ = writeln!(
        body,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="12">seconds since the brokers started registering</text>"#,
        areas[2].left + areas[2].width / 2.0,
        bottom + 34.0
    );
    let key = [
        (
            phases[0].2,
            format!("registering: {}, until the last registration was answered", duration_label(storm_end * 1e6)),
        ),
        (phases[1].2, format!("cold: the first {} s after it", trim(phase))),
        (phases[2].2, format!("warm: the next {} s", trim(phase))),
    ];
    for (i, (fill, text)) in key.iter().enumerate() {
        let y = bottom + 52.0 + 16.0 * i as f64;
        let _ = writeln!(
            body,
            r##"<rect x="{:.1}" y="{:.1}" width="22" height="10" fill="{fill}" stroke="#999999"/><text x="{:.1}" y="{:.1}" font-size="12">{}</text>"##,
            areas[2].left,
            y - 5.0,
            areas[2].left + 28.0,
            y + 4.0,
            escape(text)
        );
    }
    let title = format!("Large cluster over time: {name}");
    let subtitle = format!(
        "{} brokers × {} topics registering under {} × {} route load; the median of {} run{} by registration time",
        m.get("brokers").unwrap_or("?"),
        m.get("topics").unwrap_or("?"),
        m.get("conns").unwrap_or("?"),
        m.get("depth").unwrap_or("?"),
        runs.len(),
        if runs.len() == 1 { "" } else { "s" }
    );
    Ok(Some(document(bottom + 52.0 + 16.0 * 3.0, &title, &subtitle, &body)))
}

/// Ticks 0, step, 2 × step, … (step 1, 2 or 5 × 10^k, about five of them) up to the first at
/// or above `max`, which is returned as the axis' top.
fn linear_ticks(max: f64, label: &dyn Fn(f64) -> String) -> (Vec<(f64, String)>, f64) {
    let step = nice_ceiling(max / 5.0);
    let n = (max / step - 1e-9).ceil().max(1.0) as i32;
    ((0..=n).map(|i| f64::from(i) * step).map(|v| (v, label(v))).collect(), f64::from(n) * step)
}

/// `v` with one decimal, `.0` dropped.
fn trim(v: f64) -> String {
    let text = format!("{v:.1}");
    text.strip_suffix(".0").map_or(text.clone(), str::to_owned)
}

/// The smallest 1, 2 or 5 × 10^k at or above `v` (> 0).
fn nice_ceiling(v: f64) -> f64 {
    let base = 10f64.powf(v.max(1e-9).log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * base).find(|c| *c >= v - 1e-9).unwrap_or(10.0 * base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_ticks() {
        assert_eq!(duration_label(850.0), "850 µs");
        assert_eq!(duration_label(1250.0), "1.2 ms");
        assert_eq!(duration_label(3_000_000.0), "3 s");
        assert_eq!(log_ticks(2.0, 3.0), [100.0, 200.0, 500.0, 1000.0]);
        assert_eq!(decades([150.0, 4000.0].into_iter()), (2.0, 4.0));
        assert_eq!(nice_ceiling(0.7), 1.0);
        assert_eq!(nice_ceiling(1300.0), 2000.0);
        assert_eq!(nice_ceiling(5.0), 5.0);
        let (ticks, top) = linear_ticks(3.0, &|v| format!("{v:.0}"));
        assert_eq!((ticks.len(), top), (4, 3.0));
        let (ticks, top) = linear_ticks(163_000.0, &|v| format!("{v:.0}"));
        assert_eq!((ticks.len(), top, ticks[1].0), (5, 200_000.0, 50_000.0));
        assert_eq!((trim(0.30000000000000004), trim(2.0)), (String::from("0.3"), String::from("2")));
    }
}
