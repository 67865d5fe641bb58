//! Latency histograms (HDR, nanoseconds, 3 significant digits) and their one-line summaries.

use std::fmt;
use std::time::Duration;

use base64::Engine as _;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer as _, V2DeflateSerializer};

/// Latencies up to a minute, recorded in nanoseconds.
#[derive(Clone, Debug)]
pub struct Latencies(Histogram<u64>);

impl Default for Latencies {
    fn default() -> Self {
        Self::new()
    }
}

impl Latencies {
    /// An empty histogram.
    ///
    /// # Panics
    /// Never: the bounds are constants.
    #[must_use]
    pub fn new() -> Self {
        Self(Histogram::new_with_bounds(1, 60_000_000_000, 3).expect("valid bounds"))
    }

    /// Records one latency (saturating at a minute).
    pub fn record(&mut self, latency: Duration) {
        let ns = u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX).clamp(1, 60_000_000_000);
        self.0.saturating_record(ns);
    }

    /// Adds every sample of `other`.
    pub fn merge(&mut self, other: &Self) {
        // Both have the same bounds, so this cannot fail.
        let _ = self.0.add(&other.0);
    }

    /// How many samples.
    #[must_use]
    pub fn count(&self) -> u64 {
        self.0.len()
    }

    /// The histogram in HdrHistogram's V2 format, deflated, in standard base64 on one line
    /// (how `raw.txt` keeps each run's latencies for `loadgen report --svg`).
    ///
    /// # Panics
    /// Never: serializing into memory does not fail.
    #[must_use]
    pub fn to_base64(&self) -> String {
        let mut bytes = Vec::new();
        V2DeflateSerializer::new().serialize(&self.0, &mut bytes).expect("serializing into memory");
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    /// Reads what [`Self::to_base64`] wrote (deflated or not).
    ///
    /// # Errors
    /// Not base64, or not a V2 histogram.
    pub fn from_base64(text: &str) -> Result<Self, String> {
        let bytes = base64::engine::general_purpose::STANDARD.decode(text).map_err(|e| e.to_string())?;
        let histogram: Histogram<u64> =
            Deserializer::new().deserialize(&mut bytes.as_slice()).map_err(|e| format!("{e:?}"))?;
        let mut latencies = Self::new();
        latencies.0.add(&histogram).map_err(|e| format!("{e:?}"))?;
        Ok(latencies)
    }

    /// The latency at quantile `q` (0..=1) in microseconds, or `None` when empty.
    #[must_use]
    pub fn at_quantile_us(&self, q: f64) -> Option<f64> {
        (!self.0.is_empty()).then(|| self.0.value_at_quantile(q) as f64 / 1000.0)
    }

    /// Percentiles, mean and maximum.
    #[must_use]
    pub fn summary(&self) -> Summary {
        let us = |ns: u64| ns as f64 / 1000.0;
        if self.0.is_empty() {
            return Summary::default();
        }
        Summary {
            count: self.0.len(),
            mean_us: self.0.mean() / 1000.0,
            p50_us: us(self.0.value_at_quantile(0.50)),
            p90_us: us(self.0.value_at_quantile(0.90)),
            p99_us: us(self.0.value_at_quantile(0.99)),
            p999_us: us(self.0.value_at_quantile(0.999)),
            max_us: us(self.0.max()),
        }
    }
}

/// A latency distribution in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    /// Samples.
    pub count: u64,
    /// Mean.
    pub mean_us: f64,
    /// Median.
    pub p50_us: f64,
    /// 90th percentile.
    pub p90_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// 99.9th percentile.
    pub p999_us: f64,
    /// Largest sample.
    pub max_us: f64,
}

impl fmt::Display for Summary {
    /// `key=value` pairs, as the bench script parses them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "mean_us={:.1} p50_us={:.1} p90_us={:.1} p99_us={:.1} p999_us={:.1} max_us={:.1}",
            self.mean_us, self.p50_us, self.p90_us, self.p99_us, self.p999_us, self.max_us
        )
    }
}

/// The median of `samples` (which it sorts), or zero when there are none.
#[must_use]
pub fn median(samples: &mut [Duration]) -> Duration {
    samples.sort_unstable();
    match samples.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => samples[n / 2],
        n => (samples[n / 2 - 1] + samples[n / 2]) / 2,
    }
}

/// The median of `values` (which it sorts; mean of the middle two for an even count), or
/// `None` when there are none.
#[must_use]
pub fn median_f64(values: &mut [f64]) -> Option<f64> {
    values.sort_unstable_by(f64::total_cmp);
    match values.len() {
        0 => None,
        n if n % 2 == 1 => Some(values[n / 2]),
        n => Some((values[n / 2 - 1] + values[n / 2]) / 2.0),
    }
}

/// Milliseconds with three decimals.
#[must_use]
pub fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_histogram_survives_base64() {
        let mut h = Latencies::new();
        for us in [3, 40, 40, 500, 6000, 70_000] {
            h.record(Duration::from_micros(us));
        }
        let text = h.to_base64();
        assert!(!text.contains(char::is_whitespace), "{text}");
        let back = Latencies::from_base64(&text).unwrap();
        assert_eq!(back.summary(), h.summary());
        assert_eq!(back.at_quantile_us(0.5), h.at_quantile_us(0.5));
        assert!(Latencies::from_base64("not base64!").is_err());
        assert!(Latencies::from_base64("AAAA").is_err());
        assert_eq!(Latencies::new().at_quantile_us(0.5), None);
    }

    #[test]
    fn percentiles_and_median() {
        let mut h = Latencies::new();
        for us in 1..=1000 {
            h.record(Duration::from_micros(us));
        }
        let s = h.summary();
        assert_eq!(s.count, 1000);
        assert!((s.p50_us - 500.0).abs() < 1.0, "{s}");
        assert!((s.p99_us - 990.0).abs() < 2.0, "{s}");
        let mut samples = [3, 1, 2, 4].map(Duration::from_millis);
        assert_eq!(median(&mut samples), Duration::from_micros(2500));
        assert_eq!(median_f64(&mut [5.0, 1.0, 3.0]), Some(3.0));
        assert_eq!(median_f64(&mut [4.0, 1.0]), Some(2.5));
        assert_eq!(median_f64(&mut []), None);
    }
}
