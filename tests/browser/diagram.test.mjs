// What a learner sees on the diagram (issue 13): messages that move while playing, lines that
// stay, text big enough to read that never overlaps, clocks on the nodes, STALE on the client,
// and forks that replay their own script.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, seek, settle, simTime, shot, clickInHeader, PHONE, DESKTOP } from "./lib/browser.mjs";
import { Simulation, builtInScenarios } from "./lib/oracle.mjs";
import { shareHash } from "../../www/app/url.js";
import { PATIENCE } from "./lib/patience.mjs";

let b;
before(async () => (b = await launch()));
after(() => b.close());

const blur = (page) => page.evaluate(() => document.activeElement && document.activeElement.blur());

async function scenario(page, id) {
  await page.evaluate((v) => {
    const s = document.querySelector("[data-testid=scenario-select]");
    s.value = v;
    s.dispatchEvent(new Event("change", { bubbles: true }));
  }, id);
  await page.waitForFunction(
    (v) =>
      window.__rmqsim.views().then((x) => x && x.meta.text.includes("seed")) &&
      document.querySelector("[data-testid=scenario-select]").value === v,
    id,
  );
  await settle(page);
}

async function inject(page, action) {
  await blur(page);
  await page.keyboard.press("k");
  await page.fill("[data-testid=fault-palette-input]", action);
  await page.keyboard.press("Enter");
  await settle(page);
}

// Plays from `from` ms at `speed` and samples every animation frame while the clock is in
// [from, to): the share of frames showing a message strictly between its two nodes.
async function motion(page, from, to, speed) {
  await seek(page, from);
  await page.click(`[data-testid=speed-${speed}]`);
  await blur(page);
  const r = await page.evaluate(
    ({ to }) =>
      new Promise((done) => {
        const boxOf = (name) => document.querySelector(`[data-testid="node-${name}"] .box`).getBoundingClientRect();
        const inside = (p, r) => p.x >= r.left && p.x <= r.right && p.y >= r.top && p.y <= r.bottom;
        let frames = 0;
        let moving = 0;
        const tick = () => {
          const t = Number(document.querySelector("[data-testid=clock]").dataset.simMs);
          if (t >= to) return done({ frames, moving });
          frames++;
          for (const g of document.querySelectorAll("#diagram .token")) {
            const r = g.querySelector(".glyph").getBoundingClientRect();
            const c = { x: r.left + r.width / 2, y: r.top + r.height / 2 };
            const a = boxOf(g.dataset.from);
            const z = boxOf(g.dataset.to);
            const ac = { x: (a.left + a.right) / 2, y: (a.top + a.bottom) / 2 };
            const zc = { x: (z.left + z.right) / 2, y: (z.top + z.bottom) / 2 };
            const dx = zc.x - ac.x;
            const dy = zc.y - ac.y;
            const along = ((c.x - ac.x) * dx + (c.y - ac.y) * dy) / (dx * dx + dy * dy);
            if (along > 0 && along < 1 && !inside(c, a) && !inside(c, z)) {
              moving++;
              break;
            }
          }
          requestAnimationFrame(tick);
        };
        document.querySelector("[data-testid=play]").click();
        requestAnimationFrame(tick);
      }),
    { to },
  );
  await page.click("[data-testid=play]");
  await settle(page);
  return r;
}

test("messages are seen moving while playing, at 1× and at 60×", async () => {
  const page = await b.page({ dashboard: false });
  const slow = await motion(page, 9000, 13000, 1);
  // Enough frames for a share to mean something; how many a machine draws in the 4 s is
  // its speed (41 at load 20), not the page's behaviour.
  assert.ok(slow.frames >= 10, `sampled ${slow.frames} frames at 1×`);
  assert.ok(slow.moving / slow.frames >= 0.6, `1×: ${slow.moving} of ${slow.frames} frames show a moving message`);
  // 90 s of simulated time is 1.5 s on screen at 60×: long enough for tokens to leave their
  // boxes however few frames a busy machine draws.
  const fast = await motion(page, 9000, 99000, 60);
  assert.ok(fast.frames >= 2, `sampled ${fast.frames} frames at 60×`);
  assert.ok(fast.moving / fast.frames >= 0.3, `60×: ${fast.moving} of ${fast.frames} frames show a moving message`);
  // While playing, many messages on one link ride as one counted bundle.
  await seek(page, 20000);
  await page.click("[data-testid=speed-600]");
  await page.click("[data-testid=play]");
  await page.waitForFunction(
    () => [...document.querySelectorAll("#diagram .token")].some((g) => Number(g.dataset.count) > 1),
    null,
    { timeout: PATIENCE },
  );
  await shot(page, "motion-bundles-desktop");
  await page.click("[data-testid=play]");
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// The links the diagram should draw, from the snapshot: every broker to every NameServer,
// every client to its NameServer and to the brokers it uses, and every cut or reset pair.
async function linkCheck(page, when) {
  const r = await page.evaluate(async () => {
    const v = await window.__rmqsim.views();
    const pairs = new Set();
    const add = (a, b) => pairs.add(a < b ? `${a}|${b}` : `${b}|${a}`);
    const roles = Object.fromEntries(v.meta.nodes.map((n) => [n.name, n]));
    const ns = v.meta.nodes.filter((n) => n.role === "nameserver");
    const brokers = v.meta.nodes.filter((n) => n.role === "broker");
    for (const br of brokers) for (const n of ns) add(br.name, n.name);
    for (const n of v.nodes) {
      const m = roles[n.name];
      if (m.role !== "producer" && m.role !== "consumer") continue;
      if (n.boundTo) add(n.name, n.boundTo);
      for (const br of brokers) if (br.brokerId === 0 || m.role === "consumer") add(n.name, br.name);
    }
    for (const l of v.links) add(l.a, l.b);
    return { expected: pairs.size, drawn: document.querySelectorAll("#diagram .links line").length };
  });
  assert.equal(r.drawn, r.expected, `links after ${when}`);
}

test("connection lines stay after a fault, a lesson start, a seek, a fork and a branch switch", async () => {
  const page = await b.page({ dashboard: false });
  await seek(page, 20000);
  await linkCheck(page, "a seek");
  await inject(page, "kill broker-b");
  await linkCheck(page, "a fault");
  await seek(page, 10000);
  await linkCheck(page, "a seek back");
  await page.click("[data-testid=fork]");
  await settle(page);
  await linkCheck(page, "a fork");
  await page.click("[data-testid=tab-lanes]");
  await page.click("[data-testid=branch-0]");
  await settle(page);
  await linkCheck(page, "a branch switch");
  await page.selectOption("[data-testid=lesson-select]", "S5");
  await page.waitForSelector("[data-testid=lesson][data-step='0']");
  await settle(page);
  await linkCheck(page, "a lesson start");
  await inject(page, "cut broker-a NS-2");
  await linkCheck(page, "a cut link");
  await page.context().close();
});

// Every text of the diagram is drawn at 12 CSS px or more, no two overlap, and no message covers
// a node's words.
async function legible(page, label) {
  const r = await page.evaluate(() => {
    const out = { small: [], overlaps: [], count: 0 };
    const texts = [...document.querySelectorAll("#diagram text")].filter((t) => {
      if (!t.textContent.trim() || t.closest("[display=none]")) return false;
      const r = t.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(t).visibility !== "hidden";
    });
    const boxes = texts.map((t) => {
      const px = parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
      if (px < 11.95) out.small.push(`${t.textContent} ${px.toFixed(1)}px`);
      // The ink box of the glyphs: the text's box without the font's line gap.
      const r = t.getBoundingClientRect();
      return {
        t: t.textContent,
        node: t.closest("[data-node-text]")?.dataset.nodeText,
        x0: r.left,
        x1: r.right,
        y0: r.top + 1,
        y1: r.bottom - 1,
      };
    });
    out.count = boxes.length;
    // The built-in scenarios' node names are short: none is cut to make room for its state.
    out.cut = [...document.querySelectorAll("#diagram text.name")]
      .map((t) => t.textContent)
      .filter((t) => t.includes("…"));
    // A message's glyph never sits on a node's words (its name, state or clocks).
    const nodeTexts = boxes.filter((b) => b.node);
    out.covered = [];
    for (const s of document.querySelectorAll("#diagram .flight .glyph .shape, #diagram .token .glyph .shape")) {
      const g = s.closest(".flight, .token");
      if (getComputedStyle(g).opacity === "0") continue;
      const r = s.getBoundingClientRect();
      if (!r.width) continue;
      for (const b of nodeTexts) {
        if (!(r.left < b.x1 - 0.5 && b.x0 < r.right - 0.5 && r.top < b.y1 - 0.5 && b.y0 < r.bottom - 0.5)) continue;
        // One SVG paints in document order: a glyph before the node's opaque box is hidden by it.
        const box = document.querySelector(`[data-testid="node-${b.node}"] .box`);
        if (box.compareDocumentPosition(s) & Node.DOCUMENT_POSITION_FOLLOWING)
          out.covered.push(`${g.dataset.msgType || g.dataset.category} glyph × "${b.t}"`);
      }
    }
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i];
        const b = boxes[j];
        if (a.x0 < b.x1 - 0.5 && b.x0 < a.x1 - 0.5 && a.y0 < b.y1 - 0.5 && b.y0 < a.y1 - 0.5)
          out.overlaps.push(`"${a.t}" × "${b.t}"`);
      }
    }
    return out;
  });
  assert.ok(r.count > 10, `${label}: ${r.count} texts`);
  assert.deepEqual(r.small, [], `${label}: texts under 12 px`);
  assert.deepEqual(r.overlaps, [], `${label}: overlapping texts`);
  assert.deepEqual(r.cut, [], `${label}: node names cut`);
  assert.deepEqual(r.covered, [], `${label}: messages over a node's words`);
}

const SAMPLES = {
  S1: [0, 4016, 11001, 36014, 50000, 75000],
  S5: [75000, 81000, 190000, 192002, 214012],
  S7: [75000, 100000, 192500, 250000, 300000],
};

for (const [name, viewport] of [
  ["desktop", DESKTOP],
  ["phone", PHONE],
]) {
  test(`diagram text is legible at ${name} size`, async () => {
    const page = await b.page({
      viewport,
      dashboard: false,
      context: name === "phone" ? { isMobile: true, hasTouch: true } : {},
    });
    for (const [id, times] of Object.entries(SAMPLES)) {
      await scenario(page, id);
      for (const at of times) {
        await seek(page, at);
        await legible(page, `${id} at ${at} ms (${name})`);
      }
      await shot(page, `legible-${id}-${name}`);
    }
    // Moving messages and their words keep clear of each other too.
    await scenario(page, "S1");
    await seek(page, 9000);
    await page
      .click("[data-testid=speed-10]")
      .catch(() => page.evaluate(() => document.querySelector("[data-testid=speed-10]").click()));
    await blur(page);
    await page.keyboard.press("Space");
    await page.waitForFunction(() => document.querySelectorAll("#diagram .token").length > 0, null, {
      timeout: PATIENCE,
    });
    await legible(page, `S1 playing (${name})`);
    await shot(page, `legible-playing-${name}`);
    await page.keyboard.press("Space");
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
}

test("the removal clock of a silent broker runs down on each NameServer node", async () => {
  for (const [name, viewport] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ]) {
    const page = await b.page({ viewport, dashboard: false });
    await scenario(page, "S5");
    await seek(page, 190000);
    const clock = page.locator("[data-node-text=NS-1] [data-clock='remove:broker-b']");
    const state = await clock.getAttribute("data-state");
    assert.ok(state === "near" || state === "over", `amber or red at 190 s, got ${state}`);
    const left = Number(await clock.getAttribute("data-left-ms"));
    const removal = Number(await clock.getAttribute("data-removal-at"));
    assert.equal(removal - 190000, left);
    assert.equal(
      await clock.locator(".clock-secs").textContent(),
      `${(left / 1000).toFixed(1)} s`,
      "reads the seconds left",
    );
    // The model's own removal time: the trace line that removes broker-b.
    await seek(page, 192100);
    const removed = await page.evaluate(() =>
      window.__rmqsim
        .views()
        .then((v) =>
          v.trace.find((l) => l.node === "NS-1" && l.kind === "unregistered" && l.text.includes("10.0.1.3:10911")),
        ),
    );
    assert.equal(removed.at, removal, "the clock ran to the actual removal");
    assert.equal(await clock.count(), 0, "gone with the broker at 192.1 s");
    // Brokers show their registration clock, clients their route-poll clock.
    assert.equal(await page.locator("[data-node-text=broker-a] [data-clock=register]").count(), 1);
    assert.equal(await page.locator("[data-node-text=P1] [data-clock=route-poll]").count(), 1);
    assert.equal(
      await page.locator("[data-node-text=broker-b] [data-clock=register] .clock-secs").textContent(),
      "❄ paused",
      "a frozen broker's clock is paused",
    );
    await seek(page, 190000);
    await shot(page, `clocks-S5-190s-${name}`);
    await page.context().close();
  }
});

// Every period the page shows is the model's: with the NameServers' idle close at 60 s instead
// of 120, the clock, the Timers panel and About follow, and the broker goes when the clock says.
test("a scenario's serverChannelMaxIdleTimeSeconds drives the clocks, timers and About", async () => {
  const text = `${builtInScenarios().find((x) => x.id === "S5").text}\nnamesrv serverChannelMaxIdleTimeSeconds 60`;
  const oracle = new Simulation(text);
  oracle.seek(100000);
  const expected = oracle.view().ns["NS-1"].brokers.find((r) => r.brokerName === "broker-b");
  const hash = shareHash({ compact: oracle.scenarioCompact(), time: 100000, selected: null, lesson: null });
  oracle.free();
  assert.equal(expected.removalBy, "idle");
  const page = await b.page({ hash });
  assert.equal(await simTime(page), 100000);
  const clock = page.locator("[data-node-text=NS-1] [data-clock='remove:broker-b']");
  assert.equal(Number(await clock.getAttribute("data-removal-at")), expected.removalAt);
  assert.equal(await clock.getAttribute("data-by"), "idle");
  const timer = page.locator('[data-testid=timers] li[data-node="NS-1"][data-timer="idle close of broker-b"]');
  assert.equal(await timer.getAttribute("data-period-ms"), "60000");
  await clickInHeader(page, "about-open");
  assert.equal(await page.textContent("[data-testid=default-idle]"), "60 s");
  await page.keyboard.press("Escape");
  await seek(page, expected.removalAt + 1);
  assert.equal(await clock.count(), 0, "broker-b is gone when its clock ran out");
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test("a client with a stale route says so on its node and in the two views", async () => {
  const page = await b.page({ dashboard: false });
  await scenario(page, "S5");
  await seek(page, 200000);
  assert.equal(await page.getAttribute("[data-testid=node-P1]", "data-stale"), "true");
  assert.match(await page.locator("[data-node-text=P1]").textContent(), /STALE 8\.0 s/);
  await page.click("[data-testid=tab-routes]");
  const card = page.locator("[data-testid=client-P1]");
  assert.equal(
    await card.locator("tr[data-diff=gone]").count(),
    2,
    "broker-b struck through in brokerDatas and queueDatas",
  );
  assert.match(await card.locator("tr[data-diff=gone]").first().textContent(), /broker-b/);
  assert.match(
    await page.textContent("[data-testid=stale-why-P1]"),
    /P1 still sends to broker-b: NS-1 removed it 8\.0 s ago, and P1 asks again only at its next route poll, in 14\.0 s\./,
  );
  await shot(page, "stale-S5-200s-desktop");
  await page.context().close();
});

test("a stale copy that still lists a dead master says which members differ, not only that it differs", async () => {
  const page = await b.page({ dashboard: false });
  await scenario(page, "S8");
  await seek(page, 55000);
  assert.equal(await page.getAttribute("[data-testid=node-P1]", "data-stale"), "true");
  await page.click("[data-testid=tab-routes]");
  const card = page.locator("[data-testid=client-P1]");
  assert.equal(
    await card.locator("tr[data-diff=changed]").count(),
    1,
    "broker-a marked in brokerDatas; its queues are the same",
  );
  assert.match(
    await card.locator("tr[data-diff=changed]").first().textContent(),
    /broker-a\{0: 10\.0\.1\.1:10911 ?1: 10\.0\.1\.2:10911\}/,
  );
  assert.equal(await page.locator("[data-testid=route-NS-1] tr[data-diff=changed]").count(), 1);
  assert.match(
    await page.textContent("[data-testid=stale-why-P1]"),
    /^P1.s copy lists broker-a as BID 0, 1; NS-1 has listed it as BID 1 for \d+\.\d s\. P1 asks again in \d+\.\d s\.$/,
  );
  await shot(page, "stale-S8-55s-desktop");
  await page.context().close();
});

test("a fork from the past replays its own script, not the parent's later faults", async () => {
  const page = await b.page({ dashboard: false });
  await seek(page, 50000);
  await inject(page, "kill broker-b");
  await seek(page, 40000);
  await blur(page);
  await page.keyboard.press("k");
  await page.fill("[data-testid=fault-palette-input]", "freeze broker-b");
  await page.keyboard.press("Enter");
  await page.locator("[data-testid=fork-ask]").waitFor();
  assert.match(await page.textContent("[data-testid=fork-ask]"), /kill broker-b/);
  await page.click("[data-testid=fork-drop]");
  await settle(page);
  await seek(page, 300000);
  const v = await page.evaluate(() => window.__rmqsim.views());
  assert.ok(!v.meta.text.includes("kill broker-b"), "the new branch's script has no kill");
  const removal = v.trace.find(
    (l) => l.node === "NS-1" && l.kind === "unregistered" && l.text.includes("10.0.1.3:10911"),
  );
  const m = v.measurements.find((x) => x.action === "freeze broker-b");
  assert.equal(m.nsRemoval.find(([ns]) => ns === "NS-1")[1], removal.at, "the freeze's own removal time");
  assert.ok(removal.at > 100000, `removed by the idle close, at ${removal.at}`);
  assert.match(await page.locator("[data-node-text=broker-b] .state").textContent(), /frozen/);
  await page.click("[data-testid=tab-measure]");
  await shot(page, "fork-freeze-desktop");
  // Keeping them is a choice: the second fork keeps the kill.
  await seek(page, 40000);
  await blur(page);
  await page.keyboard.press("k");
  await page.fill("[data-testid=fault-palette-input]", "freeze broker-a");
  await page.keyboard.press("Enter");
  await page
    .locator("[data-testid=fork-ask]")
    .waitFor()
    .catch(() => {});
  if (await page.locator("[data-testid=fork-ask]").isVisible()) await page.click("[data-testid=fork-keep]");
  await settle(page);
  await page.context().close();
});

test("compare view: S3 | S4 | S5 at 200 s", async () => {
  const page = await b.page({ dashboard: false });
  await page.click("[data-testid=tab-compare]");
  await page.fill("[data-testid=compare-at]", "200");
  await page.click("[data-testid=compare-go]");
  const table = page.locator("table.compare");
  await table.waitFor();
  const heads = await table.locator("thead th").allTextContents();
  assert.deepEqual(heads.slice(1), ["S3", "S4", "S5"]);
  const row = await table.locator("tbody tr").nth(1).textContent();
  assert.match(row, /50\.003 s/);
  assert.match(row, /50\.00\d s/);
  assert.match(row, /192\.00\d s/);
  // Stale routes: one total per run (the sum of the oracle's windows up to 200 s, with its
  // unit); each client's share only on demand.
  const stale = table.locator("tbody tr", { hasText: "stale routes (total)" });
  const cells = stale.locator("td");
  assert.equal(await cells.count(), 3);
  for (const [i, id] of ["S3", "S4", "S5"].entries()) {
    const oracle = Simulation.builtIn(id);
    oracle.seek(200000);
    const windows = oracle.view().stale.filter((w) => w.from > 0);
    oracle.free();
    const per = {};
    for (const w of windows) per[w.client] = (per[w.client] || 0) + (w.to ?? 200000) - w.from;
    const total = Object.values(per).reduce((a, b) => a + b, 0);
    const cell = cells.nth(i);
    const sum = cell.locator(".stale-total");
    assert.equal(Number(await sum.getAttribute("data-ms")), total, `${id}: the total`);
    assert.equal(await sum.textContent(), `${(total / 1000).toFixed(1)} s`, `${id}: one number, in seconds`);
    const items = cell.locator("li");
    assert.equal(await items.count(), Object.keys(per).length, `${id}: a line per client`);
    if (!windows.length) continue;
    assert.equal(await items.first().isVisible(), false, `${id}: the clients' list waits until asked for`);
    await cell.locator("summary").click();
    for (const [client, ms] of Object.entries(per))
      assert.equal(
        await cell.locator(`li[data-client="${client}"]`).textContent(),
        `${client} ${(ms / 1000).toFixed(1)} s`,
        `${id}: ${client}`,
      );
  }
  assert.ok(
    (await stale.locator(".stale-total").evaluateAll((els) => els.map((e) => Number(e.dataset.ms)))).some((x) => x > 0),
    "some run had stale routes",
  );
  await shot(page, "compare-desktop");
  await page.context().close();
});
