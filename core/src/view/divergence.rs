//! [`Divergence`]: how one NameServer's tables differ from another's, and since when.
//!
//! Each comparison (the daemon's poll of a peer, for one) gives the broker addresses and
//! topic names each side has. A difference keeps the time it was first seen until it
//! disappears, so a broker missing from
//! the peer since 10:02 still says 10:02 at 10:20 while others come and go. The last time
//! each side heard from a broker (its `lastUpdate`, on that side's clock) is remembered while
//! either side lists it, so that a broker one side lost can say when that side last
//! heard from it.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

/// Topic names reported per direction (the counts are exact).
pub const TOPIC_NAMES_SHOWN: usize = 10;

/// A broker instance as one side lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    /// The live-table key's cluster.
    pub cluster: String,
    /// Its group.
    pub broker_name: String,
    /// Its id in the group.
    pub broker_id: i64,
    /// Its last registration or heartbeat, in wall-clock milliseconds on that side's clock.
    pub last_heard: u64,
}

/// A broker present on one side and missing on the other.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BrokerDiff {
    /// The broker's address (what is compared).
    pub broker_addr: String,
    /// Its cluster, as the side that lists it has it.
    pub cluster: String,
    /// Its group, likewise.
    pub broker_name: String,
    /// Its id in the group, likewise.
    pub broker_id: i64,
    /// When this difference was first seen (wall clock, ms).
    pub since: u64,
    /// When this NameServer last heard from the broker (its `lastUpdate`, wall clock), if
    /// it has listed it since polling began.
    pub here_last_heard: Option<u64>,
    /// The same on the peer, by the peer's clock.
    pub there_last_heard: Option<u64>,
}

/// Topics present on one side and missing on the other.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TopicDiff {
    /// How many.
    pub count: usize,
    /// When the oldest of these differences was first seen.
    pub since: Option<u64>,
    /// The first few, oldest difference first.
    pub names: Vec<String>,
}

/// What differs between here and there (another NameServer), each difference with the time
/// it was first seen, on whatever clock the caller's `now` is (the daemon: wall-clock ms).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Divergence {
    brokers_only_here: BTreeMap<String, u64>,
    brokers_only_there: BTreeMap<String, u64>,
    topics_only_here: BTreeMap<String, u64>,
    topics_only_there: BTreeMap<String, u64>,
    heard_here: BTreeMap<String, Listed>,
    heard_there: BTreeMap<String, Listed>,
}

/// Keeps the first-seen time of the differences still present, adds the new ones at `now`.
fn track<'a>(diffs: &mut BTreeMap<String, u64>, current: impl Iterator<Item = &'a str>, now: u64) {
    let mut next = BTreeMap::new();
    for name in current {
        let since = diffs.get(name).copied().unwrap_or(now);
        next.insert(name.to_string(), since);
    }
    *diffs = next;
}

impl Divergence {
    /// Compares the brokers each side lists now (by address).
    pub fn brokers(&mut self, here: BTreeMap<String, Listed>, there: BTreeMap<String, Listed>, now: u64) {
        track(&mut self.brokers_only_here, here.keys().filter(|a| !there.contains_key(*a)).map(String::as_str), now);
        track(&mut self.brokers_only_there, there.keys().filter(|a| !here.contains_key(*a)).map(String::as_str), now);
        // Every difference is listed on one side: remember what either side lists.
        let keep = |addr: &String| here.contains_key(addr) || there.contains_key(addr);
        remember(&mut self.heard_here, &here, keep);
        remember(&mut self.heard_there, &there, keep);
    }

    /// Compares the topics each side has a route for.
    pub fn topics(&mut self, here: &BTreeSet<&str>, there: &BTreeSet<&str>, now: u64) {
        track(&mut self.topics_only_here, here.difference(there).copied(), now);
        track(&mut self.topics_only_there, there.difference(here).copied(), now);
    }

    /// Forgets every difference (the other side restarted into a state not compared yet, or
    /// is this very NameServer).
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    /// Brokers listed here and not there, by address.
    #[must_use]
    pub fn brokers_only_here(&self) -> Vec<BrokerDiff> {
        self.broker_diffs(&self.brokers_only_here, &self.heard_here)
    }

    /// Brokers listed there and not here, by address.
    #[must_use]
    pub fn brokers_only_there(&self) -> Vec<BrokerDiff> {
        self.broker_diffs(&self.brokers_only_there, &self.heard_there)
    }

    /// Topics with a route here and none there.
    #[must_use]
    pub fn topics_only_here(&self) -> TopicDiff {
        topic_diff(&self.topics_only_here)
    }

    /// Topics with a route there and none here.
    #[must_use]
    pub fn topics_only_there(&self) -> TopicDiff {
        topic_diff(&self.topics_only_there)
    }

    /// When the oldest difference still present was first seen; `None`: none.
    #[must_use]
    pub fn since(&self) -> Option<u64> {
        [&self.brokers_only_here, &self.brokers_only_there, &self.topics_only_here, &self.topics_only_there]
            .into_iter()
            .flat_map(BTreeMap::values)
            .min()
            .copied()
    }

    /// `diffs`, described by the side that lists each broker (`listing`).
    fn broker_diffs(&self, diffs: &BTreeMap<String, u64>, listing: &BTreeMap<String, Listed>) -> Vec<BrokerDiff> {
        diffs
            .iter()
            .filter_map(|(addr, since)| {
                let listed = listing.get(addr)?;
                Some(BrokerDiff {
                    broker_addr: addr.clone(),
                    cluster: listed.cluster.clone(),
                    broker_name: listed.broker_name.clone(),
                    broker_id: listed.broker_id,
                    since: *since,
                    here_last_heard: self.heard_here.get(addr).map(|l| l.last_heard),
                    there_last_heard: self.heard_there.get(addr).map(|l| l.last_heard),
                })
            })
            .collect()
    }
}

/// Updates `known` with the brokers listed now, forgetting those `keep` does not want.
fn remember(known: &mut BTreeMap<String, Listed>, listed: &BTreeMap<String, Listed>, keep: impl Fn(&String) -> bool) {
    known.retain(|addr, _| keep(addr));
    known.extend(listed.iter().map(|(addr, l)| (addr.clone(), l.clone())));
}

fn topic_diff(diffs: &BTreeMap<String, u64>) -> TopicDiff {
    let mut oldest: Vec<(&u64, &String)> = diffs.iter().map(|(name, since)| (since, name)).collect();
    oldest.sort_unstable();
    TopicDiff {
        count: diffs.len(),
        since: oldest.first().map(|(since, _)| **since),
        names: oldest.into_iter().take(TOPIC_NAMES_SHOWN).map(|(_, name)| name.clone()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::vec;

    fn listed(addr: &str, name: &str, last_heard: u64) -> (String, Listed) {
        let l = Listed { cluster: "C".into(), broker_name: name.into(), broker_id: 0, last_heard };
        (addr.to_string(), l)
    }

    #[test]
    fn a_difference_keeps_the_time_it_was_first_seen_until_it_goes() {
        let mut d = Divergence::default();
        let a = || listed("10.0.0.1:10911", "broker-a", 1_000);
        let b = |heard| listed("10.0.0.2:10911", "broker-b", heard);
        d.brokers([a(), b(1_500)].into(), [a(), b(1_400)].into(), 2_000);
        assert_eq!(d.since(), None);
        // broker-b's heartbeats stop reaching the peer, which drops it.
        d.brokers([a(), b(31_500)].into(), [a()].into(), 130_000);
        d.brokers([a(), b(61_500)].into(), [a()].into(), 131_000);
        let only = d.brokers_only_here();
        assert_eq!(only.len(), 1);
        assert_eq!((only[0].broker_addr.as_str(), only[0].broker_name.as_str()), ("10.0.0.2:10911", "broker-b"));
        assert_eq!(
            (only[0].since, only[0].here_last_heard, only[0].there_last_heard),
            (130_000, Some(61_500), Some(1_400))
        );
        assert!(d.brokers_only_there().is_empty());
        assert_eq!(d.since(), Some(130_000));
        // It comes back: the difference and its memory go.
        d.brokers([a(), b(91_500)].into(), [a(), b(91_400)].into(), 132_000);
        assert!(d.brokers_only_here().is_empty());
        assert_eq!(d.since(), None);
    }

    #[test]
    fn topics_differ_both_ways_with_counts_and_the_oldest_names() {
        let mut d = Divergence::default();
        let here: BTreeSet<&str> = ["A", "B", "C"].into();
        d.topics(&here, &["A"].into(), 5);
        let there: BTreeSet<&str> = ["A", "Z"].into();
        d.topics(&here, &there, 9);
        assert_eq!(d.topics_only_here(), TopicDiff { count: 2, since: Some(5), names: vec!["B".into(), "C".into()] });
        assert_eq!(d.topics_only_there(), TopicDiff { count: 1, since: Some(9), names: vec!["Z".into()] });
        assert_eq!(d.since(), Some(5));
        let many: BTreeSet<String> = (0..25).map(|i| format!("T{i:02}")).collect();
        d.topics(&many.iter().map(String::as_str).collect(), &BTreeSet::new(), 10);
        let diff = d.topics_only_here();
        assert_eq!((diff.count, diff.names.len(), diff.names[0].as_str()), (25, TOPIC_NAMES_SHOWN, "T00"));
        d.clear();
        assert_eq!(d.since(), None);
    }
}
