#!/usr/bin/env bash
# Starts Apache RocketMQ's NameServer (Java, jars from scripts/java/fetch.sh) on 127.0.0.1:PORT,
# every file it writes in WORKDIR, with one of two heap profiles:
#   small  the Java oracle tests' heap (testkit/src/java.rs): -Xms128m -Xmx384m, serial GC
#   g1     what RocketMQ's bin/runserver.sh sets on Java 9 and later: -Xms4g -Xmx4g, G1 with
#          its region size, reserve and occupancy settings (GC log in WORKDIR)
# Logging: one file appender at INFO (WORKDIR/logs), as the oracle tests configure it.
#
# usage: run-namesrv.sh PORT WORKDIR [small|g1]
#          prints ONLY the JVM's pid on stdout once the port accepts (diagnostics on stderr);
#          the JVM keeps running in the background: stop it with kill <pid>
#        run-namesrv.sh --exec PORT WORKDIR [small|g1]
#          writes the configuration, then becomes the JVM (for exec -> listening timings)
# env:   RMQ_JAVA_VERSION (default 5.5.0), JAVA_HOME, NAMESERVER_JAVA_CACHE (see fetch.sh),
#        JAVA_START_TIMEOUT (seconds to wait for the port, default 120),
#        NAMESRV_EXTRA_PROPERTIES (a file whose lines are added to the configuration, e.g. the
#        embedded controller's keys)
set -euo pipefail
EXEC=
if [ "${1:-}" = --exec ]; then EXEC=1; shift; fi
PORT="${1:?usage: run-namesrv.sh [--exec] PORT WORKDIR [small|g1]}"
WORK="${2:?usage: run-namesrv.sh [--exec] PORT WORKDIR [small|g1]}"
PROFILE="${3:-small}"
VERSION="${RMQ_JAVA_VERSION:-5.5.0}"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
HERE="$(cd "$(dirname "$0")" && pwd)"

LIB="$("$HERE/fetch.sh" "$VERSION")"
mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"

case "$PROFILE" in
  small) HEAP=(-Xms128m -Xmx384m -XX:+UseSerialGC) ;;
  g1)
    HEAP=(-server -Xms4g -Xmx4g -XX:MetaspaceSize=128m -XX:MaxMetaspaceSize=320m -XX:+UseG1GC
      -XX:G1HeapRegionSize=16m -XX:G1ReservePercent=25 -XX:InitiatingHeapOccupancyPercent=30
      -XX:SoftRefLRUPolicyMSPerMB=0 "-Xlog:gc*:file=$WORK/logs/gc.log:time,tags:filecount=5,filesize=30M"
      -XX:-OmitStackTraceInFastThrow -XX:-UseLargePages)
    ;;
  *) echo "run-namesrv.sh: unknown heap profile '$PROFILE' (small or g1)" >&2; exit 2 ;;
esac

# shellcheck source=scripts/java/home.sh
source "$HERE/home.sh"
rocketmq_home "$WORK"
{
  echo "listenPort=$PORT"
  echo "rocketmqHome=$WORK"
  echo "kvConfigPath=$WORK/home/namesrv/kvConfig.json"
  echo "configStorePath=$WORK/home/namesrv/namesrv.properties"
  case "$VERSION" in 4.*) ;; *) echo "bindAddress=127.0.0.1" ;; esac
  if [ -n "${NAMESRV_EXTRA_PROPERTIES:-}" ]; then cat "$NAMESRV_EXTRA_PROPERTIES"; fi
} >"$WORK/namesrv.properties"

CMD=("$JAVA" "${HEAP[@]}" -XX:-UsePerfData -Djava.net.preferIPv4Stack=true "-Duser.home=$WORK/home"
  "-Drocketmq.home.dir=$WORK" "-Drmq.logback.configurationFile=$WORK/conf/rmq.logback.xml"
  -cp "$LIB/*" org.apache.rocketmq.namesrv.NamesrvStartup -c "$WORK/namesrv.properties")
cd "$WORK"
if [ -n "$EXEC" ]; then
  HOME="$WORK/home" ROCKETMQ_HOME="$WORK" exec "${CMD[@]}"
fi

if ss -ltnH "sport = :$PORT" 2>/dev/null | grep -q .; then
  echo "run-namesrv.sh: port $PORT already in use" >&2; exit 1
fi
HOME="$WORK/home" ROCKETMQ_HOME="$WORK" "${CMD[@]}" >"$WORK/stdout.log" 2>&1 </dev/null &
PID=$!
deadline=$((SECONDS + ${JAVA_START_TIMEOUT:-120}))
while [ "$SECONDS" -lt "$deadline" ]; do
  if ! kill -0 "$PID" 2>/dev/null; then
    echo "run-namesrv.sh: the JVM exited early; $WORK/stdout.log:" >&2; tail -n 20 "$WORK/stdout.log" >&2; exit 1
  fi
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
    echo "Java $VERSION NameServer ($PROFILE heap) pid=$PID listening 127.0.0.1:$PORT workdir=$WORK" >&2
    echo "$PID"; exit 0
  fi
  sleep 0.1
done
echo "run-namesrv.sh: no listener on 127.0.0.1:$PORT within ${JAVA_START_TIMEOUT:-120} s; $WORK/stdout.log" >&2
kill "$PID" 2>/dev/null || true
exit 1
