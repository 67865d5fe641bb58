//! [`Lacks`]: which running NameServer lacks a broker (or a topic) another one lists. The one
//! rule behind the simulation's divergence banner and live mode's sentences, so the page
//! compares no tables itself.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;

use nameserver_core::view::{LiveRow, NsTables};
use serde::Serialize;

use super::nodes::NodeInfo;

/// Every difference between the running NameServers' tables, NameServers in node order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Lacks {
    /// Each NameServer that lacks a broker another one lists.
    pub brokers: Vec<BrokerLack>,
    /// Each pair where one has routes for topics the other has none for (only where the topic
    /// lists are known: live mode).
    pub topics: Vec<TopicLack>,
    /// Brokers several NameServers list, heard from at times [`CLOCK_GAP_MS`] or more apart:
    /// the tables agree, but one NameServer's removal clock for the broker runs far ahead.
    pub clocks: Vec<ClockGap>,
}

/// How far apart two NameServers' `lastUpdate`s for one broker must be to count as a gap: a
/// broker registers with every NameServer at once, so more than a second apart means one of
/// them has stopped hearing it.
pub const CLOCK_GAP_MS: u64 = 1_000;

/// A broker whose `lastUpdate` differs between NameServers that both list it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ClockGap {
    /// Its node's name (its address if no node has that address).
    pub name: String,
    /// Its address.
    pub addr: String,
    /// The NameServer that heard from it longest ago (the first such on a tie).
    pub stalest: String,
    /// That `lastUpdate`.
    pub stalest_heard: u64,
    /// The NameServer that heard from it last.
    pub freshest: String,
    /// That `lastUpdate`.
    pub freshest_heard: u64,
}

/// The brokers one NameServer lacks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct BrokerLack {
    /// The NameServer.
    pub ns: String,
    /// What it lacks, in the order the others list them.
    pub brokers: Vec<MissingBroker>,
    /// The other NameServers that list any of them.
    pub others: Vec<String>,
}

/// A broker a NameServer lacks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MissingBroker {
    /// Its node's name (its address if no node has that address).
    pub name: String,
    /// Its address (the live table's key, what is compared).
    pub addr: String,
    /// When the lacking NameServer last listed it (`lastUpdate`), if that is known (live
    /// mode keeps each daemon's history; `None` also for never).
    pub last_heard: Option<u64>,
    /// The NameServer that heard from it last.
    pub freshest: String,
    /// That `lastUpdate`.
    pub freshest_heard: u64,
}

/// Topics `other` has routes for and `ns` has none for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TopicLack {
    /// The NameServer lacking them.
    pub ns: String,
    /// The one that has them.
    pub other: String,
    /// Which, in `other`'s order.
    pub topics: Vec<String>,
}

impl Lacks {
    /// The differences between the NameServers of `nodes` that are up and have tables in
    /// `ns`. `heard`: by NameServer, when it last listed each broker address (for brokers it
    /// no longer lists); `topics`: by NameServer, the topics it has routes for. Times are on
    /// one clock for all (virtual time, or the wall clock in live mode).
    #[must_use]
    pub fn of(
        nodes: &[NodeInfo],
        ns: &BTreeMap<String, NsTables>,
        heard: &BTreeMap<String, BTreeMap<String, u64>>,
        topics: &BTreeMap<String, Vec<String>>,
    ) -> Self {
        let running: Vec<(&str, &NsTables)> = nodes
            .iter()
            .filter(|n| n.role == "nameserver" && n.state == "up")
            .filter_map(|n| Some((n.name.as_str(), ns.get(&n.name)?)))
            .collect();
        let name_of: BTreeMap<&str, &str> = nodes.iter().map(|n| (n.addr.as_str(), n.name.as_str())).collect();
        // Every address any of them lists, in first-listed order.
        let mut all: Vec<&str> = Vec::new();
        for (_, tables) in &running {
            for row in &tables.brokers {
                if !all.contains(&row.broker_addr.as_str()) {
                    all.push(&row.broker_addr);
                }
            }
        }
        let lists = |tables: &NsTables, addr: &str| tables.brokers.iter().find(|r| r.broker_addr == addr).cloned();
        let name_or_addr = |addr: &str| name_of.get(addr).map_or_else(|| String::from(addr), |n| String::from(*n));
        let mut clocks = Vec::new();
        for addr in &all {
            let heard: Vec<(&str, u64)> =
                running.iter().filter_map(|(ns, t)| Some((*ns, lists(t, addr)?.last_update))).collect();
            let stalest = heard.iter().min_by_key(|(_, at)| *at);
            let freshest = heard.iter().rev().max_by_key(|(_, at)| *at);
            if let (Some(&(stalest, old)), Some(&(freshest, new))) = (stalest, freshest) {
                if new - old >= CLOCK_GAP_MS {
                    clocks.push(ClockGap {
                        name: name_or_addr(addr),
                        addr: String::from(*addr),
                        stalest: String::from(stalest),
                        stalest_heard: old,
                        freshest: String::from(freshest),
                        freshest_heard: new,
                    });
                }
            }
        }
        let mut brokers = Vec::new();
        for (name, tables) in &running {
            let missing: Vec<MissingBroker> = all
                .iter()
                .filter(|addr| lists(tables, addr).is_none())
                .filter_map(|addr| {
                    // The holder that heard from it last; the first such on a tie.
                    let mut freshest: Option<(&str, LiveRow)> = None;
                    for (other, t) in &running {
                        let Some(row) = lists(t, addr) else { continue };
                        if freshest.as_ref().is_none_or(|(_, best)| row.last_update > best.last_update) {
                            freshest = Some((other, row));
                        }
                    }
                    let (freshest, row) = freshest?;
                    Some(MissingBroker {
                        name: name_or_addr(addr),
                        addr: String::from(*addr),
                        last_heard: heard.get(*name).and_then(|h| h.get(*addr)).copied(),
                        freshest: String::from(freshest),
                        freshest_heard: row.last_update,
                    })
                })
                .collect();
            if missing.is_empty() {
                continue;
            }
            let others = running
                .iter()
                .filter(|(other, t)| other != name && missing.iter().any(|m| lists(t, &m.addr).is_some()))
                .map(|(other, _)| String::from(*other))
                .collect();
            brokers.push(BrokerLack { ns: String::from(*name), brokers: missing, others });
        }
        let mut lacks = Vec::new();
        let listed: Vec<(&str, &Vec<String>)> =
            running.iter().filter_map(|(name, _)| Some((*name, topics.get(*name)?))).collect();
        for (name, mine) in &listed {
            let mine: BTreeSet<&String> = mine.iter().collect();
            for (other, theirs) in &listed {
                let only: Vec<String> = theirs.iter().filter(|t| !mine.contains(t)).cloned().collect();
                if other != name && !only.is_empty() {
                    lacks.push(TopicLack { ns: String::from(*name), other: String::from(*other), topics: only });
                }
            }
        }
        Self { brokers, topics: lacks, clocks }
    }
}
