#!/usr/bin/env node
// One simulated hour of S1 through the npm package in Node: the WebAssembly module the page and
// the package's users run, driven as they drive it (`Simulation.builtIn("S1")`, then `seek` to
// 3,600,000 ms, checkpoints included). A benchmark of the machine, not a test. scripts/bench.sh
// runs it in its full run; BENCHMARKS.md, "The simulated hour", records it beside the native
// `hour` example. Needs pkg/ (scripts/build-wasm.sh).
//   node scripts/bench-hour.mjs [RUNS] [--json FILE]    RUNS defaults to 20
// Prints the fastest and the median run in ms, with each run's events as a check.
import { writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { Simulation } from "rocketmq-nameserver";

const HOUR_MS = 3_600_000;
const args = process.argv.slice(2);
const jsonAt = args.indexOf("--json");
const JSON_OUT = jsonAt >= 0 ? args[jsonAt + 1] : null;
const runsArg = args.find((a, i) => /^\d+$/.test(a) && i !== jsonAt + 1);
const RUNS = Math.max(1, Number(runsArg || 20));

const times = [];
let hash = null;
for (let i = 0; i < RUNS; i++) {
  const start = performance.now();
  const sim = Simulation.builtIn("S1");
  sim.seek(HOUR_MS);
  times.push(performance.now() - start);
  // Every run must reach the same state, or it did not run the same hour.
  const h = sim.stateHash();
  if (hash !== null && h !== hash) throw new Error(`run ${i + 1} reached state ${h}, not ${hash}`);
  hash = h;
  sim.free();
}
const sorted = times.slice().sort((a, b) => a - b);
const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
const result = { runs: RUNS, fastest_ms: sorted[0], median_ms: median, state_hash: hash, node: process.version };
console.log(
  `one simulated hour of S1 in wasm (npm package, Node ${process.version}): fastest of ${RUNS} ${sorted[0].toFixed(1)} ms, median ${median.toFixed(1)} ms`,
);
if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify(result) + "\n");
