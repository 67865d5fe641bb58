#!/usr/bin/env node
// Fails on a dangling reference anywhere in the repository:
//   - a section citation (`PROTOCOL.md §10.4, §10.7`, `TEACHING.md §c`) naming a document that
//     is not in the repository or a section that document does not have; a section sign with
//     no document before it cites the Markdown file it is written in, and in other files the
//     document last named before it;
//   - a mention of an upper-case Markdown file (`RELIABILITY.md`) that is not in the repository;
//   - a relative Markdown link or image to a missing file or heading anchor, or one that leaves
//     the repository;
//   - a path outside the repository (the team's shared notes, the machine's work directory).
// Usage: node scripts/check-links.mjs [ROOT]   (default: the repository this script is in)
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const SKIP_DIRS = new Set([".git", "target", "node_modules", "pkg", "dist", "artifacts", "corpus"]);
const SKIP_FILES = new Set(["package-lock.json", "Cargo.lock"]);
// Built from parts so that this file does not match itself.
const OUTSIDE = [["/wo", "rk/"], ["../sha", "red"], ["shared/", "docs"], ["shared/", "vectors"]].map((p) => p.join(""));

/** Files of the repository: tracked and new ones when `root` is a git work tree, else a walk. */
export function repoFiles(root) {
  try {
    const out = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    return out.split("\0").filter((f) => f && existsSync(join(root, f)));
  } catch {
    const files = [];
    const walk = (dir) => {
      for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
        const rel = dir ? `${dir}/${entry.name}` : entry.name;
        if (entry.isDirectory()) {
          if (!SKIP_DIRS.has(entry.name)) walk(rel);
        } else if (entry.isFile()) files.push(rel);
      }
    };
    walk("");
    return files;
  }
}

/** A file's text, or null for binary and very large files. */
function readText(path) {
  if (statSync(path).size > 4 << 20) return null;
  const bytes = readFileSync(path);
  if (bytes.includes(0)) return null;
  return bytes.toString("utf8");
}

/** Lines of a Markdown file outside fenced code blocks, as [lineNumber, text]. */
export function proseLines(text) {
  const out = [];
  let fence = null;
  text.split("\n").forEach((line, i) => {
    const m = line.match(/^\s*(```+|~~~+)/);
    if (m) {
      if (!fence) fence = m[1][0];
      else if (m[1][0] === fence) fence = null;
      return;
    }
    if (!fence) out.push([i + 1, line]);
  });
  return out;
}

/** GitHub's anchor for a heading text. */
export function slug(heading) {
  return heading
    .replace(/<[^>]+>/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[*_`]/g, (c) => (c === "_" ? "_" : ""))
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** Section ids (`10.4`, `c`) and anchors of a Markdown text. */
export function outline(text) {
  const sections = new Set();
  const anchors = new Set();
  const seen = new Map();
  for (const [, line] of proseLines(text)) {
    const h = line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/);
    if (!h) continue;
    const title = h[1];
    const id = title.match(/^(\d+(?:\.\d+)*)\.?(?=\s|$)/) || title.match(/^\(([a-z])\)(?=\s|$)/);
    if (id) sections.add(id[1]);
    const base = slug(title);
    const n = seen.get(base) || 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  for (const m of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(m[1]);
  return { sections, anchors };
}

const SECTION = String.raw`§\s?(\d+(?:\.\d+)*|[a-z])(?![\w])`;
const CHAIN = new RegExp(String.raw`((?:[\w./-]*\/)?[A-Z][A-Z0-9_-]*\.md)?(\s*)${SECTION}((?:\s*(?:,|–|-|—|and|or|to)\s*${SECTION})*)`, "g");
const MENTION = /(?<![\w/.-])((?:[\w.-]+\/)*[A-Z][A-Z0-9_-]*\.md)\b/g;

/** Upper-case Markdown names a line mentions (`RELIABILITY.md`, `docs/PROTOCOL.md`), with their offsets. */
export function mentions(line) {
  return [...line.matchAll(MENTION)].map((m) => ({ at: m.index, name: m[1] }));
}

/** Relative link and image targets of one Markdown prose line (code spans and URLs left out). */
export function linkTargets(line) {
  const code = line.replace(/`[^`]*`/g, (s) => " ".repeat(s.length));
  return [
    ...[...code.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
    ...[...code.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/g)].map((m) => m[1]),
  ].filter((href) => !/^[a-z][a-z0-9+.-]*:/i.test(href));
}

/** The file a cited or mentioned document name resolves to among `files`: its copy under docs/,
 * then the one at the root, then its only copy; null when none or several. */
export function documentIn(files, name) {
  const candidates = files.filter((f) => basename(f) === basename(name));
  return ["docs/" + basename(name), basename(name)].find((c) => candidates.includes(c)) ||
    (candidates.length === 1 ? candidates[0] : null);
}

/** Checks the repository at `root`; returns the problems and what was checked. */
export function check(root) {
  root = resolve(root);
  const files = repoFiles(root);
  const markdown = files.filter((f) => f.endsWith(".md"));
  const outlines = new Map();
  const outlineOf = (file) => {
    if (!outlines.has(file)) outlines.set(file, outline(readFileSync(join(root, file), "utf8")));
    return outlines.get(file);
  };
  const documentFor = (name) => documentIn(markdown, name);

  const problems = [];
  const stats = { files: 0, citations: 0, links: 0 };
  const problem = (file, line, text) => problems.push(`${file}:${line}: ${text}`);

  for (const file of files) {
    if (SKIP_FILES.has(basename(file)) || file.split("/").some((part) => SKIP_DIRS.has(part))) continue;
    const path = join(root, file);
    const text = readText(path);
    if (text === null) continue;
    stats.files++;
    const isMd = file.endsWith(".md");
    const self = resolve(fileURLToPath(import.meta.url)) === resolve(path);
    const lines = isMd ? proseLines(text) : text.split("\n").map((l, i) => [i + 1, l]);
    let lastDoc = isMd ? file : null;

    for (const [n, line] of text.split("\n").map((l, i) => [i + 1, l])) {
      if (self) break;
      for (const needle of OUTSIDE) {
        if (line.includes(needle)) problem(file, n, `points outside the repository (\`${needle}\`)`);
      }
    }

    for (const [n, line] of lines) {
      // Mentions, citations and bare sections, left to right.
      const events = [];
      // In Markdown, link targets are checked as links below, not as mentions.
      const spans = isMd ? [...line.matchAll(/\]\([^)]*\)|^\s*\[[^\]]+\]:\s*\S+/g)].map((m) => [m.index, m.index + m[0].length]) : [];
      for (const m of mentions(line)) {
        if (!spans.some(([from, to]) => m.at >= from && m.at < to)) events.push({ at: m.at, mention: m.name });
      }
      for (const m of line.matchAll(CHAIN)) {
        const ids = [m[3], ...[...m[4].matchAll(new RegExp(SECTION, "g"))].map((x) => x[1])];
        events.push({ at: m.index + (m[1] ? 0.5 : 0), doc: m[1], ids });
      }
      events.sort((a, b) => a.at - b.at);
      for (const e of events) {
        if (e.mention) {
          if (!documentFor(e.mention)) problem(file, n, `${e.mention} is not in the repository`);
          else if (!isMd) lastDoc = documentFor(e.mention);
          continue;
        }
        stats.citations++;
        const target = e.doc ? documentFor(e.doc) : lastDoc;
        if (!target) {
          problem(file, n, e.doc ? `cites ${e.doc}, which is not in the repository` : `§${e.ids[0]} names no document`);
          continue;
        }
        const { sections } = outlineOf(target);
        for (const id of e.ids) {
          if (!sections.has(id)) problem(file, n, `${target} has no section §${id}`);
        }
      }

      if (!isMd) continue;
      for (const href of linkTargets(line)) {
        stats.links++;
        const [pathPart, anchor] = href.split("#");
        const dest = pathPart ? resolve(dirname(path), decodeURIComponent(pathPart)) : path;
        if (dest !== root && !dest.startsWith(root + sep)) {
          problem(file, n, `link ${href} leaves the repository`);
          continue;
        }
        if (!existsSync(dest)) {
          problem(file, n, `link ${href}: ${relative(root, dest)} does not exist`);
          continue;
        }
        if (anchor && dest.endsWith(".md") && !outlineOf(relative(root, dest).split(sep).join("/")).anchors.has(anchor)) {
          problem(file, n, `link ${href}: no heading with anchor #${anchor}`);
        }
      }
    }
  }
  return { problems, stats };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] || join(dirname(fileURLToPath(import.meta.url)), "..");
  const { problems, stats } = check(root);
  for (const p of problems) console.error(p);
  if (problems.length) {
    console.error(`check-links: ${problems.length} dangling reference(s)`);
    process.exit(1);
  }
  console.log(`check-links: ${stats.citations} section citations and ${stats.links} relative links in ${stats.files} files resolve`);
}
