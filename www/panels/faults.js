// @ts-check
// Every action the simulation supports, as a filterable palette (k), a per-node action sheet
// (tap or Enter on a node) and a message inspector (tap or Enter on a message).
import { t } from "../app/i18n.js";
import { secs, dur } from "../app/format.js";
import { esc } from "../app/html.js";
import { routeHtml } from "./routes.js";
import { flightLabel, msgType, STATE_ICON } from "../diagram/glyphs.js";
import { placeBeside } from "../diagram/layout.js";

// A node's sheet shows its first few actions; the rest wait under More.
const SHOWN = 6;
const items = (acts) =>
  acts
    .map(
      ([cmd, label]) =>
        `<li><button type="button" data-action="${esc(cmd)}" data-testid="action-${esc(cmd.replace(/ /g, "_"))}">${esc(label)}</button></li>`,
    )
    .join("");

function nodeActions(n, snap) {
  const a = [];
  const name = n.name;
  const st = n.state;
  const server = n.role === "broker" || n.role === "nameserver";
  if (st === "up") {
    a.push([`shutdown ${name}`, t("actShutdown")]);
    a.push([`kill ${name}`, t("actKill")]);
    if (server) {
      a.push([`freeze ${name}`, t("actFreeze")]);
      a.push([`poweroff ${name}`, t("actPoweroff")]);
    }
  }
  // A hung process can still be killed or lose power.
  if (st === "frozen") {
    a.push([`unfreeze ${name}`, t("actUnfreeze")]);
    a.push([`kill ${name}`, t("actKill")]);
    a.push([`poweroff ${name}`, t("actPoweroff")]);
  }
  if (st === "down" || st === "powered-off") a.push([`restart ${name}`, t("actRestart")]);
  if (n.role === "producer") {
    a.push([`send ${name} 5`, t("actBurst", { p: name, n: 5 })]);
    a.push([`faulttolerance ${name} on`, t("actFtOn", { p: name })]);
    a.push([`faulttolerance ${name} off`, t("actFtOff", { p: name })]);
  }
  const links = new Map(snap.links.map((l) => [[l.a, l.b].sort().join("|"), l.state]));
  for (const o of snap.nodes) {
    if (o.name === name) continue;
    if (n.role !== "nameserver" && o.role !== "nameserver" && !(n.role === "broker" || o.role === "broker")) continue;
    const key = [name, o.name].sort().join("|");
    if (links.has(key)) a.push([`heal ${name} ${o.name}`, t("actHeal", { a: name, b: o.name })]);
    else {
      a.push([`cut ${name} ${o.name}`, t("actCut", { a: name, b: o.name })]);
      a.push([`reset ${name} ${o.name}`, t("actReset", { a: name, b: o.name })]);
    }
  }
  return a;
}

export function allActions(snap, meta) {
  const out = [];
  for (const n of snap.nodes)
    out.push(
      ...nodeActions(n, snap).filter(
        ([cmd]) => !/^(cut|reset|heal) /.test(cmd) || cmd.split(" ")[1] < cmd.split(" ")[2],
      ),
    );
  for (const f of snap.flights.slice(0, 40)) {
    out.push([`drop ${f.id}`, t("actDrop", { id: f.id, summary: f.summary, from: f.from, to: f.to })]);
    out.push([`delay ${f.id} 5000`, t("actDelay", { id: f.id, summary: f.summary })]);
  }
  const groups = [...new Set(meta.nodes.filter((n) => n.role === "broker").map((n) => n.group))];
  for (const g of groups)
    out.push([`create-topic ${g} ${meta.topics[0]} 4`, t("actCreateTopic", { topic: meta.topics[0], group: g })]);
  out.push(["autocreate on", t("actAutoOn")], ["autocreate off", t("actAutoOff")]);
  return out;
}

export class FaultUi {
  // `page`: current() → {snap, meta}, inject(action), flightFrame(id) → decoded frame | null,
  // diagram (boxes(), focusNode(name)).
  // `el`: palette, paletteInput, paletteList, sheet, sheetTitle, sheetBody, sheetList (the
  // node sheet's or message inspector's), forkAsk, forkAskBody (the keep-or-drop prompt).
  constructor(page, el) {
    this.page = page;
    this.el = el;
    this.palette = el.palette;
    this.input = el.paletteInput;
    this.list = el.paletteList;
    this.sheet = el.sheet;
    /** @type {string | null} */ this.node = null;
    this.input.addEventListener("input", () => this.fill());
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        const first = this.list.querySelector("button[data-action]");
        if (first) this.run(first.dataset.action, this.palette);
        else if (this.input.value.trim()) this.run(this.input.value.trim(), this.palette);
      } else if (e.key === "ArrowDown") {
        e.preventDefault();
        const first = this.list.querySelector("button");
        if (first) first.focus();
      }
    });
    for (const d of [this.palette, this.sheet]) {
      d.addEventListener("click", (e) => {
        const b = e.target.closest("button[data-action]");
        if (b) this.run(b.dataset.action, d);
      });
    }
    // The node's sheet is not modal: Escape is ours, and the focus goes back to the node.
    // The focus moves on the key or click itself: the dialog's close event comes as a task of
    // its own, after keys the learner may already have pressed.
    const sheet = this.sheet;
    sheet.addEventListener("keydown", (e) => {
      if (e.key !== "Escape") return;
      e.preventDefault();
      this.closeSheet();
    });
    sheet.querySelector("[data-testid=sheet-close]")?.addEventListener("click", (e) => {
      e.preventDefault();
      this.closeSheet();
    });
    sheet.addEventListener("close", () => {
      if (sheet.open || !sheet.classList.contains("beside")) return;
      sheet.classList.remove("beside");
      // Closed some other way with the focus in it: back to the node. (A dialog the action
      // opened, or whatever the learner went to since, keeps the focus.)
      const at = document.activeElement;
      if (!at || at === document.body || sheet.contains(at)) this.page.diagram.focusNode(this.node);
    });
    // It follows its node.
    const again = (e) =>
      sheet.classList.contains("beside") && !sheet.contains(/** @type {Node} */ (e.target)) && this.place();
    addEventListener("resize", again);
    addEventListener("scroll", again, { capture: true, passive: true });
  }

  closeSheet() {
    const d = this.sheet;
    if (!d.open) return;
    const beside = d.classList.contains("beside");
    d.close();
    if (beside) this.page.diagram.focusNode(this.node);
  }

  async run(action, dialog) {
    const node = dialog === this.sheet && dialog.classList.contains("beside") ? this.node : null;
    dialog.close();
    await this.page.inject(action);
    // (Drawn anew for the new run.)
    if (node && document.activeElement === document.body) this.page.diagram.focusNode(node);
  }

  openPalette() {
    this.input.value = "";
    this.fill();
    this.palette.showModal();
    this.input.focus();
  }

  fill() {
    const { snap, meta } = this.page.current();
    const q = this.input.value.trim().toLowerCase();
    const words = q.split(/\s+/).filter(Boolean);
    const items = allActions(snap, meta).filter(([cmd, label]) =>
      words.every((w) => cmd.toLowerCase().includes(w) || label.toLowerCase().includes(w)),
    );
    const custom =
      q && !items.some(([cmd]) => cmd === q)
        ? `<li><button type="button" data-action="${esc(this.input.value.trim())}">${esc(t("actScript", { a: this.input.value.trim() }))}</button></li>`
        : "";
    this.list.innerHTML =
      items
        .slice(0, 200)
        .map(
          ([cmd, label]) =>
            `<li><button type="button" data-action="${esc(cmd)}" data-testid="action-${esc(cmd.replace(/ /g, "_"))}"><span>${esc(label)}</span> <code>${esc(cmd)}</code></button></li>`,
        )
        .join("") + custom;
  }

  // What the sheet says about node `name` as of `snap`: its title and its words (state, timers,
  // table ages); null if it has no node of that name.
  describe(name, snap) {
    const n = snap.nodes.find((x) => x.name === name);
    if (!n) return null;
    const title = `${n.name} — ${STATE_ICON[n.state]} ${t(`state_${n.state}`)}`;
    const when = (x) =>
      n.state === "frozen"
        ? t("timerFrozen")
        : x.at < snap.time
          ? t("overdue", { s: dur(snap.time - x.at) })
          : t("timerIn", { s: dur(x.at - snap.time) });
    const timers = n.timers.map((x) => `<li>${esc(x.label)}: ${secs(x.at)} (${esc(when(x))})</li>`).join("");
    let extra = "";
    if (n.role === "nameserver") {
      const tb = snap.ns[n.name];
      extra = `<p class="small">brokerLiveTable: ${tb.live.map((r) => `${esc(r.brokerName)}[${r.brokerId}] ${esc(r.brokerAddr)} age ${dur(snap.time - r.lastUpdate)}`).join("; ") || "—"}</p>`;
    } else if (snap.clients[n.name]) {
      const c = snap.clients[n.name];
      extra = `<p>${esc(t("cachedRoute", { c: n.name, ns: c.boundTo }))}${c.stale ? ` — ⚠ STALE` : ""}</p>${c.route ? routeHtml(c.route) : `<p class="no-route">${esc(t("noCache"))}</p>`}`;
    }
    const body = `<p class="mono small">${esc(n.addr)}${n.group ? ` · group ${esc(n.group)} · BID ${n.brokerId}` : ""}${n.boundTo ? ` · → ${esc(n.boundTo)}` : ""}</p><ul class="small">${timers}</ul>${extra}`;
    return { n, title, body };
  }

  // The open sheet's words follow the clock: called each frame the diagram is drawn, it
  // writes only what changed (the actions stay as they were, the focus on them).
  refresh(snap) {
    if (!this.sheet.open || !this.sheet.classList.contains("beside") || !this.node) return;
    const d = this.describe(this.node, snap);
    if (!d) return;
    if (this.el.sheetTitle.textContent !== d.title) this.el.sheetTitle.textContent = d.title;
    if (this.shownBody !== d.body) {
      this.shownBody = d.body;
      this.el.sheetBody.innerHTML = d.body;
    }
  }

  openNode(name) {
    const { snap } = this.page.current();
    const said = this.describe(name, snap);
    if (!said) return;
    const n = said.n;
    this.el.sheetTitle.textContent = said.title;
    this.el.sheetBody.innerHTML = this.shownBody = said.body;
    const acts = nodeActions(n, snap);
    const more = acts.slice(SHOWN);
    this.el.sheetList.innerHTML =
      `<ul class="action-list">${items(acts.slice(0, SHOWN))}</ul>` +
      (more.length
        ? `<details class="more-actions"><summary data-testid="sheet-more">${esc(t("moreActions", { n: more.length }))}</summary><ul class="action-list">${items(more)}</ul></details>`
        : "");
    const d = this.sheet;
    if (d.open && !d.classList.contains("beside")) d.close();
    this.node = name;
    // (In the corner while it opens: focusing it scrolls nothing.)
    d.classList.add("beside");
    Object.assign(d.style, { left: "0px", top: "0px" });
    d.show();
    this.place();
    const first = d.querySelector("button[data-action]");
    if (first) first.focus({ preventScroll: true });
  }

  // Beside the node, clear of every box (shortened, to scroll, on a phone), else of its own.
  place() {
    const d = this.sheet;
    const boxes = this.page.diagram.boxes();
    const box = this.node && boxes[this.node];
    if (!box) return;
    Object.assign(d.style, { left: "0px", top: "0px", maxHeight: "" });
    const card = d.getBoundingClientRect();
    const { clientWidth: w, clientHeight: h } = document.documentElement;
    const area = { left: 4, top: 4, right: w - 4, bottom: h - 4 };
    const others = Object.values(boxes).filter((r) => r !== box);
    const short = { width: card.width, height: Math.min(card.height, 260) };
    const p = placeBeside(box, card, area, others) || placeBeside(box, short, area, others);
    const q = p || placeBeside(box, card, area) || { x: 4, y: box.bottom + 8 };
    const under = others.filter((r) => p && r.top >= q.y && r.left < q.x + card.width && q.x < r.right);
    const room = Math.min(area.bottom, ...under.map((r) => r.top)) - q.y;
    Object.assign(d.style, { left: `${q.x}px`, top: `${q.y}px`, maxHeight: `${Math.min(card.height, room)}px` });
  }

  // Injecting in the past with faults added later on this branch: keep them on the new branch?
  // Resolves true (keep), false (drop) or null (cancelled).
  askKeep(later) {
    const d = this.el.forkAsk;
    this.el.forkAskBody.innerHTML = `<p>${esc(t("forkAskText"))}</p><ul>${later.map((x) => `<li><code>${esc(x.action)}</code> @ ${secs(x.at)}</li>`).join("")}</ul>`;
    return new Promise((resolve) => {
      const done = (v) => {
        d.removeEventListener("click", onClick);
        d.removeEventListener("cancel", onCancel);
        d.close();
        resolve(v);
      };
      const onClick = (e) => {
        const b = e.target.closest("button[value]");
        if (b) done(b.value === "keep" ? true : b.value === "drop" ? false : null);
      };
      const onCancel = () => done(null);
      d.addEventListener("click", onClick);
      d.addEventListener("cancel", onCancel);
      d.showModal();
      d.querySelector("[data-testid=fork-drop]").focus();
    });
  }

  async openFlight(id) {
    const { snap } = this.page.current();
    const f = snap.flights.find((x) => x.id === id);
    if (!f) return;
    const frame = await this.page.flightFrame(id);
    let payload = esc(f.summary);
    if (frame) {
      const fields = frame.extFields
        ? Object.entries(frame.extFields)
            .map(([k, v]) => `${esc(k)}=${esc(v)}`)
            .join(", ")
        : "";
      let topics = "";
      if (frame.bodyText) {
        try {
          const body = JSON.parse(frame.bodyText);
          const table = body.topicConfigSerializeWrapper && body.topicConfigSerializeWrapper.topicConfigTable;
          if (table) topics = `<p>topics: ${Object.keys(table).map(esc).join(", ")}</p>`;
        } catch {
          topics = "";
        }
      }
      payload = `${esc(f.summary)}<br><span class="mono small">code ${frame.code}${frame.codeName ? ` (${esc(frame.codeName)})` : ""}, opaque ${frame.opaque}, ${frame.length} bytes${fields ? `; ${fields}` : ""}</span>${topics}`;
    }
    this.el.sheetTitle.textContent = flightLabel(f);
    this.el.sheetBody.innerHTML = `<dl class="msg" data-testid="message-panel">
<dt>${t("msgType")}</dt><dd data-field="type">${esc(msgType(f))}${f.response ? " (response)" : ""} · ${esc(f.category)}</dd>
<dt>${t("msgFrom")}</dt><dd data-field="from">${esc(f.from)}</dd>
<dt>${t("msgTo")}</dt><dd data-field="to">${esc(f.to)}</dd>
<dt>${t("msgSent")}</dt><dd data-field="sentAt">${secs(f.sentAt)}</dd>
<dt>${t("msgArrive")}</dt><dd data-field="arriveAt">${secs(f.arriveAt)}${f.held ? ` (${esc(t("held"))})` : ""}</dd>
<dt>${t("msgPayload")}</dt><dd data-field="payload">${payload}</dd></dl>`;
    this.el.sheetList.innerHTML = `<ul class="action-list"><li><button type="button" data-action="drop ${f.id}" data-testid="action-drop">${esc(t("drop"))}</button></li><li><button type="button" data-action="delay ${f.id} 5000" data-testid="action-delay">${esc(t("delay"))}</button></li></ul>`;
    this.sheet.classList.remove("beside");
    this.sheet.removeAttribute("style");
    if (this.sheet.open) this.sheet.close();
    this.sheet.showModal();
  }
}
