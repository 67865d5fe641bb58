// L1–L2: live mode. The page, served by a running daemon, shows that daemon's real tables,
// routes and log; a broker registering over TCP appears within a second; the received history
// can be scrubbed; the simulation is one click away. Without a daemon the page says so.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, ready, shot, DESKTOP, PHONE, clickInHeader } from "./lib/browser.mjs";
import { startDaemon, registerBroker } from "./lib/daemon.mjs";
import { PATIENCE } from "./lib/patience.mjs";

let b;
let daemon;
before(async () => {
  b = await launch();
  daemon = await startDaemon();
});
after(async () => {
  if (daemon) await daemon.stop();
  await b.close();
});

const BROKER = "127.0.0.1:31911";
const liveState = (page) => page.evaluate(() => window.__rmqsim.live());

test("L1 live mode shows a registering broker, scrubs back, and returns to the simulation", async () => {
  const ctx = await b.browser.newContext({ viewport: DESKTOP });
  const page = await ctx.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`${daemon.http}/www/index.html?live`);
  await ready(page);
  await page.waitForFunction(() => window.__rmqsim.live() && window.__rmqsim.live().connected, null, {
    timeout: PATIENCE,
  });
  assert.equal(await page.getAttribute("body", "data-mode"), "live");
  assert.ok(await page.locator("[data-testid=live-panel]").isVisible());
  assert.ok(await page.locator("[data-testid=diagram]").isVisible(), "the real cluster on the same diagram");
  assert.equal(
    await page.locator("[data-testid=play]").isVisible(),
    false,
    "the simulation's time controls step aside",
  );
  const table = page.locator(`[data-testid="live-${daemon.address}"]`);
  assert.equal(await table.locator("tbody tr").count(), 0);

  // How soon the row shows is a benchmark (scripts/bench-page.mjs, BENCHMARKS.md).
  const broker = await registerBroker(daemon);
  await table.locator(`tbody tr[data-broker="broker-a"]`).waitFor({ timeout: PATIENCE });
  const row = await table.locator("tbody tr").first().locator("td").allTextContents();
  assert.equal(row[0], BROKER);
  assert.equal(row[1], "broker-a");
  assert.equal(row[2], "0");
  assert.match(row[4], /^\s*\d+\.\d s/, "heartbeat age");
  // Both paths end 120 s after the broker's last word: the idle close counts from the
  // connection's last read, the scan from the registration's time, and under load the scan's
  // 5 s tick can fall between the two, so the daemon may name either.
  assert.match(
    row[4],
    /removal in \d+\.\d s \((idle close|scan)\)/,
    "the clock toward its removal, as the daemon says",
  );

  // RocketMQ's own log line, and the route in the dashboard's Router shape.
  const log = page.locator("[data-testid=log] .log-text");
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll("[data-testid=log] .log-text")].some((e) =>
        e.textContent.startsWith("new broker registered"),
      ),
    null,
    { timeout: PATIENCE },
  );
  assert.ok(
    (await log.allTextContents()).includes(
      "new broker registered, BrokerAddrInfo [clusterName=DemoCluster, brokerAddr=127.0.0.1:31911] HAService: 127.0.0.1:10912",
    ),
  );
  const route = page.locator(`[data-testid="route-${daemon.address}"]`);
  await route.locator("table.router").first().waitFor({ timeout: PATIENCE });
  assert.equal(await page.inputValue("[data-testid=live-topic]"), "TBW102");
  assert.deepEqual(await route.locator("caption").allTextContents(), ["brokerDatas", "queueDatas"]);
  assert.match(
    await route.locator("table").first().locator("tbody tr").first().textContent(),
    /broker-a\{0: 127\.0\.0\.1:31911\}/,
  );
  await shot(page, "L1-live-registered");

  // The broker leaves: gone live, but the history still has it.
  const registeredAt = (await liveState(page)).time;
  await broker.close();
  await table.locator("tbody tr").first().waitFor({ state: "detached", timeout: PATIENCE });
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll("[data-testid=log] .log-text")].some((e) =>
        e.textContent.startsWith("unregisterBroker, remove from brokerLiveTable OK"),
      ),
    null,
    { timeout: PATIENCE },
  );
  await page.evaluate((ms) => {
    const s = document.querySelector("[data-testid=live-scrubber]");
    s.value = String(ms);
    s.dispatchEvent(new Event("input", { bubbles: true }));
  }, registeredAt);
  // The worker assembles what is drawn: wait for the view of the scrubbed time.
  await page.waitForFunction(
    () => {
      const s = window.__rmqsim.live();
      return s.drawn === Math.round(s.time);
    },
    null,
    { timeout: PATIENCE },
  );
  const back = await liveState(page);
  assert.equal(back.following, false);
  assert.deepEqual(back.brokers, [BROKER]);
  assert.equal(
    await table.locator(`tbody tr[data-broker="broker-a"]`).count(),
    1,
    "scrubbed back: the broker is there",
  );
  assert.match(
    await route.locator("table").first().locator("tbody tr").first().textContent(),
    /broker-a\{0: 127\.0\.0\.1:31911\}/,
    "and its route",
  );
  assert.equal(await page.inputValue("[data-testid=live-topic]"), "TBW102", "the chosen topic stays");
  const before = await log.allTextContents();
  assert.ok(!before.some((l) => l.startsWith("unregisterBroker")), "the log stops at the scrubbed time");
  assert.equal(await page.getAttribute("[data-testid=live-follow]", "aria-pressed"), "false");
  await shot(page, "L1-live-scrubbed");
  await page.click("[data-testid=live-follow]");
  assert.equal((await liveState(page)).following, true);
  await table.locator("tbody tr").first().waitFor({ state: "detached", timeout: PATIENCE }); // following live again

  // Back to the simulation, which is where it was.
  await page.click("[data-testid=live-exit]");
  assert.equal(await page.getAttribute("body", "data-mode"), null);
  assert.equal(await page.evaluate(() => window.__rmqsim.live()), null);
  assert.ok(await page.locator("[data-testid=diagram]").isVisible());
  await page.click("[data-testid=tab-tables]");
  await page.locator("[data-testid=ns-NS-1]").waitFor();
  await page.click("[data-testid=tab-log]");
  assert.ok(!new URL(page.url()).searchParams.has("live"));
  assert.ok(
    (await page.locator("[data-testid=log] .log-text").allTextContents()).some((l) =>
      l.startsWith("The Name Server boot success"),
    ),
  );
  // …and live again from the header.
  await clickInHeader(page, "live-toggle");
  await page.waitForFunction(() => window.__rmqsim.live() && window.__rmqsim.live().connected, null, {
    timeout: PATIENCE,
  });
  assert.deepEqual(errors, []);
  await ctx.close();
});

test("L4 live clock labels keep the end that tells brokers apart", async () => {
  const brokers = [];
  for (const i of [0, 1, 2])
    brokers.push(await registerBroker(daemon, { name: `bench-broker-${i}`, addr: `127.0.0.1:3500${i}` }));
  try {
    for (const [size, viewport] of [
      ["desktop", DESKTOP],
      ["phone", PHONE],
    ]) {
      const ctx = await b.browser.newContext({ viewport });
      const page = await ctx.newPage();
      await page.goto(`${daemon.http}/www/index.html?live`);
      await ready(page);
      const labels = page.locator('[data-testid=diagram] [data-clock^="remove:bench-broker-"] .clock-label');
      await page.waitForFunction(
        () =>
          document.querySelectorAll('[data-testid=diagram] [data-clock^="remove:bench-broker-"] .clock-label')
            .length === 3,
        null,
        { timeout: PATIENCE },
      );
      const texts = await labels.allTextContents();
      await shot(page, `L4-live-labels-${size}`);
      assert.equal(new Set(texts).size, 3, `${size}: three rows that look alike: ${texts}`);
      for (const text of texts) assert.match(text, /broker-[012]$/, `${size}: the differing end is kept: ${texts}`);
      // The brokers' own boxes too: their names are cut in the middle on a phone.
      const names = await page
        .locator("[data-testid=diagram] text.name")
        .evaluateAll((els) => els.map((e) => e.textContent).filter((x) => x.includes("bench") || x.includes("…")));
      assert.equal(names.length, 3, `${size}: ${names}`);
      for (const name of names) assert.match(name, /[012]$/, `${size}: the differing end is kept: ${names}`);
      await ctx.close();
    }
  } finally {
    for (const broker of brokers) await broker.close();
  }
});

test("L2 without a daemon the page says so and the simulation carries on", async () => {
  const page = await b.page();
  await clickInHeader(page, "live-toggle");
  const status = page.locator("[data-testid=live-status]");
  await page.waitForFunction(() => document.querySelector("[data-testid=live-status]").dataset.tone === "bad", null, {
    timeout: PATIENCE,
  });
  assert.match(await status.textContent(), /No NameServer daemon answers at http:\/\/127\.0\.0\.1:\d+/);
  await page.click("[data-testid=live-exit]");
  assert.ok(await page.locator("[data-testid=diagram]").isVisible());
  assert.deepEqual(
    page.errors.filter((e) => !/404|Failed to load resource/.test(e)),
    [],
  );
  await page.context().close();
});

// Two daemons side by side: a broker registered with one and not the other is named at once,
// on the diagram and in words, and the difference clears when it registers with both.
test("L3 several NameServers side by side, their divergence named and cleared", async () => {
  const other = await startDaemon(["--http-allow-origin", "*"]);
  const a = await startDaemon(["--http-allow-origin", "*", "--http-peers", other.http]);
  // What a's /metrics says of its peer: brokers here and missing there.
  const missingThere = async () => {
    const text = await (await fetch(`${a.http}/metrics`)).text();
    const line = text
      .split("\n")
      .find((l) => l.startsWith("nameserver_peer_brokers_missing{") && l.includes('direction="missing_there"'));
    return line ? Number(line.split(" ").pop()) : null;
  };
  const until = async (fn, want, ms = PATIENCE) => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await fn();
      if (v === want || Date.now() > end) return v;
      await new Promise((ok) => setTimeout(ok, 100));
    }
  };
  try {
    for (const [size, viewport] of [
      ["desktop", DESKTOP],
      ["phone", { width: 390, height: 844 }],
    ]) {
      const ctx = await b.browser.newContext({ viewport });
      const page = await ctx.newPage();
      const errors = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(`${a.http}/www/index.html?live=${a.http},${other.http}`);
      await ready(page);
      await page.waitForFunction(() => window.__rmqsim.live() && window.__rmqsim.live().connected, null, {
        timeout: PATIENCE,
      });
      assert.equal(await page.locator("#diagram .node.role-nameserver").count(), 2, "both NameServers on the diagram");
      const onlyA = await registerBroker(a);
      const sentence = page.locator(`[data-testid=live-divergences] li[data-kind=broker][data-ns="${other.address}"]`);
      await sentence.waitFor({ timeout: PATIENCE }); // how soon is a benchmark (scripts/bench-page.mjs)
      assert.match(
        await sentence.textContent(),
        new RegExp(
          `${other.address.replace(/\./g, "\\.")} has never heard from broker-a; ${a.address.replace(/\./g, "\\.")} heard from it \\d+\\.\\d s ago`,
        ),
      );
      assert.equal(await page.getAttribute("[data-testid=divergence]", "data-missing"), "broker-a");
      assert.equal(await until(missingThere, 1), 1, "a's gauge: one broker here and missing at its peer");
      // On the diagram: broker-a with its group and BID, a clock on the NameServer that has it.
      const node = page.locator("[data-testid=node-broker-a]");
      await node.waitFor();
      assert.match(await node.getAttribute("aria-label"), /master \(BID 0\)/);
      assert.equal(await page.locator(`[data-node-text="${a.address}"] [data-clock="remove:broker-a"]`).count(), 1);
      assert.equal(await page.locator(`[data-node-text="${other.address}"] [data-clock="remove:broker-a"]`).count(), 0);
      await shot(page, `L3-divergence-${size}`);
      // Registered with both: the difference clears.
      const onB = await registerBroker(other);
      await page.waitForFunction(
        () => !document.querySelector("[data-testid=live-divergences] li[data-kind=broker]"),
        null,
        { timeout: PATIENCE },
      );
      assert.ok(await page.locator("[data-testid=divergence]").isHidden());
      assert.equal(await until(missingThere, 0), 0, "the gauge back to 0");
      // Its connections close: the diagram lets it go within a second.
      await onlyA.close();
      await onB.close();
      await node.waitFor({ state: "detached", timeout: PATIENCE });
      await shot(page, `L3-after-${size}`);
      assert.deepEqual(errors, []);
      await ctx.close();
    }
  } finally {
    await a.stop();
    await other.stop();
  }
});
