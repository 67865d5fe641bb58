// S5's account of broker-b's removal (issue 34): it names the rule that fired (the idle close,
// or with it off the scan's expiry) and quotes the rule card's numbers, the removal line's
// operands, never a time read elsewhere (it once gave broker-b's 72.006 s, when its
// registration was answered, beside the card's 72.003 s, when NS-1 took it; and spoke of a
// silent connection when the scan had removed it). Run on the model, in both languages.
import { test } from "node:test";
import assert from "node:assert/strict";

import { Simulation } from "rocketmq-nameserver";
import { setLanguage, pick } from "../../../www/app/i18n.js";
import { ruleCard } from "../../../www/panels/rule-card.js";
import S5 from "../../../www/lessons/s5.js";

const B = "10.0.1.3:10911";
const step = S5.find((s) => s.gate && s.gate.kinds.includes("unregistered"));

// NS-1's removal of broker-b in scenario `id`, and what the step's account and grade read.
function removal(id) {
  const sim = Simulation.builtIn(id);
  try {
    sim.seek(220_000);
    const v = sim.view(null);
    const trace = v.delta.trace;
    const line = trace.find((l) => l.node === "NS-1" && l.kind === "unregistered" && l.text.includes(B));
    return { line, trace: trace.filter((l) => l.at <= line.at), nodes: v.nodes, model: sim.scenarioView() };
  } finally {
    sim.free();
  }
}

const strip = (html) => html.replace(/<[^>]+>/g, "").replace(/&lt;/g, "<");

for (const [id, rule, told, untold] of [
  ["S5", "idle-close", { en: /idle close/, zh: /空闲关闭/ }, { en: /scan/, zh: /扫描/ }],
  ["S5-scan-only", "expired", { en: /\[\[scan\]\]/, zh: /扫描/ }, { en: /silent|idle close/, zh: /静默|空闲关闭/ }],
]) {
  test(`${id}: the account of the removal is the rule card's (${rule})`, () => {
    const { line, trace, nodes, model } = removal(id);
    assert.equal(line.operands.rule, rule);
    for (const lang of ["en", "zh"]) {
      setLanguage(lang);
      const card = ruleCard(line, nodes);
      const numbers = [...card.body.matchAll(/<b data-op="(\w+)" data-ms="[^"]*">([^<]*)<\/b>/g)].map((m) => m[2]);
      const text = pick(step.after(line, {}, trace, model));
      // Every time of day it quotes is one of the card's (durations since the freeze aside).
      for (const time of text.match(/\d+\.\d{3} s/g) || [])
        assert.ok(numbers.includes(time), `${lang}: ${time} is not on the card (${numbers.join(", ")}): ${text}`);
      const quoted = numbers.filter((n) => text.includes(n));
      assert.ok(
        quoted.length >= 3,
        `${lang}: the card's numbers quoted: ${quoted.join(", ")} of ${numbers.join(", ")}`,
      );
      assert.match(text, told[lang], `${lang}: names the rule that fired`);
      assert.doesNotMatch(strip(text), untold[lang], `${lang}: not the other rule`);
      // The grade follows the same rule: the removal came 120 s after the last registration.
      assert.equal(step.ask.grade(line, {}, trace, model), step.ask.answer, `${lang}: graded ${step.ask.answer}`);
    }
    setLanguage("en");
  });
}
