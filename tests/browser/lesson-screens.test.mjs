// Every step of every lesson as a learner sees it (issue 14): on one screen at desktop and
// phone size, and readable on a small phone; and each gated step's subject seen travelling
// before its event (issue 34, the hold rule), from a record of every frame drawn. A file of
// its own so that it runs beside the other browser tests: these walks are most of the lessons'
// time.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, shot, simTime, PHONE, DESKTOP, SHORT_PHONE } from "./lib/browser.mjs";
import { LESSONS, lesson, startLesson, reachGate, next, recordFrames, stopFrames } from "./lib/lesson-steps.mjs";
import { LESSONS as STEPS } from "../../www/lessons/index.js";
import { holdProblems } from "./lib/hold-record.mjs";

let b;
before(async () => (b = await launch()));
after(() => b.close());

// The narration, each highlighted node and the step's panel are all on screen, unscrolled.
async function fitsOneScreen(page, label) {
  const r = await page.evaluate(() => {
    const l = window.__rmqsim.lesson();
    const vw = window.innerWidth;
    const vh = window.innerHeight;
    const bad = [];
    const on = (el, what) => {
      if (!el) return bad.push(`${what}: missing`);
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) return bad.push(`${what}: not shown`);
      if (r.top < -1 || r.left < -1 || r.bottom > vh + 1 || r.right > vw + 1)
        bad.push(
          `${what}: ${Math.round(r.left)},${Math.round(r.top)}–${Math.round(r.right)},${Math.round(r.bottom)} outside ${vw}×${vh}`,
        );
      return r;
    };
    const panel = document.querySelector("[data-testid=lesson]");
    on(document.querySelector("[data-testid=narration]"), "narration");
    on(document.querySelector("[data-testid=lesson-continue]"), "Continue");
    if (panel.scrollHeight > panel.clientHeight + 2)
      bad.push(`lesson panel scrolls (${panel.scrollHeight} > ${panel.clientHeight})`);
    const sheet = getComputedStyle(panel).position === "fixed" ? panel.getBoundingClientRect() : null;
    for (const n of l.focus.nodes) {
      const el = document.querySelector(`[data-testid="node-${n}"]`);
      const r = on(el, `node ${n}`);
      if (el && el.dataset.highlighted !== "true") bad.push(`node ${n} not highlighted`);
      if (r && sheet && r.bottom > sheet.top + 1) bad.push(`node ${n} under the lesson sheet`);
    }
    if (l.panel) on(document.querySelector("[data-testid=lesson-context]"), `panel ${l.panel}`);
    return { bad, step: l.step };
  });
  assert.deepEqual(r.bad, [], `${label} step ${r.step}`);
}

for (const [size, viewport] of [
  ["desktop", DESKTOP],
  ["phone", PHONE],
]) {
  test(`every step of every lesson fits one screen (${size})`, async () => {
    const page = await b.page({
      viewport,
      dashboard: false,
      context: size === "phone" ? { isMobile: true, hasTouch: true } : {},
    });
    // Each gated step's breaches of the hold rule, by step (the panel's numbering, from 1).
    const held = [];
    for (const id of LESSONS) {
      await startLesson(page, id);
      // From each step's first frame on (a gated step plays as it opens).
      await recordFrames(page);
      for (let guard = 0; guard < 20; guard++) {
        const l = await lesson(page);
        await fitsOneScreen(page, `${id} (${size}) before`);
        await shot(page, `lesson-${id}-step${l.step}-${size}`);
        if (l.waiting || l.asking) {
          const subject = STEPS[id][l.step].subject;
          await reachGate(page);
          if (subject) {
            const problems = holdProblems(await stopFrames(page), subject, await simTime(page));
            if (problems.length) held.push(`${id} step ${l.step + 1} (${size}): ${problems.join("; ")}`);
          }
          await fitsOneScreen(page, `${id} (${size}) after the event`);
          await shot(page, `lesson-${id}-step${l.step}-done-${size}`);
        }
        if ((await lesson(page)).step === l.steps - 1) break;
        await recordFrames(page);
        await next(page);
      }
      await stopFrames(page, 0);
    }
    assert.deepEqual(held, [], "each step's subject seen travelling before its event");
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
}

// A short phone (360×640: the sheet at its smallest, 180 px) may scroll the sheet's text, but
// the learner always sees the step's title, the newest account of what happened and the
// button that goes on, uncovered, and every node the step names above the sheet.
async function readableOnSmallPhone(page, label) {
  const r = await page.evaluate(() => {
    const l = window.__rmqsim.lesson();
    const bad = [];
    const vh = window.innerHeight;
    const panel = document.querySelector("[data-testid=lesson]");
    const sheet = panel.getBoundingClientRect();
    const seen = (el, what) => {
      if (!el) return bad.push(`${what}: missing`);
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) return bad.push(`${what}: not shown`);
      if (r.top < sheet.top - 1 || r.bottom > Math.min(vh, sheet.bottom) + 1)
        return bad.push(
          `${what}: ${Math.round(r.top)}–${Math.round(r.bottom)} outside the sheet ${Math.round(sheet.top)}–${Math.round(Math.min(vh, sheet.bottom))}`,
        );
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + Math.min(r.height / 2, 8));
      if (!hit || !(el === hit || el.contains(hit)))
        bad.push(`${what}: covered by ${hit ? hit.className || hit.tagName : "nothing"}`);
    };
    seen(document.querySelector("#lesson-title"), "title");
    const go = l.waiting && !l.asking ? "[data-testid=lesson-skip]" : "[data-testid=lesson-continue]";
    seen(document.querySelector(go), go);
    const newest = document.querySelector("[data-testid=verdict]") || document.querySelector("[data-testid=observed]");
    if (newest) seen(newest, "the newest account");
    for (const n of l.focus.nodes) {
      const r = document.querySelector(`[data-testid="node-${n}"]`).getBoundingClientRect();
      if (r.bottom > sheet.top + 1) bad.push(`node ${n} under the lesson sheet`);
    }
    // Where things were, so that a failure explains itself.
    const stage = document.getElementById("stage").getBoundingClientRect();
    const where = `sheet ${Math.round(sheet.top)}–${Math.round(sheet.bottom)} scrolled ${panel.scrollTop} of ${panel.scrollHeight - panel.clientHeight}, stage bottom ${Math.round(stage.bottom)}`;
    return { bad, step: l.step, where };
  });
  assert.deepEqual(r.bad, [], `${label} step ${r.step} (${r.where})`);
}

test("every step of every lesson reads on a short phone (360×640): title, newest account and Continue in view", async () => {
  const page = await b.page({ viewport: SHORT_PHONE, dashboard: false, context: { isMobile: true, hasTouch: true } });
  for (const id of LESSONS) {
    await startLesson(page, id);
    for (let guard = 0; guard < 20; guard++) {
      const l = await lesson(page);
      await readableOnSmallPhone(page, `${id} before`);
      if (l.waiting || l.asking) {
        await reachGate(page);
        await readableOnSmallPhone(page, `${id} after the event`);
        await shot(page, `lesson-${id}-step${l.step}-done-360x640`);
      }
      if ((await lesson(page)).step === l.steps - 1) break;
      await next(page);
    }
  }
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
