#!/usr/bin/env node
// Run by `npm pack` / `npm publish` (prepack, after scripts/build-wasm.sh): npm silently drops
// `files` entries that do not exist, so this fails the pack instead when anything the package
// needs is missing — the WebAssembly build in pkg/ above all.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

function targets(entry) {
  if (typeof entry === "string") return [entry];
  return Object.values(entry || {}).flatMap(targets);
}

const required = new Set(
  [
    ...pkg.files.filter((f) => !f.includes("*")),
    ...targets(pkg.exports),
    ...Object.values(pkg.bin || {}),
    pkg.main,
    pkg.types,
    "LICENSE",
    "README.md",
    "www/index.html",
  ].map((f) => f.replace(/^\.\//, "")),
);

const problems = [];
for (const entry of required) {
  const path = join(root, entry);
  if (!existsSync(path)) problems.push(`${entry} is missing`);
  else if (statSync(path).isFile() && statSync(path).size === 0) problems.push(`${entry} is empty`);
}
const wasm = join(root, "pkg", "nameserver_wasm_bg.wasm");
if (existsSync(wasm) && !WebAssembly.validate(readFileSync(wasm))) problems.push("pkg/nameserver_wasm_bg.wasm is not valid WebAssembly");
for (const bin of Object.values(pkg.bin || {})) {
  const path = join(root, bin);
  if (existsSync(path)) {
    if (!readFileSync(path, "utf8").startsWith("#!/usr/bin/env node")) problems.push(`${bin} has no node shebang`);
    if (!(statSync(path).mode & 0o111)) problems.push(`${bin} is not executable`);
  }
}

if (problems.length) {
  console.error(`package check failed:\n  ${problems.join("\n  ")}\nbuild pkg/ with scripts/build-wasm.sh (npm pack runs it first) and try again`);
  process.exit(1);
}
console.log(`package check: ${required.size} required files present, pkg/nameserver_wasm_bg.wasm valid`);
