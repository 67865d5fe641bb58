// Predictions that predict (issue 34): every lesson question is asked at least ASK_MARGIN_MS of
// simulated time before the event that resolves it. Each lesson is walked on the model as the
// runner plays it (a step starts where the last step's event stopped the clock; a `load` starts
// its scenario again), with the gate rule the worker uses; the browser test
// (tests/browser/predictions.test.mjs) measures the same margin, and the frames, on the page.
import { test } from "node:test";
import assert from "node:assert/strict";

import { Simulation } from "rocketmq-nameserver";
import { LESSONS } from "../../../www/lessons/index.js";
import { ASK_MARGIN_MS } from "../../../www/lessons/lesson-runner.js";
import { gateHit } from "../../../www/source/gate.js";

const HORIZON_MS = 600_000;

// Runs `sim` to the first event `gate` matches after the lines already read (`cursor`), and
// leaves the clock there, that millisecond run, as the worker does; the hit and the next cursor.
function runToGate(sim, cursor, gate) {
  let hit = null;
  if (gate.at !== undefined) {
    if (gate.at > sim.time) sim.seek(gate.at);
    hit = gateHit(gate, sim.time, []);
  } else {
    for (const end = sim.time + HORIZON_MS; !hit && sim.time < end;) {
      sim.seek(Math.min(end, sim.time + 1000));
      const delta = sim.view(cursor).delta;
      cursor = delta.cursor;
      hit = gateHit(gate, sim.time, delta.trace);
    }
    if (hit && hit.at < sim.time) sim.seek(hit.at);
  }
  return { hit, cursor: sim.view(null).delta.cursor };
}

// Every asking step of lesson `id`: when it is asked and when its event comes (ms).
function margins(id) {
  const steps = LESSONS[id];
  const open = (scenario) => {
    const sim = Simulation.builtIn(scenario);
    sim.seek(0);
    return { sim, cursor: sim.view(null).delta.cursor };
  };
  let { sim, cursor } = open(steps.scenario || id);
  const out = [];
  try {
    for (const [i, step] of steps.entries()) {
      if (step.load) {
        sim.free();
        ({ sim, cursor } = open(step.load));
      }
      if (!step.gate) continue;
      const asked = sim.time;
      const r = runToGate(sim, cursor, step.gate);
      cursor = r.cursor;
      assert.ok(r.hit, `${id} step ${i + 1}: its event comes within ${HORIZON_MS} ms`);
      if (step.ask) out.push({ where: `${id} step ${i + 1}`, asked, at: r.hit.at });
    }
  } finally {
    sim.free();
  }
  return out;
}

test(`every prediction is asked at least ${ASK_MARGIN_MS} ms of simulated time before its event`, () => {
  const short = [];
  let asks = 0;
  for (const id of Object.keys(LESSONS))
    for (const m of margins(id)) {
      asks++;
      if (m.at - m.asked < ASK_MARGIN_MS)
        short.push(`${m.where}: asked at ${m.asked} ms, resolved at ${m.at} ms (${m.at - m.asked} ms)`);
    }
  assert.ok(asks >= 20, `every lesson's questions walked (${asks})`);
  assert.deepEqual(short, []);
});
