#!/usr/bin/env bash
# Fetches Apache RocketMQ's jars for one version from Maven Central, by artifact name only, into
# ${NAMESERVER_JAVA_CACHE:-$HOME/.cache/nameserver-java}/VERSION/lib (the normal local Maven
# repository is the download cache; offline once the version is there). Prints the lib dir.
#
# usage: scripts/java/fetch.sh VERSION        e.g. 5.5.0, 5.3.3, 4.9.7
# env:   NAMESERVER_JAVA_CACHE, MAVEN (default mvn), FETCH_TRIES (default 3)
set -euo pipefail
VERSION="${1:?usage: fetch.sh VERSION}"
case "$VERSION" in (*[!0-9A-Za-z.-]*|'') echo "fetch.sh: bad version '$VERSION'" >&2; exit 2;; esac
CACHE="${NAMESERVER_JAVA_CACHE:-$HOME/.cache/nameserver-java}"
DIR="$CACHE/$VERSION"
LIB="$DIR/lib"
MVN="${MAVEN:-mvn}"
TRIES="${FETCH_TRIES:-3}"

# Complete, and its jars still there (a cache broken by an older fetch.sh's race is fetched again).
fetched() { [ -f "$DIR/complete" ] && [ -f "$LIB/rocketmq-namesrv-$VERSION.jar" ]; }
if fetched; then echo "$LIB"; exit 0; fi
command -v "$MVN" >/dev/null || { echo "fetch.sh: Maven ('$MVN') is not installed; apt-get install maven" >&2; exit 1; }

mkdir -p "$DIR"
# Two test runs on one machine fetch into the same directory: the second waits for the first.
exec 9>"$DIR/.lock"
flock 9
if fetched; then echo "$LIB"; exit 0; fi
rm -f "$DIR/complete"
# The artifacts a NameServer, a broker and mqadmin need; Maven resolves their dependencies.
cat >"$DIR/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.nameserver-testkit</groupId>
  <artifactId>rocketmq-java-$VERSION</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.rocketmq</groupId><artifactId>rocketmq-namesrv</artifactId><version>$VERSION</version></dependency>
    <dependency><groupId>org.apache.rocketmq</groupId><artifactId>rocketmq-broker</artifactId><version>$VERSION</version></dependency>
    <dependency><groupId>org.apache.rocketmq</groupId><artifactId>rocketmq-tools</artifactId><version>$VERSION</version></dependency>
  </dependencies>
</project>
POM

run() { # offline first (a warm local repository needs no network), then online with retries
  "$MVN" -B -q -o -f "$DIR/pom.xml" dependency:copy-dependencies -DoutputDirectory="$LIB.partial" \
    -DincludeScope=runtime >"$DIR/fetch.log" 2>&1 && return 0
  local i
  for i in $(seq 1 "$TRIES"); do
    "$MVN" -B -q -f "$DIR/pom.xml" dependency:copy-dependencies -DoutputDirectory="$LIB.partial" \
      -DincludeScope=runtime >"$DIR/fetch.log" 2>&1 && return 0
    echo "fetch.sh: Maven attempt $i/$TRIES for RocketMQ $VERSION failed" >&2
    sleep $((i * 5))
  done
  return 1
}

rm -rf "$LIB.partial"
if ! run; then
  echo "fetch.sh: cannot fetch RocketMQ $VERSION from Maven Central (log: $DIR/fetch.log; last lines below)" >&2
  tail -n 5 "$DIR/fetch.log" >&2
  exit 1
fi
rm -rf "$LIB" && mv "$LIB.partial" "$LIB"
# mqadmin's class-data archive, while nothing waits for it (a failure only costs time later).
"$(dirname "$0")/class-archive.sh" "$VERSION" "$LIB" >&2 || true
touch "$DIR/complete"
echo "$LIB"
