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
