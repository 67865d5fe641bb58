#!/usr/bin/env bash
# Builds the release archive in dist/: the nameserver daemon for this platform with its page
# embedded (the wasm bindings are built first), LICENSE, NOTICE, the README and every document
# it links (the top-level *.md files and docs/) and deploy/ as in the repository (the sample
# namesrv.properties, the systemd unit, the alert rules, the Grafana dashboard, the Kubernetes
# and compose files), as dist/rocketmq-nameserver-<version>-<target>.tar.gz with SHA256SUMS;
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
mkdir -p "dist/$name/docs"
install -m 755 "$binary" "dist/$name/nameserver"
# The documents keep their places in the repository, so their relative links still work.
install -m 644 LICENSE NOTICE ./*.md "dist/$name/"
install -m 644 docs/*.md "dist/$name/docs/"
cp -R deploy "dist/$name/deploy"
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
