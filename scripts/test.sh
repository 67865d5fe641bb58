#!/usr/bin/env bash
# Runs every test of the project on a fresh machine, installing what it needs first.
#
#   scripts/test.sh             every step, in order
#   scripts/test.sh STEP…       the named steps alone, in the order given (each installs what it needs)
#   scripts/test.sh --list      the steps, one a line: name and what it runs
#
# At the end, pass or fail, it prints the minutes each step took and the step that failed.
set -euo pipefail
cd "$(dirname "$0")/.."
# A run builds every crate a few ways (tests, wasm, fuzz checks, the deploy build) from
# scratch: incremental data would add gigabytes to the target directory and save nothing.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

# name|what it checks (the functions below are named step_<name>, with - as _)
STEPS=(
  "fmt|formatting (cargo fmt --check)"
  "links|docs: every cited section, mentioned document and relative link resolves inside the repository"
  "waits|tests wait on events: no sleep, waitForTimeout or wall-clock bound outside tests/waits-allowed.txt"
  "clippy|clippy, the whole workspace and every target"
  "daemon|cargo test -p nameserver (the daemon's unit, integration and doc tests)"
  "java|Java oracle: the same requests to Apache RocketMQ's own NameServer (5.5.0, 5.3.3, 4.9.7 from Maven Central) and to ours, and the controller codes to Java 5.5.0's embedded controller and to ours; differences outside docs/PROTOCOL.md §18 fail"
  "java-peers|Java peers: a real Java broker (5.5.0, 4.9.7) registered with Java's NameServer and ours; routes, cluster info, topic lists, 29 mqadmin commands, Java producers and push consumers exchanging 200 messages through ours (both versions and a cross pair), two 2,000-topic brokers (one split registration) and the broker's removal after kill -9, SIGSTOP and SIGTERM compared, differences outside docs/PROTOCOL.md §18 failing; beside it, on JVMs of their own: a signing broker and mqadmin through our authentication; GO_AWAY (a 5.5.0 and a 4.9.7 producer keep sending through a 5.5.0 broker while our NameServer restarts with enableShutdownGracefully=true: no send fails, the 5.5.0 client receives GO_AWAY, the 4.9.7 one's route queries are answered as Java's: the route, then TOPIC_NOT_EXIST once the broker, told GO_AWAY, closed its connection); TLS (a 5.5.0 producer and mqadmin get routes in permissive and enforcing mode, a cipher outside tls.ciphers or TLSv1.2 against TLSv1.3 refused, a plaintext PUT_KV in enforcing mode stores nothing); mqadmin 5.5.0's controller commands (getControllerMetaData, getSyncStateSet, getBrokerEpoch, electMaster, cleanBrokerMetadata, getControllerConfig, updateControllerConfig: 14 runs) against our embedded controller and Java 5.5.0's, outputs compared; failover through our embedded controller (two 5.5.0 brokers in controller mode get ids 1 and 2; kill -9 of the master: the slave elected and routed as id 0, the producer's sends acknowledged again, every acknowledged message consumed, the old master back as a slave with its id)"
  "workspace|cargo test for the other crates (core, controller, sim, wasm on the host, bench, testkit), and wasm/types.d.ts against the Rust types (the ts feature)"
  "fuzz|the four fuzz targets (decode, bodies, server, controller) on stable: each seed, then 10,000 to 50,000 seeded random and mutated inputs per target (fuzz-checks/tests/smoke.rs; the long libFuzzer runs are scripts/fuzz.sh)"
  "doc|API docs build without warnings (broken intra-doc links fail)"
  "bench|benchmark tools: load generator, floor and bench script (smoke, tiny counts, no peer)"
  "reliability|reliability tools: soak driver and kill -9 crash loop (smoke; full runs in RELIABILITY.md)"
  "nostd|core, sim and controller build without std (no-std target and wasm32)"
  "wasm|WebAssembly module and bindings (pkg/)"
  "deploy|deploy files offline: Dockerfile lint, systemd unit, Kubernetes manifests, alert rules, the image's binary run as the image runs it, and the release archive's layout checked around it"
  "wasm-node|wasm-bindgen tests in Node (clippy and tests for the wasm32 target)"
  "js|JavaScript: the page's formatting (prettier --check, printWidth 120), its typed modules (tsc --noEmit -p www/jsconfig.json), tests of the package, of the page's modules in Node (tests/js/page/), of the link check and the wait check (node --test tests/js/)"
  "browser|browser tests of the page (www/, headless chromium)"
  "interop|interop: the ali-ons npm client gets routes from the daemon"
  "package|npm package from a clean clone: pack (builds pkg/), contents, Node, types, vite bundle in Chromium, playground bin"
)

names() { for s in "${STEPS[@]}"; do printf '%s\n' "${s%%|*}"; done; }
list() { for s in "${STEPS[@]}"; do printf '%-12s %s\n' "${s%%|*}" "${s#*|}"; done; }

targets() {
  for target in "$@"; do
    rustup target list --installed | grep -qx "$target" || rustup target add "$target"
  done
}
npm_packages() {
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
  fi
}
# The daemon's debug binary, which the browser, interop and deploy steps run.
daemon_bin() {
  cargo build -p nameserver --locked
  export NAMESERVER_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/nameserver"
}

step_fmt() { cargo fmt --all -- --check; }
step_links() { node scripts/check-links.mjs; }
step_waits() { node scripts/check-waits.mjs; }
step_clippy() { cargo clippy --workspace --all-targets --locked -- -D warnings; }
step_daemon() { cargo test -p nameserver --locked; }
# Apache RocketMQ's jars download in the background from the start of the run (java_fetch,
# below), while the Rust steps build.
JAVA_VERSIONS="5.5.0 5.3.3 4.9.7"
java_fetch_pid=""
java_fetch_log=""
java_fetch() {
  [ "${NAMESERVER_SKIP_JAVA:-}" = 1 ] && return 0
  java_fetch_log="$(mktemp "${TMPDIR:-/tmp}/nameserver-java-fetch.XXXXXX")"
  (for v in $JAVA_VERSIONS; do scripts/java/fetch.sh "$v" || exit 1; done) >"$java_fetch_log" 2>&1 &
  java_fetch_pid=$!
}
# Waits for the jars (fetching them if no fetch has started); a step that ran it once is done.
java_jars() {
  [ -n "$java_fetch_pid" ] || java_fetch
  [ "$java_fetch_pid" = done ] && return 0
  if ! wait "$java_fetch_pid"; then
    echo "cannot fetch Apache RocketMQ from Maven Central (NAMESERVER_SKIP_JAVA=1 skips the Java steps):" >&2
    tail -n 8 "$java_fetch_log" >&2
    return 1
  fi
  rm -f "$java_fetch_log"
  java_fetch_pid=done
}
step_java() {
  if [ "${NAMESERVER_SKIP_JAVA:-}" = 1 ]; then
    echo "SKIPPED (NAMESERVER_SKIP_JAVA=1): the Java oracle"
    return 0
  fi
  java_jars
  # The long run (long_run::java_long_run) is scripts/java/long-run.sh, not a test step.
  JAVA_ORACLE_VERSIONS="${JAVA_VERSIONS// /,}" cargo test -p nameserver --test java_oracle --locked -- --ignored --nocapture \
    --skip long_run::java_long_run
}
# The Java peers file (its tests are #[ignore]d in plain `cargo test`). Three of its tests run at
# once: most of each is waiting on JVMs (boots, registrations, idle closes), which overlaps.
# GO_AWAY runs alone after them: beside them on a busy machine its 5.5.0 client twice did not
# log GO_AWAY within 180 s of the stop (its TOPIC_NOT_EXIST in the window is Java's answer and
# now expected); all four at once left JVMs unbooted after 180 s.
step_java_peers() {
  if [ "${NAMESERVER_SKIP_JAVA:-}" = 1 ]; then
    echo "SKIPPED (NAMESERVER_SKIP_JAVA=1): the Java peers"
    return 0
  fi
  java_jars
  cargo test -p nameserver --test java_peers --locked -- --ignored --nocapture --test-threads=3 --skip goaway:: \
    --skip controller_admin::
  # mqadmin's controller commands on their own (three JVMs): run beside the three above on a
  # heavily loaded machine, auth's mqadmin timed out.
  cargo test -p nameserver --test java_peers --locked -- --ignored --nocapture controller_admin::
  cargo test -p nameserver --test java_peers --locked -- --ignored --nocapture goaway::
  # Alone too: its times (kill -9 → elected → routed) are printed, and its JVMs boot faster.
  cargo test -p nameserver --test java_failover --locked -- --ignored --nocapture
}
step_workspace() {
  cargo test --workspace --exclude nameserver --exclude nameserver-fuzz-checks --locked
  # The TypeScript declarations, derived only under the ts feature: fails on drift.
  cargo test -p nameserver-wasm --features ts --lib --locked types::
}
# The fuzz targets' bodies are a plain library, so libFuzzer (nightly) is not needed here.
step_fuzz() { cargo test -p nameserver-fuzz-checks --locked; }
step_doc() { RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked; }
step_bench() { scripts/bench.sh --smoke; }
# The smoke runs check the tools, not the speed: the debug build the daemon's tests make will do
# (a release build of the same binary took minutes of the run).
step_reliability() {
  RELIABILITY_PROFILE=dev scripts/soak.sh --smoke
  RELIABILITY_PROFILE=dev scripts/crash-loop.sh 5
}
step_nostd() {
  targets wasm32-unknown-unknown thumbv7em-none-eabihf
  cargo build -p nameserver-core --no-default-features --locked --target thumbv7em-none-eabihf
  cargo build -p nameserver-core --no-default-features --locked --target wasm32-unknown-unknown
  cargo build -p nameserver-sim --no-default-features --locked --target thumbv7em-none-eabihf
  cargo build -p nameserver-sim --no-default-features --locked --target wasm32-unknown-unknown
  cargo build -p nameserver-controller --no-default-features --locked --target thumbv7em-none-eabihf
  cargo build -p nameserver-controller --no-default-features --locked --target wasm32-unknown-unknown
}
step_wasm() { scripts/build-wasm.sh; }
step_deploy() { scripts/test-deploy.sh; }
step_wasm_node() {
  targets wasm32-unknown-unknown
  cargo clippy -p nameserver-wasm --target wasm32-unknown-unknown --all-targets --locked -- -D warnings
  cargo test -p nameserver-wasm --target wasm32-unknown-unknown --locked
}
step_js() {
  npm_packages
  npm run --silent format:check
  npx tsc --noEmit -p www/jsconfig.json
  node --test tests/js/
}
step_browser() { scripts/test-browser.sh; }
step_interop() {
  npm_packages
  daemon_bin
  node --test --test-force-exit tests/interop/
}
step_package() { scripts/test-package.sh; }

case "${1:-}" in
  --list)
    list
    exit 0
    ;;
  -h | --help)
    sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
esac

run=()
if [ "$#" -eq 0 ]; then
  mapfile -t run < <(names)
else
  for name in "$@"; do
    if ! names | grep -x -- "$name" >/dev/null; then
      printf 'scripts/test.sh: no step named %q; the steps are:\n' "$name" >&2
      list >&2
      exit 2
    fi
    run+=("$name")
  done
fi

timings=()
current=""
started=0
report() {
  local status=$?
  [ -n "$current" ] && timings+=("$current $(($(date +%s) - started))")
  printf '\n== minutes per step\n'
  local total=0 entry
  for entry in "${timings[@]}"; do
    set -- $entry
    total=$((total + $2))
    awk -v n="$1" -v s="$2" 'BEGIN { printf "%-12s %5.1f\n", n, s / 60 }'
  done
  awk -v s="$total" 'BEGIN { printf "%-12s %5.1f\n", "total", s / 60 }'
  # A step still current did not finish (a failure, or the run was stopped).
  if [ "$status" -eq 0 ] && [ -z "$current" ]; then
    printf '\n== all %d steps passed\n' "${#timings[@]}"
  else
    printf '\n== FAILED in step %s (exit %d)\n' "${current:-?}" "$status"
  fi
}
trap report EXIT

for name in "${run[@]}"; do
  case "$name" in java | java-peers) [ -n "$java_fetch_pid" ] || java_fetch ;; esac
done
for name in "${run[@]}"; do
  for s in "${STEPS[@]}"; do [ "${s%%|*}" = "$name" ] && printf '\n== %s: %s\n' "$name" "${s#*|}"; done
  current=$name
  started=$(date +%s)
  "step_${name//-/_}"
  timings+=("$name $(($(date +%s) - started))")
  awk -v n="$name" -v s="$(($(date +%s) - started))" 'BEGIN { printf "== %s passed in %.1f min\n", n, s / 60 }'
  current=""
done
