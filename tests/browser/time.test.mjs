// T1–T8: play/pause, speed, step, step back, scrub, fork, determinism, share.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, seek, settle, simTime, shot } from "./lib/browser.mjs";
import { Simulation } from "./lib/oracle.mjs";
import { PATIENCE } from "./lib/patience.mjs";

let b;
before(async () => (b = await launch()));
after(() => b.close());

const blur = (page) => page.evaluate(() => document.activeElement && document.activeElement.blur());
const hash = (page) => page.evaluate(() => window.__rmqsim.stateHash());

test("T1 play/pause", async () => {
  const page = await b.page();
  const play = page.locator("[data-testid=play]");
  assert.equal(await play.getAttribute("aria-pressed"), "false");
  await blur(page);
  await page.keyboard.press("Space");
  assert.equal(await play.getAttribute("aria-pressed"), "true");
  await page.waitForFunction(() => window.__rmqsim.time() > 0, null, { timeout: PATIENCE }); // advances while playing
  await page.keyboard.press("Space");
  await settle(page);
  assert.equal(await play.getAttribute("aria-pressed"), "false");
  const a = await simTime(page);
  await page.waitForTimeout(1000);
  assert.equal(await simTime(page), a, "unchanged while paused");
  await page.keyboard.press("Space");
  await page.waitForFunction((at) => window.__rmqsim.time() > at, a, { timeout: PATIENCE }); // advances again
  await page.keyboard.press("Space");
  await page.context().close();
});

test("T2 speed", async () => {
  const page = await b.page();
  for (const x of [1, 10, 60, 300, 600])
    assert.equal(await page.locator(`[data-testid=speed-${x}]`).count(), 1, `${x}× preset`);
  await page.click("[data-testid=speed-60]");
  await blur(page);
  await page.keyboard.press("Space");
  // The clock rule on the page's own (wall, target) pairs, frame to frame: the target moves
  // 60 ms per wall millisecond, or less where a long frame is capped. How close the page
  // comes to 60× on a machine is a benchmark (scripts/bench-page.mjs).
  const at60 = () => window.__rmqsim.clockTrace().filter((e) => e.speed === 60).length >= 30;
  await page.waitForFunction(at60, null, { timeout: PATIENCE });
  await page.keyboard.press("Space");
  const trace = (await page.evaluate(() => window.__rmqsim.clockTrace())).filter((e) => e.speed === 60);
  assert.ok(trace.length >= 30, `${trace.length} frames at 60×`);
  for (let i = 1; i < trace.length; i++) {
    const [a, z] = [trace[i - 1], trace[i]];
    const free = a.target + (z.wall - a.wall) * 60;
    assert.ok(z.wall > a.wall, `frame ${i}: wall time goes forward`);
    if (z.capped) assert.ok(z.target <= free + 1e-6 * free, `frame ${i}: capped at ${z.target}, above ${free}`);
    else
      assert.ok(
        Math.abs(z.target - free) <= 1e-6 * Math.max(1, free),
        `frame ${i}: target ${z.target}, the rule says ${free}`,
      );
  }
  await page.keyboard.press("+");
  assert.ok(Number(await page.getAttribute("[data-testid=speed]", "data-speed")) > 60, "+ is faster");
  await page.keyboard.press("-");
  await page.keyboard.press("-");
  assert.ok(Number(await page.getAttribute("[data-testid=speed]", "data-speed")) < 60, "- is slower");
  await page.context().close();
});

test("T3 step", async () => {
  const page = await b.page();
  await seek(page, 20000);
  const oracle = Simulation.builtIn("S1");
  oracle.seek(20000);
  const expected = oracle.step();
  const before = await page.locator("[data-testid=log] li").count();
  await blur(page);
  await page.keyboard.press("ArrowRight");
  await settle(page);
  assert.equal(await simTime(page), expected[0].at, "time is the next event's");
  assert.equal(await page.locator("[data-testid=log] li").count(), before + expected.length);
  assert.equal(expected.length, 1);
  // Shift+→ with a type chosen: the next NameServer scan.
  await page.selectOption("[data-testid=step-type]", "scan");
  await blur(page);
  await page.keyboard.press("Shift+ArrowRight");
  await settle(page);
  assert.equal(await simTime(page), 25000, "NS-1 scans at 25 s");
  const last = page.locator("[data-testid=log] li:first-child button");
  assert.equal(await last.getAttribute("data-kind"), "scan");
  oracle.free();
  await page.context().close();
});

test("T4 step back", async () => {
  const page = await b.page();
  await seek(page, 30000);
  const h0 = await hash(page);
  await blur(page);
  await page.keyboard.press("ArrowRight");
  await settle(page);
  assert.ok((await simTime(page)) > 30000);
  await page.keyboard.press("ArrowLeft");
  await settle(page);
  assert.equal(await simTime(page), 30000);
  assert.equal(await hash(page), h0, "state restored exactly");
  await page.keyboard.press("Shift+ArrowRight");
  await settle(page);
  assert.equal(await simTime(page), 40000);
  await page.keyboard.press("Shift+ArrowLeft");
  await settle(page);
  assert.equal(await simTime(page), 30000);
  assert.equal(await hash(page), h0);
  await page.context().close();
});

test("T5 scrub", async () => {
  const page = await b.page({ hash: "" });
  await seek(page, 100000);
  const h100 = await hash(page);
  const fresh = await b.page();
  await seek(fresh, 100000);
  assert.equal(await hash(fresh), h100, "same as a fresh run straight to 100 s");
  await fresh.context().close();
  const oracle = Simulation.builtIn("S1");
  oracle.seek(100000);
  assert.equal(oracle.stateHash(), h100, "same as the package in Node");
  oracle.free();
  await seek(page, 300000);
  const h300 = await hash(page);
  await seek(page, 100000);
  assert.equal(await hash(page), h100);
  await seek(page, 300000);
  assert.equal(await hash(page), h300);
  await page.context().close();
});

test("T6 fork", async () => {
  const page = await b.page();
  await seek(page, 300000);
  const original = await hash(page);
  await seek(page, 60000);
  await blur(page);
  await page.keyboard.press("k");
  await page.fill("[data-testid=fault-palette-input]", "kill broker-b");
  await page.keyboard.press("Enter");
  await settle(page);
  assert.equal(await page.locator("[data-testid=branch-marker]").count(), 1, "branch marker in the timeline");
  assert.equal(await page.locator("[data-testid=branches] button").count(), 2, "original kept");
  await seek(page, 300000);
  assert.notEqual(await hash(page), original, "later events recomputed");
  await page.click("[data-testid=branch-0]");
  await settle(page);
  assert.equal(await page.getAttribute("[data-testid=branch-0]", "aria-pressed"), "true");
  assert.equal(await simTime(page), 300000);
  assert.equal(await hash(page), original, "original branch restored");
  await shot(page, "T6-fork-desktop");
  await page.context().close();
});

test("T7 determinism", async () => {
  const sc = Simulation.builtIn("S5");
  const url = await (async () => {
    const page = await b.page();
    await page.selectOption("[data-testid=scenario-select]", "S5");
    await settle(page);
    await page.click("[data-testid=copy-link]");
    const u = await page.inputValue("[data-testid=share-url]");
    await page.context().close();
    return new URL(u).hash;
  })();
  const hashes = [];
  for (let i = 0; i < 2; i++) {
    const page = await b.page({ hash: url });
    await seek(page, 300000);
    hashes.push(await page.evaluate(() => window.__rmqsim.traceHash()));
    await page.context().close();
  }
  assert.equal(hashes[0], hashes[1]);
  sc.seek(300000);
  assert.equal(hashes[0], sc.traceHash(), "the page runs the same model as the package");
  sc.free();
});

test("T8 share", async () => {
  const page = await b.page();
  await page.selectOption("[data-testid=scenario-select]", "S4");
  await settle(page);
  await seek(page, 123400);
  await blur(page);
  await page.keyboard.press("5");
  await page.click("[data-testid=copy-link]");
  const url = await page.inputValue("[data-testid=share-url]");
  assert.match(url, /#v=1&seed=\d+&sc=[A-Za-z0-9_-]+&t=123400&sel=broker-b$/);
  const h = await hash(page);
  const other = await b.page({ hash: new URL(url).hash });
  assert.equal(await simTime(other), 123400);
  assert.equal(await other.getAttribute("[data-testid=node-broker-b]", "data-selected"), "true");
  assert.equal(await hash(other), h);
  await other.context().close();
  // Every built-in scenario's link stays under 2,000 characters.
  const ids = await page.$$eval("[data-testid=scenario-select] option", (os) => os.map((o) => o.value));
  for (const id of ids) {
    await page.selectOption("[data-testid=scenario-select]", id);
    await settle(page);
    await page.click("[data-testid=copy-link]");
    const u = await page.inputValue("[data-testid=share-url]");
    assert.ok(u.length < 2000, `${id}: ${u.length}`);
  }
  await page.context().close();
});
