#!/usr/bin/env bash
# Builds the WebAssembly module and its JS bindings into pkg/ (what the page and the npm
# package load). Installs the wasm target and wasm-bindgen-cli (pinned to the crate's version)
# from crates.io when missing; downloads nothing else. Reuses a build of the same sources.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130 # keep equal to `wasm-bindgen = "=…"` in Cargo.toml

rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
if ! command -v wasm-bindgen >/dev/null || [ "$(wasm-bindgen --version | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  # Not --locked: the CLI's own lock file names a webpki-roots release the registry no longer serves.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

# pkg/ is a function of the sources below, the compiler and wasm-bindgen: one built from the
# same inputs (in this target dir, by this work tree or a clean clone of it, such as
# scripts/test-package.sh's) is copied rather than built again.
inputs=$({
  rustc --version
  echo "$WASM_BINDGEN_VERSION"
  find core sim wasm Cargo.toml Cargo.lock .cargo -type f -not -path '*/target/*' | LC_ALL=C sort | xargs sha256sum
} | sha256sum | cut -c1-32)
cache="${CARGO_TARGET_DIR:-target}/wasm-pkg/$inputs"
if [ -f "$cache/nameserver_wasm_bg.wasm" ]; then
  echo "pkg/: the build of these sources in $cache"
  mkdir -p pkg
  cp "$cache"/* pkg/
else
  cargo build --locked --target wasm32-unknown-unknown --profile wasm-release -p nameserver-wasm
  wasm-bindgen --target web --remove-name-section --remove-producers-section --out-dir pkg \
    "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/wasm-release/nameserver_wasm.wasm"
  mkdir -p "$cache.tmp"
  cp pkg/nameserver_wasm* "$cache.tmp/"
  rm -rf "$cache" && mv "$cache.tmp" "$cache"
fi
printf 'pkg/nameserver_wasm_bg.wasm: %s bytes, %s gzipped\n' \
  "$(wc -c < pkg/nameserver_wasm_bg.wasm)" "$(gzip -9 -c pkg/nameserver_wasm_bg.wasm | wc -c)"
