// The page's one entry: it looks the page's elements up, builds the store, the source, the
// widgets and the modules acting on them, and wires them together; nothing else happens here.
// The render pass is app/view.js, the time machine app/playback.js, live mode app/live-mode.js.
import { createStore } from "./app/store.js";
import { Loop } from "./app/loop.js";
import { setLanguage } from "./app/i18n.js";
import { SimSource } from "./source/sim-source.js";
import { Diagram } from "./diagram/diagram.js";
import { setTextMeasure } from "./diagram/labels.js";
import { setFontFamily } from "./diagram/nodes.js";
import { Timeline } from "./panels/timeline.js";
import { EventLog } from "./panels/log.js";
import { LessonRunner } from "./lessons/lesson-runner.js";
import { FaultUi } from "./panels/faults.js";
import { bindControls } from "./app/controls.js";
import { Quiz } from "./lessons/quiz.js";
import { Announcer } from "./app/announce.js";
import { Panels } from "./panels/panels.js";
import { Compare } from "./panels/compare.js";
import { Glossary } from "./lessons/glossary.js";
import { RuleCard } from "./panels/rule-card.js";
import { PageView } from "./app/view.js";
import { Playback } from "./app/playback.js";
import { LiveMode } from "./app/live-mode.js";
import { bindMenu, fitSheet, bindAbout, sharing, startPage, keepOffline } from "./app/actions.js";
import { testHook } from "./app/hook.js";

const $ = (id) => document.getElementById(id);
// The elements a module is built with, by their ids in camelCase ("btn-play" → btnPlay), less
// the prefix given ("lesson-" and "wait-text" → waitText).
const els = (names, prefix = "") =>
  Object.fromEntries(names.split(" ").map((n) => [n.replace(/-(\w)/g, (_, c) => c.toUpperCase()), $(prefix + n)]));
const body = document.body;

// What the modules take from the page rather than reading it at import (so Node can import
// them): the language, the font family and a way to measure text.
setLanguage(new URLSearchParams(location.search).get("lang"));
setFontFamily(getComputedStyle(document.documentElement).fontFamily);
const canvas = typeof OffscreenCanvas !== "undefined" ? new OffscreenCanvas(1, 1) : document.createElement("canvas");
const measuring = canvas.getContext("2d");
setTextMeasure((text, font) => {
  measuring.font = font;
  return measuring.measureText(text).width;
});

const store = createStore();
const source = new SimSource();
const announcer = new Announcer($("announcer"));
const announce = (msg) => announcer.say(msg, true);
store.subscribe((state, action) => action.type === "announce" && announce(action.text));
const glossary = new Glossary($("glossary"), $("glossary-list"), $("term-pop"));
// Callbacks reach modules built further down: they run on the learner's clicks, after this file.
const diagram = new Diagram($("diagram"), {
  onNode: (name) => {
    // A real cluster's nodes take no simulated faults.
    if (!playback.can.inject) return;
    playback.select(name);
    faults.openNode(name);
  },
  onFlight: (id) => faults.openFlight(id),
});
const timeline = new Timeline({
  ...els("scrubber lanes branches"),
  onSeek: (ms, live) => playback.scrub(ms, live),
  onBranch: (id) => playback.selectBranch(id),
});
const panels = new Panels($("tabs"), $("panels"), () => store.state.view && view.render());
const log = new EventLog($("log"), $("log-node"), $("log-kind"), (line) =>
  liveMode.source ? liveMode.seek(line.at) : playback.seekToLine(line),
);
const faults = new FaultUi(
  {
    current: () => store.state.view,
    inject: (action) => playback.inject(action, (later) => faults.askKeep(later)),
    flightFrame: (id) => source.call("frame", { id }).then((r) => r.frame),
    diagram,
  },
  els("palette palette-input palette-list sheet sheet-title sheet-body sheet-list fork-ask fork-ask-body"),
);
const quiz = new Quiz(
  {
    builtInText: (id) => playback.builtInText(id),
    run: (args) => source.call("quiz", args),
    loadText: (text, ms) => playback.loadText(text, ms),
  },
  $("quiz"),
  $("quiz-body"),
);
const compare = new Compare(
  {
    scenarios: () => store.state.scenarios,
    branchText: () => store.state.view.meta.text,
    run: (args) => source.call("compare", args),
  },
  $("compare"),
);
const lessonEls = els("title text wait wait-text skip question context continue replay free progress fold", "lesson-");
const lesson = new LessonRunner(store, source, { panel: $("lesson"), ...lessonEls });
new RuleCard(store, $("diagram-wrap"), $("diagram"), $("lesson"));
const loop = new Loop((now) => playback.frame(now));
const reduced = matchMedia("(prefers-reduced-motion: reduce)");
const viewEls = els(
  "clock status-meta divergence route-grid ns-tables timers measurements table-view legend lanes-legend " +
    "btn-play speed-out speed-presets table-toggle diagram-wrap layout-toggle lesson-select",
);
const drawn = { diagram, timeline, panels, log, compare, sheet: faults };
const view = new PageView(store, drawn, { ...viewEls, body }, reduced);
const playbackEls = { ...els("scenario-select share-url"), log: $("log") };
const playback = new Playback(store, source, { view, diagram, timeline, log, announcer }, loop, playbackEls);
const liveMode = new LiveMode(
  store,
  { diagram, log, panels, view, playback, loop },
  {
    ...els("live-btn live-exit live-panel live-links live-status live-topic live-follow live-scrubber live-clock"),
    ...els("live-sentences ns-tables route-grid divergence"),
    body,
  },
);
const share = sharing(store, playback, source, announce, els("share-url"));
bindControls(
  playback,
  {
    ...share,
    openFaults: () => faults.openPalette(),
    showLog: () => {
      panels.show("log");
      log.focus();
    },
  },
  {
    ...els("play step stepback back10 fwd10 home end fork faults share export", "btn-"),
    ...els("import-file speed-down speed-up speed-presets step-type help-list help-btn help"),
    root: body,
  },
);
glossary.bind(body);
bindMenu(els("menu-btn more top"));
fitSheet(els("top stage"));
bindAbout(store, playback, els("about-btn about about-body"));
$("quiz-btn").addEventListener("click", () => quiz.open());
$("glossary-btn").addEventListener("click", () => glossary.open());

const startEls = { ...els("lang-link scenario-select lesson-select lesson-btn"), body };
const offline = startPage(store, source, { playback, lesson, liveMode }, startEls).then(keepOffline, (e) => {
  body.dataset.error = String(e.message || e);
  console.error(e);
  return 0;
});
window.__rmqsim = testHook(store, { playback, view, lesson, liveMode, loop, source }, offline);
