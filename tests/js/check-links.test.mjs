// scripts/check-links.mjs against small fixture trees: what it accepts and each kind of
// dangling reference it must report. Section signs are written as \u00a7 and outside paths
// are built from parts, so that this file itself stays clean for the real check.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { check, slug } from "../../scripts/check-links.mjs";

const S = "\u00a7";
const SPEC = "PROTOCOL" + ".md";
const LESSONS = "TEACHING" + ".md";
const NOTES = "SPEC-NOTES" + ".md";

function tree(files) {
  const root = mkdtempSync(join(tmpdir(), "check-links-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function problems(files) {
  const root = tree(files);
  try {
    return check(root).problems;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const DOCS = {
  [`docs/${SPEC}`]: `# Spec\n\n## 1. Transport\n\n### 1.4 Worked example\n\n## 2. Headers\n\nSee ${S}1.4.\n\n\`\`\`\n## 9. not a heading (code)\n\`\`\`\n`,
  [`docs/${LESSONS}`]: `# Lessons\n\n## (c) Scenarios\n\n### S1 — Who talks to whom\n`,
};

test("a clean tree passes: citations, chains, bare sections, links and anchors", () => {
  const found = problems({
    ...DOCS,
    "README.md": `[spec](docs/${SPEC}#1-transport), [S1](docs/${LESSONS}#s1--who-talks-to-whom), [site](https://example.org/x.md)\n`,
    "src/codec.rs": `//! The codec (${SPEC} ${S}1–${S}2), example ${S}1.4 below.\n// ${SPEC} ${S}1.4, ${S}2 and ${LESSONS} ${S}c.\n`,
  });
  assert.deepEqual(found, []);
});

test("each kind of dangling reference is reported with its file and line", () => {
  const outside = ["/wo", "rk/", "notes"].join("");
  const found = problems({
    ...DOCS,
    "README.md": [
      `[gone](docs/gone.md)`,
      `[anchor](docs/${SPEC}#3-nothing-here)`,
      `[escape](../elsewhere.md)`,
      `See ${outside} for details.`,
      "```",
      `[in code](docs/also-gone.md)`,
      "```",
    ].join("\n"),
    "src/a.rs": `// ${SPEC} ${S}1.5\n// ${SPEC} ${S}1–${S}3\n// ${LESSONS} ${S}z\n// ${NOTES} explains\n`,
    "src/b.rs": `// no document named here: ${S}1\n`,
  });
  const expected = [
    "README.md:1: link docs/gone.md: docs/gone.md does not exist",
    `README.md:2: link docs/${SPEC}#3-nothing-here: no heading with anchor #3-nothing-here`,
    "README.md:3: link ../elsewhere.md leaves the repository",
    `README.md:4: points outside the repository (\`${outside.slice(0, 6)}\`)`,
    `src/a.rs:1: docs/${SPEC} has no section ${S}1.5`,
    `src/a.rs:2: docs/${SPEC} has no section ${S}3`,
    `src/a.rs:3: docs/${LESSONS} has no section ${S}z`,
    `src/a.rs:4: ${NOTES} is not in the repository`,
    `src/b.rs:1: ${S}1 names no document`,
  ];
  assert.deepEqual([...found].sort(), [...expected].sort());
});

test("a citation of a document missing from the tree is reported", () => {
  const found = problems({ "src/a.rs": `// ${SPEC} ${S}1\n` });
  assert.ok(found.includes(`src/a.rs:1: ${SPEC} is not in the repository`), found.join("\n"));
  assert.ok(found.includes(`src/a.rs:1: cites ${SPEC}, which is not in the repository`), found.join("\n"));
});

test("anchors follow GitHub's slugs", () => {
  assert.equal(slug("1.4 Worked example"), "14-worked-example");
  assert.equal(
    slug("S3 — A graceful shutdown unregisters at once, but clients lag"),
    "s3--a-graceful-shutdown-unregisters-at-once-but-clients-lag",
  );
  assert.equal(slug("`kvConfig.json` and the KV table"), "kvconfigjson-and-the-kv-table");
});

test("the repository itself has no dangling reference", () => {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
  assert.deepEqual(check(root).problems, []);
});
