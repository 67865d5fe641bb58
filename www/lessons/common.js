// What the lessons share: quoting a simulated time, finding what the trace says, and reading
// the scenario's own times and periods from the model (`model`: the worker's
// `Simulation.scenarioView()`), so a grade never rests on a number typed here.
import { secs } from "../app/format.js";

export const A = "10.0.1.1:10911";
export const B = "10.0.1.3:10911";
export const at = (h) => secs(h.at);

// The first trace line from `from` (ms) on that matches.
export function find(trace, { node, kind, text, from = 0 }) {
  return trace.find(
    (l) => l.at >= from && (!node || l.node === node) && (!kind || l.kind === kind) && (!text || l.text.includes(text)),
  );
}

// When a NameServer removed broker `addr` (ms), from its trace lines.
export function removedAt(trace, ns, addr, from = 0) {
  const l = trace.find(
    (x) =>
      x.at >= from && x.node === ns && (x.kind === "unregistered" || x.kind === "expired") && x.text.includes(addr),
  );
  return l ? l.at : null;
}

// When `broker` last heard "OK" from the NameServer at `nsAddr` before `before` (ms): its last
// registration that NameServer accepted.
export function lastRegistration(trace, broker, nsAddr, before) {
  let last = null;
  for (const l of trace) {
    if (l.at > before) break;
    if (l.node === broker && l.kind === "register-ok" && l.text.includes(nsAddr)) last = l.at;
  }
  return last;
}

// Within this much of its cause an event counts as "at once": a few network hops, not a timer.
export const AT_ONCE_MS = 1000;

// When the scenario's script does `action` (ms), e.g. `faultAt(model, "kill broker-b")`.
export function faultAt(model, action) {
  const e = model.script.find((x) => x.action === action);
  if (!e) throw new Error(`the scenario has no \`${action}\``);
  return e.at;
}

// When node `name` starts (ms).
export function startOf(model, name) {
  return model.nodes.find((n) => n.name === name).start;
}

// One choice of a step's `ask`. An ask holds `q`, its `options`, `answer` (the option id that is
// right in the default run, so a test can check it and the page can keep it hidden), `resolves`
// ("gate": the event the asking step waits for settles it) and `grade(hit, snap, trace, model)`,
// the model's verdict on what actually happened, which is what the learner is graded by.
export function option(id, en, zh) {
  return { id, en, zh };
}

// What step `index` may show: its and earlier steps' `reveal` ("addresses", "tables", a clock's
// kind); null: all.
export function revealed(steps, index) {
  const said = steps.slice(0, index + 1).flatMap((s) => (s.reveal ? [s.reveal] : []));
  return !said.length || said.includes("all") ? null : said.flat();
}

export const shows = (reveal, what) => !reveal || reveal.includes(what);
