// The simulation lives here, off the main thread. The page sends one request at a time and
// renders the snapshot each answer carries; this worker never runs on its own.
import init, { Simulation, builtInScenarios, traceKinds } from "../../pkg/nameserver_wasm.js";
import { gateHit } from "./gate.js";

const ready = init();
let sim = null;
// What the page already holds, so snapshots carry only what is new.
let sent = { branch: -1, trace: 0, sends: 0, wire: 0, time: 0 };

const MAX_MS = 24 * 3600 * 1000;
const PEEK_MS = 600 * 1000;

function currentBranch() {
  return sim.branches().find((b) => b.current);
}

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
  for (let chunk = 1000; s.time < ms; chunk *= 2) {
    const before = s.traceLength();
    s.seek(Math.min(ms, s.time + chunk));
    const hit = gateHit(gate, s.time, s.trace(before));
    if (hit) {
      if (hit.at < s.time) s.seek(hit.at);
      return hit;
    }
  }
  return null;
}

function optional(fn) {
  try {
    return fn();
  } catch {
    return null;
  }
}

// What stays put while a branch runs: its text, nodes, topics, and the scenario as the model
// reads it (`model`: settings, script and the periods and timeouts the model runs with).
function meta() {
  const nodes = sim.nodes().map(({ name, role, addr, group, brokerId }) => ({ name, role, addr, group, brokerId }));
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

function snapshot(meta0) {
  const time = sim.time;
  const branch = currentBranch();
  const full = branch.id !== sent.branch;
  const back = time < sent.time;
  const traceLen = sim.traceLength();
  const traceFrom = full ? 0 : Math.min(sent.trace, traceLen);
  const trace = sim.trace(traceFrom);
  const sendsFrom = full || back ? 0 : sent.sends;
  const sends = sim.sends(sendsFrom);
  // What went on the wire since the last answer, for the page to animate (nothing after a
  // jump back or a branch switch: those show exact positions, not motion).
  const wireLen = sim.wireLength();
  const wire = full || back ? [] : sim.wire(Math.min(sent.wire, wireLen));
  sent = { branch: branch.id, trace: traceLen, sends: sendsFrom + sends.length, wire: wireLen, time };
  const nodes = sim.nodes();
  const ns = {};
  const routes = {};
  const clients = {};
  const consumers = {};
  const topics = meta0.topics;
  for (const n of nodes) {
    if (n.role === "nameserver") {
      ns[n.name] = sim.nameServerTables(n.name);
      routes[n.name] = {};
      for (const t of topics) routes[n.name][t] = sim.nameServerRoute(n.name, t);
    } else if (n.role === "producer" || n.role === "consumer") {
      clients[n.name] = optional(() => sim.clientRoute(n.name));
      if (n.role === "consumer") consumers[n.name] = optional(() => sim.consumerView(n.name));
    }
  }
  return {
    time,
    next: sim.nextEventTime() ?? null,
    branch: branch.id,
    head: branch.head,
    branches: sim.branches(),
    traceFrom,
    traceLen,
    trace,
    sendsFrom,
    sends,
    wire,
    nodes,
    flights: sim.flights(),
    ns,
    routes,
    clients,
    consumers,
    faults: sim.faults(),
    stale: sim.staleWindows(),
    measurements: sim.measurements(),
    links: sim.links(),
    isolations: sim.isolations(),
    profile: sim.profile,
  };
}

let metaCache = null;

function load({ text, id, t }) {
  if (sim) sim.free();
  sim = id ? Simulation.builtIn(id) : new Simulation(text);
  sent = { branch: -1, trace: 0, sends: 0, wire: 0, time: 0 };
  sim.seek(t || 0);
  metaCache = meta();
  return { meta: metaCache, snap: snapshot(metaCache) };
}

function withSnap(extra = {}) {
  const m = meta();
  const changed = m.text !== metaCache.text;
  metaCache = m;
  return { ...extra, meta: changed ? m : undefined, snap: snapshot(m) };
}

// A separate run for the quiz: the answer comes from the model, not from the page.
function quiz({ text, freezeAt, producer = "P1", until }) {
  const probe = new Simulation(text);
  try {
    probe.seek(freezeAt);
    const row = probe.nameServerTables("NS-1").live.find((r) => r.brokerName === "broker-b");
    probe.seek(until);
    const m = probe.measurements()[0];
    const removal = Object.fromEntries(m.nsRemoval);
    const update = Object.fromEntries(m.clientUpdate);
    return {
      lastHeartbeat: row ? row.lastUpdate : null,
      removal,
      update: update[producer] ?? null,
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
      const ms = probe.measurements();
      return {
        label: item.label,
        m: ms.length ? ms[ms.length - 1] : null,
        stale: probe.staleWindows().filter((w) => w.from > 0),
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
    if (sim.time < currentBranch().head) sim.fork(keepLater);
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
  snapshot: () => ({ snap: snapshot(metaCache) }),
  hashes: () => ({ time: sim.time, stateHash: sim.stateHash(), traceHash: sim.traceHash() }),
  trace: () => ({ trace: sim.trace(0), text: sim.scenarioText(), time: sim.time, traceHash: sim.traceHash() }),
  frame: ({ id }) => ({ frame: sim.flightFrame(id) ?? null }),
  quiz,
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
