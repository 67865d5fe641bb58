// Runs in the fresh project of scripts/test-package.sh, where the tarball is installed: starts
// the package's `rocketmq-nameserver-playground` bin, fetches the page and everything it loads
// over HTTP with the right types, checks that nothing else of the package is served, then
// opens the page in headless Chromium (the browser tests' launcher) until it is ready.
// Usage: REPO_ROOT=… node playground.mjs
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const lib = (p) => import(pathToFileURL(resolve(process.env.REPO_ROOT, "tests/browser/lib", p)).href);

const bin = spawn("node_modules/.bin/rocketmq-nameserver-playground", ["--port", "0"], {
  stdio: ["ignore", "pipe", "inherit"],
});
const exited = once(bin, "exit");
try {
  const [first] = await Promise.race([
    once(createInterface({ input: bin.stdout }), "line"),
    exited.then(([code]) => assert.fail(`the playground exited with ${code}`)),
  ]);
  const url = first.match(/(http:\/\/127\.0\.0\.1:\d+)\/www\//)?.[1];
  assert.ok(url, `the playground printed its URL on 127.0.0.1: ${first}`);

  const get = (path, init) => fetch(`${url}${path}`, { redirect: "manual", ...init });
  const root = await get("/");
  assert.equal(root.status, 302);
  assert.equal(root.headers.get("location"), "/www/");
  const expect = {
    "/www/": "text/html",
    "/www/main.js": "text/javascript",
    "/www/source/worker.js": "text/javascript",
    "/pkg/nameserver_wasm.js": "text/javascript",
    "/pkg/nameserver_wasm_bg.wasm": "application/wasm",
  };
  // And whatever else the page's HTML loads from the package (it changes with the page).
  const html = await (await get("/www/")).text();
  for (const [, ref] of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
    if (/^(?:[a-z]+:|#|\/\/)/i.test(ref)) continue;
    const path = new URL(ref, `${url}/www/`).pathname;
    expect[path] ??=
      { ".js": "text/javascript", ".css": "text/css", ".html": "text/html" }[path.match(/\.[a-z]+$/)?.[0]] ?? "";
  }
  for (const [path, type] of Object.entries(expect)) {
    const r = await get(path);
    assert.equal(r.status, 200, path);
    assert.ok(r.headers.get("content-type").startsWith(type), `${path}: ${r.headers.get("content-type")}`);
    const body = Buffer.from(await r.arrayBuffer());
    assert.ok(body.length > 0, `${path} is empty`);
    if (path.endsWith(".wasm")) assert.ok(WebAssembly.validate(body), "the served .wasm is valid");
    if (path === "/www/") assert.match(body.toString(), /<script type="module"/);
  }
  const head = await get("/pkg/nameserver_wasm_bg.wasm", { method: "HEAD" });
  assert.equal(head.status, 200);
  // Only www/ and pkg/: not the package's other files, not outside it, not other methods.
  for (const path of [
    "/package.json",
    "/js/playground.js",
    "/www/../package.json",
    "/www/%2e%2e/package.json",
    "/pkg/..%2F..%2Fpackage.json",
    "/www/nothing.js",
  ]) {
    assert.equal((await get(path)).status, 404, path);
  }
  assert.equal((await get("/www/", { method: "POST" })).status, 405);

  const { launch, ready } = await lib("browser.mjs");
  process.env.BASE_URL = url;
  const b = await launch();
  try {
    const page = await b.page({ path: "/www/" });
    await ready(page);
    const simMs = await page.getAttribute("[data-testid=clock]", "data-sim-ms");
    assert.deepEqual(page.errors, []);
    console.log(
      `playground: ${url}/www/ serves the page, the ${Object.keys(expect).length} files it loads and its module; the page is ready in Chromium (clock at ${simMs} ms)`,
    );
  } finally {
    await b.close();
  }
} finally {
  bin.kill("SIGTERM");
  const [code] = await exited;
  assert.equal(code, 0, "the playground exits 0 on SIGTERM");
}
