// @ts-check
// The scrubber, the branch list and the lanes: one per process, fault intervals shaded, stale
// cached-route windows hatched, each send an invoke→complete bar (ok / failed / indeterminate).
import { t } from "../app/i18n.js";
import { secs } from "../app/format.js";
import { esc } from "../app/html.js";

const RECOVER = {
  freeze: "unfreeze",
  kill: "restart",
  poweroff: "restart",
  shutdown: "restart",
  cut: "heal",
  reset: "heal",
};

// Fault intervals per node from the injected actions.
export function faultIntervals(faults, now) {
  /** @type {{ verb: string, args: string[], from: number, label: string, to?: number }[]} */
  const open = [];
  const out = [];
  for (const f of faults) {
    const [verb, ...args] = f.action.split(" ");
    if (RECOVER[verb]) {
      open.push({ verb, args, from: f.at, label: f.action });
    } else {
      for (const o of open) {
        if (o.to === undefined && RECOVER[o.verb] === verb && o.args.join(" ") === args.join(" ")) o.to = f.at;
        else if (o.to === undefined && verb === "restart" && o.args[0] === args[0] && RECOVER[o.verb] === "restart")
          o.to = f.at;
      }
    }
  }
  for (const o of open) {
    const nodes = o.verb === "cut" || o.verb === "reset" ? o.args : [o.args[0]];
    for (const n of nodes)
      out.push({ node: n, from: o.from, to: o.to ?? now, open: o.to === undefined, label: o.label });
  }
  return out;
}

export class Timeline {
  constructor({ scrubber, lanes, branches, onSeek, onBranch }) {
    this.scrubber = scrubber;
    this.lanes = lanes;
    this.branchesEl = branches;
    this.onSeek = onSeek;
    this.onBranch = onBranch;
    this.horizon = 300000;
    this.sendCount = 0;
    /** @type {Map<any, any>} each producer's bar of sends, grown while they go on */
    this.runs = new Map();
    this.scanned = 0;
    this.removalLines = [];
    this.dragging = false;
    scrubber.addEventListener("input", () => this.onSeek(Number(scrubber.value), true));
    scrubber.addEventListener("change", () => this.onSeek(Number(scrubber.value), false));
    // Keys move by whole seconds (step="any" lets links and tests seek to any millisecond).
    scrubber.addEventListener("keydown", (e) => {
      const by = {
        ArrowLeft: -1000,
        ArrowDown: -1000,
        ArrowRight: 1000,
        ArrowUp: 1000,
        PageDown: -10000,
        PageUp: 10000,
      }[e.key];
      if (by === undefined) return;
      e.preventDefault();
      this.onSeek(Math.max(0, Math.round(Number(scrubber.value) + by)), false);
    });
    lanes.addEventListener("click", (e) => {
      const track = e.target.closest(".lane-track");
      if (!track) return;
      const r = track.getBoundingClientRect();
      this.onSeek(Math.round(((e.clientX - r.left) / r.width) * this.horizon), false);
    });
    branches.addEventListener("click", (e) => {
      const b = e.target.closest("button[data-branch]");
      if (b) this.onBranch(Number(b.dataset.branch));
    });
  }

  setMeta(meta, horizon) {
    this.meta = meta;
    this.horizon = horizon;
    this.built = false;
    this.scanned = 0;
    this.removalLines = [];
    this.runs = new Map();
  }

  pct(ms) {
    return `${Math.max(0, Math.min(100, (ms / this.horizon) * 100)).toFixed(3)}%`;
  }

  renderCursor(snap) {
    if (this.cursor) this.cursor.style.left = this.pct(snap.time);
    if (Number(this.scrubber.value) !== snap.time) this.scrubber.value = String(snap.time);
  }

  render(snap, sends, faultsChanged, trace = []) {
    const grow = Math.max(snap.time, snap.head);
    if (grow > this.horizon) {
      this.horizon = Math.ceil((grow * 1.25) / 60000) * 60000;
      this.built = false;
    }
    this.scrubber.max = String(this.horizon);
    if (Number(this.scrubber.value) !== snap.time) this.scrubber.value = String(snap.time);
    this.scrubber.setAttribute("aria-valuetext", `t = ${secs(snap.time)}`);
    this.renderBranches(snap);
    // Removals by NameServers, read from new trace lines only (the trace can be long).
    if (trace.length < this.scanned) {
      this.scanned = 0;
      this.removalLines = [];
    }
    const before = this.removalLines.length;
    for (let i = this.scanned; i < trace.length; i++)
      if (trace[i].kind === "unregistered" || trace[i].kind === "expired") this.removalLines.push(trace[i]);
    this.scanned = trace.length;
    if (!this.built || sends.length < this.sendCount) this.build(snap, sends);
    else {
      // Faults, stale windows and removal marks change often; the sends (many) only grow.
      if (faultsChanged || this.removalLines.length !== before) this.renderMarks(snap);
      this.appendSends(sends.slice(this.sendCount));
    }
    this.sendCount = sends.length;
    this.cursor.style.left = this.pct(snap.time);
    this.updateOpen(snap);
  }

  renderBranches(snap) {
    const key = JSON.stringify(snap.branches);
    if (key === this.branchKey) return;
    this.branchKey = key;
    this.branchesEl.innerHTML = snap.branches
      .map((b) => {
        const label = b.parent === null ? t("branchMain") : t("branchFork", { id: b.id, t: secs(b.forkAt) });
        return `<button type="button" data-branch="${b.id}" data-testid="branch-${b.id}" aria-pressed="${b.current}">${esc(label)}</button>`;
      })
      .join("");
  }

  build(snap, sends) {
    this.built = true;
    const rows = this.meta.nodes.map(
      (n) =>
        `<div class="lane" data-lane="${esc(n.name)}"><span class="lane-label">${esc(n.name)}</span><div class="lane-track"><span class="marks"></span><span class="sends"></span></div></div>`,
    );
    this.lanes.innerHTML = `<div class="lane axis"><span class="lane-label"></span><div class="lane-track"><span class="marks"></span>${this.ticks()}<span class="cursor" aria-hidden="true"></span></div></div>${rows.join("")}`;
    this.cursor = this.lanes.querySelector(".cursor");
    this.renderMarks(snap);
    this.sendCount = 0;
    this.runs = new Map();
    this.appendSends(sends);
  }

  // Branch markers on the axis; per lane its fault windows (shaded), stale windows (hatched)
  // and, for a NameServer, where it removed a broker.
  renderMarks(snap) {
    this.intervals = faultIntervals(snap.faults, snap.time);
    const axis = snap.branches
      .filter((b) => b.forkAt !== null)
      .map(
        (b) =>
          `<span class="branch-marker" data-testid="branch-marker" data-branch="${b.id}" style="left:${this.pct(b.forkAt)}" title="${esc(t("branchFork", { id: b.id, t: secs(b.forkAt) }))}">◆</span>`,
      )
      .join("");
    this.lanes.querySelector(".lane.axis .marks").innerHTML = axis;
    for (const n of this.meta.nodes) {
      // Overlapping fault windows on one lane take turns at the top and bottom half.
      const mine = this.intervals.filter((f) => f.node === n.name);
      const faults = mine
        .map((f, i) => {
          const meets = (o) => o.from < f.to && f.from < o.to;
          const band = mine.slice(0, i).some(meets) ? " lower" : mine.slice(i + 1).some(meets) ? " upper" : "";
          return `<span class="fault-win${f.open ? " open" : ""}${band}" data-testid="fault-${esc(n.name)}" data-i="${i}" data-from="${f.from}" style="left:${this.pct(f.from)};width:calc(${this.pct(f.to)} - ${this.pct(f.from)})"><span class="win-label">${esc(f.label)}</span></span>`;
        })
        .join("");
      const stale = snap.stale
        .filter((w) => w.client === n.name)
        .map(
          (w) =>
            `<span class="stale-win${w.to === null ? " open" : ""}" data-testid="stale-win-${esc(n.name)}" data-from="${w.from}" style="left:${this.pct(w.from)};width:calc(${this.pct(w.to ?? snap.time)} - ${this.pct(w.from)})"></span>`,
        )
        .join("");
      const removals = n.role === "nameserver" ? this.removals(n.name) : "";
      this.lanes.querySelector(`.lane[data-lane="${CSS.escape(n.name)}"] .marks`).innerHTML = faults + stale + removals;
    }
  }

  // The first and last labels sit inside the track so none is clipped.
  ticks() {
    const step = this.horizon > 600000 ? 120000 : 60000;
    let out = "";
    for (let ms = 0; ms <= this.horizon; ms += step) {
      const edge = ms === 0 ? " first" : ms + step > this.horizon ? " last" : "";
      out += `<span class="tick${edge}" style="left:${this.pct(ms)}">${ms / 1000}s</span>`;
    }
    return out;
  }

  // On a NameServer's lane, a mark where it removed a broker (from its trace lines).
  removals(node) {
    const byAddr = Object.fromEntries(this.meta.nodes.map((n) => [n.addr, n.name]));
    return this.removalLines
      .filter((l) => l.node === node)
      .map((l) => {
        const m = l.text.match(/brokerAddr=([\d.:]+)|(\d+\.\d+\.\d+\.\d+:\d+)/);
        const addr = m ? m[1] || m[2] : "";
        const who = byAddr[addr] || addr;
        return `<span class="removal" data-testid="removal-${esc(node)}" data-at="${l.at}" style="left:${this.pct(l.at)}" title="${esc(`${secs(l.at)} ${l.text}`)}">✕ ${esc(who)}</span>`;
      })
      .join("");
  }

  // Each send an invoke→complete bar; plain successes close together share one bar (at this
  // scale they would be a pixel each), so a long run stays a few hundred elements.
  appendSends(list) {
    const byProducer = new Map();
    for (const s of list) {
      if (!byProducer.has(s.producer)) byProducer.set(s.producer, []);
      byProducer.get(s.producer).push(s);
    }
    const gap = this.horizon / 400;
    for (const [p, items] of byProducer) {
      const host = this.lanes.querySelector(`.lane[data-lane="${CSS.escape(p)}"] .sends`);
      if (!host) continue;
      const html = [];
      let run = this.runs.get(p);
      const flush = () => {
        if (run && run.el) run.el.setAttribute("style", this.barStyle(run.from, run.to));
      };
      for (const s of items) {
        const plain = s.outcome === "ok" && s.attempts.length === 1;
        if (plain && run && s.started - run.to <= gap) {
          run.to = s.finished;
          run.n++;
          if (run.el) run.el.dataset.sends = String(run.n);
          continue;
        }
        flush();
        const mark =
          s.outcome === "failed" ? "✖" : s.outcome === "indeterminate" ? "?" : s.attempts.length > 1 ? "↻" : "";
        const title = `${s.producer} #${s.id} ${secs(s.started)}→${secs(s.finished)} ${s.outcome} (${s.attempts.length})`;
        html.push({
          text: `<span class="send ${s.outcome}${s.attempts.length > 1 ? " retried" : ""}" data-outcome="${s.outcome}" data-attempts="${s.attempts.length}" style="${this.barStyle(s.started, s.finished)}" title="${esc(title)}">${mark}</span>`,
        });
        run = plain ? { from: s.started, to: s.finished, n: 1, el: null } : null;
      }
      if (html.length) {
        host.insertAdjacentHTML("beforeend", html.map((h) => h.text).join(""));
        const els = host.children;
        if (run && !run.el) run.el = els[els.length - 1];
      }
      flush();
      this.runs.set(p, run);
    }
  }

  barStyle(from, to) {
    return `left:${this.pct(from)};width:max(2px,calc(${this.pct(to)} - ${this.pct(from)}))`;
  }

  // Open fault and stale windows grow with time.
  updateOpen(snap) {
    for (const el of this.lanes.querySelectorAll(".fault-win.open, .stale-win.open")) {
      el.style.width = `calc(${this.pct(snap.time)} - ${this.pct(Number(el.dataset.from))})`;
    }
  }
}
