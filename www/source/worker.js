// The simulation lives here, off the main thread. The page sends one request at a time and
// renders the snapshot each answer carries; this worker never runs on its own.
import init, { Simulation, builtInScenarios, traceKinds, liveView } from "../../pkg/nameserver_wasm.js";
import { gateHit } from "./gate.js";

const ready = init();
let sim = null;
// Where the page is in the logs, so snapshots carry only what is new (null: nothing held).
let cursor = null;

const MAX_MS = 24 * 3600 * 1000;
const PEEK_MS = 600 * 1000;

// The current branch as of the last answer (every operation ends with one).
let current = null;

// Runs forward to `ms`; with a gate, stops at the first trace line that matches it (its
// millisecond fully run, so the state equals a plain seek to that time).
function runTo(s, ms, gate) {
  ms = Math.max(0, Math.min(ms, MAX_MS));
  if (!gate) {
    if (ms !== s.time) s.seek(ms);
    return null;
  }
  if (gate.at !== undefined) {
    const to = Math.min(ms, gate.at);
    if (to > s.time) s.seek(to);
    return gateHit(gate, s.time, []);
  }
  // In growing chunks, so that a near event costs a short run (and a short trace to read),
  // not the whole window and a replay back to the event.
  let at = s.view(s === sim ? cursor : null).delta.cursor;
  for (let chunk = 1000; s.time < ms; chunk *= 2) {
    s.seek(Math.min(ms, s.time + chunk));
    const delta = s.view(at).delta;
    at = delta.cursor;
    const hit = gateHit(gate, s.time, delta.trace);
    if (hit) {
      if (hit.at < s.time) s.seek(hit.at);
      return hit;
    }
  }
  return null;
}

// What stays put while a branch runs: its text, nodes, topics, and the scenario as the model
// reads it (`model`: settings, script and the periods and timeouts the model runs with).
function meta(snap) {
  const nodes = snap.nodes.map(({ name, role, addr, group, brokerId }) => ({ name, role, addr, group, brokerId }));
  const model = sim.scenarioView();
  // The NameServer each client is configured with, known before it starts.
  const bound = Object.fromEntries(model.nodes.filter((n) => n.ns !== null).map((n) => [n.name, n.ns]));
  return {
    text: sim.scenarioText(),
    compact: sim.scenarioCompact(),
    profile: model.profile,
    nodes,
    topics: model.topics,
    bound,
    model,
    kinds: traceKinds(),
  };
}

// The page's tables of a NameServer from the view's `NsTables` (absent: not running).
function nsTables(name, state, tables, routes) {
  if (!tables) return { name, state, nextScan: null, live: [], brokers: [], clusters: {}, topics: {} };
  const topics = {};
  for (const [t, r] of Object.entries(routes || {})) if (r) topics[t] = r.queueDatas;
  return {
    name,
    state,
    nextScan: tables.nextScanMs,
    live: tables.brokers.map((r) => ({ ...r, ageMs: Math.max(0, tables.uptimeMs - r.lastUpdate) })),
    brokers: Object.values(tables.brokerAddrTable).map(({ brokerName, cluster, brokerAddrs, zoneName }) => ({
      brokerName,
      cluster,
      brokerAddrs,
      zoneName: zoneName ?? null,
    })),
    clusters: tables.clusterAddrTable,
    topics,
  };
}

// A `ClusterView` in the page's snapshot shape (the simulation's and a live cluster's alike).
function pageSnap(v) {
  const ns = {};
  const clients = {};
  for (const n of v.nodes) {
    if (n.role === "nameserver") ns[n.name] = nsTables(n.name, n.state, v.ns[n.name], v.routes[n.name]);
    else if (n.role === "producer" || n.role === "consumer") clients[n.name] = v.clients[n.name] ?? null;
  }
  return {
    time: v.time,
    next: v.next,
    nodes: v.nodes,
    flights: v.flights,
    ns,
    routes: v.routes,
    clients,
    consumers: v.consumers,
    faults: v.faults,
    stale: v.stale,
    measurements: v.measurements,
    links: v.links,
    isolations: v.isolations,
    lacks: v.lacks,
  };
}

// One view per answer; the page's snapshot keeps its shape (what is new in the logs since the
// cursor of the last answer).
function snapshot() {
  const held = cursor;
  const v = sim.view(held);
  const d = v.delta;
  cursor = d.cursor;
  // Back on the same branch the page's trace is this one's prefix: it cuts it, as before
  // the one view, and announces no line again.
  const back = d.reset && held !== null && held.branch === d.cursor.branch;
  const branch = v.branches.find((b) => b.current);
  current = branch;
  return {
    ...pageSnap(v),
    branch: branch.id,
    head: branch.head,
    branches: v.branches,
    traceFrom: back ? d.cursor.trace : d.traceFrom,
    traceLen: d.cursor.trace,
    trace: back ? [] : d.trace,
    sendsFrom: d.sendsFrom,
    sends: d.sends,
    wire: d.wire,
    profile: sim.profile,
  };
}

// Running daemons as one cluster (`LiveRequest`: their console answers at wall time `at`), in
// the same shapes; its delta carries the registrations since the last request as `wire`.
function live(req) {
  const v = liveView(req);
  const snap = { ...pageSnap(v), branches: [], trace: [], sends: [], wire: [] };
  const nodes = v.nodes.map(({ name, role, addr, group, brokerId }) => ({ name, role, addr, group, brokerId }));
  const meta = { nodes, topics: [req.topic || ""], text: "", bound: {}, key: nodes.map((n) => n.name).join("|") };
  return { view: { meta, snap }, delta: v.delta, gateHit: null };
}

let metaCache = null;

function load({ text, id, t }) {
  if (sim) sim.free();
  sim = id ? Simulation.builtIn(id) : new Simulation(text);
  cursor = null;
  sim.seek(t || 0);
  const snap = snapshot();
  metaCache = meta(snap);
  return { meta: metaCache, snap };
}

function withSnap(extra = {}) {
  const snap = snapshot();
  const m = meta(snap);
  const changed = m.text !== metaCache.text;
  metaCache = m;
  return { ...extra, meta: changed ? m : undefined, snap };
}

// A separate run for the quiz: the answer comes from the model, not from the page.
function quiz({ text, freezeAt, producer = "P1", until }) {
  const probe = new Simulation(text);
  try {
    probe.seek(freezeAt);
    const tables = probe.view().ns["NS-1"];
    const row = tables ? tables.brokers.find((r) => r.brokerName === "broker-b") : null;
    probe.seek(until);
    const m = probe.view().measurements[0];
    const removal = Object.fromEntries(m.nsRemoval);
    const update = Object.fromEntries(m.clientUpdate);
    // The producer's next route poll as NS-1 removes the broker.
    probe.seek(removal["NS-1"] ?? until);
    const poll = probe
      .view()
      .nodes.find((n) => n.name === producer)
      .timers.find((x) => x.kind === "route-poll");
    return {
      lastHeartbeat: row ? row.lastUpdate : null,
      removal,
      update: update[producer] ?? null,
      nextPoll: poll ? poll.at : null,
      timings: probe.scenarioView().timings,
    };
  } finally {
    probe.free();
  }
}

// The same measurements for several runs at one moment (the Compare panel).
function compare({ items, at }) {
  return items.slice(0, 3).map((item) => {
    const probe = item.id ? Simulation.builtIn(item.id) : new Simulation(item.text);
    try {
      probe.seek(Math.max(0, Math.min(at, MAX_MS)));
      const v = probe.view();
      const ms = v.measurements;
      return {
        label: item.label,
        m: ms.length ? ms[ms.length - 1] : null,
        stale: v.stale.filter((w) => w.from > 0),
      };
    } finally {
      probe.free();
    }
  });
}

const ops = {
  // What this worker loaded (its module and the WebAssembly), for the page's offline copy.
  init: () => ({
    scenarios: builtInScenarios(),
    resources: performance.getEntriesByType("resource").map((e) => e.name),
  }),
  load,
  runTo: ({ ms, gate }) => {
    const hit = runTo(sim, ms, gate);
    return withSnap({ hit });
  },
  // Next trace line; with a filter, the next line of that kind (or node).
  step: ({ filter }) => {
    if (!filter) {
      const lines = sim.step(sim.time + MAX_MS);
      return withSnap({ lines });
    }
    const start = sim.time;
    let hit = null;
    for (let to = start + 30000; !hit && to <= start + 3600000; to += 30000) hit = runTo(sim, to, filter);
    return withSnap({ hit });
  },
  stepBack: () => {
    sim.stepBack();
    return withSnap();
  },
  seek: ({ ms }) => {
    sim.seek(Math.max(0, Math.min(ms, MAX_MS)));
    return withSnap();
  },
  // In the past this forks; `keepLater` keeps the actions injected later on the parent.
  inject: ({ action, keepLater = false }) => {
    if (sim.time < current.head) sim.fork(keepLater);
    sim.inject(action);
    return withSnap();
  },
  fork: ({ keepLater = false }) => {
    const id = sim.fork(keepLater);
    return withSnap({ id });
  },
  laterInjected: () => sim.laterInjected(),
  // When the gate will be reached from here, found on a copy (the page slows down before it).
  peekGate: ({ gate }) => {
    const probe = new Simulation(sim.scenarioText());
    try {
      probe.seek(sim.time);
      return runTo(probe, sim.time + PEEK_MS, gate);
    } finally {
      probe.free();
    }
  },
  compare,
  selectBranch: ({ id }) => {
    sim.selectBranch(id);
    return withSnap();
  },
  snapshot: () => ({ snap: snapshot() }),
  hashes: () => ({ time: sim.time, stateHash: sim.stateHash(), traceHash: sim.traceHash() }),
  trace: () => ({
    trace: sim.view().delta.trace,
    text: sim.scenarioText(),
    time: sim.time,
    traceHash: sim.traceHash(),
  }),
  frame: ({ id }) => ({ frame: sim.flightFrame(id) ?? null }),
  quiz,
  live,
  check: () => {
    sim.check();
    return true;
  },
};

// Asked with a lesson's gate, an answer carries its hit (the page evaluates no gate): where a
// run stopped at it, else the first of the answer's new lines, else of the lines since `since`.
function gateOf(op, { gate, since }, r) {
  if (op === "runTo" && r.hit) return r.hit;
  const hit = gateHit(gate, r.snap.time, r.snap.trace);
  if (hit || since === undefined) return hit;
  return gateHit(
    gate,
    r.snap.time,
    sim.trace(0).filter((l) => l.at >= since),
  );
}

self.onmessage = async (e) => {
  const { id, op, args } = e.data;
  try {
    await ready;
    const result = ops[op](args || {});
    if (args && args.gate && result && result.snap) result.gateHit = gateOf(op, args, result);
    self.postMessage({ id, ok: true, result });
  } catch (err) {
    self.postMessage({ id, ok: false, error: String((err && err.message) || err) });
  }
};
