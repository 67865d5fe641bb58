#!/usr/bin/env bash
# The Java differential long run: REQUESTS seeded random requests per version (registrations,
# heartbeats, unregistrations, queries, KV, topic changes; brokers over held connections) sent to
# Apache RocketMQ's NameServer and to ours, compared as the differential test compares them
# (native-server/tests/java_oracle/long_run.rs). Prints, per version, the requests, the distinct
# shapes, the differences per row of docs/PROTOCOL.md §18; fails on any difference outside it.
#
# usage: scripts/java/long-run.sh [REQUESTS] [VERSIONS]   default 1000000 5.5.0,5.3.3,4.9.7
# env:   JAVA_LONG_SEED (1), JAVA_LONG_LANES (16), JAVA_LONG_ROUND (250),
#        JAVA_LONG_PROFILE (release: our server and the comparator built optimised)
set -euo pipefail
cd "$(dirname "$0")/../.."
REQUESTS="${1:-1000000}"
VERSIONS="${2:-5.5.0,5.3.3,4.9.7}"
PROFILE="${JAVA_LONG_PROFILE:-release}"
for v in ${VERSIONS//,/ }; do scripts/java/fetch.sh "$v" >/dev/null; done
JAVA_LONG_REQUESTS="$REQUESTS" JAVA_ORACLE_VERSIONS="$VERSIONS" \
  cargo test --profile "$PROFILE" -p nameserver --test java_oracle --locked -- \
  --ignored --exact long_run::java_long_run --nocapture
