// @ts-check
// A running cluster as the page's source: the live view (live.js) over the daemons' consoles.
// It can neither seek the simulation's clock nor take faults, forks or lessons: `can` says so
// and the page hides those controls. Its clock is the wall clock, so a request is a frame.
import { LiveView } from "./live.js";

export class LiveSource {
  /**
   * @param {ConstructorParameters<typeof LiveView>[0]} page the diagram and log it draws into
   * @param {string[]} bases the daemons' console URLs
   * @param {ConstructorParameters<typeof LiveView>[2]} el the live panel's elements
   */
  constructor(page, bases, el) {
    this.can = { seek: false, inject: false, fork: false, lessons: false };
    this.view = new LiveView(page, bases, el);
  }

  open() {
    this.view.start();
  }

  close() {
    this.view.close();
  }

  /**
   * The cluster as at wall time `at` drawn (while following); whether it still follows, so the
   * page's loop goes on.
   * @param {{ at: number }} req
   */
  request({ at }) {
    return { following: this.view.frame(at) };
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
