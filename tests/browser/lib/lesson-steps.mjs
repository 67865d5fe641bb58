// Driving a lesson as a learner does, step by step: shared by the lesson tests.
import { settle } from "./browser.mjs";

export const lessonEl = "[data-testid=lesson]";
export const LESSONS = ["intro", "S1", "S2", "S3", "S4", "S5", "S6", "S7", "S8", "S9", "S10"];
export const lesson = (page) => page.evaluate(() => window.__rmqsim.lesson());

export async function startLesson(page, id) {
  await page.selectOption("[data-testid=lesson-select]", id);
  await page.waitForFunction((v) => {
    const l = window.__rmqsim.lesson();
    return l && l.id === v && l.step === 0;
  }, id);
  await settle(page);
}

// Answers a step's question with `pick` (an option index, or a function of the options).
export async function answer(page, pick = 0) {
  const options = await page.locator("[data-testid^=predict-]").evaluateAll((els) => els.map((e) => e.dataset.option));
  const i = typeof pick === "function" ? pick(options) : pick;
  await page.locator(`[data-testid=predict-${i}]`).check();
  await page.click("[data-testid=lesson-continue]");
  return options[i];
}

// From a step waiting for its event: straight to the event (the approach is tested apart).
export async function reachGate(page) {
  const l = await lesson(page);
  if (l.asking) await answer(page);
  if ((await lesson(page)).waiting) {
    // The event may come while the button is reached; either way the step ends.
    await page.evaluate(() => {
      const skip = document.querySelector("[data-testid=lesson-skip]");
      if (skip.offsetParent) skip.click();
    });
    await page.waitForFunction(() => !window.__rmqsim.lesson().waiting, null, { timeout: 60000 });
  }
  await settle(page);
}

export async function next(page) {
  const l = await lesson(page);
  await page.click("[data-testid=lesson-continue]");
  await page.waitForFunction((s) => {
    const x = window.__rmqsim.lesson();
    return x && (x.step > s || x.done);
  }, l.step);
  // A step that waits for an event plays on its own; otherwise the page comes to rest.
  if (!(await lesson(page)).waiting) await settle(page);
}

// A record of every frame the page draws from now on (the hold rule's evidence, read by
// holdProblems in www/lessons/hold.js): the lesson's state, the time the diagram is drawn at,
// and each message drawn with how far along its edge, how opaque, and whether its words show.
export async function recordFrames(page) {
  await page.evaluate(() => {
    const frames = [];
    const w = /** @type {any} */ (window);
    // A new record ends the one before.
    const gen = (w.__recordGen || 0) + 1;
    w.__recordGen = gen;
    w.__frames = frames;
    w.__recording = true;
    const shown = (label) => !!label && label.getAttribute("display") !== "none" && label.textContent.trim() !== "";
    const sample = () => {
      if (!w.__recording || w.__recordGen !== gen) return;
      const l = w.__rmqsim.lesson();
      const msgs = [...document.querySelectorAll("#diagram g.token, #diagram g.flight")].map((g) => {
        const label = g.dataset.token
          ? document.querySelector(`[data-for-token="${g.dataset.token}"]`)
          : document.querySelector(`[data-for="${g.dataset.flightId}"]`);
        return {
          from: g.dataset.from,
          to: g.dataset.to,
          kind: g.dataset.msgType,
          p: Number(g.dataset.p),
          opacity: Number(getComputedStyle(g).opacity),
          label: shown(label),
        };
      });
      const clock = Number(document.querySelector("[data-testid=clock]").dataset.simMs);
      frames.push({ waiting: !!(l && l.waiting), clock, msgs });
      requestAnimationFrame(sample);
    };
    requestAnimationFrame(sample);
  });
}

// Ends the record once the page has drawn `after` more frames; returns it.
export async function stopFrames(page, after = 3) {
  return page.evaluate(
    (n) =>
      new Promise((done) => {
        const w = /** @type {any} */ (window);
        const until = w.__frames.length + n;
        const wait = () => {
          if (w.__frames.length < until) return requestAnimationFrame(wait);
          w.__recording = false;
          done(w.__frames);
        };
        wait();
      }),
    after,
  );
}
