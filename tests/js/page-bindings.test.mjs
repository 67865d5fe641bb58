// The bindings the teaching page adds on top of the package API: links, fault isolations, the
// decoded frame of a message in flight, the wire log, timers and removal clocks, forks, and a
// consumer's queues and offsets.
import { test } from "node:test";
import assert from "node:assert/strict";

import init, { Simulation, builtInScenarios } from "rocketmq-nameserver";

await init();

test("links: cut and reset links are listed, healed ones are not", () => {
  const sim = Simulation.builtIn("S7");
  sim.seek(80_000);
  assert.deepEqual(sim.view().links, [{ a: "NS-2", b: "broker-b", state: "cut" }]);
  sim.seek(310_000);
  assert.deepEqual(sim.view().links, []);
  sim.free();
});

test("consumers: C1 leaves broker-b's queues in S7, then resumes them at the committed offsets", () => {
  const sim = Simulation.builtIn("S7");
  sim.seek(250_000);
  let v = sim.view().consumers.C1;
  assert.equal(v.group, "CG1");
  assert.equal(v.running, true);
  assert.deepEqual([...new Set(v.queues.map((q) => q.broker))], ["broker-a"]);
  sim.seek(340_000);
  v = sim.view().consumers.C1;
  const b = v.queues.filter((q) => q.broker === "broker-b");
  assert.equal(b.length, 4);
  for (const q of b) {
    assert.equal(q.from, "committed");
    assert.equal(q.nextOffset, q.maxOffset);
    assert.equal(q.pullingFrom, "broker-b");
    assert.ok(q.committedOffset > 0);
  }
  assert.equal(v.duplicates, 0);
  assert.ok(v.consumed > 200);
  sim.inject("kill C1");
  v = sim.view().consumers.C1;
  assert.equal(v.running, false);
  assert.deepEqual(v.queues, []);
  assert.equal(sim.view().consumers.P1, undefined, "P1 is not a consumer");
  sim.free();
});

test("isolations: sendLatencyFaultEnable keeps broker-b out for 600 s in 4.9", () => {
  const sim = Simulation.builtIn("S6-fault-4.9");
  sim.seek(90_000);
  const b = sim.view().isolations.find((i) => i.broker === "broker-b");
  assert.equal(b.producer, "P1");
  assert.ok(b.until > 600_000 + 75_000 && b.until < 700_000, String(b.until));
  sim.free();
});

test("flightFrame: the real frame of a registration, with the topics it carries", () => {
  const sim = Simulation.builtIn("S1");
  sim.seek(11_000);
  const f = sim.view().flights.find((x) => x.category === "register" && !x.response);
  const frame = sim.flightFrame(f.id);
  assert.equal(frame.codeName, "REGISTER_BROKER");
  assert.equal(frame.extFields.brokerName, "broker-a");
  assert.ok(Object.keys(JSON.parse(frame.bodyText).topicConfigSerializeWrapper.topicConfigTable).includes("TopicTest"));
  assert.equal(sim.flightFrame(999_999), undefined);
  sim.free();
});

test("wire: every message since the last view, with losses across a cut link", () => {
  const sim = Simulation.builtIn("S7");
  sim.seek(74_000);
  const cursor = sim.view().delta.cursor;
  sim.seek(110_000);
  const delta = sim.view(cursor).delta;
  const since = delta.wire;
  assert.equal(since.length, delta.cursor.wire - cursor.wire);
  assert.ok(since.every((m) => m.sentAt >= 74_000));
  const lost = since.filter((m) => m.lost);
  assert.ok(lost.length > 0 && lost.every((m) => m.id === null && [m.from, m.to].sort().join() === "NS-2,broker-b"));
  const reg = since.find((m) => m.type === "REGISTER_BROKER" && m.response && !m.lost);
  assert.deepEqual(Object.keys(reg).sort(), [
    "arriveAt",
    "category",
    "from",
    "id",
    "lost",
    "response",
    "sentAt",
    "to",
    "type",
  ]);
  assert.equal(reg.category, "register");
  sim.free();
});

test("timers and removal clocks: kinds, the model's periods, and when NS-1 drops broker-b", () => {
  const sim = Simulation.builtIn("S5");
  sim.seek(190_000);
  const ns1 = sim.view().nodes.find((n) => n.name === "NS-1");
  assert.equal(ns1.timers.find((t) => t.kind === "scan").periodMs, 10_000);
  const idle = ns1.timers.find((t) => t.kind === "idle-close" && t.peer === "broker-b");
  const row = sim.view().ns["NS-1"].brokers.find((r) => r.brokerName === "broker-b");
  assert.equal(row.removalBy, "idle");
  assert.equal(row.removalAt, idle.at);
  const cursor = sim.view().delta.cursor;
  sim.seek(200_000);
  const removed = sim.view(cursor).delta.trace.find((e) => e.node === "NS-1" && e.kind === "unregistered");
  assert.equal(removed.at, row.removalAt);
  sim.free();
});

test("forks: later injections are dropped unless kept", () => {
  const sim = Simulation.builtIn("S1");
  sim.seek(50_000);
  sim.inject("kill broker-b");
  sim.seek(40_000);
  assert.deepEqual(sim.laterInjected(), [{ at: 50_000, action: "kill broker-b" }]);
  sim.inject("freeze broker-b");
  const fork = sim.view().branches.find((b) => b.current);
  assert.equal(fork.dropped, 1);
  assert.ok(!sim.scenarioText().includes("kill"));
  sim.selectBranch(0);
  sim.seek(40_000);
  sim.fork(true);
  assert.equal(sim.view().branches.find((b) => b.current).kept, 1);
  assert.match(sim.scenarioText(), /at 50 kill broker-b/);
  sim.free();
});

// The page reads periods from scenarioView() and the views; a page that typed 120 s in would
// disagree with a scenario whose NameServers close idle connections after 60 s.
test("scenarioView: serverChannelMaxIdleTimeSeconds sets the idle close the timers, clocks and removal follow", () => {
  const s5 = builtInScenarios().find((s) => s.id === "S5").text;
  const sim = new Simulation(`${s5}\nnamesrv serverChannelMaxIdleTimeSeconds 60`);
  const v = sim.scenarioView();
  assert.deepEqual(v.namesrv, { serverChannelMaxIdleTimeSeconds: "60" });
  assert.deepEqual(v.timings, {
    scanIntervalMs: 10_000,
    idleCloseMs: 60_000,
    brokerTimeoutMs: 120_000,
    registerPeriodMs: 30_000,
    routePollPeriodMs: 30_000,
    isolationMs: 600_000,
  });
  assert.deepEqual(v.script, [{ at: 75_000, action: "freeze broker-b", target: "broker-b" }]);
  assert.deepEqual(v.topics, ["TopicTest"]);
  const p1 = v.nodes.find((n) => n.name === "P1");
  assert.deepEqual([p1.role, p1.ns, p1.topic, p1.everyMs], ["producer", "NS-1", "TopicTest", 1000]);
  assert.match(sim.scenarioText(), /^namesrv serverChannelMaxIdleTimeSeconds 60$/m);

  sim.seek(80_000);
  const ns1 = sim.view().nodes.find((n) => n.name === "NS-1");
  const idle = ns1.timers.filter((t) => t.kind === "idle-close");
  assert.ok(idle.length >= 4, "one idle-close timer per connection");
  for (const t of idle) assert.equal(t.periodMs, 60_000);
  const row = sim.view().ns["NS-1"].brokers.find((r) => r.brokerName === "broker-b");
  assert.equal(row.removalBy, "idle");
  assert.equal(row.removalAt, row.idleCloseAt);
  // The channel last carried broker-b's 72 s registration (answered within a few ms).
  assert.ok(row.idleCloseAt >= 132_000 && row.idleCloseAt <= 132_010, String(row.idleCloseAt));
  const closeAt = idle.find((t) => t.peer === "broker-b").at;
  assert.equal(closeAt, row.idleCloseAt);

  sim.seek(row.removalAt + 1);
  const lines = sim.view().delta.trace.filter((l) => l.node === "NS-1" && l.at === row.removalAt);
  assert.ok(
    lines.some((l) => l.kind === "channel-idle"),
    "the idle close fires at the clock's time",
  );
  assert.ok(
    lines.some((l) => l.kind === "unregistered" && l.text.includes("10.0.1.3:10911")),
    "and removes broker-b",
  );
  assert.equal(
    sim.view().ns["NS-1"].brokers.some((r) => r.brokerName === "broker-b"),
    false,
  );
  sim.free();

  const plain = Simulation.builtIn("S5");
  assert.equal(plain.scenarioView().timings.idleCloseMs, 120_000);
  plain.free();
  const off = new Simulation(`${s5}\nidle off`);
  assert.equal(off.scenarioView().timings.idleCloseMs, null);
  off.free();
  assert.throws(
    () => new Simulation(`${s5}\nnamesrv serverChannelMaxIdleTime 60`),
    /not a NameServer configuration key/,
  );
});
