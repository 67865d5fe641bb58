// Links shared by the page keep opening on the same state: each link of fixtures/share-urls.txt
// (made by the page, see make-share-urls.mjs) is read as the page reads its address and run as
// the page's worker runs it (a Simulation of its text, sought to its time), and must give the
// state and trace hashes the page showed when it made the link.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import init, { Simulation } from "rocketmq-nameserver";
import { parseHash } from "../../www/app/url.js";

await init();

const lines = readFileSync(new URL("fixtures/share-urls.txt", import.meta.url), "utf8").split("\n");
const links = [];
let label = null;
for (const line of lines) {
  if (line.startsWith("# ")) label = line.slice(2);
  else if (line.trim()) {
    const [link, state, trace] = line.split(" ");
    links.push({ label, link, state, trace });
  }
}

test("the fixture holds S1–S10, a fork and a lesson step", () => {
  assert.equal(links.length, 12);
  for (let i = 1; i <= 10; i++)
    assert.ok(
      links.some((l) => l.label.startsWith(`S${i} at`)),
      `S${i}`,
    );
});

for (const { label, link, state, trace } of links) {
  test(`share link: ${label}`, () => {
    const opened = parseHash(link.slice(link.indexOf("#")));
    const sim = new Simulation(opened.text);
    try {
      sim.seek(opened.time);
      assert.deepEqual({ state: sim.stateHash(), trace: sim.traceHash() }, { state, trace });
    } finally {
      sim.free();
    }
  });
}
