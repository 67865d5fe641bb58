// @ts-check
// The page's state, in one object changed only by `dispatch(action)`: each action returns a new
// state (the parts it leaves alone are the same objects), and every subscriber hears once per
// dispatch, after the change. What the lesson runner and the live view hold is still theirs.

/**
 * @typedef {{ snap: any, meta: any }} View the source's latest answer: the snapshot and what stays put
 * @typedef {{
 *   view: View | null,
 *   trace: any[],
 *   sends: any[],
 *   selection: { node: string | null, highlight: string | null },
 *   playback: { playing: boolean, speed: number, userSpeed: boolean },
 *   lesson: { id: string | null },
 *   ui: { tableView: boolean, dashboard: boolean, live: string | null },
 * }} State
 */

/** @type {State} */
export const INITIAL = {
  view: null,
  trace: [],
  sends: [],
  selection: { node: null, highlight: null },
  playback: { playing: false, speed: 60, userSpeed: false },
  lesson: { id: null },
  ui: { tableView: false, dashboard: false, live: null },
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
 * `dashboard` {on}, `live` {param: `?live`'s value, or null to leave}, `lesson` {id: the lesson on, or null}.
 * @param {State} state
 * @param {{ type: string, [key: string]: any }} action
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
    case "pause":
      return { ...state, playback: { ...state.playback, playing: action.type === "play" } };
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
      return { ...state, lesson: { id: action.id } };
    default:
      throw new Error(`unknown action ${action.type}`);
  }
}

/** @param {State} [state] */
export function createStore(state = INITIAL) {
  /** @type {Set<(state: State, action: { type: string }) => void>} */
  const subscribers = new Set();
  return {
    get state() {
      return state;
    },
    /** @param {{ type: string, [key: string]: any }} action */
    dispatch(action) {
      state = reduce(state, action);
      for (const fn of subscribers) fn(state, action);
      return state;
    },
    /** @param {(state: State, action: { type: string }) => void} fn  @returns {() => void} unsubscribes */
    subscribe(fn) {
      subscribers.add(fn);
      return () => subscribers.delete(fn);
    },
  };
}
