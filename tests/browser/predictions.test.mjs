// Predictions that predict (issue 34): every lesson question declares its answer in the default
// run and the gate that resolves it, and while it is asked nothing on the page gives it away.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch } from "./lib/browser.mjs";
import { LESSONS, lesson, startLesson, answer, reachGate, next } from "./lib/lesson-steps.mjs";
import { LESSONS as STEPS } from "../../www/lessons/index.js";

let b;
before(async () => (b = await launch()));
after(() => b.close());

// What the page shows while a question is asked: the text visible outside the question, the
// setup sentence, the correct option's words and the nodes ringed on the diagram.
function asked(page, correct) {
  return page.evaluate((id) => {
    const q = document.querySelector("[data-testid=lesson-question]");
    const label = q.querySelector(`[data-option="${id}"]`).closest("label").textContent.trim();
    const others = [...q.querySelectorAll("[data-option]")]
      .filter((i) => i.dataset.option !== id)
      .map((i) => i.closest("label").textContent)
      .join(" ");
    const legend = q.querySelector("legend").textContent;
    const display = q.style.display;
    q.style.display = "none";
    const outside = document.body.innerText;
    q.style.display = display;
    return {
      label,
      others,
      legend,
      outside,
      setup: document.querySelector("[data-testid=lesson] p.setup").textContent,
      ringed: [...document.querySelectorAll("#diagram [data-highlighted=true]")].map((g) => g.dataset.node),
    };
  }, correct);
}

// Pairs of neighbouring content words (four letters or more): a phrase, where one shared word
// ("route", "send") is only the subject matter.
function pairs(s) {
  const w = s.toLowerCase().match(/[\p{L}\p{N}_-]{4,}/gu) || [];
  return new Set(w.slice(1).map((x, i) => `${w[i]} ${x}`));
}

test("every prediction declares its answer and gate, and nothing visible gives it away", async () => {
  const page = await b.page({ dashboard: false });
  const problems = [];
  for (const id of LESSONS) {
    await startLesson(page, id);
    for (let guard = 0; guard < 20; guard++) {
      const l = await lesson(page);
      const step = STEPS[id][l.step];
      if (l.asking) {
        const where = `${id} step ${l.step + 1}`;
        const { ask } = step;
        assert.ok(
          ask.options.some((o) => o.id === ask.answer),
          `${where}: declared answer ${ask.answer} is an option`,
        );
        assert.equal(ask.resolves, "gate", `${where}: resolved by the step's gate`);
        assert.ok(step.gate, `${where}: the step has a gate to resolve it`);
        const seen = await asked(page, ask.answer);
        // A one-word answer ("No", "Both") is on any page; a phrase is not.
        if (seen.label.split(/\s+/).length >= 3 && seen.outside.includes(seen.label))
          problems.push(`${where}: "${seen.label}" shown outside the question`);
        // The setup sentence holds no phrase of the answer that the other options and the
        // question lack.
        const setup = pairs(seen.setup);
        const shared = new Set([...pairs(seen.others), ...pairs(seen.legend)]);
        const told = [...pairs(seen.label)].filter((w) => !shared.has(w) && setup.has(w));
        if (told.length) problems.push(`${where}: the setup tells ${told.join(", ")}: ${seen.setup}`);
        for (const node of seen.ringed)
          assert.ok(
            !new RegExp(`(^|[^\\w-])${node}([^\\w-]|$)`).test(seen.label),
            `${where}: ${node}, named by the answer, is ringed while asking`,
          );
        await answer(page, 0);
        await reachGate(page);
        const graded = await page.locator("[data-testid=verdict]").getAttribute("data-correct");
        assert.equal(ask.answer, graded, `${where}: the declared answer is the model's grade`);
      } else if (l.waiting) {
        await reachGate(page);
      }
      if ((await lesson(page)).step === l.steps - 1) break;
      await next(page);
    }
  }
  assert.deepEqual(problems, []);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
