#!/usr/bin/env bash
# Runs every test of the project on a fresh machine, installing what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

# The Java oracle's jars (Apache RocketMQ from Maven Central) download while the Rust steps run.
java_versions="5.5.0 5.3.3 4.9.7"
java_fetch_log="$(mktemp "${TMPDIR:-/tmp}/nameserver-java-fetch.XXXXXX")"
if [ "${NAMESERVER_SKIP_JAVA:-}" != 1 ]; then
  (for v in $java_versions; do scripts/java/fetch.sh "$v" || exit 1; done) >"$java_fetch_log" 2>&1 &
  java_fetch_pid=$!
fi

step "toolchain targets"
for target in wasm32-unknown-unknown thumbv7em-none-eabihf; do
  rustup target list --installed | grep -qx "$target" || rustup target add "$target"
done

step "formatting"
cargo fmt --all -- --check

step "docs: every cited section, mentioned document and relative link resolves inside the repository"
node scripts/check-links.mjs

step "clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "unit, integration and doc tests"
cargo test --workspace --locked

step "Java oracle: the same requests to Apache RocketMQ's own NameServer ($java_versions, from Maven Central) and to ours; differences outside docs/PROTOCOL.md §18 fail"
if [ "${NAMESERVER_SKIP_JAVA:-}" = 1 ]; then
  echo "SKIPPED (NAMESERVER_SKIP_JAVA=1): the Java oracle"
else
  if ! wait "$java_fetch_pid"; then
    echo "cannot fetch Apache RocketMQ from Maven Central (NAMESERVER_SKIP_JAVA=1 skips the Java steps):" >&2
    tail -n 8 "$java_fetch_log" >&2
    exit 1
  fi
  JAVA_ORACLE_VERSIONS="${java_versions// /,}" cargo test -p nameserver --test java_oracle --locked -- --ignored --nocapture
fi
rm -f "$java_fetch_log"

step "API docs build without warnings (broken intra-doc links fail)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked

step "benchmark tools: load generator, floor and bench script (smoke, tiny counts, no peer)"
scripts/bench.sh --smoke

step "reliability tools: soak driver and kill -9 crash loop (smoke; full runs in RELIABILITY.md)"
scripts/soak.sh --smoke
scripts/crash-loop.sh 5

step "core builds without std (no-std target and wasm32)"
cargo build -p nameserver-core --no-default-features --locked --target thumbv7em-none-eabihf
cargo build -p nameserver-core --no-default-features --locked --target wasm32-unknown-unknown

step "WebAssembly module and bindings (pkg/)"
scripts/build-wasm.sh

step "deploy files offline: Dockerfile lint, systemd unit, Kubernetes manifests, alert rules, and the image's binary run as the image runs it"
scripts/test-deploy.sh

step "wasm-bindgen tests in Node"
cargo clippy -p nameserver-wasm --target wasm32-unknown-unknown --all-targets --locked -- -D warnings
cargo test -p nameserver-wasm --target wasm32-unknown-unknown --locked

step "npm packages"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

step "JavaScript tests of the package and of the link check"
node --test tests/js/

step "browser tests of the page (www/, headless chromium)"
scripts/test-browser.sh

step "interop: the ali-ons npm client gets routes from the daemon"
cargo build -p nameserver --locked
NAMESERVER_BIN="${CARGO_TARGET_DIR:-target}/debug/nameserver" node --test --test-force-exit tests/interop/

step "npm package from a clean clone: pack (builds pkg/), contents, Node, types, vite bundle in Chromium, playground bin"
scripts/test-package.sh

step "all tests passed"
