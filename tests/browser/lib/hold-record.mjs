// The hold rule's evidence (www/lessons/hold.js): what a lesson step's frame record, as the
// browser tests take it (lesson-steps.mjs recordFrames), breaks of the rule. Test code: the page
// never checks itself.
import { MIN_FRAMES, MIN_COVER, MUTED_OPACITY } from "../../../www/lessons/hold.js";

/**
 * A frame as the browser tests record it: the lesson's state, the clock the diagram is drawn
 * at, and every message drawn.
 * @typedef {{ waiting: boolean, clock: number,
 *   msgs: { from: string, to: string, kind: string, p: number, opacity: number, label: boolean }[] }} Frame
 */

/**
 * What a step's frame record breaks of the hold rule (empty: nothing): from the step's first
 * waiting frame to its first paused one and a few after. `eventAt`: when the event happened (ms).
 * @param {Frame[]} frames  @param {Subject} subject  @param {number} eventAt
 * @returns {string[]}
 */
export function holdProblems(frames, subject, eventAt) {
  const out = [];
  const name = `${subject.kind} ${subject.from} → ${subject.to}`;
  // From the step's first waiting frame (a record may start on the step before).
  const from = frames.findIndex((f) => f.waiting);
  if (from < 0) return [`the step never waited in ${frames.length} frames`];
  frames = frames.slice(from);
  const paused = frames.findIndex((f) => !f.waiting);
  if (paused < 0) return [`the step never paused in ${frames.length} frames`];
  const mine = (f) => f.msgs.filter((m) => m.from === subject.from && m.to === subject.to && m.kind === subject.kind);
  // The subject's positions before the pause, frame by frame (the furthest one drawn).
  const ps = [];
  for (const f of frames.slice(0, paused)) {
    const m = mine(f);
    if (m.length) ps.push(Math.max(...m.map((x) => x.p)));
  }
  if (!ps.length) out.push(`${name} never drawn before the pause`);
  else {
    const cover = Math.max(...ps) - Math.min(...ps);
    if (cover < MIN_COVER) out.push(`${name} drawn over ${Math.round(cover * 100)} % of its edge`);
    if (ps.length < MIN_FRAMES) out.push(`${name} drawn on ${ps.length} frames`);
  }
  const still = frames.slice(paused);
  if (!still.length || still.some((f) => !mine(f).some((m) => m.p >= 0.999)))
    out.push(`${name} not drawn where it arrived while paused`);
  // The diagram shows the event's state only once the subject is drawn arriving.
  const arrival = frames.findIndex((f) => mine(f).some((m) => m.p >= 0.999));
  const early = frames.findIndex((f) => f.clock >= eventAt);
  if (early >= 0 && (arrival < 0 || early < arrival))
    out.push(`the state at ${eventAt} ms drawn on frame ${early}, before the subject's arrival (frame ${arrival})`);
  for (const [i, f] of frames.slice(0, paused).entries())
    for (const m of f.msgs) {
      if (m.from === subject.from && m.to === subject.to && m.kind === subject.kind) continue;
      if (m.opacity > MUTED_OPACITY + 0.001 || m.label) {
        out.push(
          `frame ${i}: ${m.kind} ${m.from} → ${m.to} at opacity ${m.opacity}${m.label ? " with its label" : ""}`,
        );
        break;
      }
    }
  return out;
}
