// T21–T23 and the lessons S1–S6 played through start to end in the page.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, seek, settle, simTime, shot, PHONE } from "./lib/browser.mjs";

let b;
before(async () => (b = await launch()));
after(() => b.close());

const lessonEl = "[data-testid=lesson]";

async function startLesson(page, id) {
  await page.selectOption("[data-testid=scenario-select]", id);
  await settle(page);
  await page.click("[data-testid=lesson-start]");
  await page.waitForSelector(`${lessonEl}[data-step="0"]`);
  await page.click("[data-testid=speed-600]");
}

// Clicks Continue until the lesson is done; returns every "observed" line in order.
async function playThrough(page, onStep) {
  const observed = [];
  for (let i = 0; i < 20; i++) {
    await page.waitForSelector(`${lessonEl}[data-waiting=false]`, { timeout: 60000 });
    await settle(page);
    const o = page.locator("[data-testid=observed]");
    if (await o.count()) observed.push(await o.textContent());
    if (onStep) await onStep(i);
    if ((await page.getAttribute(lessonEl, "data-done")) === "true") return observed;
    const step = Number(await page.getAttribute(lessonEl, "data-step"));
    await page.click("[data-testid=lesson-continue]");
    await page.waitForSelector(`${lessonEl}[data-step="${step + 1}"], ${lessonEl}[data-done=true]`);
  }
  throw new Error("lesson did not finish");
}

const EXPECT = {
  S1: ["1.003 s", "1.004 s", "4.016 s", "6.016 s", "11.002 s", "36.014 s", "75 s"],
  S2: ["4.015 s", "No route info of this topic", "20.013 s", "21.005 s", "34.015 s"],
  S3: ["50.003 s", "50.001 s", "54.003 s", "64.015 s", "66.015 s"],
  S4: ["50.003 s", "50.001 s", "64.013 s"],
  S5: ["75.000 s", "sendDefaultImpl call timeout", "192.002 s", "214.012 s"],
  S6: ["81.000 s", "120.000 s", "120.002 s"],
};

for (const [id, expected] of Object.entries(EXPECT)) {
  test(`lesson ${id} plays through start to end`, async () => {
    const page = await b.page();
    await startLesson(page, id);
    let staleSeen = false;
    const observed = await playThrough(page, async () => {
      if (id === "S5" && (await simTime(page)) === 192002) staleSeen = (await page.locator("[data-testid=stale-P1]").count()) === 1;
    });
    const text = observed.join("\n");
    for (const e of expected) assert.ok(text.includes(e), `${id}: "${e}" in\n${text}`);
    if (id === "S5") {
      assert.ok(staleSeen, "STALE badge visible when NS-1 removed broker-b");
      assert.equal(await page.locator("[data-testid=stale-P1]").count(), 0, "badge gone at 214.012 s");
      assert.equal(await simTime(page), 214012);
      await shot(page, "lesson-S5-desktop");
    }
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
}

test("T21 gated narrative", async () => {
  const page = await b.page();
  await startLesson(page, "S5");
  await page.click("[data-testid=speed-10]");
  const cont = page.locator("[data-testid=lesson-continue]");
  // Steps 1–2 (freeze, first timeout), then the step gated on "NS-1 removed broker-b".
  for (let step = 1; step <= 3; step++) {
    await page.waitForSelector(`${lessonEl}[data-waiting=false]`);
    await cont.click();
    await page.waitForSelector(`${lessonEl}[data-step="${step}"]`);
  }
  assert.match(await page.textContent("[data-testid=lesson-wait]"), /NS-1 removes broker-b/);
  const start = await page.evaluate(() => window.__rmqsim.lesson());
  await page.waitForTimeout(1500);
  assert.ok((await simTime(page)) < 192002, "still before the event");
  assert.ok(await cont.isDisabled(), "Continue disabled before the event");
  await page.click("[data-testid=speed-600]");
  await page.waitForSelector(`${lessonEl}[data-waiting=false]`, { timeout: 60000 });
  await settle(page);
  assert.ok(await cont.isEnabled(), "Continue enabled by the event");
  assert.equal(await simTime(page), 192002, "paused exactly at the removal");
  assert.match(await page.textContent("[data-testid=observed]"), /NS-1 removed broker-b at 192\.002 s/);
  await page.click("[data-testid=lesson-replay]");
  await settle(page);
  assert.equal(await simTime(page), start.startTime);
  assert.equal(await page.evaluate(() => window.__rmqsim.stateHash()), start.startHash, "identical hash at the step start");
  assert.ok(await cont.isDisabled());
  // Free play from here: the lesson steps aside, the state stays.
  await page.click("[data-testid=lesson-free]");
  assert.ok(await page.locator(lessonEl).isHidden());
  assert.equal(await simTime(page), start.startTime);
  await page.context().close();
});

test("T22 predict then observe", async () => {
  const page = await b.page();
  await page.click("[data-testid=quiz-open]");
  const q = page.locator("[data-testid=quiz-question]");
  await q.waitFor();
  const first = Number(await q.getAttribute("data-freeze-at"));
  assert.equal(await q.getAttribute("data-kind"), "client");
  assert.ok((await page.locator("[data-testid^=quiz-option-]").count()) >= 3, "options generated from the sim");
  await page.click("[data-testid=quiz-option-0]");
  await page.click("[data-testid=quiz-check]");
  const result = page.locator("[data-testid=quiz-result]");
  await result.locator("p").first().waitFor();
  const answer = Number(await result.getAttribute("data-answer-ms"));
  assert.match(await result.textContent(), /pollNameServerInterval/);
  await page.click("[data-testid=quiz-observe]");
  await settle(page);
  assert.equal(await simTime(page), answer);
  assert.equal(Number(await page.getAttribute("[data-testid=m-0-update-P1]", "data-ms")), answer, "graded against the measured value");
  assert.equal(await page.getAttribute("[data-testid=client-P1]", "data-stale"), "false");
  // A new attempt has new parameters.
  await page.click("[data-testid=quiz-open]");
  await page.waitForFunction((f) => {
    const el = document.querySelector("[data-testid=quiz-question]");
    return el && Number(el.dataset.freezeAt) !== f;
  }, first);
  const second = page.locator("[data-testid=quiz-question]");
  assert.equal(await second.getAttribute("data-kind"), "ns");
  assert.match(await second.textContent(), /When will NS-1 remove broker-b/);
  await page.click("[data-testid=quiz-option-1]");
  await page.click("[data-testid=quiz-check]");
  assert.match(await page.textContent("[data-testid=quiz-result]"), /serverChannelMaxIdleTimeSeconds/);
  await page.context().close();
});

test("T23 scenarios", async () => {
  const page = await b.page();
  const ids = await page.$$eval("[data-testid=scenario-select] option", (os) => os.map((o) => o.value));
  for (const id of ["S1", "S2", "S3", "S4", "S5", "S6", "S7", "S8", "S9", "S10"]) assert.ok(ids.includes(id), id);
  for (const id of ids) {
    await page.selectOption("[data-testid=scenario-select]", id);
    await settle(page);
    await seek(page, 60000);
    assert.ok((await page.locator("[data-testid=log] li").count()) > 5, id);
  }
  // Free play forks from any scenario at any time.
  await page.selectOption("[data-testid=scenario-select]", "S8");
  await settle(page);
  await seek(page, 120000);
  await seek(page, 100000);
  await page.evaluate(() => document.activeElement.blur());
  await page.keyboard.press("k");
  await page.fill("[data-testid=fault-palette-input]", "kill broker-b");
  await page.keyboard.press("Enter");
  await settle(page);
  assert.equal(await page.locator("[data-testid=branches] button").count(), 2);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test("lesson on a phone", async () => {
  const page = await b.page({ viewport: PHONE, context: { isMobile: true, hasTouch: true } });
  await startLesson(page, "S4");
  await playThrough(page);
  await shot(page, "lesson-S4-phone");
  await page.context().close();
});
