#!/usr/bin/env bash
# kill -9 the NameServer in the middle of KV persistence, round after round, on the same
# kvConfig.json (RELIABILITY.md, "Crash safety").
#
# Each round: start the daemon (release build) on the file, send a burst of PUT_KV_CONFIG
# (300 puts of about 2 KB; each put is appended to kvConfig.json.journal and fsynced, and
# once the journal outgrows the file the daemon writes kvConfig.json whole: temp file, fsync,
# rename, fsync the directory), kill -9 it 0-250 ms after the burst is sent, while it applies
# the puts and writes them, then start it again on the file. It must load (the daemon refuses
# to start on a corrupt file or a journal damaged before its last record; a torn last record
# is dropped with a WARN) and the table read back must be whole: every value exactly as some
# put wrote it, keys in the order the puts went, and nothing older than the previous round's
# check saw — the old content or a newer one, never a torn mix — and every put the daemon
# answered before the kill. The check ends with a clean stop, which leaves kvConfig.json whole
# and no journal.
#
#   scripts/crash-loop.sh [ROUNDS]     default 200 rounds (about 2 minutes)
#
# Listens on 127.0.0.1 only; every process it starts is killed by pid; the work directory is
# removed at the end. CARGO_TARGET_DIR and RELIABILITY_PROFILE (cargo profile, default
# release) are honoured.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${1:-200}
KEYS=300
TARGET_DIR=${CARGO_TARGET_DIR:-target}
# RELIABILITY_PROFILE=dev (the test command's smoke runs) takes the debug build the tests made.
PROFILE=${RELIABILITY_PROFILE:-release}
cargo build --profile "$PROFILE" --locked -q -p nameserver -p nameserver-bench --bin nameserver --bin loadgen
PROFILE_DIR=$([ "$PROFILE" = dev ] && echo debug || echo "$PROFILE")
BIN=$TARGET_DIR/$PROFILE_DIR/nameserver
TOOL=$TARGET_DIR/$PROFILE_DIR/loadgen
HTTP_OFF=()
if "$BIN" --help | grep -q -- '--no-http'; then HTTP_OFF=(--no-http); fi

WORK=$(mktemp -d /tmp/nameserver-crash.XXXXXX)
PID=
cleanup() {
  if [ -n "$PID" ]; then kill -KILL "$PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

KV=$WORK/store/kvConfig.json
printf 'kvConfigPath=%s\n' "$KV" > "$WORK/namesrv.properties"

fail() {
  echo "CRASH LOOP FAILED in round $ROUND: $*" >&2
  if [ -f "$WORK/err" ]; then tail -n 5 "$WORK/err" >&2; fi
  exit 1
}

# start: runs the daemon on the KV file and sets PID and ADDR; fails if it does not boot.
start() {
  # Emptied here, not by the redirection below: that happens in the child, maybe after the
  # first look for the boot line, which would then find the previous daemon's.
  : >"$WORK/out"
  HOME=$WORK ROCKETMQ_HOME=$WORK "$BIN" -c "$WORK/namesrv.properties" --bind-address 127.0.0.1 --listen-port 0 \
    "${HTTP_OFF[@]}" >"$WORK/out" 2>"$WORK/err" &
  PID=$!
  ADDR=
  for _ in $(seq 1 400); do
    ADDR=$(grep -o 'address 127\.0\.0\.1:[0-9]*' "$WORK/out" 2>/dev/null | head -n1 | cut -d' ' -f2) || true
    [ -n "$ADDR" ] && return 0
    kill -0 "$PID" 2>/dev/null || fail "the daemon did not start on the file (it refuses a corrupt one)"
    sleep 0.025
  done
  fail "no boot line"
}

# stop: kill -9 the daemon and reap it.
stop() {
  kill -KILL "$PID" 2>/dev/null || true
  wait "$PID" 2>/dev/null || true
  PID=
}

TMP_LEFT=0 PARTIAL=0 CHANGED=0 ANSWERED=0 PREV_SUM= JOURNALS=0 TORN=0 STALE=0
started=$(date +%s)
for ROUND in $(seq 1 "$ROUNDS"); do
  start
  "$TOOL" kv-put --addr "$ADDR" --keys "$KEYS" --round "$ROUND" >"$WORK/put" 2>&1 &
  PUT=$!
  # Once the burst is on its way, kill after 0-250 ms, while the daemon applies the puts and
  # writes them. The writer may take seconds to connect on a loaded machine (killed before it
  # did, it failed a run with "connection refused"): wait up to 20 s for it.
  for _ in $(seq 1 4000); do
    grep -q '^sent' "$WORK/put" 2>/dev/null && break
    kill -0 "$PUT" 2>/dev/null || break
    sleep 0.005
  done
  sleep "0.$(printf '%03d' $((RANDOM % 251)))"
  stop
  wait "$PUT" || fail "the writer failed: $(cat "$WORK/put") (daemon at $ADDR: $(grep -c . "$WORK/err") log lines)"
  answered=$(sed -n 's/^answered //p' "$WORK/put")
  if compgen -G "$(dirname "$KV")/.$(basename "$KV").*.tmp" >/dev/null; then TMP_LEFT=$((TMP_LEFT + 1)); fi
  if [ -s "$KV.journal" ]; then JOURNALS=$((JOURNALS + 1)); fi
  sum=$(cksum "$KV" 2>/dev/null | cut -d' ' -f1 || true)
  if [ "$sum" != "$PREV_SUM" ]; then CHANGED=$((CHANGED + 1)); fi
  PREV_SUM=$sum

  # The file must load, and hold the old or a newer whole table.
  start
  check=$("$TOOL" kv-check --addr "$ADDR" --keys "$KEYS" --round "$ROUND" --state "$WORK/state" 2>&1) || fail "$check"
  if grep -q 'ends in a torn record' "$WORK/err"; then TORN=$((TORN + 1)); fi
  # Killed between a whole write's rename and the journal's truncate: the journal goes aside.
  if grep -q 'follows another' "$WORK/err"; then STALE=$((STALE + 1)); fi
  kill -TERM "$PID" 2>/dev/null || true
  wait "$PID" 2>/dev/null || true
  PID=
  [ ! -e "$KV.journal" ] || fail "a clean stop left $KV.journal behind"
  # How many of this round's puts reached the file, against how many were answered.
  persisted=$(tr ' ' '\n' <"$WORK/state" | grep -cx "$ROUND" || true)
  if [ "$persisted" -gt 0 ] && [ "$persisted" -lt "$KEYS" ]; then PARTIAL=$((PARTIAL + 1)); fi
  # A put is answered only once it is on disk (journal or file): every answered put must be there.
  lost=$((answered - persisted))
  [ "$lost" -le 0 ] || fail "$lost answered puts are not in the file ($answered answered, $persisted persisted)"
  ANSWERED=$((ANSWERED + answered))
  printf 'round %3d: %3d answered, %3d persisted, file %s\n' "$ROUND" "$answered" "$persisted" "${check#ok }"
done
echo "CRASH LOOP ok: $ROUNDS rounds of kill -9 in $(($(date +%s) - started))s; the file and its journal loaded and held" \
  "a whole table every time; $CHANGED rounds changed the file, $PARTIAL stopped part-way through a round's puts," \
  "$JOURNALS left a journal to replay, $TORN a torn last record (dropped), $STALE a journal of the previous file" \
  "(moved aside), $TMP_LEFT a temp file (killed in the" \
  "middle of a whole write); all $ANSWERED answered puts were there"
