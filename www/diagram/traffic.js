// Messages as the eye can follow them. A simulated message lives 1–2 ms, far too short to see
// at any speed, so while playing every message the model sent is replayed on its link for at
// least MIN_MS of wall time, in the order sent. Messages that pile up on one link ride
// together as a counted bundle; a delivered one leaves a fading trace. The simulation clock
// stays the truth (hashes, links, seeking): this only decides when to draw what was sent.
// In a lesson, the messages that fit the step's subject ride alone (never bundled), and the
// one the event is about is held: drawn on enough frames, and kept where it arrived
// (lessons/hold.js).
import { heldProgress } from "../lessons/hold.js";

const MIN_MS = 700; // wall time on screen for one message
const MAX_MS = 8000; // a long-delayed message still ends
// A new message joins a same-kind token that has gone less than this far, and one direction of
// a link carries at most this many tokens; fast playback bundles harder, or the links fill up.
const JOIN = { slow: 0.35, fast: 0.8 };
const PER_LINK = { slow: 3, fast: 1 };
const TRACE_MS = 900; // how long a delivered message's trace fades
const SLOW_SPEED = 10; // at or below this speed, a reply waits for its request to be drawn in
const MAX_LAG_MS = 1500; // … but never starts more than this late

export class Traffic {
  constructor() {
    this.reset();
  }

  reset() {
    this.tokens = [];
    this.traces = [];
    this.arrivals = new Map(); // node → [{simAt, wallAt}]: when its inbound messages are drawn arriving
    this.seq = 0;
  }

  // Whether a lesson step's subject is held on its edge.
  get holding() {
    return this.tokens.some((k) => k.held);
  }

  get busy() {
    return this.tokens.length > 0 || this.traces.length > 0;
  }

  // New wire events (in send order) at wall time `now`, the simulation running at `speed`.
  // `solo(e)`: whether `e` rides alone (a lesson step's subject).
  feed(events, now, speed, solo = (_e) => false) {
    const pace = speed <= SLOW_SPEED ? "slow" : "fast";
    for (const e of events) {
      const link = `${e.from}>${e.to}`;
      const alone = solo(e);
      const key = alone ? `solo|${e.id}|${this.seq}` : `${link}|${e.category}|${e.response}`;
      if (alone) {
        this.add(e, now, speed, key, link);
        continue;
      }
      const same = this.tokens.filter((k) => k.key === key && progress(k, now) < JOIN[pace]);
      if (same.length) {
        join(same[same.length - 1], e);
        continue;
      }
      const onLink = this.tokens.filter((k) => k.link === link && !k.solo);
      if (onLink.length >= PER_LINK[pace]) {
        join(onLink[onLink.length - 1], e);
        continue;
      }
      this.add(e, now, speed, key, link);
    }
  }

  add(e, now, speed, key, link) {
    let start = now;
    if (speed <= SLOW_SPEED) start = Math.min(now + MAX_LAG_MS, Math.max(now, this.drawnArrival(e.from, e.sentAt)));
    const dur = Math.min(MAX_MS, Math.max(MIN_MS, (e.arriveAt - e.sentAt) / speed));
    const k = {
      id: ++this.seq,
      key,
      link,
      from: e.from,
      to: e.to,
      category: e.category,
      response: e.response,
      type: e.type,
      summary: e.summary,
      lost: !!e.lost,
      count: 1,
      start,
      dur,
      sentAt: e.sentAt,
      arriveAt: e.arriveAt,
      first: e,
      solo: key.startsWith("solo|"),
      held: false,
      frames: 0,
    };
    this.tokens.push(k);
    return k;
  }

  // Holds message `m` (a lesson step's subject): the token already carrying it alone, else a
  // new one leaving now. A held token is drawn on at least MIN_FRAMES frames and stays at its
  // arrival until released. Returns it.
  hold(m, now) {
    let k = this.tokens.find((x) => x.solo && x.first === m);
    if (!k) k = this.add(m, now, 1, `solo|${m.id}|${this.seq}`, `${m.from}>${m.to}`);
    k.held = true;
    k.lost = false;
    return k;
  }

  // Whether held token `k` is drawn arriving.
  arrived(k) {
    return k.held && k.p >= 1;
  }

  // The latest wall time at which a message that reached `node` by `simAt` is drawn arriving:
  // what `node` sends at `simAt` may be its answer, so it should not be drawn leaving earlier.
  drawnArrival(node, simAt) {
    let best = 0;
    for (const a of this.arrivals.get(node) || []) if (a.simAt <= simAt && a.wallAt > best) best = a.wallAt;
    for (const k of this.tokens) if (k.to === node && k.arriveAt <= simAt) best = Math.max(best, k.start + k.dur);
    return best;
  }

  // Advances to wall time `now`: finished tokens become traces. Returns what to draw.
  step(now) {
    const live = [];
    for (const k of this.tokens) {
      if (now >= k.start) k.frames++;
      if (k.held) {
        k.p = heldProgress(progress(k, now), k.frames, k.p);
        live.push(k);
      } else if (now >= k.start + k.dur) {
        if (!k.lost) {
          this.traces.push({
            id: k.id,
            from: k.from,
            to: k.to,
            category: k.category,
            response: k.response,
            t0: k.start + k.dur,
          });
          let list = this.arrivals.get(k.to);
          if (!list) this.arrivals.set(k.to, (list = []));
          list.push({ simAt: k.arriveAt, wallAt: k.start + k.dur });
        }
      } else {
        k.p = progress(k, now);
        live.push(k);
      }
    }
    this.tokens = live;
    this.traces = this.traces.filter((tr) => now - tr.t0 < TRACE_MS);
    for (const [node, list] of this.arrivals) {
      const keep = list.filter((a) => now - a.wallAt < 4000);
      if (keep.length) this.arrivals.set(node, keep);
      else this.arrivals.delete(node);
    }
    return {
      tokens: live.filter((k) => now >= k.start).map((k) => ({ ...k, p: ease(k.held ? k.p : progress(k, now)) })),
      traces: this.traces.map((tr) => ({ ...tr, fade: 1 - (now - tr.t0) / TRACE_MS })),
    };
  }
}

function join(token, e) {
  token.count++;
  token.arriveAt = Math.max(token.arriveAt, e.arriveAt);
}

function progress(k, now) {
  return Math.max(0, Math.min(1, (now - k.start) / k.dur));
}

// Gentle start and stop, so the eye catches a token leaving and arriving.
function ease(p) {
  return p * p * (3 - 2 * p) * 0.5 + p * 0.5;
}
