// The screen-reader live region: key events only, at most one announcement every 2 s; what
// arrives in between is folded into the next one.
import { secs } from "./format.js";

const GAP_MS = 2000;

export function announceFor(line) {
  switch (line.kind) {
    case "fault":
      return `${secs(line.at)}: ${line.text}`;
    case "unregistered":
    case "expired":
      return `${secs(line.at)} ${line.node}: ${line.text}`;
    case "route-updated":
      return `${secs(line.at)} ${line.node}: route updated`;
    default:
      return null;
  }
}

export class Announcer {
  constructor(el) {
    this.el = el;
    this.last = -Infinity;
    this.pending = [];
    this.timer = null;
    this.count = 0;
  }

  // `now` messages (answers to the learner's own action) still respect the gap.
  say(msg) {
    this.pending.push(msg);
    if (this.timer) return;
    const wait = Math.max(0, this.last + GAP_MS - performance.now());
    this.timer = setTimeout(() => this.flush(), wait);
  }

  // When the learner pauses: what is pending is said now, so a paused page stays still.
  flushNow() {
    clearTimeout(this.timer);
    this.flush();
  }

  flush() {
    this.timer = null;
    if (!this.pending.length) return;
    const n = this.pending.length;
    const latest = this.pending[n - 1];
    this.pending = [];
    this.el.textContent = n > 1 ? `${latest} (+${n - 1})` : latest;
    this.count++;
    this.last = performance.now();
  }
}
