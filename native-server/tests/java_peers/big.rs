//! Many topics (5.5.0): a broker with [`TOPICS`] topics in one registration, and one with as
//! many sent in pieces (`enableSplitRegistration=true`, `splitRegistrationSize=100`), join the
//! 5.5.0 cluster after its mqadmin run; the topic counts and every route must be the same on
//! both NameServers. Then kill -9 of the first: gone from both, its topics with it.

use std::collections::BTreeSet;
use std::time::Instant;

use nameserver_testkit::ExternalPeer;
use nameserver_testkit::java::{self, Version};

use super::removal::{self, REGISTER_PERIOD_MS, Removal};
use super::{Cluster, await_state, topics};
use crate::compare::Difference;

/// Topics per broker.
pub(crate) const TOPICS: usize = 2000;

/// The two brokers, running.
pub(crate) struct Brokers {
    whole: ExternalPeer,
    split: ExternalPeer,
    topics: BTreeSet<String>,
}

/// What the run found.
pub(crate) struct Found {
    pub(crate) differences: Vec<Difference>,
    /// The topics both NameServers listed with the two brokers registered.
    pub(crate) listed: usize,
    /// The kill -9 of the one-registration broker.
    pub(crate) killed: Removal,
}

fn names(prefix: &str) -> Vec<String> {
    (0..TOPICS).map(|i| format!("{prefix}-{i:04}")).collect()
}

/// Starts both brokers (at once), registered with both NameServers of `cluster`.
pub(crate) fn start(cluster: &Cluster) -> Brokers {
    let namesrvs = [cluster.java_addr(), cluster.ours.addr];
    let (whole_topics, split_topics) = (names("WholeTopic"), names("SplitTopic"));
    let base = [("registerNameServerPeriod", REGISTER_PERIOD_MS)];
    let whole_conf = [base[0], ("brokerName", "broker-whole")];
    let split_conf = [
        base[0],
        ("brokerName", "broker-split"),
        ("enableSplitRegistration", "true"),
        ("splitRegistrationSize", "100"),
    ];
    let (whole, split) = std::thread::scope(|s| {
        let split = s.spawn(|| java::start_broker_with_topics(Version::V5_5_0, &namesrvs, &split_conf, &split_topics));
        let whole = java::start_broker_with_topics(Version::V5_5_0, &namesrvs, &whole_conf, &whole_topics);
        (whole, split.join().unwrap())
    });
    let whole = whole.unwrap_or_else(|e| panic!("{e}"));
    let split = split.unwrap_or_else(|e| panic!("{e}"));
    let topics = whole_topics.into_iter().chain(split_topics).collect();
    Brokers { whole, split, topics }
}

/// Waits until both NameServers list every topic of both brokers, compares, then kills the
/// one-registration broker (-9) and stops the other.
pub(crate) fn check(cluster: &Cluster, mut brokers: Brokers) -> Found {
    let (j, o) = (cluster.java_addr(), cluster.ours.addr);
    let started = Instant::now();
    await_state(&format!("5.5.0: the {} topics of both brokers routed by both", 2 * TOPICS), || {
        topics(j).is_superset(&brokers.topics) && topics(o).is_superset(&brokers.topics)
    });
    let (java_count, ours_count) = (topics(j).len(), topics(o).len());
    println!(
        "5.5.0: {} topics of a one-registration and a split-registration broker routed by both after {:.1} s: Java lists {java_count}, ours {ours_count}",
        2 * TOPICS,
        started.elapsed().as_secs_f64()
    );
    assert_eq!(java_count, ours_count, "5.5.0: the NameServers list different topic counts");
    let mut differences = cluster.compare_tables("many-topics");
    println!("5.5.0: their routes compared after {:.1} s", started.elapsed().as_secs_f64());

    let whole_addr = brokers.whole.addr.expect("listening").to_string();
    let pid = brokers.whole.pid().expect("the broker runs");
    let killed = removal::signal_until_gone("5.5.0 broker-whole", pid, "KILL", &whole_addr, j, o);
    drop(brokers.whole);
    let whole_topics: Vec<&String> = brokers.topics.iter().filter(|t| t.starts_with("WholeTopic")).collect();
    await_state("5.5.0: the killed broker's topics gone from both", || {
        let (jt, ot) = (topics(j), topics(o));
        whole_topics.iter().all(|t| !jt.contains(*t) && !ot.contains(*t))
    });
    differences.extend(cluster.compare_lists("many-topics-killed"));
    brokers.split.stop();
    Found { differences, listed: java_count, killed }
}
