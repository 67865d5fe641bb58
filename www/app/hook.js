// @ts-check
// The browser tests' hook, window.__rmqsim: read-only views of the page's state, answered from
// the store and the few objects that still hold their own (the lesson, live mode, the loop).
import { PRESETS } from "./controls.js";

// `w`: playback, view, lesson, liveMode, loop, source; `offline`: the start's promise of the
// offline copy (how many files it kept).
export function testHook(store, w, offline) {
  const { playback, view, lesson, liveMode, loop, source } = w;
  const snap = () => store.state.view && store.state.view.snap;
  return {
    time: () => (snap() ? snap().time : 0),
    stateHash: () => playback.hashes().then((h) => h.stateHash),
    traceHash: () => playback.hashes().then((h) => h.traceHash),
    views: () =>
      Promise.resolve(
        snap() && {
          ...snap(),
          trace: store.state.trace.slice(),
          sends: store.state.sends.slice(),
          meta: store.state.view.meta,
        },
      ),
    playing: () => store.state.playback.playing,
    speed: () => store.state.playback.speed,
    effectiveSpeed: () => playback.effectiveSpeed(),
    presets: () => PRESETS.slice(),
    lesson: () => lesson.state(),
    live: () => liveMode.state(),
    idle: () => source.idle && !playback.pending && !playback.holding,
    offlineReady: () => offline,
    frameStats: () => {
      const sorted = view.frameTimes.slice().sort((a, b) => a - b);
      const at = (q) => sorted[Math.floor(sorted.length * q)] || 0;
      return { count: sorted.length, p50: at(0.5), p95: at(0.95), rafCount: loop.frames };
    },
    clockTrace: () => playback.clockTrace.slice(),
  };
}
