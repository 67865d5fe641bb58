// A node's action sheet (issue 34, item 4): not modal, beside its node. For every node at
// 1280×800 and 390×844: the node's box stays uncovered (the rects apart, and the point at the
// box's centre is the diagram's, not the sheet's), at most 6 actions show and More reveals the
// rest, the diagram stays live (another node can be clicked or tapped with the sheet open), focus
// goes into the sheet and Escape brings it back to the node.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, seek, settle, shot, simTime, DESKTOP, PHONE } from "./lib/browser.mjs";

let b;
before(async () => (b = await launch()));
after(() => b.close());

// The open sheet and its node, as drawn.
function measure(page, node) {
  return page.evaluate((name) => {
    const sheet = document.querySelector("[data-testid=node-sheet]");
    const s = sheet.getBoundingClientRect();
    const box = document.querySelector(`[data-node="${name}"] .box`).getBoundingClientRect();
    const at = document.elementFromPoint((box.left + box.right) / 2, (box.top + box.bottom) / 2);
    // (A closed <details> keeps its content laid out, unrendered: checkVisibility tells.)
    const shown = (el) => el.checkVisibility();
    const actions = [...sheet.querySelectorAll("button[data-action]")];
    return {
      open: sheet.open,
      modal: sheet.matches(":modal"),
      title: document.querySelector("#sheet-title").textContent,
      side: sheet.dataset.side,
      sheet: { left: s.left, right: s.right, top: s.top, bottom: s.bottom },
      box: { left: box.left, right: box.right, top: box.top, bottom: box.bottom },
      centre: at
        ? at.closest("[data-testid=node-sheet]")
          ? "sheet"
          : at.closest("svg")
            ? "diagram"
            : at.tagName
        : null,
      viewport: { w: document.documentElement.clientWidth, h: document.documentElement.clientHeight },
      shown: actions.filter(shown).length,
      total: actions.length,
      focusInSheet: sheet.contains(document.activeElement),
    };
  }, node);
}

// Waits for the focus to be on `node`'s box, and says where it is if it never comes.
async function focusOn(page, node) {
  await page
    .waitForFunction((name) => document.activeElement?.dataset.node === name, node, { timeout: 10000 })
    .catch(async () => {
      const at = await page.evaluate(() => document.activeElement?.dataset.node ?? document.activeElement?.tagName);
      assert.fail(`focus back on ${node}: it is on ${at}`);
    });
}

function checkBeside(m, node, what) {
  const { sheet: s, box, viewport } = m;
  assert.ok(m.open && !m.modal, `${what}: open, not modal`);
  assert.ok(m.title.startsWith(`${node} `), `${what}: its sheet (${m.title})`);
  const over = s.left < box.right && box.left < s.right && s.top < box.bottom && box.top < s.bottom;
  assert.ok(!over, `${what}: the sheet (${m.side}) is clear of ${node}'s box ${JSON.stringify(m)}`);
  assert.equal(m.centre, "diagram", `${what}: the point at the box's centre is the diagram's`);
  assert.ok(
    box.top >= 0 && box.bottom <= viewport.h && box.left >= 0 && box.right <= viewport.w,
    `${what}: node on screen`,
  );
  assert.ok(
    s.left >= 0 && s.right <= viewport.w + 0.5 && s.top >= 0 && s.bottom <= viewport.h + 0.5,
    `${what}: sheet on screen`,
  );
  assert.ok(m.shown <= 6, `${what}: ${m.shown} actions shown`);
}

for (const [size, viewport] of [
  ["desktop", DESKTOP],
  ["phone", PHONE],
]) {
  test(`a node's action sheet is beside its node, not modal (${size})`, async () => {
    const phone = size === "phone";
    const page = await b.page({
      viewport,
      dashboard: false,
      context: phone ? { isMobile: true, hasTouch: true } : {},
    });
    await seek(page, 30000);
    const press = (sel) => (phone ? page.tap(sel) : page.click(sel));
    const nodes = await page.$$eval("[data-testid=diagram] g.node", (els) => els.map((e) => e.dataset.node));
    assert.ok(nodes.length >= 5, nodes.join());
    let more = 0;
    let live = 0;
    for (const node of nodes) {
      // Clicked (or tapped) while the previous node's sheet is still open, the diagram is live;
      // (a sheet may cover other nodes than its own: then it is closed first).
      const covered = await page.evaluate((name) => {
        const box = document.querySelector(`[data-node="${name}"] .box`).getBoundingClientRect();
        const at = document.elementFromPoint((box.left + box.right) / 2, (box.top + box.bottom) / 2);
        return !!(at && at.closest("[data-testid=node-sheet]"));
      }, node);
      if (covered) await press("[data-testid=sheet-close]");
      else if (await page.locator("[data-testid=node-sheet]").isVisible()) live++;
      await press(`[data-testid=node-${node}]`);
      const m = await measure(page, node);
      checkBeside(m, node, `${size} ${node}`);
      assert.ok(m.focusInSheet, `${node}: focus goes into the sheet`);
      if (m.total > 6) {
        more++;
        assert.equal(m.shown, 6, `${node}: six shown of ${m.total}`);
        await press("[data-testid=sheet-more]");
        assert.equal((await measure(page, node)).shown, m.total, `${node}: More shows the rest`);
      } else assert.equal(m.shown, m.total);
      await shot(page, `node-sheet-${node}-${size}`);
    }
    assert.ok(more >= 1, "some node has more than six actions");
    assert.ok(live >= 1, "a node clicked with another's sheet open");
    // Escape closes it and gives the focus back to the node.
    const last = nodes[nodes.length - 1];
    await page.keyboard.press("Escape");
    assert.equal(await page.locator("[data-testid=node-sheet]").isVisible(), false, "Escape closes");
    // (The dialog's close event, which gives the focus back, comes as a task of its own.)
    await focusOn(page, last);
    // From the keyboard: Enter on the focused node opens it with focus inside; an action from
    // More runs, closes the sheet and leaves the focus on the node.
    await page.locator("[data-testid=node-NS-1]").focus();
    await page.keyboard.press("Enter");
    const m = await measure(page, "NS-1");
    checkBeside(m, "NS-1", `${size} NS-1 by keyboard`);
    assert.ok(m.focusInSheet, "Enter puts the focus in the sheet");
    await page.locator("[data-testid=sheet-more]").focus();
    await page.keyboard.press("Enter");
    const hidden = page.locator("[data-testid=node-sheet] .more-actions button[data-action^=cut]").first();
    const action = await hidden.getAttribute("data-action");
    await hidden.focus();
    await page.keyboard.press("Enter");
    await settle(page);
    assert.equal(await page.locator("[data-testid=node-sheet]").isVisible(), false, "the action closes it");
    const faults = await page.evaluate(() => window.__rmqsim.views().then((v) => v.faults.map((f) => f.action)));
    assert.ok(faults.includes(action), `${action} in ${faults}`);
    await focusOn(page, "NS-1");
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
}

// The sheet's words (state, timers, the ages in a NameServer's table) follow the clock while it
// runs with the sheet open, and say, paused, what a sheet opened then says (issue 34: they once
// stayed as they were when it opened).
for (const [size, viewport] of [
  ["desktop", DESKTOP],
  ["phone", PHONE],
]) {
  test(`a node's sheet keeps up with the clock (${size})`, async () => {
    const phone = size === "phone";
    const page = await b.page({ viewport, dashboard: false, context: phone ? { isMobile: true, hasTouch: true } : {} });
    await seek(page, 30000);
    const press = (sel) => (phone ? page.tap(sel) : page.click(sel));
    const words = () => page.evaluate(() => document.querySelector("#sheet-body").textContent);
    await press("[data-testid=node-NS-1]");
    const opened = await words();
    assert.match(opened, /brokerLiveTable: .*age /, opened);
    // Play with the sheet open (the play button, as a learner reaches it, may lie under it).
    await page.evaluate(() => document.querySelector("[data-testid=play]").click());
    await page.waitForFunction(
      (was) =>
        Number(document.querySelector("[data-testid=clock]").dataset.simMs) >= 40000 &&
        document.querySelector("#sheet-body").textContent !== was,
      opened,
      { timeout: 60000 },
    );
    await page.evaluate(() => document.querySelector("[data-testid=play]").click());
    await page.waitForFunction(() => !window.__rmqsim.playing());
    await settle(page);
    assert.ok(await page.locator("[data-testid=node-sheet]").isVisible(), "the sheet stayed open");
    const ran = await words();
    assert.notEqual(ran, opened, "the words changed with the clock");
    await shot(page, `node-sheet-NS-1-ran-${size}`);
    // Opened again on the paused clock: the same words.
    await press("[data-testid=sheet-close]");
    await press("[data-testid=node-NS-1]");
    assert.equal(await words(), ran, `the running sheet said what a fresh one says at ${await simTime(page)} ms`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
}
