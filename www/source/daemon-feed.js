// @ts-check
// One running NameServer daemon, read through its HTTP console: its views (after every change,
// each kept so the history can be scrubbed), its log lines in RocketMQ's words, and the routes of
// the chosen topic, refetched when the daemon says they changed. Times are turned into wall-clock
// milliseconds, so several daemons share one time axis.
const KEEP_VIEWS = 2000;
const KEEP_LINES = 5000;

export class DaemonFeed {
  constructor(base, onChange) {
    this.base = base.replace(/\/+$/, "");
    this.onChange = onChange;
    this.history = []; // { wall, view, routes: { [topic]: route | null }, topics }
    this.trace = [];
    this.lastSeq = 0;
    this.connected = false;
    this.reachable = null;
    this.topics = [];
    this.topic = null;
    this.routesVersion = null;
    this.receivedAt = 0;
  }

  get label() {
    return this.base || location.origin;
  }

  get latest() {
    return this.history.length ? this.history[this.history.length - 1].view : null;
  }

  get name() {
    return this.latest ? this.latest.address : this.label;
  }

  // This daemon's clock (ms since it started) as wall-clock ms, from a view's own pair.
  wallOf(view, ms) {
    return view.wallMs - view.uptimeMs + ms;
  }

  start() {
    return fetch(`${this.base}/api/view`, { cache: "no-store" })
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(String(r.status)))))
      .then((view) => {
        if (this.closed) return;
        this.reachable = true;
        this.onView(view);
        this.connect();
      })
      .catch(() => {
        this.reachable = false;
        this.onChange(this);
      });
  }

  connect() {
    const es = new EventSource(`${this.base}/api/events`);
    this.es = es;
    es.addEventListener("open", () => {
      this.connected = true;
      this.onChange(this);
    });
    es.addEventListener("error", () => {
      this.connected = false;
      this.onChange(this);
    });
    es.addEventListener("view", (e) => this.onView(JSON.parse(e.data)));
    es.addEventListener("log", (e) => this.onLog(JSON.parse(e.data)));
    es.addEventListener("lagged", (e) =>
      this.onLog(
        {
          seq: this.lastSeq,
          at: this.latest ? this.latest.nowMs : 0,
          kind: "info",
          text: `… ${JSON.parse(e.data).missed} lines missed`,
        },
        true,
      ),
    );
  }

  close() {
    this.closed = true;
    if (this.es) this.es.close();
  }

  onView(view) {
    const prev = this.history[this.history.length - 1];
    if (prev && view.startedAtMs !== prev.view.startedAtMs) {
      // Another run of the daemon: its clock and log start over (the page keeps what it saw).
      this.lastSeq = 0;
      this.routesVersion = null;
    }
    if (prev && prev.view.version === view.version && prev.view.startedAtMs === view.startedAtMs) prev.view = view;
    else {
      this.history.push({
        wall: this.wallOf(view, view.uptimeMs),
        view,
        routes: prev ? { ...prev.routes } : {},
        topics: prev ? prev.topics : [],
      });
      if (this.history.length > KEEP_VIEWS) this.history.shift();
    }
    this.receivedAt = performance.now();
    if (view.routesVersion !== this.routesVersion) this.refreshRoutes();
    this.onChange(this, { view, prev: prev && prev.view });
  }

  onLog(line, synthetic = false) {
    if (!synthetic) {
      if (line.seq <= this.lastSeq) return;
      this.lastSeq = line.seq;
    }
    const view = this.latest;
    const wall = view ? this.wallOf(view, line.at) : Date.now();
    this.trace.push({
      seq: `${this.label}#${synthetic ? `m${this.trace.length}` : line.seq}`,
      at: wall,
      node: this.name,
      kind: line.kind,
      text: line.text,
    });
    if (this.trace.length > KEEP_LINES) this.trace.shift();
    this.onChange(this, { line: this.trace[this.trace.length - 1] });
  }

  setTopic(topic) {
    this.topic = topic;
    this.routesVersion = null;
    this.refreshRoutes();
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
        let route = null;
        if (this.topic) {
          const r = await fetch(`${this.base}/api/routes/${encodeURIComponent(this.topic)}`, { cache: "no-store" });
          route = r.ok ? await r.json() : null;
        }
        const entry = this.history[this.history.length - 1];
        if (entry) {
          entry.topics = this.topics;
          if (this.topic) entry.routes[this.topic] = route;
        }
        this.routesVersion = version;
        this.onChange(this, { routes: true });
      } while (this.again && !this.closed);
    } catch {
      this.connected = false;
    } finally {
      this.fetching = false;
    }
  }

  // The daemon's clock now, in wall-clock ms.
  now() {
    const v = this.latest;
    if (!v) return Date.now();
    return this.wallOf(v, v.nowMs) + (performance.now() - this.receivedAt);
  }

  // When this daemon last listed each broker up to wall time `wall`, by address (wall ms).
  heardBefore(wall) {
    /** @type {Record<string, number>} */
    const heard = {};
    for (const e of this.history) {
      if (e.wall > wall) break;
      for (const b of e.view.brokers) heard[b.brokerAddr] = this.wallOf(e.view, b.lastUpdate);
    }
    return heard;
  }

  // The entry in force at wall time `wall` (the last one received before it).
  entryAt(wall) {
    let found = null;
    for (const e of this.history) {
      if (e.wall <= wall) found = e;
      else break;
    }
    return found;
  }
}
