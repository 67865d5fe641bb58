// The Predict quiz as a newcomer meets it (issue 34): a timeline of the freeze and the last
// heartbeat, readable on a phone, options that are rules rather than numbers, and after the
// answer the time the model measured, equal to a separate run of the same scenario here.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, shot, clickInHeader, PHONE, DESKTOP } from "./lib/browser.mjs";
import { Simulation, builtInScenarios } from "./lib/oracle.mjs";
import { scriptSeconds } from "../../www/app/format.js";

let b;
before(async () => (b = await launch()));
after(() => b.close());

// The timeline's words as drawn: each text's box, inside the drawing and the viewport.
function timelineWords(page) {
  return page.evaluate(() => {
    const svg = document.querySelector("[data-testid=quiz-timeline]");
    const box = (r) => ({ x: r.left, y: r.top, w: r.width, h: r.height });
    const texts = [...svg.querySelectorAll("text")].map((el) => ({
      text: el.textContent,
      mark: el.parentElement.dataset.mark || el.parentElement.dataset.ruler,
      ms: Number(el.parentElement.dataset.ms),
      ...box(el.getBoundingClientRect()),
    }));
    return {
      svg: box(svg.getBoundingClientRect()),
      visible: svg.checkVisibility(),
      vw: innerWidth,
      texts,
      size: Math.min(...[...svg.querySelectorAll("text")].map((el) => parseFloat(getComputedStyle(el).fontSize))),
    };
  });
}

function apart(words, label) {
  const { texts, svg, vw } = words;
  for (const a of texts) {
    assert.ok(a.w > 0 && a.h > 0, `${label}: "${a.text}" has a size`);
    assert.ok(a.x >= svg.x - 0.5 && a.x + a.w <= svg.x + svg.w + 0.5, `${label}: "${a.text}" inside the drawing`);
    assert.ok(a.x >= 0 && a.x + a.w <= vw, `${label}: "${a.text}" on screen`);
    for (const c of texts)
      if (a !== c)
        assert.ok(
          a.x + a.w <= c.x + 0.5 || c.x + c.w <= a.x + 0.5 || a.y + a.h <= c.y + 0.5 || c.y + c.h <= a.y + 0.5,
          `${label}: "${a.text}" overlaps "${c.text}"`,
        );
  }
}

// The model's own answer for the question asked: the same scenario run here.
function modelSays(freezeAt) {
  const base = builtInScenarios().find((x) => x.id === "S5").text;
  const text = base.replace(/^at \S+ freeze broker-b$/m, `at ${scriptSeconds(freezeAt)} freeze broker-b`);
  const sim = new Simulation(text);
  try {
    sim.seek(freezeAt + 200000);
    const m = sim.view().measurements[0];
    return {
      ns: Object.fromEntries(m.nsRemoval)["NS-1"],
      client: Object.fromEntries(m.clientUpdate).P1,
    };
  } finally {
    sim.free();
  }
}

for (const [size, viewport] of [
  ["desktop", DESKTOP],
  ["phone", PHONE],
]) {
  test(`the quiz draws its timeline, offers rules and then gives the model's time (${size})`, async () => {
    const page = await b.page({
      viewport,
      dashboard: false,
      context: size === "phone" ? { isMobile: true, hasTouch: true } : {},
    });
    await clickInHeader(page, "quiz-open");
    // Both questions: P1's route first, then NS-1's removal.
    for (const kind of ["client", "ns"]) {
      const q = page.locator(`[data-testid=quiz-question][data-kind=${kind}]`);
      if (kind === "ns") await page.click("[data-testid=quiz-again]");
      await q.waitFor();
      const freezeAt = Number(await q.getAttribute("data-freeze-at"));
      let words = await timelineWords(page);
      assert.ok(words.visible, "the timeline is seen");
      assert.ok(words.size >= 12, `its words are at least 12 px (${words.size})`);
      apart(words, `${kind} before the answer`);
      const marks = Object.fromEntries(words.texts.filter((x) => x.mark).map((x) => [x.mark, x]));
      assert.match(marks.hb.text, /^last heartbeat /);
      assert.match(marks.freeze.text, /^freeze /);
      assert.equal(marks.freeze.ms, freezeAt);
      assert.match(marks.idle.text, /idle timeout: 120 s/);
      assert.equal(marks.removal, undefined, "the answer is not drawn before it is given");
      const options = await page
        .locator("[data-testid^=quiz-option-]")
        .evaluateAll((els) => els.map((e) => ({ id: e.value, text: e.closest("label").textContent.trim() })));
      assert.ok(options.length >= 3, "at least three rules");
      for (const o of options) {
        assert.doesNotMatch(o.text, /\d+\.\d+ s/, `a rule, not a time: ${o.text}`);
        assert.match(o.text, /heartbeat|freeze|poll|removes/, `a rule: ${o.text}`);
      }
      await shot(page, `quiz-${kind}-${size}`);
      await page.click("[data-testid=quiz-option-0]");
      await page.click("[data-testid=quiz-check]");
      const result = page.locator("[data-testid=quiz-result]");
      await result.locator("[data-testid=quiz-time]").waitFor();
      const model = modelSays(freezeAt)[kind];
      const shown = Number(await result.locator("[data-testid=quiz-time]").getAttribute("data-ms"));
      assert.equal(shown, model, "the time given is the model's");
      assert.ok(
        (await result.textContent()).includes(`${(model / 1000).toFixed(3)} s`),
        `the time is said: ${await result.textContent()}`,
      );
      words = await timelineWords(page);
      apart(words, `${kind} after the answer`);
      const after = Object.fromEntries(words.texts.filter((x) => x.mark).map((x) => [x.mark, x]));
      assert.equal(after[kind === "ns" ? "removal" : "update"].ms, model, "drawn at the model's time");
      await shot(page, `quiz-${kind}-answered-${size}`);
    }
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
}
