// @ts-check
// The one panel a lesson step talks about, drawn small enough to sit beside its narration:
// a client's copy against its NameServer's table, a NameServer's live table, one timer, a
// strip of sends, the last measurement, the disagreement between NameServers, a node's log.
import { t } from "../app/i18n.js";
import { secs, dur } from "../app/format.js";
import { esc, setHtml } from "../app/html.js";
import { brokerText, routeDiff, staleSentence } from "../panels/routes.js";
import { divergence } from "../panels/tables.js";
import { removalClock } from "../diagram/clocks.js";
import { rich } from "./glossary.js";

const LANE_SPAN_MS = 60000;

export function renderContext(el, spec, snap, meta, trace) {
  const fn = KINDS[spec.kind];
  const html = fn ? fn(spec, snap, meta, trace) : "";
  setHtml(
    el,
    `<div class="ctx ctx-${esc(spec.kind)}" data-testid="context-${esc(spec.kind)}" data-node="${esc(spec.node || "")}">${html}</div>`,
  );
}

const KINDS = {
  route: (s, snap, meta) => (isClient(snap, s.node) ? clientVsNs(s.node, snap) : nsRoute(s.node, snap, meta)),
  stale: (s, snap) => clientVsNs(s.node, snap),
  routes: (s, snap, meta) =>
    snap.nodes
      .filter((n) => n.role === "nameserver")
      .map((n) => nsRoute(n.name, snap, meta))
      .join(""),
  ns: (s, snap) => nsLive(s.node, snap),
  timer: (s, snap) => timerRow(s.node, s.timer, snap),
  lane: (s, snap, meta, trace) => lane(s.node, snap, trace),
  measure: (s, snap) =>
    snap.measurements.length
      ? measureShort(snap.measurements[snap.measurements.length - 1])
      : `<p class="muted">${esc(t("noMeasure"))}</p>`,
  divergence: (s, snap) => diverged(snap),
  log: (s, snap, meta, trace) => logTail(s.node, trace),
  consumer: (s, snap, meta, trace) => consumerQueues(s.node, snap, meta, trace),
};

function isClient(snap, name) {
  const n = snap.nodes.find((x) => x.name === name);
  return n && (n.role === "producer" || n.role === "consumer");
}

// The client's cached brokers beside its NameServer's, row by row.
function clientVsNs(name, snap) {
  const c = snap.clients[name];
  if (!c) return `<p class="muted">${esc(name)}: ${esc(t("notRunning"))}</p>`;
  const truth = snap.routes[c.boundTo] ? snap.routes[c.boundTo][c.topic] : null;
  const d = routeDiff(c.route, truth);
  const all = [
    ...new Set([
      ...(c.route ? c.route.brokerDatas.map((b) => b.brokerName) : []),
      ...(truth ? truth.brokerDatas.map((b) => b.brokerName) : []),
    ]),
  ].sort();
  const queues = (r, b) => {
    const q = r && r.queueDatas.find((x) => x.brokerName === b);
    return q ? `w${q.writeQueueNums}` : "";
  };
  const rows = all.map((b) => {
    const st = d.gone.includes(b) ? "gone" : d.added.includes(b) ? "new" : d.changed.includes(b) ? "changed" : "same";
    // A changed group shows only what differs: the narrow sheet keeps one line per group.
    const mine = st === "new" ? "—" : `${b} ${st === "changed" ? brokerText(c.route, b, truth) : queues(c.route, b)}`;
    const theirs = st === "gone" ? "—" : `${b} ${st === "changed" ? brokerText(truth, b, c.route) : queues(truth, b)}`;
    return `<tr class="row-${st}" data-broker="${esc(b)}" data-diff="${st}"><td>${esc(mine)}</td><td>${esc(theirs)}</td></tr>`;
  });
  const head = `<tr><th>${esc(t("ctxCopy", { c: name }))}</th><th>${esc(t("ctxTruth", { ns: c.boundTo }))}</th></tr>`;
  const badge = c.stale
    ? `<p class="badge stale" data-testid="ctx-stale">⚠ ${rich(`[[stale|${t("stale", { s: dur(snap.time - c.staleSince) })}]]`)}</p><p class="stale-why">${esc(staleSentence(name, snap))}</p>`
    : "";
  return `${badge}<table class="diff"><thead>${head}</thead><tbody>${rows.join("") || `<tr><td>—</td><td>—</td></tr>`}</tbody></table>`;
}

function nsRoute(name, snap, meta) {
  const r = snap.routes[name] ? snap.routes[name][meta.topics[0]] : null;
  const up = snap.nodes.some((x) => x.name === name && x.state === "up");
  const list = !up
    ? t("noAnswer", { ns: name })
    : r
      ? r.brokerDatas.map((b) => `${b.brokerName} {${Object.keys(b.brokerAddrs).join(", ")}}`).join(" · ")
      : t("noRoute");
  return `<p class="ctx-line"><strong>${esc(t("routeOf", { topic: meta.topics[0], who: name }))}</strong>: ${esc(list)}</p>`;
}

function nsLive(name, snap) {
  const tb = snap.ns[name];
  const n = snap.nodes.find((x) => x.name === name);
  if (!tb || !n) return "";
  const byAddr = Object.fromEntries(snap.nodes.map((x) => [x.addr, x.name]));
  const by = new Set();
  const rows = tb.live.map((r) => {
    const c = removalClock(r, snap.time);
    const st = n.state !== "up" ? "paused" : c.state;
    const frac = Math.max(0, Math.min(1, c.left / c.period));
    by.add(t(`by_${c.by}`));
    const when = c.left <= 0 ? t("clockDue") : dur(c.left);
    return `<tr data-broker="${esc(byAddr[r.brokerAddr] || r.brokerName)}" data-state="${st}"><td>${esc(byAddr[r.brokerAddr] || r.brokerName)}</td><td class="num">${esc(dur(snap.time - r.lastUpdate))}</td><td class="num"><span class="bar ${st}" aria-hidden="true"><span style="width:${(frac * 100).toFixed(1)}%"></span></span> ${esc(when)}</td></tr>`;
  });
  const head = `<tr><th>${esc(t("colBroker"))}</th><th>${esc(t("ctxHeard"))}</th><th>${esc(t("ctxRemovalIn", { by: [...by].join(" / ") || "—" }))}</th></tr>`;
  return `<table class="ctx-live"><caption>${esc(name)} · ${rich("[[livetable|brokerLiveTable]]")}</caption><thead>${head}</thead><tbody>${rows.join("") || `<tr><td colspan="3">${esc(t("ctxEmpty"))}</td></tr>`}</tbody></table>`;
}

function timerRow(node, kind, snap) {
  const n = snap.nodes.find((x) => x.name === node);
  const tm = n && n.timers.find((x) => x.kind === kind);
  if (!tm) return `<p class="muted">${esc(node)}: —</p>`;
  const left = Math.max(0, tm.at - snap.time);
  const frac = tm.periodMs ? Math.max(0, Math.min(1, left / tm.periodMs)) : 0;
  const every = tm.periodMs ? ` · ${t("timerEvery", { s: dur(tm.periodMs) })}` : "";
  return `<p class="ctx-line" data-kind="${esc(kind)}" data-left-ms="${left}"><strong>${esc(node)}</strong> ${esc(t(`timer_${kind}`))}: <span class="bar" aria-hidden="true"><span style="width:${(frac * 100).toFixed(1)}%"></span></span> ${esc(t("timerIn", { s: dur(left) }))} (${secs(tm.at)})${esc(every)}</p>`;
}

// The last minute of one producer's sends, newest on the right.
function lane(node, snap, trace) {
  const from = Math.max(0, snap.time - LANE_SPAN_MS);
  const pct = (ms) => `${(((ms - from) / LANE_SPAN_MS) * 100).toFixed(2)}%`;
  const lines = trace.filter((l) => l.node === node && l.at >= from && /^send-/.test(l.kind));
  const marks = lines.map((l) => {
    const cls =
      l.kind === "send-ok"
        ? "ok"
        : l.kind === "send-retry"
          ? "retried"
          : l.text.includes("timeout")
            ? "indeterminate"
            : "failed";
    const sym = cls === "ok" ? "" : cls === "retried" ? "↻" : cls === "failed" ? "✖" : "?";
    return `<span class="mark ${cls}" style="left:${pct(l.at)}" title="${esc(`${secs(l.at)} ${l.kind}`)}">${sym}</span>`;
  });
  const counts = { ok: 0, retried: 0, failed: 0, indeterminate: 0 };
  for (const l of lines)
    counts[
      l.kind === "send-ok"
        ? "ok"
        : l.kind === "send-retry"
          ? "retried"
          : l.text.includes("timeout")
            ? "indeterminate"
            : "failed"
    ]++;
  return `<div class="lane-row"><span class="axis-l small">${secs(from, 0)}</span><div class="mini-lane" aria-hidden="true">${marks.join("")}</div><span class="axis-r small">${secs(snap.time, 0)}</span></div><p class="ctx-line small"><strong>${esc(node)}</strong> ${esc(t("ctxLane", { ok: counts.ok, retried: counts.retried, failed: counts.failed, ind: counts.indeterminate }))}</p>`;
}

function diverged(snap) {
  const d = divergence(snap);
  // The tables may agree while one NameServer has stopped hearing a broker it still lists.
  const gap = !d && snap.lacks && snap.lacks.clocks[0];
  if (gap)
    return `<p class="badge divergent" data-testid="ctx-clock-gap">⚠ ${esc(t("agreeClocksApart", { b: gap.name, s: dur(gap.freshestHeard - gap.stalestHeard) }))}</p>`;
  if (!d) return `<p class="badge ok">✓ ${esc(t("agree"))}</p>`;
  return `<p class="badge divergent" data-testid="ctx-divergence">⚠ ${esc(t("divergence", { ns: d.ns, brokers: d.missing.join(", "), other: d.other.join(", ") }))}</p>`;
}

function logTail(node, trace) {
  const lines = trace.filter((l) => l.node === node).slice(-3);
  if (!lines.length) return `<p class="muted">${esc(t("ctxNoLog", { n: node }))}</p>`;
  return `<ol class="ctx-log">${lines.map((l) => `<li><span class="log-time">${secs(l.at)}</span> <span class="log-kind" lang="en">${esc(l.kind)}</span> <span lang="en">${esc(l.text)}</span></li>`).join("")}</ol>`;
}

// The last fault and what followed, in three lines: removals, client updates, sends.
function measureShort(m) {
  const removals = m.nsRemoval
    .map(([ns, at]) => (at === null ? t("ctxNotRemoved", { ns }) : `${ns} ${secs(at)} (+${dur(at - m.at)})`))
    .join(", ");
  const updates =
    m.clientUpdate
      .filter(([, at]) => at !== null)
      .map(([c, at]) => `${c} ${secs(at)}`)
      .join(", ") || "—";
  // The action is script text, kept as written.
  const head = esc(t("mFault", { action: "\u0001", t: secs(m.at) })).replace(
    "\u0001",
    `<code lang="en">${esc(m.action)}</code>`,
  );
  return `<p class="ctx-line"><strong>${head}</strong></p>
<ul class="ctx-measure"><li>${esc(t("ctxRemoved"))}: ${esc(removals)}</li><li>${esc(t("ctxUpdated"))}: ${esc(updates)}</li>
<li>${esc(t("compareSends"))}: ${esc(t("compareSendsCell", { f: m.sendsFailed, i: m.sendsIndeterminate, r: m.sendsRetried }))}</li></ul>`;
}

// What a consumer reads, broker by broker: the queues it holds and how far it is, and for a
// broker of the route it does not read, since when and how much a producer wrote there since.
function consumerQueues(name, snap, meta, trace) {
  const c = snap.consumers && snap.consumers[name];
  if (!c) return `<p class="muted">${esc(name)}: ${esc(t("notRunning"))}</p>`;
  const brokers = [...new Set(snap.nodes.filter((n) => n.role === "broker").map((n) => n.group))];
  const rows = brokers.map((b) => {
    const held = c.queues.filter((q) => q.broker === b);
    if (held.length) {
      const unread = held.reduce((n, q) => n + Math.max(0, (q.maxOffset ?? 0) - (q.nextOffset ?? 0)), 0);
      const next = held.map((q) => q.nextOffset ?? 0);
      const at =
        Math.min(...next) === Math.max(...next) ? String(next[0]) : `${Math.min(...next)}–${Math.max(...next)}`;
      return `<tr data-broker="${esc(b)}" data-read="true"><td>${esc(b)}</td><td>${esc(t("ctxQueuesAt", { n: held.length, at }))}</td><td class="num">${unread}</td></tr>`;
    }
    const dropped = [...trace]
      .reverse()
      .find(
        (l) =>
          l.node === name &&
          l.kind === "rebalance" &&
          l.text.includes("remove unnecessary mq") &&
          l.text.includes(`brokerName=${b},`),
      );
    const since = dropped ? dropped.at : null;
    const written =
      since === null
        ? 0
        : trace.filter(
            (l) => l.at > since && l.kind === "send-ok" && l.text.includes(`topic=${c.topic}, brokerName=${b},`),
          ).length;
    const what = since === null ? t("ctxNotRead") : t("ctxNotReadSince", { t: secs(since) });
    return `<tr class="row-gone-soft" data-broker="${esc(b)}" data-read="false" data-unread="${written}"><td>${esc(b)}</td><td>${esc(what)}</td><td class="num">${written}</td></tr>`;
  });
  const dup = c.duplicates ? `<p class="ctx-line warn">${esc(t("ctxDuplicates", { n: c.duplicates }))}</p>` : "";
  return `<table class="ctx-consumer"><caption>${esc(t("ctxConsumer", { c: name, g: c.group, n: c.consumed }))}</caption><thead><tr><th>${esc(t("colBroker"))}</th><th>${esc(t("ctxReads"))}</th><th>${esc(t("ctxUnread"))}</th></tr></thead><tbody>${rows.join("")}</tbody></table>${dup}`;
}
