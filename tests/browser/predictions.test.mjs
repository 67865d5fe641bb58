// Predictions that predict (issue 34): every lesson question declares its answer in the default
// run and the gate that resolves it, is asked at least ASK_MARGIN_MS of simulated time and
// ASK_FRAMES drawn frames before that event, and while it is asked nothing on the page gives it
// away; once graded, the step shows one verdict, not a tick beside a cross.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, settle } from "./lib/browser.mjs";
import { LESSONS, lesson, startLesson, answer, reachGate, next } from "./lib/lesson-steps.mjs";
import { LESSONS as STEPS } from "../../www/lessons/index.js";
import { ASK_MARGIN_MS, ASK_FRAMES } from "../../www/lessons/lesson-runner.js";

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

// Records every frame from now on (the question shown, then the clock running to the event):
// whether the step asks or waits, and the time the diagram is drawn at.
function recordAsk(page) {
  return page.evaluate(() => {
    const w = /** @type {any} */ (window);
    const frames = (w.__askFrames = []);
    const gen = (w.__askGen = (w.__askGen || 0) + 1);
    const tick = () => {
      if (w.__askGen !== gen) return;
      const l = w.__rmqsim.lesson();
      const clock = Number(document.querySelector("[data-testid=clock]").dataset.simMs);
      frames.push({ asking: l.asking, waiting: l.waiting, clock });
      requestAnimationFrame(tick);
    };
    tick();
  });
}

function stopAsk(page) {
  return page.evaluate(() => {
    const w = /** @type {any} */ (window);
    w.__askGen++;
    return w.__askFrames;
  });
}

// The margin a frame record shows: simulated time from the question's first frame to the event
// (`hitAt`), and the frames drawn with the clock on its way there (answered, not yet paused).
function margin(frames, hitAt) {
  const asked = frames.find((f) => f.asking);
  const drawn = frames.filter((f) => !f.asking && f.waiting && f.clock < hitAt).length;
  return { ms: asked ? hitAt - asked.clock : NaN, frames: drawn };
}

// The marks and colours of a graded step's account: every ✓ or ✖ in the narration (the
// lesson's summary aside), and whether any of its lines is drawn in the "right" green.
function marks(page) {
  return page.evaluate(() => {
    const n = document.querySelector("[data-testid=narration]");
    const hex = getComputedStyle(document.documentElement).getPropertyValue("--ok").trim();
    const probe = document.createElement("span");
    probe.style.color = hex;
    document.body.appendChild(probe);
    const ok = getComputedStyle(probe).color;
    probe.remove();
    const lines = [...n.querySelectorAll(":scope > p")];
    return {
      marks:
        lines
          .map((p) => p.textContent)
          .join(" ")
          .match(/[✓✖]/g) || [],
      green: lines.filter((p) => getComputedStyle(p).color === ok).map((p) => p.dataset.testid || p.className),
    };
  });
}

// Pairs of neighbouring content words (four letters or more): a phrase, where one shared word
// ("route", "send") is only the subject matter.
function pairs(s) {
  const w = s.toLowerCase().match(/[\p{L}\p{N}_-]{4,}/gu) || [];
  return new Set(w.slice(1).map((x, i) => `${w[i]} ${x}`));
}

test("every prediction declares its answer and gate, is asked by the margin, and nothing visible gives it away", async (t) => {
  const page = await b.page({ dashboard: false });
  const problems = [];
  const short = [];
  const mixed = [];
  let wrong = 0;
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
        // The clock runs to the event as a learner who does not skip sees it.
        await recordAsk(page);
        await answer(page, 0);
        await page.waitForFunction(() => !window.__rmqsim.lesson().waiting, null, { timeout: 120000 });
        await settle(page);
        const { hitAt } = await lesson(page);
        const m = margin(await stopAsk(page), hitAt);
        t.diagnostic(`${where}: asked ${m.ms} ms and ${m.frames} frames before its event`);
        if (!(m.ms >= ASK_MARGIN_MS && m.frames >= ASK_FRAMES))
          short.push(`${where}: asked ${m.ms} ms and ${m.frames} frames before its event at ${hitAt} ms`);
        const verdict = page.locator("[data-testid=verdict]");
        const graded = await verdict.getAttribute("data-correct");
        assert.equal(ask.answer, graded, `${where}: the declared answer is the model's grade`);
        // One verdict: its mark alone, and no line in the "right" green beside a wrong guess.
        const right = (await verdict.getAttribute("data-right")) === "true";
        const shown = await marks(page);
        if (shown.marks.join("") !== (right ? "✓" : "✖"))
          mixed.push(`${where}: ${right ? "right" : "wrong"}, marked ${shown.marks.join(" ")}`);
        if (!right) {
          wrong++;
          if (shown.green.length) mixed.push(`${where}: wrong, ${shown.green.join(", ")} in green`);
        }
      } else if (l.waiting) {
        await reachGate(page);
      }
      if ((await lesson(page)).step === l.steps - 1) break;
      await next(page);
    }
  }
  assert.ok(wrong >= 3, `some first options are wrong guesses (${wrong})`);
  // Nothing gives an answer away; one verdict, its mark alone and nothing green beside a wrong
  // guess; each question asked at least ASK_MARGIN_MS and ASK_FRAMES drawn frames before its event.
  assert.deepEqual({ problems, mixed, short }, { problems: [], mixed: [], short: [] });
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
