// Whether a trace line is the event a lesson step waits for: one rule for the worker (which
// stops the simulation there), the page (which pauses on it) and the lesson runner.
export function lineMatches(gate, line) {
  if (gate.node && line.node !== gate.node) return false;
  if (gate.kinds && !gate.kinds.includes(line.kind)) return false;
  if (gate.text && !line.text.includes(gate.text)) return false;
  if (gate.notText && line.text.includes(gate.notText)) return false;
  return true;
}

// What a gate stops at, if anything: its time once the clock reached it, else the first of
// `lines` it matches. The one place a time gate's hit is written.
export function gateHit(gate, time, lines) {
  if (gate.at !== undefined) return time >= gate.at ? { at: gate.at, node: "", kind: "time", text: "" } : null;
  return lines.find((l) => lineMatches(gate, l)) || null;
}
