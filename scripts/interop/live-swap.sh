#!/usr/bin/env bash
# A live swap of a running Java cluster's NameServers, as MIGRATING.md describes it, measured
# from the clients' side. Apache RocketMQ VERSION (5.5.0 or 4.9.7, jars from Maven Central by
# scripts/java/fetch.sh): Java NameServers A and B, a master and a slave broker registered with
# both, a producer sending RATE messages a second with unique keys (the client's defaults: 3 s
# timeout, 2 retries) and a push consumer (LiveSwap.java beside this script). After one phase A
# is replaced by our daemon (same port, same namesrv.properties and kvConfig.json,
# needWaitForService off), after another B, then A and B go back to Java one at a time; the
# sending stops one phase after the last swap.
#
# Prints one summary table per phase: sends, failed sends (threw, or not SEND_OK after the
# client's retries), the fewest queues the producer had cached and the consumer had assigned
# (sampled every 100 ms), and each stale window (how long a running NameServer's route for the
# topic lacked a broker the other NameServer had, polled every 1 s); then consumed, lost (a
# successful send's key not consumed within DRAIN seconds of the last send) and duplicates.
# Exits 1 on a failed send, a lost message, a queue count of 0, or a stale window over the limit.
#
# usage: scripts/interop/live-swap.sh VERSION          (≈ 8 min; run it with nice)
# env:   LIVE_SWAP_PHASE_SECONDS (60: two registration periods), LIVE_SWAP_RATE (100 a second),
#        LIVE_SWAP_DRAIN_SECONDS (60), LIVE_SWAP_STALE_LIMIT_SECONDS (35),
#        LIVE_SWAP_PORT_A / _PORT_B (39876 / 39877), LIVE_SWAP_BROKER_PORT (30911; the slave
#        +10; each broker also takes port-2 and port+1), NAMESERVER_BIN (target/release/nameserver,
#        from `cargo build --release -p nameserver`), KEEP=1 keeps the work dir (kept on failure
#        anyway), TMPDIR.
set -euo pipefail

VERSION="${1:?usage: live-swap.sh VERSION (5.5.0 or 4.9.7)}"
case "$VERSION" in (5.5.0|4.9.7) ;; (*) echo "live-swap.sh: VERSION is 5.5.0 or 4.9.7, not '$VERSION'" >&2; exit 2;; esac
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PHASE="${LIVE_SWAP_PHASE_SECONDS:-60}"
RATE="${LIVE_SWAP_RATE:-100}"
DRAIN="${LIVE_SWAP_DRAIN_SECONDS:-60}"
STALE_LIMIT="${LIVE_SWAP_STALE_LIMIT_SECONDS:-35}"
PORT_A="${LIVE_SWAP_PORT_A:-39876}"
PORT_B="${LIVE_SWAP_PORT_B:-39877}"
MASTER_PORT="${LIVE_SWAP_BROKER_PORT:-30911}"
SLAVE_PORT=$((MASTER_PORT + 10))
OURS="${NAMESERVER_BIN:-$ROOT/target/release/nameserver}"
# Hang guard for a JVM to listen or print a line: 10-20 s on a busy 2-core machine.
GUARD=180
TOPIC=LiveSwapTopic
GROUP=live-swap
CLUSTER=LiveSwapCluster

[ -x "$OURS" ] || { echo "live-swap.sh: no $OURS; cargo build --release -p nameserver" >&2; exit 1; }
command -v javac >/dev/null || { echo "live-swap.sh: javac missing; apt-get install openjdk-17-jdk-headless" >&2; exit 1; }
for port in "$PORT_A" "$PORT_B" $((MASTER_PORT - 2)) "$MASTER_PORT" $((MASTER_PORT + 1)) \
  $((SLAVE_PORT - 2)) "$SLAVE_PORT" $((SLAVE_PORT + 1)); do
  if ss -ltnH "sport = :$port" | grep -q .; then
    echo "live-swap.sh: port $port is in use" >&2; exit 1
  fi
done
LIB="$("$ROOT/scripts/java/fetch.sh" "$VERSION")"
W="$(mktemp -d "${TMPDIR:-/tmp}/live-swap-$VERSION.XXXXXX")"

log() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }
now_ms() { date +%s%3N; }

declare -A PIDS=()   # name -> pid of what this script started
OK=0
cleanup() {
  local name
  exec 7>&- 2>/dev/null || true
  for name in "${!PIDS[@]}"; do
    kill -TERM "${PIDS[$name]}" 2>/dev/null || true
  done
  for name in "${!PIDS[@]}"; do
    wait "${PIDS[$name]}" 2>/dev/null || true
  done
  if [ "$OK" = 1 ] && [ "${KEEP:-0}" != 1 ]; then
    rm -rf "$W"
  else
    log "work dir kept: $W"
  fi
}
trap cleanup EXIT

# Fails with the tail of LOG when PID has exited.
alive() { # NAME PID LOG
  if ! kill -0 "$2" 2>/dev/null; then
    log "$1 exited; last lines of $3:"; tail -n 30 "$3" >&2; exit 1
  fi
}

wait_port() { # NAME PID LOG PORT
  local deadline=$((SECONDS + GUARD))
  until (exec 3<>"/dev/tcp/127.0.0.1/$4") 2>/dev/null; do
    alive "$1" "$2" "$3"
    [ "$SECONDS" -lt "$deadline" ] || { log "$1 did not listen on $4 within ${GUARD}s"; exit 1; }
    sleep 0.1 # poll: nothing announces a listening port
  done
}

wait_line() { # NAME PID LOG PATTERN GUARD
  local deadline=$((SECONDS + $5))
  until grep -q -- "$4" "$3"; do
    alive "$1" "$2" "$3"
    [ "$SECONDS" -lt "$deadline" ] || { log "$1 did not print '$4' within ${5}s"; exit 1; }
    sleep 0.2 # poll: the program's output
  done
}

# shellcheck source=../java/home.sh
source "$ROOT/scripts/java/home.sh"

# java with a small heap and every path inside HOME_DIR, in the background, stdin from STDIN
# (default /dev/null); sets STARTED.
STARTED=
declare -A LOGS=()   # name -> its output
start_java() { # NAME HOME_DIR LOG HEAP JVM_EXTRA... -- MAIN ARGS...
  local name="$1" home="$2" out="$3" heap="$4"
  shift 4
  local jvm=()
  while [ "$1" != -- ]; do jvm+=("$1"); shift; done
  shift
  (
    java_in_home "$home" "${jvm[@]}" -Xms"$heap" -Xmx"$heap" -Dlogback.configurationFile="$home/conf/logback_tools.xml" "$@"
  ) >>"$out" 2>&1 <"${STDIN:-/dev/null}" &
  STARTED=$!
  PIDS[$name]=$STARTED
  LOGS[$name]=$out
}

# Java 17 closes the JDK internals 4.9.x reaches into; these open them again.
OPENS_4X=()
if [ "${VERSION%%.*}" = 4 ]; then
  OPENS_4X=(--add-exports java.base/jdk.internal.ref=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED
    --add-exports java.base/sun.nio.ch=ALL-UNNAMED)
fi

# NameServer A or B: one home, one namesrv.properties, used by Java and by ours in turn.
for ns in A B; do
  port="$PORT_A"; [ "$ns" = B ] && port="$PORT_B"
  rocketmq_home "$W/$ns"
  {
    echo "listenPort=$port"
    echo "rocketmqHome=$W/$ns"
    echo "kvConfigPath=$W/$ns/home/namesrv/kvConfig.json"
    echo "configStorePath=$W/$ns/namesrv.properties"
    # Route queries answered from the first second (MIGRATING.md, replacing the NameServers).
    echo "needWaitForService=false"
    [ "${VERSION%%.*}" = 4 ] || echo "bindAddress=127.0.0.1"
  } >"$W/$ns/namesrv.properties"
done

port_of() { if [ "$1" = A ]; then echo "$PORT_A"; else echo "$PORT_B"; fi; }

start_namesrv() { # A|B java|ours
  local ns="$1" kind="$2" home="$W/$1"
  if [ "$kind" = java ]; then
    start_java "$ns" "$home" "$home/java.log" 256m -- -cp "$LIB/*" org.apache.rocketmq.namesrv.NamesrvStartup \
      -c "$home/namesrv.properties"
    wait_port "$ns (Java)" "$STARTED" "$home/java.log" "$(port_of "$ns")"
  else
    (
      cd "$home"
      exec env HOME="$home/home" "$OURS" -c "$home/namesrv.properties" --no-http
    ) >>"$home/ours.log" 2>&1 </dev/null &
    PIDS[$ns]=$!
    LOGS[$ns]="$home/ours.log"
    wait_port "$ns (ours)" "$!" "$home/ours.log" "$(port_of "$ns")"
  fi
}

stop() { # NAME
  kill -TERM "${PIDS[$1]}"
  wait "${PIDS[$1]}" || true
  unset "PIDS[$1]"
}

# Replaces NameServer NS by KIND on the same port and files; logs how long its port was closed.
swap() { # NS KIND
  local t0 closed
  t0="$(now_ms)"
  stop "$1"
  start_namesrv "$1" "$2"
  closed=$(( $(now_ms) - t0 ))
  SWAPS+=("$1 to $2 $closed ms")
  log "$1 is now $2: port closed for $closed ms"
}
SWAPS=()

start_broker() { # NAME ID PORT
  local name="$1" id="$2" port="$3" home="$W/$1" role=ASYNC_MASTER
  rocketmq_home "$home"
  broker_topic "$home" "$TOPIC"
  {
    echo "brokerClusterName=$CLUSTER"
    echo "brokerName=broker-a"
    echo "brokerId=$id"
    echo "listenPort=$port"
    echo "haListenPort=$((port + 1))"
    echo "brokerIP1=127.0.0.1"
    echo "brokerIP2=127.0.0.1"
    echo "namesrvAddr=127.0.0.1:$PORT_A;127.0.0.1:$PORT_B"
    broker_store_conf "$home"
    if [ "$id" != 0 ]; then
      role=SLAVE
      echo "haMasterAddress=127.0.0.1:$((MASTER_PORT + 1))"
    fi
    echo "brokerRole=$role"
  } >"$home/broker.conf"
  start_java "$name" "$home" "$home/java.log" 512m "${OPENS_4X[@]}" \
    -Drocketmq.broker.diskSpaceWarningLevelRatio=0.98 -- -cp "$LIB/*" org.apache.rocketmq.broker.BrokerStartup \
    -c "$home/broker.conf" -n "127.0.0.1:$PORT_A;127.0.0.1:$PORT_B"
  wait_port "$name" "$STARTED" "$home/java.log" "$port"
}

log "RocketMQ $VERSION from $LIB; ours: $("$OURS" --version | head -n 1); work dir $W"
start_namesrv A java
start_namesrv B java
log "Java NameServers A 127.0.0.1:$PORT_A, B 127.0.0.1:$PORT_B"
start_broker master 0 "$MASTER_PORT"
start_broker slave 1 "$SLAVE_PORT"
log "brokers: master 127.0.0.1:$MASTER_PORT, slave 127.0.0.1:$SLAVE_PORT"

mkdir -p "$W/client/classes"
javac -nowarn -cp "$LIB/*" -d "$W/client/classes" "$HERE/LiveSwap.java"
rocketmq_home "$W/client"
mkfifo "$W/client/control"
# The program's stdin: PHASE and STOP lines (its open of the FIFO returns as this opens fd 7).
STDIN="$W/client/control" start_java client "$W/client" "$W/client/out.log" 256m "${OPENS_4X[@]}" -- \
  -cp "$W/client/classes:$LIB/*" LiveSwap "127.0.0.1:$PORT_A" "127.0.0.1:$PORT_B" "$TOPIC" "$GROUP" "$RATE" "$DRAIN" 2
exec 7>"$W/client/control"
CLIENT="${PIDS[client]}"
# Ready once both NameServers route the topic to both brokers and the consumer holds a queue.
wait_line client "$CLIENT" "$W/client/out.log" '^READY' "$GUARD"
log "clients ready: $(grep -m1 '^PRODUCER' "$W/client/out.log")"

check_all() {
  local name
  for name in "${!PIDS[@]}"; do
    alive "$name" "${PIDS[$name]}" "${LOGS[$name]}"
  done
}
phase() { # LABEL: then the phase itself, a fixed time (the experiment, not a wait for an event)
  echo "PHASE $1" >&7
  log "phase $1 (${PHASE}s)"
  sleep "$PHASE"
  check_all
}

phase "1 java/java"
swap A ours
phase "2 ours/java"
swap B ours
phase "3 ours/ours"
swap A java
phase "4 java/ours"
swap B java
phase "5 java/java"
echo STOP >&7
log "sending stopped; waiting up to ${DRAIN}s for the consumer"
wait_line client "$CLIENT" "$W/client/out.log" '^TOTALS' $((DRAIN + GUARD))

COMMIT="$(git -C "$ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
echo
echo "live swap, RocketMQ $VERSION, $(date -u +%Y-%m-%d), ours $("$OURS" --version | head -n 1), tree $COMMIT"
echo "phases ${PHASE}s, ${RATE} messages/s, drain ${DRAIN}s; $(grep -m1 '^PRODUCER' "$W/client/out.log")"
sed -n '/^SUMMARY$/,/^TOTALS/p' "$W/client/out.log" | sed '1d;$d'
swaps="$(printf '%s, ' "${SWAPS[@]}")"
echo "port closed during each swap (stop to listening): ${swaps%, }"

read -r sends failed lost duplicates fewest stale_ms < <(sed -n 's/^TOTALS sends=\([0-9]*\) failed=\([0-9]*\) lost=\([0-9]*\) duplicates=\([0-9]*\) fewest_queues=\([0-9]*\) longest_stale_ms=\([0-9]*\)$/\1 \2 \3 \4 \5 \6/p' "$W/client/out.log")
verdict=()
[ "$sends" -gt 0 ] || verdict+=("nothing sent")
[ "$failed" = 0 ] || verdict+=("$failed failed sends")
[ "$lost" = 0 ] || verdict+=("$lost lost")
[ "$fewest" -gt 0 ] || verdict+=("a client saw 0 queues")
[ "$stale_ms" -le $((STALE_LIMIT * 1000)) ] || verdict+=("a stale window over ${STALE_LIMIT}s")
if [ "${#verdict[@]}" -gt 0 ]; then
  failures="$(printf '%s; ' "${verdict[@]}")"
  echo "LIVE SWAP FAILED: ${failures%; }"
  exit 1
fi
echo "LIVE SWAP OK ($duplicates duplicates)"
OK=1
