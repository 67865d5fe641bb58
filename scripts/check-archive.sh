#!/usr/bin/env bash
# Checks a release archive as its user gets it (scripts/dist.sh runs this on the archive it
# builds): unpacked in a temporary directory outside the source tree, every Markdown link and
# document reference in it resolves inside the archive; its binary, started there as the
# README says (`./nameserver -c deploy/namesrv.properties`) with a temporary HOME, an empty
# environment and ports the system picks, serves its embedded page (an ETag that revalidates
# with 304) and the wasm module compressed, answers /healthz and /readyz, and exits 0 on
# SIGTERM.
# Usage: scripts/check-archive.sh dist/rocketmq-nameserver-<version>-<target>.tar.gz
# Needs tar, curl and node (the link check is scripts/check-links.mjs).
set -euo pipefail
[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: $0 ARCHIVE.tar.gz" >&2; exit 2; }
archive="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
cd "$(dirname "$0")/.."
tree="$PWD"
for tool in tar curl node; do
  command -v "$tool" >/dev/null || { echo "check-archive: needs $tool" >&2; exit 1; }
done

tmp="$(mktemp -d)"
pid=
cleanup() {
  if [ -n "$pid" ]; then
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
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
for file in nameserver LICENSE NOTICE README.md deploy/namesrv.properties deploy/systemd/nameserver.service \
  deploy/prometheus/alerts.yaml deploy/grafana/nameserver.json; do
  [ -f "$root/$file" ] || fail "$file is not in the archive"
done

step "links and document references inside the archive"
node scripts/check-links.mjs "$root" || fail "the archive's documents point at files it does not hold"

step "no test hooks in the binary (native-server/src/test_hooks.rs)"
! grep -aq nameserver-test-hooks-compiled-in "$root/nameserver" || fail "the binary was built with the test-hooks feature"
! grep -aq /test-hooks/owner/ "$root/nameserver" || fail "the binary serves the console's test hooks (/test-hooks/owner/)"

version="$("$root/nameserver" --version)"
step "$version"
case "$(basename "$root")" in
  "rocketmq-nameserver-$(echo "$version" | awk '{print $2}')-"*) ;;
  *) fail "the binary's version does not match the archive's name" ;;
esac

mkdir "$tmp/home"
(cd "$root" && exec env -i PATH=/usr/bin:/bin HOME="$tmp/home" ./nameserver -c deploy/namesrv.properties \
  --bind-address 127.0.0.1 --listen-port 0 --http-port 0 >"$tmp/stdout" 2>"$tmp/daemon.log") &
pid=$!
for _ in $(seq 200); do
  grep -q '^HTTP console: ' "$tmp/stdout" && break
  kill -0 "$pid" 2>/dev/null || fail "the daemon exited at start"
  sleep 0.05
done
http="$(sed -n 's|^HTTP console: http://\([^/]*\)/.*|\1|p' "$tmp/stdout")"
[ -n "$http" ] || fail "no console address on stdout: $(cat "$tmp/stdout")"
step "started in the archive, console on $http"

# GET a path: the status code; headers and body land in $tmp/headers and $tmp/body.
get() {
  local path="$1"
  shift
  curl -sS --max-time 10 -o "$tmp/body" -D "$tmp/headers" -w '%{http_code}' "$@" "http://$http$path" || true
}
header() { tr -d '\r' <"$tmp/headers" | sed -n "s/^$1: //Ip" | tail -n 1; }

ready=
for _ in $(seq 100); do
  [ "$(get /readyz)" = 200 ] && { ready=yes; break; }
  sleep 0.1
done
[ -n "$ready" ] || fail "/readyz never answered 200 (last: $(cat "$tmp/body"))"
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
for _ in $(seq 200); do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
kill -0 "$pid" 2>/dev/null && fail "still running 20 s after SIGTERM"
status=0
wait "$pid" || status=$?
pid=
[ "$status" = 0 ] || fail "exit status $status after SIGTERM"
grep -q 'the NameServer has shut down' "$tmp/daemon.log" || fail "the log does not say the NameServer has shut down"
step "SIGTERM: exit 0"
echo "check-archive: $(basename "$archive") OK"
