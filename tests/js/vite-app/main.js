// A browser app built by a bundler (vite) against the installed package: the default entry
// must find its .wasm through the bundler, and `rocketmq-nameserver/wasm` must resolve to it.
// scripts/test-package.sh builds this and tests/js/consumer/bundle.mjs loads the output.
import init, { Simulation, builtInScenarios } from "rocketmq-nameserver";
import wasmUrl from "rocketmq-nameserver/wasm?url";

async function main() {
  await init();
  const sim = Simulation.builtIn("S3");
  sim.seek(70_000);
  const [m] = sim.view().measurements;
  const wasm = await fetch(wasmUrl).then((r) => r.arrayBuffer());
  return {
    scenarios: builtInScenarios().map((s) => s.id),
    action: m.action,
    nsRemoval: m.nsRemoval,
    traceHash: sim.traceHash(),
    wasmExportValid: WebAssembly.validate(wasm),
  };
}

main().then(
  (result) => (document.body.dataset.result = JSON.stringify(result)),
  (error) => (document.body.dataset.error = String(error?.stack || error)),
);
