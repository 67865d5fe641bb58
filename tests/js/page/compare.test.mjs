// The Compare panel's stale row (www/panels/compare.js): one total per run, with its unit, and
// each client's share only when asked for (issue 34: a list of clients read as the total).
import { test } from "node:test";
import assert from "node:assert/strict";

import { setLanguage } from "../../../www/app/i18n.js";
import { staleCell } from "../../../www/panels/compare.js";

const strip = (html) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();

test("the stale row sums every client's windows, an open one up to the moment compared", () => {
  setLanguage("en");
  const windows = [
    { client: "P1", from: 100000, to: 100000 },
    { client: "C1", from: 150000, to: 160000 },
    { client: "C1", from: 180000, to: null },
  ];
  const html = staleCell(windows, 195000);
  const total = html.match(/<summary><span class="stale-total" data-ms="(\d+)">([^<]*)<\/span>/);
  assert.ok(total, html);
  assert.deepEqual([total[1], total[2]], ["25000", "25.0 s"], "10 s + 15 s, in seconds");
  // The per-client sums are inside the closed details, not beside the total.
  const list = html.slice(html.indexOf("</summary>"));
  assert.equal(strip(list), "P1 0.0 s C1 25.0 s");
  assert.doesNotMatch(html, /<details[^>]* open/);
});

test("no stale window: a zero total, nothing to open", () => {
  setLanguage("en");
  assert.equal(staleCell([], 200000), '<span class="stale-total" data-ms="0">0.0 s</span>');
});
