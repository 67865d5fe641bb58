#!/usr/bin/env bash
# Runs the product on built-in defaults: the NameServer daemon on 0.0.0.0:9876 (RocketMQ brokers
# and clients point their namesrvAddr at it), which also serves its HTTP console on
# http://127.0.0.1:8080/ — the teaching page (/www/), the live view of this daemon
# (/www/?live), the JSON API (/api), /metrics, /healthz, /readyz and the address server
# (/rocketmq/nsaddr). Extra arguments go to the daemon (try --help).
set -euo pipefail
cd "$(dirname "$0")/.."

[ -f pkg/nameserver_wasm_bg.wasm ] || scripts/build-wasm.sh
cargo build --release --locked -p nameserver
# The console's port is named so that a taken port is an error, not a daemon without a page.
http=(--http-port 8080)
for arg in "$@"; do
  case $arg in --http-port | --http-port=* | --no-http) http=() ;; esac
done
exec "${CARGO_TARGET_DIR:-target}/release/nameserver" --http-root "$PWD" "${http[@]}" "$@"
