#!/usr/bin/env bash
# Builds the release archive in dist/: the nameserver daemon for this platform with its page
# embedded (the wasm bindings are built first), LICENSE, NOTICE, the documents (the top-level
# *.md files, docs/ and every file they link: scripts/archive-files.mjs) and deploy/ as in the
# repository (the sample namesrv.properties, the systemd unit, the alert rules, the Grafana
# dashboard, the Kubernetes and compose files), laid out by scripts/lay-out-archive.sh, as dist/rocketmq-nameserver-<version>-<target>.tar.gz with SHA256SUMS;
# and the npm package tarball when `npm pack` works here (it is skipped, with a note, when it
# does not). Then scripts/check-archive.sh checks the archive as a user gets it: unpacked
# outside the tree, its links resolve, and its binary serves the page and stops with status 0.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/build-wasm.sh
NAMESERVER_COMMIT="${NAMESERVER_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || true)}" \
  cargo build --release --locked -p nameserver --features embed-page
binary="${CARGO_TARGET_DIR:-target}/release/nameserver"

version="$("$binary" --version | awk '{print $2}')"
host="$(rustc -vV | sed -n 's/^host: //p')"
name="rocketmq-nameserver-$version-$host"
rm -rf dist
mkdir dist
scripts/lay-out-archive.sh "$binary" "dist/$name"
tar -C dist -czf "dist/$name.tar.gz" "$name"
scripts/check-archive.sh "dist/$name.tar.gz"

if npm pack --pack-destination dist >dist/npm-pack.log 2>&1; then
  echo "npm package: $(ls dist/*.tgz)"
  rm dist/npm-pack.log
else
  echo "npm pack failed (see dist/npm-pack.log): no npm tarball in dist/" >&2
fi
(cd dist && sha256sum -- *.tar.gz $(ls -- *.tgz 2>/dev/null) > SHA256SUMS)
ls -l dist
