// Sharing a state: the link to it, the clipboard, and trace files out and in. Each takes the
// store's state (or what the worker answered) and the few page functions it calls.
import { t } from "./i18n.js";
import { shareHash } from "./url.js";

// The page's own link for the store's `state`: its scenario (current branch, injected actions
// included), time and selection, and the lesson's step if one is on.
export function shareUrl(state) {
  const { meta, snap } = state.view;
  const step = state.lesson.id === null ? undefined : (state.lesson.step ?? undefined);
  const hash = shareHash({
    compact: meta.compact,
    time: snap.time,
    selected: state.selection.node,
    lesson: null,
    step,
  });
  return location.origin + location.pathname + location.search + hash;
}

// The address bar and the share field follow the state (while paused).
export function updateUrl(field, state) {
  if (!state.view || !state.view.meta || !state.view.snap) return;
  const url = shareUrl(state);
  field.value = url;
  history.replaceState(null, "", url);
}

export async function share(field, url, announce) {
  field.value = url;
  try {
    await navigator.clipboard.writeText(url);
  } catch {
    field.select();
  }
  announce(t("copied"));
}

// Downloads the worker's `trace` answer as a file.
export function exportTrace(r) {
  const data = {
    format: "rocketmq-nameserver-sim-trace",
    version: 1,
    scenario: r.text,
    time: r.time,
    traceHash: r.traceHash,
    trace: r.trace,
  };
  const blob = new Blob([JSON.stringify(data, null, 1)], { type: "application/json" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = `rmqsim-trace-${Math.round(r.time)}.json`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

// Loads a trace file's scenario at its time and says whether the trace hash matches.
// `page`: loadText(text, ms), hashes(), announce(msg).
export async function importTrace(file, page) {
  let data;
  try {
    data = JSON.parse(await file.text());
  } catch (e) {
    page.announce(t("importBad", { e: e.message }));
    return;
  }
  if (!data || typeof data.scenario !== "string") {
    page.announce(t("importBad", { e: "no scenario" }));
    return;
  }
  await page.loadText(data.scenario, Number(data.time) || 0);
  const h = await page.hashes();
  const ok = h.traceHash === data.traceHash;
  document.body.dataset.importResult = ok ? "match" : "mismatch";
  page.announce(t("imported", { ok: ok ? "✓" : "✖" }));
}
