//! Messages through routes from ours: Apache RocketMQ's own producer and push consumer
//! (`Exchange.java`, run with a client version's jars) exchange the run's count of messages
//! ([`crate::Scale`]) on the cluster's broker, with our daemon as their only NameServer. Every
//! body must arrive; the client's exit code is never trusted alone.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use nameserver_testkit::java::{self, Version};

/// The topic the broker starts with (in its own topic file) for the exchange.
pub(crate) const TOPIC: &str = "PeerMessages";

/// What one exchange did.
pub(crate) struct Exchanged {
    pub(crate) client: Version,
    pub(crate) broker: Version,
    pub(crate) took: Duration,
    /// Bodies sent SEND_OK, and distinct bodies received, of `count`.
    pub(crate) sent: usize,
    pub(crate) received: usize,
    pub(crate) count: usize,
}

/// Runs `client`'s producer and push consumer against `ours` (their only NameServer); the
/// cluster's broker is `broker`'s. Panics unless all the run's bodies were sent and received.
pub(crate) fn exchange(client: Version, broker: Version, ours: SocketAddr) -> Exchanged {
    let scale = *crate::SCALE;
    let n = scale.messages;
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/java_peers/Exchange.java");
    let prefix = format!("peer-{}-to-{}", client.as_str(), broker.as_str()).replace('.', "_");
    let (namesrv, count) = (ours.to_string(), n.to_string());
    // Exchange.java's own wait for the last bodies ends before the kit's guard, so it still prints.
    let wait = (scale.exchange_guard.as_secs() * 5 / 6).to_string();
    let started = Instant::now();
    let args = [namesrv.as_str(), TOPIC, &prefix, &count, &prefix, &wait];
    let (code, out) =
        java::run_source_within(client, &source, &args, scale.exchange_guard).unwrap_or_else(|e| panic!("{e}"));
    let took = started.elapsed();
    let what =
        format!("a {} producer and push consumer on a {} broker, routes from ours", client.as_str(), broker.as_str());
    let expected: BTreeSet<String> = (0..n).map(|i| format!("{prefix}-{i}")).collect();
    let received: BTreeSet<String> =
        out.lines().filter_map(|l| l.strip_prefix("RECEIVED ")).map(str::to_string).collect();
    let sent: BTreeSet<String> = out
        .lines()
        .filter_map(|l| l.strip_prefix("SENT "))
        .filter(|l| l.contains(" SEND_OK "))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect();
    let tail = || out.lines().rev().take(30).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join("\n");
    assert!(
        sent == expected,
        "{what}: {} of {n} messages sent SEND_OK (exit {code:?}); output ends:\n{}",
        sent.intersection(&expected).count(),
        tail()
    );
    let missing: Vec<&String> = expected.difference(&received).collect();
    assert!(
        missing.is_empty(),
        "{what}: {} of {n} bodies never arrived (first: {:?}; exit {code:?}); output ends:\n{}",
        missing.len(),
        missing.first(),
        tail()
    );
    assert!(out.contains(&format!("EXCHANGED {n} of {n}")), "{what}: no summary; output ends:\n{}", tail());
    assert_eq!(code, Some(0), "{what}: every body arrived but it exited {code:?}");
    Exchanged { client, broker, took, sent: sent.len(), received: received.len(), count: n }
}

/// The exchanges of one cluster: its own version's client, and on 4.9.7 also a 5.5.0 client
/// (the cross pair: clients are often upgraded before brokers), at once.
pub(crate) fn run(version: Version, ours: SocketAddr) -> Vec<Exchanged> {
    let clients: &[Version] = match version {
        Version::V4_9_7 => &[Version::V4_9_7, Version::V5_5_0],
        other => &[other],
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = clients.iter().map(|&c| s.spawn(move || exchange(c, version, ours))).collect();
        // A failed exchange's own message, not the join's.
        handles.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
    })
}
