// Live mode: the same panels, drawn from a running NameServer daemon instead of the simulation.
// The daemon's /api/events stream sends its tables ("view", after every change) and its log
// lines ("log", in RocketMQ's words). Every view received is kept, so the history can be
// scrubbed; routes are fetched for the chosen topic when the daemon says they changed.
import { t, secs, dur } from "./i18n.js";
import { renderNsTables } from "./tables.js";
import { esc } from "./html.js";
import { renderRouteGrid } from "./routes.js";

const KEEP_VIEWS = 2000;
const KEEP_LINES = 5000;
// Topics every broker registers; a user topic is a better first choice.
const SYSTEM = /^(TBW102|SELF_TEST_TOPIC|OFFSET_MOVED_EVENT|SCHEDULE_TOPIC_XXXX|BenchmarkTest|RMQ_SYS_|rmq_sys_|%RETRY%|%DLQ%)|_REPLY_TOPIC$/;

export class LiveView {
  constructor(app, base, el) {
    this.app = app;
    this.base = base.replace(/\/+$/, "");
    this.el = el;
    this.history = []; // { at, view, routes: { [topic]: route | null } }
    this.trace = [];
    this.lastSeq = 0;
    this.following = true;
    this.time = 0;
    this.topic = null;
    this.topics = [];
    this.routesVersion = null;
    this.connected = false;
    this.shown = null;
    this.onTopic = () => {
      this.topic = el.topic.value;
      this.routesVersion = null;
      this.refreshRoutes();
    };
    this.onScrub = () => {
      const v = Number(el.scrubber.value);
      this.following = v >= Number(el.scrubber.max);
      this.time = v;
      this.render();
    };
    this.onFollow = () => {
      this.following = true;
      this.render();
    };
    el.topic.addEventListener("change", this.onTopic);
    el.scrubber.addEventListener("input", this.onScrub);
    el.follow.addEventListener("click", this.onFollow);
  }

  get label() {
    return this.base || location.origin;
  }

  start() {
    this.status(t("liveConnecting", { url: this.label }));
    fetch(`${this.base}/api/view`, { cache: "no-store" })
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(String(r.status)))))
      .then((view) => {
        if (this.closed) return;
        this.onView(view);
        this.connect();
      })
      .catch(() => !this.closed && this.status(t("liveUnreachable", { url: this.label }), "bad"));
    this.tick = setInterval(() => this.following && this.render(), 1000);
  }

  connect() {
    const es = new EventSource(`${this.base}/api/events`);
    this.es = es;
    es.addEventListener("open", () => {
      this.connected = true;
      this.render();
    });
    es.addEventListener("error", () => {
      this.connected = false;
      if (es.readyState === EventSource.CLOSED) this.status(t("liveUnreachable", { url: this.label }), "bad");
      else this.status(t("liveLost"), "bad");
    });
    es.addEventListener("view", (e) => this.onView(JSON.parse(e.data)));
    es.addEventListener("log", (e) => this.onLog(JSON.parse(e.data)));
    es.addEventListener("lagged", (e) => {
      const { missed } = JSON.parse(e.data);
      this.onLog({ seq: this.lastSeq, at: this.now(), kind: "info", text: t("liveMissed", { n: missed }) }, true);
    });
  }

  close() {
    this.closed = true;
    clearInterval(this.tick);
    if (this.es) this.es.close();
    this.el.topic.removeEventListener("change", this.onTopic);
    this.el.scrubber.removeEventListener("input", this.onScrub);
    this.el.follow.removeEventListener("click", this.onFollow);
  }

  // The daemon's clock now, from the last view and the time since it arrived.
  now() {
    const last = this.latest;
    return last ? last.nowMs + (performance.now() - last.receivedAt) : 0;
  }

  get name() {
    return this.latest ? this.latest.address : "NameServer";
  }

  onView(view) {
    if (this.latest && view.startedAtMs !== this.latest.startedAtMs) {
      // Another run of the daemon: its clock and log start over.
      this.history = [];
      this.trace = [];
      this.lastSeq = 0;
      this.routesVersion = null;
      this.following = true;
    }
    const prev = this.history[this.history.length - 1];
    if (prev && prev.view.version === view.version && prev.view.startedAtMs === view.startedAtMs) {
      prev.view = view;
    } else {
      this.history.push({ at: view.uptimeMs, view, routes: prev ? { ...prev.routes } : {} });
      if (this.history.length > KEEP_VIEWS) this.history.shift();
    }
    this.latest = { ...view, receivedAt: performance.now() };
    if (this.nodesFor !== view.address) {
      this.nodesFor = view.address;
      this.app.log.setNodes([view.address]);
    }
    if (view.routesVersion !== this.routesVersion) this.refreshRoutes();
    this.render();
  }

  onLog(line, synthetic = false) {
    if (!synthetic) {
      if (line.seq <= this.lastSeq) return;
      this.lastSeq = line.seq;
    }
    this.trace.push({ seq: synthetic ? `m${this.trace.length}` : line.seq, at: line.at, node: this.name, kind: line.kind, text: line.text });
    if (this.trace.length > KEEP_LINES) {
      this.trace.shift();
      this.shown = null;
    }
    this.renderLog();
  }

  // Topics and the chosen topic's route, one fetch at a time; a change meanwhile refetches.
  async refreshRoutes() {
    if (this.fetching) {
      this.again = true;
      return;
    }
    this.fetching = true;
    try {
      do {
        this.again = false;
        const version = this.latest.routesVersion;
        const list = await fetch(`${this.base}/api/topics`, { cache: "no-store" }).then((r) => r.json());
        this.topics = list.topics;
        // A chosen topic stays chosen when its route goes away: the history still has it.
        if (!this.topic) this.topic = this.firstTopic();
        let route = null;
        if (this.topic) {
          const r = await fetch(`${this.base}/api/routes/${encodeURIComponent(this.topic)}`, { cache: "no-store" });
          route = r.ok ? await r.json() : null;
        }
        const entry = this.history[this.history.length - 1];
        if (entry && this.topic) entry.routes[this.topic] = route;
        this.routesVersion = version;
        this.renderTopics();
        this.render();
      } while (this.again && !this.closed);
    } catch {
      this.status(t("liveLost"), "bad");
    } finally {
      this.fetching = false;
    }
  }

  // A user topic if there is one (brokers also register their cluster and group names).
  firstTopic() {
    const v = this.latest;
    const own = new Set([...Object.keys(v.clusterAddrTable), ...Object.keys(v.brokerAddrTable)]);
    const user = this.topics.filter((x) => !SYSTEM.test(x) && !own.has(x));
    if (user.includes("TopicTest")) return "TopicTest";
    return user[0] || (this.topics.includes("TBW102") ? "TBW102" : this.topics[0]) || null;
  }

  renderTopics() {
    const key = this.topics.join("\n") + "|" + this.topic;
    if (key === this.topicsKey) return;
    this.topicsKey = key;
    const list = this.topic && !this.topics.includes(this.topic) ? [this.topic, ...this.topics] : this.topics;
    this.el.topic.innerHTML = list.map((x) => `<option${x === this.topic ? " selected" : ""}>${esc(x)}</option>`).join("");
  }

  // The view in force at `time` (the last one received before it).
  entryAt(time) {
    let found = this.history[0];
    for (const e of this.history) {
      if (e.at <= time) found = e;
      else break;
    }
    return found;
  }

  // The simulation's snapshot shape, so the page's own table and route renderers draw it.
  snapshot(entry, time) {
    const v = entry.view;
    const name = v.address;
    const live = v.brokers.map((b) => ({ ...b, ageMs: time - b.lastUpdate }));
    return {
      time,
      nodes: [{ name, role: "nameserver", state: "up", addr: name, timers: [] }],
      ns: { [name]: { name, state: "up", nextScan: v.nextScanMs, live, clusters: v.clusterAddrTable } },
      routes: { [name]: { [this.topic]: entry.routes[this.topic] ?? null } },
      clients: {},
    };
  }

  render() {
    if (this.closed || !this.history.length) return;
    const now = this.now();
    const first = this.history[0].at;
    const time = this.following ? now : Math.max(first, Math.min(this.time, now));
    this.time = time;
    const sc = this.el.scrubber;
    sc.min = String(first);
    sc.max = String(Math.max(now, first));
    if (Number(sc.value) !== time) sc.value = String(time);
    sc.setAttribute("aria-valuetext", `t = ${secs(time)}`);
    this.el.follow.setAttribute("aria-pressed", String(this.following));
    const behind = now - time;
    this.el.clock.textContent = `t = ${secs(time)}${this.following ? ` · ${t("liveNow")}` : ` · ${t("liveBehind", { s: dur(behind) })}`}`;
    this.el.clock.dataset.ms = String(Math.round(time));
    const entry = this.entryAt(time);
    const snap = this.snapshot(entry, time);
    renderNsTables(this.el.tables, snap);
    renderRouteGrid(this.el.routes, snap, { topics: [this.topic ?? "—"] });
    this.renderLog();
    const v = entry.view;
    if (this.connected || !this.es) {
      this.status(t("liveStats", { addr: v.address, b: v.brokers.length, tp: v.topicCount, c: v.connections, up: dur(now) }), "ok");
    }
  }

  renderLog() {
    const visible = this.following ? this.trace : this.trace.filter((l) => l.at <= this.time);
    const log = this.app.log;
    const extends_ = this.shown && this.shown.src === this.trace && visible.length >= this.shown.n && this.following && this.shown.following;
    if (extends_) {
      if (visible.length !== this.shown.n) log.update(visible, this.shown.n);
    } else {
      log.trace = visible;
      log.rebuild();
    }
    this.shown = { src: this.trace, n: visible.length, following: this.following };
  }

  seek(at) {
    this.following = false;
    this.time = at;
    this.render();
  }

  status(text, tone = "") {
    if (this.el.status.textContent !== text) this.el.status.textContent = text;
    this.el.status.dataset.tone = tone;
  }

  // Read-only state for tests.
  state() {
    const entry = this.history.length ? this.entryAt(this.time) : null;
    return {
      connected: this.connected,
      following: this.following,
      time: this.time,
      views: this.history.length,
      lines: this.trace.length,
      topic: this.topic,
      brokers: entry ? entry.view.brokers.map((b) => b.brokerAddr) : [],
    };
  }
}
