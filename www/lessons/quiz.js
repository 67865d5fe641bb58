// @ts-check
// Predict, then observe: rules beside a timeline; times and grade from a separate model run.
import { t } from "../app/i18n.js";
import { secs, clockText, scriptSeconds } from "../app/format.js";
import { esc } from "../app/html.js";
import { textWidth } from "../diagram/labels.js";
import { font } from "../diagram/nodes.js";

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

const MIN_GAP_MS = 1000;

// Rules timed with run `r`'s operands; right: the nearest the measured time (a near twin is out).
export function quizRules(kind, freezeAt, r) {
  const { scanIntervalMs: scan, routePollPeriodMs: poll, idleCloseMs, brokerTimeoutMs } = r.timings;
  const idle = idleCloseMs ?? brokerTimeoutMs;
  const hb = r.lastHeartbeat;
  const next = r.nextPoll;
  const s = { idle: clockText(idle), scan: clockText(scan), poll: clockText(poll) };
  const rules =
    kind === "ns"
      ? {
          "hb-idle": hb + idle,
          "freeze-idle": freezeAt + idle,
          "hb-idle-scan": hb + idle + scan,
          "freeze-scan": freezeAt + scan,
        }
      : {
          removal: r.removal["NS-1"],
          "next-poll": next,
          "freeze-idle": freezeAt + idle,
          "second-poll": next && next + poll,
        };
  const measured = kind === "ns" ? r.removal["NS-1"] : r.update;
  const list = Object.entries(rules).map(([id, ms]) => ({ id, ms, text: t(`quizRule_${id}`, s) }));
  const right = list.reduce((a, b) => (Math.abs(b.ms - measured) < Math.abs(a.ms - measured) ? b : a));
  const options = list.filter((x) => x === right || Math.abs(x.ms - right.ms) >= MIN_GAP_MS);
  return { options, right: right.id, measured };
}

const TL = { pad: 6, rows: [14, 30, 70, 86], axis: 46, bars: 108 };

// In CSS px: a mark a row, words right of it above the axis, left below (lines cross no words).
export function timeline(marks, bars, width, times) {
  const from = Math.floor((Math.min(...times) - 10000) / 10000) * 10000;
  const to = Math.ceil((Math.max(...times) + 10000) / 10000) * 10000;
  const k = (width - 2 * TL.pad) / (to - from);
  const a = TL.axis;
  const x = (ms) => TL.pad + (ms - from) * k;
  const text = (m, left, y) => {
    m.left = left;
    m.y = y;
    return `<text x="${left.toFixed(1)}" y="${y}" font-size="12">${esc(m.text)}</text>`;
  };
  let svg = `<line x1="${TL.pad}" y1="${a}" x2="${width - TL.pad}" y2="${a}"/>`;
  for (const m of marks) {
    const y = TL.rows[m.row];
    m.x = x(m.at);
    m.w = textWidth(m.text, font(12));
    const right = m.x + 3 + m.w <= width - TL.pad ? m.x + 3 : null;
    const left = m.x - 3 - m.w >= TL.pad ? m.x - 3 - m.w : null;
    const at = (y < a ? (right ?? left) : (left ?? right)) ?? width - TL.pad - m.w;
    svg += `<g class="tl-mark" data-mark="${m.id}" data-ms="${m.at}"><line x1="${m.x}" y1="${y < a ? y + 3 : a}" x2="${m.x}" y2="${y < a ? a : y - 12}"/><circle cx="${m.x}" cy="${a}" r="3.5"/>${text(m, Math.max(TL.pad, at), y)}</g>`;
  }
  bars.forEach((b, i) => {
    b.len = b.ms * k;
    b.w = textWidth(b.text, font(12));
    svg += `<g class="tl-bar" data-mark="${b.id}" data-ms="${b.ms}">${text(b, TL.pad, TL.bars + i * 24)}<rect x="${TL.pad}" y="${b.y + 4}" width="${b.len}" height="5"/></g>`;
  });
  const h = TL.bars + bars.length * 24;
  return {
    from,
    to,
    svg: `<svg class="quiz-timeline" data-testid="quiz-timeline" width="${width}" height="${h}" aria-hidden="true">${svg}</svg>`,
  };
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
    const { options, right, measured } = quizRules(kind, freezeAt, r);
    const removal = r.removal["NS-1"];
    this.q = { kind, freezeAt, text, r, options, right, correct: measured, removal, update: r.update };
    const question =
      kind === "ns"
        ? t("quizQuestionNs", { f: secs(freezeAt), hb: secs(r.lastHeartbeat) })
        : t("quizQuestionClient", { f: secs(freezeAt) });
    this.body.innerHTML = `<p class="muted small">${esc(t("quizParams"))}</p>
<fieldset data-testid="quiz-question" data-kind="${kind}" data-freeze-at="${freezeAt}"><legend>${esc(question)}</legend>
<div class="quiz-figure" data-testid="quiz-figure"></div>
${shuffle(options)
  .map(
    (o, i) =>
      `<label class="radio"><input type="radio" name="quiz-opt" value="${esc(o.id)}" data-testid="quiz-option-${i}"> ${esc(o.text)}</label>`,
  )
  .join("")}
</fieldset>
<div class="row"><button type="button" class="primary" data-quiz="check" data-testid="quiz-check">${esc(t("quizSubmit"))}</button></div>
<div data-testid="quiz-result" class="quiz-result" aria-live="polite"></div>`;
    this.drawTimeline(false);
  }

  drawTimeline(answered) {
    const q = this.q;
    const { timings, lastHeartbeat } = q.r;
    const mark = (id, at, row) => ({ id, at, row, text: t(`tl_${id}`, { t: secs(at) }) });
    const marks = [mark("hb", lastHeartbeat, 0), mark("freeze", q.freezeAt, 1)];
    if (answered) marks.push(mark("removal", q.removal, 2));
    if (answered && q.kind === "client") marks.push(mark("update", q.update, 3));
    const idle = timings.idleCloseMs ?? timings.brokerTimeoutMs;
    const [kind, ms] = q.kind === "ns" ? ["scan", timings.scanIntervalMs] : ["route-poll", timings.routePollPeriodMs];
    const bars = [
      { id: "idle", ms: idle, text: t("tlIdle", { s: clockText(idle) }) },
      { id: kind, ms, text: `${t(`timer_${kind}`)}: ${t("timerEvery", { s: clockText(ms) })}` },
    ];
    const times = [...marks.map((m) => m.at), ...q.options.map((o) => o.ms), q.correct];
    const figure = this.body.querySelector("[data-testid=quiz-figure]");
    figure.innerHTML = timeline(marks, bars, Math.max(280, Math.min(560, figure.clientWidth)), times).svg;
  }

  check() {
    const picked = this.body.querySelector('input[name="quiz-opt"]:checked');
    if (!picked || !this.q) return;
    const q = this.q;
    const right = picked.value === q.right;
    const rule = this.body.querySelector(`input[value="${q.right}"]`).parentNode.textContent.trim();
    const explain =
      q.kind === "ns"
        ? t("quizExplainNs", { hb: secs(q.r.lastHeartbeat), r: secs(q.removal) })
        : t("quizExplainClient", { r: secs(q.removal), c: secs(q.update) });
    this.drawTimeline(true);
    const result = this.body.querySelector("[data-testid=quiz-result]");
    result.dataset.correct = String(right);
    result.dataset.answerMs = String(q.correct);
    result.innerHTML = `<p class="${right ? "good" : "bad"}">${right ? "✓" : "✖"} ${esc(t(right ? "quizRight" : "quizWrong", { rule }))}</p>
<p data-testid="quiz-time" data-ms="${q.correct}">${esc(explain)}</p>
<div class="row"><button type="button" data-quiz="observe" data-testid="quiz-observe">${esc(t("quizObserve"))}</button>
<button type="button" data-quiz="again" data-testid="quiz-again">${esc(t("quizAgain"))}</button></div>`;
  }

  async observe() {
    const q = this.q;
    this.dialog.close();
    await this.page.loadText(q.text, q.correct);
  }
}
