// The bindings the teaching page adds on top of the package API: links, fault isolations,
// the decoded frame of a message in flight, and a consumer's queues and offsets.
import { test } from "node:test";
import assert from "node:assert/strict";

import init, { Simulation } from "rocketmq-nameserver";

await init();

test("links: cut and reset links are listed, healed ones are not", () => {
  const sim = Simulation.builtIn("S7");
  sim.seek(80_000);
  assert.deepEqual(sim.links(), [{ a: "NS-2", b: "broker-b", state: "cut" }]);
  sim.seek(310_000);
  assert.deepEqual(sim.links(), []);
  sim.free();
});

test("consumerView: C1 leaves broker-b's queues in S7, then resumes them at the committed offsets", () => {
  const sim = Simulation.builtIn("S7");
  sim.seek(250_000);
  let v = sim.consumerView("C1");
  assert.equal(v.group, "CG1");
  assert.equal(v.running, true);
  assert.deepEqual([...new Set(v.queues.map((q) => q.broker))], ["broker-a"]);
  sim.seek(340_000);
  v = sim.consumerView("C1");
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
  v = sim.consumerView("C1");
  assert.equal(v.running, false);
  assert.deepEqual(v.queues, []);
  assert.throws(() => sim.consumerView("P1"), /not a consumer/);
  sim.free();
});

test("isolations: sendLatencyFaultEnable keeps broker-b out for 600 s in 4.9", () => {
  const sim = Simulation.builtIn("S6-fault-4.9");
  sim.seek(90_000);
  const b = sim.isolations().find((i) => i.broker === "broker-b");
  assert.equal(b.producer, "P1");
  assert.ok(b.until > 600_000 + 75_000 && b.until < 700_000, String(b.until));
  sim.free();
});

test("flightFrame: the real frame of a registration, with the topics it carries", () => {
  const sim = Simulation.builtIn("S1");
  sim.seek(11_000);
  const f = sim.flights().find((x) => x.category === "register" && !x.response);
  const frame = sim.flightFrame(f.id);
  assert.equal(frame.codeName, "REGISTER_BROKER");
  assert.equal(frame.extFields.brokerName, "broker-a");
  assert.ok(Object.keys(JSON.parse(frame.bodyText).topicConfigSerializeWrapper.topicConfigTable).includes("TopicTest"));
  assert.equal(sim.flightFrame(999_999), undefined);
  sim.free();
});
