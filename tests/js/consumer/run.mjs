// Runs in a fresh project that installed the packed tarball: import, run a scenario, check.
import init, { Simulation } from "rocketmq-nameserver";

await init();
const sim = Simulation.builtIn("S3");
sim.seek(70_000);
const [m] = sim.measurements();
if (m.action !== "shutdown broker-b" || !m.nsRemoval.every(([, at]) => at !== null && at < 50_100)) {
  console.error("unexpected measurement", m);
  process.exit(1);
}
console.log(`ok: S3 in the installed package, trace ${sim.traceHash()}, removals ${JSON.stringify(m.nsRemoval)}`);
