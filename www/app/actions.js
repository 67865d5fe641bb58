// @ts-check
// The page's own actions, each built with the elements it works on: the menu, the phone's lesson
// sheet, the About dialog, sharing and trace files, and the start (the scenario from the link, a
// lesson, or live mode).
import { t, applyStatic, scenarioTitle } from "./i18n.js";
import { freePlayRemembered } from "./free-play.js";
import { parseHash } from "./url.js";
import { LIVE_MODULES } from "./live-mode.js";
import { shareUrl, share, exportTrace, importTrace } from "./share.js";
import { renderAbout } from "../panels/about.js";
import { LESSONS, LESSON_ORDER } from "../lessons/index.js";

// The menu of less frequent actions (and, on a phone, of the header's own controls).
export function bindMenu(el) {
  const menu = (open, refocus = false) => {
    el.menuBtn.setAttribute("aria-expanded", String(open));
    el.more.hidden = !open;
    el.top.classList.toggle("open", open);
    if (refocus) el.menuBtn.focus();
  };
  el.menuBtn.addEventListener("click", () => menu(el.menuBtn.getAttribute("aria-expanded") !== "true"));
  el.more.addEventListener("click", (e) => e.target.closest("button") && menu(false));
  document.addEventListener("keydown", (e) => e.key === "Escape" && !el.more.hidden && menu(false, true));
}

// On a phone the lesson is a sheet over the page's lower part: it may grow up to the bottom of
// the (sticky) diagram, never over it.
export function fitSheet(el) {
  const fit = () => {
    const top = el.top.offsetHeight + el.stage.offsetHeight + 8;
    document.documentElement.style.setProperty("--sheet", `${Math.max(180, window.innerHeight - top)}px`);
  };
  new ResizeObserver(fit).observe(el.stage);
  window.addEventListener("resize", fit);
}

// The About dialog: the scenario's settings, two of which (profile, idle) reload it changed.
export function bindAbout(store, playback, el) {
  const view = () => store.state.view;
  el.aboutBtn.addEventListener("click", () => {
    renderAbout(el.aboutBody, view().meta.model);
    el.about.showModal();
  });
  el.about.addEventListener("change", async (e) => {
    const input = e.target;
    let text = view().meta.text;
    if (input.name === "profile") text = text.replace(/^profile \S+/m, `profile ${input.value}`);
    if (input.name === "idle") text = text.replace(/^idle \S+/m, `idle ${input.value}`);
    if (text === view().meta.text) return;
    await playback.loadText(text, view().snap.time);
    renderAbout(el.aboutBody, view().meta.model);
    const focus = el.aboutBody.querySelector(`input[name="${input.name}"][value="${input.value}"]`);
    if (focus) focus.focus();
  });
}

// Sharing the page's state: its link, the trace out as a file and a trace file in.
export function sharing(store, playback, source, announce, el) {
  return {
    share: () => share(el.shareUrl, shareUrl(store.state), announce),
    exportTrace: async () => exportTrace(await source.call("trace")),
    importTrace: (file) =>
      importTrace(file, {
        loadText: (text, ms) => playback.loadText(text, ms),
        hashes: () => playback.hashes(),
        announce,
      }),
  };
}

// Fills the scenario and lesson menus from the source's built-ins, then opens what the link
// asks for (a lesson, a shared scenario at its time, live mode) or the introduction. `w`:
// playback, lesson, liveMode. Resolves with the worker's resources (for the offline copy).
export async function startPage(store, source, w, el) {
  const { playback, lesson, liveMode } = w;
  applyStatic(document, el.langLink);
  const { scenarios, resources } = await source.open();
  store.dispatch({ type: "scenarios", list: scenarios });
  const title = (id) => scenarioTitle(scenarios, id);
  const sel = el.scenarioSelect;
  sel.innerHTML = scenarios.map((s) => `<option value="${s.id}">${s.id} — ${title(s.id)}</option>`).join("");
  sel.addEventListener("change", () => {
    lesson.freePlay();
    playback.loadBuiltIn(sel.value);
  });
  const lessons = el.lessonSelect;
  lessons.innerHTML =
    `<option value="">${t("freePlayOption")}</option>` +
    LESSON_ORDER.map(
      (id) => `<option value="${id}">${id === "intro" ? t("introTitle") : `${id} — ${title(id)}`}</option>`,
    ).join("");
  lessons.addEventListener("change", () => (lessons.value ? lesson.start(lessons.value) : lesson.freePlay()));
  el.lessonBtn.addEventListener("click", () => lesson.start(LESSONS[sel.value] ? sel.value : "S1"));
  playback.setSpeed(60, false);
  const fromUrl = parseHash(location.hash);
  const params = new URLSearchParams(location.search);
  if (fromUrl && fromUrl.lesson && LESSONS[fromUrl.lesson]) {
    await lesson.start(fromUrl.lesson, fromUrl.step || 0);
  } else if (fromUrl && fromUrl.text) {
    await playback.loadText(fromUrl.text, fromUrl.time);
    if (fromUrl.selected) playback.select(fromUrl.selected);
  } else if (params.has("live") || freePlayRemembered()) {
    await playback.loadBuiltIn("S1");
  } else {
    await lesson.start("intro");
  }
  if (params.has("live")) await liveMode.enter(params.get("live"));
  el.body.dataset.ready = "true";
  return resources;
}

// Registers the service worker only now that the page and its worker have loaded everything,
// and hands it the list, so the offline copy comes from the HTTP cache (the WebAssembly is
// downloaded once). Resolves with how many files were kept.
export function keepOffline(workerResources) {
  if (!("serviceWorker" in navigator) || location.protocol === "file:") return Promise.resolve(0);
  return navigator.serviceWorker
    .register(new URL("../sw.js", import.meta.url))
    .then(() => navigator.serviceWorker.ready)
    .then(
      (reg) =>
        new Promise((done) => {
          const urls = [
            location.href.split("#")[0],
            ...performance.getEntriesByType("resource").map((e) => e.name),
            ...workerResources,
            ...LIVE_MODULES,
          ];
          navigator.serviceWorker.addEventListener(
            "message",
            (e) => e.data && "cached" in e.data && done(e.data.cached),
            { once: true },
          );
          /** @type {ServiceWorker} */ (reg.active).postMessage({ cache: urls });
        }),
    )
    .catch(() => 0);
}
