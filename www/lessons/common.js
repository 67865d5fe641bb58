// What the lessons share: quoting a simulated time and finding what the trace says.
import { secs } from "../i18n.js";

export const A = "10.0.1.1:10911";
export const B = "10.0.1.3:10911";
export const at = (h) => secs(h.at);

// The first trace line from `from` (ms) on that matches.
export function find(trace, { node, kind, text, from = 0 }) {
  return trace.find((l) => l.at >= from && (!node || l.node === node) && (!kind || l.kind === kind) && (!text || l.text.includes(text)));
}

// When a NameServer removed broker `addr` (ms), from its trace lines.
export function removedAt(trace, ns, addr, from = 0) {
  const l = trace.find((x) => x.at >= from && x.node === ns && (x.kind === "unregistered" || x.kind === "expired") && x.text.includes(addr));
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

export function option(id, en, zh) {
  return { id, en, zh };
}
