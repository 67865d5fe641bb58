// What a lesson step lets the page show (www/lessons/common.js `revealed`, issue 34): the
// opening chapter starts with the nodes alone and adds addresses, tables and clocks with the
// steps that explain them; lessons that say nothing show everything, as free play does.
import { test } from "node:test";
import assert from "node:assert/strict";

import { revealed, shows } from "../../../www/lessons/common.js";
import { LESSONS } from "../../../www/lessons/index.js";

// The words the page acts on: NodeFace (addresses, clocks by timer kind) and PageView (tables).
const KNOWN = ["addresses", "tables", "register", "removal", "route-poll", "scan"];

test("the opening chapter reveals addresses, tables and clocks step by step", () => {
  const steps = LESSONS.intro;
  const at = steps.map((_, i) => revealed(steps, i));
  assert.deepEqual(at[0], [], "step 1: the nodes and their roles only");
  assert.deepEqual(at[1], ["addresses", "tables"], "the route: a table of brokers and addresses");
  assert.deepEqual(at[4], ["addresses", "tables", "register", "removal"], "registration and its clocks");
  assert.equal(at[steps.length - 1], null, "the last step shows everything");
  for (const what of KNOWN) assert.ok(!shows(at[0], what), `step 1 hides ${what}`);
  for (const s of steps)
    for (const what of Array.isArray(s.reveal) ? s.reveal : [])
      assert.ok(KNOWN.includes(what), `a word the page knows: ${what}`);
});

test("a lesson without reveal, and free play, show everything", () => {
  for (const [id, steps] of Object.entries(LESSONS)) {
    if (id === "intro") continue;
    steps.forEach((_, i) => assert.equal(revealed(steps, i), null, `${id} step ${i + 1}`));
  }
  for (const what of KNOWN) assert.ok(shows(null, what));
});
