// The rule card's words and place (www/panels/rule-card.js): it quotes the operands of the
// line as the view gave them, in both languages, and goes beside the node's box, never on it.
import { test } from "node:test";
import assert from "node:assert/strict";

import { setLanguage } from "../../../www/app/i18n.js";
import { ruleCard, renewalOf } from "../../../www/panels/rule-card.js";
import { placeBeside } from "../../../www/diagram/layout.js";

const NODES = [{ name: "broker-b", role: "broker", addr: "10.0.1.3:10911" }];
const removal = (operands) => ({
  seq: 7,
  at: operands.now,
  node: "NS-1",
  kind: "unregistered",
  text: "unregisterBroker, remove from brokerLiveTable OK, BrokerAddrInfo [clusterName=DefaultCluster, brokerAddr=10.0.1.3:10911]",
  operands,
});
const strip = (html) => html.replace(/<[^>]+>/g, "").replace(/&lt;/g, "<");

test("a scan's expiry quotes last registration, timeout, deadline and now as given", () => {
  setLanguage("en");
  const line = removal({ rule: "expired", lastUpdate: 72006, timeoutMs: 120000, deadline: 192006, now: 195000 });
  const card = ruleCard(line, NODES);
  assert.equal(strip(card.body), "last registration 72.006 s + 120 s = 192.006 s < now 195.000 s → remove broker-b");
  assert.match(card.title, /data-term="scan"/);
  setLanguage("zh");
  assert.equal(
    strip(ruleCard(line, NODES).body),
    "最后注册 72.006 s + 120 s = 192.006 s < 现在 195.000 s → 移除 broker-b",
  );
  setLanguage("en");
});

test("an idle close, a registration and route answers have their own words", () => {
  setLanguage("en");
  const idle = ruleCard(
    removal({ rule: "idle-close", lastIo: 72006, idleMs: 120000, deadline: 192006, now: 192006 }),
    NODES,
  );
  assert.match(strip(idle.body), /^silent 120 s on this connection .* → idle close, broker-b removed$/);
  assert.match(idle.title, /data-term="idle"/);
  const reg = {
    ...removal({}),
    kind: "registered",
    operands: { rule: "registered", lastUpdate: 1001, timeoutMs: 120000, deadline: 121001 },
  };
  assert.match(strip(ruleCard(reg, NODES).body), /deadline 1\.001 s \+ 120 s = 121\.001 s/);
  const route = {
    seq: 1,
    at: 4000,
    node: "P1",
    kind: "route-updated",
    text: "",
    operands: { rule: "route", groups: 2 },
  };
  assert.match(strip(ruleCard(route, NODES).body), /lists 2 broker groups → P1/);
  const none = { ...route, operands: { rule: "topic-not-exist" } };
  assert.match(strip(ruleCard(none, NODES).body), /TOPIC_NOT_EXIST/);
  assert.equal(ruleCard({ ...route, operands: undefined }, NODES), null, "no rule, no card");
});

test("the card goes beside the box: right if it fits, else left, below, above, kept inside", () => {
  const rect = (left, top, width, height) => ({ left, top, width, height, right: left + width, bottom: top + height });
  const wrap = rect(0, 0, 1000, 600);
  const card = { width: 200, height: 80 };
  assert.equal(placeBeside(rect(100, 100, 150, 60), card, wrap).side, "right");
  assert.equal(placeBeside(rect(850, 100, 150, 60), card, wrap).side, "left");
  const narrow = rect(0, 0, 390, 600);
  const p = placeBeside(rect(20, 100, 350, 60), card, narrow);
  assert.equal(p.side, "below");
  assert.deepEqual([p.x, p.y], [20, 168]);
  assert.equal(placeBeside(rect(20, 500, 350, 60), card, narrow).side, "above");
});

test("the card covers no other box: it moves along, or round, to the nearest free spot, else none", () => {
  const rect = (left, top, width, height) => ({ left, top, width, height, right: left + width, bottom: top + height });
  const wrap = rect(0, 0, 1000, 600);
  const card = { width: 200, height: 80 };
  const box = rect(100, 100, 150, 60);
  const overlaps = (p, r) => p.x < r.right && r.left < p.x + 200 && p.y < r.bottom && r.top < p.y + 80;
  // A box on its right, shorter than the node: still right of the node, slid down past it.
  const low = rect(300, 60, 150, 60);
  const p = placeBeside(box, card, wrap, [low]);
  assert.ok(!overlaps(p, low) && !overlaps(p, box), JSON.stringify(p));
  assert.deepEqual(p, { side: "right", x: 258, y: 120 });
  // A column of boxes on its right: below it, lined up with it.
  assert.deepEqual(placeBeside(box, card, wrap, [rect(300, 0, 150, 600)]), { side: "below", x: 100, y: 168 });
  // Boxes on every side but the left.
  const walls = [rect(258, 0, 742, 600), rect(0, 160, 258, 440)];
  const q = placeBeside(box, card, wrap, walls);
  assert.ok(q && walls.every((r) => !overlaps(q, r)) && !overlaps(q, box), JSON.stringify(q));
  // Nowhere free: null, for the caller to dock the card.
  assert.equal(
    placeBeside(box, card, wrap, [
      rect(0, 0, 1000, 90),
      rect(0, 90, 90, 510),
      rect(90, 168, 910, 432),
      rect(258, 90, 742, 78),
    ]),
    null,
  );
});

test("a renewal is a live row whose lastUpdate moved on, quoted with the row's own numbers", () => {
  const row = (lastUpdate, expiresAt) => ({
    cluster: "DefaultCluster",
    brokerAddr: "10.0.1.3:10911",
    brokerName: "broker-b",
    lastUpdate,
    timeoutMs: 120000,
    expiresAt,
  });
  const snap = (time, live) => ({ time, ns: { "NS-1": { live }, "NS-2": null } });
  const before = snap(30000, [row(1, 120001)]);
  assert.equal(renewalOf(before, snap(30000, [row(1, 120001)])), null, "nothing moved");
  assert.equal(renewalOf(before, snap(31000, [])), null, "a removal is no renewal");
  assert.equal(renewalOf(snap(60000, [row(30001, 150001)]), before), null, "the clock went back");
  const renewal = renewalOf(before, snap(30500, [row(30001, 150001)]));
  assert.deepEqual(renewal.operands, {
    rule: "renewed",
    lastUpdate: 30001,
    timeoutMs: 120000,
    deadline: 150001,
    before: 120001,
  });
  assert.equal(renewal.node, "NS-1");
  setLanguage("en");
  assert.equal(
    strip(ruleCard(renewal, NODES).body),
    "NS-1 hears broker-b again (its heartbeat) → last registration 30.001 s, deadline 30.001 s + 120 s = 150.001 s (was 120.001 s)",
  );
  setLanguage("zh");
  assert.match(
    strip(ruleCard(renewal, NODES).body),
    /又收到 broker-b 的注册.*截止 30\.001 s \+ 120 s = 150\.001 s（原为 120\.001 s）/,
  );
  setLanguage("en");
});
