// Runs in a fresh project that installed the packed tarball: import, run a scenario, check;
// then the package's other entry points (`/wasm`, `/package.json`).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import init, { Simulation } from "rocketmq-nameserver";
import manifest from "rocketmq-nameserver/package.json" with { type: "json" };

await init();
const sim = Simulation.builtIn("S3");
sim.seek(70_000);
const [m] = sim.view().measurements;
if (m.action !== "shutdown broker-b" || !m.nsRemoval.every(([, at]) => at !== null && at < 50_100)) {
  console.error("unexpected measurement", m);
  process.exit(1);
}
const wasm = readFileSync(fileURLToPath(import.meta.resolve("rocketmq-nameserver/wasm")));
if (
  !WebAssembly.validate(wasm) ||
  manifest.name !== "rocketmq-nameserver" ||
  !manifest.bin["rocketmq-nameserver-playground"]
) {
  console.error("rocketmq-nameserver/wasm or rocketmq-nameserver/package.json is wrong");
  process.exit(1);
}
console.log(
  `ok: S3 in the installed package, trace ${sim.traceHash()}, removals ${JSON.stringify(m.nsRemoval)}; /wasm ${wasm.length} bytes, ${manifest.name}@${manifest.version}`,
);
