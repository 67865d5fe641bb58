// @ts-check
// Predict, then observe: the question's parameters are randomized per attempt; the learner picks
// a rule ("last heartbeat + 120 s"), drawn beside a timeline of the freeze and the last
// heartbeat. Every time shown comes from a separate run of the model (worker `quiz`): its
// operands (last heartbeat, periods, P1's next poll) and the measured time the grade rests on.
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

// Two rules closer than this are one option to a learner reading a timeline.
const MIN_GAP_MS = 1000;

/**
 * The rules offered for question `kind` ("ns": when NS-1 removes broker-b; "client": when P1's
 * cached route drops it), each with its time from the model run `r`: the usual right and wrong
 * ways to count, with the model's own periods. The right one is the rule nearest the measured
 * time (`measured`), so the grade rests on the model, never on which rule this list calls right.
 * @param {string} kind @param {number} freezeAt @param {any} r the worker's quiz answer
 */
export function quizRules(kind, freezeAt, r) {
  const { scanIntervalMs: scan, routePollPeriodMs: poll, idleCloseMs, brokerTimeoutMs } = r.timings;
  const idle = idleCloseMs ?? brokerTimeoutMs;
  const hb = r.lastHeartbeat;
  const s = { idle: clockText(idle), scan: clockText(scan), poll: clockText(poll) };
  const rules =
    kind === "ns"
      ? [
          ["hb-idle", hb + idle],
          ["freeze-idle", freezeAt + idle],
          ["hb-idle-scan", hb + idle + scan],
          ["freeze-scan", freezeAt + scan],
        ]
      : [
          ["removal", r.removal["NS-1"]],
          ["next-poll", r.nextPoll],
          ["freeze-idle", freezeAt + idle],
          ["second-poll", r.nextPoll === null ? null : r.nextPoll + poll],
        ];
  const measured = kind === "ns" ? r.removal["NS-1"] : r.update;
  const list = rules
    .filter(([, ms]) => ms !== null && ms !== undefined)
    .map(([id, ms]) => ({ id, ms, text: t(`quizRule_${id}`, s) }));
  const right = list.reduce((a, b) => (Math.abs(b.ms - measured) < Math.abs(a.ms - measured) ? b : a));
  // A wrong rule landing on the right one's time would be right too: it is left out.
  const options = list.filter((x) => x === right || Math.abs(x.ms - right.ms) >= MIN_GAP_MS);
  return { options, right: right.id, measured };
}

// The timeline's geometry: rows of words above and below its axis, and the scale bars.
const TL = { pad: 6, size: 12, rows: [14, 30, 70, 86], axis: 46, ruler: 108, rulerH: 24 };

/**
 * Where the timeline puts each mark and its words (`width` px wide, spanning `times`): marks at
 * their times on one axis, each on its own row so that no two labels meet however close the
 * times, its words beside it (right of the marks above the axis, left of those below, so that
 * no mark's line crosses another's words) and inside the width; below, each period as a bar of
 * its length on the same scale.
 * @param {{ id: string, at: number, row: number, text: string }[]} marks
 * @param {{ id: string, ms: number, text: string }[]} rulers
 * @param {number} width
 * @param {number[]} times
 */
export function timelineLayout(marks, rulers, width, times) {
  const from = Math.floor((Math.min(...times) - 10000) / 10000) * 10000;
  const to = Math.ceil((Math.max(...times) + 10000) / 10000) * 10000;
  const k = (width - 2 * TL.pad) / (to - from);
  const x = (ms) => TL.pad + (ms - from) * k;
  const f = font(TL.size);
  const place = (px, row, text) => {
    const w = textWidth(text, f);
    const right = px + 3 + w <= width - TL.pad ? px + 3 : null;
    const left = px - 3 - w >= TL.pad ? px - 3 - w : null;
    // On its side of the mark, else the other, else as near as the width allows.
    const at = (TL.rows[row] < TL.axis ? (right ?? left) : (left ?? right)) ?? width - TL.pad - w;
    return { left: Math.max(TL.pad, at), w };
  };
  const placed = marks.map((m) => ({ ...m, x: x(m.at), y: TL.rows[m.row], ...place(x(m.at), m.row, m.text) }));
  const bars = rulers.map((r, i) => {
    const y = TL.ruler + i * TL.rulerH;
    return { ...r, y, x: TL.pad, len: r.ms * k, left: TL.pad, w: textWidth(r.text, f) };
  });
  const ticks = [];
  for (let ms = from; ms <= to; ms += 10000) ticks.push({ x: x(ms), major: ms % 60000 === 0 });
  return { from, to, marks: placed, bars, ticks, height: TL.ruler + rulers.length * TL.rulerH };
}

// The timeline as SVG, drawn at its width in CSS pixels so that its words keep their size.
export function timelineSvg(marks, rulers, width, times) {
  const L = timelineLayout(marks, rulers, width, times);
  const a = TL.axis;
  const ticks = L.ticks
    .map(
      (k) =>
        `<line class="tl-tick" x1="${k.x.toFixed(1)}" x2="${k.x.toFixed(1)}" y1="${a - (k.major ? 5 : 3)}" y2="${a + (k.major ? 5 : 3)}"/>`,
    )
    .join("");
  const marksSvg = L.marks
    .map((m) => {
      const [y1, y2] = m.y < a ? [m.y + 3, a] : [a, m.y - 12];
      return `<g class="tl-mark tl-${esc(m.id)}" data-mark="${esc(m.id)}" data-ms="${m.at}"><line x1="${m.x.toFixed(1)}" x2="${m.x.toFixed(1)}" y1="${y1}" y2="${y2}"/><circle cx="${m.x.toFixed(1)}" cy="${a}" r="3.5"/><text x="${m.left.toFixed(1)}" y="${m.y}" font-size="${TL.size}">${esc(m.text)}</text></g>`;
    })
    .join("");
  const bars = L.bars
    .map(
      (b) =>
        `<g class="tl-ruler" data-ruler="${esc(b.id)}" data-ms="${b.ms}"><text x="${b.left}" y="${b.y}" font-size="${TL.size}">${esc(b.text)}</text><rect x="${b.x}" y="${b.y + 4}" width="${b.len.toFixed(1)}" height="5" rx="2"/></g>`,
    )
    .join("");
  return `<svg class="quiz-timeline" data-testid="quiz-timeline" width="${width}" height="${L.height}" viewBox="0 0 ${width} ${L.height}" role="img" aria-label="${esc(marks.map((m) => m.text).join(", "))}"><line class="tl-axis" x1="${TL.pad}" x2="${width - TL.pad}" y1="${a}" y2="${a}"/>${ticks}${marksSvg}${bars}</svg>`;
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
    // The question, then its timeline, then the rules to pick from.
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

  // The question's timeline: the last heartbeat and the freeze, the periods as bars; once
  // answered, what the model did and when. As wide as the dialog leaves it (on a phone about
  // 310 px).
  drawTimeline(answered) {
    const figure = this.body.querySelector("[data-testid=quiz-figure]");
    figure.innerHTML = this.timeline(answered, Math.max(280, Math.min(560, figure.clientWidth || 310)));
  }

  timeline(answered, width) {
    const q = this.q;
    const { timings, lastHeartbeat } = q.r;
    const marks = [
      { id: "hb", at: lastHeartbeat, row: 0, text: t("tlHeartbeat", { t: secs(lastHeartbeat) }) },
      { id: "freeze", at: q.freezeAt, row: 1, text: t("tlFreeze", { t: secs(q.freezeAt) }) },
    ];
    if (answered && q.removal !== null)
      marks.push({ id: "removal", at: q.removal, row: 2, text: t("tlRemoval", { t: secs(q.removal) }) });
    if (answered && q.kind === "client" && q.update !== null)
      marks.push({ id: "update", at: q.update, row: 3, text: t("tlUpdate", { t: secs(q.update) }) });
    const idle = timings.idleCloseMs ?? timings.brokerTimeoutMs;
    const second = q.kind === "ns" ? ["scan", timings.scanIntervalMs] : ["poll", timings.routePollPeriodMs];
    const rulers = [
      { id: "idle", ms: idle, text: t("tlIdle", { s: clockText(idle) }) },
      { id: second[0], ms: second[1], text: t(`tl_${second[0]}`, { s: clockText(second[1]) }) },
    ];
    // One scale before and after the answer: every rule's time is on it.
    const times = [...marks.map((m) => m.at), ...q.options.map((o) => o.ms), q.correct];
    return timelineSvg(marks, rulers, width, times);
  }

  check() {
    const picked = this.body.querySelector('input[name="quiz-opt"]:checked');
    if (!picked || !this.q) return;
    const q = this.q;
    const right = picked.value === q.right;
    const rule = picked.closest("label").textContent.trim();
    const rightRule = this.body.querySelector(`input[value="${q.right}"]`).closest("label").textContent.trim();
    const explain =
      q.kind === "ns"
        ? t("quizExplainNs", { hb: secs(q.r.lastHeartbeat), r: secs(q.removal) })
        : t("quizExplainClient", { r: secs(q.removal), c: secs(q.update) });
    this.drawTimeline(true);
    const result = this.body.querySelector("[data-testid=quiz-result]");
    result.dataset.correct = String(right);
    result.dataset.answerMs = String(q.correct);
    const verdict = right ? t("quizRight", { rule }) : t("quizWrong", { rule: rightRule });
    result.innerHTML = `<p class="${right ? "good" : "bad"}">${right ? "✓" : "✖"} ${esc(verdict)}</p>
<p data-testid="quiz-time" data-ms="${q.correct}">${esc(t(q.kind === "ns" ? "quizTimeNs" : "quizTimeClient", { t: secs(q.correct) }))}</p>
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
