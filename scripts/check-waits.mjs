#!/usr/bin/env node
// Fails when a test waits on the clock instead of an event. In test code (every file under a
// `tests/` directory, and the test kit `testkit/`) and in the scripts the test command runs (scripts/test.sh and what it
// names, followed), it reports each line that
//   - sleeps: a sleep call in Rust, Python or JavaScript, or a shell `sleep N`;
//   - waits a fixed time in a browser: Playwright's waitForTimeout;
//   - arms a setTimeout with a delay;
//   - bounds wall time from above: `elapsed() <`, `Instant::now() <`, `Date.now() - x <`;
// unless the line names PATIENCE (the one hang guard; not for sleeps), is a comment, or
// tests/waits-allowed.txt lists it with one of three reasons:
//   poll     a poll interval inside a deadline wait (nothing announces the state);
//   absence  an absence window (nothing may happen for this long);
//   pacing   pacing a load.
// A listed line that is no longer in its file, or no longer needs listing, fails too.
// Usage: node scripts/check-waits.mjs [ROOT]   (default: the repository this script is in)
import { existsSync, readFileSync } from "node:fs";
import { dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { repoFiles } from "./check-links.mjs";

export const ALLOWED = "tests/waits-allowed.txt";
export const REASONS = new Map([
  ["poll", "a poll interval inside a deadline wait"],
  ["absence", "an absence window"],
  ["pacing", "pacing a load"],
]);
const ENTRY = "scripts/test.sh";
const CODE = new Set([".rs", ".mjs", ".js", ".cjs", ".ts", ".sh", ".py"]);

const RULES = [
  { what: "a sleep", re: /\bsleep\s*\(/, patience: false },
  { what: "a shell sleep", re: /(^|[\s;&|(]|\bdo|\bthen)sleep\s+["'$0-9.]/, patience: false, shell: true },
  { what: "waitForTimeout", re: /\bwaitForTimeout\s*\(/, patience: false },
  { what: "a setTimeout delay", re: /\bsetTimeout\s*\(.*,/, patience: true },
  { what: "a wall-clock upper bound", re: /\belapsed\(\)\s*<|\bInstant::now\(\)\s*<|\bDate\.now\(\)\s*-\s*[\w.]+\s*<=?/, patience: true },
];

function isComment(line) {
  return /^(\/\/|#|\*|\/\*)/.test(line);
}

/** The files the check reads: test code, and the scripts reachable from scripts/test.sh. */
export function scanned(root) {
  const files = repoFiles(root);
  const have = new Set(files);
  const picked = new Set(files.filter((f) => /(^|\/)tests\/|^testkit\//.test(f) && CODE.has(extname(f))));
  const queue = have.has(ENTRY) ? [ENTRY] : [];
  const seen = new Set(queue);
  while (queue.length) {
    const file = queue.shift();
    picked.add(file);
    const text = readFileSync(join(root, file), "utf8");
    for (const match of text.matchAll(/\bscripts\/[\w./-]+\.(?:sh|mjs|js|py)\b/g)) {
      const named = match[0];
      if (have.has(named) && !seen.has(named)) {
        seen.add(named);
        queue.push(named);
      }
    }
  }
  return [...picked].filter((f) => f !== ALLOWED).sort();
}

/** Every clock wait in `file`: { file, line, text, what }. */
function waitsIn(root, file) {
  const shell = extname(file) === ".sh";
  const found = [];
  readFileSync(join(root, file), "utf8")
    .split("\n")
    .forEach((raw, i) => {
      const text = raw.trim();
      if (!text || isComment(text)) return;
      for (const rule of RULES) {
        if (rule.shell && !shell) continue;
        if (rule.patience && text.includes("PATIENCE")) continue;
        if (rule.re.test(text)) {
          found.push({ file, line: i + 1, text, what: rule.what });
          break;
        }
      }
    });
  return found;
}

/** The entries of the allow list: { line, file, reason, text }, and the malformed lines. */
export function readAllowed(root) {
  const path = join(root, ALLOWED);
  const entries = [];
  const problems = [];
  if (!existsSync(path)) return { entries, problems };
  readFileSync(path, "utf8")
    .split("\n")
    .forEach((raw, i) => {
      const line = raw.trim();
      if (!line || line.startsWith("#")) return;
      const first = line.indexOf(" | ");
      const second = first < 0 ? -1 : line.indexOf(" | ", first + 3);
      if (second < 0) {
        problems.push(`${ALLOWED}:${i + 1}: not "PATH | REASON | LINE": ${line}`);
        return;
      }
      const entry = {
        line: i + 1,
        file: line.slice(0, first).trim(),
        reason: line.slice(first + 3, second).trim(),
        text: line.slice(second + 3).trim(),
      };
      if (!REASONS.has(entry.reason)) {
        problems.push(`${ALLOWED}:${entry.line}: reason "${entry.reason}" is not one of ${[...REASONS.keys()].join(", ")}`);
        return;
      }
      entries.push(entry);
    });
  return { entries, problems };
}

export function check(root) {
  const files = scanned(root);
  const waits = files.flatMap((file) => waitsIn(root, file));
  const { entries, problems } = readAllowed(root);
  const listed = (w) => entries.some((e) => e.file === w.file && e.text === w.text);
  for (const w of waits) {
    if (!listed(w)) problems.push(`${w.file}:${w.line}: ${w.what} (wait on an event, or list it in ${ALLOWED}): ${w.text}`);
  }
  for (const e of entries) {
    if (!waits.some((w) => w.file === e.file && w.text === e.text)) {
      const gone = !existsSync(join(root, e.file)) ||
        !readFileSync(join(root, e.file), "utf8").split("\n").some((l) => l.trim() === e.text);
      problems.push(`${ALLOWED}:${e.line}: ${gone ? "no such line in" : "no wait to allow on this line of"} ${e.file}: ${e.text}`);
    }
  }
  return { problems, files: files.length, waits: waits.length, allowed: entries.length };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), ".."));
  const { problems, files, waits, allowed } = check(root);
  for (const p of problems) console.error(p);
  if (problems.length) {
    console.error(`check-waits: ${problems.length} problem(s) in ${files} files`);
    process.exit(1);
  }
  console.log(`check-waits: ${files} files, ${waits} clock waits, each listed (${allowed} entries in ${ALLOWED})`);
}
