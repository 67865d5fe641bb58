// The npm package as users import it, in Node: run with `node --test tests/js/` after
// `scripts/build-wasm.sh`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import init, { Simulation, NameServer, decodeFrame, encodeFrame, builtInScenarios } from "rocketmq-nameserver";

await init();

const golden = readFileSync(new URL("../../wasm/tests/golden-hashes.txt", import.meta.url), "utf8")
  .split("\n")
  .filter((l) => l.trim() && !l.startsWith("#"))
  .map((l) => l.split(/\s+/));

const vectors = readFileSync(new URL("../../core/tests/testdata/real-client-requests.jsonl", import.meta.url), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l));
const hex = (s) => Uint8Array.from(s.match(/../g).map((b) => parseInt(b, 16)));

test("the built-in scenarios are listed with their text", () => {
  const list = builtInScenarios();
  const ids = list.map((s) => s.id);
  for (const id of ["S1", "S2", "S3", "S4", "S5", "S6", "S7", "S8", "S9", "S10"]) assert.ok(ids.includes(id), id);
  assert.match(list[0].text, /nameserver NS-1/);
});

test("the golden hashes are the same in Node as natively", () => {
  assert.ok(golden.length > 0);
  for (const [id, ms, trace, state] of golden) {
    const sim = Simulation.builtIn(id);
    sim.seek(Number(ms));
    assert.equal(sim.traceHash(), trace, `${id}@${ms} trace`);
    assert.equal(sim.stateHash(), state, `${id}@${ms} state`);
    sim.free();
  }
});

test("S4: kill -9 reaches both NameServers within milliseconds", () => {
  const sim = Simulation.builtIn("S4");
  sim.seek(70_000);
  const view = sim.view();
  const [m] = view.measurements;
  assert.equal(m.action, "kill broker-b");
  for (const [ns, at] of m.nsRemoval) assert.ok(at >= 50_000 && at <= 50_010, `${ns} removed at ${at}`);
  const p1 = m.clientUpdate.find(([c]) => c === "P1");
  assert.ok(p1[1] > 64_000 && p1[1] < 64_100, `P1 updated at ${p1[1]}`);
  const tables = view.ns["NS-1"];
  assert.ok(!tables.brokers.some((b) => b.brokerName === "broker-b"));
  assert.ok(!("broker-b" in tables.brokerAddrTable));
  assert.equal(view.routes["NS-1"].TopicTest.brokerDatas.length, 1);
});

test("one view: nodes, flights, client routes, and the trace since a cursor", () => {
  const sim = Simulation.builtIn("S1");
  // broker-a's 11 s registrations are on the wire (they arrive 1–3 ms later).
  sim.seek(11_000);
  const first = sim.view();
  const nodes = first.nodes;
  assert.equal(nodes.find((n) => n.name === "NS-2").state, "up");
  assert.ok(nodes.find((n) => n.name === "broker-a").timers.some((t) => t.label.includes("register")));
  const flights = first.flights;
  assert.ok(
    flights.some((f) => f.category === "register" && f.from === "broker-a"),
    JSON.stringify(flights),
  );
  sim.seek(40_000);
  const next = sim.view(first.delta.cursor);
  const p1 = next.clients.P1;
  assert.equal(p1.boundTo, "NS-1");
  assert.equal(p1.route.queueDatas.length, 2);
  assert.equal(first.delta.reset, true);
  assert.equal(first.delta.trace[0].text.startsWith("The Name Server boot success"), true);
  assert.equal(next.delta.reset, false);
  assert.equal(next.delta.traceFrom, first.delta.trace.length);
  assert.ok(next.delta.trace.length > 0 && next.delta.wire.length > 0);
});

test("time machine: step, step back, fork without losing the original", () => {
  const sim = Simulation.builtIn("S1");
  sim.seek(20_000);
  const before = sim.stateHash();
  const lines = sim.step();
  assert.ok(lines.length >= 1);
  sim.stepBack();
  assert.equal(sim.stateHash(), before);
  sim.seek(60_000);
  const original60 = sim.stateHash();
  sim.seek(30_000);
  sim.inject("kill broker-b");
  assert.equal(sim.view().branches.length, 2);
  sim.seek(60_000);
  assert.notEqual(sim.stateHash(), original60);
  sim.selectBranch(0);
  sim.seek(60_000);
  assert.equal(sim.stateHash(), original60);
});

test("bad input throws Errors that say what is wrong", () => {
  assert.throws(() => new Simulation("nameserver A; frobnicate"), /statement 2.*frobnicate/);
  assert.throws(() => Simulation.builtIn("S99"), /no built-in scenario/);
  const sim = Simulation.builtIn("S1");
  assert.throws(() => sim.inject("kill nobody"), /nobody/);
  assert.throws(() => sim.seek(-5), /non-negative/);
  assert.throws(() => sim.view("later"), /bad cursor/);
  assert.throws(() => encodeFrame({ code: 105, language: "COBOL" }), /unknown language/);
  assert.throws(() => encodeFrame({ nope: 1 }), /bad frame object/);
  assert.throws(() => decodeFrame(Uint8Array.from([0, 0, 0, 6, 9, 0, 0, 2, 123, 125])), /serialize type/);
});

test("codec helpers round-trip and read real frames", () => {
  const frame = encodeFrame({ code: 105, opaque: 7, version: 479, extFields: { topic: "TopicTest" } });
  const header = new TextDecoder().decode(frame.slice(8));
  assert.equal(
    header,
    '{"code":105,"extFields":{"topic":"TopicTest"},"flag":0,"language":"JAVA","opaque":7,"serializeTypeCurrentRPC":"JSON","version":479}',
  );
  const back = decodeFrame(frame);
  assert.equal(back.codeName, "GET_ROUTEINFO_BY_TOPIC");
  assert.equal(back.length, frame.length);
  assert.equal(decodeFrame(frame.slice(0, 10)), undefined);
  const ons = vectors.find((v) => v.sender.includes("ali-ons"));
  assert.equal(decodeFrame(hex(ons.frame_hex)).version, 121);
});

test("the real NameServer answers real frames fed from JavaScript", () => {
  const ns = new NameServer(0);
  ns.connect(1, "127.0.0.1:50000", 1);
  const register = vectors.find((v) => v.code === 103);
  assert.equal(ns.receive(1, hex(register.frame_hex), 2), register.frame_hex.length / 2);
  const outputs = [];
  for (let o = ns.pollOutput(); o !== undefined; o = ns.pollOutput()) outputs.push(o);
  const reply = outputs.find((o) => o.type === "send");
  assert.equal(reply.command.code, 0);
  const registered = outputs.find((o) => o.type === "event" && o.text.startsWith("new broker registered"));
  assert.deepEqual(
    [registered.kind, registered.category, registered.level],
    ["broker-registered", "registered", "info"],
  );
  ns.connect(2, "127.0.0.1:50001", 3);
  ns.receive(2, encodeFrame({ code: 105, opaque: 9, version: 479, extFields: { topic: "TBW102" } }), 4);
  const route = ns.pollOutput();
  assert.equal(route.command.opaque, 9);
  assert.equal(route.command.code, 0);
  assert.equal(JSON.parse(route.command.bodyText).brokerDatas[0].brokerName, "broker-a");
  // Its tables in the JSON of the daemon's /api/view; the driver keeps the channels.
  const [row] = ns.tables().brokers;
  assert.deepEqual([row.brokerName, row.brokerId, row.idleCloseAt], ["broker-a", 0, null]);
  ns.receive(2, encodeFrame({ code: 105, opaque: 10, extFields: { topic: "Nope" } }), 5);
  assert.equal(ns.pollOutput().command.code, 17);
  assert.throws(() => ns.tick(1), /backwards/);
  ns.disconnect(1, 6);
  assert.equal(ns.route("TBW102"), null);
});
