#!/usr/bin/env bash
# Benchmarks, in one run on this machine, of this NameServer ("ours"), rocketmq-rust's
# rocketmq-namesrv 1.0.0 ("peer") and the floor server (frames each request and answers a fixed,
# route-sized body: the protocol's ceiling here). Everything listens on 127.0.0.1 only.
#
#   scripts/bench.sh           the full run (about 10 minutes; builds the peer first when it is
#                              missing, which takes 8-11 minutes more); prints a Markdown table
#   scripts/bench.sh --smoke   tiny counts, no peer, no criterion, dev build: checks that the
#                              generator, the floor and this script work (seconds after the build)
#   scripts/bench.sh --large   only the large-cluster section (100 brokers x 10,000 topics:
#                              route load cold and warm through the registration storm, memory,
#                              one registration of 1,000,000 topics), with the peer; ~8 minutes
#
# Environment:
#   CARGO_TARGET_DIR  where cargo builds (default: target)
#   INTEROP_CACHE     the peer's build cache, outside the work tree (default: the first of
#                     $HOME/.cache/rmq-interop and ../.cache/interop that holds the peer, else
#                     $HOME/.cache/rmq-interop, where scripts/interop/build.sh builds it)
#   PEER_BIN          a rocketmq-namesrv-rust binary to use instead
#   BENCH_REPS        repetitions of each latency and memory measure (default 3; route
#                     throughput runs 5 times); the table shows their median
#   BENCH_NICE        niceness of the servers and the generator (default -10 as root, else 0),
#                     so that other work on a shared machine disturbs all three less
#   BENCH_OUT         directory for logs and raw results (default: a fresh mktemp dir, removed
#                     after a successful smoke run)
#   BENCH_PROFILE     cargo profile of the measured binaries (default: release; dev for --smoke)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

MODE=full
case "${1:-}" in
  --smoke) MODE=smoke ;;
  --large) MODE=large ;;
  "") ;;
  *) echo "usage: scripts/bench.sh [--smoke | --large]" >&2; exit 2 ;;
esac

if [ "$MODE" = smoke ]; then
  REPS=1 ROUTE_REPS=1 CONNS=4 DEPTH=2 TOPICS=20 BROKERS=2 WARMUP_MS=100 DURATION_MS=500 PP_MS=300 REREG_MS=200
  MEM_BROKERS=3 MEM_TOPICS=20 BIG_TOPICS=500 BIG_REPS=1 STORM_BROKERS=3 STORM_TOPICS=20 START_REPS=2
  LARGE_BROKERS=3 LARGE_TOPICS=50 LARGE_PHASE_MS=300 HUGE_TOPICS=2000
else
  REPS=${BENCH_REPS:-3} ROUTE_REPS=${BENCH_REPS:-5} CONNS=32 DEPTH=8 TOPICS=1000 BROKERS=4 WARMUP_MS=2000 DURATION_MS=10000 PP_MS=5000
  REREG_MS=5000 MEM_BROKERS=100 MEM_TOPICS=1000 BIG_TOPICS=10000 BIG_REPS=5 STORM_BROKERS=100 STORM_TOPICS=1000
  START_REPS=20
  LARGE_BROKERS=100 LARGE_TOPICS=10000 LARGE_PHASE_MS=5000 HUGE_TOPICS=1000000
fi
FLOOR_BROKERS=$BROKERS

TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
# The smoke run only checks that the tools work: the dev build (which the tests have mostly built
# already) will do. Measurements use the release build.
PROFILE=${BENCH_PROFILE:-$([ "$MODE" = smoke ] && echo dev || echo release)}
BIN=$TARGET_DIR/$([ "$PROFILE" = dev ] && echo debug || echo "$PROFILE")
OUT=${BENCH_OUT:-$(mktemp -d /tmp/nameserver-bench.XXXXXX)}
mkdir -p "$OUT"
if [ "$(id -u)" = 0 ]; then NICE=${BENCH_NICE:--10}; else NICE=${BENCH_NICE:-0}; fi
RUN=(nice -n "$NICE")
LOADGEN=$BIN/loadgen

log() { printf '[bench %s load %s] %s\n' "$(date +%H:%M:%S)" "$(cut -d' ' -f1 /proc/loadavg)" "$*" >&2; }
die() { log "FAILED: $*"; exit 1; }

# ---------------------------------------------------------------------------------------------
# Processes: every server started here is recorded and killed on exit, by pid.
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# stop PID: kills one server started here and waits until it is gone.
stop() {
  local pid=$1
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.02; done
  local kept=()
  for p in "${PIDS[@]}"; do [ "$p" = "$pid" ] || kept+=("$p"); done
  PIDS=("${kept[@]+"${kept[@]}"}")
}

# wait_boot FILE: waits for a "... address HOST:PORT" line and prints HOST:PORT.
wait_boot() {
  local file=$1 addr=
  for _ in $(seq 1 400); do
    addr=$(grep -o 'address 127\.0\.0\.1:[0-9]*' "$file" 2>/dev/null | head -n1 | cut -d' ' -f2) || true
    [ -n "$addr" ] && { echo "$addr"; return 0; }
    sleep 0.025
  done
  return 1
}

SEQ=0
# start KIND: starts a fresh server of KIND (ours, peer, floor); sets PID and ADDR.
start() {
  local kind=$1 dir
  SEQ=$((SEQ + 1))
  dir=$OUT/run-$SEQ-$kind
  mkdir -p "$dir/home"
  case $kind in
    ours)
      HOME=$dir/home ROCKETMQ_HOME=$dir "${RUN[@]}" "$BIN/nameserver" --listen-port 0 --bind-address 127.0.0.1 \
        >"$dir/stdout" 2>"$dir/server.log" </dev/null &
      PID=$!
      PIDS+=("$PID")
      ADDR=$(wait_boot "$dir/stdout") || die "ours did not start; see $dir"
      ;;
    floor)
      "${RUN[@]}" "$BIN/floor" --listen-port 0 --brokers "$FLOOR_BROKERS" >"$dir/stdout" 2>&1 </dev/null &
      PID=$!
      PIDS+=("$PID")
      ADDR=$(wait_boot "$dir/stdout") || die "the floor did not start; see $dir"
      ;;
    peer)
      local port
      port=$("$LOADGEN" port)
      PID=$(NAMESRV_BIN=$PEER_BIN "${RUN[@]}" "$ROOT/scripts/interop/run-peer-namesrv.sh" "$port" "$dir" 2>"$dir/start.log") ||
        die "the peer did not start; see $dir"
      PIDS+=("$PID")
      ADDR=127.0.0.1:$port
      ;;
  esac
}

# field LINE KEY: the value of KEY=value in LINE.
# (empty when a measurement failed and printed nothing)
field() { { grep -o "\b$2=[^ ]*" <<<"$1" || true; } | head -n1 | cut -d= -f2-; }

# median VALUES...: the median (mean of the middle two for an even count); "n/a" if none.
median() {
  [ $# -gt 0 ] || { echo n/a; return; }
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ratio A B: A / B with two decimals, or n/a.
ratio() {
  awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || a == "n/a" || b == "n/a" || b + 0 == 0) print "n/a"; else printf "%.2f", a / b }'
}

declare -A R # R[measure,kind] = value
ERRORS=0
# measure NAME KIND CMD...: runs a loadgen command, keeps its line in the raw log; a failing
# command is counted (and fatal in smoke mode) but the run goes on.
LINE=
measure() {
  local name=$1 kind=$2
  shift 2
  local rc=0
  LINE=$("${RUN[@]}" "$@" 2>>"$OUT/loadgen.err") || rc=$?
  printf '%s %s rc=%s load=%s %s\n' "$name" "$kind" "$rc" "$(cut -d' ' -f1 /proc/loadavg)" "$LINE" >>"$OUT/raw.txt"
  log "$name $kind: ${LINE:-no output} (exit $rc)"
  if [ "$rc" -ne 0 ]; then
    ERRORS=$((ERRORS + 1))
    [ "$MODE" = smoke ] && die "$name against $kind failed (exit $rc); see $OUT"
  fi
  return 0
}

# ---------------------------------------------------------------------------------------------
log "mode $MODE; output in $OUT"
log "building ($PROFILE profile): nameserver, loadgen, floor"
cargo build --profile "$PROFILE" --locked -p nameserver -p nameserver-bench >"$OUT/build.log" 2>&1 ||
  { tail -n 30 "$OUT/build.log" >&2; die "cargo build"; }

KINDS="ours floor"
if [ "$MODE" != smoke ]; then
  if [ -z "${PEER_BIN:-}" ]; then
    if [ -z "${INTEROP_CACHE:-}" ]; then
      INTEROP_CACHE=$HOME/.cache/rmq-interop
      for cache in "$HOME/.cache/rmq-interop" "$(cd "$ROOT/.." && pwd)/.cache/interop"; do
        if [ -x "$cache/namesrv/bin/rocketmq-namesrv-rust" ]; then INTEROP_CACHE=$cache; break; fi
      done
    fi
    export INTEROP_CACHE
    PEER_BIN=$INTEROP_CACHE/namesrv/bin/rocketmq-namesrv-rust
    if [ ! -x "$PEER_BIN" ]; then
      log "the peer is missing: building rocketmq-namesrv 1.0.0 into $INTEROP_CACHE (8-11 minutes)"
      INTEROP_ONLY=namesrv "$ROOT/scripts/interop/build.sh" || die "building the peer"
    fi
  fi
  [ -x "$PEER_BIN" ] || die "no peer binary at $PEER_BIN"
  KINDS="ours peer floor"
  log "peer: $PEER_BIN"
fi

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown) ($(git status --porcelain 2>/dev/null | wc -l) paths changed)"
  echo "cpu: $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
  echo "kernel: $(uname -r); memory: $(free -m | awk '/Mem:/ { print $2 }') MiB"
  echo "load at start: $(cat /proc/loadavg); niceness of the measured processes: $NICE"
  echo "busiest processes at start: $(ps -eo pcpu=,comm= --sort=-pcpu | head -n 3 | awk '{ printf "%s %s%%; ", $2, $1 }')"
} | tee "$OUT/machine.txt" >&2

# ---------------------------------------------------------------------------------------------
# The large cluster (issue 18): one fresh server of each kind per measure, one run each. The
# floor answers a body as large as a route on LARGE_BROKERS brokers.
large_cluster() {
  local kind
  FLOOR_BROKERS=$LARGE_BROKERS
  log "large cluster: route load ${CONNS}x${DEPTH} while $LARGE_BROKERS brokers x $LARGE_TOPICS topics register, then cold and warm phases of $LARGE_PHASE_MS ms"
  for kind in $KINDS; do
    start "$kind"
    measure cold "$kind" "$LOADGEN" --label "$kind" cold --addr "$ADDR" --brokers "$LARGE_BROKERS" \
      --topics "$LARGE_TOPICS" --conns "$CONNS" --depth "$DEPTH" --phase-ms "$LARGE_PHASE_MS"
    for f in register_all_ms storm_max_us cold_ok_qps cold_p99_us cold_max_us warm_ok_qps warm_p99_us; do
      R[large_$f,$kind]=$(field "$LINE" "$f")
    done
    R[large_cold_ratio,$kind]=$(ratio "$(field "$LINE" cold_ok_qps)" "$(field "$LINE" warm_ok_qps)")
    stop "$PID"
  done
  log "large cluster: resident memory with $LARGE_BROKERS brokers x $LARGE_TOPICS topics registered"
  for kind in $KINDS; do
    start "$kind"
    sleep 1
    measure hold-large "$kind" "$LOADGEN" --label "$kind" hold --addr "$ADDR" --brokers "$LARGE_BROKERS" \
      --topics "$LARGE_TOPICS" --pid "$PID"
    R[large_rss,$kind]=$(awk -v k="$(field "$LINE" rss_loaded_kib)" 'BEGIN { if (k != "") printf "%.1f", k / 1024 }')
    stop "$PID"
  done
  log "large cluster: one $BIG_TOPICS-topic registration (JSON) and one of $HUGE_TOPICS topics (compressed), fresh servers"
  for kind in $KINDS; do
    start "$kind"
    measure register-one-large "$kind" "$LOADGEN" --label "$kind" register-one --addr "$ADDR" --topics "$BIG_TOPICS" --reps 1
    R[large_big,$kind]=$(field "$LINE" first_ms | grep -v nan || true)
    stop "$PID"
    start "$kind"
    measure register-huge "$kind" "$LOADGEN" --label "$kind" register-one --addr "$ADDR" --topics "$HUGE_TOPICS" \
      --reps 1 --compressed --pid "$PID"
    if [ "$(field "$LINE" errors)" = 0 ]; then
      R[huge_ms,$kind]=$(field "$LINE" first_ms)
      R[huge_rss,$kind]=$(awk -v k="$(field "$LINE" rss_after_kib)" 'BEGIN { if (k != "") printf "%.1f", k / 1024 }')
    else
      R[huge_ms,$kind]="refused($(field "$LINE" bad_codes))"
    fi
    stop "$PID"
  done
  FLOOR_BROKERS=$BROKERS
}

large_table() {
  echo
  echo "Large cluster: $LARGE_BROKERS brokers × $LARGE_TOPICS topics, one run each; the floor answers a route-sized body for $LARGE_BROKERS brokers."
  echo
  echo "| measure | ours | peer | floor | ours/peer | ours/floor | target | status |"
  echo "|---|---:|---:|---:|---:|---:|---|---|"
  row "RSS after $LARGE_BROKERS × $LARGE_TOPICS registered (MiB)" large_rss "≤ 150 MiB" "max=150"
  row "time to register them all, route load running (ms)" large_register_all_ms "" -
  row "slowest route reply during the registrations (µs)" large_storm_max_us "≤ 50 ms" "max=50000"
  row "route QPS, first $LARGE_PHASE_MS ms after (cold), SUCCESS only" large_cold_ok_qps "" -
  row "route p99 (µs), cold" large_cold_p99_us "≤ 5 ms" "max=5000"
  row "route QPS, the next $LARGE_PHASE_MS ms (warm)" large_warm_ok_qps "" -
  row "route p99 (µs), warm" large_warm_p99_us "" -
  row "cold QPS / warm QPS" large_cold_ratio "≥ 0.5" "min=0.5"
  row "one $BIG_TOPICS-topic registration, fresh server (ms)" large_big "≤ ⅓ × peer" "peer<=0.3334"
  row "one $HUGE_TOPICS-topic registration, compressed (ms)" huge_ms "≤ 1500 ms" "max=1500"
  row "RSS after it (MiB)" huge_rss "≤ 500 MiB" "max=500"
}

# ---------------------------------------------------------------------------------------------
if [ "$MODE" != large ]; then
log "route throughput: $CONNS connections x depth $DEPTH over $TOPICS topics, $BROKERS brokers registered"
for _ in $(seq 1 "$ROUTE_REPS"); do
  for kind in $KINDS; do
    start "$kind"
    measure route "$kind" "$LOADGEN" --label "$kind" route --addr "$ADDR" --conns "$CONNS" --depth "$DEPTH" \
      --topics "$TOPICS" --brokers "$BROKERS" --reregister-ms "$REREG_MS" --warmup-ms "$WARMUP_MS" --duration-ms "$DURATION_MS"
    R[route_qps,$kind]+="$(field "$LINE" qps) "
    R[route_p50,$kind]+="$(field "$LINE" p50_us) "
    R[route_p99,$kind]+="$(field "$LINE" p99_us) "
    stop "$PID"
  done
done

log "ping-pong: 1 connection, depth 1"
for _ in $(seq 1 "$REPS"); do
  for kind in $KINDS; do
    start "$kind"
    measure pingpong "$kind" "$LOADGEN" --label "$kind" pingpong --addr "$ADDR" --topics "$TOPICS" \
      --brokers "$BROKERS" --reregister-ms "$REREG_MS" --warmup-ms "$WARMUP_MS" --duration-ms "$PP_MS"
    R[pp_p50,$kind]+="$(field "$LINE" p50_us) "
    R[pp_p99,$kind]+="$(field "$LINE" p99_us) "
    stop "$PID"
  done
done

log "resident memory: idle, then $MEM_BROKERS brokers x $MEM_TOPICS topics registered (connections open)"
for _ in $(seq 1 "$REPS"); do
  for kind in $KINDS; do
    start "$kind"
    sleep 1
    measure hold "$kind" "$LOADGEN" --label "$kind" hold --addr "$ADDR" --brokers "$MEM_BROKERS" \
      --topics "$MEM_TOPICS" --pid "$PID"
    R[rss_idle,$kind]+="$(awk -v k="$(field "$LINE" rss_before_kib)" 'BEGIN { if (k != "") printf "%.1f", k / 1024 }') "
    R[rss_loaded,$kind]+="$(awk -v k="$(field "$LINE" rss_loaded_kib)" 'BEGIN { if (k != "") printf "%.1f", k / 1024 }') "
    R[register_all,$kind]+="$(field "$LINE" register_all_ms) "
    stop "$PID"
  done
done

log "resident memory with every topic's route asked for once: all routes alike, then every route different"
for variant in alike distinct; do
  spread=1
  [ "$variant" = distinct ] && spread=$MEM_TOPICS
  for _ in $(seq 1 "$REPS"); do
    for kind in $KINDS; do
      start "$kind"
      sleep 1
      measure "hold-queried-$variant" "$kind" "$LOADGEN" --label "$kind" hold --addr "$ADDR" --brokers "$MEM_BROKERS" \
        --topics "$MEM_TOPICS" --pid "$PID" --query-each --queue-spread "$spread"
      R[rss_queried_$variant,$kind]+="$(awk -v k="$(field "$LINE" rss_loaded_kib)" 'BEGIN { if (k != "") printf "%.1f", k / 1024 }') "
      stop "$PID"
    done
  done
done

log "one $BIG_TOPICS-topic registration (JSON body), each on a fresh server"
for _ in $(seq 1 "$BIG_REPS"); do
  for kind in $KINDS; do
    start "$kind"
    measure register-one "$kind" "$LOADGEN" --label "$kind" register-one --addr "$ADDR" --topics "$BIG_TOPICS" --reps 1
    R[big,$kind]+="$(field "$LINE" first_ms | grep -v nan || true) "
    stop "$PID"
  done
done

log "registration storms: $STORM_BROKERS brokers x $STORM_TOPICS topics at once, JSON and compressed bodies"
for body in json compressed; do
  flag=()
  [ "$body" = compressed ] && flag=(--compressed)
  for kind in $KINDS; do
    start "$kind"
    measure "storm-$body" "$kind" "$LOADGEN" --label "$kind" storm --addr "$ADDR" --brokers "$STORM_BROKERS" \
      --topics "$STORM_TOPICS" "${flag[@]}"
    if [ "$(field "$LINE" errors)" = 0 ]; then
      R[storm_$body,$kind]=$(field "$LINE" wall_ms)
    else
      R[storm_$body,$kind]="refused($(field "$LINE" bad_codes))"
    fi
    stop "$PID"
  done
done

log "exec -> listening: $START_REPS starts each"
for kind in $KINDS; do
  dir=$OUT/startup-$kind
  mkdir -p "$dir/home"
  case $kind in
    ours) cmd=("$BIN/nameserver" --listen-port '{port}' --bind-address 127.0.0.1) ;;
    floor) cmd=("$BIN/floor" --listen-port '{port}' --brokers "$BROKERS") ;;
    peer)
      printf 'rocketmqHome = "%s"\nkvConfigPath = "%s/kvConfig.json"\nconfigStorePath = "%s/namesrv.properties"\n' \
        "$dir" "$dir" "$dir" >"$dir/namesrv.toml"
      cmd=("$PEER_BIN" -c "$dir/namesrv.toml" --rocketmqHome "$dir" --listenPort '{port}' --bindAddress 127.0.0.1)
      ;;
  esac
  measure startup "$kind" env HOME="$dir/home" ROCKETMQ_HOME="$dir" RUST_LOG=info \
    "$LOADGEN" --label "$kind" startup --reps "$START_REPS" -- "${cmd[@]}"
  R[startup,$kind]=$(field "$LINE" listening_median_ms)
  R[first_reply,$kind]=$(field "$LINE" first_reply_median_ms)
done

fi
large_cluster

# ---------------------------------------------------------------------------------------------
# Core microbenchmarks (criterion): medians in milliseconds.
crit() { # GROUP/ID [NS_PER_UNIT]: criterion's median estimate in ms (or the unit given), or n/a
  local file=$TARGET_DIR/criterion/$1/new/estimates.json
  [ -f "$file" ] || { echo n/a; return; }
  python3 -c 'import json, sys; print("%.4g" % (json.load(open(sys.argv[1]))["median"]["point_estimate"] / float(sys.argv[2])))' \
    "$file" "${2:-1e6}" 2>/dev/null || echo n/a
}
if [ "$MODE" = full ]; then
  log "criterion microbenchmarks (core): codec, server, sim"
  "${RUN[@]}" cargo bench --locked -p nameserver-core --bench codec --bench server --bench sim -- \
    --warm-up-time 1 --measurement-time 3 >"$OUT/criterion.log" 2>&1 || die "cargo bench; see $OUT/criterion.log"
  R[scan,ours]=$(crit scan/all-alive/10000)
  R[scan_expire,ours]=$(crit scan/all-expire/10000)
  R[sim,ours]=$(crit sim/S1-one-hour)
  R[register1000,ours]=$(crit register/new-broker/1000)
  R[decode105,ours]=$(crit decode/105-rocketmq-rust 1e3)
  R[encode_reply,ours]=$(crit encode/reply-header 1e3)
  R[route_body,ours]=$(crit route-body/to_json-standard/4 1e3)
  grep -E '^[a-zA-Z0-9/_-]+ *time:|^[a-zA-Z0-9/_-]+$|time:' "$OUT/criterion.log" >"$OUT/criterion-summary.txt" || true
fi

# ---------------------------------------------------------------------------------------------
# The table: medians of the repetitions; ratios are ours / peer and ours / floor.
value() { # MEASURE KIND
  local v=${R[$1,$2]:-}
  if [[ "$v" == refused* ]]; then echo "$v"; return; fi
  # shellcheck disable=SC2086 # the values are a space-separated list of numbers
  median $v
}
# row LABEL MEASURE TARGET_TEXT CHECK, CHECK one of: floor>=X, peer<=X, max=X, -
row() {
  local label=$1 m=$2 target=$3 check=$4 ours peer floor status=-
  ours=$(value "$m" ours)
  floor=$(value "$m" floor)
  if [[ " $KINDS " == *" peer "* ]]; then peer=$(value "$m" peer); else peer=skipped; fi
  local rp rf
  rp=$(ratio "$ours" "$peer")
  rf=$(ratio "$ours" "$floor")
  case $check in
    floor\>=*) status=$(awk -v r="$rf" -v x="${check#floor>=}" 'BEGIN { if (r == "n/a") print "-"; else print (r >= x ? "met" : "MISSED") }') ;;
    peer\<=*) status=$(awk -v r="$rp" -v x="${check#peer<=}" 'BEGIN { if (r == "n/a") print "-"; else print (r <= x ? "met" : "MISSED") }') ;;
    min=*) status=$(awk -v v="$ours" -v x="${check#min=}" 'BEGIN { if (v == "n/a" || v == "") print "-"; else print (v >= x ? "met" : "MISSED") }') ;;
    max=*) status=$(awk -v v="$ours" -v x="${check#max=}" 'BEGIN { if (v == "n/a") print "-"; else print (v <= x ? "met" : "MISSED") }') ;;
  esac
  [ "$MODE" = smoke ] && status="- (smoke)"
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$ours" "$peer" "$floor" "$rp" "$rf" "$target" "$status"
}

{
  echo
  echo "Results ($MODE run, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, loopback, generator on the same cores;"
  echo "medians of $ROUTE_REPS runs for route QPS and latency, $REPS for ping-pong and memory, $BIG_REPS for the"
  echo "large registration, 1 for the storms; niceness $NICE; load at end: $(cut -d' ' -f1-3 /proc/loadavg))"
  echo
  if [ "$MODE" != large ]; then
  echo "| measure | ours | peer | floor | ours/peer | ours/floor | target | status |"
  echo "|---|---:|---:|---:|---:|---:|---|---|"
  row "route QPS, ${CONNS}x${DEPTH}, $TOPICS topics, $BROKERS brokers" route_qps "≥ 0.7 × floor" "floor>=0.7"
  row "route p99 (µs), same load" route_p99 "≤ ⅓ × peer" "peer<=0.3334"
  row "route p50 (µs), same load" route_p50 "" -
  row "ping-pong p50 (µs), 1 connection" pp_p50 "" -
  row "ping-pong p99 (µs), 1 connection" pp_p99 "" -
  row "RSS idle (MiB)" rss_idle "" -
  row "RSS after $MEM_BROKERS brokers × $MEM_TOPICS topics (MiB)" rss_loaded "≤ ½ × peer" "peer<=0.5"
  row "RSS, same, every route asked for once (MiB)" rss_queried_alike "" -
  row "RSS, same but every topic's queues different, every route asked for once (MiB)" rss_queried_distinct "" -
  row "time to register $MEM_BROKERS × $MEM_TOPICS, 64 at a time (ms)" register_all "" -
  row "one $BIG_TOPICS-topic registration, fresh server (ms)" big "≤ ⅓ × peer" "peer<=0.3334"
  row "storm $STORM_BROKERS × $STORM_TOPICS JSON, wall (ms)" storm_json "" -
  row "storm $STORM_BROKERS × $STORM_TOPICS compressed, wall (ms)" storm_compressed "" -
  row "exec → listening, median of $START_REPS (ms)" startup "≤ 10 ms" "max=10"
  row "exec → first reply, median of $START_REPS (ms)" first_reply "" -
  if [ "$MODE" = full ]; then
    row "scan, 10,000 live brokers (ms, criterion)" scan "" -
    row "scan, 10,000 brokers all expiring (ms, criterion)" scan_expire "" -
    row "register 1,000 topics via NameServer::handle (ms, criterion)" register1000 "" -
    row "decode a real route query (µs, criterion)" decode105 "" -
    row "encode a reply header (µs, criterion)" encode_reply "" -
    row "route body, 4 brokers, standard JSON (µs, criterion)" route_body "" -
    row "one simulated hour of S1 (ms, criterion)" sim "≤ 50 ms" "max=50"
  fi
  fi
  large_table
  echo
  if [ "$MODE" = smoke ] && [ -z "${BENCH_OUT:-}" ]; then
    echo "Errors in $ERRORS measurement(s); the smoke run's logs are removed (set BENCH_OUT to keep them)."
  else
    echo "Raw lines: $OUT/raw.txt; server logs: $OUT/run-*; errors in $ERRORS measurement(s)."
  fi
} | tee "$OUT/table.md"

if [ "$MODE" = smoke ]; then
  [ "$ERRORS" -eq 0 ] || die "$ERRORS measurement(s) failed"
  [ -n "${BENCH_OUT:-}" ] || rm -rf "$OUT"
  log "smoke run OK"
fi
