// The Predict quiz (www/lessons/quiz.js, issue 34): options are rules, each timed with the
// model's operands, the right one is the rule nearest the model's measured time, and the
// timeline keeps its words apart and inside a phone's width.
import { test } from "node:test";
import assert from "node:assert/strict";

import { quizRules, timeline } from "../../../www/lessons/quiz.js";

const TIMINGS = { scanIntervalMs: 10000, routePollPeriodMs: 30000, idleCloseMs: 120000, brokerTimeoutMs: 120000 };
// A run as the worker answers it: the last heartbeat before the freeze, the removals, P1's
// route update and its next poll after the removal.
const run = (over = {}) => ({
  lastHeartbeat: 72006,
  removal: { "NS-1": 192007, "NS-2": 192009 },
  update: 214012,
  nextPoll: 214006,
  timings: TIMINGS,
  ...over,
});

test("the options are rules, no times; each rule's time comes from the model's operands", () => {
  const { options, right, measured } = quizRules("ns", 85300, run());
  assert.equal(measured, 192007, "graded against NS-1's measured removal");
  assert.equal(right, "hb-idle");
  assert.deepEqual(Object.fromEntries(options.map((o) => [o.id, o.ms])), {
    "hb-idle": 192006,
    "freeze-idle": 205300,
    "hb-idle-scan": 202006,
    "freeze-scan": 95300,
  });
  for (const o of options) {
    assert.doesNotMatch(o.text, /\d+\.\d+ s/, `${o.id}: a rule, not a time: ${o.text}`);
    assert.match(o.text, /heartbeat|freeze/);
  }
  assert.equal(options.find((o) => o.id === "hb-idle").text, "last heartbeat + 120 s");
  assert.equal(options.find((o) => o.id === "freeze-scan").text, "freeze, then the next 10 s scan");
});

test("the model decides which rule is right: a removal at the scan after the timeout grades that rule", () => {
  // As with idle close off: the scan finds the broker after its 120 s.
  const r = run({ removal: { "NS-1": 202004 }, timings: { ...TIMINGS, idleCloseMs: null } });
  assert.equal(quizRules("ns", 85300, r).right, "hb-idle-scan");
});

test("a wrong rule that lands on the right one's time is left out", () => {
  // Frozen 0.3 s after its last heartbeat: "freeze + 120 s" would be right as well.
  const { options, right } = quizRules("ns", 72306, run());
  assert.equal(right, "hb-idle");
  assert.deepEqual(options.map((o) => o.id).sort(), ["freeze-scan", "hb-idle", "hb-idle-scan"]);
});

test("the client's question: P1's first poll after the removal, from its timer in the model", () => {
  const { options, right, measured } = quizRules("client", 85300, run());
  assert.equal(measured, 214012);
  assert.equal(right, "next-poll");
  assert.deepEqual(Object.fromEntries(options.map((o) => [o.id, o.ms])), {
    removal: 192007,
    "next-poll": 214006,
    "freeze-idle": 205300,
    "second-poll": 244006,
  });
  // Were routes pushed, the model's update would follow the removal at once.
  assert.equal(quizRules("client", 85300, run({ update: 192020 })).right, "removal");
});

// The words' boxes of a drawn timeline (a text's box: its baseline less the font's ascent).
const boxes = (marks, bars) => [
  ...marks.map((m) => ({ id: m.id, x: m.left, y: m.y - 12, w: m.w, h: 15, line: m })),
  ...bars.map((b) => ({ id: b.id, x: b.left, y: b.y - 12, w: b.w, h: 15 })),
];

for (const width of [300, 340, 560]) {
  test(`the timeline's words stay apart and inside ${width} px, however close the times`, () => {
    const marks = [
      { id: "hb", at: 72006, row: 0, text: "last heartbeat 72.006 s" },
      { id: "freeze", at: 72306, row: 1, text: "freeze 72.306 s" },
      { id: "removal", at: 192007, row: 2, text: "NS-1 removes it 192.007 s" },
      { id: "update", at: 214012, row: 3, text: "P1 drops it 214.012 s" },
    ];
    const bars = [
      { id: "idle", ms: 120000, text: "idle timeout: 120 s" },
      { id: "route-poll", ms: 30000, text: "route poll: every 30 s" },
    ];
    const L = timeline(marks, bars, width, [72006, 72306, 192007, 214012, 244006]);
    assert.match(L.svg, /^<svg [^>]*width="\d+"/);
    const all = boxes(marks, bars);
    for (const a of all) {
      assert.ok(a.x >= 0 && a.x + a.w <= width, `${a.id} inside: ${a.x}–${a.x + a.w}`);
      for (const b of all)
        if (a !== b)
          assert.ok(
            a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y,
            `${a.id} and ${b.id} overlap`,
          );
    }
    // No mark's line runs through another mark's words.
    const axis = 46;
    for (const m of marks)
      for (const b of all.filter((x) => x.line && x.id !== m.id)) {
        const [top, bottom] = m.y < axis ? [m.y, axis] : [axis, m.y - 12];
        const crosses = m.x > b.x && m.x < b.x + b.w && top < b.y + b.h && bottom > b.y;
        assert.ok(!crosses, `${m.id}'s line crosses ${b.id}'s words`);
      }
    // One scale for marks and bars: 120 s of bar is 120 s of axis.
    const px = (ms) => ms * ((width - 12) / (L.to - L.from));
    assert.ok(Math.abs(bars[0].len - px(120000)) < 0.01);
    assert.ok(
      bars.every((b) => 6 + b.len <= width),
      "the bars fit",
    );
    assert.ok(marks[0].x < marks[1].x && marks[2].x < marks[3].x, "in time order");
  });
}
