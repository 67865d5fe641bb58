#!/usr/bin/env bash
# Runs the fuzz targets of fuzz/ (cargo-fuzz, libFuzzer) one at a time, at low priority, each
# for a fixed number of executions, and prints one line per target (RELIABILITY.md,
# "Fuzzing").
#
#   scripts/fuzz.sh                      decode, bodies, server and controller, 10 500 000 executions each
#   scripts/fuzz.sh 1000000 server       one target, a million executions
#   FUZZ_BUILD="-a -s none" scripts/fuzz.sh 10500000 server
#                                        debug assertions and overflow checks on, no sanitizer
#
# FUZZ_BUILD holds the cargo-fuzz build flags besides -O (default: none, i.e. AddressSanitizer
# and no debug assertions). The core forbids unsafe code, so "-a -s none" (overflow checks and
# debug assertions, five to seven times faster) is the stronger setting for it; the default
# keeps AddressSanitizer for the dependencies' unsafe code.
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). Seeds the corpora
# from the golden vectors first if they are missing (fuzz/seed.sh). A crash leaves its input
# in fuzz/artifacts/<target>/ and stops the script; every finding becomes a named test in
# core/tests/it/fuzz_regressions.rs or controller/tests/it/fuzz_regressions.rs. The targets'
# bodies are fuzz-checks/ (a plain library): `scripts/test.sh fuzz` runs them on stable. Logs go to FUZZ_OUT (default: a fresh mktemp directory).
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

RUNS=${1:-10500000}
shift || true
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then TARGETS=(decode bodies server controller); fi
read -r -a BUILD <<<"${FUZZ_BUILD:-}"
OUT=${FUZZ_OUT:-$(mktemp -d /tmp/nameserver-fuzz.XXXXXX)}
mkdir -p "$OUT"

cargo +nightly fuzz --version >/dev/null 2>&1 || { echo "needs nightly and cargo-fuzz: cargo install cargo-fuzz" >&2; exit 1; }
for target in "${TARGETS[@]}"; do
  if [ ! -d "corpus/$target" ] || [ -z "$(ls -A "corpus/$target")" ]; then ./seed.sh; fi
done
nice -n 10 cargo +nightly fuzz build -O "${BUILD[@]}"

for target in "${TARGETS[@]}"; do
  log=$OUT/$target.log
  echo "[fuzz $(date +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)] $target -O ${BUILD[*]}: $RUNS executions (log: $log)"
  status=ok
  nice -n 10 cargo +nightly fuzz run -O "${BUILD[@]}" "$target" -- -runs="$RUNS" -print_final_stats=1 >"$log" 2>&1 \
    || status=FAILED
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log")
  corpus=$(grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' "$log" | tail -n1 | cut -d' ' -f2)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n1 | cut -d' ' -f2)
  echo "  $target: $status, ${runs:-?} executions in ${secs:-?} s (${speed:-?}/s), coverage ${cov:-?} edges, corpus ${corpus:-?}"
  if [ "$status" != ok ]; then
    grep -E 'panicked|ERROR|SUMMARY|Test unit written' "$log" | head -n 20
    exit 1
  fi
done
