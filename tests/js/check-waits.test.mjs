// scripts/check-waits.mjs against small fixture trees: an added sleep fails, an allowed one
// passes, a stale entry fails. The waits are built from parts, so that this file itself
// stays clean for the real check.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { check } from "../../scripts/check-waits.mjs";

const SLEEP = ["std::thread::sl", "eep(Duration::from_millis(50));"].join("");
const WAIT_FOR = ["await page.waitFor", "Timeout(1000);"].join("");
const SHELL = ["  sl", "eep 0.1"].join("");
const TIMER = ["await new Promise((ok) => setTime", "out(ok, 300));"].join("");
const BOUND = ["assert!(started.ela", "psed() < Duration::from_secs(2));"].join("");
const GUARD = ["assert!(started.ela", "psed() < PATIENCE);"].join("");

function problems(files) {
  const root = mkdtempSync(join(tmpdir(), "check-waits-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return check(root).problems;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const TEST_SH = "#!/usr/bin/env bash\nscripts/test-browser.sh\nnode scripts/helper.mjs\n";

test("a tree whose tests wait on events passes", () => {
  const found = problems({
    "scripts/test.sh": TEST_SH,
    "scripts/test-browser.sh": "#!/usr/bin/env bash\nnode --test tests/browser/\n",
    "crate/tests/it.rs": `fn t() {\n    ${GUARD}\n    // a comment may say ${SLEEP} or ${SHELL.trim()}\n}\n`,
    "tests/browser/a.test.mjs": "await page.waitForFunction(() => ready, null, { timeout: PATIENCE });\n",
  });
  assert.deepEqual(found, []);
});

test("an added sleep fails, whatever its kind, in test code and in the scripts the test command runs", () => {
  const found = problems({
    "scripts/test.sh": TEST_SH,
    "scripts/test-browser.sh": `#!/usr/bin/env bash\nfor _ in 1 2; do\n${SHELL}\ndone\n`,
    "scripts/helper.mjs": `${TIMER}\n`,
    "scripts/unused.sh": `${SHELL}\n`,
    "crate/tests/it.rs": `fn t() {\n    ${SLEEP}\n    ${BOUND}\n}\n`,
    "tests/browser/a.test.mjs": `${WAIT_FOR}\n`,
  });
  assert.equal(found.length, 5, found.join("\n"));
  assert.match(found.join("\n"), /crate\/tests\/it\.rs:2: a sleep/);
  assert.match(found.join("\n"), /crate\/tests\/it\.rs:3: a wall-clock upper bound/);
  assert.match(found.join("\n"), /scripts\/test-browser\.sh:3: a shell sleep/);
  assert.match(found.join("\n"), /scripts\/helper\.mjs:1: a setTimeout delay/);
  assert.match(found.join("\n"), /tests\/browser\/a\.test\.mjs:1: waitForTimeout/);
  assert.doesNotMatch(found.join("\n"), /unused\.sh/, "a script the test command does not run");
});

test("an allowed sleep passes; an unknown reason fails", () => {
  const files = {
    "scripts/test.sh": TEST_SH,
    "scripts/test-browser.sh": `#!/usr/bin/env bash\n${SHELL}\n`,
    "tests/browser/a.test.mjs": `${WAIT_FOR}\n`,
    "tests/waits-allowed.txt": `# comment\nscripts/test-browser.sh | poll | ${SHELL.trim()}\ntests/browser/a.test.mjs | absence | ${WAIT_FOR}\n`,
  };
  assert.deepEqual(problems(files), []);
  files["tests/waits-allowed.txt"] =
    `tests/browser/a.test.mjs | because | ${WAIT_FOR}\nscripts/test-browser.sh | poll | ${SHELL.trim()}\n`;
  const found = problems(files);
  assert.equal(found.length, 2, found.join("\n"));
  assert.match(found[0], /reason "because" is not one of poll, absence, pacing/);
  assert.match(found[1], /a\.test\.mjs:1: waitForTimeout/);
});

test("a stale entry fails: its line is gone, or no longer waits", () => {
  const found = problems({
    "scripts/test.sh": TEST_SH,
    "tests/browser/a.test.mjs": "await page.waitForFunction(() => ready);\n",
    "tests/waits-allowed.txt": `tests/browser/a.test.mjs | absence | ${WAIT_FOR}\ntests/browser/a.test.mjs | poll | await page.waitForFunction(() => ready);\n`,
  });
  assert.equal(found.length, 2, found.join("\n"));
  assert.match(found[0], /waits-allowed\.txt:1: no such line in tests\/browser\/a\.test\.mjs/);
  assert.match(found[1], /waits-allowed\.txt:2: no wait to allow on this line of tests\/browser\/a\.test\.mjs/);
});
