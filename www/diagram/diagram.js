// @ts-check
// The cluster diagram: nodes with their clocks, links, and messages. Drawn in CSS pixels (the
// viewBox is the element's own size), laid out again when its width changes. Paused, every
// message in flight is drawn where it really is, with its arrow; playing, the traffic layer
// replays what was sent slowly enough to be seen.
import { t } from "../app/i18n.js";
import { secs } from "../app/format.js";
import { layout, route } from "./layout.js";
import { NodeFace, font } from "./nodes.js";
import { Traffic } from "./traffic.js";
import { svgEl, shape, msgType, flightLabel, shortWord } from "./glyphs.js";
import { textWidth, place, around } from "./labels.js";
import { esc } from "../app/html.js";
import { isSubject, MUTED_OPACITY } from "../lessons/hold.js";

const MAX_FLIGHTS = 80;
const LABEL_SIZE = 12;

// A node's links: how many it has, and how many a fault cuts or resets (so its box can say
// "✂ 1 of 3 links cut" rather than that the whole node is cut off).
function linksOf(name, pairs, faults) {
  let total = 0;
  for (const { a, b } of pairs.values()) if (a === name || b === name) total++;
  const mine = faults.filter((l) => l.a === name || l.b === name);
  return {
    total,
    cut: mine.filter((l) => l.state === "cut").length,
    reset: mine.filter((l) => l.state !== "cut").length,
  };
}

export class Diagram {
  constructor(svg, { onNode, onFlight }) {
    this.svg = svg;
    this.onNode = onNode;
    this.onFlight = onFlight;
    this.traffic = new Traffic();
    this.flightEls = new Map();
    this.tokenEls = new Map();
    this.traceEls = new Map();
    this.width = 0;
    // What build() and render() set: nothing is drawn before a scenario's meta.
    /** @type {any} */ this.meta = null;
    /** @type {any} */ this.L = null;
    /** @type {any} */ this.faces = null;
    /** @type {any} */ this.last = null;
    /** @type {any} */ this.held = null;
    /** @type {any} */ this.obstacles = null;
    /** @type {any} */ this.routes = null;
    /** @type {any} */ this.fixed = null;
    // A lesson step's subject, drawn where it arrived while the page is paused on its event.
    /** @type {any} */ this.pinned = null;
    svg.addEventListener("click", (e) => this.activate(e));
    svg.addEventListener("keydown", (e) => {
      if ((e.key === "Enter" || e.key === " ") && this.activate(e)) e.preventDefault();
    });
    this.resize = new ResizeObserver(() => {
      const w = Math.round(svg.parentElement.clientWidth);
      if (w && Math.abs(w - this.width) >= 2 && this.meta) {
        this.build(w);
        if (this.last) this.render(this.last.snap, this.last.o);
      }
    });
    this.resize.observe(svg.parentElement);
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

  setMeta(meta) {
    this.meta = meta;
    this.traffic.reset();
    this.pinned = null;
    this.build(Math.round(this.svg.parentElement.clientWidth) || 900);
  }

  build(width) {
    const meta = this.meta;
    this.width = width;
    const L = layout(meta, width);
    this.L = L;
    this.routes = new Map();
    this.form = L.form;
    const svg = this.svg;
    svg.replaceChildren();
    svg.setAttribute("viewBox", `0 0 ${width} ${L.height}`);
    svg.setAttribute("height", String(L.height));
    svg.dataset.form = L.form;
    this.flightEls.clear();
    this.tokenEls.clear();
    this.traceEls.clear();
    this.lastLinks = null;
    svg.appendChild(defs());
    const layer = (cls, hidden = true) => svgEl("g", hidden ? { class: cls, "aria-hidden": "true" } : { class: cls });
    this.gGroups = layer("groups");
    this.gLinks = layer("links");
    this.gTraces = layer("traces");
    this.gNodes = layer("nodes", false);
    this.gNodeText = layer("texts");
    this.gFlights = layer("flights", false);
    this.gTokens = layer("tokens");
    this.gLabels = layer("texts labels");
    // Messages travel under the boxes, as their links do: one whose path must cross another
    // node (no clear route on a narrow screen) passes behind it instead of over its words.
    svg.append(
      this.gGroups,
      this.gLinks,
      this.gTraces,
      this.gFlights,
      this.gTokens,
      this.gNodes,
      this.gNodeText,
      this.gLabels,
    );
    this.obstacles = [];
    for (const g of L.groups) {
      this.gGroups.appendChild(svgEl("rect", { x: g.x, y: g.y, width: g.w, height: g.h, rx: 10, class: "group-box" }));
      const label = `${t("groupLabel")} ${g.name}`;
      // The label sits on the frame's top edge (a phone has no room above it).
      const ly = L.form === "wide" ? g.y + 14 : g.y + 5;
      this.gGroups.appendChild(
        svgEl("text", { x: g.x + 8, y: ly, class: "group-label", "font-size": LABEL_SIZE }, label),
      );
      this.obstacles.push({ x: g.x + 6, y: ly - 12, w: textWidth(label, font(LABEL_SIZE)) + 4, h: 16 });
    }
    this.faces = {};
    meta.nodes.forEach((n, i) => {
      const box = L.pos[n.name];
      const face = new NodeFace(n, i, box, L.form, L.f.rowH);
      this.gNodes.appendChild(face.g);
      this.gNodeText.appendChild(face.text);
      this.faces[n.name] = face;
      this.obstacles.push({ x: box.x - box.w / 2 - 2, y: box.y - box.h / 2 - 2, w: box.w + 4, h: box.h + 4 });
    });
    const brokers = meta.nodes.filter((n) => n.role === "broker");
    this.brokerOrder = brokers.map((b) => `${b.group}#${b.brokerId}`);
    this.brokerByAddr = Object.fromEntries(brokers.map((b) => [b.addr, b.name]));
  }

  edgeOf(a, b, off = 0) {
    const key = `${a}|${b}|${off}`;
    if (!this.routes.has(key)) this.routes.set(key, route(this.L.pos, a, b, off));
    return this.routes.get(key);
  }

  render(snap, o) {
    if (!this.meta) return;
    this.last = { snap, o };
    const byName = Object.fromEntries(snap.nodes.map((n) => [n.name, n]));
    const pairs = this.linkPairs(snap, byName);
    for (const n of this.meta.nodes) {
      const live = byName[n.name];
      const face = this.faces[n.name];
      if (!live || !face) continue;
      face.render(live, snap, {
        ...o,
        links: linksOf(n.name, pairs, snap.links),
        brokerOrder: this.brokerOrder,
        brokerByAddr: this.brokerByAddr,
        bound: (this.meta.bound || {})[n.name],
      });
    }
    this.renderLinks(snap, pairs, o);
    // A held subject moves on whether the clock runs or not (a skip to the event).
    if (o.playing || this.traffic.holding) {
      this.clearFlights();
      this.held = heldCounts(snap);
    } else {
      this.traffic.reset();
      this.clearTokens();
      this.renderFlights(snap, o);
      if (this.pinned) this.drawTokens([this.pinned], o);
    }
    this.placeLabels();
  }

  // Playing: called every animation frame with the wire events the last answer brought.
  animate(now, o) {
    if (!this.meta) return;
    const { tokens, traces } = this.traffic.step(now);
    this.drawTraces(traces, o);
    this.drawTokens(tokens, o);
    if (this.last) this.placeLabels();
  }

  // Whether messages are still on their links (or fading out of them).
  moving() {
    return this.traffic.busy;
  }

  // A jump in time: the messages on their way belong to the time left behind.
  stopTraffic() {
    this.traffic.reset();
    this.pinned = null;
  }

  // `subject`: a lesson step's (lessons/hold.js); the messages that fit it ride alone.
  feed(events, now, speed, subject = null) {
    this.traffic.feed(events, now, speed, subject ? (e) => isSubject(subject, e) : undefined);
  }

  // Holds message `m`, a lesson step's subject, on its edge (Traffic.hold): its token.
  // The flights a pause drew give way to it: it is drawn moving, not also where it was.
  holdSubject(m, now) {
    this.clearFlights();
    return this.traffic.hold(m, now);
  }

  // Keeps held token `k` drawn where it arrived, paused; until the clock moves again.
  pin(k) {
    this.pinned = { ...k, p: 1, held: true };
    this.traffic.reset();
  }

  unpin() {
    this.pinned = null;
  }

  // Every drawn link, keyed "a|b" (sorted): registrations, route queries, data and faults.
  linkPairs(snap, byName) {
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
    return pairs;
  }

  renderLinks(snap, pairs, o) {
    const state = Object.fromEntries(snap.links.map((l) => [l.a < l.b ? `${l.a}|${l.b}` : `${l.b}|${l.a}`, l.state]));
    const lit = new Set((o.highlightLinks || []).map(([a, b]) => (a < b ? `${a}|${b}` : `${b}|${a}`)));
    const parts = [];
    this.linkLabels = [];
    for (const [key, { a, b, kind }] of pairs) {
      const e = this.edgeOf(a, b);
      if (!e) continue;
      const s = state[key];
      const cls = `link ${s ? `link-${s}` : `link-${kind}`}${lit.has(key) ? " lit" : ""}`;
      parts.push(
        `<line class="${cls}" data-link="${esc(key)}" x1="${e.x1.toFixed(1)}" y1="${e.y1.toFixed(1)}" x2="${e.x2.toFixed(1)}" y2="${e.y2.toFixed(1)}"/>`,
      );
      if (s)
        this.linkLabels.push({
          key,
          x: (e.x1 + e.x2) / 2,
          y: (e.y1 + e.y2) / 2,
          text: s === "cut" ? `✂ ${t("linkCut")}` : `⚡ ${t("linkReset")}`,
        });
    }
    const html = parts.join("");
    if (html !== this.lastLinks) {
      this.gLinks.innerHTML = html;
      this.lastLinks = html;
    }
  }

  clearFlights() {
    for (const g of this.flightEls.values()) {
      g.remove();
      g.label.remove();
    }
    this.flightEls.clear();
  }

  clearTokens() {
    for (const g of this.tokenEls.values()) {
      g.remove();
      g.label.remove();
    }
    this.tokenEls.clear();
    for (const l of this.traceEls.values()) l.remove();
    this.traceEls.clear();
  }

  // Paused: each message where it is, with an arrow showing where it goes.
  renderFlights(snap, o) {
    const seen = new Set();
    this.held = heldCounts(snap);
    let shown = 0;
    for (const f of snap.flights) {
      if (f.held || ++shown > MAX_FLIGHTS) continue;
      const e = this.edgeOf(f.from, f.to, f.response ? -7 : 7);
      if (!e) continue;
      seen.add(f.id);
      let g = this.flightEls.get(f.id);
      if (!g) {
        g = makeFlight(f);
        this.flightEls.set(f.id, g);
        this.gFlights.appendChild(g);
        this.gLabels.appendChild(g.label);
      }
      const p = Math.max(0, Math.min(1, (snap.time - f.sentAt) / Math.max(1, f.arriveAt - f.sentAt)));
      const at = o.reduced ? 0.5 : p;
      const x = e.x1 + (e.x2 - e.x1) * at;
      const y = e.y1 + (e.y2 - e.y1) * at;
      placeGlyph(g, x, y, e);
      const trail = g.firstChild;
      const x0 = o.reduced ? e.x1 : x - e.ux * 36;
      const y0 = o.reduced ? e.y1 : y - e.uy * 36;
      const x1 = o.reduced ? e.x2 : x;
      const y1 = o.reduced ? e.y2 : y;
      setLine(trail, x0, y0, x1, y1);
      g.dataset.arrow = "true";
      g.dataset.p = p.toFixed(3);
      g.anchor = { x, y };
      g.label.querySelector(".msg-label").textContent = shortWord(f);
      const prog = g.label.querySelector(".progress-label");
      const progText = o.reduced ? `${Math.round(p * 100)}% → ${t("arrives", { t: secs(f.arriveAt) })}` : "";
      if (prog.textContent !== progText) prog.textContent = progText;
      const label = flightLabel(f);
      if (g.getAttribute("aria-label") !== label) g.setAttribute("aria-label", label);
      g.muted = !!o.subject && !isSubject(o.subject, f);
      g.style.opacity = g.muted ? String(MUTED_OPACITY) : "";
      if (g.muted) g.label.setAttribute("display", "none");
    }
    for (const [id, g] of this.flightEls) {
      if (!seen.has(id)) {
        g.remove();
        g.label.remove();
        this.flightEls.delete(id);
      }
    }
  }

  drawTokens(tokens, o) {
    const seen = new Set();
    for (const k of tokens) {
      // While a lesson step waits for its subject, the rest is muted and says nothing.
      const muted = !!o.subject && !k.solo;
      const e = this.edgeOf(k.from, k.to, k.response ? -7 : 7);
      if (!e) continue;
      seen.add(k.id);
      let g = this.tokenEls.get(k.id);
      if (!g) {
        g = makeToken(k);
        this.tokenEls.set(k.id, g);
        this.gTokens.appendChild(g);
        this.gLabels.appendChild(g.label);
      }
      const at = o.reduced ? 0.5 : k.lost ? Math.min(k.p, 0.5) : k.p;
      const x = e.x1 + (e.x2 - e.x1) * at;
      const y = e.y1 + (e.y2 - e.y1) * at;
      placeGlyph(g, x, y, e);
      const trail = g.firstChild;
      if (o.reduced) setLine(trail, e.x1, e.y1, e.x2, e.y2);
      else setLine(trail, x - e.ux * 30 * Math.min(1, k.p * 4), y - e.uy * 30 * Math.min(1, k.p * 4), x, y);
      const fade = k.lost && k.p > 0.5 ? Math.max(0, 1 - (k.p - 0.5) * 2) : 1;
      const opacity = muted ? Math.min(fade, MUTED_OPACITY) : fade;
      g.style.opacity = opacity < 1 ? String(opacity) : "";
      g.anchor = { x, y };
      g.muted = muted;
      g.dataset.subject = String(!!k.held);
      if (muted) g.label.setAttribute("display", "none");
      const word = `${k.lost && k.p > 0.5 ? "✂ " : ""}${shortWord(k)}${k.count > 1 && !muted ? ` ×${k.count}` : ""}`;
      const text = g.label.firstChild;
      if (text.textContent !== word) text.textContent = word;
      g.dataset.count = String(k.count);
      g.dataset.p = k.p.toFixed(3);
    }
    for (const [id, g] of this.tokenEls) {
      if (!seen.has(id)) {
        g.remove();
        g.label.remove();
        this.tokenEls.delete(id);
      }
    }
  }

  drawTraces(traces, o) {
    const seen = new Set();
    for (const tr of traces) {
      const e = this.edgeOf(tr.from, tr.to, tr.response ? -7 : 7);
      if (!e) continue;
      seen.add(tr.id);
      let l = this.traceEls.get(tr.id);
      if (!l) {
        l = svgEl("line", { class: `trace cat-${tr.category}` });
        setLine(l, e.x1, e.y1, e.x2, e.y2);
        this.traceEls.set(tr.id, l);
        this.gTraces.appendChild(l);
      }
      l.style.opacity = ((o.subject ? MUTED_OPACITY : 0.7) * Math.max(0, tr.fade)).toFixed(2);
    }
    for (const [id, l] of this.traceEls) {
      if (!seen.has(id)) {
        l.remove();
        this.traceEls.delete(id);
      }
    }
  }

  // Every floating word at once: link states first, then held piles, then messages.
  placeLabels() {
    const labels = [];
    const f = font(LABEL_SIZE, 700);
    const H = LABEL_SIZE + 4;
    for (const l of this.linkLabels || []) {
      const w = textWidth(l.text, f) + 4;
      labels.push({
        w,
        h: H,
        ax: l.x,
        ay: l.y,
        spots: [
          [-w / 2, -H / 2],
          [-w / 2, -H - 6],
          [-w / 2, 6],
        ],
        kind: "link",
        text: l.text,
      });
    }
    for (const [name, n] of Object.entries(this.held || {})) {
      const p = this.L.pos[name];
      if (!p) continue;
      const text = `❚❚ ${n} ${t("heldShort")}`;
      const w = textWidth(text, f) + 4;
      labels.push({
        w,
        h: H,
        ax: p.x,
        ay: p.y + p.h / 2,
        spots: [
          [-w / 2, 3],
          [p.w / 2 - w, 3],
          [-p.w / 2, 3],
          [-w / 2, -p.h - H - 3],
        ],
        kind: "held",
        text,
        node: name,
      });
    }
    const msgs = [...this.flightEls.values(), ...this.tokenEls.values()].filter((g) => g.anchor && !g.muted);
    for (const g of msgs) {
      const lines = [...g.label.querySelectorAll("text")].filter((x) => x.textContent);
      const w = Math.max(...lines.map((x) => textWidth(x.textContent, f)), 1) + 4;
      const h = H * Math.max(1, lines.length);
      labels.push({ w, h, ax: g.anchor.x, ay: g.anchor.y, spots: around(w, h), kind: "msg", g });
    }
    const spots = place(labels, this.obstacles, { w: this.width, h: this.L.height });
    this.drawFixedLabels(labels, spots);
  }

  drawFixedLabels(labels, spots) {
    if (!this.fixed) this.fixed = new Map();
    const keep = new Set();
    labels.forEach((l, i) => {
      const r = spots[i];
      if (l.kind === "msg") {
        const lab = l.g.label;
        if (!r) {
          lab.setAttribute("display", "none");
          return;
        }
        lab.removeAttribute("display");
        lab.setAttribute("transform", `translate(${(r.x + 2).toFixed(1)},${(r.y + LABEL_SIZE).toFixed(1)})`);
        return;
      }
      const key = `${l.kind}:${l.text}:${l.node || ""}`;
      keep.add(key);
      let el = this.fixed.get(key);
      if (!el) {
        el = svgEl(
          "text",
          {
            class: l.kind === "held" ? "held-more" : "link-label",
            "font-size": LABEL_SIZE,
            ...(l.node ? { "data-held-at": l.node } : {}),
          },
          l.text,
        );
        this.fixed.set(key, el);
        this.gLabels.appendChild(el);
      }
      if (!r) el.setAttribute("display", "none");
      else {
        el.removeAttribute("display");
        el.setAttribute("x", (r.x + 2).toFixed(1));
        el.setAttribute("y", (r.y + LABEL_SIZE).toFixed(1));
      }
    });
    for (const [key, el] of this.fixed) {
      if (!keep.has(key) || !el.isConnected) {
        el.remove();
        this.fixed.delete(key);
      }
    }
  }

  // Each node's box on screen, by name.
  boxes() {
    const out = {};
    for (const [name, f] of Object.entries(this.faces || {})) out[name] = f.g.firstChild.getBoundingClientRect();
    return out;
  }

  focusNode(name) {
    const f = this.faces && this.faces[name];
    if (f) f.g.focus();
  }
}

function heldCounts(snap) {
  const out = {};
  for (const f of snap.flights) if (f.held) out[f.to] = (out[f.to] || 0) + 1;
  return out;
}

function defs() {
  const d = svgEl("defs");
  const m = svgEl("marker", {
    id: "arrow",
    viewBox: "0 0 10 10",
    refX: "9",
    refY: "5",
    markerWidth: "7",
    markerHeight: "7",
    orient: "auto-start-reverse",
  });
  m.appendChild(svgEl("path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead" }));
  d.appendChild(m);
  return d;
}

function setLine(l, x1, y1, x2, y2) {
  l.setAttribute("x1", x1.toFixed(1));
  l.setAttribute("y1", y1.toFixed(1));
  l.setAttribute("x2", x2.toFixed(1));
  l.setAttribute("y2", y2.toFixed(1));
}

function placeGlyph(g, x, y, e) {
  const body = g.lastChild;
  body.setAttribute("transform", `translate(${x.toFixed(1)},${y.toFixed(1)})`);
  const rot = body.querySelector(".rot");
  if (rot) rot.setAttribute("transform", `rotate(${((Math.atan2(e.uy, e.ux) * 180) / Math.PI).toFixed(0)})`);
}

function makeFlight(f) {
  const g = svgEl("g", {
    class: `flight cat-${f.category}${f.response ? " response" : ""}`,
    "data-flight-id": String(f.id),
    "data-msg-type": msgType(f),
    "data-category": f.category,
    "data-from": f.from,
    "data-to": f.to,
    "data-response": String(f.response),
    role: "button",
    tabindex: "0",
  });
  g.appendChild(svgEl("line", { class: "trail", "marker-end": "url(#arrow)" }));
  const body = svgEl("g", { class: "glyph" });
  body.appendChild(svgEl("circle", { r: "24", class: "hit" }));
  body.appendChild(shape(f.category));
  g.appendChild(body);
  g.label = svgEl("g", { class: `flight-text cat-${f.category}`, "data-for": String(f.id) });
  g.label.appendChild(svgEl("text", { class: "msg-label", x: 0, y: 0, "font-size": LABEL_SIZE }));
  g.label.appendChild(svgEl("text", { class: "progress-label", x: 0, y: LABEL_SIZE + 4, "font-size": LABEL_SIZE }));
  return g;
}

function makeToken(k) {
  const g = svgEl("g", {
    class: `token cat-${k.category}${k.response ? " response" : ""}`,
    "data-token": String(k.id),
    "data-from": k.from,
    "data-to": k.to,
    "data-category": k.category,
    "data-msg-type": msgType(k),
    "data-lost": String(k.lost),
  });
  g.appendChild(svgEl("line", { class: "trail" }));
  const body = svgEl("g", { class: "glyph" });
  body.appendChild(shape(k.category));
  g.appendChild(body);
  g.label = svgEl("g", { class: `token-text cat-${k.category}`, "data-for-token": String(k.id) });
  g.label.appendChild(svgEl("text", { class: "msg-label", x: 0, y: 0, "font-size": LABEL_SIZE }));
  return g;
}
