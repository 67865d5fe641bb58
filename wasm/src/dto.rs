//! Plain data shapes handed to JavaScript (camelCase, numbers below 2^53, hashes as hex).
//!
//! These are what the simulation's view ([`nameserver_sim::view`]) and the core's tables
//! ([`nameserver_core::view`]) do not cover: the scenario as the model reads it, built-ins,
//! injected actions, decoded frames. Built on request, never stored.

use std::collections::BTreeMap;

use nameserver_sim::scenario::text::action_text;
use nameserver_sim::view::FaultInfo;
use nameserver_sim::{NodeSpec, Scenario};
use serde::Serialize;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "InjectedAction"))]
pub(crate) struct Injected {
    pub at: u64,
    pub action: String,
}

/// A scenario as the model reads it: settings, nodes, topics, script and timings.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "ScenarioView"))]
pub(crate) struct ScenarioView {
    pub seed: u64,
    #[cfg_attr(feature = "ts", ts(type = "\"4.9\" | \"5.x\""))]
    pub profile: &'static str,
    pub idle_close: bool,
    pub latency_ms: u64,
    pub jitter_ms: u64,
    pub auto_create: bool,
    pub cluster: String,
    pub namesrv: BTreeMap<String, String>,
    pub timings: TimingsView,
    pub nodes: Vec<NodeSpecView>,
    pub topics: Vec<String>,
    pub script: Vec<FaultInfo>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "Timings"))]
pub(crate) struct TimingsView {
    pub scan_interval_ms: u64,
    pub idle_close_ms: Option<u64>,
    pub broker_timeout_ms: u64,
    pub register_period_ms: u64,
    pub route_poll_period_ms: u64,
    pub isolation_ms: u64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "ScenarioNode"))]
pub(crate) struct NodeSpecView {
    pub name: String,
    #[cfg_attr(feature = "ts", ts(type = "NodeRole"))]
    pub role: &'static str,
    pub start: u64,
    pub ns: Option<String>,
    pub topic: Option<String>,
    pub group: Option<String>,
    pub fault_tolerance: bool,
    pub every_ms: Option<u64>,
}

impl ScenarioView {
    pub(crate) fn new(s: &Scenario) -> Self {
        let t = s.timings();
        let ms = |d: core::time::Duration| d.as_millis() as u64;
        let nodes = s
            .nodes
            .iter()
            .map(|n| {
                let mut v = NodeSpecView {
                    name: n.name().to_owned(),
                    role: "nameserver",
                    start: n.start().as_millis(),
                    ns: None,
                    topic: None,
                    group: None,
                    fault_tolerance: false,
                    every_ms: None,
                };
                match n {
                    NodeSpec::NameServer { .. } => {}
                    NodeSpec::Broker { group, .. } => (v.role, v.group) = ("broker", Some(group.clone())),
                    NodeSpec::Producer { ns, topic, fault_tolerance, every_ms, .. } => {
                        (v.role, v.ns, v.topic) = ("producer", ns.clone(), Some(topic.clone()));
                        (v.fault_tolerance, v.every_ms) = (*fault_tolerance, Some(*every_ms));
                    }
                    NodeSpec::Consumer { ns, topic, group, .. } => {
                        (v.role, v.ns, v.topic, v.group) =
                            ("consumer", ns.clone(), Some(topic.clone()), Some(group.clone()));
                    }
                }
                v
            })
            .collect::<Vec<_>>();
        let topics = s.topic_names().into_iter().map(str::to_owned).collect();
        Self {
            seed: s.seed,
            profile: s.profile.name(),
            idle_close: s.idle_close,
            latency_ms: s.latency_ms,
            jitter_ms: s.jitter_ms,
            auto_create: s.auto_create,
            cluster: s.cluster.clone(),
            namesrv: s.namesrv.iter().cloned().collect(),
            timings: TimingsView {
                scan_interval_ms: ms(t.scan_interval()),
                idle_close_ms: t.idle_close().map(ms),
                broker_timeout_ms: ms(t.broker_timeout()),
                register_period_ms: ms(t.register_period()),
                route_poll_period_ms: ms(t.route_poll_period()),
                isolation_ms: ms(t.isolation()),
            },
            nodes,
            topics,
            script: s
                .script
                .iter()
                .map(|e| FaultInfo {
                    at: e.at.as_millis(),
                    action: action_text(&e.action),
                    target: e.action.node_names().first().map(|n| (*n).to_owned()),
                })
                .collect(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "BuiltInScenario"))]
pub(crate) struct BuiltIn {
    pub id: &'static str,
    pub title: &'static str,
    pub text: String,
}

/// A decoded frame.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "DecodedFrame"))]
pub(crate) struct Frame {
    pub code: i32,
    pub code_name: Option<&'static str>,
    pub language: Option<&'static str>,
    pub version: i32,
    pub opaque: i32,
    pub flag: i32,
    pub response: bool,
    pub oneway: bool,
    pub remark: Option<String>,
    pub ext_fields: Option<BTreeMap<String, String>>,
    #[cfg_attr(feature = "ts", ts(type = "\"JSON\" | \"ROCKETMQ\""))]
    pub serialize_type: &'static str,
    #[serde(with = "serde_bytes_as_array")]
    #[cfg_attr(feature = "ts", ts(type = "Uint8Array"))]
    pub body: Vec<u8>,
    pub body_text: Option<String>,
    pub length: usize,
}

/// Bodies travel as `Uint8Array`s.
mod serde_bytes_as_array {
    use serde::Serializer;

    pub(crate) fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(bytes)
    }
}
