// Several daemons at one wall-clock moment, in the simulation's shapes, so the page draws a real
// cluster with the same diagram, tables and routes: each NameServer (named by its RocketMQ
// address), each broker any of them knows (by group and BID), and what one knows and another
// does not.

const brokerName = (row) => (row.brokerId === 0 ? row.brokerName : `${row.brokerName}-${row.brokerId}`);

// The rows of one NameServer's view with their times on the wall clock.
function rowsOf(src, view) {
  const w = (ms) => (ms === null || ms === undefined ? ms : src.wallOf(view, ms));
  return view.brokers.map((b) => ({
    ...b,
    lastUpdate: w(b.lastUpdate),
    removalAt: w(b.removalAt),
    idleCloseAt: w(b.idleCloseAt),
    scanExpireAt: w(b.scanExpireAt),
    expiresAt: w(b.expiresAt),
  }));
}

// `{ meta, snap }` of the sources at wall time `at`; `topic`: the route shown.
export function clusterAt(sources, at, topic, live) {
  const nsNodes = [];
  const brokers = new Map();
  const ns = {};
  const routes = {};
  const nodes = [];
  for (const src of sources) {
    const entry = src.entryAt(at);
    const name = entry ? entry.view.address : src.label;
    const up = !!entry && (!live || src.connected || src.reachable !== false);
    nsNodes.push({ name, role: "nameserver", addr: name, group: null, brokerId: null });
    const rows = entry ? rowsOf(src, entry.view) : [];
    const timers = entry
      ? [
          {
            label: "scan for expired brokers",
            kind: "scan",
            at: src.wallOf(entry.view, entry.view.nextScanMs),
            periodMs: null,
            peer: null,
          },
        ]
      : [];
    nodes.push({ name, role: "nameserver", state: up ? "up" : "down", addr: name, timers, boundTo: null });
    ns[name] = {
      name,
      state: up ? "up" : "down",
      nextScan: timers.length ? timers[0].at : null,
      live: up ? rows : [],
      clusters: entry ? entry.view.clusterAddrTable : {},
    };
    routes[name] = { [topic]: entry && topic ? (entry.routes[topic] ?? null) : null };
    if (up)
      for (const r of rows)
        if (!brokers.has(r.brokerAddr))
          brokers.set(r.brokerAddr, {
            name: brokerName(r),
            role: "broker",
            addr: r.brokerAddr,
            group: r.brokerName,
            brokerId: r.brokerId,
          });
  }
  const brokerNodes = [...brokers.values()].sort((a, b) => a.group.localeCompare(b.group) || a.brokerId - b.brokerId);
  for (const b of brokerNodes) nodes.push({ ...b, state: "up", timers: [], boundTo: null });
  const meta = {
    nodes: [...nsNodes, ...brokerNodes],
    topics: [topic || ""],
    text: "",
    bound: {},
    key: [...nsNodes, ...brokerNodes].map((n) => n.name).join("|"),
  };
  const snap = {
    time: at,
    nodes,
    ns,
    routes,
    clients: {},
    consumers: {},
    links: [],
    flights: [],
    faults: [],
    stale: [],
    measurements: [],
    branches: [],
    isolations: [],
    trace: [],
    sends: [],
    wire: [],
  };
  return { meta, snap };
}

// For every broker one NameServer lacks and another has: since when, in plain words.
// "NS-2 has not heard from broker-b for 118 s; NS-1 heard from it 3 s ago."
export function divergences(sources, at) {
  const out = [];
  const entries = sources.map((s) => ({ src: s, entry: s.entryAt(at) })).filter((x) => x.entry);
  const by = entries.map(({ src, entry }) => ({
    src,
    name: entry.view.address,
    rows: new Map(rowsOf(src, entry.view).map((r) => [r.brokerAddr, r])),
    topics: new Set(entry.topics || []),
  }));
  const all = new Map();
  for (const x of by) for (const r of x.rows.values()) all.set(r.brokerAddr, r);
  for (const x of by) {
    for (const [addr, r] of all) {
      if (x.rows.has(addr)) continue;
      const holders = by.filter((y) => y.rows.has(addr));
      const heard = lastHeard(x.src, addr, at);
      const best = holders
        .map((y) => ({ ns: y.name, age: at - y.rows.get(addr).lastUpdate }))
        .sort((a, b) => a.age - b.age)[0];
      out.push({
        kind: "broker",
        ns: x.name,
        broker: brokerName(r),
        addr,
        lastHeard: heard,
        other: best.ns,
        otherAge: best.age,
      });
    }
  }
  for (const x of by) {
    for (const y of by) {
      if (x === y) continue;
      const only = [...y.topics].filter((t) => !x.topics.has(t));
      if (only.length) out.push({ kind: "topics", ns: x.name, other: y.name, topics: only });
    }
  }
  return out;
}

// When `src` last had broker `addr` in its table before `at` (its last registration, wall ms).
function lastHeard(src, addr, at) {
  for (let i = src.history.length - 1; i >= 0; i--) {
    const e = src.history[i];
    if (e.wall > at) continue;
    const b = e.view.brokers.find((x) => x.brokerAddr === addr);
    if (b) return src.wallOf(e.view, b.lastUpdate);
  }
  return null;
}

// Registrations between two views of one NameServer, as messages for the traffic layer: a
// broker whose lastUpdate moved registered (its answer goes back); one that left closed or
// unregistered, as the daemon's log says.
export function viewTraffic(src, prev, view, recentLines) {
  if (!prev || prev.startedAtMs !== view.startedAtMs) return [];
  const ns = view.address;
  const events = [];
  const before = new Map(prev.brokers.map((b) => [b.brokerAddr, b]));
  for (const b of view.brokers) {
    const old = before.get(b.brokerAddr);
    if (old && old.lastUpdate === b.lastUpdate) continue;
    const at = src.wallOf(view, b.lastUpdate);
    const name = brokerName(b);
    events.push({
      from: name,
      to: ns,
      sentAt: at - 1,
      arriveAt: at,
      category: "register",
      response: false,
      type: "REGISTER_BROKER",
      lost: false,
    });
    events.push({
      from: ns,
      to: name,
      sentAt: at,
      arriveAt: at + 1,
      category: "register",
      response: true,
      type: "REGISTER_BROKER",
      lost: false,
    });
  }
  const now = new Set(view.brokers.map((b) => b.brokerAddr));
  for (const [addr, b] of before) {
    if (now.has(addr)) continue;
    const closed = recentLines.some(
      (l) => (l.kind === "channel-closed" || l.kind === "channel-idle") && l.text.includes(addr),
    );
    const expired = recentLines.some((l) => l.kind === "expired" && l.text.includes(addr));
    if (expired) continue;
    const at = src.wallOf(view, view.uptimeMs);
    events.push({
      from: brokerName(b),
      to: ns,
      sentAt: at - 1,
      arriveAt: at,
      category: closed ? "close" : "unregister",
      response: false,
      type: closed ? "FIN" : "UNREGISTER_BROKER",
      lost: false,
    });
  }
  return events;
}
