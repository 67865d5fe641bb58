//! The standard `process_*` series (the names every Prometheus client library uses), read
//! from `/proc/self` at each scrape. Elsewhere than Linux there are none.

use std::fmt;

use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric as _};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Unit;

/// One scrape's numbers.
#[derive(Debug, Default, PartialEq)]
struct Sample {
    cpu_seconds: f64,
    open_fds: i64,
    max_fds: Option<i64>,
    resident_bytes: i64,
    virtual_bytes: i64,
    start_time_seconds: f64,
    threads: i64,
}

#[cfg(target_os = "linux")]
fn sample() -> Option<Sample> {
    use procfs::process::{LimitValue, Process};
    let me = Process::myself().ok()?;
    let stat = me.stat().ok()?;
    #[allow(clippy::cast_precision_loss)]
    let ticks = procfs::ticks_per_second() as f64;
    let to_i64 = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    #[allow(clippy::cast_precision_loss)]
    let start = procfs::boot_time_secs().ok().map_or(0.0, |boot| boot as f64 + stat.starttime as f64 / ticks);
    let max_fds = me.limits().ok().map(|limits| match limits.max_open_files.soft_limit {
        LimitValue::Value(n) => to_i64(n),
        LimitValue::Unlimited => i64::MAX,
    });
    #[allow(clippy::cast_precision_loss)]
    Some(Sample {
        cpu_seconds: (stat.utime + stat.stime) as f64 / ticks,
        open_fds: me.fd_count().ok().map_or(0, |n| i64::try_from(n).unwrap_or(i64::MAX)),
        max_fds,
        resident_bytes: to_i64(stat.rss.saturating_mul(procfs::page_size())),
        virtual_bytes: to_i64(stat.vsize),
        start_time_seconds: start,
        threads: stat.num_threads,
    })
}

#[cfg(not(target_os = "linux"))]
fn sample() -> Option<Sample> {
    None
}

/// Writes the `process_*` families.
pub(crate) fn encode(enc: &mut DescriptorEncoder<'_>) -> fmt::Result {
    let Some(s) = sample() else { return Ok(()) };
    let cpu = ConstCounter::new(s.cpu_seconds);
    cpu.encode(enc.encode_descriptor(
        "process_cpu",
        "Total user and system CPU time spent in seconds.",
        Some(&Unit::Seconds),
        cpu.metric_type(),
    )?)?;
    let gauges = [
        ("process_open_fds", "Number of open file descriptors.", None, Some(s.open_fds)),
        ("process_max_fds", "Maximum number of open file descriptors.", None, s.max_fds),
        ("process_resident_memory", "Resident memory size in bytes.", Some(Unit::Bytes), Some(s.resident_bytes)),
        ("process_virtual_memory", "Virtual memory size in bytes.", Some(Unit::Bytes), Some(s.virtual_bytes)),
        ("process_threads", "Number of OS threads in the process.", None, Some(s.threads)),
    ];
    for (name, help, unit, value) in gauges {
        let Some(value) = value else { continue };
        let gauge = ConstGauge::new(value);
        gauge.encode(enc.encode_descriptor(name, help, unit.as_ref(), gauge.metric_type())?)?;
    }
    let start = ConstGauge::new(s.start_time_seconds);
    start.encode(enc.encode_descriptor(
        "process_start_time",
        "Start time of the process since unix epoch in seconds.",
        Some(&Unit::Seconds),
        start.metric_type(),
    )?)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn the_numbers_describe_this_process() {
        let s = sample().expect("/proc/self is readable");
        assert!(s.open_fds >= 3, "{s:?}");
        assert!(s.max_fds.is_some_and(|max| max >= s.open_fds), "{s:?}");
        assert!(s.resident_bytes > 1 << 20, "{s:?}");
        assert!(s.virtual_bytes >= s.resident_bytes, "{s:?}");
        assert!(s.threads >= 1, "{s:?}");
        assert!(s.start_time_seconds > 1.6e9, "{s:?}");
    }
}
