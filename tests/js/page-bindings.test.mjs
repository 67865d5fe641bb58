// The bindings the teaching page adds on top of the package API: links, fault isolations and
// the decoded frame of a message in flight.
import { test } from "node:test";
import assert from "node:assert/strict";

import init, { Simulation } from "rocketmq-nameserver";

await init();

test("links: cut and reset links are listed, healed ones are not", () => {
  const sim = Simulation.builtIn("S7");
  sim.seek(80_000);
  assert.deepEqual(sim.links(), [{ a: "NS-2", b: "broker-b", state: "cut" }]);
  sim.seek(260_000);
  assert.deepEqual(sim.links(), []);
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
