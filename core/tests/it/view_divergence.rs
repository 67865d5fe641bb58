//! `Divergence` against a model that reads the whole history of comparisons: a difference
//! stands since the first comparison of its unbroken run, and a side's last-heard time of a
//! broker is kept from the last comparison that side listed it, while either side has listed
//! it in every comparison since.

use std::collections::{BTreeMap, BTreeSet};

use nameserver_core::view::{BrokerDiff, Divergence, Listed, TOPIC_NAMES_SHOWN, TopicDiff};
use proptest::prelude::*;

/// One comparison: what each side lists, at `now`; or a `clear`.
#[derive(Clone, Debug)]
enum Step {
    Compare {
        here: BTreeMap<String, Listed>,
        there: BTreeMap<String, Listed>,
        topics_here: BTreeSet<String>,
        topics_there: BTreeSet<String>,
        /// Time since the previous step.
        after: u64,
    },
    Clear,
}

fn side() -> impl Strategy<Value = BTreeMap<String, Listed>> {
    let listed = (0..2u8, 0..2i64, 0..1_000u64).prop_map(|(name, id, last_heard)| Listed {
        cluster: "C".into(),
        broker_name: format!("broker-{name}"),
        broker_id: id,
        last_heard,
    });
    proptest::collection::btree_map((0..5u8).prop_map(|a| format!("10.0.0.{a}:10911")), listed, 0..5)
}

fn topics() -> impl Strategy<Value = BTreeSet<String>> {
    proptest::collection::btree_set((0..14u8).prop_map(|t| format!("T{t:02}")), 0..14)
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        12 => (side(), side(), topics(), topics(), 0..3u64).prop_map(|(here, there, topics_here, topics_there, after)| {
            Step::Compare { here, there, topics_here, topics_there, after }
        }),
        1 => Just(Step::Clear),
    ]
}

/// The comparisons since the last clear, each with its time.
struct Compared<'a> {
    now: u64,
    here: &'a BTreeMap<String, Listed>,
    there: &'a BTreeMap<String, Listed>,
    topics_here: &'a BTreeSet<String>,
    topics_there: &'a BTreeSet<String>,
}

/// When the unbroken run of `differs` that reaches the last comparison began.
fn since(history: &[Compared<'_>], differs: impl Fn(&Compared<'_>) -> bool) -> Option<u64> {
    let mut since = None;
    for c in history.iter().rev() {
        if !differs(c) {
            break;
        }
        since = Some(c.now);
    }
    since
}

/// The last time `side` heard from `addr`, if every comparison since listed it on some side.
fn last_heard<'a>(
    history: &[Compared<'a>],
    addr: &str,
    side: impl Fn(&Compared<'a>) -> &'a BTreeMap<String, Listed>,
) -> Option<u64> {
    for c in history.iter().rev() {
        if let Some(listed) = side(c).get(addr) {
            return Some(listed.last_heard);
        }
        if !c.here.contains_key(addr) && !c.there.contains_key(addr) {
            return None;
        }
    }
    None
}

fn model_brokers(history: &[Compared<'_>], only_here: bool) -> Vec<BrokerDiff> {
    let Some(last) = history.last() else { return Vec::new() };
    let (listing, other) = if only_here { (last.here, last.there) } else { (last.there, last.here) };
    listing
        .iter()
        .filter(|(addr, _)| !other.contains_key(*addr))
        .map(|(addr, listed)| {
            let differs = |c: &Compared<'_>| {
                let (mine, theirs) = if only_here { (c.here, c.there) } else { (c.there, c.here) };
                mine.contains_key(addr) && !theirs.contains_key(addr)
            };
            BrokerDiff {
                broker_addr: addr.clone(),
                cluster: listed.cluster.clone(),
                broker_name: listed.broker_name.clone(),
                broker_id: listed.broker_id,
                since: since(history, differs).unwrap(),
                here_last_heard: last_heard(history, addr, |c| c.here),
                there_last_heard: last_heard(history, addr, |c| c.there),
            }
        })
        .collect()
}

fn model_topics(history: &[Compared<'_>], only_here: bool) -> TopicDiff {
    let Some(last) = history.last() else { return TopicDiff::default() };
    let (mine, other) =
        if only_here { (last.topics_here, last.topics_there) } else { (last.topics_there, last.topics_here) };
    let mut oldest: Vec<(u64, String)> = mine
        .difference(other)
        .map(|topic| {
            let differs = |c: &Compared<'_>| {
                let (mine, theirs) =
                    if only_here { (c.topics_here, c.topics_there) } else { (c.topics_there, c.topics_here) };
                mine.contains(topic) && !theirs.contains(topic)
            };
            (since(history, differs).unwrap(), topic.clone())
        })
        .collect();
    oldest.sort();
    TopicDiff {
        count: oldest.len(),
        since: oldest.first().map(|(since, _)| *since),
        names: oldest.into_iter().take(TOPIC_NAMES_SHOWN).map(|(_, name)| name).collect(),
    }
}

proptest! {
    #[test]
    fn divergence_agrees_with_the_history_model(steps in proptest::collection::vec(step(), 1..24)) {
        let mut divergence = Divergence::default();
        let mut now = 1_000;
        let mut history: Vec<Compared<'_>> = Vec::new();
        for step in &steps {
            match step {
                Step::Clear => {
                    divergence.clear();
                    history.clear();
                }
                Step::Compare { here, there, topics_here, topics_there, after } => {
                    now += after;
                    divergence.brokers(here.clone(), there.clone(), now);
                    let here_topics: BTreeSet<&str> = topics_here.iter().map(String::as_str).collect();
                    let there_topics: BTreeSet<&str> = topics_there.iter().map(String::as_str).collect();
                    divergence.topics(&here_topics, &there_topics, now);
                    history.push(Compared { now, here, there, topics_here, topics_there });
                }
            }
            let brokers_here = model_brokers(&history, true);
            let brokers_there = model_brokers(&history, false);
            let topics_here = model_topics(&history, true);
            let topics_there = model_topics(&history, false);
            let oldest = [brokers_here.iter().chain(&brokers_there).map(|d| d.since).min(), topics_here.since, topics_there.since]
                .into_iter()
                .flatten()
                .min();
            prop_assert_eq!(divergence.brokers_only_here(), brokers_here);
            prop_assert_eq!(divergence.brokers_only_there(), brokers_there);
            prop_assert_eq!(divergence.topics_only_here(), topics_here);
            prop_assert_eq!(divergence.topics_only_there(), topics_there);
            prop_assert_eq!(divergence.since(), oldest);
        }
    }
}
