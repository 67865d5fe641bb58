#!/usr/bin/env bash
# Start the reference broker (crate rocketmq-broker 1.0.0, binary
# rocketmq-broker-rust) against NAMESRV_ADDR, everything under a temp dir and
# every listener on 127.0.0.1. Prints ONLY its pid on stdout once its remoting
# port accepts connections (diagnostics on stderr). Registration with the
# NameServer happens during startup; a broker that cannot register exits.
#
# usage: run-broker.sh NAMESRV_ADDR [LISTEN_PORT] [WORKDIR]
#   NAMESRV_ADDR  e.g. 127.0.0.1:9876 (several: "a:1;b:2")
#   LISTEN_PORT   remoting port, default 10911. It also opens LISTEN_PORT-2
#                 (fast/VIP port) and LISTEN_PORT+1 (HA port).
#   WORKDIR       default fresh mktemp dir under ${TMPDIR:-/tmp}; log in
#                 WORKDIR/broker.log
# env: INTEROP_CACHE, BROKER_BIN, BROKER_NAME (broker-a), CLUSTER_NAME
#      (DefaultCluster), RUST_LOG (default info), BROKER_EXTRA_TOML (extra
#      lines appended to the [broker] table), BROKER_TLS_CERT and
#      BROKER_TLS_KEY (PEM files: its remoting port then also accepts TLS,
#      tls.server.mode permissive; its own connections to the NameServer stay
#      plaintext, rocketmq-broker 1.0.0 has no setting for them).
set -euo pipefail
NAMESRV="${1:?usage: run-broker.sh NAMESRV_ADDR [LISTEN_PORT] [WORKDIR]}"
PORT="${2:-10911}"
WORK="${3:-$(mktemp -d "${TMPDIR:-/tmp}"/rmq-broker-"$PORT".XXXXXX)}"
CACHE="${INTEROP_CACHE:-$HOME/.cache/rmq-interop}"
BIN="${BROKER_BIN:-$CACHE/broker/bin/rocketmq-broker-rust}"
[ -x "$BIN" ] || { echo "missing $BIN; run scripts/interop/build.sh" >&2; exit 1; }
HA_PORT=$((PORT + 1))
for p in "$PORT" "$((PORT - 2))" "$HA_PORT"; do
  if ss -ltnH "sport = :$p" 2>/dev/null | grep -q .; then echo "port $p already in use" >&2; exit 1; fi
done
mkdir -p "$WORK/home" "$WORK/conf" "$WORK/store"
WORK="$(cd "$WORK" && pwd)"
# The store counts a filesystem >= 90% full (statvfs, blocks not available to
# users included) as full (diskSpaceWarningLevelRatio, at most 90): the broker
# then fails its startup with only "core.service.failed".
FULL=$(df -Pk "$WORK" | awk 'NR == 2 { print int(100 - $4 * 100 / $2) }')
if [ "$FULL" -ge 89 ]; then
  echo "warning: $WORK is on a filesystem ${FULL}% full; the broker will not start at 90% (try TMPDIR=/dev/shm)" >&2
fi
CONF="$WORK/conf/broker.toml"
TLS_TOML=
if [ -n "${BROKER_TLS_CERT:-}" ]; then
  TLS_TOML="[broker.brokerServerConfig.tlsConfig.server]
mode = \"permissive\"
certPath = \"$BROKER_TLS_CERT\"
keyPath = \"${BROKER_TLS_KEY:?BROKER_TLS_KEY goes with BROKER_TLS_CERT}\""
fi
cat >"$CONF" <<TOML
[broker]
namesrvAddr = "$NAMESRV"
brokerIp1 = "127.0.0.1"
brokerIp2 = "127.0.0.1"
listenPort = $PORT
storePathRootDir = "$WORK/store"
autoCreateTopicEnable = true
${BROKER_EXTRA_TOML:-}

[broker.brokerServerConfig]
bindAddress = "127.0.0.1"

$TLS_TOML

[broker.brokerIdentity]
brokerName = "${BROKER_NAME:-broker-a}"
brokerClusterName = "${CLUSTER_NAME:-DefaultCluster}"
brokerId = 0

[store]
storeType = "LocalFile"
brokerRole = "ASYNC_MASTER"
storePathRootDir = "$WORK/store"
haListenAddress = "127.0.0.1"
haListenPort = $HA_PORT
TOML
# NAMESRV_ADDR env would override the file; -n makes the address explicit.
env -u NAMESRV_ADDR HOME="$WORK/home" ROCKETMQ_HOME="$WORK" RUST_LOG="${RUST_LOG:-info}" \
  ROCKETMQ_SECURITY_PROFILE=development-insecure-loopback \
  setsid "$BIN" -c "$CONF" -n "$NAMESRV" >"$WORK/broker.log" 2>&1 </dev/null &
PID=$!
for _ in $(seq 1 600); do
  if ! kill -0 "$PID" 2>/dev/null; then
    echo "broker exited early; log $WORK/broker.log:" >&2; tail -n 30 "$WORK/broker.log" >&2; exit 1
  fi
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
    echo "broker pid=$PID listening 127.0.0.1:$PORT namesrv=$NAMESRV workdir=$WORK log=$WORK/broker.log" >&2
    echo "$PID"; exit 0
  fi
  sleep 0.1
done
echo "broker did not open 127.0.0.1:$PORT within 60s; log $WORK/broker.log" >&2
kill "$PID" 2>/dev/null || true
exit 1
