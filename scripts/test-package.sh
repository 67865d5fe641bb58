#!/usr/bin/env bash
# Packs the npm package, installs the tarball into a fresh temporary project, runs a script
# against it and type-checks a TypeScript example with the published declarations.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tarball=$(npm pack --silent --pack-destination "$work")
mkdir "$work/project"
cp tests/js/consumer/example.ts tests/js/consumer/tsconfig.json tests/js/consumer/run.mjs "$work/project/"
cd "$work/project"
printf '{ "name": "consumer", "private": true, "type": "module" }\n' > package.json
npm install --silent --no-audit --no-fund "$work/$tarball"
node run.mjs
"$root/node_modules/.bin/tsc" -p tsconfig.json
echo "package: $tarball installs, runs and type-checks"
