#!/usr/bin/env bash
# Moves a controller-mode RocketMQ 5.5.0 broker group from Java's embedded controller (a Java
# NameServer with enableControllerInNamesrv=true) to this daemon's, as MIGRATING.md's "Moving a
# controller-mode cluster onto the embedded controller" describes, and checks the result.
#
# usage: scripts/interop/migrate-controller.sh demo
#          the whole procedure on one machine, every listener on 127.0.0.1 (free ports):
#          1. the starting cluster: a Java 5.5.0 NameServer hosting Java's controller, two Java
#             5.5.0 brokers of one group in controller mode (ids 1 and 2), a producer sending
#             (Apache RocketMQ's client, native-server/tests/java_failover/Failover.java); kill -9
#             of the master and its restart, so that Java's controller has elected twice and the
#             brokers hold master epoch 2 (later epochs than an empty controller starts with);
#          2. the migration: ours started beside Java's with an empty controller store; the
#             slave stopped, then the master; their ids applied for in ours (`ids` below);
#             their controllerAddr and namesrvAddr pointed at ours; the old master started
#             first, then the old slave; Java's NameServer stopped;
#          3. a failover under ours: kill -9 of the master, the slave elected, the old master
#             restarted as a slave; a consumer reads the topic from its first offset.
#          Checks and prints: ids kept, the master ours elects and its epochs, the route's id
#          0, the slave back in the sync-state set, messages acknowledged vs consumed (none
#          lost). Exit 1 on any failed check. Kills every JVM and daemon it started on exit.
#          ≈ 5 minutes on 2 busy cores.
#        scripts/interop/migrate-controller.sh ids CONTROLLER CLUSTER BROKER_NAME ID=ADDR...
#          before the brokers start on the new controller: applies for each broker's id on its
#          behalf (CONTROLLER_APPLY_BROKER_ID, 1013, in increasing id order: a controller takes
#          only id 1 for a group it does not know), so that each broker, which keeps its
#          brokerIdentity, registers its id (1003) instead of being refused (2010) at every
#          retry. ADDR is the broker's brokerIP1:listenPort. Exit 1 on a refusal.
#        scripts/interop/migrate-controller.sh check CONTROLLER NAMESRV BROKER_NAME TOPIC
#          prints what the controller (1004) and the NameServer's route of TOPIC (105) say
#          of the group; exit 1 unless a master is elected and routed as id 0.
# env:   NAMESERVER_BIN (target/release/nameserver, else target/debug/nameserver; `cargo build
#        -p nameserver`), MIGRATE_GUARD (seconds a step may take, 240), KEEP=1 keeps the work
#        dir (kept on failure anyway), TMPDIR.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
STATE="$HERE/controller_state.py"
MODE="${1:-}"

# The ids step: each id applied for in increasing order, as its broker would with a new group.
apply_ids() { # CONTROLLER CLUSTER BROKER_NAME ID=ADDR...
  local controller="$1" cluster="$2" name="$3" entry answer
  shift 3
  while read -r entry; do
    answer="$("$STATE" apply "$controller" "$cluster" "$name" "${entry%%=*}" "${entry#*=}")" || true
    echo "$name id ${entry%%=*} (${entry#*=}) applied at $controller: $answer"
    [ "$answer" = code=0 ] || return 1
  done < <(printf '%s\n' "$@" | sort -t= -k1,1n)
}

check() { # CONTROLLER NAMESRV BROKER_NAME TOPIC
  local replicas route
  replicas="$("$STATE" replicas "$1" "$3")" || true
  route="$("$STATE" route "$2" "$4" "$3")" || true
  echo "controller $1: $replicas"
  echo "route of $4 at $2: $route"
  [[ "$replicas" == master=[0-9]* && " $route" == *" 0="* ]]
}

case "$MODE" in
  ids) [ $# -ge 5 ] || { echo "usage: migrate-controller.sh ids CONTROLLER CLUSTER BROKER_NAME ID=ADDR..." >&2; exit 2; }
    shift; apply_ids "$@"; exit ;;
  check) [ $# = 5 ] || { echo "usage: migrate-controller.sh check CONTROLLER NAMESRV BROKER_NAME TOPIC" >&2; exit 2; }
    check "$2" "$3" "$4" "$5"; exit ;;
  demo) ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac

# ---- demo ----------------------------------------------------------------------------------
VERSION=5.5.0
GUARD="${MIGRATE_GUARD:-240}"
OURS="${NAMESERVER_BIN:-}"
if [ -z "$OURS" ]; then
  OURS="$ROOT/target/release/nameserver"
  [ -x "$OURS" ] || OURS="$ROOT/target/debug/nameserver"
fi
[ -x "$OURS" ] || { echo "migrate-controller.sh: no $OURS; cargo build -p nameserver" >&2; exit 1; }
command -v java >/dev/null || { echo "migrate-controller.sh: java missing; apt-get install openjdk-17-jdk-headless" >&2; exit 1; }
LIB="$("$ROOT/scripts/java/fetch.sh" "$VERSION")"
W="$(mktemp -d "${TMPDIR:-/tmp}/migrate-controller.XXXXXX")"
CLUSTER=MigrateCluster
NAME=broker-a
TOPIC=MigrateTopic
GROUP=migrate

log() { printf '%s %s\n' "$(date +%T.%3N)" "$*" >&2; }
now_ms() { date +%s%3N; }
secs() { awk -v ms="$1" 'BEGIN { printf "%.2f", ms / 1000 }'; }

declare -A PIDS=()   # name -> pid of what this script started
declare -A LOGS=()   # name -> its output
OK=0
cleanup() {
  local name
  for name in "${!PIDS[@]}"; do kill -KILL "${PIDS[$name]}" 2>/dev/null || true; done
  for name in "${!PIDS[@]}"; do wait "${PIDS[$name]}" 2>/dev/null || true; done
  if [ "$OK" = 1 ] && [ "${KEEP:-0}" != 1 ]; then rm -rf "$W"; else log "work dir kept: $W"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The brokers' lines about their role and HA: what a failed step prints.
role_lines() {
  local b
  for b in A B; do
    echo "== broker $b:"
    cat "$W/$b/logs/"*.log 2>/dev/null | grep -E 'lastEpoch|consistent point|Change broker|change to (master|slave)|apply broker id|Register state' | tail -n 12
  done
}
fail() { log "FAILED: $*"; role_lines >&2; exit 1; }

alive() { # NAME
  local pid="${PIDS[$1]}"
  if ! kill -0 "$pid" 2>/dev/null; then
    log "$1 exited; last lines of ${LOGS[$1]}:"; tail -n 30 "${LOGS[$1]}" >&2; exit 1
  fi
}

# Ports: free now, each with its neighbours (a broker also takes port-2 and port+1); sets VAR.
declare -A TAKEN=()
pick_port() { # VAR
  local p q ok
  while true; do
    p=$((20000 + RANDOM % 40000)); ok=1
    for q in $((p - 2)) $((p - 1)) "$p" $((p + 1)); do
      if [ -n "${TAKEN[$q]:-}" ] || ss -ltnH "sport = :$q" | grep -q .; then ok=0; fi
    done
    if [ "$ok" = 1 ]; then
      for q in $((p - 2)) $((p - 1)) "$p" $((p + 1)); do TAKEN[$q]=1; done
      printf -v "$1" '%s' "$p"; return
    fi
  done
}
for var in JAVA_NS JAVA_CTRL OUR_NS OUR_CTRL PORT_A PORT_B; do pick_port "$var"; done
J_NS="127.0.0.1:$JAVA_NS"; J_CTRL="127.0.0.1:$JAVA_CTRL"; O_NS="127.0.0.1:$OUR_NS"; O_CTRL="127.0.0.1:$OUR_CTRL"

# Polls CMD every 0.2 s until it prints a line matching PATTERN (ERE); prints that line.
await() { # WHAT PATTERN CMD...
  local what="$1" pattern="$2" out="" deadline=$((SECONDS + GUARD)) name
  shift 2
  while true; do
    out="$("$@" 2>&1)" || true
    if [[ "$out" =~ $pattern ]]; then echo "$out"; return 0; fi
    for name in "${!PIDS[@]}"; do alive "$name"; done
    [ "$SECONDS" -lt "$deadline" ] || fail "$what: not within ${GUARD}s; last answer: $out"
    sleep 0.2 # poll: nothing announces the state
  done
}

await_port() { # NAME PORT
  await "$1 listening on $2" '^open$' bash -c "(exec 3<>/dev/tcp/127.0.0.1/$2) 2>/dev/null && echo open"
}

# shellcheck source=../java/home.sh
source "$ROOT/scripts/java/home.sh"

start_java() { # NAME HOME MAIN ARGS...  (small heap, every path inside HOME)
  local name="$1" home="$2"
  shift 2
  rocketmq_home "$home"
  (
    java_in_home "$home" -Xms128m -Xmx384m -Drocketmq.client.logUseSlf4j=true -cp "$LIB/*" "$@"
  ) >>"$home/stdout.log" 2>&1 </dev/null &
  PIDS[$name]=$!
  LOGS[$name]="$home/stdout.log"
}

stop() { # NAME [SIGNAL]
  kill "-${2:-TERM}" "${PIDS[$1]}" 2>/dev/null || true
  wait "${PIDS[$1]}" 2>/dev/null || true
  unset "PIDS[$1]"
}

controller_conf() { # FILE PORT CONTROLLER_PORT HOME
  {
    echo "listenPort=$2"
    echo "bindAddress=127.0.0.1"
    echo "rocketmqHome=$4"
    echo "kvConfigPath=$4/home/namesrv/kvConfig.json"
    echo "configStorePath=$4/home/namesrv/namesrv.properties"
    echo "enableControllerInNamesrv=true"
    echo "controllerDLegerGroup=group1"
    echo "controllerDLegerPeers=n0-127.0.0.1:$3"
    echo "controllerDLegerSelfId=n0"
    echo "controllerStorePath=$4/controller-store"
  } >"$1"
}

# A broker's conf: controller mode, pointed at CONTROLLER and NAMESRV.
broker_conf() { # NAME PORT CONTROLLER NAMESRV
  local home="$W/$1"
  {
    echo "brokerClusterName=$CLUSTER"
    echo "brokerName=$NAME"
    echo "brokerId=-1"
    echo "enableControllerMode=true"
    echo "controllerAddr=$3"
    echo "namesrvAddr=$4"
    echo "allAckInSyncStateSet=true"
    echo "listenPort=$2"
    echo "brokerIP1=127.0.0.1"
    echo "brokerIP2=127.0.0.1"
    broker_store_conf "$home"
    # A loaded machine keeps a send queued longer than the defaults (200 ms, 1 s).
    echo "waitTimeMillsInSendQueue=30000"
    echo "osPageCacheBusyTimeOutMills=30000"
  } >"$home/broker.conf"
}

start_broker() { # NAME PORT
  local home="$W/$1"
  start_java "$1" "$home" org.apache.rocketmq.broker.BrokerStartup -c "$home/broker.conf"
  await_port "$1" "$2" >/dev/null
}

replicas() { "$STATE" replicas "$1" "$NAME"; }
route() { "$STATE" route "$1" "$TOPIC" "$NAME"; }
# The epoch file's entries (`epoch-startOffset`), after its count and checksum lines.
epochs_of() { grep -E '^[0-9]+-[0-9]+$' "$W/$1/store/epochFileCheckpoint" 2>/dev/null | tr '\n' ' ' | sed 's/ $//'; }
field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" <<<"$2"; }

# The producer's lines: SENT n STATUS, FAILED n WHY.
acked() { grep -c ' SEND_OK$' "${LOGS[producer]}" || true; }
sends() { grep -c '^\(SENT\|FAILED\) ' "${LOGS[producer]}" || true; }
# Of the sends after the first FROM, those not acknowledged (failed, or another status).
unacked_since() { grep '^\(SENT\|FAILED\) ' "$W/producer/stdout.log" | tail -n +$(($1 + 1)) | grep -vc ' SEND_OK$' || true; }
await_acks() { # WHAT N
  await "$1" '^ok$' bash -c "[ \"\$(grep -c ' SEND_OK\$' '${LOGS[producer]}')\" -ge $2 ] && echo ok" >/dev/null
}

COMMIT="$(git -C "$ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
T0=$(now_ms)
log "RocketMQ $VERSION from $LIB; ours: $("$OURS" --version | head -n 1) ($OURS), tree $COMMIT; work dir $W"
log "ports: Java NameServer $J_NS controller $J_CTRL; ours $O_NS controller $O_CTRL; brokers A $PORT_A, B $PORT_B"

# ---- 1. the starting cluster, under Java's controller --------------------------------------
mkdir -p "$W/java-ns" "$W/ours"
controller_conf "$W/java-ns/namesrv.properties" "$JAVA_NS" "$JAVA_CTRL" "$W/java-ns"
start_java java-ns "$W/java-ns" org.apache.rocketmq.namesrv.NamesrvStartup -c "$W/java-ns/namesrv.properties"
await_port "Java's NameServer" "$JAVA_NS" >/dev/null
await_port "Java's controller" "$JAVA_CTRL" >/dev/null
log "Java NameServer and controller up"
for b in A B; do broker_topic "$W/$b" "$TOPIC"; done
broker_conf A "$PORT_A" "$J_CTRL" "$J_NS"
broker_conf B "$PORT_B" "$J_CTRL" "$J_NS"
ADDR_A="127.0.0.1:$PORT_A"; ADDR_B="127.0.0.1:$PORT_B"
# A first, so that it takes id 1 and is elected; then B.
start_broker A "$PORT_A"
await "Java elects A" "^master=1 addr=$ADDR_A " replicas "$J_CTRL" >/dev/null
start_broker B "$PORT_B"
STATE_J1="$(await "B in Java's sync-state set" 'inSync=1,2$' replicas "$J_CTRL")"
log "under Java: $STATE_J1; route $(route "$J_NS")"

# The producer knows both NameServers, as clients must before the brokers move (MIGRATING.md,
# moving to new addresses); ours does not run yet, so it asks Java's.
mkdir -p "$W/producer" "$W/consumer"
start_java producer "$W/producer" "$ROOT/native-server/tests/java_failover/Failover.java" produce "$J_NS;$O_NS" "$TOPIC" "$GROUP-p"
await_acks "the producer's first sends acknowledged" 20
log "producer sending: $(acked) acknowledged"

# Later epochs: Java's controller elects again (kill -9 of the master), so the brokers hold
# master epoch 2 in their epochFileCheckpoint.
T=$(now_ms)
stop A KILL
await "Java elects B" "^master=2 addr=$ADDR_B " replicas "$J_CTRL" >/dev/null
JAVA_ELECTED_MS=$(( $(now_ms) - T ))
await "B routed as 0 by Java's NameServer" "^0=$ADDR_B" route "$J_NS" >/dev/null
JAVA_ROUTED_MS=$(( $(now_ms) - T ))
start_broker A "$PORT_A"
STATE_J2="$(await "A back in Java's sync-state set" 'inSync=1,2$' replicas "$J_CTRL")"
ACKED=$(acked)
await_acks "sends acknowledged by master B" $((ACKED + 20))
JAVA_EPOCHS_A="$(epochs_of A)"; JAVA_EPOCHS_B="$(epochs_of B)"
ID_FILE_A="$(cat "$W/A/store/brokerIdentity")"; ID_FILE_B="$(cat "$W/B/store/brokerIdentity")"
log "under Java after its failover (elected $(secs $JAVA_ELECTED_MS) s, routed $(secs $JAVA_ROUTED_MS) s): $STATE_J2"
log "epochFileCheckpoint: A [$JAVA_EPOCHS_A], B [$JAVA_EPOCHS_B]; brokerIdentity: A $ID_FILE_A, B $ID_FILE_B"
log "route at Java's NameServer: $(route "$J_NS")"
MASTER=B; SLAVE=A; MASTER_ID=2; SLAVE_ID=1

# ---- 2. the migration -----------------------------------------------------------------------
log "MIGRATION: start ours, empty controller store"
controller_conf "$W/ours/namesrv.properties" "$OUR_NS" "$OUR_CTRL" "$W/ours"
(cd "$W/ours" && exec env HOME="$W/ours/home" "$OURS" -c "$W/ours/namesrv.properties" --no-http) \
  >>"$W/ours/stdout.log" 2>&1 </dev/null &
PIDS[ours]=$!; LOGS[ours]="$W/ours/stdout.log"
await_port "our NameServer" "$OUR_NS" >/dev/null
await_port "our controller" "$OUR_CTRL" >/dev/null
log "ours up: $(replicas "$O_CTRL")"
N_MIGRATION=$(sends)
T_STOP=$(now_ms)
log "stop the slave ($SLAVE, id $SLAVE_ID), then the master ($MASTER, id $MASTER_ID)"
stop "$SLAVE"
stop "$MASTER"
apply_ids "$O_CTRL" "$CLUSTER" "$NAME" "1=$ADDR_A" "2=$ADDR_B" >&2
log "ours: $(replicas "$O_CTRL")"
broker_conf A "$PORT_A" "$O_CTRL" "$O_NS"
broker_conf B "$PORT_B" "$O_CTRL" "$O_NS"
T=$(now_ms)
start_broker "$MASTER" "$PORT_B"
# Above the epoch the brokers hold: the first election may come before the master's first
# heartbeat, then its heartbeat makes ours elect it again above that epoch. A slave started
# before that takes the lower epoch, which its HA refuses, and does not replicate.
epoch_above() { # EPOCH
  local state
  state="$(replicas "$O_CTRL")"
  [ "$(field masterEpoch "$state")" -gt "$1" ] 2>/dev/null && echo "$state"
}
JAVA_EPOCH="$(field masterEpoch "$STATE_J2")"
STATE_O1="$(await "ours elects the old master above epoch $JAVA_EPOCH" "^master=$MASTER_ID addr=$ADDR_B " epoch_above "$JAVA_EPOCH")"
OURS_ELECTED_MS=$(( $(now_ms) - T ))
await "the old master routed as 0 by ours" "^0=$ADDR_B" route "$O_NS" >/dev/null
log "ours: $STATE_O1 ($(secs $OURS_ELECTED_MS) s after the master's start)"
start_broker "$SLAVE" "$PORT_A"
STATE_O2="$(await "the old slave in our sync-state set" "^master=$MASTER_ID .*inSync=1,2$" replicas "$O_CTRL")"
ROUTE_O="$(await "both routed by ours" "^0=$ADDR_B $SLAVE_ID=$ADDR_A$" route "$O_NS")"
DOWN_MS=$(( $(now_ms) - T_STOP ))
log "ours: $STATE_O2; route $ROUTE_O; brokers stopped to both back: $(secs $DOWN_MS) s"
ID_AFTER="A $(cat "$W/A/store/brokerIdentity"), B $(cat "$W/B/store/brokerIdentity")"
log "brokerIdentity now: $ID_AFTER"
stop java-ns
log "Java's NameServer stopped"
ACKED=$(acked)
await_acks "sends acknowledged through ours" $((ACKED + 20))
MIGRATED_EPOCHS_A="$(epochs_of A)"; MIGRATED_EPOCHS_B="$(epochs_of B)"
UNACKED_MIGRATION=$(( $(unacked_since "$N_MIGRATION") ))
N_FAILOVER=$(sends)
log "epochFileCheckpoint: A [$MIGRATED_EPOCHS_A], B [$MIGRATED_EPOCHS_B]"

# ---- 3. a failover under ours ---------------------------------------------------------------
T=$(now_ms)
stop "$MASTER" KILL
STATE_O3="$(await "ours elects the old slave" "^master=$SLAVE_ID addr=$ADDR_A " replicas "$O_CTRL")"
OURS_FAILOVER_MS=$(( $(now_ms) - T ))
await "the old slave routed as 0 by ours" "^0=$ADDR_A" route "$O_NS" >/dev/null
OURS_ROUTED_MS=$(( $(now_ms) - T ))
ACKED=$(acked)
await_acks "sends acknowledged by the new master" $((ACKED + 20))
start_broker "$MASTER" "$PORT_B"
STATE_O4="$(await "the old master back in our sync-state set" "^master=$SLAVE_ID .*inSync=1,2$" replicas "$O_CTRL")"
ROUTE_O4="$(await "both routed by ours" "^0=$ADDR_A $MASTER_ID=$ADDR_B$" route "$O_NS")"
log "after kill -9 (elected $(secs $OURS_FAILOVER_MS) s, routed $(secs $OURS_ROUTED_MS) s): $STATE_O4; route $ROUTE_O4"
FINAL_EPOCHS_A="$(epochs_of A)"; FINAL_EPOCHS_B="$(epochs_of B)"

stop producer
SENT=$(grep -c '^SENT ' "$W/producer/stdout.log" || true)
FAILED=$(grep -c '^FAILED ' "$W/producer/stdout.log" || true)
grep ' SEND_OK$' "${LOGS[producer]}" | awk '{ print "failover-" $2 }' | sort -u >"$W/acked.txt"
UNACKED_FAILOVER=$(( $(unacked_since "$N_FAILOVER") ))
start_java consumer "$W/consumer" "$ROOT/native-server/tests/java_failover/Failover.java" consume "$O_NS" "$TOPIC" "$GROUP-c"
consumed_all() {
  sed -n 's/^RECEIVED //p' "${LOGS[consumer]}" | sort -u >"$W/received.txt"
  [ -z "$(comm -23 "$W/acked.txt" "$W/received.txt")" ] && echo ok
}
LOST_AT_GUARD=""
if ! (await "every acknowledged message consumed" '^ok$' consumed_all >/dev/null); then
  LOST_AT_GUARD=1
fi
sed -n 's/^RECEIVED //p' "${LOGS[consumer]}" | sort -u >"$W/received.txt"
ACKED=$(wc -l <"$W/acked.txt")
CONSUMED=$(comm -12 "$W/acked.txt" "$W/received.txt" | wc -l)
LOST=$((ACKED - CONSUMED))
stop consumer

echo
echo "controller migration, RocketMQ $VERSION brokers and clients, $(date -u '+%Y-%m-%d %H:%M UTC'), ours $("$OURS" --version | head -n 1), tree $COMMIT, $(secs $(( $(now_ms) - T0 ))) s in all"
echo "under Java's controller:   $STATE_J1"
echo "  after kill -9 of A:      $STATE_J2 (elected $(secs $JAVA_ELECTED_MS) s, id 0 in the route $(secs $JAVA_ROUTED_MS) s)"
echo "  brokerIdentity:          A $ID_FILE_A, B $ID_FILE_B (after the move: $ID_AFTER)"
echo "  epochFileCheckpoint:     A [$JAVA_EPOCHS_A], B [$JAVA_EPOCHS_B]"
echo "migrated to ours:          $STATE_O2"
echo "  elected:                 $(secs $OURS_ELECTED_MS) s after the master's start; brokers down to both back $(secs $DOWN_MS) s"
echo "  route:                   $ROUTE_O"
echo "  epochFileCheckpoint:     A [$MIGRATED_EPOCHS_A], B [$MIGRATED_EPOCHS_B]"
echo "after kill -9 of B, ours:  $STATE_O4 (elected $(secs $OURS_FAILOVER_MS) s, id 0 in the route $(secs $OURS_ROUTED_MS) s)"
echo "  route:                   $ROUTE_O4"
echo "  epochFileCheckpoint:     A [$FINAL_EPOCHS_A], B [$FINAL_EPOCHS_B]"
echo "producer:                  $SENT answered, $ACKED acknowledged (SEND_OK), $FAILED failed; not acknowledged: $UNACKED_MIGRATION from the brokers' stop to the sends through ours, $UNACKED_FAILOVER from then to the end"
echo "consumer (ours, from the first offset): $CONSUMED of the $ACKED acknowledged, $LOST lost"
verdict=()
[ "$(field master "$STATE_O2")" = "$MASTER_ID" ] || verdict+=("ours did not keep the master's id")
[ "$(field masterEpoch "$STATE_O2")" -gt "$(field masterEpoch "$STATE_J2")" ] || verdict+=("ours' master epoch is not above Java's")
[ "$LOST" = 0 ] && [ -z "$LOST_AT_GUARD" ] || verdict+=("$LOST acknowledged messages not consumed")
if [ "${#verdict[@]}" -gt 0 ]; then
  failures="$(printf '%s; ' "${verdict[@]}")"
  echo "MIGRATION FAILED: ${failures%; }"
  exit 1
fi
echo "MIGRATION OK: ids kept (master $MASTER_ID, slave $SLAVE_ID), every acknowledged message consumed"
OK=1
