// Runs in the fresh project of scripts/test-package.sh, after vite built tests/js/vite-app
// against the installed tarball: serves the bundle, loads it in headless Chromium (the browser
// tests' launcher) and checks that it ran the simulation exactly as the package does in Node.
// Usage: REPO_ROOT=… node bundle.mjs DIST_DIR
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import init, { Simulation, builtInScenarios } from "rocketmq-nameserver";

const lib = (p) => import(pathToFileURL(resolve(process.env.REPO_ROOT, "tests/browser/lib", p)).href);
const { serve } = await lib("server.mjs");
const { launch } = await lib("browser.mjs");

const dist = resolve(process.argv[2]);
const server = await serve(dist);
process.env.BASE_URL = `http://127.0.0.1:${server.address().port}`;
const b = await launch();
try {
  const page = await b.browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await page.goto(`${b.base}/index.html`);
  await page.waitForFunction(() => document.body.dataset.result || document.body.dataset.error, null, {
    timeout: 30000,
  });
  const error = await page.evaluate(() => document.body.dataset.error);
  assert.equal(error, undefined, `the bundled app failed: ${error}`);
  const inBrowser = JSON.parse(await page.evaluate(() => document.body.dataset.result));
  assert.deepEqual(errors, []);

  await init();
  const sim = Simulation.builtIn("S3");
  sim.seek(70_000);
  const [m] = sim.view().measurements;
  assert.equal(inBrowser.wasmExportValid, true, "rocketmq-nameserver/wasm resolves to the module");
  assert.deepEqual(
    inBrowser.scenarios,
    builtInScenarios().map((s) => s.id),
  );
  assert.equal(inBrowser.action, "shutdown broker-b");
  assert.ok(
    inBrowser.nsRemoval.every(([, at]) => at !== null && at < 50_100),
    JSON.stringify(inBrowser.nsRemoval),
  );
  assert.deepEqual(inBrowser.nsRemoval, m.nsRemoval, "the same removals in the bundle and in Node");
  assert.equal(inBrowser.traceHash, sim.traceHash(), "the same trace in the bundle and in Node");
  console.log(`bundle: vite output runs in Chromium, trace ${inBrowser.traceHash} as in Node`);
} finally {
  await b.close();
  server.close();
}
