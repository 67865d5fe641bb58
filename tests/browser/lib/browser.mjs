// Launches Debian's chromium through playwright-core (never a downloaded browser) and opens
// the page served by server.mjs (or by BASE_URL when scripts/test-browser.sh started one).
import { chromium } from "playwright-core";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { serve, ROOT } from "./server.mjs";

export const ARTIFACTS = join(ROOT, "tests", "artifacts");
mkdirSync(ARTIFACTS, { recursive: true });

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
export const SMALL_PHONE = { width: 360, height: 740 };
// A small phone with its browser bars shown: the lesson sheet is at its smallest (180 px).
export const SHORT_PHONE = { width: 360, height: 640 };

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

let server = null;
async function baseUrl() {
  if (process.env.BASE_URL) return process.env.BASE_URL.replace(/\/$/, "");
  if (!server) server = await serve();
  return `http://127.0.0.1:${server.address().port}`;
}

// One browser per test file: `const b = await launch(); … await b.close()`. Playwright gives
// each launch a fresh temporary user-data dir (it refuses --user-data-dir in args).
export async function launch() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: FLAGS,
    headless: true,
  });
  const base = await baseUrl();
  return {
    browser,
    base,
    // `fresh`: a first visit (the opening lesson); otherwise a returning visitor in free play.
    // `dashboard`: every panel at once (the T-tests read panels side by side).
    async page({
      path = "/www/index.html",
      hash = "",
      viewport = DESKTOP,
      context = {},
      fresh = false,
      dashboard = !fresh,
    } = {}) {
      const ctx = await browser.newContext({ viewport, ...context });
      if (!fresh) await ctx.addInitScript(() => localStorage.setItem("rmqsim.freePlay", "1"));
      const page = await ctx.newPage();
      page.errors = [];
      page.on("pageerror", (e) => page.errors.push(String(e)));
      page.on("console", (m) => m.type() === "error" && page.errors.push(m.text()));
      await page.goto(`${base}${path}${hash}`);
      await ready(page);
      if (dashboard) await clickInHeader(page, "layout-toggle");
      return page;
    },
    async close() {
      await browser.close();
      if (server) {
        server.close();
        server = null;
      }
    },
  };
}

// Clicks a header control, through the Menu when a phone's header folds it away.
export async function clickInHeader(page, testid) {
  const el = page.locator(`[data-testid=${testid}]`);
  if (await el.isVisible()) return el.click();
  await page.click("[data-testid=menu]");
  await el.click();
  if ((await page.getAttribute("[data-testid=menu]", "aria-expanded")) === "true")
    await page.click("[data-testid=menu]");
}

export async function ready(page) {
  await page.waitForFunction(() => document.body.dataset.ready === "true" || document.body.dataset.error, null, {
    timeout: 30000,
  });
  const err = await page.evaluate(() => document.body.dataset.error);
  if (err) throw new Error(`page failed: ${err}`);
}

// Waits until the page has no request in flight to its worker.
export async function settle(page) {
  await page.waitForFunction(() => window.__rmqsim.idle(), null, { timeout: 30000 });
}

export async function simTime(page) {
  return Number(await page.getAttribute("[data-testid=clock]", "data-sim-ms"));
}

export async function seek(page, ms) {
  await page.evaluate((v) => {
    const s = document.querySelector("[data-testid=scrubber]");
    s.value = String(v);
    s.dispatchEvent(new Event("change", { bubbles: true }));
  }, ms);
  await page.waitForFunction((v) => Number(document.querySelector("[data-testid=clock]").dataset.simMs) === v, ms, {
    timeout: 30000,
  });
  await settle(page);
}

// JPEG: encoding a PNG took as long as the step it shows; these are for a person to look at.
export async function shot(page, name) {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.jpg`), type: "jpeg", quality: 80, fullPage: false });
}
