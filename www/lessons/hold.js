// @ts-check
// The hold rule (RaftScope's): in a lesson, a step's subject — the message its event is about,
// declared as `subject: { kind, from, to, event }` — is seen travelling before the page pauses
// on the event. A simulated message lives 1–3 ms, so the worker has long run past its arrival
// when it is drawn: the picture waits. The subject rides its edge as a token of its own, over
// at least MIN_COVER of it on at least MIN_FRAMES frames; the answer holding the event (and the
// receiving node's new state) is applied on the frame the token arrives, and paused, the token
// stays where it arrived. While a step waits, other traffic is muted. Golden traces and state
// hashes are untouched: this decides only what is drawn when.
import { msgType } from "../diagram/glyphs.js";

export const MIN_FRAMES = 20;
// The frames a held subject takes to arrive: two more than the rule asks, so that however a
// frame record is sampled (before or after the page draws), the pause finds MIN_FRAMES.
const HOLD_FRAMES = MIN_FRAMES + 2;
export const MIN_COVER = 0.9;
// Other traffic while a step waits for its subject: at most this opaque, without words.
export const MUTED_OPACITY = 0.3;

/**
 * @typedef {{ kind: string, from: string, to: string, event: string }} Subject
 * @typedef {{ from: string, to: string, sentAt: number, arriveAt: number, category: string,
 *   response: boolean, type?: string, summary?: string, id?: number | null, lost?: boolean }} Message
 *   a wire event, or a flight in the air when the step began
 */

/** @param {Subject} subject  @param {Message} m */
export function isSubject(subject, m) {
  return m.from === subject.from && m.to === subject.to && msgType(m) === subject.kind;
}

/**
 * The message the event `hit` is about: the last one sent that fits the subject and arrived by
 * the event (null: never sent — the step's data is wrong).
 * @param {Subject} subject  @param {{ at: number }} hit  @param {Message[]} pool what was sent since the step began
 */
export function findSubject(subject, hit, pool) {
  let best = null;
  for (const m of pool)
    if (isSubject(subject, m) && m.arriveAt <= hit.at && (!best || m.arriveAt >= best.arriveAt)) best = m;
  return best;
}

// The furthest a held subject moves in one frame: a late frame (a busy machine) does not make
// it jump to its arrival from short of MIN_COVER.
const MAX_STEP = 0.08;

/**
 * How far along its edge a held subject is drawn: its wall-clock progress, but never ahead of
 * `frames / HOLD_FRAMES` nor more than MAX_STEP past where the last frame drew it (`prev`), and
 * never back, so a slow machine still draws it on MIN_FRAMES frames across its edge.
 * @param {number} wallProgress 0…1  @param {number} frames frames it has been drawn on, this one included
 * @param {number} prev 0…1
 */
export function heldProgress(wallProgress, frames, prev = 0) {
  return Math.max(prev, Math.min(1, wallProgress, frames / HOLD_FRAMES, prev + MAX_STEP));
}
