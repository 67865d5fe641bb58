#!/usr/bin/env bash
# Checks a release archive as its user gets it (scripts/dist.sh runs this on the archive it
# builds): unpacked in a temporary directory outside the source tree, every Markdown link and
# document reference in it resolves inside the archive; its binary, started there as the
# README says (`sh bin/mqnamesrv -c deploy/namesrv.properties`, user.home a temporary directory
# given in JAVA_OPT as with Java), an empty
# environment and ports the system picks, serves its embedded page (an ETag that revalidates
# with 304) and the wasm module compressed, answers /healthz and /readyz, and exits 0 on
# SIGTERM.
# With --from-build it first packs the archive scripts/dist.sh would, from an already built
# binary (default: the debug one the test command's deploy step builds with --features
# embed-page), so the test command checks every release's layout without a release build.
# Usage: scripts/check-archive.sh dist/rocketmq-nameserver-<version>-<target>.tar.gz
#        scripts/check-archive.sh --from-build [BINARY]
# Needs tar, curl and node (the link check is scripts/check-links.mjs).
set -euo pipefail
usage() { echo "usage: $0 ARCHIVE.tar.gz | --from-build [BINARY]" >&2; exit 2; }
cd "$(dirname "$0")/.."
tree="$PWD"
for tool in tar curl node; do
  command -v "$tool" >/dev/null || { echo "check-archive: needs $tool" >&2; exit 1; }
done

work="$(mktemp -d)"
tmp="$work"
if [ "${1:-}" = --from-build ]; then
  [ $# -le 2 ] || usage
  binary="${2:-${CARGO_TARGET_DIR:-target}/debug/nameserver}"
  [ -x "$binary" ] || { echo "check-archive: no binary at $binary (build it first)" >&2; rm -rf "$work"; exit 1; }
  version="$("$binary" --version | awk '{print $2}')"
  name="rocketmq-nameserver-$version-$(rustc -vV | sed -n 's/^host: //p')"
  mkdir "$work/pack" "$work/check"
  scripts/lay-out-archive.sh "$binary" "$work/pack/$name" || { rm -rf "$work"; exit 1; }
  tar -C "$work/pack" -czf "$work/$name.tar.gz" "$name"
  archive="$work/$name.tar.gz"
  tmp="$work/check"
else
  [ $# -eq 1 ] && [ -f "$1" ] || usage
  archive="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
fi
pid=
cleanup() {
  if [ -n "$pid" ]; then
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
step() { printf -- '-- %s\n' "$*"; }
fail() {
  echo "archive check FAILED: $*" >&2
  if [ -s "$tmp/daemon.log" ]; then sed 's/^/  | /' "$tmp/daemon.log" >&2; fi
  exit 1
}

case "$tmp/" in "$tree"/*) fail "the temporary directory $tmp is inside the source tree (set TMPDIR)" ;; esac
tar -C "$tmp" -xzf "$archive"
top=("$tmp"/*/)
[ ${#top[@]} -eq 1 ] || fail "the archive should hold one directory, not ${#top[@]}"
root="${top[0]%/}"
step "unpacked in $root"
for file in bin/nameserver bin/mqnamesrv bin/mqshutdown LICENSE NOTICE README.md deploy/namesrv.properties deploy/systemd/nameserver.service \
  deploy/prometheus/alerts.yaml deploy/grafana/nameserver.json; do
  [ -f "$root/$file" ] || fail "$file is not in the archive"
done

step "links and document references inside the archive"
node scripts/check-links.mjs "$root" || fail "the archive's documents point at files it does not hold"

step "no test hooks in the binary (native-server/src/test_hooks.rs)"
! grep -aq nameserver-test-hooks-compiled-in "$root/bin/nameserver" || fail "the binary was built with the test-hooks feature"
! grep -aq /test-hooks/owner/ "$root/bin/nameserver" || fail "the binary serves the console's test hooks (/test-hooks/owner/)"

version="$("$root/bin/nameserver" --version)"
step "$version"
case "$(basename "$root")" in
  "rocketmq-nameserver-$(echo "$version" | awk '{print $2}')-"*) ;;
  *) fail "the binary's version does not match the archive's name" ;;
esac

mkdir "$tmp/home"
(cd "$root" && exec env -i PATH=/usr/bin:/bin JAVA_OPT="-Duser.home=$tmp/home" sh bin/mqnamesrv -c deploy/namesrv.properties \
  --bind-address 127.0.0.1 --listen-port 0 --http-port 0 >"$tmp/stdout" 2>"$tmp/daemon.log") &
pid=$!
# Each wait below polls for its event until PATIENCE, a hang guard and never a speed bound: a
# busy machine makes anything late.
patience=120
deadline=$((SECONDS + patience))
until grep -q '^HTTP console: ' "$tmp/stdout"; do
  kill -0 "$pid" 2>/dev/null || fail "the daemon exited at start"
  [ "$SECONDS" -lt "$deadline" ] || fail "no console address on stdout after $patience s (PATIENCE)"
  sleep 0.05
done
http="$(sed -n 's|^HTTP console: http://\([^/]*\)/.*|\1|p' "$tmp/stdout")"
[ -n "$http" ] || fail "no console address on stdout: $(cat "$tmp/stdout")"
step "started in the archive, console on $http"

# GET a path: the status code; headers and body land in $tmp/headers and $tmp/body.
get() {
  local path="$1"
  shift
  curl -sS --max-time "$patience" -o "$tmp/body" -D "$tmp/headers" -w '%{http_code}' "$@" "http://$http$path" || true
}
header() { tr -d '\r' <"$tmp/headers" | sed -n "s/^$1: //Ip" | tail -n 1; }

deadline=$((SECONDS + patience))
until [ "$(get /readyz)" = 200 ]; do
  [ "$SECONDS" -lt "$deadline" ] || fail "/readyz never answered 200 in $patience s (PATIENCE; last: $(cat "$tmp/body"))"
  sleep 0.1
done
[ "$(get /healthz)" = 200 ] || fail "/healthz is not 200"
step "/readyz 200, /healthz 200"

[ "$(get /www/)" = 200 ] || fail "/www/ is not 200"
grep -qi '<html' "$tmp/body" || fail "/www/ is not the page: $(head -c 300 "$tmp/body")"
etag="$(header etag)"
[ -n "$etag" ] || fail "/www/ has no ETag: the page is served from a directory, not embedded"
[ "$(get /www/ -H "If-None-Match: $etag")" = 304 ] || fail "revalidating /www/ with its ETag does not give 304"
grep -q 'is embedded in this binary' "$tmp/daemon.log" || fail "the log does not say the page is embedded"
step "/www/: the embedded page, ETag revalidates with 304"

wasm=/pkg/nameserver_wasm_bg.wasm
for encoding in br gzip; do
  [ "$(get "$wasm" -H "Accept-Encoding: $encoding")" = 200 ] || fail "$wasm is not 200"
  [ "$(header content-encoding)" = "$encoding" ] || fail "$wasm is not sent $encoding-compressed: $(cat "$tmp/headers")"
  [ "$(header content-type)" = application/wasm ] || fail "$wasm is not application/wasm"
done
gzip -dc <"$tmp/body" >"$tmp/module.wasm" || fail "$wasm: the gzip body does not decompress"
magic="$(head -c 4 "$tmp/module.wasm" | od -An -tx1 | tr -d ' \n')"
[ "$magic" = 0061736d ] || fail "$wasm, decompressed, is not a WebAssembly module"
step "$wasm: application/wasm, brotli and gzip, a WebAssembly module"

kill -TERM "$pid"
deadline=$((SECONDS + patience))
while kill -0 "$pid" 2>/dev/null; do
  [ "$SECONDS" -lt "$deadline" ] || fail "still running $patience s after SIGTERM (PATIENCE)"
  sleep 0.1
done
status=0
wait "$pid" || status=$?
pid=
[ "$status" = 0 ] || fail "exit status $status after SIGTERM"
grep -q 'the NameServer has shut down' "$tmp/daemon.log" || fail "the log does not say the NameServer has shut down"
step "SIGTERM: exit 0"
echo "check-archive: $(basename "$archive") OK"
