#!/usr/bin/env bash
# Browser tests of the page (www/): installs Debian's chromium when missing (never a downloaded
# browser), serves the repository root on 127.0.0.1 with tests/browser/lib/server.mjs and runs
# `node --test tests/browser/` against it (live-mode tests also start the daemon, which serves
# the page itself). Screenshots land in tests/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-chromium.sh
[ -f pkg/nameserver_wasm_bg.wasm ] || scripts/build-wasm.sh
# Live-mode tests start the daemon itself.
cargo build -p nameserver --locked
export NAMESERVER_BIN="${NAMESERVER_BIN:-${CARGO_TARGET_DIR:-$PWD/target}/debug/nameserver}"
[ -d node_modules/playwright-core ] && [ -d node_modules/axe-core ] || npm ci --no-audit --no-fund

# The server prints its address once it listens: read that line (with a hang guard).
exec 3< <(exec node tests/browser/lib/server.mjs 0)
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
read -r -t 30 base <&3 || { echo "test-browser: the page server did not start" >&2; exit 1; }
# Two files at a time: a browser test mostly waits for the page (animations, playback at set
# speeds), using about half a core, so two share a 2-core machine with room to spare; each
# file has its own browser, and the live-mode daemons listen on port 0.
BASE_URL=$base node --test --test-concurrency=2 tests/browser/
