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

// `page`: the functions the controls call — toggle, stepNext(kind?), stepBack, jump(ms),
// seek(ms), toEnd, fork, openFaults, share, exportTrace, importTrace(file), speed(),
// setSpeed(x), showLog, toggleTable, selectIndex(i), isLive().
export function bindControls(page) {
  const $ = (id) => document.getElementById(id);
  $("btn-play").addEventListener("click", () => page.toggle());
  $("btn-step").addEventListener("click", () => page.stepNext());
  $("btn-stepback").addEventListener("click", () => page.stepBack());
  $("btn-back10").addEventListener("click", () => page.jump(-10000));
  $("btn-fwd10").addEventListener("click", () => page.jump(10000));
  $("btn-home").addEventListener("click", () => page.seek(0));
  $("btn-end").addEventListener("click", () => page.toEnd());
  $("btn-fork").addEventListener("click", () => page.fork());
  $("btn-faults").addEventListener("click", () => page.openFaults());
  $("btn-share").addEventListener("click", () => page.share());
  $("btn-export").addEventListener("click", () => page.exportTrace());
  $("import-file").addEventListener("change", (e) => e.target.files[0] && page.importTrace(e.target.files[0]));
  $("speed-down").addEventListener("click", () => page.setSpeed(stepSpeed(page.speed(), -1)));
  $("speed-up").addEventListener("click", () => page.setSpeed(stepSpeed(page.speed(), 1)));
  const presets = $("speed-presets");
  presets.innerHTML = PRESETS.map(
    (x) => `<button type="button" data-speed="${x}" data-testid="speed-${x}" aria-pressed="false">${x}×</button>`,
  ).join("");
  presets.addEventListener("click", (e) => {
    const b = e.target.closest("button[data-speed]");
    if (b) page.setSpeed(Number(b.dataset.speed));
  });
  const types = $("step-type");
  types.innerHTML = STEP_TYPES.map(
    ([v, k]) => `<option value="${v}">${k === "anyEvent" ? t("anyEvent") : k}</option>`,
  ).join("");

  const help = [
    ["Space", t("keySpace")],
    ["→ / ←", t("keyArrows")],
    ["Shift+→ / Shift+←", t("keyShiftArrows")],
    ["+ / −", t("keyPlusMinus")],
    ["Home / End", t("keyHomeEnd")],
    ["1–9", t("keyDigits")],
    ["k", t("keyK")],
    ["l", t("keyL")],
    ["f", t("keyF")],
    ["t", t("keyT")],
    ["?", t("keyQ")],
    ["Enter", t("keyEnter")],
  ];
  $("help-list").innerHTML = help.map(([k, v]) => `<dt><kbd>${k}</kbd></dt><dd>${v}</dd>`).join("");
  $("help-btn").addEventListener("click", () => $("help").showModal());

  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    if (document.querySelector("dialog[open]") || page.isLive()) return;
    const tag = e.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    const onControl = tag === "BUTTON" || tag === "A" || e.target.getAttribute("role") === "button";
    let handled = true;
    switch (e.key) {
      case " ":
        if (onControl) return;
        page.toggle();
        break;
      case "ArrowRight":
        if (e.shiftKey) types.value ? page.stepNext(types.value) : page.jump(10000);
        else page.stepNext();
        break;
      case "ArrowLeft":
        if (e.shiftKey) page.jump(-10000);
        else page.stepBack();
        break;
      case "+":
      case "=":
        page.setSpeed(stepSpeed(page.speed(), 1));
        break;
      case "-":
      case "_":
        page.setSpeed(stepSpeed(page.speed(), -1));
        break;
      case "Home":
        page.seek(0);
        break;
      case "End":
        page.toEnd();
        break;
      case "k":
        page.openFaults();
        break;
      case "l":
        page.showLog();
        break;
      case "f":
        page.fork();
        break;
      case "t":
        page.toggleTable();
        break;
      case "?":
        $("help").showModal();
        break;
      default:
        if (/^[1-9]$/.test(e.key)) page.selectIndex(Number(e.key) - 1);
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
