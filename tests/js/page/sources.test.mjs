// The page's sources (www/source/): one shape, { open(), close(), request({ at, gate }), can },
// the simulation's able to do everything the page offers and a live cluster's none of it.
import { test } from "node:test";
import assert from "node:assert/strict";

import { SimSource } from "../../../www/source/sim-source.js";
import { LiveSource } from "../../../www/source/live-source.js";

test("both sources have the one shape; can says what each offers", () => {
  const sim = new SimSource();
  const live = new LiveSource({}, [""], {
    topic: new EventTarget(),
    scrubber: new EventTarget(),
    follow: new EventTarget(),
  });
  for (const s of [sim, live]) for (const f of ["open", "close", "request"]) assert.equal(typeof s[f], "function", f);
  assert.deepEqual(sim.can, { seek: true, inject: true, fork: true, lessons: true });
  assert.deepEqual(live.can, { seek: false, inject: false, fork: false, lessons: false });
});

test("the simulation's request runs the worker to `at` (whole ms) with the gate; open is its init", async () => {
  const sim = new SimSource();
  const calls = [];
  sim.client = { call: async (op, args) => (calls.push([op, args]), { op }), idle: true };
  const gate = { kinds: ["expired"] };
  assert.deepEqual(await sim.request({ at: 1234.9, gate }), { op: "runTo" });
  await sim.open();
  assert.deepEqual(calls, [
    ["runTo", { ms: 1234, gate }],
    ["init", undefined],
  ]);
  assert.equal(sim.idle, true);
});
