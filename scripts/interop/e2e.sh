#!/usr/bin/env bash
# End-to-end interop check: broker + producer + consumer through a NameServer.
#
# usage: e2e.sh [NAMESRV_ADDR]
#   With NAMESRV_ADDR (e.g. 127.0.0.1:9876, your own NameServer) it is used
#   as is; without, a reference rocketmq-namesrv 1.0.0 is started on
#   $NAMESRV_PORT (default 19876).
# env: INTEROP_CACHE, COUNT (default 20), TOPIC (default InteropTopic<epoch>),
#      BROKER_PORT (default 20911; also uses BROKER_PORT-2 and BROKER_PORT+1),
#      CLIENT_FLAGS (extra producer/consumer flags, e.g. "--tls-trust ca.pem"),
#      BROKER_TLS_CERT/BROKER_TLS_KEY (see run-broker.sh),
#      UNREGISTER (default 1, 0 with KEEP=1): then stop the broker with SIGTERM
#      and require it gone from cluster info (106) and from the topic's route
#      (105) within UNREGISTER_WITHIN_S (default 10; a silent broker would
#      only expire after 120 s), printing "UNREGISTER OK",
#      KEEP=1 to leave processes running and the work dir in place.
# Prints "E2E OK" and exits 0 when every sent message was consumed (and the
# broker unregistered).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export INTEROP_CACHE="${INTEROP_CACHE:-$HOME/.cache/rmq-interop}"
BIN="$INTEROP_CACHE/client/bin"
COUNT="${COUNT:-20}"
TOPIC="${TOPIC:-InteropTopic$(date +%s)}"
BROKER_PORT="${BROKER_PORT:-20911}"
read -ra CLIENT_FLAGS <<<"${CLIENT_FLAGS:-}"
if [ "${KEEP:-0}" = 1 ]; then UNREGISTER="${UNREGISTER:-0}"; else UNREGISTER="${UNREGISTER:-1}"; fi
WORK="$(mktemp -d "${TMPDIR:-/tmp}"/rmq-e2e.XXXXXX)"
PIDS=()
cleanup() {
  if [ "${KEEP:-0}" = 1 ]; then echo "KEEP=1: pids ${PIDS[*]} left running, work dir $WORK" >&2; return; fi
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done; done
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "E2E FAIL: $*"; exit 1; }

if [ $# -ge 1 ]; then
  NS="$1"
else
  NS_PORT="${NAMESRV_PORT:-19876}"
  NS_PID=$("$HERE/run-peer-namesrv.sh" "$NS_PORT" "$WORK/namesrv") || fail "peer namesrv did not start"
  PIDS+=("$NS_PID"); NS="127.0.0.1:$NS_PORT"
fi
echo "namesrv: $NS"

T0=$SECONDS
BR_PID=$("$HERE/run-broker.sh" "$NS" "$BROKER_PORT" "$WORK/broker") || fail "broker did not start"
PIDS+=("$BR_PID")
# Registration proof: the broker shows up in GET_BROKER_CLUSTER_INFO (106).
for _ in $(seq 1 100); do
  if "$HERE/probe.py" "$NS" 106 2>/dev/null | grep -q "127.0.0.1:$BROKER_PORT"; then REG=1; break; fi
  sleep 0.2
done
[ "${REG:-0}" = 1 ] || fail "broker 127.0.0.1:$BROKER_PORT not in cluster info of $NS"
echo "broker registered in $((SECONDS - T0))s: $("$HERE/probe.py" "$NS" 106 | grep '^body' | cut -c1-300)"

# ORDER=producer-first (default): send, then consume from the first offset with
# a fresh group. ORDER=consumer-first: start the consumer before the topic
# exists (it then waits for its periodic route refresh, ~30s).
run_consumer() {
  "$BIN/interop-consumer" --namesrv "$NS" --topic "$TOPIC" --count "$COUNT" --timeout-s "${CONSUMER_TIMEOUT_S:-90}" --quiet "${CLIENT_FLAGS[@]}" >"$WORK/consumer.out" 2>&1
}
if [ "${ORDER:-producer-first}" = consumer-first ]; then
  run_consumer & C_PID=$!; sleep 2
fi
"$BIN/interop-producer" --namesrv "$NS" --topic "$TOPIC" --count "$COUNT" --quiet "${CLIENT_FLAGS[@]}" >"$WORK/producer.out" 2>&1
P_RC=$?
grep -E "^(PRODUCER|SEND_FAIL)" "$WORK/producer.out"
if [ "${ORDER:-producer-first}" = consumer-first ]; then
  wait "$C_PID"; C_RC=$?
else
  run_consumer; C_RC=$?
fi
grep -E "^(CONSUMER|RECV_DUP)" "$WORK/consumer.out"
echo "route: $("$HERE/probe.py" "$NS" 105 "{\"topic\":\"$TOPIC\"}" | grep '^body' | cut -c1-300)"
[ "$P_RC" = 0 ] || fail "producer rc=$P_RC"
[ "$C_RC" = 0 ] || fail "consumer rc=$C_RC"
echo "E2E OK topic=$TOPIC count=$COUNT namesrv=$NS"
[ "$UNREGISTER" = 1 ] || exit 0

# A graceful stop sends UNREGISTER_BROKER (104). Closing its connection would
# also drop it from a NameServer that tracks channels; telling the two apart
# needs the NameServer's own record (e2e-ours.sh reads our daemon's metrics).
T_STOP=$(date +%s%3N)
DEADLINE=$((T_STOP + ${UNREGISTER_WITHIN_S:-10} * 1000))
kill -TERM "$BR_PID"
GONE=
while [ "$(date +%s%3N)" -lt "$DEADLINE" ]; do
  INFO=$("$HERE/probe.py" "$NS" 106) || fail "namesrv $NS did not answer 106: $INFO"
  if ! grep -q "127.0.0.1:$BROKER_PORT" <<<"$INFO"; then GONE=$(($(date +%s%3N) - T_STOP)); break; fi
  sleep 0.05
done
[ -n "$GONE" ] || fail "broker 127.0.0.1:$BROKER_PORT still in cluster info ${UNREGISTER_WITHIN_S:-10}s after SIGTERM"
ROUTE=$("$HERE/probe.py" "$NS" 105 "{\"topic\":\"$TOPIC\"}")
if echo "$ROUTE" | grep -q "\"brokerName\":\"${BROKER_NAME:-broker-a}\""; then fail "route of $TOPIC still lists ${BROKER_NAME:-broker-a}: $ROUTE"; fi
for _ in $(seq 1 300); do kill -0 "$BR_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$BR_PID" 2>/dev/null && fail "broker still running 30s after SIGTERM"
echo "UNREGISTER OK broker 127.0.0.1:$BROKER_PORT gone from 106 in ${GONE}ms after SIGTERM; route $TOPIC: $(echo "$ROUTE" | head -n 1 | cut -c1-160)"
