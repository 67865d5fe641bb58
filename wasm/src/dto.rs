//! Plain data shapes handed to JavaScript (camelCase, numbers below 2^53, hashes as hex).
//!
//! These are views: built from core values on request, never stored.

use std::collections::BTreeMap;

use nameserver_sim::scenario::text::action_text;
use nameserver_sim::view::{BrokerInfo, FaultInfo, QueueInfo};
use nameserver_sim::{NodeSpec, RemovalClock, Scenario};
use serde::Serialize;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LiveRow {
    pub cluster: String,
    pub broker_addr: String,
    pub broker_name: String,
    pub broker_id: i64,
    pub last_update: u64,
    pub age_ms: u64,
    pub timeout_ms: u64,
    pub expires_at: u64,
    pub idle_close_at: Option<u64>,
    pub scan_expire_at: Option<u64>,
    pub removal_at: Option<u64>,
    pub removal_by: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Tables {
    pub name: String,
    pub state: &'static str,
    pub next_scan: Option<u64>,
    pub live: Vec<LiveRow>,
    pub brokers: Vec<BrokerInfo>,
    pub clusters: BTreeMap<String, Vec<String>>,
    pub topics: BTreeMap<String, Vec<QueueInfo>>,
}

impl Tables {
    /// The tables of `ns`, with each live broker's removal clock from `clocks`.
    pub(crate) fn new(
        name: String,
        state: &'static str,
        ns: Option<&nameserver_core::NameServer>,
        clocks: &[RemovalClock],
    ) -> Self {
        let Some(ns) = ns else {
            return Self {
                name,
                state,
                next_scan: None,
                live: Vec::new(),
                brokers: Vec::new(),
                clusters: BTreeMap::new(),
                topics: BTreeMap::new(),
            };
        };
        let routes = ns.routes();
        let now = ns.now();
        Self {
            name,
            state,
            next_scan: Some(ns.next_scan().as_millis()),
            live: routes
                .broker_live_table()
                .iter()
                .map(|(key, live)| {
                    let clock = clocks.iter().find(|c| c.cluster == key.cluster && c.broker_addr == key.broker_addr);
                    LiveRow {
                        cluster: key.cluster.to_string(),
                        broker_addr: key.broker_addr.to_string(),
                        broker_name: live.broker_name.to_string(),
                        broker_id: live.broker_id.0,
                        last_update: live.last_update.as_millis(),
                        age_ms: now.saturating_since(live.last_update).as_millis() as u64,
                        timeout_ms: live.heartbeat_timeout.as_millis() as u64,
                        expires_at: live.expires_at().as_millis(),
                        idle_close_at: clock.and_then(|c| c.idle_close_at).map(|t| t.as_millis()),
                        scan_expire_at: clock.map(|c| c.scan_expire_at.as_millis()),
                        removal_at: clock.map(|c| c.removal_at.as_millis()),
                        removal_by: clock.map(|c| c.removal_by.name()),
                    }
                })
                .collect(),
            brokers: routes.broker_addr_table().values().map(BrokerInfo::from).collect(),
            clusters: routes
                .cluster_addr_table()
                .iter()
                .map(|(c, names)| (c.to_string(), names.iter().map(ToString::to_string).collect()))
                .collect(),
            topics: routes
                .topic_queue_table()
                .iter()
                .map(|(t, queues)| (t.to_string(), queues.values().map(QueueInfo::from).collect()))
                .collect(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Injected {
    pub at: u64,
    pub action: String,
}

/// A scenario as the model reads it: settings, nodes, topics, script and timings.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ScenarioView {
    pub seed: u64,
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
pub(crate) struct NodeSpecView {
    pub name: String,
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
                scan_interval_ms: ms(t.scan_interval),
                idle_close_ms: t.idle_close.map(ms),
                broker_timeout_ms: ms(t.broker_timeout),
                register_period_ms: ms(t.register_period),
                route_poll_period_ms: ms(t.route_poll_period),
                isolation_ms: ms(t.isolation),
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
pub(crate) struct BuiltIn {
    pub id: &'static str,
    pub title: &'static str,
    pub text: String,
}

/// A decoded frame.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
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
    pub serialize_type: &'static str,
    #[serde(with = "serde_bytes_as_array")]
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
