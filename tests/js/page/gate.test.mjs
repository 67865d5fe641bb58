// The lesson gate (www/source/gate.js): the one rule for whether a trace line, or the clock, is
// the event a lesson step waits for, and the shape of the hit the worker and the page pass on.
import { test } from "node:test";
import assert from "node:assert/strict";

import { gateHit, lineMatches } from "../../../www/source/gate.js";

const line = (at, node, kind, text) => ({ seq: at, at, node, kind, text });
const LINES = [
  line(100, "NS-1", "registered", "REGISTER_BROKER broker-a"),
  line(200, "NS-2", "registered", "REGISTER_BROKER broker-b"),
  line(300, "NS-1", "expired", "broker-b expired after 120 s"),
  line(400, "C1", "route", "route of TopicTest changed"),
];

test("a time gate: no hit before its time, then a hit at the gate's time whatever the clock says", () => {
  const gate = { at: 30_000 };
  assert.equal(gateHit(gate, 29_999, LINES), null);
  const hit = gateHit(gate, 30_000, []);
  // The hit's shape: a trace line's fields, so steps read it as they read a line.
  assert.deepEqual(hit, { at: 30_000, node: "", kind: "time", text: "" });
  assert.deepEqual(gateHit(gate, 95_000, LINES), hit, "a clock past the gate still stops at the gate's time");
  assert.deepEqual(Object.keys(hit).sort(), ["at", "kind", "node", "text"]);
});

test("a line gate matches on kind, node and text, and notText rules a line out", () => {
  assert.ok(lineMatches({ kinds: ["expired"] }, LINES[2]));
  assert.ok(!lineMatches({ kinds: ["expired"] }, LINES[0]));
  assert.ok(lineMatches({ kinds: ["registered", "expired"], node: "NS-2" }, LINES[1]));
  assert.ok(!lineMatches({ kinds: ["registered"], node: "NS-2" }, LINES[0]));
  assert.ok(lineMatches({ text: "broker-b" }, LINES[1]));
  assert.ok(!lineMatches({ text: "broker-b" }, LINES[0]));
  assert.ok(!lineMatches({ text: "broker-b", notText: "expired" }, LINES[2]));
  assert.ok(lineMatches({}, LINES[3]), "an empty gate matches any line");
});

test("a line gate's hit is the first matching line itself, whatever the time", () => {
  assert.equal(gateHit({ text: "broker-b" }, 0, LINES), LINES[1]);
  assert.equal(gateHit({ kinds: ["expired"], node: "NS-1" }, 1e9, LINES), LINES[2]);
  assert.equal(gateHit({ kinds: ["expired"], node: "NS-2" }, 1e9, LINES), null);
  assert.equal(gateHit({ kinds: ["route"] }, 0, []), null);
});
