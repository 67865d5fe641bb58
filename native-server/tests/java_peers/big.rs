//! Many topics (5.5.0 in the test command, every version at `JAVA_PEERS_SCALE=e2e`): a broker
//! with the run's count of topics ([`crate::Scale`]) in one registration, and on 5.x one with
//! as many sent in pieces (`enableSplitRegistration=true`, `splitRegistrationSize=100`, which
//! 4.9.x does not have), join the cluster after its mqadmin run; the topic counts and every
//! route must be the same on both NameServers. Then kill -9 of the first: gone from both, its
//! topics with it.

use std::collections::BTreeSet;
use std::time::Instant;

use nameserver_testkit::ExternalPeer;
use nameserver_testkit::java;

use super::removal::{self, REGISTER_PERIOD_MS, Removal};
use super::{Cluster, await_state, topics};
use crate::compare::Difference;

/// The two brokers, running.
pub(crate) struct Brokers {
    whole: ExternalPeer,
    split: Option<ExternalPeer>,
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
    (0..crate::SCALE.topics).map(|i| format!("{prefix}-{i:05}")).collect()
}

/// Starts the brokers (at once), registered with both NameServers of `cluster`.
pub(crate) fn start(cluster: &Cluster) -> Brokers {
    let version = cluster.version;
    let namesrvs = [cluster.java_addr(), cluster.ours.addr];
    let whole_topics = names("WholeTopic");
    let split_topics = if version.is_4x() { Vec::new() } else { names("SplitTopic") };
    let base = [("registerNameServerPeriod", REGISTER_PERIOD_MS)];
    let whole_conf = [base[0], ("brokerName", "broker-whole")];
    let split_conf = [
        base[0],
        ("brokerName", "broker-split"),
        ("enableSplitRegistration", "true"),
        ("splitRegistrationSize", "100"),
    ];
    let (whole, split) = std::thread::scope(|s| {
        let split = (!split_topics.is_empty())
            .then(|| s.spawn(|| java::start_broker_with_topics(version, &namesrvs, &split_conf, &split_topics)));
        let whole = java::start_broker_with_topics(version, &namesrvs, &whole_conf, &whole_topics);
        (whole, split.map(|h| h.join().unwrap()))
    });
    let whole = whole.unwrap_or_else(|e| panic!("{e}"));
    let split = split.map(|s| s.unwrap_or_else(|e| panic!("{e}")));
    let topics = whole_topics.into_iter().chain(split_topics).collect();
    Brokers { whole, split, topics }
}

/// Waits until both NameServers list every topic of the brokers, compares, then kills the
/// one-registration broker (-9) and stops the other.
pub(crate) fn check(cluster: &Cluster, mut brokers: Brokers) -> Found {
    let v = cluster.version.as_str();
    let (j, o) = (cluster.java_addr(), cluster.ours.addr);
    let started = Instant::now();
    let which = if brokers.split.is_some() { "a one-registration and a split-registration broker" } else { "a broker" };
    await_state(&format!("{v}: the {} topics of {which} routed by both", brokers.topics.len()), || {
        topics(j).is_superset(&brokers.topics) && topics(o).is_superset(&brokers.topics)
    });
    let (java_count, ours_count) = (topics(j).len(), topics(o).len());
    println!(
        "{v}: {} topics of {which} routed by both after {:.1} s: Java lists {java_count}, ours {ours_count}",
        brokers.topics.len(),
        started.elapsed().as_secs_f64()
    );
    assert_eq!(java_count, ours_count, "{v}: the NameServers list different topic counts");
    let mut differences = cluster.compare_tables("many-topics");
    println!("{v}: their routes compared after {:.1} s", started.elapsed().as_secs_f64());

    let whole_addr = brokers.whole.addr.expect("listening").to_string();
    let pid = brokers.whole.pid().expect("the broker runs");
    let killed = removal::signal_until_gone(&format!("{v} broker-whole"), pid, "KILL", &whole_addr, j, o);
    drop(brokers.whole);
    let whole_topics: Vec<&String> = brokers.topics.iter().filter(|t| t.starts_with("WholeTopic")).collect();
    await_state(&format!("{v}: the killed broker's topics gone from both"), || {
        let (jt, ot) = (topics(j), topics(o));
        whole_topics.iter().all(|t| !jt.contains(*t) && !ot.contains(*t))
    });
    differences.extend(cluster.compare_lists("many-topics-killed"));
    if let Some(split) = brokers.split.as_mut() {
        split.stop();
    }
    Found { differences, listed: java_count, killed }
}
