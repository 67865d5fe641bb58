#!/usr/bin/env bash
# TLS and unregister with the real rocketmq-rust 1.0.0 broker (built with its
# "tls" feature) and client against OUR daemon, which this script starts twice
# on 127.0.0.1 with a throwaway CA's certificate:
#   1. tls.server.mode=enforcing: the broker, whose own connections to the
#      NameServer are always plaintext in 1.0.0, must be refused (it gives up
#      after its 24 s register timeout and exits).
#   2. tls.server.mode=permissive (the default): e2e.sh with the broker
#      registering in plaintext and the producer/consumer over TLS to the
#      daemon and to the broker (checking the certificate against the CA), then
#      SIGTERM to the broker: it must be dropped by its UNREGISTER_BROKER (104),
#      counted by the daemon as
#      nameserver_broker_unregistrations_total{reason="request"}.
# Prints "OURS OK" and exits 0 when all holds.
#
# env: INTEROP_CACHE, NAMESERVER_BIN (default target/release/nameserver of
#      this checkout: cargo build --release -p nameserver),
#      BROKER_BIN (default $INTEROP_CACHE/broker-tls/...), NS_PORT (19886),
#      HTTP_PORT (18886), BROKER_PORT (20931), KEEP=1 keeps the work dir.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export INTEROP_CACHE="${INTEROP_CACHE:-$HOME/.cache/rmq-interop}"
NSBIN="${NAMESERVER_BIN:-$HERE/../../target/release/nameserver}"
NS_PORT="${NS_PORT:-19886}"
HTTP_PORT="${HTTP_PORT:-18886}"
BROKER_PORT="${BROKER_PORT:-20931}"
NS="127.0.0.1:$NS_PORT"
export BROKER_BIN="${BROKER_BIN:-$INTEROP_CACHE/broker-tls/bin/rocketmq-broker-rust}"
[ -x "$NSBIN" ] || { echo "missing $NSBIN; cargo build --release -p nameserver" >&2; exit 1; }
[ -x "$BROKER_BIN" ] || { echo "missing $BROKER_BIN; scripts/interop/build.sh" >&2; exit 1; }
WORK="$(mktemp -d "${TMPDIR:-/tmp}"/rmq-ours.XXXXXX)"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done; done
  if [ "${KEEP:-0}" = 1 ]; then echo "KEEP=1: work dir $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
fail() { echo "OURS FAIL: $*"; exit 1; }

# A CA and a server certificate for 127.0.0.1 signed by it.
make_certs() {
  local d="$WORK/tls"
  mkdir -p "$d"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj /CN=interop-test-ca -addext basicConstraints=critical,CA:TRUE \
    -addext keyUsage=critical,keyCertSign -keyout "$d/ca.key" -out "$d/ca.pem" 2>/dev/null &&
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=127.0.0.1 \
      -keyout "$d/server.key" -out "$d/server.csr" 2>/dev/null &&
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >"$d/ext" &&
    openssl x509 -req -in "$d/server.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial \
      -days 2 -extfile "$d/ext" -out "$d/server.pem" 2>/dev/null
}

# start_ours MODE: our daemon in tls.server.mode MODE; sets OURS_PID, OURS_LOG.
start_ours() {
  OURS_LOG="$WORK/ours-$1.log"
  mkdir -p "$WORK/home-$1"
  HOME="$WORK/home-$1" "$NSBIN" -Duser.home="$WORK/home-$1" --bind-address 127.0.0.1 --listen-port "$NS_PORT" --http-port "$HTTP_PORT" \
    -Dtls.server.mode="$1" -Dtls.server.certPath="$WORK/tls/server.pem" -Dtls.server.keyPath="$WORK/tls/server.key" \
    --log-level info,nameserver::listener=debug >"$OURS_LOG" 2>&1 &
  OURS_PID=$!
  PIDS+=("$OURS_PID")
  for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$NS_PORT") 2>/dev/null; then return 0; fi
    kill -0 "$OURS_PID" 2>/dev/null || break
    sleep 0.1
  done
  tail -n 20 "$OURS_LOG"; fail "our daemon ($1) did not open $NS"
}

stop_ours() {
  kill -TERM "$OURS_PID"
  wait "$OURS_PID" || fail "our daemon exited with $? on SIGTERM; log $OURS_LOG"
}

metric() { # NAME{labels} -> value (0 when absent)
  curl -fsS "http://127.0.0.1:$HTTP_PORT/metrics" | awk -v m="$1" '$1 == m { v = $2 } END { print v + 0 }'
}

make_certs || fail "openssl could not make the test certificates"
echo "ours: $("$NSBIN" --version | head -n 1)"

# 1. enforcing: the plaintext broker is refused, and so is a plaintext probe.
# The broker then waits out its 24 s register timeout and exits.
start_ours enforcing
REFUSAL="insecure connection while this server is running in SSL enforcing mode"
BR_PID=$("$HERE/run-broker.sh" "$NS" "$BROKER_PORT" "$WORK/broker-enforcing") || fail "enforcing: broker did not start"
PIDS+=("$BR_PID")
for _ in $(seq 1 100); do grep -q "$REFUSAL" "$OURS_LOG" && break; sleep 0.1; done
grep -q "$REFUSAL" "$OURS_LOG" || fail "enforcing: no refusal of the plaintext broker in $OURS_LOG"
"$HERE/probe.py" "$NS" 106 >"$WORK/probe-enforcing.out" 2>&1 && fail "enforcing: a plaintext 106 was answered"
for _ in $(seq 1 600); do kill -0 "$BR_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$BR_PID" 2>/dev/null && fail "enforcing: the broker still runs 60 s after it was refused"
BROKER_SAID=$(sed 's/\x1b\[[0-9;]*m//g' "$WORK/broker-enforcing/broker.log" | grep -m1 -o "Register broker to name remoting_server failed.*")
[ -n "$BROKER_SAID" ] || fail "enforcing: the broker exited without a failed registration; log $WORK/broker-enforcing/broker.log"
[ "$(metric nameserver_broker_registrations_total)" = 0 ] || fail "enforcing: a broker registration was counted"
# The log says so once a minute per source; the metric counts every refused connection.
REFUSED=$(metric nameserver_frame_errors_total)
echo "enforcing: plaintext broker refused ($REFUSED connections closed before any frame; plaintext probe: $(head -n 1 "$WORK/probe-enforcing.out")); broker exited: $BROKER_SAID"
stop_ours

# 2. permissive: plaintext broker, TLS clients, then the broker's unregister.
start_ours permissive
BROKER_TLS_CERT="$WORK/tls/server.pem" BROKER_TLS_KEY="$WORK/tls/server.key" \
  CLIENT_FLAGS="--tls-trust $WORK/tls/ca.pem" BROKER_PORT="$BROKER_PORT" UNREGISTER=1 \
  "$HERE/e2e.sh" "$NS" | tee "$WORK/e2e.out"
grep -q "^UNREGISTER OK" "$WORK/e2e.out" || fail "e2e through our permissive daemon; log $OURS_LOG"
TLS_CONNS=$(grep -c "TLS connection from" "$OURS_LOG")
BY_REQUEST=$(metric 'nameserver_broker_unregistrations_total{reason="request"}')
BY_CLOSE=$(metric 'nameserver_broker_unregistrations_total{reason="channel_closed"}')
REGISTERED=$(metric 'nameserver_broker_registrations_total')
[ "$TLS_CONNS" -ge 2 ] || fail "permissive: $TLS_CONNS TLS connections logged, want the producer's and the consumer's"
[ "$REGISTERED" -ge 1 ] || fail "permissive: no broker registration counted"
[ "$BY_REQUEST" = 1 ] || fail "permissive: unregistrations by request = $BY_REQUEST (channel_closed = $BY_CLOSE), want 1"
grep -i "unregister" "$OURS_LOG" | head -n 3
stop_ours
echo "OURS OK tls_connections=$TLS_CONNS registrations=$REGISTERED unregistered_by_request=$BY_REQUEST" \
  "unregistered_by_channel_close=$BY_CLOSE enforcing_refusals=$REFUSED"
