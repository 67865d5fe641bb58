#!/usr/bin/env bash
# Writes the class-data archive mqadmin runs of VERSION map (testkit/src/class_archive.rs), so
# that the first test runs of a fresh machine do not each write one: fetch.sh runs it after a
# fetch, in the background of the test command while Rust builds. One mqadmin run against a
# closed port loads the JDK, the remoting client and every command class; what it misses, the
# runs load from the jars as before. A failure leaves no archive, and tests write their own.
#
# usage: scripts/java/class-archive.sh VERSION LIB_DIR
set -euo pipefail
VERSION="${1:?usage: class-archive.sh VERSION LIB_DIR}"
LIB="${2:?usage: class-archive.sh VERSION LIB_DIR}"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
HERE="$(cd "$(dirname "$0")" && pwd)"
# The JDK's build, as the test kit names archives (`java -version`'s "(build …)").
BUILD="$("$JAVA" -version 2>&1 | sed -n 's/.*(build \([^)]*\)).*/\1/p' | head -n 1 | tr -c 'A-Za-z0-9.+_\n-' _)"
[ -n "$BUILD" ] || { echo "class-archive.sh: no JDK build in java -version" >&2; exit 1; }
ARCHIVE="$(dirname "$LIB")/class-archives/mqadmin-$BUILD.jsa"
[ -f "$ARCHIVE" ] && exit 0
mkdir -p "$(dirname "$ARCHIVE")"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# shellcheck source=scripts/java/home.sh
source "$HERE/home.sh"
rocketmq_home "$WORK"
# The test kit's options for short runs (testkit/src/java.rs): the archive must match them.
HOME="$WORK/home" ROCKETMQ_HOME="$WORK" timeout 120 "$JAVA" -XX:TieredStopAtLevel=1 -Xlog:cds=off -Xlog:cds+dynamic=off \
  "-XX:ArchiveClassesAtExit=$WORK/mqadmin.jsa" -Xms128m -Xmx384m -XX:+UseSerialGC -XX:-UsePerfData \
  -Djava.net.preferIPv4Stack=true "-Duser.home=$WORK/home" "-Drocketmq.home.dir=$WORK" \
  "-Drmq.logback.configurationFile=$WORK/conf/rmq.logback.xml" -Drocketmq.client.logUseSlf4j=true \
  -cp "$LIB/*" org.apache.rocketmq.tools.command.MQAdminStartup clusterList -n 127.0.0.1:1 \
  >"$WORK/out.log" 2>&1 </dev/null || true
[ -s "$WORK/mqadmin.jsa" ] && mv "$WORK/mqadmin.jsa" "$ARCHIVE"
echo "class-archive.sh: RocketMQ $VERSION's mqadmin: $ARCHIVE" >&2
