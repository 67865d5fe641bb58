// The two views of the truth: each NameServer's tables (dashboard Router shape, live table with
// heartbeat ages) beside each client's cached route, plus divergence, timers and measurements.
import { t, secs, dur } from "./i18n.js";
import { STATE_ICON, flightLabel, msgType } from "./diagram.js";

export function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

const PERM = { 2: "W", 4: "R", 6: "RW", 7: "RWX" };

// A TopicRoute exactly as the dashboard's Topic → Router dialog lays it out.
export function routeHtml(route) {
  if (!route) return `<p class="no-route">${esc(t("noRoute"))}</p>`;
  const bd = route.brokerDatas
    .map((b) => {
      const addrs = Object.entries(b.brokerAddrs).map(([id, a]) => `${esc(id)}: ${esc(a)}`).join("<br>");
      return `<tr><td>${esc(b.brokerName)}</td><td class="mono">{${addrs}}</td></tr>`;
    })
    .join("");
  const qd = route.queueDatas
    .map((q) => `<tr><td>${esc(q.brokerName)}</td><td>${q.readQueueNums}</td><td>${q.writeQueueNums}</td><td>${q.perm} (${PERM[q.perm] || "?"})</td></tr>`)
    .join("");
  return `<table class="router"><caption>brokerDatas</caption><thead><tr><th>brokerName</th><th>brokerAddrs</th></tr></thead><tbody>${bd}</tbody></table>
<table class="router"><caption>queueDatas</caption><thead><tr><th>brokerName</th><th>readQueueNums</th><th>writeQueueNums</th><th>perm</th></tr></thead><tbody>${qd}</tbody></table>`;
}

function routeKey(route) {
  if (!route) return "none";
  const b = route.brokerDatas.map((x) => `${x.brokerName}${JSON.stringify(x.brokerAddrs)}`).sort().join(";");
  const q = route.queueDatas.map((x) => `${x.brokerName}:${x.readQueueNums}/${x.writeQueueNums}/${x.perm}`).sort().join(";");
  return `${b}|${q}`;
}

function setHtml(el, html) {
  if (el._html !== html) {
    el.innerHTML = html;
    el._html = html;
  }
}

// NS-1 route, NS-2 route, P1 cached, C1 cached … side by side.
export function renderRouteGrid(el, snap, meta) {
  const topic = meta.topics[0];
  const cards = [];
  for (const n of snap.nodes.filter((x) => x.role === "nameserver")) {
    const route = snap.routes[n.name] && snap.routes[n.name][topic];
    const down = n.state !== "up";
    cards.push(`<article class="card route-card" data-testid="route-${esc(n.name)}" data-route-key="${esc(routeKey(route))}">
<h3>${esc(t("routeOf", { topic, who: n.name }))}</h3>
${down ? `<p class="badge bad">${STATE_ICON[n.state]} ${esc(t(`state_${n.state}`))}</p>` : ""}${routeHtml(route)}</article>`);
  }
  for (const n of snap.nodes.filter((x) => x.role === "producer" || x.role === "consumer")) {
    const c = snap.clients[n.name];
    if (!c || n.state === "not-started") {
      cards.push(`<article class="card route-card client" data-testid="client-${esc(n.name)}"><h3>${esc(n.name)}</h3><p class="muted">${esc(t("notRunning"))}</p></article>`);
      continue;
    }
    const badge = c.stale
      ? `<p class="badge stale" data-testid="stale-${esc(n.name)}" data-stale-since="${c.staleSince}">⚠ ${esc(t("stale", { s: dur(snap.time - c.staleSince) }))}</p>`
      : `<p class="badge ok" data-testid="fresh-${esc(n.name)}">✓ ${esc(t("fresh", { ns: c.boundTo }))}</p>`;
    cards.push(`<article class="card route-card client${c.stale ? " is-stale" : ""}" data-testid="client-${esc(n.name)}" data-stale="${c.stale}" data-route-key="${esc(routeKey(c.route))}">
<h3>${esc(t("cachedRoute", { c: n.name, ns: c.boundTo }))}</h3>${badge}${c.route ? routeHtml(c.route) : `<p class="no-route">${esc(t("noCache"))}</p>`}</article>`);
  }
  setHtml(el, cards.join(""));
}

function ageCell(row, now, timeoutMs) {
  const age = now - row.lastUpdate;
  const frac = Math.min(1, age / timeoutMs);
  const over = age > timeoutMs;
  const text = over ? `⚠ ${dur(age)} — ${t("pastTimeout", { s: dur(timeoutMs) })}` : dur(age);
  return `<td class="age${over ? " over" : ""}" data-age-ms="${age}" data-over="${over}"><span class="bar" aria-hidden="true"><span style="width:${(frac * 100).toFixed(1)}%"></span></span> ${esc(text)}</td>`;
}

export function renderNsTables(el, snap) {
  const out = [];
  for (const n of snap.nodes.filter((x) => x.role === "nameserver")) {
    const tb = snap.ns[n.name];
    const scan = tb.nextScan !== null && n.state === "up" ? t("nextScan", { s: dur(tb.nextScan - snap.time) }) : t(`state_${n.state}`);
    const rows = tb.live
      .map((r) => `<tr data-broker="${esc(r.brokerName)}" data-broker-id="${r.brokerId}"><td class="mono">${esc(r.brokerAddr)}</td><td>${esc(r.brokerName)}</td><td>${r.brokerId}</td><td>${secs(r.lastUpdate)}</td>${ageCell(r, snap.time, r.timeoutMs)}</tr>`)
      .join("");
    const clusters = Object.entries(tb.clusters).map(([c, names]) => `${esc(c)}: [${names.map(esc).join(", ")}]`).join("; ");
    out.push(`<article class="card ns-card" data-testid="ns-${esc(n.name)}" data-state="${n.state}">
<h3>${esc(n.name)} <span class="muted">${STATE_ICON[n.state]} ${esc(t(`state_${n.state}`))} · <span data-testid="next-scan-${esc(n.name)}">${esc(scan)}</span></span></h3>
<div class="table-wrap"><table class="live" data-testid="live-${esc(n.name)}"><caption>${esc(t("liveTable"))}</caption>
<thead><tr><th>brokerAddr</th><th>brokerName</th><th>BID</th><th>${esc(t("lastUpdate"))}</th><th>${esc(t("age"))}</th></tr></thead><tbody>${rows}</tbody></table></div>
<p class="mono small">clusterAddrTable {${clusters}}</p></article>`);
  }
  setHtml(el, out.join(""));
}

// NameServers that are up but hold different broker sets.
export function divergence(snap) {
  const ups = snap.nodes.filter((n) => n.role === "nameserver" && n.state === "up");
  if (ups.length < 2) return null;
  const byAddr = Object.fromEntries(snap.nodes.map((n) => [n.addr, n.name]));
  const sets = ups.map((n) => ({ name: n.name, brokers: new Set(snap.ns[n.name].live.map((r) => byAddr[r.brokerAddr] || r.brokerAddr)) }));
  const all = new Set(sets.flatMap((s) => [...s.brokers]));
  for (const s of sets) {
    const missing = [...all].filter((b) => !s.brokers.has(b));
    if (missing.length) {
      const other = sets.filter((o) => o !== s && missing.some((m) => o.brokers.has(m))).map((o) => o.name);
      return { ns: s.name, missing, other };
    }
  }
  return null;
}

export function renderDivergence(el, snap) {
  const d = divergence(snap);
  el.hidden = !d;
  if (d) {
    setHtml(el, `⚠ ${esc(t("divergence", { ns: d.ns, brokers: d.missing.join(", "), other: d.other.join(", ") }))}`);
    el.dataset.missing = d.missing.join(",");
    el.dataset.ns = d.ns;
  }
}

const PERIOD = {
  "register to NameServers": 30000,
  "route poll": 30000,
  "heartbeat to brokers": 30000,
  rebalance: 20000,
};

function timerList(snap) {
  const rows = [];
  const scanPeriod = snap.profile === "5.x" ? 5000 : 10000;
  for (const n of snap.nodes) {
    for (const tm of n.timers) {
      let period = PERIOD[tm.label];
      if (tm.label === "scan for expired brokers") period = scanPeriod;
      if (tm.label.startsWith("idle close")) period = 120000;
      rows.push({ node: n.name, label: tm.label, at: tm.at, period });
    }
  }
  for (const i of snap.isolations) {
    if (i.until > snap.time) rows.push({ node: i.producer, label: t("isolation", { broker: i.broker }), at: i.until, period: null, isolation: true });
  }
  return rows;
}

export function renderTimers(el, snap) {
  const rows = timerList(snap);
  const byNode = new Map();
  for (const r of rows) {
    if (!byNode.has(r.node)) byNode.set(r.node, []);
    byNode.get(r.node).push(r);
  }
  const out = [];
  for (const [node, list] of byNode) {
    const items = list
      .map((r) => {
        const left = Math.max(0, r.at - snap.time);
        const frac = r.period ? Math.max(0, Math.min(1, left / r.period)) : 1;
        const every = r.period ? ` · ${t("timerEvery", { s: dur(r.period) })}` : "";
        const when = r.at < snap.time ? t("overdue", { s: dur(snap.time - r.at) }) : t("timerIn", { s: dur(left) });
        return `<li data-timer="${esc(r.label)}" data-node="${esc(node)}" data-left-ms="${left}" data-period-ms="${r.period ?? ""}"><span class="bar" aria-hidden="true"><span style="width:${(frac * 100).toFixed(1)}%"></span></span> ${esc(r.label)}: ${esc(when)} (${secs(r.at)})${esc(every)}</li>`;
      })
      .join("");
    out.push(`<div class="timer-node"><h3>${esc(node)}</h3><ul>${items}</ul></div>`);
  }
  setHtml(el, out.join(""));
}

export function renderMeasurements(el, snap) {
  if (!snap.measurements.length) {
    setHtml(el, `<p class="muted">${esc(t("noMeasure"))}</p>${staleHtml(snap)}`);
    return;
  }
  const out = snap.measurements.map((m, i) => {
    const lines = [];
    let lastRemoval = null;
    for (const [ns, at] of m.nsRemoval) {
      if (at === null) lines.push(`<li>${esc(t("mNever", { ns }))}</li>`);
      else {
        lastRemoval = Math.max(lastRemoval ?? 0, at);
        lines.push(`<li data-testid="m-${i}-removal-${esc(ns)}" data-ms="${at}">${esc(t("mRemoval", { ns, t: secs(at), d: dur(at - m.at) }))}</li>`);
      }
    }
    for (const [c, at] of m.clientUpdate) {
      if (at === null) continue;
      const from = lastRemoval ?? m.at;
      lines.push(`<li data-testid="m-${i}-update-${esc(c)}" data-ms="${at}">${esc(t("mUpdate", { c, t: secs(at), d: `+${dur(at - from)}` }))}</li>`);
    }
    lines.push(`<li data-testid="m-${i}-sends">${esc(t("mSends", {
      target: m.target || "?", attempts: m.attempts, failed: m.failedAttempts, retried: m.sendsRetried,
      indeterminate: m.sendsIndeterminate, sendsFailed: m.sendsFailed,
    }))}</li>`);
    return `<article class="card measure" data-testid="measurement-${i}" data-action="${esc(m.action)}"><h3>${esc(t("mFault", { action: m.action, t: secs(m.at) }))}</h3><ul>${lines.join("")}</ul></article>`;
  });
  setHtml(el, out.join("") + staleHtml(snap));
}

function staleHtml(snap) {
  const w = snap.stale.filter((x) => x.from > 0);
  if (!w.length) return "";
  const items = w.map((x) => `<li>${esc(x.client)}: ${secs(x.from)} → ${x.to === null ? "…" : secs(x.to)} (${dur((x.to ?? snap.time) - x.from)})</li>`).join("");
  return `<details class="stale-windows"><summary>${esc(t("staleWin"))} (${w.length})</summary><ul>${items}</ul></details>`;
}

// The whole state as plain tables, for screen readers and for anyone who prefers text.
export function renderTableView(el, snap, meta) {
  const nodes = snap.nodes
    .map((n) => `<tr><td>${esc(n.name)}</td><td>${esc(n.role)}${n.group ? ` (${esc(n.group)}, BID ${n.brokerId})` : ""}</td><td>${STATE_ICON[n.state]} ${esc(t(`state_${n.state}`))}</td><td class="mono">${esc(n.addr)}</td><td>${esc(n.boundTo || "")}</td></tr>`)
    .join("");
  const timers = timerList(snap)
    .map((r) => `<tr><td>${esc(r.node)}</td><td>${esc(r.label)}</td><td>${secs(r.at)}</td><td>${dur(Math.max(0, r.at - snap.time))}</td></tr>`)
    .join("");
  const flights = snap.flights
    .slice(0, 200)
    .map((f) => {
      const p = f.held ? 1 : Math.max(0, Math.min(1, (snap.time - f.sentAt) / Math.max(1, f.arriveAt - f.sentAt)));
      return `<tr data-msg-type="${esc(msgType(f))}"><td>${f.id}</td><td>${esc(flightLabel(f))}</td><td>${secs(f.sentAt)}</td><td>${secs(f.arriveAt)}</td><td>${Math.round(p * 100)}%</td></tr>`;
    })
    .join("");
  const links = snap.links.map((l) => `<li>${esc(l.a)} ↔ ${esc(l.b)}: ${esc(l.state === "cut" ? t("linkCut") : t("linkReset"))}</li>`).join("");
  const topic = meta.topics[0];
  const routes = snap.nodes
    .filter((n) => n.role === "nameserver")
    .map((n) => `<h4>${esc(t("routeOf", { topic, who: n.name }))}</h4>${routeHtml(snap.routes[n.name][topic])}`)
    .join("");
  const clients = Object.values(snap.clients)
    .filter(Boolean)
    .map((c) => `<h4>${esc(t("cachedRoute", { c: c.name, ns: c.boundTo }))} ${c.stale ? `— ⚠ ${esc(t("stale", { s: dur(snap.time - c.staleSince) }))}` : ""}</h4>${c.route ? routeHtml(c.route) : `<p>${esc(t("noCache"))}</p>`}`)
    .join("");
  setHtml(el, `<h3>${esc(t("stateTable"))}</h3><div class="table-wrap"><table><thead><tr><th>${t("colNode")}</th><th>${t("colRole")}</th><th>${t("colState")}</th><th>${t("colAddr")}</th><th>${t("colBound")}</th></tr></thead><tbody>${nodes}</tbody></table></div>
${links ? `<ul>${links}</ul>` : ""}
<h3>${esc(t("timersTable"))}</h3><div class="table-wrap"><table><thead><tr><th>${t("colNode")}</th><th>${t("colTimer")}</th><th>${t("colAt")}</th><th>${t("colIn")}</th></tr></thead><tbody>${timers}</tbody></table></div>
<h3>${esc(t("flightsTable"))} (${snap.flights.length})</h3><div class="table-wrap"><table data-testid="table-flights"><thead><tr><th>${t("colId")}</th><th>${t("msgType")}</th><th>${t("msgSent")}</th><th>${t("msgArrive")}</th><th>${t("colProgress")}</th></tr></thead><tbody>${flights}</tbody></table></div>
${routes}${clients}`);
}
