#!/usr/bin/env bash
# The Java peers' comparison (the `java-peers` step of scripts/test.sh) with larger counts, for
# one Apache RocketMQ VERSION (5.5.0 or 4.9.7, jars from Maven Central by scripts/java/fetch.sh):
# a Java broker registered with a Java NameServer and with our daemon at once; cluster info,
# the topic list and every route compared; the mqadmin commands of
# native-server/tests/java_peers/mqadmin.commands against each, through the test's normaliser;
# a broker with 10,000 topics in one registration (and on 5.5.0 one with 10,000 more sent in
# pieces): the same topic list and routes on both, then its kill -9 (this daemon's removal time
# as a ratio of Java's); Java's producer and push consumer exchanging 10,000 messages through
# routes from ours alone (on 4.9.7 also a 5.5.0 client); SIGSTOP and SIGTERM of the broker.
#
# It runs that same test (JAVA_PEERS_SCALE=e2e), so the command list, the normaliser and the
# comparator are the test's own: nothing here can drift from it. A difference outside the
# table of docs/PROTOCOL.md §18, a lost message, a Java tool that did not print what it should
# (its exit code is never trusted alone) fails it. Then it prints a results summary, the
# figures MIGRATING.md's "Verified with" records, and `JAVA E2E OK VERSION`.
#
# usage: scripts/interop/java-e2e.sh VERSION          (≈ 10 min on 2 busy cores; run it with nice)
# env:   KEEP_LOG=1 keeps the full log (kept on failure anyway), TMPDIR, CARGO_TARGET_DIR.
set -euo pipefail

VERSION="${1:?usage: java-e2e.sh VERSION (5.5.0 or 4.9.7)}"
case "$VERSION" in (5.5.0|4.9.7) ;; (*) echo "java-e2e.sh: VERSION is 5.5.0 or 4.9.7, not '$VERSION'" >&2; exit 2;; esac
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
LOG="$(mktemp "${TMPDIR:-/tmp}/java-e2e-$VERSION.XXXXXX")"

# The jars first (the 4.9.7 run's cross pair uses a 5.5.0 client), so a missing Maven says so.
for v in "$VERSION" 5.5.0; do scripts/java/fetch.sh "$v" >/dev/null; done
echo "java-e2e $VERSION: building the Java peers test (log: $LOG)" >&2
cargo test -p nameserver --test java_peers --locked --no-run >>"$LOG" 2>&1 || {
  tail -n 30 "$LOG" >&2; echo "JAVA E2E FAILED: the test does not build" >&2; exit 1; }
started=$SECONDS
set +e
JAVA_PEERS_SCALE=e2e JAVA_PEERS_VERSIONS="$VERSION" \
  cargo test -p nameserver --test java_peers --locked -- --ignored --nocapture --exact java_peers 2>&1 |
  tee -a "$LOG" | grep --line-buffered -E "^$VERSION: .* after [0-9.]+ s$" >&2
rc=${PIPESTATUS[0]}
set -e
minutes=$(( (SECONDS - started + 59) / 60 ))

# The lines the test prints for each check: the run is only OK if every one is there.
v="${VERSION//./\\.}"
expected=(
  "^$v: cluster up after"
  "^$v: mqadmin: [0-9]+ of [0-9]+ commands print the same"
  "^$v: [0-9]+ topics of .* routed by both after .* Java lists [0-9]+, ours [0-9]+$"
  "^$v: [0-9]+ topics, the same count and routes on both NameServers"
  "^$v: a $v producer and push consumer on the $v broker, routes from ours: 10000 of 10000 messages sent SEND_OK, 10000 received"
  "^$v: after kill -9 the broker left ours at "
  "^$v: after SIGSTOP the broker left ours at "
  "^$v: after SIGTERM the broker left ours at "
  "^test result: ok\. 1 passed"
)
if [ "$VERSION" = 4.9.7 ]; then
  expected+=("^$v: a 5\.5\.0 producer and push consumer on the 4\.9\.7 broker, routes from ours: 10000 of 10000 messages sent SEND_OK, 10000 received")
fi
missing=()
for pattern in "${expected[@]}"; do
  grep -Eq -- "$pattern" "$LOG" || missing+=("$pattern")
done

echo
echo "java-e2e $VERSION, $(date -u +%Y-%m-%d), tree $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (modified)'), ${minutes} min, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$(java -version 2>&1 | head -n 1)"
grep -E "^$v: [0-9]+ topics|^$v: mqadmin: |^$v: a .* producer|^$v: after " "$LOG" || true
grep -E "^  covered by |^UNCOVERED " "$LOG" | sort | uniq -c || true
if [ "$rc" != 0 ] || [ "${#missing[@]}" -gt 0 ]; then
  echo "JAVA E2E FAILED: the test exited $rc; lines missing from its output: ${missing[*]:-none}"
  echo "last lines of the log ($LOG):"
  grep -vE '^(SENT|RECEIVED) ' "$LOG" | tail -n 40
  exit 1
fi
[ "${KEEP_LOG:-0}" = 1 ] && echo "log: $LOG" || rm -f "$LOG"
echo "JAVA E2E OK $VERSION"
