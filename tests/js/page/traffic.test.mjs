// The traffic layer (www/diagram/traffic.js): while playing, every message the model sent is
// drawn on its link for at least 0.7 s of wall time, a reply after the request it answers, and
// messages that pile up on one link ride together as a counted bundle.
import { test } from "node:test";
import assert from "node:assert/strict";

import { Traffic } from "../../../www/diagram/traffic.js";

let seq = 0;
const send = (from, to, sentAt, arriveAt, extra = {}) => ({
  id: ++seq,
  from,
  to,
  sentAt,
  arriveAt,
  category: "register",
  response: false,
  type: "REGISTER_BROKER",
  ...extra,
});

// Steps the layer every 16 ms of wall time from `t0` to `t1`: token id → [first, last] drawn.
function watch(traffic, t0, t1) {
  const seen = new Map();
  for (let now = t0; now <= t1; now += 16) {
    for (const k of traffic.step(now).tokens) {
      const span = seen.get(k.id);
      if (span) span[1] = now;
      else seen.set(k.id, [now, now]);
    }
  }
  return seen;
}

test("each message is drawn for at least 0.7 s of wall time, at every speed", () => {
  for (const speed of [1, 10, 60, 300, 3000]) {
    const traffic = new Traffic();
    // 2 ms on the wire: 2 µs of wall time at 1000×, were it drawn as it happened.
    traffic.feed([send("broker-a", "NS-1", 1000, 1002), send("broker-b", "NS-2", 1000, 1001)], 0, speed);
    assert.equal(traffic.tokens.length, 2);
    for (const k of traffic.tokens) assert.ok(k.dur >= 700, `speed ${speed}: ${k.dur} ms`);
    const seen = watch(traffic, 0, 10_000);
    for (const [id, [first, last]] of seen)
      assert.ok(last - first >= 700 - 16, `speed ${speed}, token ${id}: ${first}–${last}`);
    assert.equal(traffic.busy, false, "and then nothing moves");
  }
});

test("a reply is drawn leaving only after its request is drawn arriving", () => {
  const traffic = new Traffic();
  const request = send("C1", "NS-1", 1000, 1001, { category: "route", type: "GET_ROUTEINFO_BY_TOPIC" });
  traffic.feed([request], 0, 1);
  // The reply is sent 1 ms after the request arrived; the page learns of it a frame later.
  const reply = send("NS-1", "C1", 1002, 1003, { category: "route", response: true, type: "GET_ROUTEINFO_BY_TOPIC" });
  traffic.feed([reply], 16, 1);
  const [req, rep] = traffic.tokens;
  assert.equal(rep.from, "NS-1");
  assert.ok(
    rep.start >= req.start + req.dur,
    `reply starts at ${rep.start}, request arrives at ${req.start + req.dur}`,
  );
  // And on screen: the reply's first frame comes after the request's last.
  const seen = watch(traffic, 16, 5000);
  assert.ok(seen.get(rep.id)[0] > seen.get(req.id)[1]);
});

test("messages piling up on one link ride as a counted bundle, each link on its own", () => {
  const KINDS = ["register", "heartbeat", "route", "unregister", "kv"];
  for (const [speed, most] of [
    [1, 3],
    [300, 1],
  ]) {
    const traffic = new Traffic();
    const many = [];
    for (let i = 0; i < 50; i++) many.push(send("broker-a", "NS-1", 1000 + i, 1001 + i, { category: KINDS[i % 5] }));
    traffic.feed([...many, send("broker-b", "NS-1", 1000, 1001)], 0, speed);
    const onA = traffic.tokens.filter((k) => k.link === "broker-a>NS-1");
    const onB = traffic.tokens.filter((k) => k.link === "broker-b>NS-1");
    assert.ok(onA.length >= 1 && onA.length <= most, `speed ${speed}: ${onA.length} tokens for 50 messages`);
    assert.equal(
      onA.reduce((n, k) => n + k.count, 0),
      50,
      "every message is in a bundle",
    );
    assert.deepEqual(
      onB.map((k) => k.count),
      [1],
      "another link keeps its own token",
    );
  }
});
