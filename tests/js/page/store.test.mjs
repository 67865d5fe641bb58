// The page's store (www/app/store.js): each action gives its state, leaves the rest as it was,
// and every subscriber hears once per dispatch.
import { test } from "node:test";
import assert from "node:assert/strict";

import { createStore, INITIAL } from "../../../www/app/store.js";

const line = (seq, at) => ({ seq, at, node: "NS-1", kind: "registered", text: `line ${seq}` });
const answer = ({ time, traceFrom, trace, sendsFrom = 0, sends = [] }, meta) => ({
  ...(meta ? { meta } : {}),
  snap: { time, traceFrom, trace, sendsFrom, sends },
});

test("answer: the view is the answer's, the trace and sends are cut at their From and extended", () => {
  const store = createStore();
  const meta = { text: "scenario" };
  store.dispatch({ type: "answer", answer: answer({ time: 0, traceFrom: 0, trace: [line(1, 0)] }, meta), fresh: true });
  assert.equal(store.state.view.meta, meta);
  assert.deepEqual(store.state.trace, [line(1, 0)]);
  // A later answer without meta keeps the meta; new lines go after the old ones.
  store.dispatch({
    type: "answer",
    answer: answer({ time: 5, traceFrom: 1, trace: [line(2, 5)], sends: [{ id: 1 }] }),
  });
  assert.equal(store.state.view.meta, meta);
  assert.equal(store.state.view.snap.time, 5);
  assert.deepEqual(
    store.state.trace.map((l) => l.seq),
    [1, 2],
  );
  assert.deepEqual(store.state.sends, [{ id: 1 }]);
  // A seek back cuts the trace where the answer says it changed.
  store.dispatch({ type: "answer", answer: answer({ time: 1, traceFrom: 1, trace: [], sendsFrom: 0 }) });
  assert.deepEqual(
    store.state.trace.map((l) => l.seq),
    [1],
  );
  assert.deepEqual(store.state.sends, []);
  // A fresh load starts from nothing.
  store.dispatch({ type: "answer", answer: answer({ time: 0, traceFrom: 0, trace: [line(9, 0)] }, meta), fresh: true });
  assert.deepEqual(
    store.state.trace.map((l) => l.seq),
    [9],
  );
});

test("an answer with nothing new keeps the same trace and sends arrays", () => {
  const store = createStore();
  store.dispatch({ type: "answer", answer: answer({ time: 0, traceFrom: 0, trace: [line(1, 0)] }, {}), fresh: true });
  const { trace, sends } = store.state;
  store.dispatch({ type: "answer", answer: answer({ time: 3, traceFrom: 1, trace: [], sendsFrom: 0 }) });
  assert.equal(store.state.trace, trace);
  assert.equal(store.state.sends, sends);
});

test("playback, selection, ui and lesson actions", () => {
  const store = createStore();
  const cases = [
    [{ type: "play" }, (s) => s.playback.playing, true],
    [{ type: "pause" }, (s) => s.playback.playing, false],
    [{ type: "speed", speed: 300, byUser: false }, (s) => [s.playback.speed, s.playback.userSpeed], [300, false]],
    [{ type: "speed", speed: 10, byUser: true }, (s) => [s.playback.speed, s.playback.userSpeed], [10, true]],
    // A lesson's own speed later does not forget that the learner chose one.
    [{ type: "speed", speed: 60 }, (s) => [s.playback.speed, s.playback.userSpeed], [60, true]],
    [{ type: "select", node: "broker-a" }, (s) => s.selection.node, "broker-a"],
    [{ type: "highlight", node: "NS-1" }, (s) => s.selection, { node: "broker-a", highlight: "NS-1" }],
    [{ type: "select", node: "C1" }, (s) => s.selection, { node: "C1", highlight: "NS-1" }],
    [{ type: "tableView" }, (s) => s.ui.tableView, true],
    [{ type: "tableView" }, (s) => s.ui.tableView, false],
    [{ type: "dashboard", on: true }, (s) => s.ui.dashboard, true],
    [{ type: "live", param: "" }, (s) => s.ui.live, ""],
    [{ type: "live", param: null }, (s) => s.ui.live, null],
    [{ type: "lesson", id: "S3" }, (s) => s.lesson.id, "S3"],
    [{ type: "lesson", id: null }, (s) => s.lesson.id, null],
  ];
  for (const [action, read, want] of cases) {
    const before = store.state;
    store.dispatch(action);
    assert.deepEqual(read(store.state), want, JSON.stringify(action));
    assert.notEqual(store.state, before, `${action.type} makes a new state`);
    // The parts an action does not name are the same objects as before.
    for (const key of ["view", "trace", "sends"]) assert.equal(store.state[key], before[key], `${action.type}: ${key}`);
  }
});

test("a state once handed out never changes: later answers make new arrays", () => {
  const store = createStore();
  store.dispatch({ type: "answer", answer: answer({ time: 0, traceFrom: 0, trace: [line(1, 0)] }, {}), fresh: true });
  const seen = store.state;
  store.dispatch({
    type: "answer",
    answer: answer({ time: 5, traceFrom: 1, trace: [line(2, 5)], sends: [{ id: 1 }] }),
  });
  store.dispatch({ type: "answer", answer: answer({ time: 0, traceFrom: 0, trace: [] }) });
  assert.deepEqual(
    seen.trace.map((l) => l.seq),
    [1],
  );
  assert.deepEqual(seen.sends, []);
  assert.equal(seen.view.snap.time, 0);
});

test("the initial state is not changed by dispatching", () => {
  const copy = structuredClone(INITIAL);
  const store = createStore();
  store.dispatch({ type: "play" });
  store.dispatch({ type: "select", node: "x" });
  assert.deepEqual(INITIAL, copy);
});

test("subscribers hear once per dispatch, after the change, and stop when they unsubscribe", () => {
  const store = createStore();
  const heard = [];
  const off = store.subscribe((state, action) => heard.push([action.type, state.playback.playing]));
  store.dispatch({ type: "play" });
  store.dispatch({ type: "speed", speed: 5 });
  store.dispatch({ type: "pause" });
  assert.deepEqual(heard, [
    ["play", true],
    ["speed", true],
    ["pause", false],
  ]);
  off();
  store.dispatch({ type: "play" });
  assert.equal(heard.length, 3);
});

test("an unknown action is an error, not a silent no-op", () => {
  const store = createStore();
  assert.throws(() => store.dispatch({ type: "nonsense" }), /unknown action nonsense/);
});

test("the lesson's account, the panel and the built-ins; play stays off while a live cluster is on screen", () => {
  const store = createStore();
  const gate = { kinds: ["expired"] };
  const focus = { nodes: ["NS-1"], links: [] };
  const subject = { kind: "UNREGISTER_BROKER", from: "broker-b", to: "NS-1", event: "unregistered" };
  const reveal = ["addresses"];
  store.dispatch({ type: "lesson", id: "S3", step: 2, gate, gateAt: 1500, focus, subject, reveal, run: 3 });
  assert.deepEqual(store.state.lesson, { id: "S3", step: 2, gate, gateAt: 1500, focus, subject, reveal, run: 3 });
  store.dispatch({ type: "lesson", id: null });
  assert.deepEqual(store.state.lesson, {
    id: null,
    step: null,
    gate: null,
    gateAt: null,
    focus: { nodes: [], links: [] },
    subject: null,
    reveal: null,
    run: null,
  });
  store.dispatch({ type: "panel", id: "log" });
  assert.equal(store.state.ui.panel, "log");
  store.dispatch({ type: "scenarios", list: [{ id: "S1", title: "t", text: "x" }] });
  assert.equal(store.state.scenarios[0].id, "S1");
  store.dispatch({ type: "live", param: "" });
  const before = store.state;
  store.dispatch({ type: "play" });
  assert.equal(store.state, before);
  assert.equal(store.state.playback.playing, false);
});

test("requests and events leave the state alone; request answers with the subscriber's done", async () => {
  const store = createStore();
  store.subscribe((state, action) => {
    if (action.type === "seek") action.done = Promise.resolve(`at ${action.ms}`);
  });
  for (const action of [
    { type: "load", id: "S1" },
    { type: "skip", gate: {} },
    { type: "gateHit", hit: {} },
    { type: "announce", text: "x" },
  ]) {
    const before = store.state;
    store.dispatch(action);
    assert.equal(store.state, before, action.type);
  }
  assert.equal(await store.request({ type: "seek", ms: 5 }), "at 5");
  // A request nobody carries out answers null.
  assert.equal(await store.request({ type: "load", id: "S1" }), null);
});
