// The page's modules as a whole (www/): every module below main.js imports in Node, one loop
// asks for animation frames, nothing runs on an interval, the time gate's hit is written once,
// and only main.js looks page elements up.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const WWW = new URL("../../../www/", import.meta.url).pathname;
function pageFiles(dir = WWW) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? pageFiles(join(dir, e.name)) : e.name.endsWith(".js") ? [join(dir, e.name)] : [],
  );
}
// The page's files (relative to www/) whose text matches `pattern`.
const holding = (pattern) =>
  pageFiles()
    .filter((f) => pattern.test(readFileSync(f, "utf8")))
    .map((f) => f.slice(WWW.length))
    .sort();

test("only main.js and sw.js lie flat in www/; every other module is in a folder", () => {
  assert.deepEqual(
    pageFiles()
      .map((f) => f.slice(WWW.length))
      .filter((f) => !f.includes("/"))
      .sort(),
    ["main.js", "sw.js"],
  );
});

test("the loop is the page's only requestAnimationFrame caller, and nothing runs on an interval", () => {
  assert.deepEqual(holding(/requestAnimationFrame\(/), ["app/loop.js"]);
  assert.deepEqual(holding(/setInterval\(/), []);
});

test("the time gate's hit is written once, in gate.js, and only the worker evaluates gates", () => {
  assert.deepEqual(holding(/kind: "time"/), ["source/gate.js"]);
  assert.deepEqual(holding(/from "[./]*(source\/)?gate\.js"/), ["source/worker.js"]);
});

test("the store, the loop, the sources and each widget's entry are type-checked (// @ts-check)", () => {
  const checked = holding(/^\/\/ @ts-check$/m);
  for (const f of [
    "app/store.js",
    "app/loop.js",
    "app/view.js",
    "app/playback.js",
    "app/controls.js",
    "source/sim-source.js",
    "source/live-source.js",
    "diagram/diagram.js",
    "panels/tables.js",
    "panels/routes.js",
    "panels/timeline.js",
    "panels/log.js",
    "panels/compare.js",
    "panels/about.js",
    "panels/panels.js",
    "panels/faults.js",
    "lessons/context.js",
    "lessons/quiz.js",
    "lessons/lesson-runner.js",
    "lessons/glossary.js",
  ])
    assert.ok(checked.includes(f), f);
});

test("main.js only builds and wires: at most 150 lines, no class", () => {
  const main = readFileSync(join(WWW, "main.js"), "utf8");
  assert.ok(main.split("\n").length - 1 <= 150, `${main.split("\n").length - 1} lines`);
  assert.doesNotMatch(main, /^\s*class\s/m);
});

test("only main.js looks page elements up by id or selector", () => {
  assert.deepEqual(holding(/document\.(getElementById|querySelector)|\$\("/), ["main.js"]);
});

test("every module below main.js imports in Node (none reads the page at import)", async () => {
  const below = pageFiles().filter((f) => !/\/www\/(main|sw)\.js$|\/source\/worker\.js$/.test(f));
  assert.ok(below.length > 40, `${below.length} modules`);
  for (const f of below) await import(f);
});
