// The page's sources (www/source/): one shape, { open(), close(), request({ at, gate }), can },
// the simulation's able to do everything the page offers and a live cluster's none of it.
import { test } from "node:test";
import assert from "node:assert/strict";

import { SimSource } from "../../../www/source/sim-source.js";
import { LiveSource } from "../../../www/source/live-source.js";
import { DaemonFeed } from "../../../www/source/daemon-feed.js";

const liveEls = () => ({ topic: new EventTarget(), scrubber: new EventTarget(), follow: new EventTarget() });

test("both sources have the one shape; can says what each offers", () => {
  const sim = new SimSource();
  const live = new LiveSource({ call: async () => ({}) }, {}, [""], liveEls());
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

test("a live cluster's request asks the worker to assemble the daemons' views in force at `at`", async () => {
  const calls = [];
  const answer = { view: { meta: {}, snap: {} }, delta: { wire: [] }, gateHit: null };
  const worker = { call: async (op, args) => (calls.push([op, args]), answer) };
  const live = new LiveSource(worker, {}, [""], liveEls());
  const feed = new DaemonFeed("http://a", () => {});
  const view = (uptimeMs, lastUpdate) => ({
    address: "127.0.0.1:9876",
    wallMs: 10_000 + uptimeMs,
    uptimeMs,
    brokers: [{ brokerAddr: "10.0.0.1:10911", lastUpdate }],
  });
  feed.history.push({ wall: 10_000, view: view(0, 0), routes: {}, topics: [] });
  feed.history.push({ wall: 12_000, view: view(2_000, 1_500), routes: { T: null }, topics: ["T"] });
  feed.history.push({ wall: 20_000, view: view(10_000, 9_000), routes: { T: null }, topics: ["T"] });
  Object.assign(feed, { reachable: true, connected: true });
  live.view.sources.push(feed);
  live.view.topic = "T";
  assert.equal(await live.request({ at: 15_000.4 }), answer);
  assert.deepEqual(calls, [
    [
      "live",
      {
        at: 15_000,
        topic: "T",
        daemons: [
          {
            label: "http://a",
            up: true,
            view: view(2_000, 1_500),
            route: null,
            topics: ["T"],
            heard: { "10.0.0.1:10911": 11_500 },
            steps: [],
          },
        ],
      },
    ],
  ]);
});
