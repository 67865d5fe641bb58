// Sharing a state: the link to it, the clipboard, and trace files out and in.
import { t } from "./i18n.js";
import { shareHash } from "./url.js";

// The page's own link: its scenario (current branch, injected actions included), time and
// selection.
export function shareUrl(app) {
  const l = app.lesson.state();
  const hash = shareHash({
    compact: app.meta.compact,
    time: app.snap.time,
    selected: app.selected,
    lesson: null,
    step: l ? l.step : undefined,
  });
  return location.origin + location.pathname + location.search + hash;
}

export function updateUrl(app) {
  if (!app.meta || !app.snap) return;
  const url = shareUrl(app);
  document.getElementById("share-url").value = url;
  history.replaceState(null, "", url);
}

export async function share(app) {
  const url = shareUrl(app);
  const field = document.getElementById("share-url");
  field.value = url;
  try {
    await navigator.clipboard.writeText(url);
  } catch {
    field.select();
  }
  app.announce(t("copied"));
}

export async function exportTrace(app) {
  const r = await app.client.call("trace");
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

export async function importTrace(app, file) {
  let data;
  try {
    data = JSON.parse(await file.text());
  } catch (e) {
    app.announce(t("importBad", { e: e.message }));
    return;
  }
  if (!data || typeof data.scenario !== "string") {
    app.announce(t("importBad", { e: "no scenario" }));
    return;
  }
  await app.loadText(data.scenario, Number(data.time) || 0);
  const h = await app.hashes();
  const ok = h.traceHash === data.traceHash;
  document.body.dataset.importResult = ok ? "match" : "mismatch";
  app.announce(t("imported", { ok: ok ? "✓" : "✖" }));
}
