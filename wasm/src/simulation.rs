//! `Simulation`: the deterministic cluster model, with its time machine, behind one handle.

use nameserver_core::time::Instant;
use nameserver_sim::scenario::text::action_text;
use nameserver_sim::view::{ClusterView, Cursor, TraceEvent};
use nameserver_sim::{Action, Payload, Scenario, Sim, Timeline, built_in_text, observe};
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

    /// The frame of a message in flight, decoded (`undefined` for FIN/RST or an unknown id).
    #[wasm_bindgen(js_name = flightFrame, unchecked_return_type = "DecodedFrame | undefined")]
    pub fn flight_frame(&self, id: f64) -> Result<JsValue, JsError> {
        let Some(flight) = self.sim().net().flights().get(&(id as u64)) else { return Ok(JsValue::UNDEFINED) };
        let Payload::Frame(frame) = flight.payload() else { return Ok(JsValue::UNDEFINED) };
        crate::codec::decode_frame(&frame.bytes())
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
