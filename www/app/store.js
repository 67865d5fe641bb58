// @ts-check
// The page's state, in one object changed only by `dispatch(action)`: each action returns a new
// state (the parts it leaves alone are the same objects), and every subscriber hears once per
// dispatch, after the change. Requests (`seek`, `load`, `skip`) and events (`gateHit`,
// `announce`) change nothing here: a subscriber acts on them, and `request(action)` answers with
// the promise that subscriber sets as `action.done`. What the live view holds is still its own.

/**
 * @typedef {import("../../wasm/types").TraceEvent} TraceEvent the generated declarations (wasm/types.d.ts)
 * @typedef {import("../../wasm/types").SendInfo} SendInfo
 * @typedef {import("../../wasm/types").BuiltInScenario} BuiltInScenario
 * @typedef {{ snap: any, meta: any }} View the source's latest answer: the snapshot and what stays put
 * @typedef {{
 *   view: View | null,
 *   trace: TraceEvent[],
 *   sends: SendInfo[],
 *   selection: { node: string | null, highlight: string | null },
 *   playback: { playing: boolean, speed: number, userSpeed: boolean },
 *   lesson: Lesson,
 *   ui: { tableView: boolean, dashboard: boolean, live: string | null, panel: string | null },
 *   scenarios: BuiltInScenario[],
 * }} State
 * @typedef {{
 *   id: string | null, step: number | null, gate: object | null, gateAt: number | null,
 *   focus: { nodes: string[], links: string[] }, subject: import("../lessons/hold.js").Subject | null,
 *   reveal: string[] | null, run: number | null,
 * }} Lesson the lesson on: its step, the event it waits for (while the clock runs to it) and
 *   when that comes (for the approach), what the step names on the diagram, the message its
 *   event is about (drawn before the event shows), what it may show (`revealed`), and which run
 *   of the step this is (each entry and replay is one)
 * @typedef {{ type: string, done?: Promise<any>, [key: string]: any }} Action
 */

/** @type {Lesson} */
const NO_LESSON = {
  id: null,
  step: null,
  gate: null,
  gateAt: null,
  focus: { nodes: [], links: [] },
  subject: null,
  reveal: null,
  run: null,
};

/** @type {State} */
export const INITIAL = {
  view: null,
  trace: [],
  sends: [],
  selection: { node: null, highlight: null },
  playback: { playing: false, speed: 60, userSpeed: false },
  lesson: NO_LESSON,
  ui: { tableView: false, dashboard: false, live: null, panel: null },
  scenarios: [],
};

/**
 * `list` cut to `from` with `more` after it (the same array when nothing changes).
 * @param {any[]} list  @param {number} from  @param {any[]} more
 */
function extend(list, from, more) {
  if (from >= list.length && !more.length) return list;
  return list.slice(0, from).concat(more);
}

/**
 * The state after `action`. Actions: `answer` {answer: the worker's, fresh: a new load},
 * `play`, `pause`, `speed` {speed, byUser}, `select` {node}, `highlight` {node}, `tableView`,
 * `dashboard` {on}, `live` {param: `?live`'s value, or null to leave}, `lesson` {id: the lesson on,
 * or null; step, gate, gateAt, focus, subject, reveal, run}, `panel` {id: the tab to show}, `scenarios` {list: the
 * built-ins}; the requests `seek` {ms}, `load` {id}, `skip` {gate, since} and the events
 * `gateHit` {hit}, `announce` {text} leave the state as it is.
 * @param {State} state
 * @param {Action} action
 * @returns {State}
 */
export function reduce(state, action) {
  switch (action.type) {
    case "answer": {
      const { meta, snap } = action.answer;
      const trace = action.fresh ? [] : state.trace;
      const sends = action.fresh ? [] : state.sends;
      return {
        ...state,
        view: { snap, meta: meta || (state.view && state.view.meta) },
        trace: extend(trace, snap.traceFrom, snap.trace),
        sends: extend(sends, snap.sendsFrom, snap.sends),
      };
    }
    case "play":
      // A live cluster on screen: the simulation's clock stays.
      if (state.ui.live !== null) return state;
      return { ...state, playback: { ...state.playback, playing: true } };
    case "pause":
      return { ...state, playback: { ...state.playback, playing: false } };
    case "speed":
      return {
        ...state,
        playback: { ...state.playback, speed: action.speed, userSpeed: state.playback.userSpeed || !!action.byUser },
      };
    case "select":
      return { ...state, selection: { ...state.selection, node: action.node } };
    case "highlight":
      return { ...state, selection: { ...state.selection, highlight: action.node } };
    case "tableView":
      return { ...state, ui: { ...state.ui, tableView: !state.ui.tableView } };
    case "dashboard":
      return { ...state, ui: { ...state.ui, dashboard: !!action.on } };
    case "live":
      return { ...state, ui: { ...state.ui, live: action.param } };
    case "lesson":
      if (action.id === null) return { ...state, lesson: NO_LESSON };
      return {
        ...state,
        lesson: {
          id: action.id,
          step: action.step ?? null,
          gate: action.gate ?? null,
          gateAt: action.gateAt ?? null,
          focus: action.focus || NO_LESSON.focus,
          subject: action.subject ?? null,
          reveal: action.reveal ?? null,
          run: action.run ?? null,
        },
      };
    case "panel":
      return { ...state, ui: { ...state.ui, panel: action.id } };
    case "scenarios":
      return { ...state, scenarios: action.list };
    case "seek":
    case "load":
    case "skip":
    case "gateHit":
    case "announce":
      return state;
    default:
      throw new Error(`unknown action ${action.type}`);
  }
}

/** @param {State} [state] */
export function createStore(state = INITIAL) {
  /** @type {Set<(state: State, action: Action) => void>} */
  const subscribers = new Set();
  return {
    get state() {
      return state;
    },
    /** @param {Action} action */
    dispatch(action) {
      state = reduce(state, action);
      // A subscriber may dispatch in turn: the later ones hear the newest state.
      for (const fn of subscribers) fn(state, action);
      return state;
    },
    /**
     * Dispatches a request and answers with what its subscriber set as `done` (else null).
     * @param {Action} action  @returns {Promise<any>}
     */
    request(action) {
      this.dispatch(action);
      return action.done || Promise.resolve(null);
    },
    /** @param {(state: State, action: Action) => void} fn  @returns {() => void} unsubscribes */
    subscribe(fn) {
      subscribers.add(fn);
      return () => subscribers.delete(fn);
    },
  };
}
