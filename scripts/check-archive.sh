#!/usr/bin/env bash
# Checks a release archive as its user gets it (scripts/dist.sh runs this on the archive it
# builds): unpacked in a temporary directory outside the source tree, it holds the files the
# README names, every Markdown link and document reference in it resolves inside the archive,
# and its binary's version is the one in the archive's name.
# Usage: scripts/check-archive.sh dist/rocketmq-nameserver-<version>-<target>.tar.gz
# Needs tar and node (the link check is scripts/check-links.mjs).
set -euo pipefail
[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: $0 ARCHIVE.tar.gz" >&2; exit 2; }
archive="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
cd "$(dirname "$0")/.."
tree="$PWD"
for tool in tar node; do
  command -v "$tool" >/dev/null || { echo "check-archive: needs $tool" >&2; exit 1; }
done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
step() { printf -- '-- %s\n' "$*"; }
fail() {
  echo "archive check FAILED: $*" >&2
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

version="$("$root/nameserver" --version)"
step "$version"
case "$(basename "$root")" in
  "rocketmq-nameserver-$(echo "$version" | awk '{print $2}')-"*) ;;
  *) fail "the binary's version does not match the archive's name" ;;
esac

echo "check-archive: $(basename "$archive") OK"
