// The page: holds the latest snapshot from the worker and renders it. While paused nothing
// runs: no animation frame is requested until Play.
import { t, applyStatic, secs } from "./i18n.js";
import { SimClient } from "./sim-client.js";
import { Diagram } from "./diagram.js";
import { renderRouteGrid, renderNsTables, renderDivergence, renderTimers, renderMeasurements, renderTableView } from "./tables.js";
import { Timeline } from "./timeline.js";
import { EventLog } from "./log.js";
import { LessonRunner, LESSONS } from "./lessons.js";
import { FaultUi } from "./faults.js";
import { bindControls, PRESETS } from "./controls.js";
import { shareHash, parseHash } from "./url.js";
import { renderAbout } from "./about.js";
import { Quiz } from "./quiz.js";
import { Announcer, announceFor } from "./announce.js";
import { LiveView } from "./live.js";

const $ = (id) => document.getElementById(id);
const MAX_FRAME_SIM_MS = (speed) => Math.max(250, speed * 500);

class App {
  constructor() {
    this.client = new SimClient();
    this.speed = 60;
    this.playing = false;
    this.selected = null;
    this.highlight = null;
    this.trace = [];
    this.sends = [];
    this.tableView = false;
    this.frameTimes = [];
    this.rafCount = 0;
    this.reducedQuery = matchMedia("(prefers-reduced-motion: reduce)");
    this.narrowQuery = matchMedia("(max-width: 640px)");
    this.announcer = new Announcer($("announcer"));
    this.diagram = new Diagram($("diagram"), {
      onNode: (name) => {
        this.select(name);
        this.faults.openNode(name);
      },
      onFlight: (id) => this.faults.openFlight(id),
    });
    this.timeline = new Timeline({
      scrubber: $("scrubber"), lanes: $("lanes"), branches: $("branches"),
      onSeek: (ms, live) => this.scrub(ms, live), onBranch: (id) => this.selectBranch(id),
    });
    this.log = new EventLog($("log"), $("log-node"), $("log-kind"), (line) => this.seekToLine(line));
    this.faults = new FaultUi(this);
    this.quiz = new Quiz(this);
    this.lesson = new LessonRunner(this, {
      panel: $("lesson"), title: $("lesson-title"), text: $("lesson-text"), wait: $("lesson-wait"),
      cont: $("lesson-continue"), replay: $("lesson-replay"), free: $("lesson-free"), progress: $("lesson-progress"),
    });
    this.narrowQuery.addEventListener("change", () => this.meta && this.relayout());
    this.reducedQuery.addEventListener("change", () => this.render());
  }

  async start() {
    applyStatic();
    bindControls(this);
    const { scenarios } = await this.client.call("init");
    this.scenarios = scenarios;
    const sel = $("scenario-select");
    sel.innerHTML = scenarios.map((s) => `<option value="${s.id}">${s.id} — ${s.title}</option>`).join("");
    sel.addEventListener("change", () => {
      this.lesson.freePlay();
      this.loadBuiltIn(sel.value);
    });
    $("lesson-btn").addEventListener("click", () => this.lesson.start(LESSONS[sel.value] ? sel.value : "S1"));
    $("quiz-btn").addEventListener("click", () => this.quiz.open());
    $("table-toggle").addEventListener("click", () => this.toggleTable());
    $("about-btn").addEventListener("click", () => this.openAbout());
    $("about").addEventListener("change", (e) => this.aboutChange(e));
    $("live-btn").addEventListener("click", () => (this.live ? this.exitLive() : this.enterLive()));
    $("live-exit").addEventListener("click", () => this.exitLive());
    this.setSpeed(60, false);
    const fromUrl = parseHash(location.hash);
    if (fromUrl && fromUrl.lesson && LESSONS[fromUrl.lesson]) {
      await this.lesson.start(fromUrl.lesson, fromUrl.step || 0);
    } else if (fromUrl && fromUrl.text) {
      await this.loadText(fromUrl.text, fromUrl.time);
      if (fromUrl.selected) this.select(fromUrl.selected);
    } else {
      await this.loadBuiltIn("S1");
    }
    const live = new URLSearchParams(location.search).get("live");
    if (live !== null) this.enterLive(live);
    document.body.dataset.ready = "true";
  }

  // ---- loading -------------------------------------------------------------------------

  scenarioTitle(id) {
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
    this.trace = [];
    this.sends = [];
    this.apply(r, true);
    return r;
  }

  horizonFor(text) {
    const times = [...text.matchAll(/^at ([\d.]+) /gm)].map((m) => Number(m[1]) * 1000);
    let h = Math.max(300000, ...times.map((x) => x + 180000));
    if (/faulttolerance on/.test(text) && /profile 4\.9/.test(text)) h = Math.max(h, 720000);
    return Math.ceil(h / 60000) * 60000;
  }

  relayout() {
    this.diagram.setMeta(this.meta, this.narrowQuery.matches);
    this.render();
  }

  // ---- applying worker answers -----------------------------------------------------------

  apply(r, fresh = false) {
    if (r.meta) {
      this.meta = r.meta;
      this.diagram.setMeta(r.meta, this.narrowQuery.matches);
      this.timeline.setMeta(r.meta, this.horizonFor(r.meta.text));
      this.log.setNodes(r.meta.nodes.map((n) => n.name));
      this.lastFaults = null;
    }
    const s = r.snap;
    this.trace.length = Math.min(this.trace.length, s.traceFrom);
    for (const l of s.trace) this.trace.push(l);
    this.sends.length = Math.min(this.sends.length, s.sendsFrom);
    for (const x of s.sends) this.sends.push(x);
    const newLines = fresh ? [] : s.trace;
    this.snap = s;
    const t0 = performance.now();
    this.render(s.traceFrom);
    this.recordFrame(performance.now() - t0);
    for (const l of newLines) {
      const msg = announceFor(l);
      if (msg) this.announcer.say(msg);
    }
    this.checkGate(r.hit, newLines);
    if (!this.playing) this.base = { sim: s.time, wall: performance.now() };
  }

  checkGate(hit, lines) {
    const gate = this.lesson.gate;
    if (!gate) return;
    let found = null;
    if (gate.at !== undefined) found = this.snap.time >= gate.at ? { at: gate.at, node: "", kind: "time", text: "" } : null;
    else found = (hit && hit.kind !== "time" ? hit : null) || lines.find((l) => (!gate.node || l.node === gate.node) && (!gate.kinds || gate.kinds.includes(l.kind)) && (!gate.text || l.text.includes(gate.text)));
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
  render(traceFrom = this.trace.length) {
    const s = this.snap;
    if (!s || !this.meta || this.live) return;
    this.logFrom = Math.min(this.logFrom ?? traceFrom, traceFrom);
    const clock = $("clock");
    clock.dataset.simMs = String(s.time);
    clock.textContent = `t = ${secs(s.time)}`;
    const branch = s.branches.find((b) => b.current);
    $("status-meta").textContent = ` · ${t("seed", { s: (this.meta.text.match(/seed (\d+)/) || [0, 42])[1] })} · ${t("profile", { p: s.profile })} · ${t("branchOf", { b: branch.parent === null ? t("branchMain") : branch.id })} · ${this.playing ? t("playing", { x: `${this.speed}×` }) : t("paused", { t: secs(s.time) })}`;
    const reduced = this.reducedQuery.matches;
    this.diagram.render(s, { paused: !this.playing, reduced, selected: this.selected, highlight: this.highlight });
    renderDivergence($("divergence"), s);
    this.timeline.renderCursor(s);
    const panels = [
      () => renderRouteGrid($("route-grid"), s, this.meta),
      () => renderNsTables($("ns-tables"), s),
      () => renderTimers($("timers"), s),
      () => renderMeasurements($("measurements"), s),
      () => {
        const faultsKey = JSON.stringify(s.faults) + JSON.stringify(s.stale.map((w) => [w.client, w.from, w.to === null])) + s.branch;
        this.timeline.render(s, this.sends, faultsKey !== this.lastFaults);
        this.lastFaults = faultsKey;
      },
      () => {
        this.log.update(this.trace, this.logFrom, this.playing ? 40 : Infinity);
        this.logFrom = undefined;
      },
      () => this.tableView && renderTableView($("table-view"), s, this.meta),
    ];
    if (this.playing) {
      this.turn = ((this.turn || 0) + 1) % panels.length;
      panels[this.turn]();
    } else {
      for (const p of panels) p();
    }
    const legend = `${t("legendMsgs")}${reduced ? ` ${t("reducedMotion")}` : ""}`;
    if ($("legend").textContent !== legend) $("legend").textContent = legend;
    if (!$("lanes-legend").textContent) $("lanes-legend").textContent = t("legendLanes");
  }

  // ---- time control ----------------------------------------------------------------------

  play() {
    if (this.playing || this.live) return;
    this.playing = true;
    this.base = { sim: this.snap.time, wall: performance.now() };
    this.updatePlay();
    this.raf = requestAnimationFrame((now) => this.frame(now));
  }

  pause() {
    if (!this.playing) return;
    this.playing = false;
    cancelAnimationFrame(this.raf);
    this.updatePlay();
    this.render();
    this.updateUrl();
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  updatePlay() {
    const b = $("btn-play");
    b.setAttribute("aria-pressed", String(this.playing));
    b.textContent = this.playing ? t("pause") : t("play");
    b.dataset.playing = String(this.playing);
  }

  frame(now) {
    if (!this.playing) return;
    this.rafCount++;
    if (!this.pending) {
      let target = this.base.sim + (now - this.base.wall) * this.speed;
      const cap = this.snap.time + MAX_FRAME_SIM_MS(this.speed);
      if (target > cap) {
        target = cap;
        this.base = { sim: cap, wall: now };
      }
      this.pending = true;
      this.client.call("runTo", { ms: Math.floor(target), gate: this.lesson.gate || undefined }).then((r) => {
        this.pending = false;
        this.apply(r);
      }, (e) => {
        this.pending = false;
        this.fail(e);
      });
    }
    this.raf = requestAnimationFrame((n) => this.frame(n));
  }

  setSpeed(x, byUser) {
    this.speed = x;
    if (byUser) this.userSpeed = true;
    $("speed-out").textContent = `${x}×`;
    $("speed-out").dataset.speed = String(x);
    for (const b of document.querySelectorAll("#speed-presets button")) b.setAttribute("aria-pressed", String(Number(b.dataset.speed) === x));
    if (this.playing) this.base = { sim: this.snap.time, wall: performance.now() };
    if (this.snap) this.render();
  }

  async op(name, args, keepPlaying = true) {
    const wasPlaying = this.playing;
    if (!keepPlaying) this.pause();
    try {
      const r = await this.client.call(name, args);
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
    const r = await this.op("fork", {});
    if (r) this.announcer.say(t("forked", { id: r.id }), true);
  }

  selectBranch(id) {
    return this.op("selectBranch", { id });
  }

  async inject(action) {
    const r = await this.op("inject", { action });
    if (r) this.announcer.say(t("injected", { a: action }), true);
  }

  async seekToLine(line) {
    if (this.live) return this.live.seek(line.at);
    await this.seek(line.at);
    this.select(line.node);
    this.highlight = line.node;
    this.render();
    this.log.markCurrent(line.seq);
    const b = $("log").querySelector(`button[data-seq="${line.seq}"]`);
    if (b) b.focus();
  }

  hashes() {
    return this.client.call("hashes");
  }

  flightFrame(id) {
    return this.client.call("frame", { id }).then((r) => r.frame);
  }

  quizRun(args) {
    return this.client.call("quiz", args);
  }

  // ---- selection, views, sharing ---------------------------------------------------------

  current() {
    return { snap: this.snap, meta: this.meta };
  }

  select(name) {
    this.selected = name;
    this.render();
  }

  selectIndex(i) {
    const n = this.meta.nodes[i];
    if (!n) return;
    this.select(n.name);
    this.diagram.focusNode(n.name);
  }

  toggleTable() {
    this.tableView = !this.tableView;
    $("table-toggle").setAttribute("aria-pressed", String(this.tableView));
    $("table-view").hidden = !this.tableView;
    $("diagram-wrap").hidden = this.tableView;
    this.render();
  }

  // ---- live mode: a running daemon instead of the simulation --------------------------------

  // `base` is the daemon's origin; "" is the one serving this page.
  enterLive(base = "") {
    if (this.live) return;
    this.pause();
    document.body.dataset.mode = "live";
    $("live-panel").hidden = false;
    $("live-btn").setAttribute("aria-pressed", "true");
    const b = base.replace(/\/+$/, "");
    const link = (path) => `<a href="${b}${path}">${path}</a>`;
    $("live-links").innerHTML = t("liveLinks", { api: link("/api"), metrics: link("/metrics"), health: link("/healthz"), nsaddr: link("/rocketmq/nsaddr") });
    this.live = new LiveView(this, base, {
      status: $("live-status"), topic: $("live-topic"), follow: $("live-follow"), scrubber: $("live-scrubber"),
      clock: $("live-clock"), tables: $("ns-tables"), routes: $("route-grid"), links: $("live-links"),
    });
    this.live.start();
    this.setLiveParam(base);
  }

  exitLive() {
    if (!this.live) return;
    this.live.close();
    this.live = null;
    delete document.body.dataset.mode;
    $("live-panel").hidden = true;
    $("live-btn").setAttribute("aria-pressed", "false");
    this.log.setNodes(this.meta.nodes.map((n) => n.name));
    this.log.trace = this.trace;
    this.log.rebuild();
    this.setLiveParam(null);
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

  shareUrl() {
    const l = this.lesson.state();
    const hash = shareHash({ compact: this.meta.compact, time: this.snap.time, selected: this.selected, lesson: null, step: l ? l.step : undefined });
    return location.origin + location.pathname + location.search + hash;
  }

  updateUrl() {
    if (!this.meta || !this.snap) return;
    const url = this.shareUrl();
    $("share-url").value = url;
    history.replaceState(null, "", url);
  }

  async share() {
    const url = this.shareUrl();
    $("share-url").value = url;
    try {
      await navigator.clipboard.writeText(url);
    } catch {
      $("share-url").select();
    }
    this.announcer.say(t("copied"), true);
  }

  async exportTrace() {
    const r = await this.client.call("trace");
    const data = { format: "rocketmq-nameserver-sim-trace", version: 1, scenario: r.text, time: r.time, traceHash: r.traceHash, trace: r.trace };
    const blob = new Blob([JSON.stringify(data, null, 1)], { type: "application/json" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = `rmqsim-trace-${Math.round(r.time)}.json`;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }

  async importTrace(file) {
    const data = JSON.parse(await file.text());
    await this.loadText(data.scenario, data.time);
    const h = await this.hashes();
    const ok = h.traceHash === data.traceHash;
    document.body.dataset.importResult = ok ? "match" : "mismatch";
    this.announcer.say(t("imported", { ok: ok ? "✓" : "✖" }), true);
  }

  openAbout() {
    renderAbout($("about-body"), { profile: this.snap.profile, idle: !/^idle off/m.test(this.meta.text) });
    $("about").showModal();
  }

  async aboutChange(e) {
    const el = e.target;
    let text = this.meta.text;
    if (el.name === "profile") text = text.replace(/^profile \S+/m, `profile ${el.value}`);
    if (el.name === "idle") text = text.replace(/^idle \S+/m, `idle ${el.value}`);
    if (text === this.meta.text) return;
    await this.loadText(text, this.snap.time);
    renderAbout($("about-body"), { profile: this.snap.profile, idle: !/^idle off/m.test(this.meta.text) });
    const focus = $("about-body").querySelector(`input[name="${el.name}"][value="${el.value}"]`);
    if (focus) focus.focus();
  }
}

const app = new App();
// The test hook: read-only views of the page's state.
window.__rmqsim = {
  time: () => (app.snap ? app.snap.time : 0),
  stateHash: () => app.hashes().then((h) => h.stateHash),
  traceHash: () => app.hashes().then((h) => h.traceHash),
  views: () => Promise.resolve(app.snap && { ...app.snap, trace: app.trace.slice(), sends: app.sends.slice(), meta: app.meta }),
  playing: () => app.playing,
  speed: () => app.speed,
  presets: () => PRESETS.slice(),
  lesson: () => app.lesson.state(),
  live: () => (app.live ? app.live.state() : null),
  idle: () => app.client.idle && !app.pending,
  frameStats: () => {
    const sorted = app.frameTimes.slice().sort((a, b) => a - b);
    return { count: sorted.length, p95: sorted[Math.floor(sorted.length * 0.95)] || 0, rafCount: app.rafCount };
  },
};
app.start().catch((e) => {
  document.body.dataset.error = String(e.message || e);
  console.error(e);
});
if ("serviceWorker" in navigator && location.protocol !== "file:") {
  navigator.serviceWorker.register(new URL("./sw.js", import.meta.url)).catch(() => {});
}
export { app };
