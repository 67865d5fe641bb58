// One node of the diagram: its box, its words and its clocks. A NameServer shows one clock per
// broker it knows, running toward that broker's removal; a broker its registration clock; a
// client its route-poll clock and, when its cached route differs from its NameServer's, STALE.
import { t, lang } from "../app/i18n.js";
import { STATE_ICON, svgEl } from "./glyphs.js";
import { textWidth } from "./labels.js";
import { timerKind, timerPeriod, removalClock } from "./clocks.js";
import { clockText } from "../app/format.js";
import { shows } from "../lessons/common.js";

// The page's font family, handed in by main.js (read from its style sheet).
let family = "sans-serif";
export function setFontFamily(f) {
  family = f || "sans-serif";
}
export const font = (size, weight = 400) => `${weight} ${size}px ${family}`;

// Cuts `text` to `max` px with an ellipsis at its end (a sentence).
function fit(text, f, max) {
  if (textWidth(text, f) <= max) return text;
  let s = text;
  while (s.length > 1 && textWidth(`${s}…`, f) > max) s = s.slice(0, -1);
  return `${s}…`;
}

// A node's name, cut in the middle: names such as bench-broker-0/1/2 or 127.0.0.1:35001/2
// differ only at their end, so a little of the start stays and as much of the end as fits.
function fitName(text, f, max) {
  if (textWidth(text, f) <= max) return text;
  for (let keep = text.length - 1; keep > 1; keep--) {
    const head = Math.floor(keep * 0.4);
    const s = `${text.slice(0, head)}…${text.slice(text.length - (keep - head))}`;
    if (textWidth(s, f) <= max) return s;
  }
  return `${text.slice(0, 1)}…`;
}

// A clock row's label (a broker's name or address), narrower still: only the end.
function fitEnd(text, f, max) {
  if (textWidth(text, f) <= max) return text;
  let s = text;
  while (s.length > 1 && textWidth(`…${s}`, f) > max) s = s.slice(1);
  return `…${s}`;
}

// Metrics per form: font sizes and line baselines inside a box.
const METRICS = {
  wide: { name: 15, small: 12, state: 12, pad: 10, lines: [20, 38, 55], clockLabelW: 84, secsW: 40 },
  narrow: { name: 14, small: 12, state: 12, pad: 6, lines: [16, 31, 46], clockLabelW: 68, secsW: 34 },
};

export class NodeFace {
  constructor(node, index, box, form, rowH) {
    this.node = node;
    this.rowH = rowH;
    this.index = index;
    this.box = box;
    this.form = form;
    this.m = METRICS[form];
    const m = this.m;
    this.g = svgEl("g", {
      class: `node role-${node.role}`,
      "data-node": node.name,
      "data-testid": `node-${node.name}`,
      role: "button",
      tabindex: "0",
      transform: `translate(${box.x - box.w / 2},${box.y - box.h / 2})`,
    });
    this.g.appendChild(svgEl("rect", { class: "box", width: box.w, height: box.h, rx: 8 }));
    this.text = svgEl("g", {
      class: "node-text",
      "data-node-text": node.name,
      "aria-hidden": "true",
      transform: this.g.getAttribute("transform"),
    });
    const [l1, l2, l3] = m.lines;
    this.nameEl = svgEl("text", { class: "name", x: m.pad, y: l1, "font-size": m.name });
    this.stateEl = svgEl("text", {
      class: "state",
      x: box.w - m.pad,
      y: l1,
      "text-anchor": "end",
      "font-size": m.state,
    });
    this.subEl = svgEl("text", { class: "sub", x: m.pad, y: l2, "font-size": m.small });
    this.text.append(this.nameEl, this.stateEl, this.subEl);
    if (node.role !== "nameserver" && form === "wide") {
      this.extraEl = svgEl("text", { class: "extra", x: m.pad, y: l3, "font-size": m.small });
      this.text.appendChild(this.extraEl);
    }
    this.clocks = svgEl("g", { class: "clocks" });
    this.text.appendChild(this.clocks);
    this.rows = new Map();
  }

  // A clock row: label, bar, seconds. `y` is the baseline.
  row(key, y) {
    let r = this.rows.get(key);
    if (r) return r;
    const m = this.m;
    const w = this.box.w;
    const barX = m.pad + m.clockLabelW;
    const barW = w - barX - m.secsW - m.pad;
    const g = svgEl("g", { class: "clock", "data-clock": key });
    const label = svgEl("text", { class: "clock-label", x: m.pad, y, "font-size": m.small });
    const bg = svgEl("rect", { class: "clock-bg", x: barX, y: y - 9, width: barW, height: 9, rx: 3 });
    const fill = svgEl("rect", { class: "clock-fill", x: barX, y: y - 9, width: 0, height: 9, rx: 3 });
    const secs = svgEl("text", { class: "clock-secs", x: w - m.pad, y, "text-anchor": "end", "font-size": m.small });
    g.append(label, bg, fill, secs);
    this.clocks.appendChild(g);
    r = { g, label, fill, secs, barW };
    this.rows.set(key, r);
    return r;
  }

  // `left`/`period` in ms; `state`: ok | near | over | paused.
  setRow(key, y, labelText, left, period, state, secsText, keepEnd = false) {
    const r = this.row(key, y);
    const frac = period ? Math.max(0, Math.min(1, left / period)) : 0;
    setText(r.label, (keepEnd ? fitEnd : fit)(labelText, font(this.m.small), this.m.clockLabelW - 4));
    setText(r.secs, secsText);
    r.fill.setAttribute("width", (r.barW * frac).toFixed(1));
    r.g.dataset.state = state;
    r.g.dataset.leftMs = String(Math.round(left));
    r.g.dataset.seen = "true";
  }

  render(live, snap, o) {
    const n = this.node;
    const m = this.m;
    const w = this.box.w;
    const state = live.state;
    const links = o.links || { total: 0, cut: 0, reset: 0 };
    const part = links.cut + links.reset > 0 && state === "up";
    const icon = STATE_ICON[state] || "?";
    let name = this.form === "wide" ? `${this.index + 1}. ${n.name}` : n.name;
    const nameFont = font(m.name, 700);
    const room = (text) => w - 2 * m.pad - textWidth(text, font(m.state, 600)) - 8;
    const faulted = (form) =>
      links.cut
        ? `✂ ${t(form, { n: links.cut, of: links.total, what: t("linksCut") })}`
        : `⚡ ${t(form, { n: links.reset, of: links.total, what: t("linksReset") })}`;
    let stateText = part ? faulted("linksOf") : `${icon} ${t(`stateShort_${state}`)}`;
    // The name comes first: "not started" gives way to its tiny form, the name drops its
    // number, and a node not started yet shows its icon alone (its label still says it), before
    // the name is cut. Other states keep icon and word: never colour-only.
    const fits = () => textWidth(name, nameFont) <= room(stateText);
    const waiting = !part && state === "not-started";
    if (waiting && !fits()) stateText = `${icon} ${t("stateTiny_not-started")}`;
    if (part && !fits()) stateText = faulted("linksOfShort");
    if (!fits()) name = n.name;
    if (waiting && !fits()) stateText = icon;
    setText(this.stateEl, stateText);
    setText(this.nameEl, fitName(name, nameFont, room(stateText)));
    for (const r of this.rows.values()) r.g.dataset.seen = "false";
    let sub = "";
    let extra = "";
    let stale = null;
    const seen = (what) => shows(o.reveal, what);
    if (n.role === "nameserver") {
      const tb = snap.ns[n.name];
      const scan = live.timers.find((x) => timerKind(x) === "scan");
      // A phone has no room for the scan line: the Timers panel has it.
      sub = this.form === "wide" ? t("nodeNameserver") : "";
      if (scan && state === "up" && this.form === "wide" && seen("scan"))
        sub += ` · ${t("scanIn", { s: clockText(scan.at - snap.time) })}`;
      const order = o.brokerOrder;
      for (const row of tb && seen("removal") ? tb.live : []) {
        const c = removalClock(row, snap.time);
        const i = order.indexOf(row.brokerName + "#" + row.brokerId);
        const y = (this.form === "wide" ? m.lines[1] : m.lines[0]) + (i + 1) * this.rowH + 1;
        const who = o.brokerByAddr[row.brokerAddr] || row.brokerName;
        const paused = state !== "up";
        const st = paused ? "paused" : c.state;
        const secsText = paused ? "—" : c.left <= 0 ? t("clockDue") : clockText(c.left);
        this.setRow(`remove:${who}`, y, who, c.left, c.period, st, secsText, true);
        const r = this.rows.get(`remove:${who}`);
        r.g.dataset.by = c.by;
        r.g.dataset.removalAt = String(c.at);
      }
    } else {
      const kind = n.role === "broker" ? "register" : "route-poll";
      const tm = seen(kind) ? live.timers.find((x) => timerKind(x) === kind) : undefined;
      if (n.role === "broker") {
        sub = n.brokerId === 0 ? t("master") : t("slave", { id: n.brokerId });
        if (seen("addresses")) extra = n.addr;
      } else {
        sub = `${n.role === "producer" ? t("nodeProducer") : t("nodeConsumer")} ${t("boundTo", { ns: live.boundTo || o.bound || "?" })}`;
        const c = snap.clients[n.name];
        if (c && c.stale) stale = c;
        else if (c && c.route)
          extra = `${t("routeShort")}: ${c.route.brokerDatas.map((b) => b.brokerName).join(", ") || "—"}`;
        else if (c) extra = `${t("routeShort")}: —`;
      }
      const y = this.form === "wide" ? m.lines[2] + 18 : m.lines[2];
      const label = t(kind === "register" ? "clockRegister" : "clockPoll");
      if (state === "frozen" && tm) this.setRow(kind, y, label, 0, 1, "paused", `❄ ${t("clockPaused")}`);
      else if (tm && (state === "up" || state === "shutting-down")) {
        const left = Math.max(0, tm.at - snap.time);
        this.setRow(kind, y, label, left, timerPeriod(tm, snap), left <= 3000 ? "near" : "ok", clockText(left));
      }
    }
    if (stale) {
      const txt = `⚠ ${t("staleBadge", { s: clockText(snap.time - stale.staleSince) })}`;
      if (this.form === "wide") extra = txt;
      else sub = txt;
    }
    this.g.dataset.stale = stale ? "true" : "false";
    this.text.dataset.stale = stale ? "true" : "false";
    setText(this.subEl, fit(sub, font(m.small), w - 2 * m.pad));
    if (this.extraEl) setText(this.extraEl, fit(extra, font(m.small, stale ? 700 : 400), w - 2 * m.pad));
    for (const [key, r] of this.rows) {
      if (r.g.dataset.seen === "false") {
        r.g.remove();
        this.rows.delete(key);
      }
    }
    for (const el of [this.g, this.text]) {
      el.dataset.state = state;
      el.dataset.partitioned = part ? "true" : "false";
    }
    this.g.dataset.selected = o.selected === n.name ? "true" : "false";
    this.g.dataset.highlighted = o.highlight && o.highlight.includes(n.name) ? "true" : "false";
    const faults = part ? `, ${faulted("linksOf")}` : "";
    const label = `${this.index + 1}. ${n.name}, ${sub}, ${icon} ${t(`state_${state}`)}${faults}${extra ? `, ${extra}` : ""}`;
    if (this.g.getAttribute("aria-label") !== label) this.g.setAttribute("aria-label", label);
    this.text.lang = lang === "zh" ? "zh-CN" : "en";
  }
}

function setText(el, s) {
  if (el.textContent !== s) el.textContent = s;
}
