// The diagram's layout (www/diagram/layout.js) for every built-in scenario, at a desktop's and a
// phone's width: no two node boxes overlap, NameServers sit on top, brokers down the left and
// clients down the right, and the same input gives the same output.
import { test } from "node:test";
import assert from "node:assert/strict";

import init, { Simulation, builtInScenarios } from "rocketmq-nameserver";
import { layout } from "../../../www/diagram/layout.js";

await init();

// The nodes as the worker hands them to the page (www/source/worker.js, meta()).
const SCENARIOS = builtInScenarios().map(({ id }) => {
  const sim = Simulation.builtIn(id);
  const nodes = sim
    .view()
    .nodes.map(({ name, role, addr, group, brokerId }) => ({ name, role, addr, group, brokerId }));
  sim.free();
  return { id, nodes };
});
const WIDTHS = [1280, 390];

const edges = (b) => ({ left: b.x - b.w / 2, right: b.x + b.w / 2, top: b.y - b.h / 2, bottom: b.y + b.h / 2 });
const overlap = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

test("the built-in scenarios are all here, each with nodes of every role", () => {
  assert.ok(SCENARIOS.length >= 10, `${SCENARIOS.length} scenarios`);
  for (const { id, nodes } of SCENARIOS) {
    const roles = new Set(nodes.map((n) => n.role));
    assert.ok(roles.has("nameserver") && roles.has("broker"), `${id}: ${[...roles]}`);
  }
});

for (const width of WIDTHS) {
  test(`at ${width} px: every node placed inside the width, no two boxes overlap`, () => {
    for (const { id, nodes } of SCENARIOS) {
      const { pos } = layout({ nodes }, width);
      assert.deepEqual(Object.keys(pos).sort(), nodes.map((n) => n.name).sort(), id);
      const boxes = nodes.map((n) => [n.name, edges(pos[n.name])]);
      for (const [name, b] of boxes)
        assert.ok(b.left >= 0 && b.right <= width && b.top >= 0, `${id} ${name}: ${JSON.stringify(b)}`);
      for (let i = 0; i < boxes.length; i++)
        for (let j = i + 1; j < boxes.length; j++)
          assert.ok(!overlap(boxes[i][1], boxes[j][1]), `${id} at ${width}: ${boxes[i][0]} overlaps ${boxes[j][0]}`);
    }
  });

  test(`at ${width} px: NameServers on top, brokers on the left, clients on the right`, () => {
    for (const { id, nodes } of SCENARIOS) {
      const { pos } = layout({ nodes }, width);
      const of = (roles) => nodes.filter((n) => roles.includes(n.role)).map((n) => edges(pos[n.name]));
      const nss = of(["nameserver"]);
      const brokers = of(["broker"]);
      const clients = of(["producer", "consumer"]);
      const nsBottom = Math.max(...nss.map((b) => b.bottom));
      for (const b of [...brokers, ...clients])
        assert.ok(b.top > nsBottom, `${id}: a box above the NameServers' bottom`);
      const brokersRight = Math.max(...brokers.map((b) => b.right));
      for (const c of clients) assert.ok(c.left > brokersRight, `${id}: a client left of a broker's right edge`);
      for (const b of brokers) assert.ok(b.left < width / 2, `${id}: a broker on the right half`);
      for (const c of clients) assert.ok(c.right > width / 2, `${id}: a client on the left half`);
    }
  });
}

test("the same nodes and width give the same layout", () => {
  for (const { nodes } of SCENARIOS)
    for (const width of WIDTHS) {
      const copy = structuredClone(nodes);
      assert.deepEqual(layout({ nodes }, width), layout({ nodes: copy }, width));
    }
});
