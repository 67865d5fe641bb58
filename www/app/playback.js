// @ts-check
// The time machine: play, pause, seek, step, fork and inject against the simulation's source,
// each answer dispatched to the store and drawn by the view. It carries out what is dispatched
// (`play`, `pause`, `speed` and the requests `seek`, `load`, `skip`), whoever dispatches it.
// While playing, one animation frame asks the source for the clock's next target (one request
// out at a time).
import { t } from "./i18n.js";
import { announceFor } from "./announce.js";
import { updateUrl } from "./share.js";
import { approachSpeed, approachStep } from "../lessons/lesson-runner.js";
import { findSubject } from "../lessons/hold.js";

const MAX_FRAME_SIM_MS = (speed) => Math.max(250, speed * 500);

export class Playback {
  // `sim`: the simulation's source (source/sim-source.js). `w`: view, diagram, timeline, log,
  // announcer. `loop`: the page's loop. `el`: scenarioSelect, shareUrl, log (the event log's list).
  constructor(store, sim, w, loop, el) {
    this.store = store;
    this.sim = sim;
    // The source the loop's frames go to: the simulation, or a live cluster (use()).
    this.source = sim;
    this.w = w;
    this.loop = loop;
    this.el = el;
    // Whether the clock runs (the loop asks for frames): follows the store's `playing`.
    this.running = false;
    // The clock's last (wall, target) pairs, for the tests and the page benchmark.
    this.clockTrace = [];
    // A lesson step's subject being drawn before its event shows (lessons/hold.js): the answer
    // that holds the event, the subject's token, and the promise kept when it arrives.
    /** @type {any} */ this.holding = null;
    // What was sent since the lesson's step began (and what was in the air then): where the
    // step's subject is looked for.
    /** @type {any[]} */ this.pool = [];
    this.poolRun = null;
    store.subscribe((state, action) => {
      switch (action.type) {
        case "play":
          if (state.playback.playing && !this.running) this.started();
          break;
        case "pause":
          // The learner's pause during a hold: the event shows at once.
          if (this.holding) this.releaseHold();
          if (this.running) this.stopped();
          break;
        case "lesson":
          if (action.run !== this.poolRun) {
            this.poolRun = action.run;
            this.pool = this.snap ? this.snap.flights.slice() : [];
            // The last step's subject has been seen: the new step starts from the plain picture.
            if (this.w.diagram.pinned) {
              this.w.diagram.unpin();
              if (!this.playing) this.w.view.render();
            }
          }
          if (this.holding && !state.lesson.gate) this.releaseHold();
          break;
        case "speed":
          if (this.running) this.base = { sim: this.snap.time, wall: performance.now() };
          if (this.snap) this.w.view.render();
          break;
        case "seek":
          action.done = this.seek(action.ms);
          break;
        case "load":
          action.done = this.loadBuiltIn(action.id);
          break;
        case "skip":
          action.done = this.runGate(action.gate, action.since);
          break;
      }
    });
  }

  get scenarios() {
    return this.store.state.scenarios;
  }

  get snap() {
    return this.store.state.view && this.store.state.view.snap;
  }
  get meta() {
    return this.store.state.view && this.store.state.view.meta;
  }
  get playing() {
    return this.store.state.playback.playing;
  }
  get speed() {
    return this.store.state.playback.speed;
  }
  // What the source on screen can do (the controls offer no more).
  get can() {
    return this.source.can;
  }

  // Live mode is a change of source: the clock stops, the loop's frames go to `source`, and
  // what it cannot do is off until the simulation's source is back.
  use(source) {
    this.pause();
    this.source = source;
  }

  // ---- loading -------------------------------------------------------------------------

  builtInText(id) {
    return this.scenarios.find((x) => x.id === id).text;
  }

  async loadBuiltIn(id) {
    this.el.scenarioSelect.value = id;
    return this.load({ id });
  }

  async loadText(text, time = 0) {
    const match = this.scenarios.find((s) => s.text.replace(/\s*\n\s*/g, ";") === text.replace(/\s*[\n;]\s*/g, ";"));
    if (match) this.el.scenarioSelect.value = match.id;
    return this.load({ text, t: time });
  }

  async load(args) {
    this.cancelHold();
    this.pause();
    const r = await this.sim.call("load", args);
    this.apply(r, true);
    return r;
  }

  // ---- applying the source's answers -----------------------------------------------------

  /** @param {any} r the source's answer  @param {boolean} [fresh] a new load  @param {number | null} [wall] a frame's time */
  apply(r, fresh = false, wall = null) {
    const { view, diagram, announcer } = this.w;
    const lesson = this.store.state.lesson;
    if (lesson.subject && !fresh) for (const m of r.snap.wire) this.pool.push(m);
    // A lesson's event whose subject has yet to be drawn arriving: the picture waits for it.
    if (r.gateHit && lesson.gate && lesson.subject && !this.holding && !r.held) {
      const m = findSubject(lesson.subject, r.gateHit, this.pool);
      if (m) return this.beginHold(r, m);
      console.warn(
        `lesson ${lesson.id} step ${(lesson.step ?? 0) + 1}: its subject (${lesson.subject.kind} ${lesson.subject.from} → ${lesson.subject.to}) was never sent; pausing on the event`,
      );
    }
    this.store.dispatch({ type: "answer", answer: r, fresh });
    if (r.meta) view.setMeta(r.meta);
    const s = r.snap;
    const newLines = fresh ? [] : s.trace;
    // Only frames of playing feed the traffic layer: a seek or a step shows exact positions.
    if (wall !== null && this.playing) diagram.feed(s.wire, wall, this.speed, lesson.subject);
    view.timed(s.traceFrom);
    for (const l of newLines) {
      const msg = announceFor(l);
      if (msg) announcer.say(msg);
    }
    // A run that lands after a pause is announced at once: a paused page does not change later.
    if (!this.playing) announcer.flushNow();
    // The source evaluates the lesson's gate and sends its hit with the answer: the clock stops
    // there, and the lesson hears it.
    if (r.gateHit && this.store.state.lesson.gate) {
      this.pause();
      this.store.dispatch({ type: "gateHit", hit: r.gateHit });
    }
    if (!this.playing) this.base = { sim: s.time, wall: performance.now() };
  }

  // ---- time control ----------------------------------------------------------------------

  play() {
    if (!this.playing) this.store.dispatch({ type: "play" });
  }

  pause() {
    if (this.playing) this.store.dispatch({ type: "pause" });
  }

  started() {
    this.running = true;
    this.w.diagram.unpin();
    this.base = { sim: this.snap.time, wall: performance.now() };
    this.w.view.render();
    this.loop.start();
  }

  stopped() {
    this.running = false;
    this.loop.stop();
    this.w.view.render();
    this.w.announcer.flushNow();
    this.updateUrl();
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  // The speed the clock runs at now: a lesson slows down as its event approaches.
  effectiveSpeed() {
    return this.snap ? approachSpeed(this.store.state.lesson.gateAt, this.snap.time, this.speed) : this.speed;
  }

  // One animation frame while playing: asks the source for the clock's next target (one
  // request out at a time) and moves the messages on. Returns whether to go on.
  frame(now) {
    // A live cluster is drawn as the wall clock runs, while it follows.
    if (this.source !== this.sim) return this.source.frame(now);
    if (this.holding) return this.holdFrame(now);
    if (!this.playing) return false;
    if (!this.pending) {
      const speed = this.effectiveSpeed();
      if (speed !== this.lastSpeed) {
        this.base = { sim: this.snap.time, wall: now };
        this.lastSpeed = speed;
      }
      let target = this.base.sim + (now - this.base.wall) * speed;
      const cap =
        this.snap.time +
        Math.min(MAX_FRAME_SIM_MS(speed), approachStep(this.store.state.lesson.gateAt, this.snap.time));
      const capped = target > cap;
      if (capped) {
        target = cap;
        this.base = { sim: cap, wall: now };
      }
      this.clockTrace.push({ wall: now, target, speed, capped });
      if (this.clockTrace.length > 600) this.clockTrace.shift();
      this.pending = true;
      const gate = this.store.state.lesson.gate || undefined;
      this.pendingRun = this.sim.request({ at: target, gate }).then(
        (r) => {
          this.pending = false;
          this.apply(r, false, performance.now());
        },
        (e) => {
          this.pending = false;
          this.fail(e);
        },
      );
    }
    this.w.diagram.animate(now, this.drawOptions());
    return true;
  }

  drawOptions() {
    return { reduced: this.w.view.reducedMotion, subject: this.store.state.lesson.subject };
  }

  // ---- a lesson step's subject, drawn before its event (lessons/hold.js) ------------------

  // The answer `r` holds the lesson's event: it waits while message `m` is drawn on its edge.
  beginHold(r, m) {
    /** @type {(v?: any) => void} */
    let resolve = () => {};
    const done = new Promise((ok) => (resolve = ok));
    this.holding = { r, token: this.w.diagram.holdSubject(m, performance.now()), done, resolve };
    this.loop.start();
  }

  // One frame of a hold: the subject moves on; on the frame it arrives, the answer (the event,
  // the receiving node's new state) is applied and the clock stops there.
  holdFrame(now) {
    this.w.diagram.animate(now, this.drawOptions());
    if (this.w.diagram.traffic.arrived(this.holding.token)) this.releaseHold();
    return !!this.holding || this.playing;
  }

  releaseHold() {
    const h = this.holding;
    this.holding = null;
    this.w.diagram.pin(h.token);
    h.r.held = true;
    this.apply(h.r);
    h.resolve();
  }

  // A jump or a new load: the held answer belongs to the time left behind.
  cancelHold() {
    const h = this.holding;
    if (!h) return;
    this.holding = null;
    this.w.diagram.stopTraffic();
    h.resolve();
  }

  setSpeed(x, byUser) {
    this.store.dispatch({ type: "speed", speed: x, byUser });
  }

  // An operation on the simulation; with a lesson's gate on, the source looks for its event.
  async op(name, args, keepPlaying = true) {
    const wasPlaying = this.playing;
    this.cancelHold();
    if (!keepPlaying) this.pause();
    try {
      const gate = this.store.state.lesson.gate || undefined;
      const r = await this.sim.call(name, gate && !args.gate ? { ...args, gate } : args);
      this.w.diagram.stopTraffic();
      this.apply(r);
      if (wasPlaying && this.playing) this.base = { sim: this.snap.time, wall: performance.now() };
      if (!this.playing) this.updateUrl();
      return r;
    } catch (e) {
      this.fail(e);
      return null;
    }
  }

  fail(e) {
    this.w.announcer.say(String(e.message || e), true);
    console.error(e);
  }

  // Runs ahead to the lesson's event; `since`: a step's start, so an event the frames already
  // went past is found in the trace since then. The gate's hit, or null.
  async runGate(gate, since) {
    // At the event already, its subject still on its way: the hold ends the step.
    if (this.holding) return this.heldHit();
    // A frame's run may still be out and may reach the event itself: let it land first, so
    // the run ahead starts from where the page is (else it finds the next such event).
    this.pause();
    if (this.pending) await this.pendingRun;
    if (this.holding) return this.heldHit();
    if (this.store.state.lesson.gate !== gate) return null;
    const r = await this.op("runTo", { ms: this.snap.time + 3600000, gate, since }, false);
    // Its event waits for its subject to be drawn arriving.
    if (this.holding) await this.holding.done;
    return r && r.gateHit;
  }

  // The hold's end: the runner hears the event from its release (null here, so not twice).
  async heldHit() {
    await this.holding.done;
    return null;
  }

  seek(ms) {
    return this.op("seek", { ms: Math.max(0, Math.round(ms)) });
  }

  jump(delta) {
    return this.seek(this.snap.time + delta);
  }

  toEnd() {
    const head = this.snap.head;
    return this.seek(this.snap.time < head ? head : this.w.timeline.horizon);
  }

  async scrub(ms, live) {
    if (live && this.scrubbing) {
      this.scrubTarget = ms;
      return;
    }
    this.scrubbing = true;
    await this.seek(ms);
    while (this.scrubTarget !== undefined) {
      const next = this.scrubTarget;
      this.scrubTarget = undefined;
      await this.seek(next);
    }
    this.scrubbing = false;
  }

  stepNext(kind) {
    return this.op("step", kind ? { filter: { kinds: [kind] } } : {}, false);
  }

  stepBack() {
    return this.op("stepBack", {}, false);
  }

  async fork() {
    const r = await this.op("fork", { keepLater: false });
    if (r) this.w.announcer.say(t("forked", { id: r.id }), true);
  }

  selectBranch(id) {
    return this.op("selectBranch", { id });
  }

  // An action now. In the past, with faults injected later on this branch, `askKeep(later)`
  // lets the learner choose whether the new branch keeps them (null: cancel).
  async inject(action, askKeep) {
    let keepLater = false;
    if (this.snap.time < this.snap.head) {
      const later = await this.sim.call("laterInjected");
      if (later.length) {
        keepLater = await askKeep(later);
        if (keepLater === null) return;
      }
    }
    const r = await this.op("inject", { action, keepLater });
    if (r) this.w.announcer.say(t("injected", { a: action }), true);
  }

  async seekToLine(line) {
    await this.seek(line.at);
    this.store.dispatch({ type: "highlight", node: line.node });
    this.select(line.node);
    this.w.log.markCurrent(line.seq);
    const b = this.el.log.querySelector(`button[data-seq="${line.seq}"]`);
    if (b) b.focus();
  }

  hashes() {
    return this.sim.call("hashes");
  }

  // ---- selection and the page's link -----------------------------------------------------

  select(name) {
    this.store.dispatch({ type: "select", node: name });
    this.w.view.render();
  }

  selectIndex(i) {
    const n = this.meta.nodes[i];
    if (!n) return;
    this.select(n.name);
    this.w.diagram.focusNode(n.name);
  }

  toggleTable() {
    this.store.dispatch({ type: "tableView" });
  }

  updateUrl() {
    updateUrl(this.el.shareUrl, this.store.state);
  }
}
