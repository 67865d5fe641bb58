//! `Simulation`: the deterministic cluster model, with its time machine, behind one handle.

use nameserver_core::time::Instant;
use nameserver_sim::scenario::text::action_text;
use nameserver_sim::view::{
    BranchInfo, ClientRoute, ClusterView, ConsumerInfo, Cursor, FaultInfo, FlightInfo, IsolationInfo, LinkInfo,
    Measurement, NodeInfo, SendInfo, StaleWindow, TopicRoute, TraceEvent, WireEvent,
};
use nameserver_sim::{Action, Actor, NodeId, Payload, Role, Scenario, Sim, Timeline, built_in_text, observe};
use wasm_bindgen::prelude::*;

use crate::convert::{millis, to_js};
use crate::dto;

/// A simulated RocketMQ cluster whose NameServers are the real one.
#[wasm_bindgen]
pub struct Simulation {
    timeline: Timeline,
    /// Where each `step` started, so `stepBack` undoes exactly one step.
    steps: Vec<(Instant, Instant)>,
}

impl Simulation {
    fn sim(&self) -> &Sim {
        self.timeline.sim()
    }

    fn branch_scenario(&self) -> &Scenario {
        self.timeline.branches()[self.timeline.current_branch()].scenario()
    }

    fn node(&self, name: &str) -> Result<NodeId, JsError> {
        self.sim()
            .directory()
            .names()
            .iter()
            .position(|n| n == name)
            .map(|i| NodeId(i as u16))
            .ok_or_else(|| JsError::new(&format!("no node called `{name}`")))
    }
}

#[wasm_bindgen]
impl Simulation {
    /// A simulation of a scenario in its text form (newline- or `;`-separated statements).
    ///
    /// Throws an `Error` naming the bad statement.
    #[wasm_bindgen(constructor)]
    pub fn new(scenario: &str) -> Result<Self, JsError> {
        let scenario = Scenario::parse(scenario).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(Self { timeline: Timeline::new(&scenario), steps: Vec::new() })
    }

    /// A built-in scenario by id (`S1` … `S10`).
    #[wasm_bindgen(js_name = builtIn)]
    pub fn built_in(id: &str) -> Result<Self, JsError> {
        let text = built_in_text(id).ok_or_else(|| JsError::new(&format!("no built-in scenario `{id}`")))?;
        Self::new(&text)
    }

    /// Virtual time in milliseconds.
    #[wasm_bindgen(getter)]
    pub fn time(&self) -> f64 {
        self.sim().now().as_millis() as f64
    }

    /// When the next event is due, in milliseconds.
    #[wasm_bindgen(js_name = nextEventTime)]
    pub fn next_event_time(&self) -> Option<f64> {
        self.sim().next_event_time().map(|t| t.as_millis() as f64)
    }

    /// Moves to `ms` (forward by running, backward by restoring a checkpoint and replaying).
    pub fn seek(&mut self, ms: f64) -> Result<(), JsError> {
        self.timeline.seek(millis(ms, "seek time")?);
        Ok(())
    }

    /// Runs `ms` milliseconds forward.
    pub fn advance(&mut self, ms: f64) -> Result<(), JsError> {
        let by = millis(ms, "advance")?;
        let to = Instant::from_millis(self.sim().now().as_millis().saturating_add(by.as_millis()));
        self.timeline.seek(to);
        Ok(())
    }

    /// Runs to the next trace line (at most to `limitMs`); returns the new lines.
    #[wasm_bindgen(unchecked_return_type = "TraceEvent[]")]
    pub fn step(&mut self, limit_ms: Option<f64>) -> Result<JsValue, JsError> {
        let limit = match limit_ms {
            Some(ms) => millis(ms, "step limit")?,
            None => Instant::from_millis(self.sim().now().as_millis() + 24 * 3_600_000),
        };
        let before = self.sim().trace().len();
        let from = self.sim().now();
        self.timeline.step(limit);
        self.steps.push((from, self.sim().now()));
        let sim = self.sim();
        to_js(&sim.trace()[before..].iter().map(|e| TraceEvent::of(sim, e)).collect::<Vec<_>>())
    }

    /// Undoes the last `step` (back to exactly where it started); without one, goes back to
    /// the previous trace line's time.
    #[wasm_bindgen(js_name = stepBack)]
    pub fn step_back(&mut self) {
        let now = self.sim().now();
        match self.steps.pop() {
            Some((from, to)) if to == now => self.timeline.seek(from),
            _ => {
                self.steps.clear();
                self.timeline.step_back();
            }
        }
    }

    /// Applies a script action now, e.g. `kill broker-b`, `cut broker-b NS-2`, `drop 17`,
    /// `kill C1`, `restart C1`, `send P1 5`. In the past this forks a new branch (as `fork()`
    /// does: without the actions injected later on the current one). Throws on a bad action.
    pub fn inject(&mut self, action: &str) -> Result<(), JsError> {
        let probe = format!("at 0 {action}");
        let mut scenario = self.sim().scenario().clone();
        scenario.script.clear();
        let parsed =
            Scenario::parse(&format!("{}\n{probe}", scenario.to_text())).map_err(|e| JsError::new(&e.message))?;
        let action: Action =
            parsed.script.into_iter().next().map(|e| e.action).ok_or_else(|| JsError::new("no action"))?;
        self.timeline.inject(action);
        Ok(())
    }

    /// Forks the current branch here; returns the new branch's id. The fork keeps the
    /// scenario's own script and what was injected up to now; actions injected on the current
    /// branch after now (see `laterInjected`) are dropped unless `keep_later` is true.
    pub fn fork(&mut self, keep_later: Option<bool>) -> usize {
        self.timeline.fork(keep_later.unwrap_or(false))
    }

    /// The actions injected on the current branch after now: what `fork()` (and `inject` in
    /// the past) drops unless kept.
    #[wasm_bindgen(js_name = laterInjected, unchecked_return_type = "InjectedAction[]")]
    pub fn later_injected(&self) -> Result<JsValue, JsError> {
        let list: Vec<dto::Injected> = self
            .timeline
            .later_injected()
            .iter()
            .map(|e| dto::Injected { at: e.at.as_millis(), action: action_text(&e.action) })
            .collect();
        to_js(&list)
    }

    /// Switches to another branch (at the same time).
    #[wasm_bindgen(js_name = selectBranch)]
    pub fn select_branch(&mut self, id: usize) -> Result<(), JsError> {
        if self.timeline.select(id) { Ok(()) } else { Err(JsError::new(&format!("no branch {id}"))) }
    }

    /// Every branch.
    #[wasm_bindgen(unchecked_return_type = "BranchInfo[]")]
    pub fn branches(&self) -> Result<JsValue, JsError> {
        to_js(&BranchInfo::all(&self.timeline))
    }

    /// The cluster now, with the logs since `cursor` (the `delta.cursor` of the previous view;
    /// none: everything). One call per frame: see `ClusterView` and `Delta` for what it holds
    /// and when its delta is `reset`.
    #[wasm_bindgen(unchecked_return_type = "ClusterView")]
    pub fn view(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Cursor | null | undefined")] cursor: JsValue,
    ) -> Result<JsValue, JsError> {
        let cursor: Option<Cursor> = if cursor.is_null() || cursor.is_undefined() {
            None
        } else {
            Some(serde_wasm_bindgen::from_value(cursor).map_err(|e| JsError::new(&format!("bad cursor: {e}")))?)
        };
        to_js(&ClusterView::of(&self.timeline, cursor.as_ref()))
    }

    /// Every node with its state and timers.
    #[wasm_bindgen(unchecked_return_type = "NodeInfo[]")]
    pub fn nodes(&self) -> Result<JsValue, JsError> {
        let sim = self.sim();
        to_js(&observe::node_views(sim).into_iter().map(|v| NodeInfo::of(sim, v)).collect::<Vec<_>>())
    }

    /// A NameServer's tables (brokerLiveTable with ages, brokerAddrTable, clusterAddrTable,
    /// topicQueueTable).
    #[wasm_bindgen(js_name = nameServerTables, unchecked_return_type = "NameServerTables")]
    pub fn name_server_tables(&self, name: &str) -> Result<JsValue, JsError> {
        let id = self.node(name)?;
        let sim = self.sim();
        let node = &sim.nodes()[usize::from(id.0)];
        if node.role() != Role::NameServer {
            return Err(JsError::new(&format!("`{name}` is not a NameServer")));
        }
        let ns = match &node.actor() {
            Actor::NameServer(n) => Some(n.ns()),
            _ => None,
        };
        to_js(&dto::Tables::new(name.to_owned(), node.state().name(), ns, &observe::removal_clocks(sim, id)))
    }

    /// The route a NameServer would answer for `topic` now, or `null` (TOPIC_NOT_EXIST).
    #[wasm_bindgen(js_name = nameServerRoute, unchecked_return_type = "TopicRoute | null")]
    pub fn name_server_route(&self, name: &str, topic: &str) -> Result<JsValue, JsError> {
        let id = self.node(name)?;
        match TopicRoute::answered(self.sim(), id, topic) {
            Some(r) => to_js(&r),
            None => Ok(JsValue::NULL),
        }
    }

    /// A producer's or consumer's cached route, its NameServer and whether it is stale.
    #[wasm_bindgen(js_name = clientRoute, unchecked_return_type = "ClientRoute")]
    pub fn client_route(&self, name: &str) -> Result<JsValue, JsError> {
        let id = self.node(name)?;
        let sim = self.sim();
        let route = ClientRoute::of(sim, id)
            .ok_or_else(|| JsError::new(&format!("`{name}` is not a running producer or consumer")))?;
        to_js(&route)
    }

    /// Number of messages put on the wire so far (frames, FIN, RST), lost ones included.
    #[wasm_bindgen(js_name = wireLength)]
    pub fn wire_length(&self) -> usize {
        self.sim().history().wire().len()
    }

    /// The messages put on the wire from index `from_index` on, in sending order, each as it
    /// was sent. The log is the current branch's up to now: seeking back truncates it (an
    /// index past `wireLength()` gives `[]`) and another branch has its own, so after either
    /// read again from an index taken at or before that time.
    #[wasm_bindgen(unchecked_return_type = "WireEvent[]")]
    pub fn wire(&self, from_index: usize) -> Result<JsValue, JsError> {
        let sim = self.sim();
        let all = &sim.history().wire();
        to_js(&all[from_index.min(all.len())..].iter().map(|r| WireEvent::of(sim, r)).collect::<Vec<_>>())
    }

    /// A consumer's queues (next, committed and max offsets, where each started, which
    /// instance it reads) and what it consumed, duplicates counted (across restarts).
    #[wasm_bindgen(js_name = consumerView, unchecked_return_type = "ConsumerView")]
    pub fn consumer_view(&self, name: &str) -> Result<JsValue, JsError> {
        let id = self.node(name)?;
        let sim = self.sim();
        let view =
            observe::consumer_view(sim, id).ok_or_else(|| JsError::new(&format!("`{name}` is not a consumer")))?;
        to_js(&ConsumerInfo::of(sim, name.to_owned(), &view))
    }

    /// Messages on the wire now.
    #[wasm_bindgen(unchecked_return_type = "FlightInfo[]")]
    pub fn flights(&self) -> Result<JsValue, JsError> {
        let sim = self.sim();
        to_js(&observe::flights(sim).into_iter().map(|f| FlightInfo::of(sim, f)).collect::<Vec<_>>())
    }

    /// The frame of a message in flight, decoded (`undefined` for FIN/RST or an unknown id).
    #[wasm_bindgen(js_name = flightFrame, unchecked_return_type = "DecodedFrame | undefined")]
    pub fn flight_frame(&self, id: f64) -> Result<JsValue, JsError> {
        let Some(flight) = self.sim().net().flights().get(&(id as u64)) else { return Ok(JsValue::UNDEFINED) };
        let Payload::Frame(bytes) = flight.payload() else { return Ok(JsValue::UNDEFINED) };
        crate::codec::decode_frame(bytes)
    }

    /// Links that are not up: `{a, b, state: "cut" | "reset"}`.
    #[wasm_bindgen(unchecked_return_type = "LinkInfo[]")]
    pub fn links(&self) -> Result<JsValue, JsError> {
        to_js(&LinkInfo::all(self.sim()))
    }

    /// Brokers each producer's fault strategy isolates, with when each becomes available again
    /// (entries in the past are kept, as the client keeps them).
    #[wasm_bindgen(unchecked_return_type = "IsolationInfo[]")]
    pub fn isolations(&self) -> Result<JsValue, JsError> {
        to_js(&IsolationInfo::all(self.sim()))
    }

    /// Number of trace lines so far.
    #[wasm_bindgen(js_name = traceLength)]
    pub fn trace_length(&self) -> usize {
        self.sim().trace().len()
    }

    /// Trace lines `from` (inclusive) to `to` (exclusive; default: the end).
    #[wasm_bindgen(unchecked_return_type = "TraceEvent[]")]
    pub fn trace(&self, from: usize, to: Option<usize>) -> Result<JsValue, JsError> {
        let sim = self.sim();
        let all = sim.trace();
        let end = to.unwrap_or(all.len()).min(all.len());
        let start = from.min(end);
        to_js(&all[start..end].iter().map(|e| TraceEvent::of(sim, e)).collect::<Vec<_>>())
    }

    /// What each fault did: NameServer removals, client route updates, sends affected.
    #[wasm_bindgen(unchecked_return_type = "Measurement[]")]
    pub fn measurements(&self) -> Result<JsValue, JsError> {
        let sim = self.sim();
        to_js(&observe::measurements(sim).iter().map(|m| Measurement::of(sim, m)).collect::<Vec<_>>())
    }

    /// Intervals in which a client's route differed from its NameServer's.
    #[wasm_bindgen(js_name = staleWindows, unchecked_return_type = "StaleWindow[]")]
    pub fn stale_windows(&self) -> Result<JsValue, JsError> {
        let sim = self.sim();
        to_js(&observe::stale_windows(sim).iter().map(|w| StaleWindow::of(sim, w)).collect::<Vec<_>>())
    }

    /// Finished sends (from index `from`), each with its attempts.
    #[wasm_bindgen(unchecked_return_type = "SendInfo[]")]
    pub fn sends(&self, from: usize) -> Result<JsValue, JsError> {
        let sim = self.sim();
        let all = &sim.history().sends();
        to_js(&all[from.min(all.len())..].iter().map(|s| SendInfo::of(sim, s)).collect::<Vec<_>>())
    }

    /// Every fault injected so far.
    #[wasm_bindgen(unchecked_return_type = "FaultInfo[]")]
    pub fn faults(&self) -> Result<JsValue, JsError> {
        let sim = self.sim();
        to_js(&sim.history().faults().iter().map(|f| FaultInfo::of(sim, f)).collect::<Vec<_>>())
    }

    /// A fingerprint of the state (hex).
    #[wasm_bindgen(js_name = stateHash)]
    pub fn state_hash(&self) -> String {
        format!("{:016x}", self.sim().state_hash())
    }

    /// A fingerprint of the trace so far (hex).
    #[wasm_bindgen(js_name = traceHash)]
    pub fn trace_hash(&self) -> String {
        format!("{:016x}", self.sim().trace_hash())
    }

    /// The current branch's scenario, one statement per line: as loaded plus the injected
    /// actions the branch keeps (a fresh run of it equals the branch).
    #[wasm_bindgen(js_name = scenarioText)]
    pub fn scenario_text(&self) -> String {
        self.branch_scenario().to_text()
    }

    /// The same, `;`-separated, for URLs.
    #[wasm_bindgen(js_name = scenarioCompact)]
    pub fn scenario_compact(&self) -> String {
        self.branch_scenario().to_compact()
    }

    /// The current branch's scenario as the model reads it: settings, nodes (with the
    /// NameServer each client is configured with), topics, script and the model's periods and
    /// timeouts (`timings`), so a page never parses the text or types a period in.
    #[wasm_bindgen(js_name = scenarioView, unchecked_return_type = "ScenarioView")]
    pub fn scenario_view(&self) -> Result<JsValue, JsError> {
        to_js(&dto::ScenarioView::new(self.branch_scenario()))
    }

    /// The timing profile: `4.9` or `5.x`.
    #[wasm_bindgen(getter)]
    pub fn profile(&self) -> String {
        self.sim().scenario().profile.name().to_owned()
    }

    /// Checks the model's invariants; throws an `Error` describing the first violation.
    pub fn check(&self) -> Result<(), JsError> {
        observe::check(self.sim())
            .map_err(|v| JsError::new(&format!("{}: {}", self.sim().directory().name(v.node()), v.message())))
    }
}

/// Every kind a trace line may have, in the core's order (the log's filter lists them).
#[wasm_bindgen(js_name = traceKinds, unchecked_return_type = "TraceKind[]")]
pub fn trace_kinds() -> Result<JsValue, JsError> {
    let names: Vec<&str> = nameserver_sim::TraceKind::ALL.iter().map(|k| k.name()).collect();
    to_js(&names)
}

/// Every built-in scenario: id, title and full text.
#[wasm_bindgen(js_name = builtInScenarios, unchecked_return_type = "BuiltInScenario[]")]
pub fn built_in_scenarios() -> Result<JsValue, JsError> {
    let list: Vec<dto::BuiltIn> = nameserver_sim::BUILT_IN
        .iter()
        .map(|(id, title, _)| dto::BuiltIn { id, title, text: built_in_text(id).unwrap_or_default() })
        .collect();
    to_js(&list)
}
