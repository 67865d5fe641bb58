// @ts-check
// Drives one lesson through the store: it dispatches what a learner's controls would (`play`,
// `pause`, `seek`, `speed`, `panel`, `load`, `skip`) and hears the clock's answers and the
// `gateHit` of the event its step waits for. Each step waits for a simulation event (a
// trace line or a time), never for a wall-clock delay. A step may first ask the learner to
// predict what will happen; the answer is graded by what the simulation then does. Playback
// slows down as the awaited event approaches, so the learner sees it happen.
import { t, pick, scenarioTitle } from "../app/i18n.js";
import { rememberFreePlay } from "../app/free-play.js";
import { secs } from "../app/format.js";
import { LESSONS, LESSON_ORDER } from "./index.js";
import { renderContext } from "./context.js";
import { rich } from "./glossary.js";
import { esc, setHtml } from "../app/html.js";
import { MIN_FRAMES } from "./hold.js";
import { revealed } from "./common.js";

const LESSON_SPEED = 30;
// Within this much wall time of the event the clock slows toward 1×.
const APPROACH_MS = 800;

// A question is asked at least this much simulated time before the event that resolves it,
// and drawn over at least ASK_FRAMES frames of it (issue 34): a guess, not a reading of what is
// already on its way. The lessons' data keeps the time (tests/js/page/lesson-margins.test.mjs);
// the clock's approach keeps the frames (approachStep).
export const ASK_MARGIN_MS = 1000;
export const ASK_FRAMES = MIN_FRAMES;

// The speed the clock runs at `simNow` with the awaited event due at `gateAt` (null: not known):
// within APPROACH_MS of wall time it slows toward 1×, so the learner sees the event happen.
export function approachSpeed(gateAt, simNow, speed) {
  if (gateAt === null || gateAt === undefined) return speed;
  const left = gateAt - simNow;
  if (left <= 0) return Math.min(speed, 1);
  return Math.max(1, Math.min(speed, Math.round(left / APPROACH_MS)));
}

// The most simulated time one frame may move the clock at `simNow` with the event due at
// `gateAt`: over the last ASK_MARGIN_MS before it, that span takes at least ASK_FRAMES frames,
// however few frames a busy machine draws a second.
export function approachStep(gateAt, simNow) {
  if (gateAt === null || gateAt === undefined || gateAt - simNow > ASK_MARGIN_MS) return Infinity;
  return ASK_MARGIN_MS / ASK_FRAMES;
}

export class LessonRunner {
  // `source`: asked what the store does not hold (hashes(), peekGate(gate)). `els`: the
  // lesson panel's elements.
  constructor(store, source, els) {
    this.store = store;
    this.source = source;
    this.els = els;
    /** @type {any} the lesson on: its steps, where it is, the answers so far */
    this.active = null;
    store.subscribe((state, action) => {
      if (action.type === "answer" && this.active) this.renderContext(state.view.snap);
      if (action.type === "gateHit") this.gateHit(action.hit);
    });
    els.continue.addEventListener("click", () => this.next());
    els.replay.addEventListener("click", () => this.replay());
    els.free.addEventListener("click", () => this.freePlay(true));
    els.fold.addEventListener("click", () => this.fold());
    els.question.addEventListener("change", () => this.show());
    els.skip.addEventListener("click", () => this.skip());
    els.text.addEventListener("click", (e) => {
      const b = e.target.closest("button[data-next]");
      if (b) this.start(b.dataset.next);
    });
    // A phone's sheet shrinks when the diagram above it grows (a line appears over it).
    new ResizeObserver(() => this.keepNewestInView()).observe(els.panel);
  }

  get gate() {
    const a = this.active;
    return a && a.waiting && !a.asking ? a.steps[a.index].gate : null;
  }

  get step() {
    return this.active && this.active.steps[this.active.index];
  }

  // What the current step names on the diagram; nothing while the learner predicts, since a
  // ring on the node that answers would give the answer away (issue 34).
  focus() {
    const s = this.step;
    const f = s && !this.active.asking && s.focus;
    return { nodes: (f && f.nodes) || [], links: (f && f.links) || [] };
  }

  // The store's account of the lesson: its step, the event the clock runs to, when that comes.
  publish() {
    const a = this.active;
    if (!a) return;
    this.store.dispatch({
      type: "lesson",
      id: a.id,
      step: a.index,
      gate: this.gate,
      gateAt: a.waiting ? a.gateAt : null,
      focus: this.focus(),
      subject: a.steps[a.index].subject || null,
      reveal: revealed(a.steps, a.index),
      run: a.run,
    });
  }

  title(id) {
    return id === "intro" ? t("introTitle") : `${id} — ${scenarioTitle(this.store.state.scenarios, id)}`;
  }

  async start(id, index = 0) {
    const steps = LESSONS[id];
    if (!steps) return;
    const store = this.store;
    this.active = { id, steps, index: 0, waiting: false, done: false, answers: [], run: 0 };
    rememberFreePlay(false);
    this.publish();
    await store.request({ type: "load", id: steps.scenario || id });
    if (!store.state.playback.userSpeed) store.dispatch({ type: "speed", speed: LESSON_SPEED });
    this.els.panel.hidden = false;
    this.els.title.textContent = this.title(id);
    await this.enter(0);
    for (let i = 1; i <= index && i < steps.length; i++) {
      await this.enter(i);
      this.active.asking = false;
      this.publish();
      if (this.active.waiting) await store.request({ type: "skip", gate: steps[i].gate });
    }
  }

  async enter(index) {
    const a = this.active;
    const step = a.steps[index];
    // A step may move the lesson to a variant of its scenario (S10's burst).
    if (step.load) await this.store.request({ type: "load", id: step.load });
    const h = await this.source.call("hashes");
    // The new step and whether it waits are seen together, never the one without the other.
    a.index = index;
    a.start = { time: h.time, stateHash: h.stateHash };
    a.waiting = !!step.gate;
    a.asking = !!step.ask;
    a.observed = null;
    a.graded = null;
    a.gateAt = null;
    a.hitAt = null;
    a.run++;
    if (step.panel && step.panel.tab) this.store.dispatch({ type: "panel", id: step.panel.tab });
    this.show();
    this.publish();
    a.look = a.waiting ? this.lookAhead() : null;
  }

  // Asks the worker when the awaited event will happen, to slow down before it.
  async lookAhead() {
    const a = this.active;
    const step = a && a.waiting ? a.steps[a.index] : null;
    if (!step || !step.gate) return;
    const r = await this.source.call("peekGate", { gate: step.gate });
    if (this.active !== a || a.steps[a.index] !== step) return;
    a.gateAt = r ? r.at : null;
    if (step.ask && r && r.at - a.start.time < ASK_MARGIN_MS)
      console.warn(
        `lesson ${a.id} step ${a.index + 1}: its question is asked ${r.at - a.start.time} ms before the event that resolves it (at least ${ASK_MARGIN_MS} ms)`,
      );
    this.publish();
  }

  async next() {
    const a = this.active;
    if (!a) return;
    if (a.asking) {
      const picked = this.els.question.querySelector("input:checked");
      if (!picked) return;
      // The clock sets out once it knows when the event comes, so that it slows before it.
      if (a.look) await a.look;
      if (this.active !== a || !a.asking) return;
      a.asking = false;
      a.prediction = picked.value;
      this.show();
      this.publish();
      this.store.dispatch({ type: "play" });
      return;
    }
    if (a.waiting) return;
    if (a.index + 1 >= a.steps.length) {
      a.done = true;
      this.show();
      return;
    }
    await this.enter(a.index + 1);
    if (a.waiting && !a.asking) this.store.dispatch({ type: "play" });
  }

  // Straight to the awaited event, for a learner who has seen enough of the approach.
  async skip() {
    const a = this.active;
    if (!a || !a.waiting || a.asking) return;
    const gate = a.steps[a.index].gate;
    // The run ahead finds nothing when the event already went by (a frame's run reached it
    // first): then the source finds it in the trace since the step began.
    const hit = await this.store.request({ type: "skip", gate, since: a.start.time });
    if (hit && this.active === a && a.waiting) this.gateHit(hit);
  }

  async replay() {
    const a = this.active;
    if (!a) return;
    if (this.store.state.playback.playing) this.store.dispatch({ type: "pause" });
    await this.store.request({ type: "seek", ms: a.start.time });
    const step = a.steps[a.index];
    a.waiting = !!step.gate;
    a.asking = !!step.ask;
    a.observed = null;
    a.graded = null;
    a.hitAt = null;
    a.run++;
    a.answers = a.answers.filter((x) => x.step !== a.index);
    this.show();
    this.publish();
    a.look = a.waiting ? this.lookAhead() : null;
  }

  freePlay(byLearner = false) {
    if (!this.active) return;
    this.active = null;
    this.els.panel.hidden = true;
    this.store.dispatch({ type: "lesson", id: null });
    if (byLearner) rememberFreePlay(true);
    this.store.dispatch({ type: "announce", text: t("freePlayOn") });
  }

  fold() {
    const open = this.els.fold.getAttribute("aria-expanded") !== "true";
    this.els.fold.setAttribute("aria-expanded", String(open));
    this.els.panel.dataset.folded = String(!open);
  }

  // The page reached the awaited event.
  gateHit(hit) {
    const a = this.active;
    if (!a || !a.waiting) return;
    a.waiting = false;
    a.hitAt = hit.at;
    const step = a.steps[a.index];
    // Steps read the trace so far and the scenario as the model reads it (its script, timings).
    const { view, trace } = this.store.state;
    const snap = view.snap;
    const model = view.meta.model;
    a.observed = step.after ? pick(step.after(hit, snap, trace, model)) : t("observed", { t: secs(hit.at) });
    if (step.ask && a.prediction !== undefined) {
      const correct = step.ask.grade(hit, snap, trace, model);
      const right = a.prediction === correct;
      const option = (id) => pick(step.ask.options.find((o) => o.id === id) || { en: id });
      a.graded = { right, correct, prediction: a.prediction, at: hit.at };
      a.answers.push({
        step: a.index,
        question: pick(step.ask.q),
        predicted: option(a.prediction),
        actual: option(correct),
        right,
        at: hit.at,
      });
      a.prediction = undefined;
    }
    this.show();
    this.publish();
    this.store.dispatch({ type: "announce", text: a.observed });
  }

  // On a short sheet the newest account (the verdict, else what happened) can fall under the
  // sticky buttons: scroll just enough to show it, never its top past the title.
  keepNewestInView() {
    const { panel, text } = this.els;
    const newest = text.querySelector("[data-testid=verdict]") || text.querySelector("[data-testid=observed]");
    if (!newest || panel.hidden || panel.scrollHeight <= panel.clientHeight) return;
    const head = panel.querySelector(".lesson-head").getBoundingClientRect();
    const buttons = panel.querySelector(".lesson-buttons").getBoundingClientRect();
    const r = newest.getBoundingClientRect();
    const down = Math.min(r.bottom - buttons.top, r.top - head.bottom);
    if (down > 0) panel.scrollTop += down;
  }

  renderContext(snap) {
    const step = this.step;
    const el = this.els.context;
    // While the learner predicts, the question has the room; the panel comes with the answer.
    const spec = step && step.panel && !this.active.asking ? step.panel : null;
    el.hidden = !spec;
    if (spec) renderContext(el, spec, snap, this.store.state.view.meta, this.store.state.trace);
  }

  show() {
    const a = this.active;
    const { panel, text, wait, continue: cont, progress, question } = this.els;
    if (!a) return;
    const step = a.steps[a.index];
    panel.dataset.step = String(a.index);
    panel.dataset.waiting = String(a.waiting);
    panel.dataset.asking = String(!!a.asking);
    panel.dataset.done = String(!!a.done);
    progress.textContent = t("lessonStep", { n: a.index + 1, total: a.steps.length });
    // Once the event is seen, its account comes first; on a phone the setup gives way to it.
    let html = `<p class="setup${a.observed ? " seen" : ""}">${rich(pick(step.text))}</p>`;
    // With a prediction graded, the verdict holds the step's one mark (✓ or ✖) and the account
    // is plain: a wrong guess never stands beside a green tick.
    if (a.observed)
      html += a.graded
        ? `<p class="observed graded" data-testid="observed">${rich(a.observed)}</p>`
        : `<p class="observed" data-testid="observed">✓ ${rich(a.observed)}</p>`;
    if (a.graded) {
      const g = a.graded;
      const opt = (id) => pick(step.ask.options.find((o) => o.id === id));
      const msg = g.right
        ? t("predictRight", { p: opt(g.prediction), t: secs(g.at) })
        : t("predictWrong", { p: opt(g.prediction), c: opt(g.correct), t: secs(g.at) });
      html += `<p class="verdict ${g.right ? "good" : "bad"}" data-testid="verdict" data-right="${g.right}" data-correct="${esc(g.correct)}">${g.right ? "✓" : "✖"} ${esc(msg)}</p>`;
    }
    if (a.done) {
      const next = LESSON_ORDER[LESSON_ORDER.indexOf(a.id) + 1];
      html += `<p class="observed">${esc(t("lessonDone"))}</p>${this.summary()}`;
      if (next)
        html += `<p><button type="button" class="primary" data-next="${esc(next)}" data-testid="lesson-next">${esc(t("nextLesson"))}: ${esc(this.title(next))} ›</button></p>`;
    }
    setHtml(text, html);
    // A new step, or its event's account, starts at the top of a sheet that scrolls.
    const shown = `${a.id}:${a.index}:${!!a.observed}:${!!a.done}`;
    if (panel.dataset.shown !== shown) {
      panel.dataset.shown = shown;
      panel.scrollTop = 0;
      this.keepNewestInView();
    }
    this.renderQuestion(step);
    question.hidden = !a.asking;
    const waiting = a.waiting && !a.asking;
    wait.hidden = !waiting;
    this.els.skip.hidden = !waiting;
    this.els.waitText.textContent = waiting ? `◔ ${t("waitingFor", { what: pick(step.what) })}` : "";
    const picked = question.querySelector("input:checked");
    cont.disabled = a.done || (a.waiting && !a.asking) || (a.asking && !picked);
    cont.textContent = a.asking ? t("predictWatch") : a.index + 1 >= a.steps.length ? t("finish") : t("continue");
    const { view } = this.store.state;
    if (view && view.snap) this.renderContext(view.snap);
  }

  renderQuestion(step) {
    const a = this.active;
    const el = this.els.question;
    if (!a.asking || !step.ask) {
      if (el.dataset.step !== "") {
        el.innerHTML = "";
        el.dataset.step = "";
      }
      return;
    }
    const key = `${a.id}:${a.index}`;
    if (el.dataset.step === key) return;
    el.dataset.step = key;
    el.innerHTML = `<fieldset><legend>${esc(t("predictLead"))} ${rich(pick(step.ask.q))}</legend>${step.ask.options
      .map(
        (o, i) =>
          `<label class="radio"><input type="radio" name="predict" value="${esc(o.id)}" data-testid="predict-${i}" data-option="${esc(o.id)}"> ${rich(pick(o))}</label>`,
      )
      .join("")}</fieldset>`;
  }

  summary() {
    const rows = this.active.answers;
    if (!rows.length) return "";
    const right = rows.filter((r) => r.right).length;
    return `<div class="summary" data-testid="lesson-summary"><h3>${esc(t("summaryTitle", { n: right, total: rows.length }))}</h3><ul>${rows
      .map(
        (r) =>
          `<li data-right="${r.right}">${r.right ? "✓" : "✖"} ${esc(r.question)} — ${esc(t("summaryLine", { p: r.predicted, a: r.actual, t: secs(r.at) }))}</li>`,
      )
      .join("")}</ul></div>`;
  }

  state() {
    const a = this.active;
    const step = a && a.steps[a.index];
    return (
      a && {
        id: a.id,
        step: a.index,
        steps: a.steps.length,
        waiting: a.waiting,
        asking: !!a.asking,
        done: !!a.done,
        startTime: a.start && a.start.time,
        startHash: a.start && a.start.stateHash,
        gateAt: a.gateAt,
        answers: a.answers.slice(),
        focus: this.focus(),
        panel: step.panel && !a.asking ? step.panel.kind : null,
        questions: a.steps.filter((x) => x.ask).length,
        ask: !!step.ask,
        subject: step.subject || null,
        hitAt: a.hitAt,
      }
    );
  }
}
