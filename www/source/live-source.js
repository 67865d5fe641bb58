// @ts-check
// A running cluster as the page's source: the daemons' consoles read by the live view (live.js),
// the cluster assembled from their answers by the simulation's worker (`liveView`), so a live
// cluster and the simulation come in one shape. It can neither seek the simulation's clock nor
// take faults, forks or lessons: `can` says so and the page hides those controls. Its clock is
// the wall clock, so the page's frames go to `frame(now)`.
import { LiveView } from "./live.js";

export class LiveSource {
  /**
   * @param {{ call: (op: string, args?: object) => Promise<any> }} worker the simulation's source, whose worker assembles
   * @param {ConstructorParameters<typeof LiveView>[0]} page the diagram and log it draws into
   * @param {string[]} bases the daemons' console URLs
   * @param {ConstructorParameters<typeof LiveView>[2]} el the live panel's elements
   */
  constructor(worker, page, bases, el) {
    this.can = { seek: false, inject: false, fork: false, lessons: false };
    this.worker = worker;
    this.view = new LiveView(page, bases, el, (/** @type {number} */ at) => this.request({ at }));
  }

  open() {
    this.view.start();
  }

  close() {
    this.view.close();
  }

  /**
   * The cluster as at wall time `at`, as the simulation's source answers: `{ view: { meta, snap },
   * delta, gateHit }` (its delta's wire: the registrations since the last request; no gate).
   * @param {{ at: number }} req
   */
  request({ at }) {
    return this.worker.call("live", this.view.request(at));
  }

  /**
   * One frame of the page's loop: drawn while following; whether the loop goes on.
   * @param {number} now
   */
  frame(now) {
    return this.view.frame(now);
  }

  // A line of the event log chosen: the history goes to its time.
  /** @param {number} at */
  seek(at) {
    this.view.seek(at);
  }

  state() {
    return this.view.state();
  }
}
