// The opening chapter shows a thing with the step that explains it (issue 34): at its first
// step, whose sentence names the nodes and their roles, no broker address, no clock and no
// table is seen, at desktop and phone size; each comes at the step that names it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, shot, PHONE, DESKTOP } from "./lib/browser.mjs";
import { lesson, startLesson, reachGate, next } from "./lib/lesson-steps.mjs";

let b;
before(async () => (b = await launch()));
after(() => b.close());

// What a learner can see, by kind: addresses (IPv4 in any text), clocks (the diagram's clock
// rows by timer kind, the scan countdown, the panels' clock bars) and tables. Seen: visible
// (not hidden, transparent or display:none up the tree) and of non-zero size; `onScreen` lists
// those also inside the viewport.
function seen(page) {
  return page.evaluate(() => {
    const vw = innerWidth;
    const vh = innerHeight;
    const out = { addresses: [], clocks: [], tables: [], onScreen: [] };
    const add = (kind, what, el, r) => {
      const visible = el.checkVisibility({ opacityProperty: true, visibilityProperty: true });
      if (!visible || r.width === 0 || r.height === 0) return;
      if (!out[kind].includes(what)) out[kind].push(what);
      if (r.right > 0 && r.bottom > 0 && r.left < vw && r.top < vh) out.onScreen.push(`${kind} ${what}`);
    };
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const m = /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/.exec(n.textContent);
      if (!m || !n.parentElement) continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      add("addresses", m[0], n.parentElement, range.getBoundingClientRect());
    }
    for (const el of document.querySelectorAll("#diagram text.sub"))
      if (/\bscan in\b/.test(el.textContent)) add("clocks", "scan", el, el.getBoundingClientRect());
    for (const el of document.querySelectorAll("#diagram [data-clock]"))
      add(
        "clocks",
        el.dataset.clock.startsWith("remove:") ? "removal" : el.dataset.clock,
        el,
        el.getBoundingClientRect(),
      );
    for (const el of document.querySelectorAll("main .bar")) add("clocks", "bar", el, el.getBoundingClientRect());
    for (const el of document.querySelectorAll("table"))
      add("tables", el.caption ? el.caption.textContent : el.className, el, el.getBoundingClientRect());
    return out;
  });
}

for (const [size, viewport] of [
  ["desktop", DESKTOP],
  ["phone", PHONE],
]) {
  test(`intro: no address, clock or table before the step that explains it (${size})`, async () => {
    const page = await b.page({
      viewport,
      dashboard: false,
      context: size === "phone" ? { isMobile: true, hasTouch: true } : {},
    });
    await startLesson(page, "intro");
    const first = {};
    const note = (step, s) => {
      for (const kind of ["addresses", "tables"]) if (s[kind].length && first[kind] === undefined) first[kind] = step;
      for (const c of s.clocks) if (first[`clock ${c}`] === undefined) first[`clock ${c}`] = step;
    };
    for (let guard = 0; guard < 20; guard++) {
      const l = await lesson(page);
      const s = await seen(page);
      if (l.step === 0) {
        await shot(page, `intro-step1-reveal-${size}`);
        assert.deepEqual(
          { addresses: s.addresses, clocks: s.clocks, tables: s.tables, onScreen: s.onScreen },
          { addresses: [], clocks: [], tables: [], onScreen: [] },
          "intro step 1 shows the nodes and their roles only",
        );
      }
      note(l.step, s);
      if (l.waiting || l.asking) {
        await reachGate(page);
        note(l.step, await seen(page));
      }
      if ((await lesson(page)).step === l.steps - 1) break;
      await next(page);
    }
    // Steps by index: 1 asks for the route (a table of brokers, addresses, queues), 4 has the
    // brokers register (their clocks, and the NameServers' removal clocks), 6 shows the rest.
    assert.equal(first.addresses, 1, "addresses with the route");
    assert.equal(first.tables, 1, "tables with the route");
    assert.equal(first["clock register"], 4, "registration clocks with registration");
    assert.equal(first["clock removal"], 4, "removal clocks with registration");
    assert.equal(first["clock route-poll"], 6, "route-poll clocks at the end");
    // A phone's NameServer box has no room for the scan line.
    if (size === "desktop") assert.equal(first["clock scan"], 6, "scan countdowns at the end");
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
}
