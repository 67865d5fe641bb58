// @ts-check
// Live mode: a running daemon drawn instead of the simulation, entered and left. It is a change
// of the playback's source (source/live-source.js): the page's loop draws its frames, and the
// simulation's controls, which it cannot take, are hidden. Its modules load when it first
// opens (the page's first load has no use for them); the offline copy still lists them.
import { t } from "./i18n.js";

/** Live mode's own modules, for the offline copy. */
export const LIVE_MODULES = ["../source/live.js", "../source/live-source.js", "../source/daemon-feed.js"].map(
  (p) => new URL(p, import.meta.url).href,
);

export class LiveMode {
  // `w`: diagram, log, panels, view (the page's render), playback, loop. `el`: the live panel's
  // elements (live…, the shared tables, routes and divergence banner) and the body.
  constructor(store, w, el) {
    this.store = store;
    this.w = w;
    this.el = el;
    /** @type {import("../source/live-source.js").LiveSource | null} */
    this.source = null;
    this.opening = false;
    el.liveBtn.addEventListener("click", () => (this.source ? this.exit() : this.enter()));
    el.liveExit.addEventListener("click", () => this.exit());
  }

  // `param`: `?live`'s value, one console URL or several separated by commas ("": the daemon
  // serving this page). Resolves once the live source is open.
  async enter(param = "") {
    if (this.source || this.opening) return;
    this.opening = true;
    let modules;
    try {
      modules = await Promise.all([import("../source/live.js"), import("../source/live-source.js")]);
    } finally {
      this.opening = false;
    }
    const [{ liveBases }, { LiveSource }] = modules;
    const { el, w } = this;
    el.body.dataset.mode = "live";
    el.livePanel.hidden = false;
    el.liveBtn.setAttribute("aria-pressed", "true");
    for (const id of ["routes", "tables", "log"]) w.panels.panel(id).hidden = false;
    const bases = liveBases(param);
    const b = bases[0];
    const link = (path) => `<a href="${b}${path}">${path}</a>`;
    el.liveLinks.innerHTML = t("liveLinks", {
      api: link("/api"),
      metrics: link("/metrics"),
      health: link("/healthz"),
      nsaddr: link("/rocketmq/nsaddr"),
    });
    this.source = new LiveSource(
      w.playback.sim,
      {
        diagram: w.diagram,
        log: w.log,
        reducedMotion: () => w.view.reducedMotion,
        frames: () => w.loop.start(),
      },
      bases,
      {
        status: el.liveStatus,
        topic: el.liveTopic,
        follow: el.liveFollow,
        scrubber: el.liveScrubber,
        clock: el.liveClock,
        tables: el.nsTables,
        routes: el.routeGrid,
        links: el.liveLinks,
        divergence: el.divergence,
        sentences: el.liveSentences,
      },
    );
    w.playback.use(this.source);
    this.store.dispatch({ type: "live", param });
    this.source.open();
    setLiveParam(param);
  }

  exit() {
    if (!this.source) return;
    const { el, w } = this;
    const { meta } = /** @type {import("./store.js").View} */ (this.store.state.view);
    this.source.close();
    this.source = null;
    w.playback.use(w.playback.sim);
    delete el.body.dataset.mode;
    el.liveSentences.hidden = true;
    w.diagram.setMeta(meta);
    el.livePanel.hidden = true;
    el.liveBtn.setAttribute("aria-pressed", "false");
    w.panels.sync();
    w.log.setNodes(meta.nodes.map((n) => n.name));
    w.log.replace(this.store.state.trace);
    this.store.dispatch({ type: "live", param: null });
    setLiveParam(null);
    w.view.render();
  }

  // A line of the event log chosen while live: the live view goes to its time.
  seek(at) {
    if (this.source) this.source.seek(at);
  }

  state() {
    return this.source ? this.source.state() : null;
  }
}

// The address bar keeps `?live` while live mode is on, so a reload comes back to it.
function setLiveParam(base) {
  const u = new URL(location.href);
  if (base === null) u.searchParams.delete("live");
  else u.searchParams.set("live", base);
  history.replaceState(null, "", u.pathname + u.search.replace(/([?&]live)=(?=&|$)/, "$1") + u.hash);
}
