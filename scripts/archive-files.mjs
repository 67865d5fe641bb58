#!/usr/bin/env node
// Prints, one per line, the repository files a release archive holds beside its binary:
// LICENSE, NOTICE, the top-level and docs/ Markdown files, deploy/, and every file those
// documents link or mention, followed from document to document, so that the archive's
// links resolve inside it (scripts/check-archive.sh checks that they do).
// Usage: node scripts/archive-files.mjs [ROOT]   (default: the repository this script is in)
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { documentIn, linkTargets, mentions, proseLines, repoFiles } from "./check-links.mjs";

export function archiveFiles(root) {
  root = resolve(root);
  const files = repoFiles(root);
  const markdown = files.filter((f) => f.endsWith(".md"));
  const seeds = files.filter(
    (f) => ["LICENSE", "NOTICE"].includes(f) || /^[^/]+\.md$/.test(f) || /^docs\/[^/]+\.md$/.test(f) || f.startsWith("deploy/"),
  );
  const held = new Set();
  const queue = [];
  const hold = (file) => {
    if (!held.has(file)) {
      held.add(file);
      queue.push(file);
    }
  };
  seeds.forEach(hold);
  while (queue.length) {
    const file = queue.shift();
    let text;
    try {
      text = readFileSync(join(root, file), "utf8");
    } catch {
      continue;
    }
    const isMd = file.endsWith(".md");
    for (const [, line] of isMd ? proseLines(text) : text.split("\n").map((l, i) => [i + 1, l])) {
      for (const m of mentions(line)) {
        const doc = documentIn(markdown, m.name);
        if (doc) hold(doc);
      }
      if (!isMd) continue;
      for (const href of linkTargets(line)) {
        const [path] = href.split("#");
        if (!path) continue;
        const dest = resolve(dirname(join(root, file)), decodeURIComponent(path));
        if (!dest.startsWith(root + sep) || !existsSync(dest) || !statSync(dest).isFile()) continue;
        hold(relative(root, dest).split(sep).join("/"));
      }
    }
  }
  return [...held].sort();
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] || join(dirname(fileURLToPath(import.meta.url)), "..");
  for (const file of archiveFiles(root)) console.log(file);
}
