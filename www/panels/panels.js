// @ts-check
// The expert panels as tabs beside the diagram ("essentials", the default) or all at once
// ("full dashboard"). A tab list with arrow-key navigation, as the ARIA tabs pattern has it.
import { t } from "../app/i18n.js";

const TABS = ["routes", "tables", "timers", "lanes", "measure", "compare", "log"];

export class Panels {
  constructor(nav, container, onChange) {
    this.nav = nav;
    this.container = container;
    this.onChange = onChange;
    this.dashboard = false;
    // False before a lesson explains tables.
    this.shown = true;
    this.active = "routes";
    nav.innerHTML = TABS.map(
      (id) =>
        `<button type="button" role="tab" id="tab-${id}" data-tab="${id}" data-testid="tab-${id}" aria-controls="${this.panel(id).id}">${t(`tab_${id}`)}</button>`,
    ).join("");
    for (const id of TABS) this.panel(id).setAttribute("aria-labelledby", `tab-${id}`);
    nav.addEventListener("click", (e) => {
      const b = e.target.closest("button[data-tab]");
      if (b) this.show(b.dataset.tab, true);
    });
    nav.addEventListener("keydown", (e) => {
      const i = TABS.indexOf(this.active);
      const next = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: TABS.length - 1 }[e.key];
      if (next === undefined) return;
      e.preventDefault();
      e.stopPropagation();
      this.show(TABS[(next + TABS.length) % TABS.length], true);
    });
    this.sync();
  }

  panel(id) {
    return this.container.querySelector(`[data-tab="${id}"]`);
  }

  // Whether a panel is on screen (so it is worth rendering).
  visible(id) {
    return this.shown && (this.dashboard || this.active === id);
  }

  show(id, focus = false) {
    if (!TABS.includes(id)) return;
    this.active = id;
    this.sync();
    if (focus) this.nav.querySelector(`[data-tab="${id}"]`).focus();
    this.onChange(id);
  }

  setShown(on) {
    this.shown = on;
    this.nav.hidden = !on;
    this.sync();
  }

  setDashboard(on) {
    this.dashboard = on;
    document.body.dataset.layout = on ? "dashboard" : "essentials";
    this.sync();
    this.onChange(this.active);
  }

  sync() {
    for (const b of this.nav.querySelectorAll("button[data-tab]")) {
      const on = b.dataset.tab === this.active;
      b.setAttribute("aria-selected", String(on));
      b.tabIndex = on ? 0 : -1;
    }
    for (const id of TABS) this.panel(id).hidden = !this.visible(id);
  }
}
