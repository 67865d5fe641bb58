// @ts-check
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

// `play`: the playback (toggle, stepNext(kind?), stepBack, jump(ms), seek(ms), toEnd, fork,
// speed, setSpeed(x, byUser), toggleTable, selectIndex(i), can: what its source can do). `page`: openFaults, share,
// exportTrace, importTrace(file), showLog. `el`: the controls' elements, by the names used below,
// and `root` (the keys belong to a modal dialog in it).
export function bindControls(play, page, el) {
  el.play.addEventListener("click", () => play.toggle());
  el.step.addEventListener("click", () => play.stepNext());
  el.stepback.addEventListener("click", () => play.stepBack());
  el.back10.addEventListener("click", () => play.jump(-10000));
  el.fwd10.addEventListener("click", () => play.jump(10000));
  el.home.addEventListener("click", () => play.seek(0));
  el.end.addEventListener("click", () => play.toEnd());
  el.fork.addEventListener("click", () => play.fork());
  el.faults.addEventListener("click", () => page.openFaults());
  el.share.addEventListener("click", () => page.share());
  el.export.addEventListener("click", () => page.exportTrace());
  el.importFile.addEventListener("change", (e) => e.target.files[0] && page.importTrace(e.target.files[0]));
  el.speedDown.addEventListener("click", () => play.setSpeed(stepSpeed(play.speed, -1), true));
  el.speedUp.addEventListener("click", () => play.setSpeed(stepSpeed(play.speed, 1), true));
  const presets = el.speedPresets;
  presets.innerHTML = PRESETS.map(
    (x) => `<button type="button" data-speed="${x}" data-testid="speed-${x}" aria-pressed="false">${x}×</button>`,
  ).join("");
  presets.addEventListener("click", (e) => {
    const b = e.target.closest("button[data-speed]");
    if (b) play.setSpeed(Number(b.dataset.speed), true);
  });
  const types = el.stepType;
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
  el.helpList.innerHTML = help.map(([k, v]) => `<dt><kbd>${k}</kbd></dt><dd>${v}</dd>`).join("");
  el.helpBtn.addEventListener("click", () => el.help.showModal());

  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    const target = /** @type {HTMLElement} */ (e.target);
    if (el.root.querySelector("dialog:modal") || target.closest("dialog[open]") || !play.can.seek) return;
    const tag = target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    const onControl = tag === "BUTTON" || tag === "A" || target.getAttribute("role") === "button";
    let handled = true;
    switch (e.key) {
      case " ":
        if (onControl) return;
        play.toggle();
        break;
      case "ArrowRight":
        if (e.shiftKey) types.value ? play.stepNext(types.value) : play.jump(10000);
        else play.stepNext();
        break;
      case "ArrowLeft":
        if (e.shiftKey) play.jump(-10000);
        else play.stepBack();
        break;
      case "+":
      case "=":
        play.setSpeed(stepSpeed(play.speed, 1), true);
        break;
      case "-":
      case "_":
        play.setSpeed(stepSpeed(play.speed, -1), true);
        break;
      case "Home":
        play.seek(0);
        break;
      case "End":
        play.toEnd();
        break;
      case "k":
        page.openFaults();
        break;
      case "l":
        page.showLog();
        break;
      case "f":
        play.fork();
        break;
      case "t":
        play.toggleTable();
        break;
      case "?":
        el.help.showModal();
        break;
      default:
        if (/^[1-9]$/.test(e.key)) play.selectIndex(Number(e.key) - 1);
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
