// @ts-check
// Each NameServer's tables (the live table with heartbeat ages and removal clocks), divergence,
// timers, measurements and the all-text table view.
import { t } from "../app/i18n.js";
import { secs, dur } from "../app/format.js";
import { STATE_ICON, flightLabel, msgType } from "../diagram/glyphs.js";
import { routeHtml } from "./routes.js";
import { removalClock } from "../diagram/clocks.js";
import { rich } from "../lessons/glossary.js";
import { esc, setHtml } from "../app/html.js";

// The heartbeat age and the clock toward removal: blue while far, amber in its last quarter,
// red once the broker is past its timeout (the scan-only wait) or due.
function ageCell(row, now) {
  const age = now - row.lastUpdate;
  const c = removalClock(row, now);
  const frac = Math.min(1, age / c.period);
  const first = c.past ? `⚠ ${dur(age)} — ${t("pastTimeout", { s: dur(row.timeoutMs) })}` : dur(age);
  const rest = c.left <= 0 ? t("removalDue") : t("removalIn", { s: dur(c.left), by: t(`by_${c.by}`) });
  return `<td class="age ${c.state}" data-age-ms="${age}" data-over="${c.state === "over"}" data-state="${c.state}" data-left-ms="${c.left}"><span class="bar" aria-hidden="true"><span style="width:${(frac * 100).toFixed(1)}%"></span></span> ${esc(first)}<br><span class="small">${esc(rest)}</span></td>`;
}

// `at` formats a time of the tables (the simulation's seconds, or a daemon's clock time).
export function renderNsTables(el, snap, at = secs) {
  const out = [];
  for (const n of snap.nodes.filter((x) => x.role === "nameserver")) {
    const tb = snap.ns[n.name];
    const scan =
      tb.nextScan !== null && n.state === "up"
        ? t("nextScan", { s: dur(tb.nextScan - snap.time) })
        : t(`state_${n.state}`);
    const rows = tb.live
      .map(
        (r) =>
          `<tr data-broker="${esc(r.brokerName)}" data-broker-id="${r.brokerId}"><td class="mono addr">${esc(r.brokerAddr)}</td><td>${esc(r.brokerName)}</td><td>${r.brokerId}</td><td>${esc(at(r.lastUpdate))}</td>${ageCell(r, snap.time)}</tr>`,
      )
      .join("");
    const clusters = Object.entries(tb.clusters)
      .map(([c, names]) => `${esc(c)}: [${names.map(esc).join(", ")}]`)
      .join("; ");
    out.push(`<article class="card ns-card" data-testid="ns-${esc(n.name)}" data-state="${n.state}">
<h3>${esc(n.name)} <span class="muted">${STATE_ICON[n.state]} ${esc(t(`state_${n.state}`))} · <span data-testid="next-scan-${esc(n.name)}">${esc(scan)}</span></span></h3>
<div class="table-wrap"><table class="live" data-testid="live-${esc(n.name)}"><caption>${rich("[[livetable|brokerLiveTable]]")}</caption>
<thead><tr><th>brokerAddr</th><th>brokerName</th><th>BID</th><th>${esc(t("lastUpdate"))}</th><th>${esc(t("age"))}</th></tr></thead><tbody>${rows}</tbody></table></div>
<p class="mono small">clusterAddrTable {${clusters}}</p></article>`);
  }
  setHtml(el, out.join(""));
}

// The first NameServer that lacks brokers another running one lists (the view's `lacks`, the
// one comparison of their tables): which, and who has them.
export function divergence(snap) {
  const d = snap.lacks && snap.lacks.brokers[0];
  return d ? { ns: d.ns, missing: d.brokers.map((b) => b.name), other: d.others } : null;
}

export function renderDivergence(el, snap) {
  const d = divergence(snap);
  el.hidden = !d;
  if (d) {
    const text = t("divergence", { ns: d.ns, brokers: d.missing.join(", "), other: d.other.join(", ") });
    setHtml(el, `⚠ ${esc(text)}`);
    el.title = text;
    el.dataset.missing = d.missing.join(",");
    el.dataset.ns = d.ns;
  }
}

function timerList(snap) {
  const rows = [];
  for (const n of snap.nodes) {
    for (const tm of n.timers)
      rows.push({
        node: n.name,
        label: tm.label,
        kind: tm.kind,
        at: tm.at,
        period: tm.periodMs ?? null,
        frozen: n.state === "frozen",
      });
  }
  for (const i of snap.isolations) {
    if (i.until > snap.time)
      rows.push({
        node: i.producer,
        label: t("isolation", { broker: i.broker }),
        kind: "isolation",
        at: i.until,
        period: null,
        isolation: true,
      });
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
        const when = r.frozen
          ? t("timerFrozen")
          : r.at < snap.time
            ? t("overdue", { s: dur(snap.time - r.at) })
            : t("timerIn", { s: dur(left) });
        return `<li data-timer="${esc(r.label)}" data-kind="${esc(r.kind || "")}" data-node="${esc(node)}" data-left-ms="${left}" data-period-ms="${r.period ?? ""}"><span class="bar" aria-hidden="true"><span style="width:${(frac * 100).toFixed(1)}%"></span></span> ${esc(r.label)}: ${esc(when)} (${secs(r.at)})${esc(every)}</li>`;
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
  const out = snap.measurements.map((m, i) => measurementCard(m, i));
  setHtml(el, out.join("") + staleHtml(snap));
}

// One fault and what followed from it: each NameServer's removal, each client's update, the
// sends aimed at the broker.
function measurementCard(m, i) {
  const lines = [];
  let lastRemoval = null;
  for (const [ns, at] of m.nsRemoval) {
    if (at === null) lines.push(`<li>${esc(t("mNever", { ns }))}</li>`);
    else {
      lastRemoval = Math.max(lastRemoval ?? 0, at);
      lines.push(
        `<li data-testid="m-${i}-removal-${esc(ns)}" data-ms="${at}">${esc(t("mRemoval", { ns, t: secs(at), d: dur(at - m.at) }))}</li>`,
      );
    }
  }
  for (const [c, at] of m.clientUpdate) {
    if (at === null) continue;
    const from = lastRemoval ?? m.at;
    lines.push(
      `<li data-testid="m-${i}-update-${esc(c)}" data-ms="${at}">${esc(t("mUpdate", { c, t: secs(at), d: `+${dur(at - from)}` }))}</li>`,
    );
  }
  lines.push(
    `<li data-testid="m-${i}-sends">${esc(
      t("mSends", {
        target: m.target || "?",
        attempts: m.attempts,
        failed: m.failedAttempts,
        retried: m.sendsRetried,
        indeterminate: m.sendsIndeterminate,
        sendsFailed: m.sendsFailed,
      }),
    )}</li>`,
  );
  return `<article class="card measure" data-testid="measurement-${i}" data-action="${esc(m.action)}"><h3>${esc(t("mFault", { action: m.action, t: secs(m.at) }))}</h3><ul>${lines.join("")}</ul></article>`;
}

function staleHtml(snap) {
  const w = snap.stale.filter((x) => x.from > 0);
  if (!w.length) return "";
  const items = w
    .map(
      (x) =>
        `<li>${esc(x.client)}: ${secs(x.from)} → ${x.to === null ? "…" : secs(x.to)} (${dur((x.to ?? snap.time) - x.from)})</li>`,
    )
    .join("");
  return `<details class="stale-windows"><summary>${esc(t("staleWin"))} (${w.length})</summary><ul>${items}</ul></details>`;
}

// The whole state as plain tables, for screen readers and for anyone who prefers text.
export function renderTableView(el, snap, meta) {
  const nodes = snap.nodes
    .map(
      (n) =>
        `<tr><td>${esc(n.name)}</td><td>${esc(n.role)}${n.group ? ` (${esc(n.group)}, BID ${n.brokerId})` : ""}</td><td>${STATE_ICON[n.state]} ${esc(t(`state_${n.state}`))}</td><td class="mono">${esc(n.addr)}</td><td>${esc(n.boundTo || "")}</td></tr>`,
    )
    .join("");
  const timers = timerList(snap)
    .map(
      (r) =>
        `<tr><td>${esc(r.node)}</td><td>${esc(r.label)}</td><td>${secs(r.at)}</td><td>${dur(Math.max(0, r.at - snap.time))}</td></tr>`,
    )
    .join("");
  const flights = snap.flights
    .slice(0, 200)
    .map((f) => {
      const p = f.held ? 1 : Math.max(0, Math.min(1, (snap.time - f.sentAt) / Math.max(1, f.arriveAt - f.sentAt)));
      return `<tr data-msg-type="${esc(msgType(f))}"><td>${f.id}</td><td>${esc(flightLabel(f))}</td><td>${secs(f.sentAt)}</td><td>${secs(f.arriveAt)}</td><td>${Math.round(p * 100)}%</td></tr>`;
    })
    .join("");
  const links = snap.links
    .map((l) => `<li>${esc(l.a)} ↔ ${esc(l.b)}: ${esc(l.state === "cut" ? t("linkCut") : t("linkReset"))}</li>`)
    .join("");
  const topic = meta.topics[0];
  const routes = snap.nodes
    .filter((n) => n.role === "nameserver")
    .map(
      (n) =>
        `<h4>${esc(t("routeOf", { topic: topic || "—", who: n.name }))}</h4>${topic ? routeHtml(snap.routes[n.name][topic]) : `<p class="muted">${esc(t("noTopicYet"))}</p>`}`,
    )
    .join("");
  const clients = Object.values(snap.clients)
    .filter(Boolean)
    .map(
      (c) =>
        `<h4>${esc(t("cachedRoute", { c: c.name, ns: c.boundTo }))} ${c.stale ? `— ⚠ ${esc(t("stale", { s: dur(snap.time - c.staleSince) }))}` : ""}</h4>${c.route ? routeHtml(c.route) : `<p>${esc(t("noCache"))}</p>`}`,
    )
    .join("");
  setHtml(
    el,
    `<h3>${esc(t("stateTable"))}</h3><div class="table-wrap"><table><thead><tr><th>${t("colNode")}</th><th>${t("colRole")}</th><th>${t("colState")}</th><th>${t("colAddr")}</th><th>${t("colBound")}</th></tr></thead><tbody>${nodes}</tbody></table></div>
${links ? `<ul>${links}</ul>` : ""}
<h3>${esc(t("timersTable"))}</h3><div class="table-wrap"><table><thead><tr><th>${t("colNode")}</th><th>${t("colTimer")}</th><th>${t("colAt")}</th><th>${t("colIn")}</th></tr></thead><tbody>${timers}</tbody></table></div>
<h3>${esc(t("flightsTable"))} (${snap.flights.length})</h3><div class="table-wrap"><table data-testid="table-flights"><thead><tr><th>${t("colId")}</th><th>${t("msgType")}</th><th>${t("msgSent")}</th><th>${t("msgArrive")}</th><th>${t("colProgress")}</th></tr></thead><tbody>${flights}</tbody></table></div>
${routes}${clients}`,
  );
}
