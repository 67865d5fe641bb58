// The clocks the page draws, read from the model's own timers: kinds, periods and removal
// times all come from the simulation's views, never from numbers typed here.

export function timerKind(tm) {
  return tm.kind;
}

export function timerPeriod(tm) {
  return tm.periodMs ?? null;
}

// A NameServer's clock for one broker of its brokerLiveTable: when the broker will be removed
// if nothing more arrives (by idle close or by the scan), how long that clock runs since the
// broker was last heard from, and whether its timeout has passed (the scan-only wait). A
// daemon's live table has no removal time: its timeout stands in.
export function removalClock(row, now) {
  const at = row.removalAt ?? row.lastUpdate + row.timeoutMs;
  const left = at - now;
  const period = Math.max(1, at - row.lastUpdate);
  const past = now - row.lastUpdate > row.timeoutMs;
  const state = left <= 0 || past ? "over" : left <= period / 4 ? "near" : "ok";
  return { at, by: row.removalBy ?? "timeout", left, period, past, state };
}
