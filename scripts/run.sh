#!/usr/bin/env bash
# Runs the product on built-in defaults: the NameServer daemon on 0.0.0.0:9876 (RocketMQ
# brokers and clients point their namesrvAddr at it) and the teaching page on
# http://127.0.0.1:8080/www/. Extra arguments go to the daemon (try --help).
set -euo pipefail
cd "$(dirname "$0")/.."

[ -f pkg/nameserver_wasm_bg.wasm ] || scripts/build-wasm.sh
cargo build --release --locked -p nameserver

PAGE_PORT=${PAGE_PORT:-8080}
node tests/browser/lib/server.mjs "$PAGE_PORT" &
page=$!
trap 'kill "$page" 2>/dev/null || true' EXIT
echo "teaching page: http://127.0.0.1:$PAGE_PORT/www/"
"${CARGO_TARGET_DIR:-target}/release/nameserver" "$@"
