#!/usr/bin/env node
// The page's speed in headless Chromium on this machine: a benchmark, not a test (a test that
// measures the machine fails on a slow one). scripts/bench.sh runs it in its full run; it
// prints a Markdown table (BENCHMARKS.md, "The page").
//   - frame time: the page's own render time per frame (p50, p95) for S1 at 1× and for T29's
//     11-node cluster at 300×, as ratios to S1 at 1× in the same run and to a 16.7 ms frame;
//   - T2's speed: simulated ms per wall ms while playing S1 at 60×, as a ratio to 60;
//   - live mode: from a broker's registration to its row on the page, in ms.
// Environment: NAMESERVER_BIN (the daemon for the live measure; default target/release, else
// target/debug), BENCH_PAGE_SECONDS (each playing window, default 10), BENCH_PAGE_REPS (default 3;
// the table shows medians), CHROMIUM (default /usr/bin/chromium), --json FILE for the raw figures.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { launch, settle } from "../tests/browser/lib/browser.mjs";
import { BIG_CLUSTER } from "../tests/browser/lib/big-cluster.mjs";
import { PATIENCE } from "../tests/browser/lib/patience.mjs";
import { ROOT } from "../tests/browser/lib/server.mjs";
import { toBase64Url } from "../www/app/url.js";

const SECONDS = Number(process.env.BENCH_PAGE_SECONDS || 10);
const REPS = Number(process.env.BENCH_PAGE_REPS || 3);
const FRAME_MS = 1000 / 60;
const jsonAt = process.argv.indexOf("--json");
const JSON_OUT = jsonAt > 0 ? process.argv[jsonAt + 1] : null;

if (!process.env.NAMESERVER_BIN) {
  const target = process.env.CARGO_TARGET_DIR || join(ROOT, "target");
  const release = join(target, "release", "nameserver");
  process.env.NAMESERVER_BIN = existsSync(release) ? release : join(target, "debug", "nameserver");
}
const { startDaemon, registerBroker } = await import("../tests/browser/lib/daemon.mjs");

const median = (xs) => {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// Plays `hash` at `speed` for SECONDS; the page's frame statistics and its achieved speed.
async function play(b, hash, speed) {
  const page = await b.page({ hash });
  await page.click(`[data-testid=speed-${speed}]`);
  await settle(page);
  const start = await page.evaluate(() => ({ sim: window.__rmqsim.time(), wall: performance.now() }));
  await page.click("[data-testid=play]");
  await page.waitForTimeout(SECONDS * 1000);
  const end = await page.evaluate(() => ({ sim: window.__rmqsim.time(), wall: performance.now(), stats: window.__rmqsim.frameStats() }));
  await page.click("[data-testid=play]");
  await page.context().close();
  return { p50: end.stats.p50, p95: end.stats.p95, frames: end.stats.count, speed: (end.sim - start.sim) / (end.wall - start.wall) };
}

// From a broker's registration to its row in the live table, in ms.
async function liveDelays(b) {
  const daemon = await startDaemon();
  const delays = [];
  try {
    const ctx = await b.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await ctx.newPage();
    await page.goto(`${daemon.http}/www/index.html?live`);
    await page.waitForFunction(() => window.__rmqsim.live() && window.__rmqsim.live().connected, null, { timeout: PATIENCE });
    const row = page.locator(`[data-testid="live-${daemon.address}"] tbody tr[data-broker="broker-a"]`);
    for (let i = 0; i < REPS; i++) {
      const started = Date.now();
      const broker = await registerBroker(daemon);
      await row.waitFor({ timeout: PATIENCE });
      delays.push(Date.now() - started);
      await broker.close();
      await row.waitFor({ state: "detached", timeout: PATIENCE });
    }
    await ctx.close();
  } finally {
    await daemon.stop();
  }
  return delays;
}

const b = await launch();
const runs = { s1: [], big: [], t2: [], live: [] };
try {
  for (let i = 0; i < REPS; i++) {
    runs.s1.push(await play(b, "", 1));
    runs.big.push(await play(b, `#v=1&seed=42&sc=${toBase64Url(BIG_CLUSTER)}&t=0`, 300));
    runs.t2.push(await play(b, "", 60));
  }
  runs.live = await liveDelays(b);
} finally {
  await b.close();
}

const m = (list, key) => median(list.map((r) => r[key]));
const s1 = { p50: m(runs.s1, "p50"), p95: m(runs.s1, "p95") };
const big = { p50: m(runs.big, "p50"), p95: m(runs.big, "p95") };
const f = (x, d = 2) => x.toFixed(d);
const lines = [
  `Page benchmark (${new Date().toISOString().slice(0, 19)}Z, headless Chromium, medians of ${REPS} windows of ${SECONDS} s):`,
  "",
  "| measure | p50 | p95 | p50 / S1 1× | p95 / S1 1× | p50 / 16.7 ms | p95 / 16.7 ms |",
  "|---|---|---|---|---|---|---|",
  `| frame time, S1 at 1× | ${f(s1.p50)} ms | ${f(s1.p95)} ms | 1 | 1 | ${f(s1.p50 / FRAME_MS)} | ${f(s1.p95 / FRAME_MS)} |`,
  `| frame time, T29's 11 nodes at 300× | ${f(big.p50)} ms | ${f(big.p95)} ms | ${f(big.p50 / s1.p50)} | ${f(big.p95 / s1.p95)} | ${f(big.p50 / FRAME_MS)} | ${f(big.p95 / FRAME_MS)} |`,
  "",
  `T2, S1 at 60×: ${f(m(runs.t2, "speed"), 1)} sim ms per wall ms, ${f(m(runs.t2, "speed") / 60, 3)} of the speed asked.`,
  `Live mode, registration to row: median ${median(runs.live)} ms (${runs.live.join(", ")}).`,
];
console.log(lines.join("\n"));
if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify(runs, null, 2));
