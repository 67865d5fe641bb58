// @ts-check
// Two or three runs side by side at the same moment: the same measurements for each (when
// each NameServer dropped the broker, when each client caught up, how long routes were stale,
// what happened to the sends). Each column is its own simulation, run in the worker.
import { t } from "../app/i18n.js";
import { secs, dur } from "../app/format.js";
import { esc } from "../app/html.js";

const DEFAULT = ["S3", "S4", "S5"];

export class Compare {
  // `page`: scenarios() → the built-ins, branchText() → the current branch's scenario,
  // run({items, at}) → the worker's measurements of each.
  constructor(page, el) {
    this.page = page;
    this.el = el;
    this.built = false;
    el.addEventListener("submit", (e) => {
      e.preventDefault();
      this.run();
    });
  }

  build() {
    const ids = this.page.scenarios().map((s) => s.id);
    const opts = (sel) =>
      `<option value="">—</option><option value="branch">${esc(t("compareBranch"))}</option>${ids.map((id) => `<option value="${id}"${id === sel ? " selected" : ""}>${id}</option>`).join("")}`;
    this.el.innerHTML = `<form class="compare-form"><p class="muted small">${esc(t("compareIntro"))}</p><div class="row">
${DEFAULT.map((d, i) => `<label class="field"><span>${esc(t("compareRun", { n: i + 1 }))}</span><select name="run${i}" data-testid="compare-run-${i}">${opts(d)}</select></label>`).join("")}
<label class="field"><span>${esc(t("compareAt"))}</span><input name="at" type="number" min="0" step="1" value="200" data-testid="compare-at" inputmode="numeric"></label>
<button type="submit" class="primary" data-testid="compare-go">${esc(t("compareGo"))}</button></div></form><div class="compare-out" data-testid="compare-out"></div>`;
    this.built = true;
  }

  render() {
    if (!this.built && this.page.scenarios()) this.build();
  }

  async run() {
    const form = this.el.querySelector("form");
    const at = Math.max(0, Number(form.at.value) || 0) * 1000;
    const runs = [0, 1, 2].map((i) => form[`run${i}`].value).filter(Boolean);
    const items = runs.map((r) =>
      r === "branch" ? { label: t("compareBranch"), text: this.page.branchText() } : { label: r, id: r },
    );
    const out = this.el.querySelector(".compare-out");
    if (!items.length) {
      out.textContent = t("compareNone");
      return;
    }
    out.setAttribute("aria-busy", "true");
    try {
      const res = await this.page.run({ items, at });
      out.innerHTML = table(res, at);
    } catch (e) {
      out.textContent = String(/** @type {Error} */ (e).message || e);
    } finally {
      out.removeAttribute("aria-busy");
    }
  }
}

function table(cols, at) {
  const nss = [...new Set(cols.flatMap((c) => (c.m ? c.m.nsRemoval.map(([ns]) => ns) : [])))];
  const clients = [...new Set(cols.flatMap((c) => (c.m ? c.m.clientUpdate.map(([n]) => n) : [])))];
  const cell = (fn) => cols.map((c) => `<td>${c.m ? esc(fn(c)) : "—"}</td>`).join("");
  const rows = [
    [t("compareFault"), cell((c) => `${c.m.action} @ ${secs(c.m.at)}`)],
    ...nss.map((ns) => [t("compareRemoval", { ns }), cell((c) => when(c.m.nsRemoval, ns, c.m.at))]),
    ...clients.map((n) => [t("compareUpdate", { c: n }), cell((c) => when(c.m.clientUpdate, n, c.m.at))]),
    [t("compareStale"), cols.map((c) => `<td>${c.m ? staleCell(c.stale, at) : "—"}</td>`).join("")],
    [
      t("compareSends"),
      cell((c) => t("compareSendsCell", { f: c.m.sendsFailed, i: c.m.sendsIndeterminate, r: c.m.sendsRetried })),
    ],
  ];
  return `<div class="table-wrap"><table class="compare" data-at="${at}"><caption>${esc(t("compareCaption", { t: secs(at, 0) }))}</caption><thead><tr><th></th>${cols.map((c) => `<th scope="col">${esc(c.label)}</th>`).join("")}</tr></thead><tbody>${rows
    .map(([h, cells], i) => `<tr data-row="${i}"><th scope="row">${esc(h)}</th>${cells}</tr>`)
    .join("")}</tbody></table></div>`;
}

function when(pairs, name, from) {
  const p = pairs.find(([n]) => n === name);
  if (!p || p[1] === null) return t("compareNever");
  return `${secs(p[1])} (+${dur(p[1] - from)})`;
}

// Routes stale up to `at`: the sum of every client's windows, each client's share on demand.
export function staleCell(windows, at) {
  const per = new Map();
  for (const w of windows) per.set(w.client, (per.get(w.client) || 0) + (w.to ?? at) - w.from);
  const total = [...per.values()].reduce((a, b) => a + b, 0);
  const sum = `<span class="stale-total" data-ms="${total}">${dur(total)}</span>`;
  if (!per.size) return sum;
  const list = [...per].map(([c, ms]) => `<li data-client="${esc(c)}">${esc(c)} ${dur(ms)}</li>`);
  return `<details class="stale-by-client"><summary>${sum}</summary><ul>${list.join("")}</ul></details>`;
}
