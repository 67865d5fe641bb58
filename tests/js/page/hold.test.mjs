// The hold rule (www/lessons/hold.js): a lesson step's subject is drawn travelling, over at
// least 90 % of its edge on at least 20 frames, before the page pauses on its event; paused, it
// stays where it arrived; the event's state is drawn on its arrival frame, not before; other
// traffic is muted. Checked here on synthetic frame records and on the traffic layer's tokens,
// and every lesson step's declared subject against what the simulation sends.
import { test } from "node:test";
import assert from "node:assert/strict";
import init, { Simulation } from "rocketmq-nameserver";

import { findSubject, heldProgress, MIN_FRAMES } from "../../../www/lessons/hold.js";
import { holdProblems } from "../../browser/lib/hold-record.mjs";
import { Traffic } from "../../../www/diagram/traffic.js";
import { LESSONS, LESSON_ORDER } from "../../../www/lessons/index.js";
import { gateHit } from "../../../www/source/gate.js";

const SUBJECT = { kind: "REGISTER_BROKER", from: "broker-a", to: "NS-1", event: "registered" };
const EVENT_AT = 1003;
const msg = (p, extra = {}) => ({
  from: "broker-a",
  to: "NS-1",
  kind: "REGISTER_BROKER",
  p,
  opacity: 1,
  label: true,
  ...extra,
});
const other = (extra = {}) => ({
  from: "P1",
  to: "broker-a",
  kind: "SEND_MESSAGE",
  p: 0.5,
  opacity: 0.3,
  label: false,
  ...extra,
});

// `n` frames of the subject moving 0 → 1 while the step waits, then `after` paused frames.
function record(n = 30, after = 3, f = {}) {
  const frames = [];
  for (let i = 0; i < n; i++) {
    const p = i / (n - 1);
    frames.push({ waiting: true, clock: p >= 1 ? EVENT_AT : 1000, msgs: [msg(p), other()], ...f });
  }
  for (let i = 0; i < after; i++) frames.push({ waiting: false, clock: EVENT_AT, msgs: [msg(1)] });
  return frames;
}

test("a record that keeps the rule passes, also when it starts on the step before", () => {
  assert.deepEqual(holdProblems(record(), SUBJECT, EVENT_AT), []);
  const before = { waiting: false, clock: 900, msgs: [other({ opacity: 1, label: true })] };
  assert.deepEqual(holdProblems([before, before, ...record()], SUBJECT, EVENT_AT), []);
});

test("today's record (the pause clears the traffic before the subject is drawn) fails", () => {
  const frames = [];
  for (let i = 0; i < 97; i++)
    frames.push({ waiting: true, clock: 1000 + i, msgs: [other({ opacity: 1, label: true })] });
  frames.push({ waiting: false, clock: EVENT_AT, msgs: [] });
  const problems = holdProblems(frames, SUBJECT, EVENT_AT);
  assert.ok(
    problems.some((p) => /never drawn before the pause/.test(p)),
    problems.join("\n"),
  );
  assert.ok(
    problems.some((p) => /not drawn where it arrived/.test(p)),
    problems.join("\n"),
  );
  assert.ok(
    problems.some((p) => /opacity 1 with its label/.test(p)),
    problems.join("\n"),
  );
});

test("too few frames, too short a stretch, an early state and loud traffic each fail", () => {
  assert.match(holdProblems(record(12), SUBJECT, EVENT_AT).join(), /drawn on 12 frames/);
  const short = record().map((f) => ({
    ...f,
    msgs: f.msgs.map((m) => (m.from === "broker-a" && f.waiting ? { ...m, p: 0.5 + m.p / 2 } : m)),
  }));
  assert.match(holdProblems(short, SUBJECT, EVENT_AT).join(), /drawn over 50 % of its edge/);
  const early = record();
  early[5] = { ...early[5], clock: EVENT_AT };
  assert.match(holdProblems(early, SUBJECT, EVENT_AT).join(), /drawn on frame 5, before the subject's arrival/);
  const loud = record();
  loud[3] = { ...loud[3], msgs: [msg(0.1), other({ opacity: 0.31 })] };
  assert.match(holdProblems(loud, SUBJECT, EVENT_AT).join(), /frame 3: SEND_MESSAGE P1 → broker-a at opacity 0.31/);
  const gone = record(30, 0).concat([{ waiting: false, clock: EVENT_AT, msgs: [] }]);
  assert.match(holdProblems(gone, SUBJECT, EVENT_AT).join(), /not drawn where it arrived while paused/);
});

test("a held subject needs MIN_FRAMES frames however fast the wall clock runs, and stays at its arrival", () => {
  assert.ok(heldProgress(1, MIN_FRAMES, 0.99) < 1, "not there before MIN_FRAMES frames");
  assert.equal(heldProgress(0.5, MIN_FRAMES, 0.45), 0.5);
  assert.ok(heldProgress(1, 100, 0.5) < 0.6, "a late frame moves it a step, not to its arrival");
  assert.equal(heldProgress(0, 1, 0.7), 0.7, "never back");
  const m = {
    id: 7,
    from: "broker-a",
    to: "NS-1",
    sentAt: 1000,
    arriveAt: 1003,
    category: "register",
    response: false,
    type: "REGISTER_BROKER",
  };
  // Steady frames, slow ones, and a busy machine's: quick, then a long stall, then quick.
  const busy = (i) => (i < 5 ? i * 16 : i < 6 ? 2000 : 2000 + (i - 5) * 16);
  for (const at of [(i) => i * 16, (i) => i * 200, busy]) {
    const traffic = new Traffic();
    const k = traffic.hold(m, 0);
    let frames = 0;
    const ps = [];
    while (!traffic.arrived(k)) {
      const drawn = traffic.step(at(frames)).tokens.find((x) => x.id === k.id);
      ps.push(drawn.p);
      frames++;
      assert.ok(frames < 1000, "arrives");
    }
    assert.ok(frames > MIN_FRAMES, `${frames} frames`);
    // Before its arrival frame it has been drawn across at least 90 % of its edge.
    const before = ps.slice(0, -1);
    assert.ok(Math.max(...before) - Math.min(...before) >= 0.9, before.join(" "));
    // Held, it is not retired into a fading trace: it stays drawn at its arrival.
    const drawn = traffic.step(1e6).tokens.find((x) => x.id === k.id);
    assert.equal(drawn && drawn.p, 1);
  }
});

test("the messages that fit a subject ride alone, never in a bundle", () => {
  const traffic = new Traffic();
  const reg = (id, to) => ({
    id,
    from: "broker-a",
    to,
    sentAt: 0,
    arriveAt: 2,
    category: "register",
    response: false,
    type: "REGISTER_BROKER",
  });
  traffic.feed([reg(1, "NS-1"), reg(2, "NS-1"), reg(3, "NS-1")], 0, 30, (e) => e.id === 2);
  const tokens = traffic.step(10).tokens;
  assert.equal(tokens.length, 2);
  assert.deepEqual(tokens.map((k) => k.count).sort(), [1, 2]);
  assert.ok(tokens.find((k) => k.first.id === 2 && k.solo && k.count === 1));
});

test("the subject is the last message that fits it and arrived by the event", () => {
  const pool = [
    {
      from: "broker-a",
      to: "NS-1",
      type: "REGISTER_BROKER",
      category: "register",
      response: false,
      sentAt: 0,
      arriveAt: 3,
    },
    {
      from: "broker-a",
      to: "NS-1",
      type: "REGISTER_BROKER",
      category: "register",
      response: false,
      sentAt: 10,
      arriveAt: 12,
    },
    {
      from: "broker-a",
      to: "NS-1",
      type: "REGISTER_BROKER",
      category: "register",
      response: false,
      sentAt: 30,
      arriveAt: 32,
    },
  ];
  assert.equal(findSubject(SUBJECT, { at: 20 }, pool), pool[1]);
  assert.equal(findSubject({ ...SUBJECT, to: "NS-2" }, { at: 20 }, pool), null, "bad lesson data finds nothing");
});

// Runs `sim` to the first line `gate` matches (as the worker does, in growing chunks) and
// returns the hit with the wire sent on the way.
function runToGate(sim, gate, cursor) {
  const wire = [];
  if (gate.at !== undefined) {
    sim.seek(gate.at);
    return { hit: { at: gate.at, kind: "time" }, wire };
  }
  for (let chunk = 1000; sim.time < 3_600_000; chunk *= 2) {
    sim.seek(sim.time + chunk);
    const d = sim.view(cursor).delta;
    cursor = d.cursor;
    wire.push(...d.wire);
    const hit = gateHit(gate, sim.time, d.trace);
    if (hit) {
      if (hit.at < sim.time) sim.seek(hit.at);
      return { hit, wire };
    }
  }
  return { hit: null, wire };
}

test("every gated step of every lesson declares its subject, and the simulation sends it before the event", async () => {
  await init();
  const bad = [];
  for (const id of LESSON_ORDER) {
    const steps = LESSONS[id];
    let sim = Simulation.builtIn(steps.scenario || id);
    steps.forEach((step, i) => {
      const name = `${id} step ${i + 1}`;
      if (step.load) {
        const at = sim.time;
        sim.free();
        sim = Simulation.builtIn(step.load);
        sim.seek(at);
      }
      if (!step.gate) return;
      if (step.subject === undefined) bad.push(`${name}: no subject (a timer's or a fault's step says null)`);
      // The page's pool: what was in the air when the step began, and what it sent since.
      const before = sim.view(null);
      const { hit, wire } = runToGate(sim, step.gate, before.delta.cursor);
      if (!hit) return bad.push(`${name}: its event never comes`);
      if (!step.subject) return;
      const s = step.subject;
      if (hit.kind !== s.event) bad.push(`${name}: the event is ${hit.kind}, the subject says ${s.event}`);
      if (!findSubject(s, hit, [...before.flights, ...wire]))
        bad.push(`${name}: its subject ${s.kind} ${s.from} → ${s.to} is never sent before ${hit.at} ms`);
    });
    sim.free();
  }
  assert.deepEqual(bad, []);
});
