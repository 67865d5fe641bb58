// @ts-check
// The simulation as the page's source: the worker (sim-client.js) behind open, request and call.
// A source is { open(), close(), request({ at, gate }), can }; `can` says what the page may offer
// (a live cluster, source/live-source.js, can none of it).
import { SimClient } from "./sim-client.js";

export class SimSource {
  constructor() {
    this.can = { seek: true, inject: true, fork: true, lessons: true };
    /** @type {SimClient | null} */
    this.client = null;
  }

  // Starts the worker: the built-in scenarios and what the worker loaded (for the offline copy).
  open() {
    return this.call("init");
  }

  // The worker stays: leaving live mode comes back to the same simulation.
  close() {}

  /**
   * The clock's next step: runs to `at` (ms), stopping at the gate's event; the answer carries the
   * new snapshot and, with a gate, its hit (`gateHit`).
   * @param {{ at: number, gate?: object }} req
   */
  request({ at, gate }) {
    return this.call("runTo", { ms: Math.floor(at), gate });
  }

  /** Any other operation of the worker (load, seek, step, fork, inject, hashes, …). @param {string} op @param {object} [args] */
  call(op, args) {
    if (!this.client) this.client = new SimClient();
    return this.client.call(op, args);
  }

  // No request out.
  get idle() {
    return !this.client || this.client.idle;
  }
}
