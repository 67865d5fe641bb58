// The hold as the page's playback carries it out (www/app/playback.js with a real store and
// traffic layer, the diagram and view stubbed): the answer holding a lesson step's event waits
// until its subject has been drawn arriving, then the clock stops on the event; a subject
// never sent (bad lesson data) warns and stops on the event at once, as before.
import { test } from "node:test";
import assert from "node:assert/strict";

import { Playback } from "../../../www/app/playback.js";
import { createStore } from "../../../www/app/store.js";
import { Traffic } from "../../../www/diagram/traffic.js";
import { MIN_FRAMES } from "../../../www/lessons/hold.js";

const REG = {
  id: 1,
  from: "broker-a",
  to: "NS-1",
  sentAt: 1000,
  arriveAt: 1003,
  category: "register",
  response: false,
  type: "REGISTER_BROKER",
  lost: false,
};
const HIT = { at: 1003, node: "NS-1", kind: "registered", text: "new broker registered" };
const SUBJECT = { kind: "REGISTER_BROKER", from: "broker-a", to: "NS-1", event: "registered" };

const snap = (time, wire = []) => ({ time, wire, flights: [], trace: [], traceFrom: 0, sends: [], sendsFrom: 0 });

function page(subject) {
  const store = createStore();
  const diagram = {
    traffic: new Traffic(),
    pinned: null,
    feed() {},
    stopTraffic() {
      this.traffic.reset();
    },
    unpin() {
      this.pinned = null;
    },
    pin(k) {
      this.pinned = k;
      this.traffic.reset();
    },
    holdSubject(m, now) {
      return this.traffic.hold(m, now);
    },
    animate(now) {
      this.traffic.step(now);
    },
  };
  const quiet = { render() {}, timed() {}, setMeta() {}, reducedMotion: false, say() {}, flushNow() {} };
  const loop = { start() {}, stop() {} };
  const playback = new Playback(store, {}, { view: quiet, diagram, announcer: quiet }, loop, {});
  store.dispatch({ type: "answer", answer: { snap: snap(0), meta: {} }, fresh: true });
  const gate = { node: "NS-1", kinds: ["registered"] };
  store.dispatch({ type: "lesson", id: "S1", step: 1, gate, gateAt: null, focus: undefined, subject, run: 1 });
  const hits = [];
  store.subscribe((state, action) => action.type === "gateHit" && hits.push(action.hit));
  return { store, playback, diagram, hits };
}

test("the event's answer waits for its subject to be drawn arriving, then the clock stops on it", () => {
  const { store, playback, diagram, hits } = page(SUBJECT);
  playback.apply({ snap: snap(1003, [REG]), gateHit: HIT }, false, null);
  assert.equal(hits.length, 0, "no event before the subject is drawn");
  assert.equal(store.state.view.snap.time, 0, "the picture keeps the time before the event");
  let frames = 0;
  for (let now = performance.now(); playback.holding; now += 16) {
    playback.frame(now);
    frames++;
    assert.ok(frames < 500);
  }
  assert.ok(frames > MIN_FRAMES, `${frames} frames`);
  assert.deepEqual(hits, [HIT]);
  assert.equal(store.state.view.snap.time, 1003, "applied on the arrival frame");
  assert.equal(diagram.pinned && diagram.pinned.first, REG, "paused, the subject stays where it arrived");
});

test("a subject never sent warns, naming the step, and the clock stops on the event at once", (t) => {
  const warn = t.mock.method(console, "warn", () => {});
  const { store, playback, hits } = page({ ...SUBJECT, to: "NS-2" });
  playback.apply({ snap: snap(1003, [REG]), gateHit: HIT }, false, null);
  assert.deepEqual(hits, [HIT]);
  assert.equal(store.state.view.snap.time, 1003);
  assert.equal(warn.mock.callCount(), 1);
  assert.match(
    warn.mock.calls[0].arguments[0],
    /lesson S1 step 2: its subject \(REGISTER_BROKER broker-a → NS-2\) was never sent/,
  );
});

test("a step without a subject (gated on a time, a timer or a fault) is not held", () => {
  const { store, playback, hits } = page(null);
  playback.apply({ snap: snap(1003, [REG]), gateHit: HIT }, false, null);
  assert.deepEqual(hits, [HIT]);
  assert.ok(!playback.holding);
  assert.equal(store.state.view.snap.time, 1003);
});
