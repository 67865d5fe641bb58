#!/usr/bin/env bash
# Load and soak runs of the NameServer (release build) on 127.0.0.1 (RELIABILITY.md, "Load and
# soak"), driven by `loadgen` (bench/; its connections and fleet modes):
#
#   1. connections: SOAK_CONNS connections held open (default 8000) while 16 connections ask
#      for routes back to back, for SOAK_CONN_SECS seconds (default 120);
#   2. fleet: SOAK_BROKERS simulated brokers (default 300) registering and heartbeating with
#      heartbeatTimeoutMillis 6000, flapping, freezing until they expire, unregistering and
#      changing topics, SOAK_CLIENTS clients (default 40) asking for routes, cluster info and
#      KV entries, and an auditor checking GET_BROKER_CLUSTER_INFO against what every broker
#      did, for SOAK_SECS seconds (default 1800); the daemon scans every second.
#
# Each phase starts a fresh daemon and samples its resident memory, threads and descriptors
# from /proc; a phase fails on any wrong or missing answer, on descriptors that do not come
# back once every connection is closed, or on resident memory moving more than 10 % after the
# warm-up.
#
#   scripts/soak.sh            both phases, full length (about 35 minutes)
#   scripts/soak.sh --smoke    both phases for a few seconds with small counts (the test command)
#
# Environment: SOAK_SECS, SOAK_CONN_SECS, SOAK_CONNS, SOAK_BROKERS, SOAK_CLIENTS, SOAK_OUT (a
# directory for the logs; default a fresh mktemp directory, printed at the end),
# RELIABILITY_PROFILE (cargo profile, default release), CARGO_TARGET_DIR. Every process
# started here is killed by pid; work directories are removed.
set -euo pipefail
cd "$(dirname "$0")/.."

SMOKE=${1:-}
if [ "$SMOKE" = --smoke ]; then
  # Episodes every few seconds and a 2 s heartbeat timeout, so that flaps, freezes and expiry
  # all happen within the run.
  SECS=12 CONN_SECS=4 CONNS=200 BROKERS=20 CLIENTS=4 SAMPLE=2 TIMEOUT_MS=2000 CALM=4
else
  SECS=${SOAK_SECS:-1800} CONN_SECS=${SOAK_CONN_SECS:-120} CONNS=${SOAK_CONNS:-8000}
  BROKERS=${SOAK_BROKERS:-300} CLIENTS=${SOAK_CLIENTS:-40} SAMPLE=10 TIMEOUT_MS=6000 CALM=90
fi
TARGET_DIR=${CARGO_TARGET_DIR:-target}
KEEP_OUT=${SOAK_OUT:-}
OUT=${SOAK_OUT:-$(mktemp -d /tmp/nameserver-soak.XXXXXX)}
mkdir -p "$OUT"

# RELIABILITY_PROFILE=dev (the test command's smoke runs) takes the debug build the tests made.
PROFILE=${RELIABILITY_PROFILE:-release}
cargo build --profile "$PROFILE" --locked -q -p nameserver -p nameserver-bench --bin nameserver --bin loadgen
PROFILE_DIR=$([ "$PROFILE" = dev ] && echo debug || echo "$PROFILE")
BIN=$TARGET_DIR/$PROFILE_DIR/nameserver
TOOL=$TARGET_DIR/$PROFILE_DIR/loadgen
HTTP_OFF=()
if "$BIN" --help | grep -q -- '--no-http'; then HTTP_OFF=(--no-http); fi

WORK=$(mktemp -d /tmp/nameserver-soak-home.XXXXXX)
PID=
cleanup() {
  if [ -n "$PID" ]; then kill -KILL "$PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
  # A smoke run keeps no logs unless asked to.
  if [ "${1:-}" = --smoke ] && [ -z "$KEEP_OUT" ]; then rm -rf "$OUT"; fi
}
trap 'cleanup "${SMOKE:-}"' EXIT
trap 'exit 130' INT TERM

log() { printf '[soak %s load %s] %s\n' "$(date +%H:%M:%S)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$*"; }

# start NAME: a fresh daemon with its files under $WORK/NAME; sets PID and ADDR.
start() {
  local home=$WORK/$1
  mkdir -p "$home"
  printf 'kvConfigPath=%s\nscanNotActiveBrokerInterval=1000\n' "$home/kvConfig.json" >"$home/namesrv.properties"
  HOME=$home ROCKETMQ_HOME=$home "$BIN" -c "$home/namesrv.properties" --bind-address 127.0.0.1 --listen-port 0 \
    "${HTTP_OFF[@]}" --log-level warn >"$OUT/$1.daemon.out" 2>"$OUT/$1.daemon.log" &
  PID=$!
  ADDR=
  for _ in $(seq 1 400); do
    ADDR=$(grep -o 'address 127\.0\.0\.1:[0-9]*' "$OUT/$1.daemon.out" 2>/dev/null | head -n1 | cut -d' ' -f2) || true
    [ -n "$ADDR" ] && return 0
    sleep 0.025
  done
  echo "the daemon did not start: $(cat "$OUT/$1.daemon.log")" >&2
  exit 1
}

stop() {
  kill -TERM "$PID" 2>/dev/null || true
  wait "$PID" 2>/dev/null || true
  PID=
}

STATUS=0
log "$(nproc) cores; phase 1: $CONNS held connections + 16 queriers for ${CONN_SECS}s"
start connections
"$TOOL" connections --addr "$ADDR" --pid "$PID" --secs "$CONN_SECS" --sample-secs "$SAMPLE" --conns "$CONNS" \
  | tee "$OUT/connections.log" || STATUS=1
stop
log "phase 2: $BROKERS brokers, $CLIENTS clients for ${SECS}s"
start fleet
"$TOOL" fleet --addr "$ADDR" --pid "$PID" --secs "$SECS" --sample-secs "$SAMPLE" --brokers "$BROKERS" \
  --clients "$CLIENTS" --heartbeat-timeout-ms "$TIMEOUT_MS" --scan-ms 1000 --calm-secs "$CALM" \
  | tee "$OUT/fleet.log" || STATUS=1
stop
[ "$SMOKE" = --smoke ] && [ -z "$KEEP_OUT" ] || log "logs in $OUT"
grep -h '^RESULT' "$OUT/connections.log" "$OUT/fleet.log" | sed 's/^/  /'
if [ "$STATUS" -ne 0 ]; then
  log "SOAK FAILED"
  exit 1
fi
log "SOAK OK"
