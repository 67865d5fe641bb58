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
#                              one registration of 1,000,000 topics), with the peer; ~10 minutes
#   scripts/bench.sh --route   only route throughput, ours and the floor (no peer)
#   scripts/bench.sh --controller
#                              only the embedded controller's request throughput (issue 36): four
#                              workloads of `loadgen controller` against ours started with a -c file
#                              that enables it (with --java, also against Java 5.5.0's NameServer
#                              hosting its own); the full and smoke runs measure it too
#   scripts/bench.sh --instructions [N]
#                              ours and the floor under callgrind: server instructions per route
#                              query over N queries (default 200,000), and their ratio; then one
#                              simulated hour of S1 (the `hour` example) under callgrind
#   scripts/bench.sh --java [--smoke | --large]
#                              the same, with Apache RocketMQ 5.5.0's NameServer (Java) measured as
#                              well, in two heap profiles: "java" (-Xmx384m, the oracle tests' heap)
#                              and "java-g1" (runserver.sh's 4 GiB G1 heap; skipped, with a message,
#                              when the machine has less than BENCH_JAVA_G1_MIB available). Needs a
#                              JDK and the jars (scripts/java/fetch.sh). Route load and ping-pong
#                              against Java measure after a JIT warm-up of BENCH_JAVA_WARMUP_MS
#                              (default 30000; 3000 with --smoke), reported as a row of its own;
#                              so does each controller workload
#
# Environment:
#   CARGO_TARGET_DIR  where cargo builds (default: target)
#   INTEROP_CACHE     the peer's build cache, outside the work tree (default: the first of
#                     $HOME/.cache/rmq-interop and ../.cache/interop that holds the peer, else
#                     $HOME/.cache/rmq-interop, where scripts/interop/build.sh builds it)
#   PEER_BIN          a rocketmq-namesrv-rust binary to use instead
#   BENCH_REPS        repetitions of each latency and memory measure (default 3; route
#                     throughput runs 5 times); the table shows their median
#   BENCH_PAIR_REPS   pairs of ours behind each paired ratio (every route different against
#                     alike, INFO against WARN; default 5: one pair's ratio moves by a
#                     third on a busy host; 1 in a smoke run); the other servers run
#                     BENCH_REPS pairs
#   BENCH_NICE        niceness of the servers and the generator (default -10 as root, else 0),
#                     so that other work on a shared machine disturbs all three less (as root
#                     with autogroup scheduling, each runs in a session whose autogroup has it)
#   BENCH_OUT         directory for logs and raw results (default: a fresh mktemp dir, removed
#                     after a successful smoke run)
#   BENCH_PROFILE     cargo profile of the measured binaries (default: release; dev for --smoke)
#   BENCH_BIN_DIR     measure the nameserver, floor and loadgen binaries in this directory and
#                     build nothing (e.g. a copy of target/release made at another commit)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

# --java comes first and combines with any mode (java_kinds, start_java below).
JAVA=
if [ "${1:-}" = --java ]; then JAVA=1; shift; fi

MODE=full
case "${1:-}" in
  --smoke) MODE=smoke ;;
  --large) MODE=large ;;
  --route) MODE=route ;;
  --controller) MODE=controller ;;
  --instructions) MODE=instructions COUNTED_REQUESTS=${2:-200000} ;;
  "") ;;
  *) echo "usage: scripts/bench.sh [--java] [--smoke | --large | --route | --controller | --instructions [N]]" >&2; exit 2 ;;
esac

if [ "$MODE" = smoke ]; then
  REPS=1 ROUTE_REPS=1 PAIR_REPS=${BENCH_PAIR_REPS:-1} CONNS=4 DEPTH=2 TOPICS=20 BROKERS=2 WARMUP_MS=100 DURATION_MS=500 PP_MS=300 REREG_MS=200
  MEM_BROKERS=3 MEM_TOPICS=20 BIG_TOPICS=500 BIG_REPS=1 STORM_BROKERS=3 STORM_TOPICS=20 START_REPS=2
  LARGE_BROKERS=3 LARGE_TOPICS=50 LARGE_PHASE_MS=300 HUGE_TOPICS=2000
  CTL_CONNS=2 CTL_DEPTH=2 CTL_GROUPS=3 CTL_MS=300
else
  REPS=${BENCH_REPS:-3} ROUTE_REPS=${BENCH_REPS:-5} PAIR_REPS=${BENCH_PAIR_REPS:-5} CONNS=32 DEPTH=8 TOPICS=1000 BROKERS=4 WARMUP_MS=2000 DURATION_MS=10000 PP_MS=5000
  REREG_MS=5000 MEM_BROKERS=100 MEM_TOPICS=1000 BIG_TOPICS=10000 BIG_REPS=5 STORM_BROKERS=100 STORM_TOPICS=1000
  START_REPS=20
  LARGE_BROKERS=100 LARGE_TOPICS=10000 LARGE_PHASE_MS=5000 HUGE_TOPICS=1000000
  CTL_CONNS=16 CTL_DEPTH=4 CTL_GROUPS=64 CTL_MS=5000
fi
FLOOR_BROKERS=$BROKERS

TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
# The smoke run only checks that the tools work: the dev build (which the tests have mostly built
# already) will do. Measurements use the release build.
PROFILE=${BENCH_PROFILE:-$([ "$MODE" = smoke ] && echo dev || echo release)}
BIN=${BENCH_BIN_DIR:-$TARGET_DIR/$([ "$PROFILE" = dev ] && echo debug || echo "$PROFILE")}
OUT=${BENCH_OUT:-$(mktemp -d /tmp/nameserver-bench.XXXXXX)}
mkdir -p "$OUT"
if [ "$(id -u)" = 0 ]; then NICE=${BENCH_NICE:--10}; else NICE=${BENCH_NICE:-0}; fi
RUN=(nice -n "$NICE")
# With autogroup scheduling (Linux's default on desktops and many servers) a process's niceness
# only orders it against processes of its own session: against other sessions' builds each
# session counts as one. So as root each measured process gets a session of its own whose
# autogroup has the same niceness (the peer's script makes its own session: set_autogroup).
AUTOGROUP=
if [ "$(id -u)" = 0 ] && [ -w /proc/self/autogroup ] && [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ]; then
  AUTOGROUP=$NICE
  # setsid does not fork here (a script's background job leads no process group), so $! is
  # the server's pid.
  RUN=(setsid sh -c 'echo "$0" >/proc/self/autogroup 2>/dev/null; exec nice -n "$0" "$@"' "$NICE")
fi
# set_autogroup PID: gives PID's autogroup the measured niceness (only PID is in it).
set_autogroup() {
  [ -z "$AUTOGROUP" ] || echo "$AUTOGROUP" >"/proc/$1/autogroup" 2>/dev/null || true
}
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

# wait_boot FILE [TRIES]: waits for a "... address HOST:PORT" line (TRIES polls 25 ms apart,
# default 400) and prints HOST:PORT.
wait_boot() {
  local file=$1 addr=
  for _ in $(seq 1 "${2:-400}"); do
    addr=$(grep -o 'address 127\.0\.0\.1:[0-9]*' "$file" 2>/dev/null | head -n1 | cut -d' ' -f2) || true
    [ -n "$addr" ] && { echo "$addr"; return 0; }
    sleep 0.025
  done
  return 1
}

# ---------------------------------------------------------------------------------------------
# Java (--java): Apache RocketMQ's NameServer, started by scripts/java/run-namesrv.sh, in two
# heap profiles. Kept in functions of their own.
JAVA_VERSION_BENCH=5.5.0
JAVA_WARMUP_MS=${BENCH_JAVA_WARMUP_MS:-$([ "$MODE" = smoke ] && echo 3000 || echo 30000)}
JAVA_G1_MIB=${BENCH_JAVA_G1_MIB:-6144}

# java_kinds: checks the JDK and the jars, then adds "java" and (memory allowing) "java-g1" to
# KINDS.
java_kinds() {
  local java="${JAVA_HOME:+$JAVA_HOME/bin/}java" available
  "$java" -version >/dev/null 2>&1 || die "--java: no JDK ($java -version failed); install one or set JAVA_HOME"
  RMQ_JAVA_VERSION=$JAVA_VERSION_BENCH "$ROOT/scripts/java/fetch.sh" "$JAVA_VERSION_BENCH" >/dev/null ||
    die "--java: cannot fetch RocketMQ $JAVA_VERSION_BENCH's jars (scripts/java/fetch.sh)"
  KINDS="$KINDS java"
  available=$(awk '/MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
  if [ "$available" -ge "$JAVA_G1_MIB" ]; then
    KINDS="$KINDS java-g1"
  else
    log "--java: SKIPPING the 4 GiB G1 profile (java-g1): $available MiB available, it needs $JAVA_G1_MIB (BENCH_JAVA_G1_MIB)"
  fi
  log "Java $JAVA_VERSION_BENCH: $("$java" -version 2>&1 | head -n1); kinds $KINDS; JIT warm-up $JAVA_WARMUP_MS ms before route and ping-pong measures"
}

# java_profile KIND: run-namesrv.sh's heap profile of a Java kind.
java_profile() { if [ "$1" = java-g1 ]; then echo g1; else echo small; fi; }

# warmup_ms KIND: the route load's warm-up before measuring (the JIT's, for Java).
warmup_ms() {
  case $1 in java | java-g1) echo "$JAVA_WARMUP_MS" ;; *) echo "$WARMUP_MS" ;; esac
}

# start_java KIND DIR: a fresh Java NameServer; sets PID and ADDR.
start_java() {
  local kind=$1 dir=$2 port
  port=$("$LOADGEN" port)
  PID=$(RMQ_JAVA_VERSION=$JAVA_VERSION_BENCH "${RUN[@]}" "$ROOT/scripts/java/run-namesrv.sh" "$port" "$dir" \
    "$(java_profile "$kind")" 2>"$dir/start.log") || die "Java ($kind) did not start; see $dir"
  PIDS+=("$PID")
  set_autogroup "$PID"
  ADDR=127.0.0.1:$port
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
    java | java-g1) start_java "$kind" "$dir" ;;
    peer)
      local port
      port=$("$LOADGEN" port)
      PID=$(NAMESRV_BIN=$PEER_BIN "${RUN[@]}" "$ROOT/scripts/interop/run-peer-namesrv.sh" "$port" "$dir" 2>"$dir/start.log") ||
        die "the peer did not start; see $dir"
      PIDS+=("$PID")
      set_autogroup "$PID"
      ADDR=127.0.0.1:$port
      ;;
  esac
}

# ---------------------------------------------------------------------------------------------
# The embedded controller (issue 36): ours with a -c file that enables it, Java's NameServer
# hosting its own (run-namesrv.sh with NAMESRV_EXTRA_PROPERTIES). One peer each, its store in the
# run's directory, and notifications (1008) off on both: an election then dials no broker (the
# generated replicas' addresses listen nowhere).
CTL_WORKLOADS="heartbeat replica-info sync-state join"

# controller_keys PORT DIR: the controller's keys, on port PORT, its store under DIR.
controller_keys() {
  printf '%s\n' enableControllerInNamesrv=true controllerDLegerGroup=bench "controllerDLegerPeers=n0-127.0.0.1:$1" \
    controllerDLegerSelfId=n0 "controllerStorePath=$2/controller-store" notifyBrokerRoleChanged=false
}

# start_controller KIND: a fresh server of KIND (ours, java, java-g1) hosting the controller;
# sets PID and CTL_ADDR, the controller's address (`loadgen controller` waits until it serves).
start_controller() {
  local kind=$1 dir port ns_port
  SEQ=$((SEQ + 1))
  dir=$OUT/run-$SEQ-controller-$kind
  mkdir -p "$dir/home"
  port=$("$LOADGEN" port)
  controller_keys "$port" "$dir" >"$dir/controller.properties"
  case $kind in
    ours)
      { echo "kvConfigPath=$dir/kvConfig.json"; cat "$dir/controller.properties"; } >"$dir/namesrv.properties"
      HOME=$dir/home ROCKETMQ_HOME=$dir "${RUN[@]}" "$BIN/nameserver" -c "$dir/namesrv.properties" --listen-port 0 \
        --bind-address 127.0.0.1 >"$dir/stdout" 2>"$dir/server.log" </dev/null &
      PID=$!
      PIDS+=("$PID")
      wait_boot "$dir/stdout" >/dev/null || die "ours (hosting the controller) did not start; see $dir"
      ;;
    java | java-g1)
      ns_port=$("$LOADGEN" port)
      [ "$ns_port" != "$port" ] || ns_port=$("$LOADGEN" port)
      PID=$(NAMESRV_EXTRA_PROPERTIES=$dir/controller.properties RMQ_JAVA_VERSION=$JAVA_VERSION_BENCH "${RUN[@]}" \
        "$ROOT/scripts/java/run-namesrv.sh" "$ns_port" "$dir" "$(java_profile "$kind")" 2>"$dir/start.log") ||
        die "Java ($kind, hosting the controller) did not start; see $dir"
      PIDS+=("$PID")
      set_autogroup "$PID"
      ;;
  esac
  CTL_ADDR=127.0.0.1:$port
}

ERRORS=0
# measure NAME KIND CMD...: runs a loadgen command and keeps its JSON line in raw.txt, from which
# `loadgen report` builds the tables; a failing command is counted (and fatal in smoke mode) but
# the run goes on.
measure() {
  local name=$1 kind=$2
  shift 2
  local rc=0 LINE
  LINE=$("${RUN[@]}" "$@" 2>>"$OUT/loadgen.err") || rc=$?
  printf '%s %s rc=%s load=%s %s\n' "$name" "$kind" "$rc" "$(cut -d' ' -f1 /proc/loadavg)" "$LINE" >>"$OUT/raw.txt"
  log "$name $kind: $(printf '%s' "${LINE:-no output}" | sed 's/"hist":"[^"]*",//') (exit $rc)"
  if [ "$rc" -ne 0 ]; then
    ERRORS=$((ERRORS + 1))
    [ "$MODE" = smoke ] && die "$name against $kind failed (exit $rc); see $OUT"
  fi
  return 0
}

# ---------------------------------------------------------------------------------------------
log "mode $MODE; output in $OUT"
if [ -n "${BENCH_BIN_DIR:-}" ]; then
  log "measuring the binaries in $BIN (nothing built)"
else
log "building ($PROFILE profile): nameserver, loadgen, floor"
cargo build --profile "$PROFILE" --locked -p nameserver -p nameserver-bench >"$OUT/build.log" 2>&1 ||
  { tail -n 30 "$OUT/build.log" >&2; die "cargo build"; }
fi

KINDS="ours floor"
if [ "$MODE" = full ] || [ "$MODE" = large ]; then
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
[ -z "$JAVA" ] || java_kinds

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown) ($(git status --porcelain 2>/dev/null | wc -l) paths changed)"
  echo "cpu: $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
  echo "kernel: $(uname -r); memory: $(free -m | awk '/Mem:/ { print $2 }') MiB"
  echo "load at start: $(cat /proc/loadavg); niceness of the measured processes: $NICE${AUTOGROUP:+ (each in an autogroup of that niceness)}"
  echo "busiest processes at start: $(ps -eo pcpu=,comm= --sort=-pcpu | head -n 3 | awk '{ printf "%s %s%%; ", $2, $1 }')"
} | tee "$OUT/machine.txt" >&2

# ---------------------------------------------------------------------------------------------
# Instructions per route query (issue 35; --instructions [N]): ours and the floor, each alone
# under callgrind, answer the same load: 4 brokers registered with 1,000 topics each, then 4
# connections x 8 in flight over the 1,000 topics; `loadgen counted` sends a warm-up of 2,000
# queries (every route built), zeroes the counters, sends exactly N queries and dumps them. So
# the dump holds the N queries' work (and the servers' own timers, a few ms of them), user
# space only. Counts repeat on a shared machine where wall time does not: these decide.
# callgrind_annotate (inclusive) of each dump is kept in $OUT/callgrind-KIND/annotate.txt.
instructions() {
  local kind dir pid addr line ir ours=0 floor=0 cmd
  command -v valgrind >/dev/null || die "valgrind is not installed (apt-get install valgrind)"
  for kind in ours floor; do
    dir=$OUT/callgrind-$kind
    mkdir -p "$dir/home"
    case $kind in
      ours) cmd=("$BIN/nameserver" --listen-port 0 --bind-address 127.0.0.1) ;;
      floor) cmd=("$BIN/floor" --listen-port 0 --brokers "$BROKERS") ;;
    esac
    HOME=$dir/home ROCKETMQ_HOME=$dir valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind.out" \
      "${cmd[@]}" >"$dir/stdout" 2>"$dir/valgrind.log" </dev/null &
    pid=$!
    PIDS+=("$pid")
    # Under valgrind a start takes seconds: up to 2 minutes.
    addr=$(wait_boot "$dir/stdout" 4800) || die "$kind did not start under valgrind; see $dir"
    log "instructions: $kind (pid $pid) under callgrind, $COUNTED_REQUESTS route queries"
    line=$("$LOADGEN" --label "$kind" counted --addr "$addr" --topics "$TOPICS" --brokers "$BROKERS" \
      --requests "$COUNTED_REQUESTS" --before "callgrind_control --zero $pid >/dev/null 2>&1" \
      --after "callgrind_control --dump=measured $pid >/dev/null 2>&1") || die "loadgen counted against $kind: $line"
    stop "$pid"
    ir=$(awk '/^(summary|totals):/ { print $2; exit }' "$dir/callgrind.out.1" 2>/dev/null) ||
      die "no callgrind dump for $kind in $dir"
    [ -n "$ir" ] || die "no instruction total in $dir/callgrind.out.1"
    callgrind_annotate --inclusive=yes --threshold=100 "$dir/callgrind.out.1" 2>/dev/null | head -n 150 >"$dir/annotate.txt" || true
    printf 'instructions %s %s instructions=%s\n' "$kind" "$line" "$ir" >>"$OUT/raw.txt"
    [ "$kind" = ours ] && ours=$ir || floor=$ir
  done
  awk -v o="$ours" -v f="$floor" -v n="$COUNTED_REQUESTS" 'BEGIN {
    printf "\n| server | instructions | per route query |\n|---|---:|---:|\n"
    printf "| ours | %d | %.0f |\n| floor | %d | %.0f |\n", o, o / n, f, f / n
    printf "\nours / floor: %.3f (target <= 1.15); %d queries each, 4 connections x 8 in flight\n", o / f, n
  }' | tee "$OUT/table.md"
  log "annotations: $OUT/callgrind-ours/annotate.txt, $OUT/callgrind-floor/annotate.txt"
}

# One simulated hour of S1 (issue 35: <= 350 M instructions), the whole `hour` example run once
# under callgrind (start-up and the scenario's parse included: well under 1 M of it).
hour_instructions() {
  local dir=$OUT/callgrind-hour hour ir
  mkdir -p "$dir"
  if [ -n "${BENCH_BIN_DIR:-}" ]; then
    hour=$BIN/examples/hour
  else
    cargo build --profile "$PROFILE" --locked -p nameserver-sim --example hour >"$dir/build.log" 2>&1 ||
      { tail -n 30 "$dir/build.log" >&2; die "cargo build --example hour"; }
    hour=$BIN/examples/hour
  fi
  [ -x "$hour" ] || die "no hour example at $hour"
  log "instructions: one simulated hour of S1 under callgrind"
  valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind.out" "$hour" 3600 1 >"$dir/stdout" 2>"$dir/valgrind.log" ||
    die "the hour example failed under valgrind; see $dir"
  ir=$(awk '/^(summary|totals):/ { print $2; exit }' "$dir/callgrind.out")
  [ -n "$ir" ] || die "no instruction total in $dir/callgrind.out"
  callgrind_annotate --inclusive=yes --threshold=100 "$dir/callgrind.out" 2>/dev/null | head -n 150 >"$dir/annotate.txt" || true
  printf 'instructions hour instructions=%s\n' "$ir" >>"$OUT/raw.txt"
  awk -v h="$ir" 'BEGIN { printf "\none simulated hour of S1: %d instructions (target <= 350,000,000)\n", h }' | tee -a "$OUT/table.md"
  log "annotation: $dir/annotate.txt"
}

# One simulated hour of S1 by the clock (issue 35: <= 50 ms native, fastest of 20; wasm reported):
# the `hour` example natively, then the npm package's wasm in Node (scripts/bench-hour.mjs), each
# 20 runs, fastest and median. Instruction counts decide (hour_instructions); these are reported.
hour_wall() {
  local dir=$OUT/hour hour
  mkdir -p "$dir"
  if [ -z "${BENCH_BIN_DIR:-}" ]; then
    cargo build --profile "$PROFILE" --locked -p nameserver-sim --example hour >"$dir/build.log" 2>&1 ||
      { tail -n 30 "$dir/build.log" >&2; die "cargo build --example hour"; }
  fi
  hour=$BIN/examples/hour
  [ -x "$hour" ] || die "no hour example at $hour"
  log "one simulated hour of S1, 20 runs each: native, then wasm through the npm package"
  "${RUN[@]}" "$hour" 3600 20 >"$dir/native.txt" 2>&1 || die "the hour example failed; see $dir/native.txt"
  scripts/build-wasm.sh >"$dir/wasm-build.log" 2>&1 || { tail -n 30 "$dir/wasm-build.log" >&2; die "scripts/build-wasm.sh"; }
  "${RUN[@]}" node scripts/bench-hour.mjs 20 --json "$dir/wasm.json" >"$dir/wasm.txt" 2>&1 ||
    die "scripts/bench-hour.mjs failed; see $dir/wasm.txt"
  {
    echo "One simulated hour of S1 (load $(cut -d' ' -f1-3 /proc/loadavg)):"
    echo "- native, the \`hour\` example: $(awk '/^fastest of/ { sub(/ for .*/, ""); print }' "$dir/native.txt") (target <= 50 ms)"
    echo "- $(cat "$dir/wasm.txt")"
  } >"$OUT/hour.md"
  log "$(tr '\n' ' ' <"$OUT/hour.md")"
}

if [ "$MODE" = instructions ]; then
  TOPICS=1000 BROKERS=4
  instructions
  hour_instructions
  exit 0
fi

# The kinds of repetition $1 of a measure, in the order they run: ours and the floor back to
# back, which goes first alternating, then the other kinds: neither of the two always runs
# right after the other kinds' runs (a 4 GiB JVM that just exited).
rep_kinds() {
  local kinds="ours floor" kind
  [ $(($1 % 2)) -eq 0 ] && kinds="floor ours"
  for kind in $KINDS; do
    case $kind in ours | floor) ;; *) kinds="$kinds $kind" ;; esac
  done
  echo "$kinds"
}

# ---------------------------------------------------------------------------------------------
# The large cluster (issue 18): one fresh server of each kind per measure; the route load through
# the storm runs REPS times (its stalls vary most from run to run), the rest once. The floor
# answers a body as large as a route on LARGE_BROKERS brokers.
large_cluster() {
  local kind
  FLOOR_BROKERS=$LARGE_BROKERS
  log "large cluster: route load ${CONNS}x${DEPTH} while $LARGE_BROKERS brokers x $LARGE_TOPICS topics register, then cold and warm phases of $LARGE_PHASE_MS ms ($REPS runs)"
  for rep in $(seq 1 "$REPS"); do
    for kind in $(rep_kinds "$rep"); do
      start "$kind"
      measure cold "$kind" "$LOADGEN" --json --label "$kind" cold --addr "$ADDR" --brokers "$LARGE_BROKERS" \
        --topics "$LARGE_TOPICS" --conns "$CONNS" --depth "$DEPTH" --phase-ms "$LARGE_PHASE_MS"
      stop "$PID"
    done
  done
  # Memory does not depend on how many registrations are in flight; 8 at a time lets the peer,
  # which closes connections when 64 of these queue behind each other, register all of them.
  log "large cluster: resident memory with $LARGE_BROKERS brokers x $LARGE_TOPICS topics registered, 8 at a time"
  for kind in $KINDS; do
    start "$kind"
    sleep 1
    measure hold-large "$kind" "$LOADGEN" --json --label "$kind" hold --addr "$ADDR" --brokers "$LARGE_BROKERS" \
      --topics "$LARGE_TOPICS" --in-flight 8 --pid "$PID"
    stop "$PID"
  done
  # Ours logs a line per topic and broker at INFO ("new topic registered", as Java does): what
  # that costs, as pairs of fresh servers registering the same cluster at INFO and at WARN.
  # Which level goes first alternates, as in the paired memory runs below.
  log "large cluster: $LARGE_BROKERS brokers x $LARGE_TOPICS topics registered by ours, logging at INFO and at WARN ($PAIR_REPS pairs)"
  for rep in $(seq 1 "$PAIR_REPS"); do
    levels="info warn"
    [ $((rep % 2)) -eq 0 ] && levels="warn info"
    for level in $levels; do
      RUST_LOG=$level start ours
      measure "register-large-$level" ours "$LOADGEN" --json --label ours hold --addr "$ADDR" \
        --brokers "$LARGE_BROKERS" --topics "$LARGE_TOPICS" --pid "$PID"
      stop "$PID"
    done
  done
  log "large cluster: one $BIG_TOPICS-topic registration (JSON) and one of $HUGE_TOPICS topics (compressed), fresh servers"
  for kind in $KINDS; do
    start "$kind"
    measure register-one-large "$kind" "$LOADGEN" --json --label "$kind" register-one --addr "$ADDR" --topics "$BIG_TOPICS" --reps 1
    stop "$PID"
    start "$kind"
    measure register-huge "$kind" "$LOADGEN" --json --label "$kind" register-one --addr "$ADDR" --topics "$HUGE_TOPICS" \
      --reps 1 --compressed --pid "$PID"
    stop "$PID"
  done
  FLOOR_BROKERS=$BROKERS
}

# ---------------------------------------------------------------------------------------------
if [ "$MODE" != large ] && [ "$MODE" != controller ]; then
log "route throughput: $CONNS connections x depth $DEPTH over $TOPICS topics, $BROKERS brokers registered"
for rep in $(seq 1 "$ROUTE_REPS"); do
  for kind in $(rep_kinds "$rep"); do
    start "$kind"
    measure route "$kind" "$LOADGEN" --json --label "$kind" route --addr "$ADDR" --conns "$CONNS" --depth "$DEPTH" \
      --topics "$TOPICS" --brokers "$BROKERS" --reregister-ms "$REREG_MS" --warmup-ms "$(warmup_ms "$kind")" --duration-ms "$DURATION_MS"
    stop "$PID"
  done
done
fi

if [ "$MODE" = full ] || [ "$MODE" = smoke ]; then
log "ping-pong: 1 connection, depth 1"
for _ in $(seq 1 "$REPS"); do
  for kind in $KINDS; do
    start "$kind"
    measure pingpong "$kind" "$LOADGEN" --json --label "$kind" pingpong --addr "$ADDR" --topics "$TOPICS" \
      --brokers "$BROKERS" --reregister-ms "$REREG_MS" --warmup-ms "$(warmup_ms "$kind")" --duration-ms "$PP_MS"
    stop "$PID"
  done
done

log "resident memory: idle, then $MEM_BROKERS brokers x $MEM_TOPICS topics registered (connections open)"
for _ in $(seq 1 "$REPS"); do
  for kind in $KINDS; do
    start "$kind"
    sleep 1
    measure hold "$kind" "$LOADGEN" --json --label "$kind" hold --addr "$ADDR" --brokers "$MEM_BROKERS" \
      --topics "$MEM_TOPICS" --pid "$PID"
    stop "$PID"
  done
done

# Each repetition is a pair run back to back on fresh servers of one kind, so that both
# halves meet the same machine (a JVM that just exited, a busy minute); which goes first
# alternates, so that neither always follows the other kind's runs. The report's ratio of
# their registration times is the median of the pairs'. Ours runs PAIR_REPS pairs.
log "resident memory with every topic's route asked for once: all routes alike and every route different, in pairs"
for rep in $(seq 1 "$(( PAIR_REPS > REPS ? PAIR_REPS : REPS ))"); do
  variants="alike distinct"
  [ $((rep % 2)) -eq 0 ] && variants="distinct alike"
  for kind in $KINDS; do
    [ "$kind" = ours ] && [ "$rep" -gt "$PAIR_REPS" ] && continue
    [ "$kind" != ours ] && [ "$rep" -gt "$REPS" ] && continue
    for variant in $variants; do
      spread=1
      [ "$variant" = distinct ] && spread=$MEM_TOPICS
      start "$kind"
      sleep 1
      measure "hold-queried-$variant" "$kind" "$LOADGEN" --json --label "$kind" hold --addr "$ADDR" --brokers "$MEM_BROKERS" \
        --topics "$MEM_TOPICS" --pid "$PID" --query-each --queue-spread "$spread"
      stop "$PID"
    done
  done
done

log "one $BIG_TOPICS-topic registration (JSON body), each on a fresh server"
for _ in $(seq 1 "$BIG_REPS"); do
  for kind in $KINDS; do
    start "$kind"
    measure register-one "$kind" "$LOADGEN" --json --label "$kind" register-one --addr "$ADDR" --topics "$BIG_TOPICS" --reps 1
    stop "$PID"
  done
done

log "registration storms: $STORM_BROKERS brokers x $STORM_TOPICS topics at once, JSON and compressed bodies"
for body in json compressed; do
  flag=()
  [ "$body" = compressed ] && flag=(--compressed)
  for kind in $KINDS; do
    start "$kind"
    measure "storm-$body" "$kind" "$LOADGEN" --json --label "$kind" storm --addr "$ADDR" --brokers "$STORM_BROKERS" \
      --topics "$STORM_TOPICS" "${flag[@]}"
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
    java | java-g1) cmd=("$ROOT/scripts/java/run-namesrv.sh" --exec '{port}' "$dir" "$(java_profile "$kind")") ;;
    peer)
      printf 'rocketmqHome = "%s"\nkvConfigPath = "%s/kvConfig.json"\nconfigStorePath = "%s/namesrv.properties"\n' \
        "$dir" "$dir" "$dir" >"$dir/namesrv.toml"
      cmd=("$PEER_BIN" -c "$dir/namesrv.toml" --rocketmqHome "$dir" --listenPort '{port}' --bindAddress 127.0.0.1)
      ;;
  esac
  measure startup "$kind" env HOME="$dir/home" ROCKETMQ_HOME="$dir" RUST_LOG=info \
    "$LOADGEN" --json --label "$kind" startup --reps "$START_REPS" --timeout-ms 120000 -- "${cmd[@]}"
done

fi
case $MODE in full | smoke | large) large_cluster ;; esac

# ---------------------------------------------------------------------------------------------
# The embedded controller's request throughput (issue 36): each workload of `loadgen controller`
# against ours and, with --java, each Java kind; one fresh server per kind and repetition, the
# workloads one after the other on it (each forms, and afterwards cleans, broker groups of its
# own; the join workload's are left, the server is stopped next). Java measures after its JIT
# warm-up, each workload.
controller_section() {
  local kind workload kinds=ours
  for kind in $KINDS; do
    case $kind in java | java-g1) kinds="$kinds $kind" ;; esac
  done
  log "embedded controller: $CTL_CONNS connections x $CTL_DEPTH in flight, $CTL_GROUPS groups; $CTL_WORKLOADS; $kinds ($REPS runs)"
  for _ in $(seq 1 "$REPS"); do
    for kind in $kinds; do
      start_controller "$kind"
      for workload in $CTL_WORKLOADS; do
        measure "controller-$workload" "$kind" "$LOADGEN" --json --label "$kind" controller --addr "$CTL_ADDR" \
          --workload "$workload" --conns "$CTL_CONNS" --depth "$CTL_DEPTH" --groups "$CTL_GROUPS" \
          --warmup-ms "$(warmup_ms "$kind")" --duration-ms "$CTL_MS"
      done
      stop "$PID"
    done
  done
}
case $MODE in full | smoke | controller) controller_section ;; esac

# ---------------------------------------------------------------------------------------------
# Core microbenchmarks (criterion): `loadgen report` reads their medians from target/criterion.
if [ "$MODE" = full ]; then
  log "criterion microbenchmarks (core, sim): codec, server, sim"
  "${RUN[@]}" cargo bench --locked -p nameserver-core -p nameserver-sim --bench codec --bench server --bench sim -- \
    --warm-up-time 1 --measurement-time 3 >"$OUT/criterion.log" 2>&1 || die "cargo bench; see $OUT/criterion.log"
  grep -E '^[a-zA-Z0-9/_-]+ *time:|^[a-zA-Z0-9/_-]+$|time:' "$OUT/criterion.log" >"$OUT/criterion-summary.txt" || true
fi

if [ "$MODE" = full ]; then hour_wall; fi

# ---------------------------------------------------------------------------------------------
# The page in headless Chromium: frame times, T2's speed, live mode's delay (BENCHMARKS.md, "The
# page"). A benchmark of the machine, so not among the tests.
if [ "$MODE" = full ]; then
  log "the page in headless Chromium: frame times (S1 at 1x, T29's cluster at 300x), speed at 60x, live registration to row"
  scripts/install-chromium.sh
  [ -f pkg/nameserver_wasm_bg.wasm ] || scripts/build-wasm.sh
  [ -d node_modules/playwright-core ] || npm ci --no-audit --no-fund
  NAMESERVER_BIN="$BIN/nameserver" node scripts/bench-page.mjs --json "$OUT/page.json" >"$OUT/page.md" 2>"$OUT/page.log" ||
    die "scripts/bench-page.mjs; see $OUT/page.log"
fi

# ---------------------------------------------------------------------------------------------
# The tables: `loadgen report` takes the medians of the repetitions in raw.txt, the ratios
# ours / peer and ours / floor, and checks the targets.
REPORT=(--svg "$OUT/svg")
[ "$MODE" = smoke ] && REPORT+=(--smoke)
[ "$MODE" = full ] && REPORT+=(--criterion "$TARGET_DIR/criterion")
{
  echo
  echo "Results ($MODE run, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, loopback, generator on the same cores;"
  if [ "$MODE" = large ]; then
    echo "medians of $REPS runs for the route load through the registrations, one run each for memory and"
    echo "the large registrations; niceness $NICE; load at end: $(cut -d' ' -f1-3 /proc/loadavg))"
  elif [ "$MODE" = controller ]; then
    echo "medians of $REPS runs of each controller workload; niceness $NICE; load at end: $(cut -d' ' -f1-3 /proc/loadavg))"
  else
    echo "medians of $ROUTE_REPS runs for route QPS and latency, $REPS for ping-pong and memory, $BIG_REPS for the"
    echo "large registration, 1 for the storms; niceness $NICE; load at end: $(cut -d' ' -f1-3 /proc/loadavg))"
  fi
  echo "Ratios ours / the other: the median of the repetitions' ratios, each run of ours against the"
  echo "other kind's run of the same repetition."
  echo
  "$LOADGEN" report "$OUT/raw.txt" "${REPORT[@]+"${REPORT[@]}"}" || die "loadgen report"
  echo
  if [ -f "$OUT/hour.md" ]; then
    cat "$OUT/hour.md"
    echo
  fi
  if [ -f "$OUT/page.md" ]; then
    cat "$OUT/page.md"
    echo
  fi
  echo "Charts: $(cd "$OUT/svg" && ls -- *.svg 2>/dev/null | tr '\n' ' ')(in $OUT/svg)."
  if [ "$MODE" = smoke ] && [ -z "${BENCH_OUT:-}" ]; then
    echo "Errors in $ERRORS measurement(s); the smoke run's logs are removed (set BENCH_OUT to keep them)."
  else
    echo "Raw lines: $OUT/raw.txt; server logs: $OUT/run-*; errors in $ERRORS measurement(s)."
  fi
} | tee "$OUT/table.md"

if [ "$MODE" = smoke ]; then
  [ "$ERRORS" -eq 0 ] || die "$ERRORS measurement(s) failed"
  for chart in route-latency pingpong-latency timeline-ours timeline-floor; do
    grep -q '<polyline' "$OUT/svg/$chart.svg" 2>/dev/null || die "loadgen report --svg drew no $chart.svg"
  done
  [ -n "${BENCH_OUT:-}" ] || rm -rf "$OUT"
  log "smoke run OK"
fi
