// The page's render loop (www/app/loop.js): frames run while the frame function wants more and
// stop when it does not, or when stopped.
import { test } from "node:test";
import assert from "node:assert/strict";

import { Loop } from "../../../www/app/loop.js";

// A frame scheduler the test runs by hand: `run()` calls the frames asked for so far.
function scheduler() {
  let queue = new Map();
  let next = 1;
  let now = 0;
  return {
    request: (fn) => (queue.set(next, fn), next++),
    cancel: (id) => queue.delete(id),
    get waiting() {
      return queue.size;
    },
    run() {
      const due = queue;
      queue = new Map();
      now += 16;
      for (const fn of due.values()) fn(now);
    },
  };
}

test("runs while the frame wants more, then asks for no frame at all", () => {
  const s = scheduler();
  let left = 3;
  const loop = new Loop(() => --left > 0, s);
  loop.start();
  loop.start(); // a running loop is left as it is
  assert.equal(s.waiting, 1);
  for (let i = 0; i < 5; i++) s.run();
  assert.equal(loop.frames, 3);
  assert.equal(loop.running, false);
  assert.equal(s.waiting, 0);
});

test("stop cancels the frame asked for (a paused page draws nothing)", () => {
  const s = scheduler();
  const loop = new Loop(() => true, s);
  loop.start();
  s.run();
  s.run();
  loop.stop();
  assert.equal(s.waiting, 0);
  s.run();
  assert.equal(loop.frames, 2);
  loop.start();
  s.run();
  assert.equal(loop.frames, 3);
});

test("a frame that stops the loop itself is not followed by another", () => {
  const s = scheduler();
  const loop = new Loop(() => (loop.stop(), true), s);
  loop.start();
  s.run();
  assert.equal(s.waiting, 0);
});
