// Live mode's assembly through the wasm binding (`liveView`), on console answers recorded from
// real daemons (sim/tests/testdata/live/: `a` with broker-a registered, `b` with none): the
// objects the worker passes, the simulation's `ClusterView` back.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import init, { liveView } from "rocketmq-nameserver";

await init();

const recorded = (name) =>
  JSON.parse(readFileSync(new URL(`../../sim/tests/testdata/live/${name}.json`, import.meta.url), "utf8"));
const a = recorded("a");
const b = recorded("b");
const wall = (v, ms) => v.wallMs - v.uptimeMs + ms;

test("liveView: two daemons as the simulation's view, on the wall clock, with what b lacks", () => {
  const v = liveView({
    at: a.wallMs,
    topic: "TBW102",
    daemons: [
      {
        label: "http://a",
        up: true,
        view: a,
        route: recorded("a-route-TBW102"),
        topics: recorded("a-topics").topics,
        heard: {},
        steps: [{ prev: recorded("a-before"), view: a, recent: [] }],
      },
      { label: "http://b", up: true, view: b, route: null, topics: [], heard: {}, steps: [] },
    ],
  });
  assert.deepEqual(
    v.nodes.map((n) => [n.name, n.role, n.state]),
    [
      [a.address, "nameserver", "up"],
      [b.address, "nameserver", "up"],
      ["broker-a", "broker", "up"],
    ],
  );
  const row = v.ns[a.address].brokers[0];
  assert.equal(row.brokerAddr, "127.0.0.1:31911");
  assert.equal(row.lastUpdate, wall(a, a.brokers[0].lastUpdate));
  assert.equal(row.removalAt, wall(a, a.brokers[0].removalAt));
  assert.equal(v.routes[a.address].TBW102.queueDatas[0].brokerName, "broker-a");
  assert.equal(v.routes[b.address].TBW102, null);
  assert.deepEqual(v.lacks.brokers, [
    {
      ns: b.address,
      brokers: [
        {
          name: "broker-a",
          addr: "127.0.0.1:31911",
          lastHeard: null,
          freshest: a.address,
          freshestHeard: row.lastUpdate,
        },
      ],
      others: [a.address],
    },
  ]);
  assert.deepEqual(
    v.delta.wire.map((w) => [w.from, w.to, w.response, w.type]),
    [
      ["broker-a", a.address, false, "REGISTER_BROKER"],
      [a.address, "broker-a", true, "REGISTER_BROKER"],
    ],
  );
});

test("liveView: a malformed request throws with what is wrong", () => {
  assert.throws(() => liveView({ at: 1, daemons: [{ label: "x" }] }), /bad live request/);
});
