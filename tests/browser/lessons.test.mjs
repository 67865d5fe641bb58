// The lessons as a newcomer meets them (issue 14, T21–T23): the opening chapter on a first
// visit, predictions graded by the simulation, the lessons' measured times, and Chinese
// throughout. Every step on one screen at each size: lesson-screens.test.mjs.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, seek, settle, simTime, shot, clickInHeader, PHONE, DESKTOP } from "./lib/browser.mjs";
import { Simulation } from "./lib/oracle.mjs";
import {
  lessonEl,
  LESSONS,
  lesson,
  startLesson,
  answer,
  reachGate,
  next,
  recordFrames,
  stopFrames,
} from "./lib/lesson-steps.mjs";
import { LESSONS as STEPS } from "../../www/lessons/index.js";
import { holdProblems } from "./lib/hold-record.mjs";

let b;
before(async () => (b = await launch()));
after(() => b.close());

test("a first visit opens the opening chapter and plays through to free play", async () => {
  for (const [size, viewport] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ]) {
    const page = await b.page({
      fresh: true,
      viewport,
      context: size === "phone" ? { isMobile: true, hasTouch: true } : {},
    });
    const l = await lesson(page);
    assert.equal(l && l.id, "intro", "lands in the opening chapter");
    assert.match(await page.textContent("[data-testid=narration]"), /RocketMQ carries messages/);
    for (let guard = 0; guard < 20; guard++) {
      const s = await lesson(page);
      if (s.waiting || s.asking) await reachGate(page);
      if ((await lesson(page)).step === s.steps - 1) break;
      await next(page);
    }
    await page.click("[data-testid=lesson-free]");
    assert.equal(await lesson(page), null);
    assert.ok(await page.locator(lessonEl).isHidden());
    await shot(page, `intro-free-play-${size}`);
    // Free play is remembered: the next visit starts there.
    await page.reload();
    await page.waitForFunction(() => document.body.dataset.ready === "true");
    assert.equal(await lesson(page), null, "free play remembered");
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test("each lesson asks at least two predictions, graded by the simulation, right and wrong", async () => {
  const page = await b.page({ dashboard: false });
  for (const id of LESSONS) {
    await startLesson(page, id);
    assert.ok((await lesson(page)).questions >= 2, `${id} has at least two questions`);
    for (let guard = 0; guard < 20; guard++) {
      const l = await lesson(page);
      if (l.asking) {
        // First a guess; the verdict names the right option; then the other outcome.
        await answer(page, 0);
        await reachGate(page);
        const v = page.locator("[data-testid=verdict]");
        const first = {
          right: (await v.getAttribute("data-right")) === "true",
          correct: await v.getAttribute("data-correct"),
        };
        const time = await simTime(page);
        const quoted = `${(time / 1000).toFixed(3)} s`;
        assert.ok(
          (await v.textContent()).includes(quoted),
          `${id} step ${l.step}: the verdict quotes ${quoted}: ${await v.textContent()}`,
        );
        await page.click("[data-testid=lesson-replay]");
        await settle(page);
        // A replayed step shows its subject travelling again (issue 34).
        await recordFrames(page);
        await answer(page, (opts) =>
          first.right ? opts.findIndex((o) => o !== first.correct) : opts.indexOf(first.correct),
        );
        await reachGate(page);
        const subject = STEPS[id][l.step].subject;
        if (subject)
          assert.deepEqual(
            holdProblems(await stopFrames(page), subject, time),
            [],
            `${id} step ${l.step + 1}: the subject again after ↺ Replay`,
          );
        assert.equal(
          await v.getAttribute("data-right"),
          String(!first.right),
          `${id} step ${l.step}: the other answer is graded the other way`,
        );
        assert.ok((await v.textContent()).includes(quoted), `${id} step ${l.step}: same moment after a replay`);
      } else if (l.waiting) {
        await reachGate(page);
      }
      if ((await lesson(page)).step === l.steps - 1) break;
      await next(page);
    }
    await page.click("[data-testid=lesson-continue]");
    const summary = page.locator("[data-testid=lesson-summary]");
    assert.ok((await summary.locator("li").count()) >= 2, `${id}: a summary of what was predicted and what happened`);
  }
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// Plays a lesson through (answering every question with its first option) and returns every
// "observed" line.
async function playThrough(page) {
  const observed = [];
  for (let guard = 0; guard < 20; guard++) {
    const l = await lesson(page);
    if (l.waiting || l.asking) await reachGate(page);
    const o = page.locator("[data-testid=observed]");
    if (await o.count()) observed.push(await o.textContent());
    if ((await lesson(page)).step === l.steps - 1) return observed;
    await next(page);
  }
  throw new Error("lesson did not finish");
}

// The times the model gives (its golden traces): the lessons must quote them.
const EXPECT = {
  S1: ["1.003 s", "1.004 s", "4.016 s", "6.015 s", "11.001 s", "36.015 s", "75 s"],
  S2: ["4.015 s", "No route info of this topic", "20.013 s", "21.005 s", "34.014 s"],
  S3: ["50.003 s", "54.004 s", "64.013 s", "66.014 s"],
  S4: ["50.003 s", "50.001 s", "64.014 s"],
  S5: ["75.000 s", "sendDefaultImpl call timeout", "192.003 s", "214.014 s"],
  S6: ["81.000 s", "120.000 s", "120.001 s"],
  S7: ["192.002 s", "216.015 s", "312.002 s", "offset 27"],
  S8: ["50.003 s", "64.015 s", "66.014 s", "150.002 s"],
  S9: ["64.014 s", "No route info of this topic", "120.007 s", "131.004 s"],
  S10: ["49.007 s", "64.016 s", "broker-a and broker-b", "34.013 s"],
};

for (const [id, expected] of Object.entries(EXPECT)) {
  test(`lesson ${id} shows the model's times`, async () => {
    const page = await b.page({ dashboard: false });
    await startLesson(page, id);
    const text = (await playThrough(page)).join("\n");
    for (const e of expected) assert.ok(text.includes(e), `${id}: "${e}" in\n${text}`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
}

test("T21 gated narrative, and the clock slows down before the event", async () => {
  const page = await b.page({ dashboard: false });
  await startLesson(page, "S5");
  const cont = page.locator("[data-testid=lesson-continue]");
  // Steps 1–2 (the freeze, the first timeout), then the question before the removal.
  for (let step = 0; step < 3; step++) {
    await reachGate(page);
    await next(page);
  }
  assert.match(await page.textContent("[data-testid=narration]"), /120 s clock/);
  assert.ok((await lesson(page)).asking);
  assert.ok(await cont.isDisabled(), "Continue waits for a prediction");
  await page.locator("[data-testid=predict-1]").check();
  await page.click("[data-testid=speed-60]");
  await cont.click();
  assert.match(await page.textContent("[data-testid=lesson-wait]"), /NS-1 removes broker-b/);
  assert.ok(await cont.isDisabled(), "Continue disabled before the event");
  const start = await lesson(page);
  // Far from the event the clock runs at the chosen speed; in the last second, near 1×.
  const far = await page.evaluate(
    () =>
      new Promise((done) => {
        const poll = () =>
          window.__rmqsim.time() > 110000 ? done(window.__rmqsim.effectiveSpeed()) : requestAnimationFrame(poll);
        poll();
      }),
  );
  assert.equal(far, 60, "the chosen speed far from the event");
  await page.waitForFunction((at) => window.__rmqsim.time() > at - 1000, start.gateAt, { timeout: 30000 });
  const near = await page.evaluate(() => window.__rmqsim.effectiveSpeed());
  assert.ok(near <= 2, `slows down near the event: ${near}×`);
  await page.waitForSelector(`${lessonEl}[data-waiting=false]`, { timeout: 60000 });
  await settle(page);
  assert.ok(await cont.isEnabled(), "Continue enabled by the event");
  const oracle = Simulation.builtIn("S5");
  oracle.seek(200000);
  const removal = oracle
    .view()
    .delta.trace.find((l) => l.node === "NS-1" && l.kind === "unregistered" && l.text.includes("10.0.1.3:10911")).at;
  oracle.free();
  assert.equal(await simTime(page), removal, "paused exactly at the removal");
  assert.equal(start.gateAt, removal, "the slow-down aimed at the real event");
  assert.match(
    await page.textContent("[data-testid=observed]"),
    new RegExp(`NS-1 removed broker-b at ${(removal / 1000).toFixed(3).replace(".", "\\.")} s`),
  );
  await page.click("[data-testid=lesson-replay]");
  await settle(page);
  assert.equal(await simTime(page), start.startTime);
  assert.equal(
    await page.evaluate(() => window.__rmqsim.stateHash()),
    start.startHash,
    "identical hash at the step start",
  );
  // Free play from here: the lesson steps aside, the state stays.
  await page.click("[data-testid=lesson-free]");
  assert.ok(await page.locator(lessonEl).isHidden());
  assert.equal(await simTime(page), start.startTime);
  await page.context().close();
});

test("T22 predict then observe (the quiz)", async () => {
  const page = await b.page();
  await clickInHeader(page, "quiz-open");
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
  assert.equal(
    Number(await page.getAttribute("[data-testid=m-0-update-P1]", "data-ms")),
    answer,
    "graded against the measured value",
  );
  assert.equal(await page.getAttribute("[data-testid=client-P1]", "data-stale"), "false");
  await clickInHeader(page, "quiz-open");
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

test("glossary: every term opens by keyboard, in English and Chinese", async () => {
  for (const lang of ["en", "zh"]) {
    const page = await b.page({ fresh: true, path: `/www/index.html?lang=${lang}` });
    const term = page.locator("[data-testid=narration] button.term").first();
    await term.focus();
    await page.keyboard.press("Enter");
    const pop = page.locator("[data-testid=term-popover]");
    await pop.waitFor();
    assert.ok((await pop.textContent()).length > 40, "a definition");
    if (lang === "zh") assert.match(await pop.textContent(), /[\u4e00-\u9fff]/);
    await page.keyboard.press("Escape");
    await clickInHeader(page, "glossary-open");
    const items = await page.locator("[data-testid=glossary] dt").count();
    assert.ok(items >= 20, `${items} terms`);
    await shot(page, `glossary-${lang}`);
    await page.keyboard.press("Escape");
    await page.context().close();
  }
});

// Identifiers that stay as RocketMQ writes them, in any language.
const IDENTIFIERS =
  /\b(S\d+-fault-[\d.x]+|S10-burst|S5-scan-only|S5-phase|NS-\d|broker-[a-z](-s)?|P\d|C\d|CG\d|TopicTest|NewTopic|TBW102|RocketMQ|NameServer|Broker|Topic|BID|STALE|SEND_OK|TOPIC_NOT_EXIST|UNREGISTER_BROKER|REGISTER_BROKER|GET_ROUTEINFO_BY_TOPIC|brokerLiveTable|brokerDatas|queueDatas|brokerName|brokerAddrs|readQueueNums|writeQueueNums|perm|sendMsgTimeout|sendLatencyFaultEnable|autoCreateTopicEnable|pollNameServerInterval|mqshutdown( broker)?|mqadmin|kill|Netty|IdleStateHandler|FIN|RST|ACK|REG|UNREG|ROUTE|SEND|PULL|HB|ERR|MSG|TCP|OS|NETTY SERVER PIPELINE|IDLE|exception|sendDefaultImpl call timeout|No route info of this topic|new broker registered|unregisterBroker|remove from brokerLiveTable|the broker's channel destroyed|clean it's data structure at once|connect|failed|ms|s|RWX|RW|W|R|w\d|r\d|findBrokerAddressInSubscribe|Master|Slave|TopicRouteData|MessageQueue|RW|COMMIT|OFFSET|MAX|SYNC|scanNotActiveBroker|HEART_BEAT|Push|QUERY_CONSUMER_OFFSET|UPDATE_CONSUMER_OFFSET|CONSUME_FROM_LAST_OFFSET)\b/g;

test("Chinese everywhere: lesson panel, diagram and glossary", async () => {
  const page = await b.page({ fresh: true, path: "/www/index.html?lang=zh", dashboard: false });
  const english = () =>
    page.evaluate((src) => {
      const re = new RegExp(src, "g");
      const out = [];
      for (const root of ["[data-testid=lesson]", "#diagram"]) {
        const walker = document.createTreeWalker(document.querySelector(root), NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const el = n.parentElement;
          if (!el || el.closest("[lang=en], .log-text, [hidden], [display=none]") || !el.getClientRects().length)
            continue;
          const rest = n.textContent.replace(re, " ").match(/[A-Za-z]{2,}/g);
          if (rest) out.push(`${root}: "${n.textContent.trim()}"`);
        }
      }
      return out;
    }, IDENTIFIERS.source);
  for (const id of LESSONS) {
    await startLesson(page, id);
    for (let guard = 0; guard < 20; guard++) {
      const l = await lesson(page);
      assert.deepEqual(await english(), [], `${id} step ${l.step}`);
      if (l.waiting || l.asking) {
        await reachGate(page);
        assert.deepEqual(await english(), [], `${id} step ${l.step} after the event`);
      }
      if ((await lesson(page)).step === l.steps - 1) break;
      await next(page);
    }
    await shot(page, `lesson-${id}-zh`);
  }
  await page.click("[data-testid=glossary-open]");
  const gloss = await page.evaluate((src) => {
    const re = new RegExp(src, "g");
    return [...document.querySelectorAll("[data-testid=glossary] dd")]
      .map((d) => d.textContent.replace(re, " "))
      .filter((x) => /[A-Za-z]{4,}/.test(x.replace(/\([^)]*\)/g, "")));
  }, IDENTIFIERS.source);
  assert.deepEqual(gloss, [], "glossary definitions in Chinese");
  await page.context().close();
});
