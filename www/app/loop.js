// @ts-check
// The page's one render loop, and the only caller of requestAnimationFrame: it runs while the
// clock moves (playing, or following a live cluster) and stops when it does not, so a paused
// page draws no frame at all.

export class Loop {
  /**
   * @param {(now: number) => boolean} frame draws one frame; returns whether another is wanted
   * @param {{ request?: (fn: (now: number) => void) => number, cancel?: (id: number) => void }} [timer]
   *   the frame scheduler (the browser's by default; a test's own in Node)
   */
  constructor(frame, timer = {}) {
    this.frame = frame;
    this.request = timer.request || ((fn) => requestAnimationFrame(fn));
    this.cancel = timer.cancel || ((id) => cancelAnimationFrame(id));
    /** @type {number | null} the frame asked for */
    this.id = null;
    this.on = false;
    this.frames = 0;
  }

  get running() {
    return this.on;
  }

  // Asks for frames until `frame` answers false (or stop); a running loop is left as it is.
  start() {
    this.on = true;
    if (this.id === null) this.id = this.request((now) => this.tick(now));
  }

  // Also from inside a frame: no frame follows it.
  stop() {
    this.on = false;
    if (this.id === null) return;
    this.cancel(this.id);
    this.id = null;
  }

  /** @param {number} now */
  tick(now) {
    this.id = null;
    if (!this.on) return;
    this.frames++;
    if (!this.frame(now)) this.on = false;
    else if (this.on && this.id === null) this.id = this.request((n) => this.tick(n));
  }
}
