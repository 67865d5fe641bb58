// @ts-check
// The page's render pass: the diagram, the clock and the panels drawn from the store's state,
// and the controls that show that state following each change of it (two of them, the table
// and dashboard toggles, dispatch their change). Built with its widgets and its elements.
import { t } from "./i18n.js";
import { secs } from "./format.js";
import { legendText } from "../diagram/glyphs.js";
import {
  renderNsTables,
  renderDivergence,
  renderTimers,
  renderMeasurements,
  renderTableView,
} from "../panels/tables.js";
import { renderRouteGrid } from "../panels/routes.js";
import { shows } from "../lessons/common.js";

// While playing, one text panel per frame and none more often than this.
const PANEL_MS = 60;

// How far the scrubber reaches: 3 min past the last scripted action (5 min at least), and
// past a fault isolation that sendLatencyFaultEnable may start.
export function horizonFor(model) {
  let h = Math.max(300000, ...model.script.map((a) => a.at + 180000));
  const tolerant =
    model.nodes.some((n) => n.faultTolerance) || model.script.some((a) => /^faulttolerance \S+ on$/.test(a.action));
  if (tolerant) h = Math.max(h, model.timings.isolationMs + 120000);
  return Math.ceil(h / 60000) * 60000;
}

export class PageView {
  // `w`: the widgets drawn — diagram, timeline, panels, log, compare, sheet (the node's). `el`: the elements named
  // below. `reduced`: the reduced-motion media query.
  constructor(store, w, el, reduced) {
    this.store = store;
    this.w = w;
    this.el = el;
    this.reduced = reduced;
    this.frameTimes = [];
    store.subscribe((state, action) => this.reflect(state, action));
    el.tableToggle.addEventListener("click", () => store.dispatch({ type: "tableView" }));
    el.layoutToggle.addEventListener("click", () =>
      store.dispatch({ type: "dashboard", on: !store.state.ui.dashboard }),
    );
    reduced.addEventListener("change", () => this.render());
  }

  get reducedMotion() {
    return this.reduced.matches;
  }

  // A new scenario or branch text: what stays put while it runs.
  setMeta(meta) {
    this.w.diagram.setMeta(meta);
    this.w.timeline.setMeta(meta, horizonFor(meta.model));
    this.w.log.setNodes(meta.nodes.map((n) => n.name));
    this.w.log.setKinds(meta.kinds);
    this.lastFaults = null;
  }

  // Render after an answer, its time kept for the page benchmark (frameStats).
  timed(traceFrom) {
    const t0 = performance.now();
    this.render(traceFrom);
    this.frameTimes.push(performance.now() - t0);
    if (this.frameTimes.length > 600) this.frameTimes.shift();
  }

  // The controls that show the store's state follow each change of it (the diagram and the
  // panels are drawn by render, at the pace of the clock).
  reflect(state, action) {
    const el = this.el;
    switch (action.type) {
      case "play":
      case "pause": {
        const playing = String(state.playback.playing);
        // A pause while paused changes nothing on the page (T29 counts its mutations).
        if (el.btnPlay.dataset.playing === playing) break;
        el.btnPlay.setAttribute("aria-pressed", playing);
        el.btnPlay.textContent = state.playback.playing ? t("pause") : t("play");
        el.btnPlay.dataset.playing = playing;
        break;
      }
      case "speed": {
        const x = state.playback.speed;
        el.speedOut.textContent = `${x}×`;
        el.speedOut.dataset.speed = String(x);
        for (const b of el.speedPresets.querySelectorAll("button"))
          b.setAttribute("aria-pressed", String(Number(b.dataset.speed) === x));
        break;
      }
      case "tableView":
        el.tableToggle.setAttribute("aria-pressed", String(state.ui.tableView));
        el.tableView.hidden = !state.ui.tableView;
        el.diagramWrap.hidden = state.ui.tableView;
        this.render();
        break;
      case "dashboard":
        el.layoutToggle.setAttribute("aria-pressed", String(state.ui.dashboard));
        this.w.panels.setDashboard(state.ui.dashboard);
        break;
      case "lesson":
        el.lessonSelect.value = state.lesson.id || "";
        if (state.lesson.id) el.body.dataset.lesson = state.lesson.id;
        else delete el.body.dataset.lesson;
        this.w.panels.setShown(shows(state.lesson.reveal, "tables"));
        // What the step names on the diagram (while playing, the next frame draws it).
        if (!state.playback.playing) this.render();
        break;
      case "panel":
        this.w.panels.show(action.id);
        break;
    }
  }

  // While playing, the diagram, clock and scrubber follow every frame and the text panels take
  // turns, one per frame (they are read, not watched). Paused or after an action: everything.
  // Panels off screen (other tabs) are not drawn at all.
  render(traceFrom = this.store.state.trace.length) {
    const state = this.store.state;
    const { snap: s, meta } = state.view || {};
    if (!s || !meta || state.ui.live !== null) return;
    const { diagram, timeline, panels, log, compare, sheet } = this.w;
    const el = this.el;
    const playing = state.playback.playing;
    this.logFrom = Math.min(this.logFrom ?? traceFrom, traceFrom);
    el.clock.dataset.simMs = String(s.time);
    el.clock.textContent = `t = ${secs(s.time)}`;
    const branch = s.branches.find((b) => b.current);
    el.statusMeta.textContent = `${t("seed", { s: meta.model.seed })} · ${t("profile", { p: s.profile })} · ${t("branchOf", { b: branch.parent === null ? t("branchMain") : branch.id })}`;
    const reduced = this.reduced.matches;
    const focus = state.lesson.focus;
    const highlight = state.selection.highlight;
    diagram.render(s, {
      playing,
      reduced,
      selected: state.selection.node,
      highlight: focus.nodes.length ? focus.nodes : highlight ? [highlight] : [],
      highlightLinks: focus.links,
      // A lesson step's subject: the rest of the traffic is muted (lessons/hold.js).
      subject: state.lesson.subject,
      reveal: state.lesson.reveal,
    });
    // An open node sheet's words keep up with the clock, as the diagram does.
    sheet.refresh(s);
    renderDivergence(el.divergence, s);
    timeline.renderCursor(s);
    const on = (id) => panels.visible(id);
    const each = [
      () => on("routes") && renderRouteGrid(el.routeGrid, s, meta),
      () => on("tables") && renderNsTables(el.nsTables, s),
      () => on("timers") && renderTimers(el.timers, s),
      () => on("measure") && renderMeasurements(el.measurements, s),
      () => {
        if (!on("lanes")) return;
        const faultsKey =
          JSON.stringify(s.faults) + JSON.stringify(s.stale.map((w) => [w.client, w.from, w.to === null])) + s.branch;
        timeline.render(s, state.sends, faultsKey !== this.lastFaults, state.trace);
        this.lastFaults = faultsKey;
      },
      () => {
        if (!on("log")) return;
        log.update(state.trace, this.logFrom, playing ? 20 : Infinity);
        this.logFrom = undefined;
      },
      () => state.ui.tableView && renderTableView(el.tableView, s, meta),
      () => on("compare") && compare.render(s),
    ];
    if (playing) {
      // One panel per frame, and none more often than every PANEL_MS: they are read, not watched,
      // and a frame is for the diagram first.
      const now = performance.now();
      if (now - (this.panelAt || 0) >= PANEL_MS) {
        this.panelAt = now;
        this.turn = ((this.turn || 0) + 1) % each.length;
        each[this.turn]();
      }
    } else {
      for (const p of each) p();
    }
    const legend = `${t("legendMsgs")} ${legendText()}.${reduced ? ` ${t("reducedMotion")}` : ""}`;
    if (el.legend.textContent !== legend) el.legend.textContent = legend;
    if (!el.lanesLegend.textContent) el.lanesLegend.textContent = t("legendLanes");
  }
}
