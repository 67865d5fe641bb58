//! A route load over time, for the large-cluster chart: SUCCESS replies per 100 ms (by when
//! they arrived) and the p99 of each second (by when the request was sent), counted from the
//! start of the load.

use std::time::Duration;

use hdrhistogram::Histogram;

/// Width of a reply-count bucket.
pub const BUCKET: Duration = Duration::from_millis(100);

/// Per-second histograms are coarse (2 significant digits from 1 µs): 32 connections keep one
/// per second each, so the full precision (220 KB each) would take hundreds of MB.
fn second_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1000, 60_000_000_000, 2).expect("valid bounds")
}

/// What a route load did over time.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    /// SUCCESS replies that arrived in each 100 ms.
    ok: Vec<u64>,
    /// Latencies (ns) of the requests sent in each second.
    seconds: Vec<Histogram<u64>>,
}

impl Timeline {
    /// Records one reply: `sent` and `arrived` since the start of the load.
    pub fn record(&mut self, sent: Duration, arrived: Duration, success: bool) {
        if success {
            let bucket = (arrived.as_millis() / BUCKET.as_millis()) as usize;
            if self.ok.len() <= bucket {
                self.ok.resize(bucket + 1, 0);
            }
            self.ok[bucket] += 1;
        }
        let second = sent.as_secs() as usize;
        while self.seconds.len() <= second {
            self.seconds.push(second_histogram());
        }
        let ns = u64::try_from((arrived.saturating_sub(sent)).as_nanos()).unwrap_or(u64::MAX);
        self.seconds[second].saturating_record(ns.clamp(1000, 60_000_000_000));
    }

    /// Adds `other`'s counts (another connection's).
    pub fn merge(&mut self, other: &Self) {
        if self.ok.len() < other.ok.len() {
            self.ok.resize(other.ok.len(), 0);
        }
        for (sum, n) in self.ok.iter_mut().zip(&other.ok) {
            *sum += n;
        }
        while self.seconds.len() < other.seconds.len() {
            self.seconds.push(second_histogram());
        }
        for (sum, h) in self.seconds.iter_mut().zip(&other.seconds) {
            // Same bounds, so this cannot fail.
            let _ = sum.add(h);
        }
    }

    /// `tl_ok=…` (SUCCESS replies per 100 ms) and `tl_p99_us=…` (per second; `nan` for a
    /// second without requests), comma-separated, for a measurement line.
    #[must_use]
    pub fn fields(&self) -> String {
        let ok: Vec<String> = self.ok.iter().map(u64::to_string).collect();
        let p99: Vec<String> = self
            .seconds
            .iter()
            .map(|h| {
                if h.is_empty() {
                    String::from("nan")
                } else {
                    format!("{:.1}", h.value_at_quantile(0.99) as f64 / 1000.0)
                }
            })
            .collect();
        format!("tl_ok={} tl_p99_us={}", or_dash(&ok), or_dash(&p99))
    }
}

/// A comma-separated list, `-` when empty (a field's value is never empty).
#[must_use]
pub fn or_dash(items: &[String]) -> String {
    if items.is_empty() { String::from("-") } else { items.join(",") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_by_arrival_and_p99_by_sending() {
        let ms = Duration::from_millis;
        let mut a = Timeline::default();
        a.record(ms(0), ms(50), true);
        a.record(ms(10), ms(250), true);
        a.record(ms(20), ms(260), false);
        let mut b = Timeline::default();
        b.record(ms(1500), ms(1502), true);
        a.merge(&b);
        // Bucket 0: one; 1: none; 2: one (the failed reply is not counted); 15: one.
        assert_eq!(a.ok.len(), 16);
        assert_eq!((a.ok[0], a.ok[1], a.ok[2], a.ok[15]), (1, 0, 1, 1));
        let fields = a.fields();
        assert!(fields.starts_with("tl_ok=1,0,1,0,"), "{fields}");
        // Second 0's p99 is its slowest of three (240 ms), second 1's its only one (2 ms), each
        // the top of its histogram bucket.
        assert!(fields.ends_with(" tl_p99_us=240123.9,2007.0"), "{fields}");
        assert_eq!(Timeline::default().fields(), "tl_ok=- tl_p99_us=-");
    }
}
