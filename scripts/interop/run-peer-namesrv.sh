#!/usr/bin/env bash
# Start the reference NameServer (crate rocketmq-namesrv 1.0.0, binary
# rocketmq-namesrv-rust) on 127.0.0.1:PORT with every file it writes kept in a
# temp dir. Prints ONLY its pid on stdout (diagnostics go to stderr) once the
# port accepts connections; the process keeps running in the background.
#
# usage: run-peer-namesrv.sh PORT [WORKDIR]
#   WORKDIR defaults to a fresh mktemp dir; stdout/stderr of the server go to
#   WORKDIR/namesrv.log. Stop it with: kill <pid>
# env:  INTEROP_CACHE (default $HOME/.cache/rmq-interop), NAMESRV_BIN to override
#       the binary, NAMESRV_WORKERS (tokio worker threads, optional),
#       RUST_LOG (default info).
set -euo pipefail
PORT="${1:?usage: run-peer-namesrv.sh PORT [WORKDIR]}"
WORK="${2:-$(mktemp -d "${TMPDIR:-/tmp}"/rmq-namesrv-"$PORT".XXXXXX)}"
CACHE="${INTEROP_CACHE:-$HOME/.cache/rmq-interop}"
BIN="${NAMESRV_BIN:-$CACHE/namesrv/bin/rocketmq-namesrv-rust}"
[ -x "$BIN" ] || { echo "missing $BIN; run scripts/interop/build.sh" >&2; exit 1; }
if ss -ltnH "sport = :$PORT" 2>/dev/null | grep -q .; then
  echo "port $PORT already in use" >&2; exit 1
fi
mkdir -p "$WORK/home"
WORK="$(cd "$WORK" && pwd)"
CONF="$WORK/namesrv.toml"
{
  echo "rocketmqHome = \"$WORK\""
  echo "kvConfigPath = \"$WORK/kvConfig.json\""
  echo "configStorePath = \"$WORK/rocketmq-namesrv.properties\""
  if [ -n "${NAMESRV_WORKERS:-}" ]; then
    printf '[runtime]\nworkerThreads = %s\n' "$NAMESRV_WORKERS"
  fi
} >"$CONF"
# HOME is redirected too so no default path can land in the real home dir.
HOME="$WORK/home" ROCKETMQ_HOME="$WORK" RUST_LOG="${RUST_LOG:-info}" \
  setsid "$BIN" -c "$CONF" --rocketmqHome "$WORK" --listenPort "$PORT" --bindAddress 127.0.0.1 \
  >"$WORK/namesrv.log" 2>&1 </dev/null &
PID=$!
for _ in $(seq 1 100); do
  if ! kill -0 "$PID" 2>/dev/null; then
    echo "namesrv exited early; log $WORK/namesrv.log:" >&2; tail -n 20 "$WORK/namesrv.log" >&2; exit 1
  fi
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
    echo "namesrv pid=$PID listening 127.0.0.1:$PORT workdir=$WORK log=$WORK/namesrv.log" >&2
    echo "$PID"; exit 0
  fi
  sleep 0.1
done
echo "namesrv did not open 127.0.0.1:$PORT within 10s; log $WORK/namesrv.log" >&2
kill "$PID" 2>/dev/null || true
exit 1
