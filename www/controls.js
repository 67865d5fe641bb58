// Transport buttons, speeds and the keyboard map. Every shortcut has a visible button too.
import { t } from "./i18n.js";

export const PRESETS = [1, 10, 60, 300, 600];
const LADDER = [1, 2, 5, 10, 20, 30, 60, 120, 300, 600];

export const STEP_TYPES = [
  ["", "anyEvent"],
  ["scan", "scan"],
  ["registered", "registered"],
  ["unregistered", "unregistered"],
  ["channel-idle", "channel-idle"],
  ["expired", "expired"],
  ["route-updated", "route-updated"],
  ["send-failed", "send-failed"],
  ["fault", "fault"],
];

export function bindControls(app) {
  const $ = (id) => document.getElementById(id);
  $("btn-play").addEventListener("click", () => app.toggle());
  $("btn-step").addEventListener("click", () => app.stepNext());
  $("btn-stepback").addEventListener("click", () => app.stepBack());
  $("btn-back10").addEventListener("click", () => app.jump(-10000));
  $("btn-fwd10").addEventListener("click", () => app.jump(10000));
  $("btn-home").addEventListener("click", () => app.seek(0));
  $("btn-end").addEventListener("click", () => app.toEnd());
  $("btn-fork").addEventListener("click", () => app.fork());
  $("btn-faults").addEventListener("click", () => app.faults.openPalette());
  $("btn-share").addEventListener("click", () => app.share());
  $("btn-export").addEventListener("click", () => app.exportTrace());
  $("import-file").addEventListener("change", (e) => e.target.files[0] && app.importTrace(e.target.files[0]));
  $("speed-down").addEventListener("click", () => app.setSpeed(stepSpeed(app.speed, -1), true));
  $("speed-up").addEventListener("click", () => app.setSpeed(stepSpeed(app.speed, 1), true));
  const presets = $("speed-presets");
  presets.innerHTML = PRESETS.map((x) => `<button type="button" data-speed="${x}" data-testid="speed-${x}" aria-pressed="false">${x}×</button>`).join("");
  presets.addEventListener("click", (e) => {
    const b = e.target.closest("button[data-speed]");
    if (b) app.setSpeed(Number(b.dataset.speed), true);
  });
  const types = $("step-type");
  types.innerHTML = STEP_TYPES.map(([v, k]) => `<option value="${v}">${k === "anyEvent" ? t("anyEvent") : k}</option>`).join("");

  const help = [
    ["Space", t("keySpace")], ["→ / ←", t("keyArrows")], ["Shift+→ / Shift+←", t("keyShiftArrows")],
    ["+ / −", t("keyPlusMinus")], ["Home / End", t("keyHomeEnd")], ["1–9", t("keyDigits")], ["k", t("keyK")],
    ["l", t("keyL")], ["f", t("keyF")], ["t", t("keyT")], ["?", t("keyQ")], ["Enter", t("keyEnter")],
  ];
  $("help-list").innerHTML = help.map(([k, v]) => `<dt><kbd>${k}</kbd></dt><dd>${v}</dd>`).join("");
  $("help-btn").addEventListener("click", () => $("help").showModal());

  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    if (document.querySelector("dialog[open]") || app.live) return;
    const tag = e.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    const onControl = tag === "BUTTON" || tag === "A" || e.target.getAttribute("role") === "button";
    let handled = true;
    switch (e.key) {
      case " ":
        if (onControl) return;
        app.toggle();
        break;
      case "ArrowRight":
        if (e.shiftKey) (types.value ? app.stepNext(types.value) : app.jump(10000));
        else app.stepNext();
        break;
      case "ArrowLeft":
        if (e.shiftKey) app.jump(-10000);
        else app.stepBack();
        break;
      case "+":
      case "=":
        app.setSpeed(stepSpeed(app.speed, 1), true);
        break;
      case "-":
      case "_":
        app.setSpeed(stepSpeed(app.speed, -1), true);
        break;
      case "Home":
        app.seek(0);
        break;
      case "End":
        app.toEnd();
        break;
      case "k":
        app.faults.openPalette();
        break;
      case "l":
        app.showPanel("log");
        app.log.focus();
        break;
      case "f":
        app.fork();
        break;
      case "t":
        app.toggleTable();
        break;
      case "?":
        $("help").showModal();
        break;
      default:
        if (/^[1-9]$/.test(e.key)) app.selectIndex(Number(e.key) - 1);
        else handled = false;
    }
    if (handled) e.preventDefault();
  });
}

export function stepSpeed(cur, dir) {
  const i = LADDER.findIndex((x) => x >= cur);
  const at = i < 0 ? LADDER.length - 1 : i;
  const next = dir > 0 ? (LADDER[at] > cur ? at : at + 1) : at - 1;
  return LADDER[Math.max(0, Math.min(LADDER.length - 1, next))];
}
