// @ts-check
// Predict, then observe: the question's parameters are randomized per attempt, the options and
// the grade come from a separate run of the model (worker `quiz`), never from a formula here.
import { t } from "../app/i18n.js";
import { secs, scriptSeconds } from "../app/format.js";
import { esc } from "../app/html.js";

function rand(min, max) {
  const a = new Uint32Array(1);
  crypto.getRandomValues(a);
  return min + (a[0] / 2 ** 32) * (max - min);
}

function shuffle(list) {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(rand(0, i + 1));
    [list[i], list[j]] = [list[j], list[i]];
  }
  return list;
}

export class Quiz {
  // `page`: builtInText(id), run(args) → the worker's separate quiz run, loadText(text, ms).
  // `dialog`: the quiz's <dialog>, `body` the element inside it that holds the questions.
  constructor(page, dialog, body) {
    this.page = page;
    this.dialog = dialog;
    this.body = body;
    this.attempt = 0;
    /** @type {any} the question asked */
    this.q = undefined;
    this.body.addEventListener("click", (e) => {
      const b = e.target.closest("button[data-quiz]");
      if (!b) return;
      if (b.dataset.quiz === "check") this.check();
      if (b.dataset.quiz === "again") this.ask();
      if (b.dataset.quiz === "observe") this.observe();
    });
  }

  async open() {
    this.dialog.showModal();
    await this.ask();
  }

  async ask() {
    this.attempt++;
    const kind = this.attempt % 2 === 1 ? "client" : "ns";
    // Freeze somewhere in the heartbeat cycle between 60 and 100 s (ms precision).
    const freezeAt = Math.round(rand(60000, 100000));
    const base = this.page.builtInText("S5");
    const text = base.replace(/^at \S+ freeze broker-b$/m, `at ${scriptSeconds(freezeAt)} freeze broker-b`);
    const r = await this.page.run({ text, freezeAt, until: freezeAt + 200000 });
    const removal = r.removal["NS-1"];
    const correct = kind === "ns" ? removal : r.update;
    // The wrong answers are the usual mistakes, made with the model's own periods: the broker
    // timeout counted from the freeze, the scan after the timeout, a route poll too many.
    const { brokerTimeoutMs: timeout, scanIntervalMs: scan, routePollPeriodMs: poll } = r.timings;
    const cands =
      kind === "ns"
        ? [correct, freezeAt + timeout, r.lastHeartbeat + timeout + scan, freezeAt + poll]
        : [correct, removal, freezeAt + timeout, correct + poll, freezeAt + timeout + poll];
    const seen = new Set();
    const options = shuffle(
      cands.filter((ms) => {
        const k = (ms / 1000).toFixed(2);
        if (seen.has(k) || ms === null) return false;
        seen.add(k);
        return true;
      }),
    ).slice(0, 4);
    if (!options.includes(correct)) options[0] = correct;
    this.q = { kind, freezeAt, text, correct, removal, update: r.update, lastHeartbeat: r.lastHeartbeat, options };
    const question =
      kind === "ns"
        ? t("quizQuestionNs", { f: secs(freezeAt), hb: secs(r.lastHeartbeat) })
        : t("quizQuestionClient", { f: secs(freezeAt) });
    this.body.innerHTML = `<p class="muted small">${esc(t("quizParams"))}</p>
<fieldset data-testid="quiz-question" data-kind="${kind}" data-freeze-at="${freezeAt}"><legend>${esc(question)}</legend>
${options.map((ms, i) => `<label class="radio"><input type="radio" name="quiz-opt" value="${ms}" data-testid="quiz-option-${i}"> ${secs(ms, 2)}</label>`).join("")}
</fieldset>
<div class="row"><button type="button" class="primary" data-quiz="check" data-testid="quiz-check">${esc(t("quizSubmit"))}</button></div>
<div data-testid="quiz-result" class="quiz-result" aria-live="polite"></div>`;
  }

  check() {
    const picked = this.body.querySelector('input[name="quiz-opt"]:checked');
    if (!picked || !this.q) return;
    const q = this.q;
    const right = Number(picked.value) === q.correct;
    const explain =
      q.kind === "ns"
        ? t("quizExplainNs", { hb: secs(q.lastHeartbeat), r: secs(q.removal) })
        : t("quizExplainClient", { r: secs(q.removal), c: secs(q.update) });
    const result = this.body.querySelector("[data-testid=quiz-result]");
    result.dataset.correct = String(right);
    result.dataset.answerMs = String(q.correct);
    result.innerHTML = `<p class="${right ? "good" : "bad"}">${right ? "✓" : "✖"} ${esc(right ? t("quizRight", { t: secs(q.correct) }) : t("quizWrong", { t: secs(q.correct) }))}</p>
<p>${esc(explain)}</p>
<div class="row"><button type="button" data-quiz="observe" data-testid="quiz-observe">${esc(t("quizObserve"))}</button>
<button type="button" data-quiz="again" data-testid="quiz-again">${esc(t("quizAgain"))}</button></div>`;
  }

  async observe() {
    const q = this.q;
    this.dialog.close();
    await this.page.loadText(q.text, q.correct);
  }
}
