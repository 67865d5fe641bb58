// @ts-check
// The event log: RocketMQ's own wording, filterable; Enter or click seeks to that moment.
// Newest first in the DOM; the list is laid out bottom-up (column-reverse), so the newest line
// stays in view without scripted scrolling (which would force a layout on every frame).
import { t } from "../app/i18n.js";
import { secs } from "../app/format.js";
import { esc } from "../app/html.js";

const KEEP = 300;

export class EventLog {
  constructor(list, nodeSel, kindSel, onSeek) {
    this.list = list;
    this.nodeSel = nodeSel;
    this.kindSel = kindSel;
    this.onSeek = onSeek;
    this.count = 0; // trace lines already considered
    this.shown = 0;
    this.setKinds([]);
    const refilter = () => this.rebuild();
    nodeSel.addEventListener("change", refilter);
    kindSel.addEventListener("change", refilter);
    list.addEventListener("click", (e) => {
      const b = e.target.closest("button[data-at]");
      if (b) this.onSeek({ at: Number(b.dataset.at), node: b.dataset.node, seq: Number(b.dataset.seq) });
    });
  }

  // The kinds come from the model (`traceKinds()`), or in live mode from the daemon's lines.
  setKinds(kinds) {
    const cur = this.kindSel.value;
    this.kindSel.innerHTML =
      `<option value="">${t("all")}</option>` +
      kinds.map((k) => `<option value="${esc(k)}">${esc(k)}</option>`).join("");
    if (kinds.includes(cur)) this.kindSel.value = cur;
  }

  setNodes(names) {
    const cur = this.nodeSel.value;
    this.nodeSel.innerHTML =
      `<option value="">${t("all")}</option>` + names.map((n) => `<option>${esc(n)}</option>`).join("");
    if (names.includes(cur)) this.nodeSel.value = cur;
  }

  matches(l) {
    return (
      (!this.nodeSel.value || l.node === this.nodeSel.value) && (!this.kindSel.value || l.kind === this.kindSel.value)
    );
  }

  item(l) {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.className = `log-line kind-${l.kind}`;
    b.dataset.at = l.at;
    b.dataset.node = l.node;
    b.dataset.kind = l.kind;
    b.dataset.seq = l.seq;
    const time = document.createElement("span");
    time.className = "log-time";
    time.textContent = secs(l.at);
    const node = document.createElement("span");
    node.className = "log-node";
    node.textContent = l.node;
    const kind = document.createElement("span");
    kind.className = "log-kind";
    kind.lang = "en";
    kind.textContent = l.kind;
    const text = document.createElement("span");
    text.className = "log-text";
    text.lang = "en";
    text.textContent = l.text;
    b.append(time, " ", node, " ", kind, " ", text);
    li.appendChild(b);
    return li;
  }

  // `trace` is the page's whole trace; `from` is where it changed (0 after a reset). While
  // playing fast, `cap` bounds the lines added per frame; the skipped ones come back at pause.
  update(trace, from, cap = Infinity) {
    this.trace = trace;
    if (from < this.count || (this.partial && cap === Infinity)) return this.rebuild();
    let add = trace.slice(this.count).filter((l) => this.matches(l));
    this.count = trace.length;
    if (add.length > cap) {
      add = add.slice(-cap);
      this.partial = true;
    }
    if (!add.length) return;
    const frag = document.createDocumentFragment();
    for (const l of add.slice(-KEEP).reverse()) frag.appendChild(this.item(l));
    this.list.prepend(frag);
    this.shown += Math.min(add.length, KEEP);
    while (this.shown > KEEP) {
      this.list.lastChild.remove();
      this.shown--;
    }
  }

  // Shows `trace` from scratch: another source's lines (live mode's, or the simulation's again).
  replace(trace) {
    this.trace = trace;
    this.rebuild();
  }

  rebuild() {
    const trace = this.trace || [];
    const lines = trace
      .filter((l) => this.matches(l))
      .slice(-KEEP)
      .reverse();
    const frag = document.createDocumentFragment();
    for (const l of lines) frag.appendChild(this.item(l));
    this.list.replaceChildren(frag);
    this.shown = lines.length;
    this.count = trace.length;
    this.partial = false;
  }

  markCurrent(seq) {
    for (const el of this.list.querySelectorAll("[aria-current]")) el.removeAttribute("aria-current");
    const b = this.list.querySelector(`button[data-seq="${seq}"]`);
    if (b) b.setAttribute("aria-current", "true");
  }

  focus() {
    const last = this.list.querySelector("li:first-child button");
    if (last) last.focus();
    else this.list.focus();
  }
}
