//! [`ClusterView`]: the whole simulated cluster at one time.

use alloc::borrow::ToOwned;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use nameserver_core::time::Instant;
use nameserver_core::view::NsTables;
use serde::Serialize;

use super::cursor::{Cursor, Delta};
use super::flights::FlightInfo;
use super::history::{BranchInfo, FaultInfo, Measurement, StaleWindow};
use super::lacks::Lacks;
use super::nodes::{ConsumerInfo, IsolationInfo, LinkInfo, NodeInfo};
use super::routes::{ClientRoute, TopicRoute};
use crate::{Actor, NodeId, Role, Sim, Timeline, observe};

/// The cluster at the current time, with the logs since a [`Cursor`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ClusterView {
    /// Virtual time (ms).
    pub time: u64,
    /// When the next event is due (ms).
    pub next: Option<u64>,
    /// Every node with its state and timers.
    pub nodes: Vec<NodeInfo>,
    /// Messages on the wire now.
    pub flights: Vec<FlightInfo>,
    /// Each running NameServer's tables, by name (one that is not running has none).
    pub ns: BTreeMap<String, NsTables>,
    /// What each NameServer would answer for each of the scenario's topics
    /// ([`Scenario::topic_names`](crate::Scenario::topic_names)), by NameServer and topic
    /// (`None`: TOPIC_NOT_EXIST, or not running).
    pub routes: BTreeMap<String, BTreeMap<String, Option<TopicRoute>>>,
    /// Each running producer's and consumer's cached route, by name.
    pub clients: BTreeMap<String, ClientRoute>,
    /// Each consumer's queues, by name.
    pub consumers: BTreeMap<String, ConsumerInfo>,
    /// Every fault injected so far.
    pub faults: Vec<FaultInfo>,
    /// Intervals in which a client's route differed from its NameServer's.
    pub stale: Vec<StaleWindow>,
    /// What each fault did.
    pub measurements: Vec<Measurement>,
    /// Links that are not up.
    pub links: Vec<LinkInfo>,
    /// Brokers each producer's fault strategy isolates.
    pub isolations: Vec<IsolationInfo>,
    /// Every branch of the time machine.
    pub branches: Vec<BranchInfo>,
    /// Which running NameServer lacks what another one lists.
    pub lacks: Lacks,
    /// The logs since the caller's cursor.
    pub delta: Delta,
}

impl ClusterView {
    /// The current branch of `timeline` now, with the logs since `cursor`.
    #[must_use]
    pub fn of(timeline: &Timeline, cursor: Option<&Cursor>) -> Self {
        let sim = timeline.sim();
        let branch = &timeline.branches()[timeline.current_branch()];
        let topics = branch.scenario().topic_names();
        let mut ns = BTreeMap::new();
        let mut routes = BTreeMap::new();
        let mut clients = BTreeMap::new();
        let mut consumers = BTreeMap::new();
        for (i, node) in sim.nodes().iter().enumerate() {
            let id = NodeId(i as u16);
            let name = sim.directory().name(id).to_owned();
            match node.role() {
                Role::NameServer => {
                    if let Some(tables) = ns_tables(sim, id) {
                        ns.insert(name.clone(), tables);
                    }
                    let answers = topics.iter().map(|t| ((*t).to_owned(), TopicRoute::answered(sim, id, t))).collect();
                    routes.insert(name, answers);
                }
                Role::Producer | Role::Consumer => {
                    if let Some(route) = ClientRoute::of(sim, id) {
                        clients.insert(name.clone(), route);
                    }
                    if let Some(consumer) = ConsumerInfo::of(sim, id) {
                        consumers.insert(name.clone(), consumer);
                    }
                }
                Role::Broker => {}
            }
        }
        let nodes = NodeInfo::all(sim);
        Self {
            time: sim.now().as_millis(),
            next: sim.next_event_time().map(Instant::as_millis),
            lacks: Lacks::of(&nodes, &ns, &BTreeMap::new(), &BTreeMap::new()),
            nodes,
            flights: FlightInfo::all(sim),
            ns,
            routes,
            clients,
            consumers,
            faults: sim.history().faults().iter().map(|f| FaultInfo::of(sim, f)).collect(),
            stale: observe::stale_windows(sim).iter().map(|w| StaleWindow::of(sim, w)).collect(),
            measurements: observe::measurements(sim).iter().map(|m| Measurement::of(sim, m)).collect(),
            links: LinkInfo::all(sim),
            isolations: IsolationInfo::all(sim),
            branches: BranchInfo::all(timeline),
            delta: Delta::since(timeline, cursor),
        }
    }
}

/// NameServer `id`'s tables, each live broker's removal clock with the idle close of its
/// channel; `None` if it is not running.
#[must_use]
pub(crate) fn ns_tables(sim: &Sim, id: NodeId) -> Option<NsTables> {
    let Actor::NameServer(node) = sim.nodes().get(usize::from(id.0))?.actor() else { return None };
    let idle = sim.scenario().idle_close_after(node.ns.config());
    Some(NsTables::of(&node.ns, |live| {
        idle.and_then(|idle| node.idle_clocks.get(&live.conn).map(|clock| clock.deadline(idle)))
    }))
}
