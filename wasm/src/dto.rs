//! Plain data shapes handed to JavaScript (camelCase, numbers below 2^53, hashes as hex).
//!
//! These are views: built from core values on request, never stored.

use std::collections::BTreeMap;

use nameserver_core::protocol::body::{BrokerData, QueueData, TopicRouteData};
use nameserver_sim as sim;
use nameserver_sim::scenario::text::action_text;
use nameserver_sim::{
    FaultMeasurement, FlightView, NodeSpec, NodeView, RemovalClock, Scenario, Sim, TraceEntry, WireRecord,
};
use serde::Serialize;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Trace {
    pub seq: u64,
    pub at: u64,
    pub node: String,
    pub kind: &'static str,
    pub text: String,
}

impl Trace {
    pub(crate) fn new(sim: &Sim, e: &TraceEntry) -> Self {
        Self {
            seq: e.seq(),
            at: e.at().as_millis(),
            node: sim.directory().name(e.node()).to_owned(),
            kind: e.kind().name(),
            text: e.text().to_owned(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Timer {
    pub label: String,
    pub kind: &'static str,
    pub at: u64,
    pub period_ms: Option<u64>,
    pub peer: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Node {
    pub id: u16,
    pub name: String,
    pub role: &'static str,
    pub state: &'static str,
    pub addr: String,
    pub group: Option<String>,
    pub broker_id: Option<i64>,
    pub bound_to: Option<String>,
    pub timers: Vec<Timer>,
    pub stale_since: Option<u64>,
}

impl Node {
    pub(crate) fn new(sim: &Sim, v: NodeView) -> Self {
        Self {
            id: v.id.0,
            name: v.name,
            role: v.role.name(),
            state: v.state.name(),
            addr: v.addr,
            group: v.group,
            broker_id: v.broker_id,
            bound_to: v.bound_to.map(|n| sim.directory().name(n).to_owned()),
            timers: v
                .timers
                .into_iter()
                .map(|t| Timer {
                    label: t.label,
                    kind: t.kind,
                    at: t.at.as_millis(),
                    period_ms: t.period_ms,
                    peer: t.peer.map(|p| sim.directory().name(p).to_owned()),
                })
                .collect(),
            stale_since: v.stale_since.map(|t| t.as_millis()),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Flight {
    pub id: u64,
    pub from: String,
    pub to: String,
    pub sent_at: u64,
    pub arrive_at: u64,
    pub category: &'static str,
    pub response: bool,
    pub summary: String,
    pub held: bool,
}

impl Flight {
    pub(crate) fn new(sim: &Sim, f: FlightView) -> Self {
        let name = |n: sim::NodeId| sim.directory().name(n).to_owned();
        Self {
            id: f.id,
            from: name(f.from),
            to: name(f.to),
            sent_at: f.sent_at.as_millis(),
            arrive_at: f.arrive_at.as_millis(),
            category: f.category.name(),
            response: f.response,
            summary: f.summary,
            held: f.held,
        }
    }
}

/// A message put on the wire, as sent.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WireEvent {
    pub id: Option<u64>,
    pub from: String,
    pub to: String,
    pub sent_at: u64,
    pub arrive_at: u64,
    pub category: &'static str,
    pub response: bool,
    #[serde(rename = "type")]
    pub what: &'static str,
    pub lost: bool,
}

impl WireEvent {
    pub(crate) fn new(sim: &Sim, r: &WireRecord) -> Self {
        let name = |n: sim::NodeId| sim.directory().name(n).to_owned();
        Self {
            id: r.id().map(std::num::NonZeroU64::get),
            from: name(r.from()),
            to: name(r.to()),
            sent_at: r.sent_at().as_millis(),
            arrive_at: r.arrive_at().as_millis(),
            category: r.category().name(),
            response: r.response(),
            what: r.what().name(),
            lost: r.lost(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Queue {
    pub broker_name: String,
    pub read_queue_nums: i32,
    pub write_queue_nums: i32,
    pub perm: i32,
    pub topic_sys_flag: i32,
}

impl From<&QueueData> for Queue {
    fn from(q: &QueueData) -> Self {
        Self {
            broker_name: q.broker_name.to_string(),
            read_queue_nums: q.read_queue_nums,
            write_queue_nums: q.write_queue_nums,
            perm: q.perm,
            topic_sys_flag: q.topic_sys_flag,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Broker {
    pub broker_name: String,
    pub cluster: String,
    /// Broker id (as a decimal string, like the dashboard shows it) → address.
    pub broker_addrs: BTreeMap<String, String>,
    pub zone_name: Option<String>,
}

impl From<&BrokerData> for Broker {
    fn from(b: &BrokerData) -> Self {
        Self {
            broker_name: b.broker_name.to_string(),
            cluster: b.cluster.to_string(),
            broker_addrs: b.broker_addrs.iter().map(|(id, a)| (id.0.to_string(), a.to_string())).collect(),
            zone_name: b.zone_name.clone(),
        }
    }
}

/// A topic route shaped like the RocketMQ dashboard's Router view.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Route {
    pub broker_datas: Vec<Broker>,
    pub queue_datas: Vec<Queue>,
    pub order_topic_conf: Option<String>,
}

impl From<&TopicRouteData> for Route {
    fn from(r: &TopicRouteData) -> Self {
        Self {
            broker_datas: r.broker_datas.iter().map(Broker::from).collect(),
            queue_datas: r.queue_datas.iter().map(Queue::from).collect(),
            order_topic_conf: r.order_topic_conf.clone(),
        }
    }
}

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
    pub brokers: Vec<Broker>,
    pub clusters: BTreeMap<String, Vec<String>>,
    pub topics: BTreeMap<String, Vec<Queue>>,
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
            brokers: routes.broker_addr_table().values().map(Broker::from).collect(),
            clusters: routes
                .cluster_addr_table()
                .iter()
                .map(|(c, names)| (c.to_string(), names.iter().map(ToString::to_string).collect()))
                .collect(),
            topics: routes
                .topic_queue_table()
                .iter()
                .map(|(t, queues)| (t.to_string(), queues.values().map(Queue::from).collect()))
                .collect(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ClientRoute {
    pub name: String,
    pub topic: String,
    pub bound_to: String,
    pub route: Option<Route>,
    pub changed_at: Option<u64>,
    pub stale: bool,
    pub stale_since: Option<u64>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Measurement {
    pub at: u64,
    pub action: String,
    pub target: Option<String>,
    pub ns_removal: Vec<(String, Option<u64>)>,
    pub client_update: Vec<(String, Option<u64>)>,
    pub attempts: u32,
    pub failed_attempts: u32,
    pub sends_failed: u32,
    pub sends_retried: u32,
    pub sends_indeterminate: u32,
}

impl Measurement {
    pub(crate) fn new(sim: &Sim, m: FaultMeasurement) -> Self {
        let name = |n: sim::NodeId| sim.directory().name(n).to_owned();
        Self {
            at: m.at().as_millis(),
            action: m.action().to_owned(),
            target: m.target().map(name),
            ns_removal: m.ns_removal().iter().map(|&(n, t)| (name(n), t.map(|t| t.as_millis()))).collect(),
            client_update: m.client_update().iter().map(|&(n, t)| (name(n), t.map(|t| t.as_millis()))).collect(),
            attempts: m.attempts(),
            failed_attempts: m.failed_attempts(),
            sends_failed: m.sends_failed(),
            sends_retried: m.sends_retried(),
            sends_indeterminate: m.sends_indeterminate(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Window {
    pub client: String,
    pub from: u64,
    pub to: Option<u64>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Send {
    pub producer: String,
    pub id: u64,
    pub started: u64,
    pub finished: u64,
    pub outcome: &'static str,
    pub attempts: Vec<Attempt>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Attempt {
    pub broker: String,
    pub at: u64,
    pub failure: Option<&'static str>,
}

impl Send {
    pub(crate) fn new(sim: &Sim, s: &sim::SendRecord) -> Self {
        Self {
            producer: sim.directory().name(s.producer()).to_owned(),
            id: s.id(),
            started: s.started().as_millis(),
            finished: s.finished().as_millis(),
            outcome: match s.outcome() {
                sim::SendOutcome::Ok => "ok",
                sim::SendOutcome::Failed => "failed",
                sim::SendOutcome::Indeterminate => "indeterminate",
            },
            attempts: s
                .attempts()
                .iter()
                .map(|a| Attempt {
                    broker: sim.directory().group_name(a.group()).to_string(),
                    at: a.at().as_millis(),
                    failure: a.failure().map(|f| match f {
                        sim::Failure::ConnectFailed => "connect-failed",
                        sim::Failure::Closed => "closed",
                        sim::Failure::Timeout => "timeout",
                    }),
                })
                .collect(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Fault {
    pub at: u64,
    pub action: String,
    pub target: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LinkInfo {
    pub a: String,
    pub b: String,
    pub state: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Isolation {
    pub producer: String,
    pub broker: String,
    pub until: u64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BranchInfo {
    pub id: usize,
    pub label: String,
    pub parent: Option<usize>,
    pub fork_at: Option<u64>,
    pub head: u64,
    pub current: bool,
    pub dropped: usize,
    pub kept: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Injected {
    pub at: u64,
    pub action: String,
}

/// One queue a consumer holds.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ConsumerQueue {
    pub broker: String,
    pub queue_id: i32,
    pub next_offset: Option<u64>,
    pub committed_offset: Option<u64>,
    pub max_offset: Option<u64>,
    pub from: Option<&'static str>,
    pub pulling_from: Option<String>,
}

/// A consumer's queues and what it consumed.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Consumer {
    pub name: String,
    pub group: String,
    pub topic: String,
    pub running: bool,
    pub queues: Vec<ConsumerQueue>,
    pub consumed: u64,
    pub duplicates: u64,
}

impl Consumer {
    pub(crate) fn new(sim: &Sim, name: String, v: sim::ConsumerView) -> Self {
        Self {
            name,
            group: v.group().to_owned(),
            topic: v.topic().to_string(),
            running: v.running(),
            queues: v
                .queues()
                .iter()
                .map(|q| ConsumerQueue {
                    broker: q.broker().to_string(),
                    queue_id: q.queue_id(),
                    next_offset: q.next_offset(),
                    committed_offset: q.committed_offset(),
                    max_offset: q.max_offset(),
                    from: q.from().map(sim::StartFrom::name),
                    pulling_from: q.pulling_from().map(|n| sim.directory().name(n).to_owned()),
                })
                .collect(),
            consumed: v.consumed(),
            duplicates: v.duplicates(),
        }
    }
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
    pub script: Vec<Fault>,
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
        // Topics in the order the scenario names them: clients' first, then created ones.
        let mut topics: Vec<String> = Vec::new();
        let named = nodes.iter().filter_map(|n| n.topic.clone()).chain(s.topics.iter().map(|t| t.name.clone()));
        for t in named {
            if !topics.contains(&t) {
                topics.push(t);
            }
        }
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
                .map(|e| Fault {
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
