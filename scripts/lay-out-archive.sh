#!/usr/bin/env bash
# Lays out a release archive's directory: bin/ (the given nameserver binary, mqnamesrv and
# mqshutdown) and the files
# scripts/archive-files.mjs lists (the documents, every file they link, deploy/), each at its
# place in the repository so relative links still work. scripts/dist.sh and
# scripts/check-archive.sh --from-build both use it, so the test command checks the layout
# a release gets.
# Usage: scripts/lay-out-archive.sh BINARY DIR   (DIR must not exist yet)
set -euo pipefail
[ $# -eq 2 ] && [ -x "$1" ] || { echo "usage: $0 BINARY DIR" >&2; exit 2; }
binary="$1"
dir="$2"
[ ! -e "$dir" ] || { echo "lay-out-archive: $dir already exists" >&2; exit 2; }
cd "$(dirname "$0")/.."
mkdir -p "$dir"
# A RocketMQ home's bin/, as Java's archive has: the binary beside mqnamesrv and mqshutdown.
install -D -m 755 "$binary" "$dir/bin/nameserver"
install -m 755 deploy/bin/mqnamesrv deploy/bin/mqshutdown "$dir/bin/"
node scripts/archive-files.mjs | while IFS= read -r file; do
  mode=644
  [ -x "$file" ] && mode=755
  install -D -m "$mode" "$file" "$dir/$file"
done
