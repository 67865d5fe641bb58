// The page: its state is the store's (app/store.js), the latest snapshot from the worker among
// it, and it renders that. While paused nothing runs: the loop (app/loop.js) asks for no
// animation frame until Play.
import { createStore } from "./app/store.js";
import { Loop } from "./app/loop.js";
import { gateHit } from "./source/gate.js";
import { t, applyStatic, setLanguage } from "./app/i18n.js";
import { secs } from "./app/format.js";
import { SimClient } from "./source/sim-client.js";
import { Diagram } from "./diagram/diagram.js";
import { setTextMeasure } from "./diagram/labels.js";
import { setFontFamily } from "./diagram/nodes.js";
import { legendText } from "./diagram/glyphs.js";
import {
  renderNsTables,
  renderDivergence,
  renderTimers,
  renderMeasurements,
  renderTableView,
} from "./panels/tables.js";
import { renderRouteGrid } from "./panels/routes.js";
import { Timeline } from "./panels/timeline.js";
import { EventLog } from "./panels/log.js";
import { LessonRunner } from "./lessons/lesson-runner.js";
import { LESSONS, LESSON_ORDER } from "./lessons/index.js";
import { FaultUi } from "./panels/faults.js";
import { bindControls, PRESETS } from "./app/controls.js";
import { parseHash } from "./app/url.js";
import { shareUrl, updateUrl, share, exportTrace, importTrace } from "./app/share.js";
import { renderAbout } from "./panels/about.js";
import { Quiz } from "./lessons/quiz.js";
import { Announcer, announceFor } from "./app/announce.js";
import { LiveView, liveBases } from "./source/live.js";
import { Panels } from "./panels/panels.js";
import { Compare } from "./panels/compare.js";
import { Glossary } from "./lessons/glossary.js";

const $ = (id) => document.getElementById(id);
// Elements by the names a module knows them by: { name: id } → { name: element }.
const els = (ids) => Object.fromEntries(Object.entries(ids).map(([name, id]) => [name, $(id)]));

// What the modules below take from the page rather than reading it at import (so Node can
// import them): the language, the font family and a way to measure text.
setLanguage(new URLSearchParams(location.search).get("lang"));
setFontFamily(getComputedStyle(document.documentElement).fontFamily);
const measuring = (
  typeof OffscreenCanvas !== "undefined" ? new OffscreenCanvas(1, 1) : document.createElement("canvas")
).getContext("2d");
setTextMeasure((text, font) => {
  measuring.font = font;
  return measuring.measureText(text).width;
});
const MAX_FRAME_SIM_MS = (speed) => Math.max(250, speed * 500);
const PANEL_MS = 60;
const FREE_PLAY_KEY = "rmqsim.freePlay";

class App {
  constructor() {
    this.client = new SimClient();
    this.store = createStore();
    this.store.subscribe((state, action) => this.reflect(state, action));
    // One loop for both sources: the simulation's clock while playing, live mode while following.
    this.loop = new Loop((now) => (this.live ? this.live.frame(now) : this.frame(now)));
    this.frameTimes = [];
    // The clock's last (wall, target) pairs, for the tests and the page benchmark.
    this.clockTrace = [];
    this.reducedQuery = matchMedia("(prefers-reduced-motion: reduce)");
    this.announcer = new Announcer($("announcer"));
    this.glossary = new Glossary($("glossary"), $("glossary-list"), $("term-pop"));
    this.diagram = new Diagram($("diagram"), {
      onNode: (name) => {
        // A real cluster's nodes take no simulated faults.
        if (this.live) return;
        this.select(name);
        this.faults.openNode(name);
      },
      onFlight: (id) => this.faults.openFlight(id),
    });
    this.timeline = new Timeline({
      scrubber: $("scrubber"),
      lanes: $("lanes"),
      branches: $("branches"),
      onSeek: (ms, live) => this.scrub(ms, live),
      onBranch: (id) => this.selectBranch(id),
    });
    this.panels = new Panels($("tabs"), $("panels"), () => this.snap && this.render());
    this.log = new EventLog($("log"), $("log-node"), $("log-kind"), (line) => this.seekToLine(line));
    // Each module gets the few page functions it calls, no more.
    this.faults = new FaultUi(
      {
        current: () => this.current(),
        inject: (action) => this.inject(action),
        flightFrame: (id) => this.client.call("frame", { id }).then((r) => r.frame),
      },
      els({
        palette: "palette",
        input: "palette-input",
        list: "palette-list",
        sheet: "sheet",
        sheetTitle: "sheet-title",
        sheetBody: "sheet-body",
        sheetList: "sheet-list",
        forkAsk: "fork-ask",
        forkAskBody: "fork-ask-body",
      }),
    );
    this.quiz = new Quiz(
      {
        builtInText: (id) => this.builtInText(id),
        run: (args) => this.client.call("quiz", args),
        loadText: (text, ms) => this.loadText(text, ms),
      },
      $("quiz"),
      $("quiz-body"),
    );
    this.compare = new Compare(
      {
        scenarios: () => this.scenarios,
        branchText: () => this.meta.text,
        run: (args) => this.client.call("compare", args),
      },
      $("compare"),
    );
    this.lesson = new LessonRunner(
      {
        current: () => this.current(),
        trace: () => this.trace,
        loadBuiltIn: (id) => this.loadBuiltIn(id),
        scenarioTitle: (id) => this.scenarioTitle(id),
        hashes: () => this.hashes(),
        peekGate: (gate) => this.client.call("peekGate", { gate }),
        runGate: (gate) => this.runGate(gate),
        play: () => this.play(),
        pause: () => this.pause(),
        seek: (ms) => this.seek(ms),
        speedChosen: () => this.store.state.playback.userSpeed,
        setSpeed: (x) => this.setSpeed(x, false),
        showPanel: (id) => this.showPanel(id),
        render: () => this.render(),
        announce: (msg) => this.announce(msg),
        rememberFreePlay: (on) => this.rememberFreePlay(on),
        dispatch: (action) => this.store.dispatch(action),
      },
      {
        panel: $("lesson"),
        title: $("lesson-title"),
        text: $("lesson-text"),
        wait: $("lesson-wait"),
        waitText: $("lesson-wait-text"),
        skip: $("lesson-skip"),
        question: $("lesson-question"),
        context: $("lesson-context"),
        cont: $("lesson-continue"),
        replay: $("lesson-replay"),
        free: $("lesson-free"),
        progress: $("lesson-progress"),
        fold: $("lesson-fold"),
      },
    );
    this.reducedQuery.addEventListener("change", () => this.render());
    // On a phone the lesson is a sheet over the page's lower part: it may grow up to the
    // bottom of the (sticky) diagram, never over it.
    const fitSheet = () => {
      const top = $("top").offsetHeight + $("stage").offsetHeight + 8;
      document.documentElement.style.setProperty("--sheet", `${Math.max(180, window.innerHeight - top)}px`);
    };
    new ResizeObserver(fitSheet).observe($("stage"));
    window.addEventListener("resize", fitSheet);
  }

  // What the page shows, read from the store (only dispatch changes it).
  get snap() {
    return this.store.state.view && this.store.state.view.snap;
  }
  get meta() {
    return this.store.state.view && this.store.state.view.meta;
  }
  get trace() {
    return this.store.state.trace;
  }
  get sends() {
    return this.store.state.sends;
  }
  get playing() {
    return this.store.state.playback.playing;
  }
  get speed() {
    return this.store.state.playback.speed;
  }
  get selected() {
    return this.store.state.selection.node;
  }

  // The controls that show the store's state follow each change of it (the diagram and the
  // panels are drawn by render, at the pace of the clock).
  reflect(state, action) {
    switch (action.type) {
      case "play":
      case "pause": {
        const b = $("btn-play");
        b.setAttribute("aria-pressed", String(state.playback.playing));
        b.textContent = state.playback.playing ? t("pause") : t("play");
        b.dataset.playing = String(state.playback.playing);
        break;
      }
      case "speed": {
        const x = state.playback.speed;
        $("speed-out").textContent = `${x}×`;
        $("speed-out").dataset.speed = String(x);
        for (const b of document.querySelectorAll("#speed-presets button"))
          b.setAttribute("aria-pressed", String(Number(b.dataset.speed) === x));
        break;
      }
      case "tableView":
        $("table-toggle").setAttribute("aria-pressed", String(state.ui.tableView));
        $("table-view").hidden = !state.ui.tableView;
        $("diagram-wrap").hidden = state.ui.tableView;
        break;
      case "dashboard":
        $("layout-toggle").setAttribute("aria-pressed", String(state.ui.dashboard));
        this.panels.setDashboard(state.ui.dashboard);
        break;
      case "live":
        this.setLiveParam(state.ui.live);
        break;
      case "lesson":
        $("lesson-select").value = state.lesson.id || "";
        if (state.lesson.id) document.body.dataset.lesson = state.lesson.id;
        else delete document.body.dataset.lesson;
        break;
    }
  }

  async start() {
    applyStatic(document, $("lang-link"));
    bindControls(
      {
        toggle: () => this.toggle(),
        stepNext: (kind) => this.stepNext(kind),
        stepBack: () => this.stepBack(),
        jump: (ms) => this.jump(ms),
        seek: (ms) => this.seek(ms),
        toEnd: () => this.toEnd(),
        fork: () => this.fork(),
        openFaults: () => this.faults.openPalette(),
        share: () => this.share(),
        exportTrace: () => this.exportTrace(),
        importTrace: (file) => this.importTrace(file),
        speed: () => this.speed,
        setSpeed: (x) => this.setSpeed(x, true),
        showLog: () => {
          this.showPanel("log");
          this.log.focus();
        },
        toggleTable: () => this.toggleTable(),
        selectIndex: (i) => this.selectIndex(i),
        isLive: () => !!this.live,
        dialogOpen: () => !!document.querySelector("dialog[open]"),
      },
      els({
        play: "btn-play",
        step: "btn-step",
        stepBack: "btn-stepback",
        back10: "btn-back10",
        fwd10: "btn-fwd10",
        home: "btn-home",
        end: "btn-end",
        fork: "btn-fork",
        faults: "btn-faults",
        share: "btn-share",
        exportTrace: "btn-export",
        importFile: "import-file",
        speedDown: "speed-down",
        speedUp: "speed-up",
        presets: "speed-presets",
        stepType: "step-type",
        helpList: "help-list",
        helpBtn: "help-btn",
        help: "help",
      }),
    );
    this.glossary.bind(document.body);
    const { scenarios, resources } = await this.client.call("init");
    this.scenarios = scenarios;
    this.workerResources = resources;
    const sel = $("scenario-select");
    sel.innerHTML = scenarios
      .map((s) => `<option value="${s.id}">${s.id} — ${this.scenarioTitle(s.id)}</option>`)
      .join("");
    sel.addEventListener("change", () => {
      this.lesson.freePlay();
      this.loadBuiltIn(sel.value);
    });
    const lessons = $("lesson-select");
    lessons.innerHTML =
      `<option value="">${t("freePlayOption")}</option>` +
      LESSON_ORDER.map(
        (id) =>
          `<option value="${id}">${id === "intro" ? t("introTitle") : `${id} — ${this.scenarioTitle(id)}`}</option>`,
      ).join("");
    lessons.addEventListener("change", () =>
      lessons.value ? this.lesson.start(lessons.value) : this.lesson.freePlay(),
    );
    $("lesson-btn").addEventListener("click", () => this.lesson.start(LESSONS[sel.value] ? sel.value : "S1"));
    $("quiz-btn").addEventListener("click", () => this.quiz.open());
    $("table-toggle").addEventListener("click", () => this.toggleTable());
    $("layout-toggle").addEventListener("click", () => this.toggleDashboard());
    $("glossary-btn").addEventListener("click", () => this.glossary.open());
    $("about-btn").addEventListener("click", () => this.openAbout());
    $("about").addEventListener("change", (e) => this.aboutChange(e));
    $("live-btn").addEventListener("click", () => (this.live ? this.exitLive() : this.enterLive()));
    $("live-exit").addEventListener("click", () => this.exitLive());
    $("menu-btn").addEventListener("click", () => this.menu($("menu-btn").getAttribute("aria-expanded") !== "true"));
    $("more").addEventListener("click", (e) => e.target.closest("button") && this.menu(false));
    document.addEventListener("keydown", (e) => e.key === "Escape" && !$("more").hidden && this.menu(false, true));
    this.setSpeed(60, false);
    const fromUrl = parseHash(location.hash);
    const params = new URLSearchParams(location.search);
    if (fromUrl && fromUrl.lesson && LESSONS[fromUrl.lesson]) {
      await this.lesson.start(fromUrl.lesson, fromUrl.step || 0);
    } else if (fromUrl && fromUrl.text) {
      await this.loadText(fromUrl.text, fromUrl.time);
      if (fromUrl.selected) this.select(fromUrl.selected);
    } else if (params.has("live") || remembered()) {
      await this.loadBuiltIn("S1");
    } else {
      await this.lesson.start("intro");
    }
    if (params.has("live")) this.enterLive(params.get("live"));
    document.body.dataset.ready = "true";
    this.offline = keepOffline(this.workerResources);
  }

  // The menu of less frequent actions (and, on a phone, of the header's own controls).
  menu(open, refocus = false) {
    $("menu-btn").setAttribute("aria-expanded", String(open));
    $("more").hidden = !open;
    $("top").classList.toggle("open", open);
    if (refocus) $("menu-btn").focus();
  }

  rememberFreePlay(on) {
    try {
      if (on) localStorage.setItem(FREE_PLAY_KEY, "1");
      else localStorage.removeItem(FREE_PLAY_KEY);
    } catch {
      // Storage may be off (private mode): the choice is simply not remembered.
    }
  }

  // ---- loading -------------------------------------------------------------------------

  scenarioTitle(id) {
    const key = `scenario_${id}`;
    const title = t(key);
    if (title !== key) return title;
    const s = this.scenarios.find((x) => x.id === id);
    return s ? s.title : id;
  }

  builtInText(id) {
    return this.scenarios.find((x) => x.id === id).text;
  }

  async loadBuiltIn(id) {
    $("scenario-select").value = id;
    return this.load({ id });
  }

  async loadText(text, time = 0) {
    const match = this.scenarios.find((s) => s.text.replace(/\s*\n\s*/g, ";") === text.replace(/\s*[\n;]\s*/g, ";"));
    if (match) $("scenario-select").value = match.id;
    return this.load({ text, t: time });
  }

  async load(args) {
    this.pause();
    const r = await this.client.call("load", args);
    this.apply(r, true);
    return r;
  }

  // How far the scrubber reaches: 3 min past the last scripted action (5 min at least), and
  // past a fault isolation that sendLatencyFaultEnable may start.
  horizonFor(model) {
    let h = Math.max(300000, ...model.script.map((a) => a.at + 180000));
    const tolerant =
      model.nodes.some((n) => n.faultTolerance) || model.script.some((a) => /^faulttolerance \S+ on$/.test(a.action));
    if (tolerant) h = Math.max(h, model.timings.isolationMs + 120000);
    return Math.ceil(h / 60000) * 60000;
  }

  // ---- applying worker answers -----------------------------------------------------------

  apply(r, fresh = false, wall = null) {
    this.store.dispatch({ type: "answer", answer: r, fresh });
    if (r.meta) {
      this.diagram.setMeta(r.meta);
      this.timeline.setMeta(r.meta, this.horizonFor(r.meta.model));
      this.log.setNodes(r.meta.nodes.map((n) => n.name));
      this.log.setKinds(r.meta.kinds);
      this.lastFaults = null;
    }
    const s = r.snap;
    const newLines = fresh ? [] : s.trace;
    // Only frames of playing feed the traffic layer: a seek or a step shows exact positions.
    if (wall !== null && this.playing) this.diagram.feed(s.wire, wall, this.speed);
    const t0 = performance.now();
    this.render(s.traceFrom);
    this.recordFrame(performance.now() - t0);
    for (const l of newLines) {
      const msg = announceFor(l);
      if (msg) this.announcer.say(msg);
    }
    // A run that lands after a pause is announced at once: a paused page does not change later.
    if (!this.playing) this.announcer.flushNow();
    this.checkGate(r.hit, newLines);
    if (!this.playing) this.base = { sim: s.time, wall: performance.now() };
  }

  checkGate(hit, lines) {
    const gate = this.lesson.gate;
    if (!gate) return;
    // The worker's hit when it stopped at a line; else the clock or the new lines decide.
    const found =
      (gate.at === undefined && hit && hit.kind !== "time" ? hit : null) || gateHit(gate, this.snap.time, lines);
    if (found) {
      this.pause();
      this.lesson.gateHit(found, this.snap);
    }
  }

  recordFrame(ms) {
    this.frameTimes.push(ms);
    if (this.frameTimes.length > 600) this.frameTimes.shift();
  }

  // While playing, the diagram, clock and scrubber follow every frame and the text panels take
  // turns, one per frame (they are read, not watched). Paused or after an action: everything.
  // Panels off screen (other tabs) are not drawn at all.
  render(traceFrom = this.trace.length) {
    const s = this.snap;
    if (!s || !this.meta || this.live) return;
    this.logFrom = Math.min(this.logFrom ?? traceFrom, traceFrom);
    const clock = $("clock");
    clock.dataset.simMs = String(s.time);
    clock.textContent = `t = ${secs(s.time)}`;
    const branch = s.branches.find((b) => b.current);
    $("status-meta").textContent =
      `${t("seed", { s: this.meta.model.seed })} · ${t("profile", { p: s.profile })} · ${t("branchOf", { b: branch.parent === null ? t("branchMain") : branch.id })}`;
    const reduced = this.reducedQuery.matches;
    const focus = this.lesson.focus();
    const highlight = this.store.state.selection.highlight;
    this.diagram.render(s, {
      playing: this.playing,
      reduced,
      selected: this.selected,
      highlight: focus.nodes.length ? focus.nodes : highlight ? [highlight] : [],
      highlightLinks: focus.links,
    });
    renderDivergence($("divergence"), s);
    this.timeline.renderCursor(s);
    this.lesson.renderContext(s);
    const on = (id) => this.panels.visible(id);
    const panels = [
      () => on("routes") && renderRouteGrid($("route-grid"), s, this.meta),
      () => on("tables") && renderNsTables($("ns-tables"), s),
      () => on("timers") && renderTimers($("timers"), s),
      () => on("measure") && renderMeasurements($("measurements"), s),
      () => {
        if (!on("lanes")) return;
        const faultsKey =
          JSON.stringify(s.faults) + JSON.stringify(s.stale.map((w) => [w.client, w.from, w.to === null])) + s.branch;
        this.timeline.render(s, this.sends, faultsKey !== this.lastFaults, this.trace);
        this.lastFaults = faultsKey;
      },
      () => {
        if (!on("log")) return;
        this.log.update(this.trace, this.logFrom, this.playing ? 20 : Infinity);
        this.logFrom = undefined;
      },
      () => this.store.state.ui.tableView && renderTableView($("table-view"), s, this.meta),
      () => on("compare") && this.compare.render(s),
    ];
    if (this.playing) {
      // One panel per frame, and none more often than every PANEL_MS: they are read, not watched,
      // and a frame is for the diagram first.
      const now = performance.now();
      if (now - (this.panelAt || 0) >= PANEL_MS) {
        this.panelAt = now;
        this.turn = ((this.turn || 0) + 1) % panels.length;
        panels[this.turn]();
      }
    } else {
      for (const p of panels) p();
    }
    const legend = `${t("legendMsgs")} ${legendText()}.${reduced ? ` ${t("reducedMotion")}` : ""}`;
    if ($("legend").textContent !== legend) $("legend").textContent = legend;
    if (!$("lanes-legend").textContent) $("lanes-legend").textContent = t("legendLanes");
  }

  // ---- time control ----------------------------------------------------------------------

  play() {
    if (this.playing || this.live) return;
    this.store.dispatch({ type: "play" });
    this.base = { sim: this.snap.time, wall: performance.now() };
    this.render();
    this.loop.start();
  }

  pause() {
    if (!this.playing) return;
    this.store.dispatch({ type: "pause" });
    this.loop.stop();
    this.render();
    this.announcer.flushNow();
    this.updateUrl();
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  // The speed the clock runs at now: a lesson slows down as its event approaches.
  effectiveSpeed() {
    return this.lesson.speedAt(this.snap.time, this.speed);
  }

  // One animation frame while playing: asks the worker for the clock's next target (one
  // request out at a time) and moves the messages on. Returns whether to go on.
  frame(now) {
    if (!this.playing) return false;
    if (!this.pending) {
      const speed = this.effectiveSpeed();
      if (speed !== this.lastSpeed) {
        this.base = { sim: this.snap.time, wall: now };
        this.lastSpeed = speed;
      }
      let target = this.base.sim + (now - this.base.wall) * speed;
      const cap = this.snap.time + MAX_FRAME_SIM_MS(speed);
      const capped = target > cap;
      if (capped) {
        target = cap;
        this.base = { sim: cap, wall: now };
      }
      this.clockTrace.push({ wall: now, target, speed, capped });
      if (this.clockTrace.length > 600) this.clockTrace.shift();
      this.pending = true;
      this.pendingRun = this.client.call("runTo", { ms: Math.floor(target), gate: this.lesson.gate || undefined }).then(
        (r) => {
          this.pending = false;
          this.apply(r, false, performance.now());
        },
        (e) => {
          this.pending = false;
          this.fail(e);
        },
      );
    }
    this.diagram.animate(now, { reduced: this.reducedQuery.matches });
    return true;
  }

  setSpeed(x, byUser) {
    this.store.dispatch({ type: "speed", speed: x, byUser });
    if (this.playing) this.base = { sim: this.snap.time, wall: performance.now() };
    if (this.snap) this.render();
  }

  async op(name, args, keepPlaying = true) {
    const wasPlaying = this.playing;
    if (!keepPlaying) this.pause();
    try {
      const r = await this.client.call(name, args);
      this.diagram.stopTraffic();
      this.apply(r);
      if (wasPlaying && this.playing) this.base = { sim: this.snap.time, wall: performance.now() };
      if (!this.playing) this.updateUrl();
      return r;
    } catch (e) {
      this.fail(e);
      return null;
    }
  }

  fail(e) {
    this.announcer.say(String(e.message || e), true);
    console.error(e);
  }

  async runGate(gate) {
    // A frame's run may still be out and may reach the event itself: let it land first, so
    // the run ahead starts from where the page is (else it finds the next such event).
    this.pause();
    if (this.pending) await this.pendingRun;
    if (this.lesson.gate !== gate) return null;
    const r = await this.op("runTo", { ms: this.snap.time + 3600000, gate }, false);
    return r && r.hit;
  }

  seek(ms) {
    return this.op("seek", { ms: Math.max(0, Math.round(ms)) });
  }

  jump(delta) {
    return this.seek(this.snap.time + delta);
  }

  toEnd() {
    const head = this.snap.head;
    return this.seek(this.snap.time < head ? head : this.timeline.horizon);
  }

  async scrub(ms, live) {
    if (live && this.scrubbing) {
      this.scrubTarget = ms;
      return;
    }
    this.scrubbing = true;
    await this.seek(ms);
    while (this.scrubTarget !== undefined) {
      const next = this.scrubTarget;
      this.scrubTarget = undefined;
      await this.seek(next);
    }
    this.scrubbing = false;
  }

  stepNext(kind) {
    return this.op("step", kind ? { filter: { kinds: [kind] } } : {}, false);
  }

  stepBack() {
    return this.op("stepBack", {}, false);
  }

  async fork() {
    const r = await this.op("fork", { keepLater: false });
    if (r) this.announcer.say(t("forked", { id: r.id }), true);
  }

  selectBranch(id) {
    return this.op("selectBranch", { id });
  }

  // An action now. In the past, with faults injected later on this branch, the learner chooses
  // whether the new branch keeps them (by default it does not: it replays its own script).
  async inject(action) {
    let keepLater = false;
    if (this.snap.time < this.snap.head) {
      const later = await this.client.call("laterInjected");
      if (later.length) {
        keepLater = await this.faults.askKeep(later);
        if (keepLater === null) return;
      }
    }
    const r = await this.op("inject", { action, keepLater });
    if (r) this.announcer.say(t("injected", { a: action }), true);
  }

  async seekToLine(line) {
    if (this.live) return this.live.seek(line.at);
    await this.seek(line.at);
    this.store.dispatch({ type: "highlight", node: line.node });
    this.select(line.node);
    this.log.markCurrent(line.seq);
    const b = $("log").querySelector(`button[data-seq="${line.seq}"]`);
    if (b) b.focus();
  }

  hashes() {
    return this.client.call("hashes");
  }

  // ---- selection, views, sharing ---------------------------------------------------------

  current() {
    return { snap: this.snap, meta: this.meta };
  }

  select(name) {
    this.store.dispatch({ type: "select", node: name });
    this.render();
  }

  selectIndex(i) {
    const n = this.meta.nodes[i];
    if (!n) return;
    this.select(n.name);
    this.diagram.focusNode(n.name);
  }

  showPanel(id) {
    this.panels.show(id);
  }

  toggleTable() {
    this.store.dispatch({ type: "tableView" });
    this.render();
  }

  toggleDashboard() {
    this.store.dispatch({ type: "dashboard", on: !this.store.state.ui.dashboard });
  }

  // ---- live mode: a running daemon instead of the simulation --------------------------------

  // `param`: `?live`'s value, one console URL or several separated by commas ("": the daemon
  // serving this page).
  enterLive(param = "") {
    if (this.live) return;
    this.pause();
    document.body.dataset.mode = "live";
    $("live-panel").hidden = false;
    $("live-btn").setAttribute("aria-pressed", "true");
    for (const id of ["routes", "tables", "log"]) this.panels.panel(id).hidden = false;
    const bases = liveBases(param);
    const b = bases[0];
    const link = (path) => `<a href="${b}${path}">${path}</a>`;
    $("live-links").innerHTML = t("liveLinks", {
      api: link("/api"),
      metrics: link("/metrics"),
      health: link("/healthz"),
      nsaddr: link("/rocketmq/nsaddr"),
    });
    this.live = new LiveView(
      {
        diagram: this.diagram,
        log: this.log,
        reducedMotion: () => this.reducedQuery.matches,
        frames: () => this.loop.start(),
      },
      bases,
      {
        status: $("live-status"),
        topic: $("live-topic"),
        follow: $("live-follow"),
        scrubber: $("live-scrubber"),
        clock: $("live-clock"),
        tables: $("ns-tables"),
        routes: $("route-grid"),
        links: $("live-links"),
        divergence: $("divergence"),
        sentences: $("live-sentences"),
      },
    );
    this.live.start();
    this.store.dispatch({ type: "live", param });
  }

  exitLive() {
    if (!this.live) return;
    this.live.close();
    this.live = null;
    delete document.body.dataset.mode;
    $("live-sentences").hidden = true;
    this.diagram.setMeta(this.meta);
    $("live-panel").hidden = true;
    $("live-btn").setAttribute("aria-pressed", "false");
    this.panels.sync();
    this.log.setNodes(this.meta.nodes.map((n) => n.name));
    this.log.replace(this.trace);
    this.store.dispatch({ type: "live", param: null });
    this.render();
  }

  setLiveParam(base) {
    const u = new URL(location.href);
    if (base === null) u.searchParams.delete("live");
    else u.searchParams.set("live", base);
    history.replaceState(null, "", u.pathname + u.search.replace(/([?&]live)=(?=&|$)/, "$1") + u.hash);
  }

  announce(msg) {
    this.announcer.say(msg, true);
  }

  // The lesson's step, if one is on, goes into the page's link.
  shareUrl() {
    const l = this.lesson.state();
    return shareUrl(this.store.state, l ? l.step : undefined);
  }

  updateUrl() {
    const l = this.lesson.state();
    updateUrl($("share-url"), this.store.state, l ? l.step : undefined);
  }

  share() {
    return share($("share-url"), this.shareUrl(), (msg) => this.announce(msg));
  }

  async exportTrace() {
    exportTrace(await this.client.call("trace"));
  }

  importTrace(file) {
    return importTrace(file, {
      loadText: (text, ms) => this.loadText(text, ms),
      hashes: () => this.hashes(),
      announce: (msg) => this.announce(msg),
    });
  }

  openAbout() {
    renderAbout($("about-body"), this.meta.model);
    $("about").showModal();
  }

  async aboutChange(e) {
    const el = e.target;
    let text = this.meta.text;
    if (el.name === "profile") text = text.replace(/^profile \S+/m, `profile ${el.value}`);
    if (el.name === "idle") text = text.replace(/^idle \S+/m, `idle ${el.value}`);
    if (text === this.meta.text) return;
    await this.loadText(text, this.snap.time);
    renderAbout($("about-body"), this.meta.model);
    const focus = $("about-body").querySelector(`input[name="${el.name}"][value="${el.value}"]`);
    if (focus) focus.focus();
  }
}

// Registers the service worker only now that the page and its worker have loaded everything,
// and hands it the list, so the offline copy comes from the HTTP cache (the WebAssembly is
// downloaded once). Resolves with how many files were kept.
function keepOffline(workerResources) {
  if (!("serviceWorker" in navigator) || location.protocol === "file:") return Promise.resolve(0);
  return navigator.serviceWorker
    .register(new URL("./sw.js", import.meta.url))
    .then(() => navigator.serviceWorker.ready)
    .then(
      (reg) =>
        new Promise((done) => {
          const urls = [
            location.href.split("#")[0],
            ...performance.getEntriesByType("resource").map((e) => e.name),
            ...workerResources,
          ];
          navigator.serviceWorker.addEventListener(
            "message",
            (e) => e.data && "cached" in e.data && done(e.data.cached),
            { once: true },
          );
          reg.active.postMessage({ cache: urls });
        }),
    )
    .catch(() => 0);
}

function remembered() {
  try {
    return localStorage.getItem(FREE_PLAY_KEY) === "1";
  } catch {
    return false;
  }
}

const app = new App();
// The test hook: read-only views of the page's state.
window.__rmqsim = {
  time: () => (app.snap ? app.snap.time : 0),
  stateHash: () => app.hashes().then((h) => h.stateHash),
  traceHash: () => app.hashes().then((h) => h.traceHash),
  views: () =>
    Promise.resolve(app.snap && { ...app.snap, trace: app.trace.slice(), sends: app.sends.slice(), meta: app.meta }),
  playing: () => app.playing,
  speed: () => app.speed,
  effectiveSpeed: () => (app.snap ? app.effectiveSpeed() : app.speed),
  presets: () => PRESETS.slice(),
  lesson: () => app.lesson.state(),
  live: () => (app.live ? app.live.state() : null),
  idle: () => app.client.idle && !app.pending,
  offlineReady: () => app.offline || Promise.resolve(0),
  frameStats: () => {
    const sorted = app.frameTimes.slice().sort((a, b) => a - b);
    const at = (q) => sorted[Math.floor(sorted.length * q)] || 0;
    return { count: sorted.length, p50: at(0.5), p95: at(0.95), rafCount: app.loop.frames };
  },
  clockTrace: () => app.clockTrace.slice(),
};
app.start().catch((e) => {
  document.body.dataset.error = String(e.message || e);
  console.error(e);
});
export { app };
