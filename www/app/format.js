// How the page writes times, in one place: a model time, a duration, a clock's countdown and a
// script time. Plain numbers of milliseconds in, text out (no words: those are in i18n.js).

// A time on the simulation's clock: `12.345 s`.
export function secs(ms, digits = 3) {
  return `${(ms / 1000).toFixed(digits)} s`;
}

// A duration: `4.5 s`.
export function dur(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

// A span the model gave (a timeout, an idle time), whole seconds without `.0`: `120 s`, `2.5 s`.
export function span(ms) {
  return dur(ms).replace(/\.0 s$/, " s");
}

// A countdown on a clock of the diagram: tenths below 10 s, whole seconds above.
export function clockText(ms) {
  const s = ms / 1000;
  return s < 10 ? `${s.toFixed(1)} s` : `${Math.round(s)} s`;
}

// A time as the scenario text writes it (`at 75.5 ...`).
export function scriptSeconds(ms) {
  return (ms / 1000).toFixed(3).replace(/\.?0+$/, "");
}
