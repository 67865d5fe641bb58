// The clocks the page draws, read from the model's own timers: kinds, periods and removal
// times all come from the simulation's views, never from numbers typed here.

export function timerKind(tm) {
  return tm.kind;
}

export function timerPeriod(tm) {
  return tm.periodMs ?? null;
}

// A NameServer's clock for one broker of its brokerLiveTable: when the broker will be removed
// if nothing more arrives (by idle close or by the scan), and how long that clock runs since
// the broker was last heard from.
export function removalClock(row, snap) {
  return { at: row.removalAt, by: row.removalBy, left: row.removalAt - snap.time, period: Math.max(1, row.removalAt - row.lastUpdate) };
}
