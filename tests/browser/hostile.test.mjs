// H1–H2: names from the network are text. Any RocketMQ client may register a broker, cluster or
// topic, or put a KV key, with markup in its name; the live view shows them escaped, and the
// page's Content-Security-Policy (sent by the daemon and by the tests' server alike) would stop
// a script that got through anyway.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { crc32 } from "node:zlib";
import { launch, ready, shot, DESKTOP, PHONE } from "./lib/browser.mjs";
import { startDaemon } from "./lib/daemon.mjs";

// Each breaks out of an element and of a single- or double-quoted attribute, and marks what it
// would inject with data-xss so the test can find it.
const HOSTILE = {
  broker: `b"'><img src=x data-xss=broker onerror="window.__xss='broker'">`,
  cluster: `c'"><svg data-xss=cluster onload=window.__xss='cluster'></svg>`,
  topic: `T"'><b data-xss=topic onclick=window.__xss='topic'>t</b>`,
  kvNamespace: `ns"'><u data-xss=kvns>n</u>`,
  kvKey: `k"'><i data-xss=kvkey onmouseover=window.__xss='kv'>k</i>`,
  kvValue: `<script data-xss=kvvalue>window.__xss='kvvalue'</script>`,
};

// One RocketMQ request frame with a JSON header (PROTOCOL.md §1.2).
function frame(code, opaque, extFields, body = Buffer.alloc(0)) {
  const header = Buffer.from(JSON.stringify({ code, language: "JAVA", version: 453, opaque, flag: 0, extFields }));
  const out = Buffer.alloc(8);
  out.writeUInt32BE(4 + header.length + body.length, 0);
  out.writeUInt32BE(header.length, 4);
  return Buffer.concat([out, header, body]);
}

function registration(opaque) {
  const topicConfig = {
    topicName: HOSTILE.topic,
    readQueueNums: 4,
    writeQueueNums: 4,
    perm: 6,
    topicFilterType: "SINGLE_TAG",
    topicSysFlag: 0,
    order: false,
  };
  const body = Buffer.from(
    JSON.stringify({
      topicConfigSerializeWrapper: {
        topicConfigTable: { [HOSTILE.topic]: topicConfig, TBW102: { ...topicConfig, topicName: "TBW102" } },
        dataVersion: { timestamp: 1, counter: 1 },
      },
      filterServerList: [],
    }),
  );
  return frame(
    103,
    opaque,
    {
      brokerName: HOSTILE.broker,
      brokerAddr: "127.0.0.1:31911",
      clusterName: HOSTILE.cluster,
      haServerAddr: "127.0.0.1:10912",
      brokerId: "0",
      compressed: "false",
      bodyCrc32: String(crc32(body) | 0),
    },
    body,
  );
}

// Sends the frames and resolves with the codes of the replies, in order.
async function exchange(socket, frames) {
  let buf = Buffer.alloc(0);
  const codes = [];
  const done = new Promise((ok) => {
    socket.on("data", (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
        const len = buf.readUInt32BE(0);
        const headerLen = buf.readUInt32BE(4) & 0xffffff;
        codes.push(JSON.parse(buf.subarray(8, 8 + headerLen).toString()).code);
        buf = buf.subarray(4 + len);
        if (codes.length === frames.length) ok(codes);
      }
    });
  });
  for (const f of frames) socket.write(f);
  return done;
}

let b;
let daemon;
let broker;
before(async () => {
  b = await launch();
  daemon = await startDaemon();
  broker = connect(daemon.tcp.port, daemon.tcp.host);
  await new Promise((ok, fail) => broker.once("connect", ok).once("error", fail));
  const codes = await exchange(broker, [
    registration(1),
    frame(100, 2, { namespace: HOSTILE.kvNamespace, key: HOSTILE.kvKey, value: HOSTILE.kvValue }),
  ]);
  assert.deepEqual(codes, [0, 0], "the daemon accepts the names, as Java does");
});
after(async () => {
  if (broker) broker.destroy();
  if (daemon) await daemon.stop();
  await b.close();
});

// Everything the page would have to show if markup from the network had become markup.
async function injected(page) {
  return page.evaluate(() => {
    const out = [];
    for (const el of document.querySelectorAll("*")) {
      if (el.hasAttribute("data-xss")) out.push(`<${el.localName} data-xss=${el.getAttribute("data-xss")}>`);
      for (const a of el.attributes) if (a.name.startsWith("on")) out.push(`${a.name} on <${el.localName}>`);
    }
    if (window.__xss) out.push(`script ran: ${window.__xss}`);
    return out.concat(window.__cspViolations);
  });
}

async function open(viewport) {
  const ctx = await b.browser.newContext({ viewport });
  await ctx.addInitScript(() => {
    localStorage.setItem("rmqsim.freePlay", "1");
    window.__cspViolations = [];
    document.addEventListener("securitypolicyviolation", (e) =>
      window.__cspViolations.push(`CSP ${e.violatedDirective}: ${e.blockedURI}`),
    );
  });
  const page = await ctx.newPage();
  page.dialogs = [];
  page.on("dialog", (d) => {
    page.dialogs.push(d.message());
    d.dismiss();
  });
  await page.goto(`${daemon.http}/www/index.html?live`);
  await ready(page);
  return page;
}

test("H1 hostile broker, cluster, topic and KV names render as text in the live view", async () => {
  for (const viewport of [DESKTOP, PHONE]) {
    const page = await open(viewport);
    const table = page.locator(`[data-testid="live-${daemon.address}"]`);
    await table.locator("tbody tr").first().waitFor({ timeout: 30000 });
    // The broker's name, as text, where the table shows it.
    assert.equal((await table.locator("tbody tr").first().locator("td").allTextContents())[1], HOSTILE.broker);
    // The hostile topic's route, and the log with the KV put.
    await page.waitForFunction(
      (topic) => [...document.querySelectorAll("[data-testid=live-topic] option")].some((o) => o.value === topic),
      HOSTILE.topic,
      { timeout: 30000 },
    );
    await page.selectOption("[data-testid=live-topic]", HOSTILE.topic);
    const route = page.locator(`[data-testid="route-${daemon.address}"]`);
    await route.locator("table.router").first().waitFor({ timeout: 30000 });
    await page.waitForFunction((key) => document.body.textContent.includes(key), HOSTILE.kvKey, { timeout: 30000 });
    // Hover and click every node of the diagram: its sheet and tooltips carry the names too.
    for (const node of await page.locator("[data-testid=diagram] g.node").all()) {
      if (await node.isVisible()) await node.hover();
    }
    const text = await page.evaluate(() => document.body.textContent);
    for (const name of [HOSTILE.broker, HOSTILE.cluster, HOSTILE.topic])
      assert.ok(text.includes(name), `shown as text: ${name}`);
    await shot(page, `H1-hostile-names-${viewport.width}`);
    assert.deepEqual(await injected(page), []);
    assert.deepEqual(page.dialogs, []);
    await page.context().close();
  }
});

test("H2 the page is served with a Content-Security-Policy, by the daemon and by the tests' server alike", async () => {
  const fromDaemon = await fetch(`${daemon.http}/www/index.html`);
  const fromServer = await fetch(`${b.base}/www/index.html`);
  const csp = fromDaemon.headers.get("content-security-policy");
  assert.ok(csp, "the daemon sends a CSP");
  for (const directive of ["script-src 'self' 'wasm-unsafe-eval'", "object-src 'none'", "frame-ancestors 'none'"]) {
    assert.ok(csp.includes(directive), `${directive} in ${csp}`);
  }
  assert.equal(
    fromServer.headers.get("content-security-policy"),
    csp,
    "the tests see the page as the daemon serves it",
  );
  assert.equal(fromDaemon.headers.get("referrer-policy"), "no-referrer");
  const wasm = await fetch(`${daemon.http}/pkg/nameserver_wasm_bg.wasm`, { method: "HEAD" });
  assert.equal(wasm.headers.get("content-security-policy"), csp, "/pkg/ too");
  // An inline script, which the policy forbids, does not run: the policy is in force.
  const page = await open(DESKTOP);
  const ran = await page.evaluate(() => {
    const s = document.createElement("script");
    s.textContent = "window.__inline = 1";
    document.body.append(s);
    return window.__inline === 1;
  });
  assert.equal(ran, false);
  assert.ok((await page.evaluate(() => window.__cspViolations)).some((v) => v.startsWith("CSP script-src")));
  await page.context().close();
});
