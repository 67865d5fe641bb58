// Status words that say what is true (issue 34, item 4): NameServers whose tables agree while
// one of them has stopped hearing a broker (S7), and a NameServer that is down answering
// nothing rather than TOPIC_NOT_EXIST (S9).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, shot } from "./lib/browser.mjs";
import { PATIENCE } from "./lib/patience.mjs";
import { lesson, startLesson, answer, reachGate, next } from "./lib/lesson-steps.mjs";

let b;
before(async () => (b = await launch()));
after(() => b.close());

async function toStep(page, id, step) {
  await startLesson(page, id);
  while ((await lesson(page)).step < step) {
    const l = await lesson(page);
    if (l.waiting || l.asking) await reachGate(page);
    await next(page);
  }
}

test("S7 step 2: the tables agree while broker-b's clocks drift apart, then they differ", async () => {
  const page = await b.page({ dashboard: false });
  await toStep(page, "S7", 1);
  await answer(page, 0);
  // Played on toward NS-2's removal: between the cut and the removal both list broker-b.
  const gap = page.locator("[data-testid=ctx-clock-gap]");
  await gap.waitFor({ timeout: PATIENCE });
  assert.match(await gap.textContent(), /^⚠ Tables agree; clocks for broker-b differ by \d+\.\d s\.$/);
  await shot(page, "S7-step2-clock-gap");
  await reachGate(page);
  assert.equal(await gap.count(), 0, "once NS-2 removed broker-b the tables differ");
  assert.ok(await page.locator("[data-testid=ctx-divergence]").isVisible());
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test("S9 step 4: a NameServer that is down answers nothing", async () => {
  const page = await b.page();
  await toStep(page, "S9", 3);
  await reachGate(page);
  const text = await page.locator("[data-testid=no-answer-NS-2]").textContent();
  assert.equal(text, "NS-2 down: no answer");
  const routes = await page.locator("[data-testid=route-NS-2]").textContent();
  assert.ok(!routes.includes("TOPIC_NOT_EXIST"), routes);
  // Its clients match nothing: they keep what they cached.
  const kept = page.locator("[data-testid^=no-answer-for-]");
  assert.ok((await kept.count()) >= 1);
  assert.ok((await page.locator("[data-testid=fresh-P1]").count()) === 0, "no ✓ matches NS-2");
  await shot(page, "S9-step4-no-answer");
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
