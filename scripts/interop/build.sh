#!/usr/bin/env bash
# Build the third-party RocketMQ peers used for interop tests/benchmarks into a
# cache OUTSIDE the repo. Idempotent: each piece is built only when missing
# (the client is rebuilt when its sources change).
#
#   INTEROP_CACHE   cache root (default: $HOME/.cache/rmq-interop)
#   INTEROP_ONLY    optional space-separated subset of: namesrv broker broker-tls client
#
# Layout produced:
#   $INTEROP_CACHE/namesrv/bin/rocketmq-namesrv-rust   (crate rocketmq-namesrv 1.0.0)
#   $INTEROP_CACHE/broker/bin/rocketmq-broker-rust     (crate rocketmq-broker 1.0.0)
#   $INTEROP_CACHE/broker-tls/bin/rocketmq-broker-rust (the same, --features tls)
#   $INTEROP_CACHE/client/bin/interop-{producer,consumer}  (./client)
#   $INTEROP_CACHE/target                              shared CARGO_TARGET_DIR
#   $INTEROP_CACHE/logs/<piece>.log                    build logs
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${INTEROP_CACHE:-$HOME/.cache/rmq-interop}"
ONLY="${INTEROP_ONLY:-namesrv broker broker-tls client}"
NAMESRV_VERSION=1.0.0
BROKER_VERSION=1.0.0

mkdir -p "$CACHE/logs"
export CARGO_TARGET_DIR="$CACHE/target"

log() { echo "[interop-build] $*" >&2; }

want() { [[ " $ONLY " == *" $1 "* ]]; }

ensure_libclang() {
  if dpkg -s libclang-dev >/dev/null 2>&1; then return 0; fi
  log "installing libclang-dev (bindgen needs it)"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq libclang-dev >/dev/null
}

timed() { # name, command...
  local name=$1; shift
  local t0=$SECONDS
  log "building $name (log: $CACHE/logs/$name.log) ..."
  if ! "$@" >"$CACHE/logs/$name.log" 2>&1; then
    log "FAILED building $name; tail of log:"; tail -n 30 "$CACHE/logs/$name.log" >&2
    return 1
  fi
  log "built $name in $((SECONDS - t0))s"
}

install_crate() { # piece crate version binary [cargo install flags...]
  local piece=$1 crate=$2 version=$3 bin=$4
  shift 4
  if [ -x "$CACHE/$piece/bin/$bin" ]; then
    log "$piece: present ($CACHE/$piece/bin/$bin)"; return 0
  fi
  timed "$piece" cargo install --locked --root "$CACHE/$piece" --version "$version" "$crate" --bin "$bin" "$@"
}

build_client() {
  local src="$HERE/client" out="$CACHE/client/bin"
  local stamp
  stamp=$({ cat "$src/Cargo.toml" "$src/Cargo.lock"; find "$src/src" -type f -name '*.rs' -print0 | sort -z | xargs -0 cat; } 2>/dev/null | sha256sum | cut -c1-16)
  if [ -x "$out/interop-producer" ] && [ -x "$out/interop-consumer" ] && [ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ]; then
    log "client: present ($out)"; return 0
  fi
  local locked=()
  [ -f "$src/Cargo.lock" ] && locked=(--locked)
  timed client cargo build --release "${locked[@]}" --manifest-path "$src/Cargo.toml" \
    --bin interop-producer --bin interop-consumer
  mkdir -p "$out"
  cp -f "$CARGO_TARGET_DIR"/release/interop-{producer,consumer} "$out/"
  echo "$stamp" >"$out/.stamp"
}

command -v cargo >/dev/null || { log "cargo not found"; exit 1; }
ensure_libclang
want namesrv && install_crate namesrv rocketmq-namesrv "$NAMESRV_VERSION" rocketmq-namesrv-rust
want broker && install_crate broker rocketmq-broker "$BROKER_VERSION" rocketmq-broker-rust
# TLS is compiled out of rocketmq-transport unless a crate asks for it; the
# broker's "tls" feature gives its remoting port TLS (e2e-ours.sh needs it).
want broker-tls && install_crate broker-tls rocketmq-broker "$BROKER_VERSION" rocketmq-broker-rust --features tls
want client && build_client
log "done. binaries:"
# Only the pieces built so far exist (INTEROP_ONLY): find fails on the others, and with
# pipefail that failed the whole build after it had succeeded.
{ find "$CACHE"/{namesrv,broker,broker-tls,client}/bin -maxdepth 1 -type f -perm -u+x 2>/dev/null || true; } | sed 's/^/  /' >&2
