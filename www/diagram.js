// The cluster diagram: nodes, links and typed messages in flight (SVG, scaled by viewBox).
import { t, secs } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";
const BOX_W = 164;
const BOX_H = 92;
const MAX_FLIGHTS = 80;
const MAX_HELD_PER_NODE = 6;

export const STATE_ICON = {
  up: "●",
  "not-started": "○",
  frozen: "❄",
  "shutting-down": "◐",
  down: "✖",
  "powered-off": "⊘",
};

// Glyph, short label and colour class per message category: shape and text, not colour alone.
const GLYPH = {
  register: { shape: "square", short: "REG" },
  unregister: { shape: "cross", short: "UNREG" },
  route: { shape: "circle", short: "ROUTE" },
  send: { shape: "triangle", short: "SEND" },
  pull: { shape: "hexagon", short: "PULL" },
  heartbeat: { shape: "diamond", short: "HB" },
  close: { shape: "bar", short: "FIN" },
  reset: { shape: "bolt", short: "RST" },
  failure: { shape: "xcircle", short: "ERR" },
  other: { shape: "circle", short: "MSG" },
};

export function camel(code) {
  return code.toLowerCase().replace(/(^|_)([a-z])/g, (_, __, c) => c.toUpperCase());
}

// The RocketMQ code a flight carries: the request code, or the one a response answers.
export function msgType(f) {
  if (f.category === "close") return "FIN";
  if (f.category === "reset") return "RST";
  if (f.response) {
    const m = f.summary.match(/\(([A-Z_]+)\)/);
    return m ? m[1] : "RESPONSE";
  }
  return f.summary.split(" ")[0];
}

export function flightLabel(f) {
  const type = msgType(f);
  const name = /^[A-Z_]+$/.test(type) && type.length > 3 ? camel(type) : type;
  const resp = f.response ? ` response ${f.summary.split(" ")[0]}` : "";
  const held = f.held ? `, ${t("held")}` : "";
  return `${name}${resp} ${f.from} → ${f.to}, ${t("arrives", { t: secs(f.arriveAt) })}${held}`;
}

function el(name, attrs = {}, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function roleLine(n, live) {
  if (n.role === "nameserver") return t("nodeNameserver");
  if (n.role === "broker") return n.brokerId === 0 ? t("master") : t("slave", { id: n.brokerId });
  const bound = live && live.boundTo ? ` ${t("boundTo", { ns: live.boundTo })}` : "";
  return (n.role === "producer" ? t("nodeProducer") : t("nodeConsumer")) + bound;
}

function shortTimer(label) {
  return label
    .replace("scan for expired brokers", "scan")
    .replace("register to NameServers", "register")
    .replace("heartbeat to brokers", "heartbeat");
}

function layoutRow(items, y, width, wrap, gap = 16) {
  const out = {};
  const perRow = Math.max(1, wrap);
  let row = 0;
  for (let i = 0; i < items.length; i += perRow) {
    const chunk = items.slice(i, i + perRow);
    const step = width / chunk.length;
    chunk.forEach((name, j) => (out[name] = { x: step * (j + 0.5), y: y + row * (BOX_H + gap + 30) }));
    row++;
  }
  return { pos: out, rows: row };
}

export class Diagram {
  constructor(svg, { onNode, onFlight }) {
    this.svg = svg;
    this.onNode = onNode;
    this.onFlight = onFlight;
    this.flightEls = new Map();
    this.narrow = null;
    svg.addEventListener("click", (e) => this.activate(e));
    svg.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        if (this.activate(e)) e.preventDefault();
      }
    });
  }

  activate(e) {
    const f = e.target.closest("[data-flight-id]");
    if (f) {
      this.onFlight(Number(f.dataset.flightId));
      return true;
    }
    const n = e.target.closest("[data-node]");
    if (n) {
      this.onNode(n.dataset.node);
      return true;
    }
    return false;
  }

  setMeta(meta, narrow) {
    this.meta = meta;
    this.narrow = narrow;
    const svg = this.svg;
    svg.replaceChildren();
    this.flightEls.clear();
    const W = narrow ? 400 : 1000;
    const by = (r) => meta.nodes.filter((n) => n.role === r).map((n) => n.name);
    const nss = by("nameserver");
    const brokers = meta.nodes.filter((n) => n.role === "broker");
    const groups = [...new Set(brokers.map((b) => b.group))];
    const orderedBrokers = groups.flatMap((g) => brokers.filter((b) => b.group === g).map((b) => b.name));
    const clients = [...by("producer"), ...by("consumer")];
    const wrap = narrow ? 2 : 6;
    const a = layoutRow(nss, 70, W, wrap);
    const yB = 70 + a.rows * (BOX_H + 46) + 40;
    const b = layoutRow(orderedBrokers, yB, W, narrow ? 2 : 5);
    const yC = yB + b.rows * (BOX_H + 46) + 40;
    const c = layoutRow(clients, yC, W, narrow ? 2 : 6);
    this.pos = { ...a.pos, ...b.pos, ...c.pos };
    const H = yC + c.rows * (BOX_H + 46) + 10;
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.appendChild(this.defs());
    this.gGroups = el("g", { class: "groups", "aria-hidden": "true" });
    for (const g of groups) {
      const members = brokers.filter((x) => x.group === g).map((x) => this.pos[x.name]);
      if (members.length < 2) continue;
      const xs = members.map((p) => p.x);
      const ys = members.map((p) => p.y);
      const x0 = Math.min(...xs) - BOX_W / 2 - 8;
      const y0 = Math.min(...ys) - BOX_H / 2 - 24;
      this.gGroups.appendChild(el("rect", {
        x: x0, y: y0, width: Math.max(...xs) - Math.min(...xs) + BOX_W + 16,
        height: Math.max(...ys) - Math.min(...ys) + BOX_H + 32, rx: 10, class: "group-box",
      }));
      this.gGroups.appendChild(el("text", { x: x0 + 8, y: y0 + 15, class: "group-label" }, `group ${g}`));
    }
    this.gLinks = el("g", { class: "links", "aria-hidden": "true" });
    this.gNodes = el("g", { class: "nodes" });
    this.gFlights = el("g", { class: "flights" });
    this.gNodeText = el("g", { class: "texts", "aria-hidden": "true" });
    this.gFlightText = el("g", { class: "texts", "aria-hidden": "true" });
    svg.append(this.gGroups, this.gLinks, this.gNodes, this.gNodeText, this.gFlights, this.gFlightText);
    this.nodeEls = {};
    this.nodeTexts = {};
    meta.nodes.forEach((n, i) => {
      const p = this.pos[n.name];
      const g = el("g", {
        class: `node role-${n.role}`, "data-node": n.name, "data-testid": `node-${n.name}`,
        role: "button", tabindex: "0", transform: `translate(${p.x - BOX_W / 2},${p.y - BOX_H / 2})`,
      });
      g.appendChild(el("rect", { class: "box", width: BOX_W, height: BOX_H, rx: 8 }));
      // The texts sit in their own layer: the button's name is its aria-label, which says the same.
      const txt = el("g", { class: "node-text", "data-node-text": n.name, "aria-hidden": "true", transform: g.getAttribute("transform") });
      txt.appendChild(el("text", { class: "name", x: 10, y: 20 }, `${i + 1}. ${n.name}`));
      txt.appendChild(el("text", { class: "sub", x: 10, y: 39 }));
      txt.appendChild(el("text", { class: "state", x: 10, y: 58 }));
      txt.appendChild(el("text", { class: "timer", x: 10, y: 78 }));
      this.gNodes.appendChild(g);
      this.gNodeText.appendChild(txt);
      this.nodeEls[n.name] = g;
      this.nodeTexts[n.name] = txt;
    });
  }

  defs() {
    const d = el("defs");
    const m = el("marker", { id: "arrow", viewBox: "0 0 10 10", refX: "9", refY: "5", markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse" });
    m.appendChild(el("path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead" }));
    const p = el("pattern", { id: "hatch", width: "6", height: "6", patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" });
    p.appendChild(el("rect", { width: "2", height: "6", class: "hatch-line" }));
    d.append(m, p);
    return d;
  }

  edge(a, b, off = 0) {
    const A = this.pos[a];
    const B = this.pos[b];
    if (!A || !B) return null;
    const dx = B.x - A.x;
    const dy = B.y - A.y;
    const len = Math.hypot(dx, dy) || 1;
    const ux = dx / len;
    const uy = dy / len;
    // Leave the boxes: distance from the centre to the box edge along the line.
    const r = Math.min(BOX_W / 2 / Math.max(Math.abs(ux), 1e-6), BOX_H / 2 / Math.max(Math.abs(uy), 1e-6)) + 4;
    const nx = -uy * off;
    const ny = ux * off;
    return { x1: A.x + ux * r + nx, y1: A.y + uy * r + ny, x2: B.x - ux * r + nx, y2: B.y - uy * r + ny, ux, uy };
  }

  render(snap, o) {
    if (!this.meta) return;
    const byName = Object.fromEntries(snap.nodes.map((n) => [n.name, n]));
    const partitioned = new Set(snap.links.flatMap((l) => [l.a, l.b]));
    for (const n of this.meta.nodes) {
      const live = byName[n.name];
      const g = this.nodeEls[n.name];
      if (!live || !g) continue;
      const state = live.state;
      const part = partitioned.has(n.name) && state === "up";
      const stateText = `${STATE_ICON[state] || "?"} ${t(`state_${state}`)}${part ? ` · ✂ ${t("partitioned")}` : ""}`;
      const timer = live.timers.find((x) => !x.label.startsWith("idle close") && !x.label.startsWith("long-poll"));
      const left = timer ? (timer.at - snap.time) / 1000 : 0;
      const timerText = !timer ? "" : left < 0 ? `◷ ${shortTimer(timer.label)} ${t("overdueShort")} ${(-left).toFixed(1)} s` : `◷ ${shortTimer(timer.label)} ${left.toFixed(1)} s`;
      const sub = roleLine(n, live);
      g.setAttribute("data-state", state);
      g.setAttribute("data-partitioned", part ? "true" : "false");
      g.setAttribute("data-selected", o.selected === n.name ? "true" : "false");
      g.setAttribute("data-highlighted", o.highlight === n.name ? "true" : "false");
      const txt = this.nodeTexts[n.name];
      txt.setAttribute("data-state", state);
      txt.setAttribute("data-partitioned", part ? "true" : "false");
      const [, subEl, stateEl, timerEl] = txt.querySelectorAll("text");
      if (subEl.textContent !== sub) subEl.textContent = sub;
      if (stateEl.textContent !== stateText) stateEl.textContent = stateText;
      if (timerEl.textContent !== timerText) timerEl.textContent = timerText;
      const label = `${this.meta.nodes.indexOf(n) + 1}. ${n.name}, ${sub}, ${stateText}${timerText ? `, ${timerText}` : ""}`;
      if (g.getAttribute("aria-label") !== label) g.setAttribute("aria-label", label);
    }
    this.renderLinks(snap, byName);
    this.renderFlights(snap, o);
  }

  renderLinks(snap, byName) {
    const pairs = new Map();
    const add = (a, b, kind) => {
      const key = a < b ? `${a}|${b}` : `${b}|${a}`;
      if (!pairs.has(key)) pairs.set(key, { a, b, kind });
    };
    const nss = this.meta.nodes.filter((n) => n.role === "nameserver");
    const brokers = this.meta.nodes.filter((n) => n.role === "broker");
    for (const b of brokers) for (const ns of nss) add(b.name, ns.name, "reg");
    for (const n of this.meta.nodes) {
      if (n.role !== "producer" && n.role !== "consumer") continue;
      const live = byName[n.name];
      if (live && live.boundTo) add(n.name, live.boundTo, "route");
      for (const b of brokers) if (b.brokerId === 0 || n.role === "consumer") add(n.name, b.name, "data");
    }
    for (const l of snap.links) add(l.a, l.b, "cut");
    const state = Object.fromEntries(snap.links.map((l) => [l.a < l.b ? `${l.a}|${l.b}` : `${l.b}|${l.a}`, l.state]));
    const parts = [];
    for (const [key, { a, b, kind }] of pairs) {
      const e = this.edge(a, b);
      if (!e) continue;
      const s = state[key];
      const cls = s ? `link link-${s}` : `link link-${kind}`;
      parts.push(`<line class="${cls}" x1="${e.x1.toFixed(1)}" y1="${e.y1.toFixed(1)}" x2="${e.x2.toFixed(1)}" y2="${e.y2.toFixed(1)}"/>`);
      if (s) {
        const mx = (e.x1 + e.x2) / 2;
        const my = (e.y1 + e.y2) / 2;
        const txt = s === "cut" ? `✂ ${t("linkCut")}` : `⚡ ${t("linkReset")}`;
        parts.push(`<text class="link-label" x="${mx.toFixed(1)}" y="${my.toFixed(1)}" text-anchor="middle">${txt}</text>`);
      }
    }
    const html = parts.join("");
    if (html !== this.lastLinks) {
      this.gLinks.innerHTML = html;
      this.lastLinks = html;
    }
  }

  renderFlights(snap, o) {
    const seen = new Set();
    const heldPer = {};
    let shown = 0;
    const overflow = {};
    for (const f of snap.flights) {
      if (f.held) {
        heldPer[f.to] = (heldPer[f.to] || 0) + 1;
        if (heldPer[f.to] > MAX_HELD_PER_NODE) {
          overflow[f.to] = (overflow[f.to] || 0) + 1;
          continue;
        }
      } else if (++shown > MAX_FLIGHTS) {
        continue;
      }
      const e = this.edge(f.from, f.to, f.response ? -9 : 9);
      if (!e) continue;
      seen.add(f.id);
      let g = this.flightEls.get(f.id);
      if (!g) {
        g = this.makeFlight(f);
        this.flightEls.set(f.id, g);
        this.gFlights.appendChild(g);
        this.gFlightText.appendChild(g.texts);
      }
      this.placeFlight(g, f, e, snap.time, o);
    }
    for (const [id, g] of this.flightEls) {
      if (!seen.has(id)) {
        g.remove();
        g.texts.remove();
        this.flightEls.delete(id);
      }
    }
    for (const old of this.gFlights.querySelectorAll(".held-more")) old.remove();
    for (const [name, n] of Object.entries(overflow)) {
      const p = this.pos[name];
      if (!p) continue;
      this.gFlights.appendChild(el("text", { class: "held-more", x: p.x, y: p.y + BOX_H / 2 + 16, "text-anchor": "middle" }, `❚❚ +${n} ${t("held")}`));
    }
  }

  makeFlight(f) {
    const gl = GLYPH[f.category] || GLYPH.other;
    const g = el("g", {
      class: `flight cat-${f.category}${f.response ? " response" : ""}`,
      "data-flight-id": String(f.id), "data-msg-type": msgType(f), "data-category": f.category,
      "data-from": f.from, "data-to": f.to, "data-response": String(f.response), role: "button", tabindex: "0",
    });
    g.appendChild(el("line", { class: "trail", "marker-end": "url(#arrow)" }));
    const body = el("g", { class: "glyph" });
    body.appendChild(el("circle", { r: "28", class: "hit" }));
    body.appendChild(shape(gl.shape));
    g.appendChild(body);
    g.texts = el("g", { class: `flight-text cat-${f.category}`, "data-for": String(f.id) });
    g.texts.appendChild(el("text", { class: "msg-label", x: "10", y: "-8" }, f.response && f.category === "send" ? "ACK" : gl.short));
    g.texts.appendChild(el("text", { class: "progress-label", x: "12", y: "16" }));
    return g;
  }

  placeFlight(g, f, e, now, o) {
    const span = Math.max(1, f.arriveAt - f.sentAt);
    const p = f.held ? 1 : Math.max(0, Math.min(1, (now - f.sentAt) / span));
    const staticArrow = o.reduced;
    const at = staticArrow ? 0.5 : p;
    const x = e.x1 + (e.x2 - e.x1) * at;
    const y = e.y1 + (e.y2 - e.y1) * at;
    const angle = (Math.atan2(e.uy, e.ux) * 180) / Math.PI;
    const body = g.lastChild;
    body.setAttribute("transform", `translate(${x.toFixed(1)},${y.toFixed(1)})`);
    g.texts.setAttribute("transform", `translate(${x.toFixed(1)},${y.toFixed(1)})`);
    const tri = body.querySelector(".rot");
    if (tri) tri.setAttribute("transform", `rotate(${angle.toFixed(0)})`);
    const trail = g.firstChild;
    const showTrail = o.paused || staticArrow;
    g.setAttribute("data-arrow", showTrail ? "true" : "false");
    if (showTrail) {
      const x0 = staticArrow ? e.x1 : x - e.ux * 34;
      const y0 = staticArrow ? e.y1 : y - e.uy * 34;
      const x1 = staticArrow ? e.x2 : x;
      const y1 = staticArrow ? e.y2 : y;
      trail.setAttribute("x1", x0.toFixed(1));
      trail.setAttribute("y1", y0.toFixed(1));
      trail.setAttribute("x2", x1.toFixed(1));
      trail.setAttribute("y2", y1.toFixed(1));
      trail.removeAttribute("visibility");
    } else {
      trail.setAttribute("visibility", "hidden");
    }
    const prog = g.texts.lastChild;
    if (staticArrow) {
      prog.textContent = `${Math.round(p * 100)}% → ${t("arrives", { t: secs(f.arriveAt) })}`;
    } else if (prog.textContent) {
      prog.textContent = "";
    }
    const label = flightLabel(f);
    if (g.getAttribute("aria-label") !== label) g.setAttribute("aria-label", label);
    g.setAttribute("data-held", String(f.held));
  }

  focusNode(name) {
    const g = this.nodeEls && this.nodeEls[name];
    if (g) g.focus();
  }
}

function shape(kind) {
  switch (kind) {
    case "square":
      return el("rect", { x: "-6", y: "-6", width: "12", height: "12", class: "shape" });
    case "diamond":
      return el("path", { d: "M0,-8 L8,0 L0,8 L-8,0 z", class: "shape" });
    case "triangle": {
      const g = el("g", { class: "rot" });
      g.appendChild(el("path", { d: "M-7,-7 L8,0 L-7,7 z", class: "shape" }));
      return g;
    }
    case "cross":
      return el("path", { d: "M-7,-7 L7,7 M7,-7 L-7,7", class: "shape stroke-only" });
    case "hexagon":
      return el("path", { d: "M-7,0 L-3.5,-6 L3.5,-6 L7,0 L3.5,6 L-3.5,6 z", class: "shape" });
    case "bar":
      return el("rect", { x: "-2", y: "-8", width: "4", height: "16", class: "shape" });
    case "bolt":
      return el("path", { d: "M2,-9 L-5,1 L0,1 L-2,9 L5,-1 L0,-1 z", class: "shape" });
    case "xcircle": {
      const g = el("g");
      g.appendChild(el("circle", { r: "8", class: "shape" }));
      g.appendChild(el("path", { d: "M-4,-4 L4,4 M4,-4 L-4,4", class: "x-mark" }));
      return g;
    }
    default:
      return el("circle", { r: "7", class: "shape" });
  }
}
