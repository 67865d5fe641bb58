// T10–T14, T16–T20: messages, inspection, tables, timers, two views, crash vs hang, partition,
// log, lanes, measurements.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, seek, settle, simTime, shot, clickInHeader } from "./lib/browser.mjs";
import { Simulation } from "./lib/oracle.mjs";

let b;
before(async () => (b = await launch()));
after(() => b.close());

const blur = (page) => page.evaluate(() => document.activeElement && document.activeElement.blur());
async function scenario(page, id) {
  await page.selectOption("[data-testid=scenario-select]", id);
  await settle(page);
}

test("T10 messages in flight", async () => {
  const page = await b.page();
  // broker-a's registrations are on their way at 11.000 s; the engine's jitter says when each
  // arrives (the package in Node is the oracle).
  await seek(page, 11000);
  const oracle = Simulation.builtIn("S1");
  oracle.seek(11000);
  const due = Object.fromEntries(
    oracle
      .view()
      .flights.filter((f) => f.from === "broker-a" && f.summary.startsWith("REGISTER_BROKER"))
      .map((f) => [f.to, f.arriveAt]),
  );
  oracle.free();
  const regs = page.locator("[data-msg-type=REGISTER_BROKER][data-from=broker-a]");
  const to = await regs.evaluateAll((els) => els.map((e) => [e.dataset.to, e.getAttribute("aria-label")]));
  const byTo = Object.fromEntries(to);
  assert.equal(byTo["NS-1"], `RegisterBroker broker-a → NS-1, arrives ${(due["NS-1"] / 1000).toFixed(3)} s`);
  assert.equal(byTo["NS-2"], `RegisterBroker broker-a → NS-2, arrives ${(due["NS-2"] / 1000).toFixed(3)} s`);
  // Glyph shape differs by type (not colour alone), and each carries a text label.
  const shapeOf = (sel) =>
    page
      .locator(sel)
      .first()
      .evaluate((g) => {
        const s = g.querySelector(".shape");
        const label = document.querySelector(`.flight-text[data-for="${g.dataset.flightId}"] .msg-label`).textContent;
        return [s.tagName, s.getAttribute("d") || s.getAttribute("width") || s.getAttribute("r"), label];
      });
  const reg = await shapeOf("[data-category=register]");
  const send = await shapeOf("[data-category=send]");
  assert.notDeepEqual(reg.slice(0, 2), send.slice(0, 2));
  assert.equal(reg[2], "REG");
  // Arrowheads while paused.
  const arrow = await regs
    .first()
    .evaluate((g) => [
      g.dataset.arrow,
      g.querySelector(".trail").getAttribute("marker-end"),
      g.querySelector(".trail").getAttribute("visibility"),
    ]);
  assert.deepEqual(arrow, ["true", "url(#arrow)", null]);
  // Other types: a route query and its answer, sends and acks, unregister, failure glyphs exist in the map.
  const wire = Simulation.builtIn("S1");
  wire.seek(40000);
  const query = wire
    .view({ branch: 0, time: 0, trace: 0, sends: 0, wire: 0 })
    .delta.wire.find((w) => w.type === "GET_ROUTEINFO_BY_TOPIC" && !w.response && w.sentAt > 30000);
  wire.free();
  await seek(page, query.sentAt);
  assert.ok((await page.locator("[data-msg-type=GET_ROUTEINFO_BY_TOPIC]").count()) >= 1, "route query in flight");
  await shot(page, "T10-messages-desktop");
  await page.context().close();
});

test("T11 message inspection", async () => {
  const page = await b.page();
  await seek(page, 11000);
  const msg = page.locator("[data-msg-type=REGISTER_BROKER][data-to=NS-2]");
  await msg.focus();
  await page.keyboard.press("Enter");
  const panel = page.locator("[data-testid=message-panel]");
  await panel.waitFor();
  assert.match(await panel.locator("[data-field=type]").textContent(), /REGISTER_BROKER/);
  assert.equal(await panel.locator("[data-field=from]").textContent(), "broker-a");
  assert.equal(await panel.locator("[data-field=to]").textContent(), "NS-2");
  assert.equal(await panel.locator("[data-field=sentAt]").textContent(), "11.000 s");
  assert.match(await panel.locator("[data-field=arriveAt]").textContent(), /^11\.00[12] s/);
  assert.match(await panel.locator("[data-field=payload]").textContent(), /topics: .*TopicTest/);
  await page.keyboard.press("Escape");
  await page.context().close();
});

test("T12 node inspection", async () => {
  const page = await b.page();
  await seek(page, 40000);
  const live = page.locator("[data-testid=live-NS-1]");
  assert.deepEqual(await live.locator("th").allTextContents(), [
    "brokerAddr",
    "brokerName",
    "BID",
    "lastUpdate",
    "age",
  ]);
  assert.equal(await live.locator("tbody tr").count(), 3);
  const route = page.locator("[data-testid=route-NS-1]");
  assert.deepEqual(await route.locator("caption").allTextContents(), ["brokerDatas", "queueDatas"]);
  assert.deepEqual(await route.locator("table").nth(1).locator("th").allTextContents(), [
    "brokerName",
    "readQueueNums",
    "writeQueueNums",
    "perm",
  ]);
  const addrs = await route.locator("table").first().locator("tbody tr").first().textContent();
  assert.match(addrs, /broker-a\{0: 10\.0\.1\.1:10911\s*1: 10\.0\.1\.2:10911\}/);
  // Tapping (or Enter on) a node opens its panel with the same tables.
  await page.click("[data-testid=node-NS-1]");
  await page.locator("[data-testid=node-sheet]").waitFor();
  assert.match(await page.locator("#sheet-body").textContent(), /brokerLiveTable/);
  await page.keyboard.press("Escape");
  await page.context().close();
});

test("T13 timers", async () => {
  const page = await b.page();
  await seek(page, 40000);
  const timer = (node, label) => page.locator(`[data-testid=timers] li[data-node="${node}"][data-timer="${label}"]`);
  assert.equal(await timer("broker-a", "register to NameServers").getAttribute("data-period-ms"), "30000");
  assert.equal(await timer("NS-1", "scan for expired brokers").getAttribute("data-period-ms"), "10000");
  assert.equal(await timer("NS-1", "idle close of broker-b").getAttribute("data-period-ms"), "120000");
  assert.equal(await timer("P1", "route poll").getAttribute("data-period-ms"), "30000");
  assert.equal(await timer("P1", "heartbeat to brokers").getAttribute("data-period-ms"), "30000");
  assert.equal(await timer("NS-1", "scan for expired brokers").getAttribute("data-left-ms"), "5000");
  // Fault isolation (sendLatencyFaultEnable, 4.9: 600 s).
  await scenario(page, "S6-fault-4.9");
  await seek(page, 90000);
  const iso = page.locator('[data-testid=timers] li[data-node="P1"][data-timer="fault isolation of broker-b ends"]');
  assert.equal(await iso.count(), 1);
  assert.match(await iso.textContent(), /681\.000 s/);
  // The age turns red, with text, past 120 s (scan-only model: only the scan removes it).
  await scenario(page, "S5-scan-only");
  await seek(page, 193000);
  const row = page.locator("[data-testid=live-NS-1] tr[data-broker=broker-b] td.age");
  assert.equal(await row.getAttribute("data-over"), "true");
  assert.match(await row.textContent(), /past 120\.0 s timeout/);
  assert.equal(await row.evaluate((td) => getComputedStyle(td).color), "rgb(179, 38, 30)");
  await page.context().close();
});

test("T14 two views", async () => {
  const page = await b.page();
  await scenario(page, "S5");
  for (const id of ["route-NS-1", "route-NS-2", "client-P1", "client-C1"])
    assert.equal(await page.locator(`[data-testid=${id}]`).count(), 1, id);
  // Each client's copy sits beside the table it was copied from.
  const top = async (id) => (await page.locator(`[data-testid=${id}]`).boundingBox()).y;
  assert.equal(await top("route-NS-1"), await top("client-P1"), "P1 beside NS-1");
  assert.equal(await top("route-NS-2"), await top("client-C1"), "C1 beside NS-2");
  // STALE from NS-1's removal of broker-b to P1's next poll (the oracle's stale window).
  const oracle = Simulation.builtIn("S5");
  oracle.seek(300000);
  const w = oracle.view().stale.find((x) => x.client === "P1" && x.from > 100000);
  oracle.free();
  const badge = page.locator("[data-testid=stale-P1]");
  await seek(page, w.from - 50);
  assert.equal(await badge.count(), 0);
  await seek(page, w.from + 50);
  assert.equal(await badge.count(), 1);
  assert.match(await badge.textContent(), /STALE for 0\.1 s/);
  await seek(page, w.to - 50);
  assert.match(
    await badge.textContent(),
    new RegExp(`STALE for ${((w.to - 50 - w.from) / 1000).toFixed(1).replace(".", "\\.")} s`),
  );
  await shot(page, "T14-stale-desktop");
  await seek(page, w.to + 50);
  assert.equal(await badge.count(), 0);
  await page.context().close();
});

test("T16 crash vs hang", async () => {
  const page = await b.page();
  const removal = async (ns) => Number(await page.getAttribute(`[data-testid=m-0-removal-${ns}]`, "data-ms"));
  await scenario(page, "S4");
  await seek(page, 70000);
  assert.ok((await removal("NS-1")) <= 50100 && (await removal("NS-2")) <= 50100);
  await scenario(page, "S5");
  await seek(page, 300000);
  assert.ok(Math.abs((await removal("NS-1")) - 192000) <= 100, "idle model");
  // The model toggle is in the UI (About this model).
  await clickInHeader(page, "about-open");
  await page.click("[data-testid=idle-off]");
  await settle(page);
  await page.keyboard.press("Escape");
  assert.equal(await simTime(page), 300000);
  assert.equal(await removal("NS-1"), 195000, "scan-only model");
  assert.equal(await removal("NS-2"), 198000);
  await page.context().close();
});

test("T17 partition", async () => {
  const page = await b.page();
  await seek(page, 75000);
  await blur(page);
  await page.keyboard.press("k");
  await page.fill("[data-testid=fault-palette-input]", "cut broker-b NS-2");
  await page.keyboard.press("Enter");
  await settle(page);
  assert.equal(await page.getAttribute("[data-testid=node-broker-b]", "data-partitioned"), "true");
  await seek(page, 191000);
  assert.ok(await page.locator("[data-testid=divergence]").isHidden());
  await seek(page, 193000);
  const d = page.locator("[data-testid=divergence]");
  assert.ok(await d.isVisible());
  assert.equal(await d.getAttribute("data-missing"), "broker-b");
  assert.equal(await d.getAttribute("data-ns"), "NS-2");
  assert.match(await d.textContent(), /NS-2 lacks broker-b, which NS-1 has/);
  await shot(page, "T17-partition-desktop");
  await page.context().close();
});

test("T18 event log", async () => {
  const page = await b.page();
  const has = async (re) =>
    (await page.locator("[data-testid=log] .log-text").allTextContents()).some((x) => re.test(x));
  const cases = [
    [
      "S1",
      20000,
      /^new broker registered, BrokerAddrInfo \[clusterName=DefaultCluster, brokerAddr=10\.0\.1\.1:10911\]/,
    ],
    ["S3", 60000, /^unregisterBroker, remove from brokerLiveTable OK/],
    ["S5", 200000, /^NETTY SERVER PIPELINE: IDLE exception \[10\.0\.1\.3:\d+\]/],
    ["S4", 60000, /^the broker's channel destroyed, 10\.0\.1\.3:10911, clean it's data structure at once/],
    ["S5-scan-only", 200000, /^The broker channel expired, .*10\.0\.1\.3:10911\] 120000ms/],
    ["S2", 10000, /^No route info of this topic: TopicTest/],
  ];
  for (const [id, ms, re] of cases) {
    await scenario(page, id);
    await seek(page, ms);
    if (id === "S5" || id === "S5-scan-only") await page.selectOption("[data-testid=log-filter-node]", "NS-1");
    assert.ok(await has(re), `${id}: ${re}`);
    await page.selectOption("[data-testid=log-filter-node]", "");
  }
  // Filter by node and type; Enter on a line seeks there and highlights the node.
  await scenario(page, "S4");
  await seek(page, 70000);
  // The type filter lists the model's trace kinds (the core's list), the NameServer's
  // event categories such as kv and config among them.
  const kinds = await page.$$eval("[data-testid=log-filter-kind] option", (os) =>
    os.map((o) => o.value).filter(Boolean),
  );
  for (const k of ["lifecycle", "registered", "kv", "config", "request", "notified", "channel-closed", "offset"]) {
    assert.ok(kinds.includes(k), `the log filter offers ${k}: ${kinds}`);
  }
  await page.selectOption("[data-testid=log-filter-kind]", "channel-closed");
  const lines = page.locator("[data-testid=log] button");
  assert.equal(await lines.count(), 2);
  await page.selectOption("[data-testid=log-filter-node]", "NS-1");
  assert.equal(await lines.count(), 1);
  await lines.first().focus();
  await page.keyboard.press("Enter");
  await settle(page);
  assert.equal(await simTime(page), 50003);
  assert.equal(await page.getAttribute("[data-testid=node-NS-1]", "data-highlighted"), "true");
  await page.context().close();
});

test("T19 lanes", async () => {
  const page = await b.page();
  await scenario(page, "S5");
  await seek(page, 300000);
  const names = await page.$$eval("[data-testid=lanes] .lane[data-lane]", (ls) => ls.map((l) => l.dataset.lane));
  assert.deepEqual(names, ["NS-1", "NS-2", "broker-a", "broker-a-s", "broker-b", "P1", "C1"]);
  assert.equal(await page.locator("[data-testid=fault-broker-b]").count(), 1, "fault interval shaded");
  const stale = page.locator("[data-testid=stale-win-P1]");
  const froms = await stale.evaluateAll((els) => els.map((e) => Number(e.dataset.from)));
  const oracle = Simulation.builtIn("S5");
  oracle.seek(300000);
  const from = oracle.view().stale.find((w) => w.client === "P1" && w.from > 100000).from;
  oracle.free();
  assert.ok(froms.includes(from), `P1 stale window from ${from}: ${froms}`);
  const outcomes = await page.$$eval(".lane[data-lane=P1] .send", (s) =>
    [...new Set(s.map((x) => x.dataset.outcome))].sort(),
  );
  assert.deepEqual(outcomes, ["indeterminate", "ok"]);
  await shot(page, "T19-lanes-desktop");
  await page.context().close();
});

test("T20 measurements", async () => {
  const page = await b.page();
  await scenario(page, "S5");
  await seek(page, 300000);
  const oracle = Simulation.builtIn("S5");
  oracle.seek(300000);
  const [m] = oracle.view().measurements;
  oracle.free();
  for (const [ns, at] of m.nsRemoval)
    assert.equal(Number(await page.getAttribute(`[data-testid=m-0-removal-${ns}]`, "data-ms")), at);
  for (const [c, at] of m.clientUpdate)
    assert.equal(Number(await page.getAttribute(`[data-testid=m-0-update-${c}]`, "data-ms")), at);
  const ns1 = m.nsRemoval.find(([ns]) => ns === "NS-1")[1];
  const p1 = m.clientUpdate.find(([c]) => c === "P1")[1];
  assert.ok(Math.abs(ns1 - 192000) < 100, `removal near 192 s: ${ns1}`);
  assert.ok(
    (await page.textContent("[data-testid=m-0-removal-NS-1]")).includes(
      `${(ns1 / 1000).toFixed(3)} s (${((ns1 - m.at) / 1000).toFixed(1)} s after the fault)`,
    ),
  );
  assert.ok((await page.textContent("[data-testid=m-0-update-P1]")).includes(`${(p1 / 1000).toFixed(3)} s`));
  const sends = await page.textContent("[data-testid=m-0-sends]");
  assert.ok(sends.includes(`${m.attempts} attempts`) && sends.includes(`${m.sendsIndeterminate} indeterminate`), sends);
  await page.context().close();
});
