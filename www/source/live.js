// Live mode: a running cluster instead of the simulation. One or more NameServer daemons (their
// HTTP consoles) are read here and assembled by the worker into the simulation's own view
// (`liveView`), drawn with the same diagram, tables and routes; what one NameServer knows and
// another does not (the view's `lacks`) is named, with since when. The history slider scrubs
// every daemon together on the wall clock.
import { t } from "../app/i18n.js";
import { dur } from "../app/format.js";
import { renderNsTables, renderDivergence } from "../panels/tables.js";
import { esc } from "../app/html.js";
import { renderRouteGrid } from "../panels/routes.js";
import { DaemonFeed } from "./daemon-feed.js";

// Topics every broker registers; a user topic is a better first choice.
const SYSTEM =
  /^(TBW102|SELF_TEST_TOPIC|OFFSET_MOVED_EVENT|SCHEDULE_TOPIC_XXXX|BenchmarkTest|RMQ_SYS_|rmq_sys_|%RETRY%|%DLQ%)|_REPLY_TOPIC$/;

// `?live` (this origin), `?live=URL` or `?live=URL1,URL2,…`.
export function liveBases(param) {
  const list = (param || "").split(",").map((s) => s.trim().replace(/\/+$/, ""));
  const named = list.filter(Boolean);
  return [...new Set(named.length ? named : [""])];
}

export class LiveView {
  // `page`: the diagram and event log it draws into, reducedMotion() → whether motion is off, and
  // frames() (starts the page's loop, which calls frame(now) until it answers false). `ask(at)`:
  // the worker's answer for the cluster at wall time `at` (live-source.js), `{ view, delta }`.
  constructor(page, bases, el, ask) {
    this.page = page;
    this.ask = ask;
    // Views received since the last request, by daemon: their registrations go out as wire.
    this.steps = new Map();
    this.el = el;
    this.bases = bases.length ? bases : [""];
    this.sources = [];
    this.following = true;
    this.time = 0;
    this.topic = null;
    this.metaKey = null;
    this.onTopic = () => {
      this.topic = el.topic.value;
      this.userTopic = true;
      for (const s of this.sources) s.setTopic(this.topic);
    };
    this.onScrub = () => {
      const v = Number(el.scrubber.value);
      this.following = v >= Number(el.scrubber.max);
      this.time = v;
      this.page.diagram.stopTraffic();
      this.render();
      if (this.following) this.page.frames();
    };
    this.onFollow = () => {
      this.following = true;
      this.render();
      this.page.frames();
    };
    el.topic.addEventListener("change", this.onTopic);
    el.scrubber.addEventListener("input", this.onScrub);
    el.follow.addEventListener("click", this.onFollow);
  }

  get label() {
    return this.sources.map((s) => s.label).join(", ") || location.origin;
  }

  start() {
    this.status(t("liveConnecting", { url: this.bases.map((b) => b || location.origin).join(", ") }));
    for (const base of this.bases) this.add(base);
    // A single daemon started with --http-peers brings its peers along.
    if (this.bases.length === 1) this.addPeers(this.bases[0]);
    this.page.frames();
  }

  add(base) {
    if (this.sources.some((s) => s.base === base.replace(/\/+$/, ""))) return;
    const src = new DaemonFeed(base, (s, what) => this.onChange(s, what));
    this.sources.push(src);
    src.start();
  }

  async addPeers(base) {
    try {
      const r = await fetch(`${base}/api/peers`, { cache: "no-store" });
      if (!r.ok) return;
      const body = await r.json();
      for (const p of body.peers || []) if (p.url && !p.self) this.add(p.url);
    } catch {
      // A daemon without peers (or an older one): one column.
    }
  }

  close() {
    this.closed = true;
    for (const s of this.sources) s.close();
    this.el.topic.removeEventListener("change", this.onTopic);
    this.el.scrubber.removeEventListener("input", this.onScrub);
    this.el.follow.removeEventListener("click", this.onFollow);
  }

  now() {
    const times = this.sources.filter((s) => s.latest).map((s) => s.now());
    return times.length ? Math.max(...times) : Date.now();
  }

  onChange(src, what = {}) {
    if (this.closed) return;
    if (what.view && this.following) {
      const recent = src.trace.slice(-20).map(({ kind, text }) => ({ kind, text }));
      const list = this.steps.get(src) || [];
      this.steps.set(src, list.concat({ prev: what.prev || null, view: what.view, recent }));
    }
    // Until the learner picks one, the topic follows what the daemons know (a user topic first).
    if (what.routes && !this.userTopic) {
      const best = this.firstTopic();
      if (best && best !== this.topic) {
        this.topic = best;
        for (const s of this.sources) s.setTopic(best);
      }
    }
    if (what.line && this.following) {
      this.renderLog();
      return;
    }
    this.render();
    if (this.following) this.page.frames();
  }

  // A user topic if there is one (brokers also register their cluster and group names).
  firstTopic() {
    const topics = [...new Set(this.sources.flatMap((s) => s.topics))];
    const own = new Set(
      this.sources.flatMap((s) =>
        s.latest ? [...Object.keys(s.latest.clusterAddrTable), ...Object.keys(s.latest.brokerAddrTable)] : [],
      ),
    );
    const user = topics.filter((x) => !SYSTEM.test(x) && !own.has(x));
    if (user.includes("TopicTest")) return "TopicTest";
    return user[0] || (topics.includes("TBW102") ? "TBW102" : topics[0]) || null;
  }

  // One frame of the page's loop. Following: drawn every frame while messages move, so
  // registrations are seen arriving, else once a second (the clock and the node clocks go on).
  // Scrubbed back, nothing moves: the loop stops. Returns whether to go on.
  frame(now) {
    if (this.closed || !this.following) return false;
    if (this.page.diagram.moving() || this.steps.size || !(now - this.drawnAt < 1000)) this.render(now);
    if (this.drawn) this.page.diagram.animate(now, { reduced: this.page.reducedMotion() });
    return true;
  }

  mergedTrace() {
    const all = this.sources.flatMap((s) => s.trace).sort((a, b) => a.at - b.at);
    return this.following ? all : all.filter((l) => l.at <= this.time);
  }

  render(frameNow = performance.now()) {
    if (this.closed) return;
    this.drawnAt = frameNow;
    const ready = this.sources.filter((s) => s.history.length);
    if (!ready.length) {
      if (this.sources.length && this.sources.every((s) => s.reachable === false))
        this.status(t("liveUnreachable", { url: this.label }), "bad");
      return;
    }
    const now = this.now();
    const first = Math.min(...ready.map((s) => s.history[0].wall));
    const time = this.following ? now : Math.max(first, Math.min(this.time, now));
    this.time = time;
    const sc = this.el.scrubber;
    sc.min = String(first);
    sc.max = String(Math.max(now, first));
    if (Math.abs(Number(sc.value) - time) > 1) sc.value = String(time);
    const clock = new Date(time).toLocaleTimeString();
    sc.setAttribute("aria-valuetext", clock);
    this.el.follow.setAttribute("aria-pressed", String(this.following));
    this.el.clock.textContent = `${clock}${this.following ? ` · ${t("liveNow")}` : ` · ${t("liveBehind", { s: dur(now - time) })}`}`;
    this.el.clock.dataset.ms = String(Math.round(time));
    this.refresh(time);
    this.renderTopics();
    this.renderLog();
    this.renderStatus(now);
  }

  // What the worker assembles the cluster at wall time `at` from (a `LiveRequest`): each
  // daemon's view in force then, with the chosen topic's route, its topics, when it last
  // listed each broker, and the views it sent since the last request.
  request(at) {
    const steps = this.steps;
    this.steps = new Map();
    return {
      at: Math.round(at),
      topic: this.topic || "",
      daemons: this.sources.map((s) => {
        const entry = s.entryAt(at);
        return {
          label: s.label,
          up: !!entry && (!this.following || s.connected || s.reachable !== false),
          view: entry ? entry.view : null,
          route: entry && this.topic ? (entry.routes[this.topic] ?? null) : null,
          topics: entry ? entry.topics : null,
          heard: s.heardBefore(at),
          steps: steps.get(s) || [],
        };
      }),
    };
  }

  // One request out at a time; one asked meanwhile is made when the answer is drawn.
  refresh(time) {
    if (this.asking) {
      this.again = true;
      return;
    }
    this.asking = true;
    this.ask(time).then(
      (answer) => {
        this.asking = false;
        if (this.closed) return;
        this.draw(answer);
        if (this.again) {
          this.again = false;
          this.render();
        }
      },
      (e) => {
        this.asking = false;
        this.status(String((e && e.message) || e), "bad");
      },
    );
  }

  /** @param {{ view: { meta: any, snap: any }, delta: { wire: any[] } }} answer */
  draw({ view: { meta, snap }, delta }) {
    const diagram = this.page.diagram;
    if (meta.key !== this.metaKey) {
      this.metaKey = meta.key;
      diagram.setMeta(meta);
    }
    const reduced = this.page.reducedMotion();
    diagram.render(snap, { playing: this.following, reduced, selected: null, highlight: [] });
    const wall = performance.now();
    if (this.following && delta.wire.length) diagram.feed(delta.wire, wall, 1);
    if (this.following) diagram.animate(wall, { reduced });
    renderNsTables(this.el.tables, snap, (ms) => new Date(ms).toLocaleTimeString());
    renderRouteGrid(this.el.routes, snap, meta);
    renderDivergence(this.el.divergence, snap);
    this.renderLacks(snap);
    this.drawn = snap;
  }

  renderTopics() {
    const topics = [...new Set(this.sources.flatMap((s) => s.topics))].sort();
    const key = topics.join("\n") + "|" + this.topic;
    if (key === this.topicsKey) return;
    this.topicsKey = key;
    const list = this.topic && !topics.includes(this.topic) ? [this.topic, ...topics] : topics;
    this.el.topic.innerHTML = list
      .map((x) => `<option${x === this.topic ? " selected" : ""}>${esc(x)}</option>`)
      .join("");
  }

  // What each NameServer lacks, in sentences, under the diagram's banner.
  renderLacks(snap) {
    const lines = [];
    for (const l of snap.lacks.brokers)
      for (const b of l.brokers) {
        const other = t("liveHeardAgo", { ns: b.freshest, s: dur(snap.time - b.freshestHeard) });
        const mine =
          b.lastHeard === null
            ? t("liveNeverHeard", { ns: l.ns, b: b.name })
            : t("liveNotHeard", { ns: l.ns, b: b.name, s: dur(snap.time - b.lastHeard) });
        lines.push(
          `<li data-kind="broker" data-ns="${esc(l.ns)}" data-broker="${esc(b.name)}">${esc(`${mine}; ${other}.`)}</li>`,
        );
      }
    for (const x of snap.lacks.topics) {
      const shown = x.topics.slice(0, 3).join(", ") + (x.topics.length > 3 ? ` (+${x.topics.length - 3})` : "");
      lines.push(
        `<li data-kind="topics" data-ns="${esc(x.ns)}">${esc(t("liveTopicsMissing", { ns: x.ns, other: x.other, list: shown }))}</li>`,
      );
    }
    const html = lines.length ? `<ul>${lines.join("")}</ul>` : "";
    if (this.el.sentences._html !== html) {
      this.el.sentences.innerHTML = html;
      this.el.sentences._html = html;
    }
    this.el.sentences.hidden = !lines.length;
  }

  // Rebuilt only when what it shows changed (it is drawn every frame while following).
  renderLog() {
    const visible = this.mergedTrace();
    const log = this.page.log;
    const names = this.sources.map((s) => s.name).join("|");
    if (names !== this.logNodes) {
      this.logNodes = names;
      log.setNodes(this.sources.map((s) => s.name));
    }
    const key = `${visible.length}|${visible.length ? visible[visible.length - 1].seq : ""}|${this.following}`;
    if (key === this.logKey) return;
    this.logKey = key;
    // The daemon's kinds are the ones its lines carry (its event categories and route-query).
    const kinds = [...new Set(visible.map((l) => l.kind))].sort().join("|");
    if (kinds !== this.logKinds) {
      this.logKinds = kinds;
      log.setKinds(kinds ? kinds.split("|") : []);
    }
    log.replace(visible);
  }

  renderStatus(now) {
    const parts = this.sources.map((s) => {
      const v = s.latest;
      if (!v)
        return s.reachable === false ? t("liveUnreachable", { url: s.label }) : t("liveConnecting", { url: s.label });
      return t("liveStats", {
        addr: v.address,
        b: v.brokers.length,
        tp: v.topicCount,
        c: v.connections,
        up: dur(v.nowMs),
      });
    });
    const bad = this.sources.some((s) => s.reachable === false || (s.latest && !s.connected && s.es));
    this.status(parts.join(" · "), bad ? "bad" : "ok");
  }

  seek(at) {
    this.following = false;
    this.time = at;
    this.page.diagram.stopTraffic();
    this.render();
  }

  status(text, tone = "") {
    if (this.el.status.textContent !== text) this.el.status.textContent = text;
    this.el.status.dataset.tone = tone;
  }

  // Read-only state for tests.
  state() {
    const latest = this.sources[0] && this.sources[0].entryAt(this.time);
    return {
      connected: this.sources.length > 0 && this.sources.every((s) => s.connected),
      following: this.following,
      time: this.time,
      sources: this.sources.map((s) => ({
        base: s.base,
        name: s.name,
        connected: s.connected,
        views: s.history.length,
        lines: s.trace.length,
      })),
      views: this.sources.reduce((n, s) => n + s.history.length, 0),
      lines: this.sources.reduce((n, s) => n + s.trace.length, 0),
      topic: this.topic,
      brokers: latest ? latest.view.brokers.map((b) => b.brokerAddr) : [],
      // The time of the view on screen, and what it says each NameServer lacks.
      drawn: this.drawn ? this.drawn.time : null,
      lacks: this.drawn ? this.drawn.lacks : null,
    };
  }
}
