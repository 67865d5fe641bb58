// Writes views.ts: what the installed package really returns (every built-in's view at a few
// times, deltas, scenario views, decoded frames, a NameServer's outputs and tables), each as an
// object literal typed with the package's declarations. tsc then holds the generated types to
// the real JSON: a missing or extra key, a null where none is declared or a string outside a
// union fails (object literals get excess-property checks).
import { writeFileSync } from "node:fs";
import init, { Simulation, NameServer, builtInScenarios, decodeFrame, encodeFrame } from "rocketmq-nameserver";

await init();
const out = ['import type * as T from "rocketmq-nameserver";'];
let n = 0;
// An array keeps only elements of a kind not seen before anywhere in the file (numbers and
// long strings aside), so tsc checks every shape and every union member that occurred without
// reading thousands of alike trace lines. Bytes are Uint8Arrays, which JSON cannot write: they
// become `new Uint8Array([…])`.
const seen = new Set();
const kind = (v) =>
  JSON.stringify(v, (_, x) => (typeof x === "number" ? 0 : typeof x === "string" && x.length > 24 ? "" : x));
const literal = (value) =>
  JSON.stringify(value, (_, v) => {
    if (v instanceof Uint8Array) return `\u0000${Array.from(v).join(",")}`;
    if (!Array.isArray(v)) return v;
    return v.filter(
      (x) => typeof x !== "object" || x === null || Array.isArray(x) || (!seen.has(kind(x)) && seen.add(kind(x))),
    );
  }).replace(/"\\u0000([0-9,]*)"/g, "new Uint8Array([$1])");
const add = (type, value) => out.push(`export const v${n++}: ${type} = ${literal(value)};`);

add("T.BuiltInScenario[]", builtInScenarios());
for (const { id } of builtInScenarios()) {
  const sim = Simulation.builtIn(id);
  add("T.ScenarioView", sim.scenarioView());
  let cursor = null;
  for (const at of [0, 40_000, 75_000, 150_000]) {
    sim.seek(at);
    const view = sim.view(cursor);
    // The first view's delta holds the whole trace; later ones only what is new.
    add("T.ClusterView", view);
    cursor = view.delta.cursor;
  }
  const flight = sim.view(null).flights[0];
  if (flight) add("T.DecodedFrame | undefined", sim.flightFrame(flight.id));
}
const fork = Simulation.builtIn("S1");
fork.seek(60_000);
fork.inject("cut broker-a NS-1");
fork.seek(90_000);
fork.inject("kill broker-a");
fork.seek(30_000);
add("T.InjectedAction[]", fork.laterInjected());
fork.fork(true);
fork.seek(95_000);
add("T.ClusterView", fork.view(null));

const ns = new NameServer(0, "scanNotActiveBrokerInterval=5000", undefined);
ns.connect(1, "127.0.0.1:1", 1);
ns.receive(1, encodeFrame({ code: 105, extFields: { topic: "T" } }), 2);
ns.receive(1, encodeFrame({ code: 100, extFields: { namespace: "n", key: "k", value: "v" } }), 3);
for (let o = ns.pollOutput(); o !== undefined; o = ns.pollOutput()) add("T.NameServerOutput", o);
add("T.NsTables", ns.tables());
add("T.DecodedFrame | undefined", decodeFrame(encodeFrame({ code: 105, remark: "r", body: "{}" })));

writeFileSync("views.ts", out.join("\n") + "\n");
console.log(`views.ts: ${n} values from the installed package, ${out.join("").length} bytes`);
