// The rule lit as it fires (issue 34, item 3): when a lesson's awaited event arrives, a card
// beside its node says the rule with the core's numbers. Each case records every drawn frame
// (clock and card) while the step plays: the card is absent before the event's frame, present
// on it, beside the node without covering it, and quotes exactly the operands of the view's
// trace line, in English and in Chinese; it covers no node's box and leaves the clock in
// sight (on a phone, where no spot beside the node is free, it is docked above the diagram,
// under the header and the clock). While S5's removal step plays, the first renewal of a broker
// gets a card of its own, quoting the model's live row as drawn on that frame.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, shot, clickInHeader, settle, DESKTOP, PHONE, SHORT_PHONE } from "./lib/browser.mjs";
import { lesson, startLesson, answer, reachGate, next } from "./lib/lesson-steps.mjs";

let b;
before(async () => (b = await launch()));
after(() => b.close());

// Every frame from now on: the clock's time and the card as drawn.
function record(page) {
  return page.evaluate(() => {
    const frames = (window.__ruleFrames = []);
    const renewals = (window.__renewals = []);
    const tick = () => {
      const card = document.querySelector("[data-testid=rule-card]");
      const shown = !!card && !card.hidden;
      const ms = Number(document.querySelector("[data-testid=clock]").dataset.simMs);
      // (A renewal's card stands for no trace line: it has no seq.)
      frames.push({ ms, shown, seq: shown && card.dataset.seq ? Number(card.dataset.seq) : null });
      // A renewal's card, its numbers beside the model's tables as drawn on the same frame.
      if (shown && card.dataset.rule === "renewed" && !renewals.length) {
        const ops = {};
        for (const x of card.querySelectorAll("[data-op]")) ops[x.dataset.op] = Number(x.dataset.ms);
        const seen = { ms, node: card.dataset.node, at: Number(card.dataset.at), ops, text: card.textContent };
        renewals.push(seen);
        window.__rmqsim.views().then((v) => (seen.ns = v.ns[seen.node]));
      }
      window.__ruleRaf = requestAnimationFrame(tick);
    };
    tick();
  });
}

async function stopRecording(page) {
  const { frames, renewals } = await page.evaluate(() => {
    cancelAnimationFrame(window.__ruleRaf);
    return { frames: window.__ruleFrames, renewals: window.__renewals };
  });
  return Object.assign(frames, { renewals });
}

// Enters the next step (answering its question with option 0 if it asks) and lets it play to
// its event while every frame is recorded; returns the frames.
async function playStep(page) {
  const before = await page.evaluate(() => {
    const card = document.querySelector("[data-testid=rule-card]");
    return card && !card.hidden ? Number(card.dataset.seq) : null;
  });
  await record(page);
  await next(page);
  if ((await lesson(page)).asking) await answer(page, 0);
  await page.waitForFunction(() => !window.__rmqsim.lesson().waiting, null, { timeout: 120000 });
  // The worker meets the event first; the picture reaches its arrival frames later (the hold
  // rule), and the card comes with that frame: record until the record itself holds a frame
  // with the new card (the card in the DOM may be seen before the recorder's next frame).
  await page.waitForFunction((prev) => window.__ruleFrames.some((f) => f.seq !== null && f.seq !== prev), before, {
    timeout: 120000,
  });
  await settle(page);
  return stopRecording(page);
}

// The card as drawn, its numbers, and the view's trace line it quotes.
async function cardAndLine(page) {
  const card = await page.evaluate(() => {
    const el = document.querySelector("[data-testid=rule-card]");
    const box = document.querySelector(`[data-node="${el.dataset.node}"] .box`).getBoundingClientRect();
    const r = el.getBoundingClientRect();
    const ops = {};
    const texts = {};
    for (const x of el.querySelectorAll("[data-op]")) {
      ops[x.dataset.op] = x.dataset.ms ?? x.textContent;
      texts[x.dataset.op] = x.textContent;
    }
    return {
      node: el.dataset.node,
      rule: el.dataset.rule,
      seq: Number(el.dataset.seq),
      text: el.textContent,
      ops,
      texts,
      terms: [...el.querySelectorAll("button.term")].map((x) => x.dataset.term),
      rect: { left: r.left, right: r.right, top: r.top, bottom: r.bottom },
      // Nothing drawn over it (a phone's lesson sheet, a dialog): its middle is the card.
      onTop: !!document
        .elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2)
        ?.closest("[data-testid=rule-card]"),
      box: { left: box.left, right: box.right, top: box.top, bottom: box.bottom },
      // Every node's box: the card hides none of them (NS-2's on a desktop, brokers' on a phone).
      boxes: [...document.querySelectorAll("[data-testid=diagram] [data-node] .box")].map((b) => {
        const x = b.getBoundingClientRect();
        return { node: b.parentElement.dataset.node, left: x.left, right: x.right, top: x.top, bottom: x.bottom };
      }),
      viewport: { w: innerWidth, h: innerHeight },
      // The clock, read while the rule is explained: its box, and what is drawn at its middle.
      clock: (() => {
        const c = document.querySelector("[data-testid=clock]");
        const x = c.getBoundingClientRect();
        const at = document.elementFromPoint((x.left + x.right) / 2, (x.top + x.bottom) / 2);
        return { left: x.left, right: x.right, top: x.top, bottom: x.bottom, seen: !!at && c.contains(at) };
      })(),
    };
  });
  const views = await page.evaluate(() => window.__rmqsim.views());
  const line = views.trace.find((l) => l.seq === card.seq);
  return { card, line };
}

// The frame record: no card before the event's frame, the card on it.
function checkFrames(frames, line, what) {
  const first = frames.findIndex((f) => f.ms >= line.at);
  assert.ok(
    first >= 0,
    `${what}: a frame reached ${line.at} (${frames.length} frames, the last ${JSON.stringify(frames.slice(-3))}, line ${JSON.stringify(line)})`,
  );
  // (The previous step's card may still be up until this step begins.)
  const early = frames.slice(0, first).filter((f) => f.shown && f.seq >= line.seq);
  assert.deepEqual(early, [], `${what}: no card before the event's frame`);
  assert.equal(frames[first].ms, line.at, `${what}: the clock stops on the event`);
  assert.equal(frames[first].seq, line.seq, `${what}: the card is up on the event's frame`);
}

function checkPlacement(card, what) {
  const { rect: r, box, viewport } = card;
  const on = (b) => r.left < b.right && b.left < r.right && r.top < b.bottom && b.top < r.bottom;
  assert.ok(!on(box), `${what}: the card does not cover ${card.node}'s box ${JSON.stringify(card)}`);
  assert.ok(card.boxes.length >= 4, `${what}: the diagram's boxes`);
  const covered = card.boxes.filter(on).map((b) => b.node);
  assert.deepEqual(covered, [], `${what}: the card covers no node's box ${JSON.stringify(r)}`);
  assert.ok(r.left >= 0 && r.right <= viewport.w && r.top >= 0 && r.bottom <= viewport.h, `${what}: on screen`);
  assert.ok(card.onTop, `${what}: nothing covers the card`);
  // The clock stays in sight beside the card (docked on a phone, it once covered the header
  // and the clock).
  const c = card.clock;
  assert.ok(c.right > c.left && c.bottom > c.top, `${what}: the clock is drawn`);
  assert.ok(
    c.left >= 0 && c.right <= viewport.w && c.top >= 0 && c.bottom <= viewport.h,
    `${what}: the clock on screen`,
  );
  assert.ok(!on(c), `${what}: the card does not cover the clock ${JSON.stringify({ card: r, clock: c })}`);
  assert.ok(c.seen, `${what}: nothing is drawn over the clock's middle`);
}

// The numbers the card quotes are the view's operands, each under its own name.
function checkNumbers(card, line, names, what) {
  assert.ok(line && line.operands, `${what}: the view's line has operands`);
  assert.equal(card.rule, line.operands.rule, what);
  for (const name of names) {
    assert.equal(Number(card.ops[name]), line.operands[name], `${what}: ${name}`);
  }
}

// While the step plays to the removal the other brokers renew: the first renewal of the step
// gets a card (one: they renew every 30 s), its numbers the model's row as drawn on its frame,
// before the removal's card takes its place.
function checkRenewal(frames, line, words) {
  const [seen] = frames.renewals;
  assert.ok(seen, `a renewal's card while the step played (${frames.length} frames)`);
  assert.ok(seen.ms < line.at, `the renewal's card comes before the removal's: ${JSON.stringify(seen)}`);
  const shown = frames.filter((f) => f.shown && f.seq === null && f.ms < line.at);
  assert.ok(shown.length > 0, "frames with the renewal's card");
  const row = seen.ns && seen.ns.live.find((r) => r.lastUpdate === seen.ops.lastUpdate);
  assert.ok(row, `the model's live row with the card's last registration: ${JSON.stringify(seen)}`);
  assert.equal(seen.ops.lastUpdate, seen.at, "the card stands at the renewal");
  assert.ok(seen.at <= seen.ms, "the renewal is drawn");
  assert.equal(seen.ops.timeoutMs, row.timeoutMs, "the row's timeout");
  assert.equal(seen.ops.deadline, row.expiresAt, "the row's expiry");
  assert.equal(seen.ops.deadline, seen.ops.lastUpdate + seen.ops.timeoutMs, "expiry = last registration + timeout");
  assert.ok(seen.ops.before < seen.ops.deadline, "the removal clock moved on");
  assert.match(seen.text, words.renewed);
  assert.ok(seen.text.includes(row.brokerName), `names ${row.brokerName}: ${seen.text}`);
}

// Each language once and each size once (the words of both languages at every rule are
// also checked in Node, tests/js/page/rule-card.test.mjs): the walks cost CI minutes.
const WORDS = {
  en: {
    expired: /last registration .* < now .* remove broker-b/,
    renewed: /hears broker-\S+ again .* last registration .* deadline .* \(was .*\)/,
    idle: /silent 120 s .* idle close, broker-b removed/,
    // The narration names the rule that fired, and not the other.
    told: { expired: /scan/, idle: /idle close/ },
    untold: { expired: /silent|idle close/, idle: /scan/ },
  },
  zh: {
    expired: /最后注册 .* < 现在 .* 移除 broker-b/,
    renewed: /又收到 broker-\S+ 的注册.*最后注册 .*截止 .*（原为 .*）/,
    idle: /此连接静默 120 s.*空闲关闭，移除 broker-b/,
    told: { expired: /扫描/, idle: /空闲关闭/ },
    untold: { expired: /静默|空闲关闭/, idle: /扫描/ },
  },
};
for (const [lang, size, viewport] of [
  ["en", "desktop", DESKTOP],
  ["zh", "phone", PHONE],
  // (The short phone walks the scan's removal only: its card docks as the phone's do.)
  ["en", "short-phone", SHORT_PHONE],
]) {
  const words = WORDS[lang];
  const short = size === "short-phone";
  const open = () =>
    b.page({
      path: `/www/index.html?lang=${lang}`,
      viewport,
      dashboard: false,
      context: size === "desktop" ? {} : { isMobile: true, hasTouch: true },
    });

  test(`S1 rule cards: registration and route answers (${lang}, ${size})`, { skip: short }, async () => {
    const page = await open();
    await startLesson(page, "S1");
    // Step 2 (a prediction) straight to its event: no rule decides a refused connection.
    await next(page);
    await reachGate(page);
    assert.equal(await page.locator("[data-testid=rule-card]").isVisible(), false, "no rule card on S1 step 2");
    // Step 3: NS-1 registers broker-b.
    let frames = await playStep(page);
    let { card, line } = await cardAndLine(page);
    assert.equal(line.node, "NS-1");
    assert.equal(line.kind, "registered");
    checkFrames(frames, line, "registration");
    checkNumbers(card, line, ["lastUpdate", "timeoutMs", "deadline"], "registration");
    checkPlacement(card, "registration");
    await shot(page, `rule-card-S1-registered-${lang}-${size}`);
    // Step 4: P1's route answer.
    frames = await playStep(page);
    ({ card, line } = await cardAndLine(page));
    assert.equal(line.node, "P1");
    assert.equal(line.kind, "route-updated");
    checkFrames(frames, line, "route answer");
    checkNumbers(card, line, ["groups"], "route answer");
    assert.equal(line.operands.groups, 2, "broker-a and broker-b");
    checkPlacement(card, "route answer");
    await shot(page, `rule-card-S1-route-${lang}-${size}`);
    // Step 5: C1 asks NS-2, which knows no broker yet.
    frames = await playStep(page);
    ({ card, line } = await cardAndLine(page));
    assert.equal(line.node, "C1");
    checkFrames(frames, line, "TOPIC_NOT_EXIST");
    assert.equal(card.rule, "topic-not-exist");
    assert.equal(card.ops.code, "TOPIC_NOT_EXIST");
    checkPlacement(card, "TOPIC_NOT_EXIST");
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });

  for (const idle of ["on", "off"]) {
    const name = `S5 rule card: ${idle === "on" ? "idle close" : "scan expiry, idle close off"} (${lang}, ${size})`;
    test(name, { skip: short && idle === "on" }, async () => {
      const page = await open();
      await startLesson(page, "S5");
      if (idle === "off") {
        await clickInHeader(page, "about-open");
        await page.click("[data-testid=idle-off]");
        await settle(page);
        await page.keyboard.press("Escape");
      }
      // Steps 2 and 3 straight to their events; step 4 plays to the removal.
      for (let i = 0; i < 2; i++) {
        await next(page);
        await reachGate(page);
      }
      const frames = await playStep(page);
      const { card, line } = await cardAndLine(page);
      assert.equal(line.node, "NS-1");
      assert.equal(line.kind, "unregistered");
      checkRenewal(frames, line, words);
      checkFrames(frames, line, "removal");
      if (idle === "on") {
        checkNumbers(card, line, ["lastIo", "idleMs", "deadline", "now"], "idle close");
        assert.match(card.text, words.idle);
        assert.ok(card.terms.includes("idle"), "links the glossary's idle close");
      } else {
        checkNumbers(card, line, ["lastUpdate", "timeoutMs", "deadline", "now"], "scan expiry");
        assert.equal(line.operands.now, line.at);
        assert.ok(line.operands.deadline < line.operands.now);
        assert.match(card.text, words.expired);
        assert.ok(card.terms.includes("scan"), "links the glossary's scan");
      }
      checkPlacement(card, "removal");
      // The step's account tells the same rule with the card's numbers, the view's operands
      // (it once quoted broker-b's 72.006 s beside the card's 72.003 s, and an idle close
      // that, off, never came).
      const told = await page.textContent("[data-testid=observed]");
      const names = idle === "on" ? ["lastIo", "idleMs", "now"] : ["lastUpdate", "timeoutMs", "deadline", "now"];
      for (const name of names)
        assert.ok(told.includes(card.texts[name]), `the account quotes ${name} ${card.texts[name]}: ${told}`);
      const rule = idle === "on" ? "idle" : "expired";
      assert.match(told, words.told[rule]);
      assert.doesNotMatch(told, words.untold[rule]);
      await shot(page, `rule-card-S5-idle-${idle}-${lang}-${size}`);
      // Back to the step's start: the rule has not fired yet, so no card.
      await page.click("[data-testid=lesson-replay]");
      await settle(page);
      assert.equal(await page.locator("[data-testid=rule-card]").isVisible(), false, "replay hides the card");
      assert.deepEqual(page.errors, []);
      await page.context().close();
    });
  }
}
