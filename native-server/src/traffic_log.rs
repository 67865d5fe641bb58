//! The lines Java's NameServer logs each second outside `namesrv.log` (MIGRATING.md, "Logs"), in
//! Java 5.5.0's words:
//!
//! - to `namesrv_traffic.log` (logger `RocketmqTraffic`), for a second in which commands were
//!   read, `Port: 9876, RequestCode Distribution: {103:2, 105:12}`, and for one in which
//!   commands were written, `Port: 9876, ResponseCode Distribution: {0:14}`, as
//!   `NettyRemotingServer.printRemotingCodeDistribution` does (codes in ascending order; Java's
//!   follow its hash map);
//! - to `namesrv_default.log` (logger `RocketmqNamesrvWaterMark`), `[WATERMARK]
//!   ClientQueueSize:0 ClientQueueSlowTime:0 DefaultQueueSize:3 DefaultQueueSlowTime:0`, as
//!   `NamesrvController.printWaterMark` does: `DefaultQueueSize` is what waits for the owner
//!   (`nameserver_owner_queue_requests`), Java's default executor's queue. Route queries, Java's
//!   client queue, are answered by the connections without a queue, so `ClientQueueSize` is 0;
//!   the slow times (the age of the oldest request queued) are not measured and are 0.
//!
//! `logging.rs` routes the two targets to their files and nowhere else.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use tokio::time::MissedTickBehavior;
use tokio_util::sync::CancellationToken;

use crate::observe::Observer;

/// The `tracing` target of `namesrv_traffic.log`'s lines (Java's logger name).
pub(crate) const TRAFFIC_TARGET: &str = "RocketmqTraffic";
/// The `tracing` target of `namesrv_default.log`'s lines (Java's logger name).
pub(crate) const WATERMARK_TARGET: &str = "RocketmqNamesrvWaterMark";
/// Java's period for both lines.
const PERIOD: Duration = Duration::from_secs(1);

/// Logs both lines each second until `quit`, then the traffic of the last part-second.
pub(crate) async fn run(observe: Arc<Observer>, port: u16, quit: CancellationToken) {
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + PERIOD, PERIOD);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        let quitting = tokio::select! {
            _ = ticks.tick() => false,
            () = quit.cancelled() => true,
        };
        let (read, written) = observe.traffic.take();
        if let Some(codes) = distribution(&read) {
            tracing::info!(target: TRAFFIC_TARGET, "Port: {port}, RequestCode Distribution: {codes}");
        }
        if let Some(codes) = distribution(&written) {
            tracing::info!(target: TRAFFIC_TARGET, "Port: {port}, ResponseCode Distribution: {codes}");
        }
        if quitting {
            return;
        }
        let queued = observe.metrics.owner_queue_requests.load(Relaxed);
        tracing::info!(
            target: WATERMARK_TARGET,
            "[WATERMARK] ClientQueueSize:0 ClientQueueSlowTime:0 DefaultQueueSize:{queued} DefaultQueueSlowTime:0"
        );
    }
}

/// Java's `{code:count, code:count}`, or `None` for no commands.
fn distribution(counts: &BTreeMap<i32, u64>) -> Option<String> {
    let mut text = String::from("{");
    for (code, count) in counts.iter().filter(|(_, count)| **count > 0) {
        if text.len() > 1 {
            text.push_str(", ");
        }
        let _ = write!(text, "{code}:{count}");
    }
    (text.len() > 1).then(|| text + "}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_distribution_is_written_as_java_writes_it() {
        assert_eq!(distribution(&BTreeMap::from([(105, 12), (103, 2)])).as_deref(), Some("{103:2, 105:12}"));
        assert_eq!(distribution(&BTreeMap::from([(-1, 1), (0, 0)])).as_deref(), Some("{-1:1}"));
        assert_eq!(distribution(&BTreeMap::from([(0, 0)])), None);
        assert_eq!(distribution(&BTreeMap::new()), None);
    }
}
