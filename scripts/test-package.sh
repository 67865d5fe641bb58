#!/usr/bin/env bash
# The npm package as a user gets it. Packs it from a clean clone of HEAD (nothing built:
# `npm pack` itself must build pkg/), checks the tarball's contents, installs it into a fresh
# project and runs it in Node (entry points `.`, `/wasm`, `/package.json`), type-checks a
# TypeScript example and the package's real output against its declarations, builds an app with vite and runs the bundle in headless Chromium, and
# serves the teaching page with the package's `rocketmq-nameserver-playground` bin.
# Uncommitted changes are not packed: commit first.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

[ -x node_modules/.bin/vite ] && [ -x node_modules/.bin/tsc ] && [ -d node_modules/playwright-core ] || npm ci --no-audit --no-fund
scripts/install-chromium.sh

# The clone builds the wasm in the work tree's target dir, so only our three crates compile.
# Cargo then also takes the work tree's own sources as built (they are older than the clone's
# output), which is right only if they are what was committed: otherwise the clone gets a
# target dir of its own.
target=${CARGO_TARGET_DIR:-$root/target}
if [ -n "$(git status --porcelain -- Cargo.toml Cargo.lock .cargo core sim wasm)" ]; then
  echo "package: core/, sim/ or wasm/ has uncommitted changes; the clean clone builds in its own target dir"
  target=$target/clean-clone
fi
git clone --quiet "$root" "$work/clone"
echo "package: packing $(git -C "$work/clone" log -1 --format='%h %s') from a clean clone"
tarball=$(cd "$work/clone" && CARGO_TARGET_DIR="$target" npm pack --silent --pack-destination "$work" | tail -n1)

# Contents: the module, its bindings and types, the Node entry, the playground bin, the whole
# page as committed, LICENSE, NOTICE and CHANGELOG.md; nothing else.
tar -tzf "$work/$tarball" | sort > "$work/contents"
for file in LICENSE NOTICE README.md CHANGELOG.md package.json js/node.js js/playground.js \
  pkg/nameserver_wasm.js pkg/nameserver_wasm.d.ts pkg/nameserver_wasm_bg.wasm pkg/nameserver_wasm_bg.wasm.d.ts; do
  grep -qx "package/$file" "$work/contents" || { echo "package: $file is not in $tarball" >&2; exit 1; }
done
if grep -vE '^package/(LICENSE|NOTICE|README\.md|CHANGELOG\.md|package\.json|js/[^/]+\.js|pkg/[^/]+|www/.+)$' "$work/contents"; then
  echo "package: $tarball holds files it should not (above)" >&2
  exit 1
fi
diff <(git -C "$work/clone" ls-files www | sed 's|^|package/|' | sort) <(grep '^package/www/' "$work/contents") ||
  { echo "package: $tarball does not ship www/ as committed (diff above)" >&2; exit 1; }

mkdir "$work/project"
cp tests/js/consumer/* "$work/project/"
cp -r tests/js/vite-app "$work/project/"
cd "$work/project"
printf '{ "name": "consumer", "private": true, "type": "module" }\n' > package.json
npm install --silent --no-audit --no-fund "$work/$tarball"
node run.mjs
# The declarations against real output: views.mjs writes what the package returns as typed
# literals (views.ts), which tsc checks with example.ts.
node views.mjs
"$root/node_modules/.bin/tsc" -p tsconfig.json
"$root/node_modules/.bin/vite" build vite-app --logLevel warn
REPO_ROOT=$root node bundle.mjs vite-app/dist
REPO_ROOT=$root node playground.mjs
echo "package: $tarball from a clean clone installs, runs in Node, type-checks, bundles with vite and serves its page"
