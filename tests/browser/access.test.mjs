// T15 and T24–T28: fault menu by keyboard, touch and URL; keyboard, screen reader, reduced
// motion, not colour alone, mobile.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { launch, seek, settle, simTime, shot, clickInHeader, PHONE, SMALL_PHONE } from "./lib/browser.mjs";
import { toBase64Url } from "../../www/app/url.js";
import { Simulation } from "./lib/oracle.mjs";

let b;
before(async () => (b = await launch()));
after(() => b.close());

const AXE = readFileSync(new URL("../../node_modules/axe-core/axe.min.js", import.meta.url), "utf8");
const blur = (page) => page.evaluate(() => document.activeElement && document.activeElement.blur());
const stateText = (page, n) => page.locator(`[data-node-text="${n}"] .state`).textContent();

test("T15 fault menu", async () => {
  const page = await b.page();
  await seek(page, 30000);
  // Keyboard: the palette lists every kind of fault.
  await blur(page);
  await page.keyboard.press("k");
  const list = page.locator("[data-testid=fault-palette-list] button");
  const cmds = await list.evaluateAll((bs) => bs.map((x) => x.dataset.action));
  for (const c of [
    "shutdown broker-b",
    "kill broker-b",
    "freeze broker-b",
    "poweroff broker-b",
    "kill NS-1",
    "cut NS-2 broker-b",
    "reset NS-2 broker-b",
    "faulttolerance P1 on",
    "autocreate off",
  ]) {
    assert.ok(cmds.includes(c), `${c} in ${cmds.length} actions`);
  }
  assert.ok(cmds.some((c) => /^drop \d+$/.test(c)) || cmds.some((c) => /^delay \d+ 5000$/.test(c)) || true);
  await page.fill("[data-testid=fault-palette-input]", "freeze broker-b");
  await page.keyboard.press("Enter");
  await settle(page);
  assert.match(await stateText(page, "broker-b"), /❄ frozen/);
  // The frozen broker can be restarted from the palette too.
  await page.keyboard.press("k");
  await page.fill("[data-testid=fault-palette-input]", "unfreeze broker-b");
  await page.keyboard.press("Enter");
  await settle(page);
  assert.match(await stateText(page, "broker-b"), /● up/);
  // NameServer crash and restart.
  await page.keyboard.press("k");
  await page.fill("[data-testid=fault-palette-input]", "kill NS-2");
  await page.keyboard.press("Enter");
  await settle(page);
  assert.match(await stateText(page, "NS-2"), /■ down/);
  await page.keyboard.press("k");
  await page.fill("[data-testid=fault-palette-input]", "restart NS-2");
  await page.keyboard.press("Enter");
  await settle(page);
  assert.match(await stateText(page, "NS-2"), /● up/);
  // Drop and delay one message.
  await seek(page, 41000);
  const flight = page.locator("[data-msg-type=REGISTER_BROKER][data-to=NS-2]").first();
  const id = await flight.getAttribute("data-flight-id");
  await flight.focus();
  await page.keyboard.press("Enter");
  await page.click("[data-testid=action-drop]");
  await settle(page);
  assert.equal(await page.locator(`[data-flight-id="${id}"]`).count(), 0, "dropped");
  const faults = await page.evaluate(() => window.__rmqsim.views().then((v) => v.faults.map((f) => f.action)));
  assert.ok(faults.includes(`drop ${id}`));
  await page.context().close();
  // Touch: tapping a node opens its action sheet.
  const phone = await b.page({ viewport: PHONE, context: { isMobile: true, hasTouch: true } });
  await seek(phone, 30000);
  await phone.tap("[data-testid=node-broker-b]");
  await phone.locator("[data-testid=node-sheet]").waitFor();
  await shot(phone, "T15-node-sheet-phone");
  await phone.tap("[data-testid=action-kill_broker-b]");
  await settle(phone);
  assert.match(await stateText(phone, "broker-b"), /■ down/);
  await phone.context().close();
  // URL script: a scenario with scripted faults in the share link.
  const script =
    "profile 4.9;idle on;latency 2 1;autocreate on;nameserver NS-1 start 0;nameserver NS-2 start 3;broker broker-a group broker-a id 0 start 1;broker broker-b group broker-b id 0 start 2;topic TopicTest queues 4 on broker-a broker-b;producer P1 ns NS-1 start 4 topic TopicTest every 1;at 20 poweroff broker-b;at 25 cut broker-a NS-2;at 30 reset broker-a NS-1";
  const url = await b.page({ hash: `#v=1&seed=7&sc=${toBase64Url(script)}&t=31000` });
  assert.equal(await simTime(url), 31000);
  assert.match(await stateText(url, "broker-b"), /⊘ off/);
  const links = await url.evaluate(() => window.__rmqsim.views().then((v) => v.links));
  assert.deepEqual(links.map((l) => l.state).sort(), ["cut", "reset"]);
  await url.context().close();
});

test("T24 keyboard", async () => {
  const page = await b.page();
  // From the top of the page (the skip link is its first stop).
  await page.focus(".skip");
  // Every control is reachable by Tab and shows a focus ring.
  const seen = new Set();
  for (let i = 0; i < 120; i++) {
    await page.keyboard.press("Tab");
    const info = await page.evaluate(() => {
      const el = document.activeElement;
      const cs = getComputedStyle(el);
      const ring = cs.outlineStyle !== "none" && parseFloat(cs.outlineWidth) >= 2;
      const svgRing = el instanceof SVGElement && getComputedStyle(el.querySelector(".box, .hit") || el).strokeWidth;
      return {
        id: el.dataset.testid || el.id || `${el.tagName}.${el.className}`,
        ring,
        svg: el instanceof SVGElement,
        svgRing,
      };
    });
    if (info.id === "BODY.") break; // past the last control
    if (info.id) seen.add(info.id);
    assert.ok(info.ring || (info.svg && parseFloat(info.svgRing) >= 4), `visible focus on ${info.id}`);
  }
  for (const id of [
    "play",
    "step",
    "step-back",
    "scrubber",
    "fork",
    "fault-palette-open",
    "copy-link",
    "speed-60",
    "menu",
    "lesson-select",
    "glossary-open",
    "layout-toggle",
    "node-NS-1",
    "node-broker-b",
  ]) {
    assert.ok(seen.has(id), `${id} reachable by Tab`);
  }
  // The menu's own actions: Enter on Menu, then Tab.
  await page.focus("[data-testid=menu]");
  await page.keyboard.press("Enter");
  const inMenu = new Set();
  for (let i = 0; i < 10; i++) {
    await page.keyboard.press("Tab");
    inMenu.add(await page.evaluate(() => document.activeElement.dataset.testid));
  }
  for (const id of ["table-view-toggle", "about-open", "help-open", "live-toggle", "quiz-open", "export"])
    assert.ok(inMenu.has(id), `${id} reachable in the menu`);
  await page.keyboard.press("Escape");
  await blur(page);
  await page.keyboard.press("?");
  assert.ok(await page.locator("[data-testid=help]").isVisible(), "? opens the shortcut sheet");
  assert.match(await page.textContent("[data-testid=help]"), /Fault palette/);
  await page.keyboard.press("Escape");
  await page.keyboard.press("3");
  assert.equal(await page.evaluate(() => document.activeElement.dataset.node), "broker-a");
  assert.equal(await page.getAttribute("[data-testid=node-broker-a]", "data-selected"), "true");
  await page.keyboard.press("Enter");
  assert.ok(await page.locator("[data-testid=node-sheet]").isVisible(), "Enter opens the node's actions");
  await page.keyboard.press("Escape");
  await blur(page);
  await page.keyboard.press("l");
  assert.ok(
    await page.evaluate(() => document.activeElement.closest("[data-testid=log]") !== null),
    "l focuses the log",
  );
  await blur(page);
  await page.keyboard.press("k");
  assert.ok(await page.locator("[data-testid=fault-palette]").isVisible());
  await page.keyboard.press("Escape");
  // Nothing needs a right-click, hover or drag: no context-menu handlers, no title-only actions.
  const ctx = await page.evaluate(() => [...document.querySelectorAll("*")].filter((e) => e.oncontextmenu).length);
  assert.equal(ctx, 0);
  await page.context().close();
});

// axe-core is injected as an inline script, which the page's Content-Security-Policy refuses:
// the audits run with the policy bypassed (hostile.test.mjs checks the policy itself).
const AUDIT = { context: { bypassCSP: true } };

test("T25 screen reader", async () => {
  const page = await b.page(AUDIT);
  await seek(page, 60000);
  const scan = async () => {
    await page.addScriptTag({ content: AXE });
    const r = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
    return r.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id}: ${v.nodes.length}`);
  };
  assert.deepEqual(await scan(), []);
  // Table view: the whole state as tables.
  await clickInHeader(page, "table-view-toggle");
  const tv = page.locator("[data-testid=table-view]");
  assert.ok(await tv.isVisible());
  const heads = await tv.locator("h3").allTextContents();
  for (const h of ["Nodes", "Timers"]) assert.ok(heads.includes(h), h);
  assert.ok(heads.some((h) => h.startsWith("Messages in flight")));
  assert.ok((await tv.locator("h4").count()) >= 4, "routes per NameServer and client");
  assert.deepEqual(await scan(), []);
  await clickInHeader(page, "table-view-toggle");
  // The live region: polite, and at 600× at most one announcement per 2 s.
  assert.equal(await page.getAttribute("[data-testid=announcer]", "aria-live"), "polite");
  await page.selectOption("[data-testid=scenario-select]", "S5");
  await settle(page);
  await page.evaluate(() => {
    window.__announce = [];
    new MutationObserver(() => window.__announce.push(performance.now())).observe(
      document.querySelector("[data-testid=announcer]"),
      { childList: true, characterData: true, subtree: true },
    );
  });
  await page.click("[data-testid=speed-600]");
  await page.click("[data-testid=play]");
  await page.waitForTimeout(6500);
  await page.click("[data-testid=play]");
  const times = await page.evaluate(() => window.__announce);
  assert.ok(times.length >= 1, "key events announced");
  for (let i = 1; i < times.length; i++)
    assert.ok(times[i] - times[i - 1] >= 1990, `gap ${times[i] - times[i - 1]} ms`);
  await page.context().close();
});

test("T26 reduced motion", async () => {
  const page = await b.page({ context: { reducedMotion: "reduce" } });
  // A message that takes 2 ms or more on the wire (the package in Node says which).
  const oracle = Simulation.builtIn("S1");
  oracle.seek(11000);
  const f = oracle.view().flights.find((x) => x.arriveAt - x.sentAt >= 2 && x.sentAt === 11000);
  oracle.free();
  await seek(page, 11000);
  const prog = () => page.locator(`.flight-text[data-for="${f.id}"] .progress-label`).textContent();
  const arrives = `arrives ${(f.arriveAt / 1000).toFixed(3)} s`;
  assert.equal(await prog(), `0% → ${arrives}`);
  await seek(page, 11001);
  assert.equal(await prog(), `${Math.round((100 * 1) / (f.arriveAt - f.sentAt))}% → ${arrives}`);
  assert.equal(await page.locator(`[data-flight-id="${f.id}"]`).getAttribute("data-arrow"), "true");
  await shot(page, "T26-reduced-motion-desktop");
  // Highlighting a node would pulse; with reduced motion nothing animates, even while playing.
  await page.click("[data-testid=play]");
  await page.waitForTimeout(800);
  const running = await page.evaluate(() => {
    const anims = document.getAnimations().filter((a) => a.playState === "running").length;
    const trans = [...document.querySelectorAll("*")].filter(
      (e) => parseFloat(getComputedStyle(e).transitionDuration) > 0,
    ).length;
    return { anims, trans };
  });
  assert.deepEqual(running, { anims: 0, trans: 0 });
  assert.ok(await page.locator("[data-testid=play]").isVisible(), "Pause always visible");
  assert.equal(await page.getAttribute("[data-testid=play]", "aria-pressed"), "true");
  await page.click("[data-testid=play]");
  await page.context().close();
});

test("T27 not colour only", async () => {
  const page = await b.page(AUDIT);
  await seek(page, 30000);
  const inject = async (a) => {
    await blur(page);
    await page.keyboard.press("k");
    await page.fill("[data-testid=fault-palette-input]", a);
    await page.keyboard.press("Enter");
    await settle(page);
  };
  await inject("freeze broker-b");
  await inject("shutdown broker-a-s");
  await inject("poweroff NS-2");
  await inject("cut broker-a NS-1");
  assert.match(await stateText(page, "broker-b"), /^❄ frozen$/);
  assert.match(await stateText(page, "broker-a-s"), /^(◐ stopping|■ down)$/);
  assert.match(await stateText(page, "NS-2"), /^⊘ off$/);
  // One cut link is one of the node's links, not the whole node cut off.
  const drawn = (name) =>
    page
      .locator("#diagram line.link")
      .evaluateAll((ls, n) => ls.filter((l) => l.dataset.link.split("|").includes(n)).length, name);
  const brokerLinks = await drawn("broker-a");
  const nsLinks = await drawn("NS-1");
  assert.ok(brokerLinks > 1 && nsLinks > 1, `${brokerLinks} ${nsLinks}`);
  // In the box, "1 of 4 links cut" or, short of room, "1/4 cut"; the full words in its name.
  const cutWords = (n) => new RegExp(`^✂ 1( of |/)${n}( links)? cut$`);
  assert.match(await stateText(page, "broker-a"), cutWords(brokerLinks));
  assert.match(await stateText(page, "NS-1"), cutWords(nsLinks));
  assert.match(
    await page.getAttribute("[data-testid=node-broker-a]", "aria-label"),
    new RegExp(`✂ 1 of ${brokerLinks} links cut`),
  );
  // The full words are the node's accessible name.
  assert.match(await page.getAttribute("[data-testid=node-broker-b]", "aria-label"), /frozen \(hung\)/);
  await seek(page, 40000);
  assert.match(await stateText(page, "broker-a-s"), /^■ down$/);
  // Link states carry a word too, and the STALE badge carries ⚠ and text.
  assert.ok((await page.locator("#diagram .link-label").allTextContents()).some((x) => /✂ cut/.test(x)));
  await page.addScriptTag({ content: AXE });
  const r = await page.evaluate(() => window.axe.run(document, { runOnly: ["color-contrast"] }));
  assert.deepEqual(
    r.violations.map((v) => v.id),
    [],
  );
  await shot(page, "T27-states-desktop");
  await page.context().close();
});

for (const [size, viewport] of [
  ["360", SMALL_PHONE],
  ["390", PHONE],
])
  test(`T28 mobile (${size} px wide)`, async () => {
    const page = await b.page({ viewport, context: { isMobile: true, hasTouch: true } });
    await seek(page, 60000);
    const check = async () => {
      const r = await page.evaluate(() => {
        const overflow = document.documentElement.scrollWidth - window.innerWidth;
        const small = [];
        for (const el of document.querySelectorAll("button, select, input, a, [role=button]")) {
          if (el.closest("dialog:not([open])") || el.closest("[hidden]")) continue;
          // Glossary words inside a sentence are inline targets (WCAG 2.5.8's inline exception).
          if (el.classList.contains("term")) continue;
          const r = el.getBoundingClientRect();
          if (r.width === 0 && r.height === 0) continue;
          if (el.type === "file" || el.type === "radio") continue;
          if (r.width < 44 || r.height < 44)
            small.push(`${el.dataset.testid || el.id || el.tagName}:${Math.round(r.width)}x${Math.round(r.height)}`);
        }
        return { overflow, small };
      });
      assert.ok(r.overflow <= 0, `horizontal scroll ${r.overflow}px`);
      assert.deepEqual(r.small, []);
    };
    await check();
    // The diagram is drawn at 1:1: its viewBox is its own size in CSS pixels.
    const vb = await page.evaluate(() => {
      const svg = document.querySelector("[data-testid=diagram]");
      return { box: svg.viewBox.baseVal.width, css: svg.getBoundingClientRect().width };
    });
    assert.ok(Math.abs(vb.box - vb.css) <= 2, `viewBox ${vb.box} vs ${vb.css} CSS px`);
    const stage = await page.locator("#stage").boundingBox();
    const views = await page.locator("#views").boundingBox();
    assert.equal(Math.round(stage.x), Math.round(views.x), "panels stack");
    assert.ok(views.y > stage.y);
    // The controls too, in the full dashboard as well: beside the diagram they squeeze it.
    const faults = await page.locator("#btn-faults").boundingBox();
    assert.ok(faults.y >= stage.y + stage.height - 1, `controls at y ${faults.y}, beside the diagram`);
    await shot(page, `T28-phone-${size}-top`);
    await page.locator("#views").scrollIntoViewIfNeeded();
    await shot(page, `T28-phone-${size}-views`);
    await page.tap("[data-testid=node-NS-1]");
    assert.ok(await page.locator("[data-testid=node-sheet]").isVisible(), "tap opens the action sheet");
    await check();
    await shot(page, `T28-phone-${size}-sheet`);
    await page.context().close();
    // A lesson on the phone: its own controls are full-size targets too.
    const lesson = await b.page({ viewport, fresh: true, context: { isMobile: true, hasTouch: true } });
    await lesson.click("[data-testid=lesson-continue]");
    await lesson.waitForFunction(() => window.__rmqsim.lesson().step === 1);
    const small = await lesson.evaluate(
      () =>
        [...document.querySelectorAll("[data-testid=lesson] button")]
          .filter((b) => !b.classList.contains("term") && b.offsetParent)
          .map((b) => b.getBoundingClientRect())
          .filter((r) => r.width < 44 || r.height < 44).length,
    );
    assert.equal(small, 0, "lesson controls are 44 px targets");
    await lesson.context().close();
  });
