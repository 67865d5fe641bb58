#!/usr/bin/env bash
# Makes the signature vectors of core/tests/testdata/auth/: request frames signed by Apache
# RocketMQ's own AclClientRPCHook (5.5.0 and 4.9.7 jars), each checked by 5.5.0's verifier
# (DefaultAuthenticationContextBuilder + AclSigner), whose verdict is written beside it.
# `cargo test -p nameserver-core auth` reads them; this script is run by hand, not by
# scripts/test.sh, and its output is committed:
#
#   scripts/java/auth-vectors.sh          # needs a JDK (javac) and Maven (scripts/java/fetch.sh)
#   git diff core/tests/testdata/auth/    # then commit
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=core/tests/testdata/auth
SRC=scripts/java/auth-vectors
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
command -v javac >/dev/null || { echo "auth-vectors.sh: javac not found (apt-get install openjdk-17-jdk-headless)" >&2; exit 1; }

VERIFIER_LIB="$(scripts/java/fetch.sh 5.5.0)"
mkdir -p "$OUT" "$WORK/verify"
javac -nowarn -d "$WORK/verify" -cp "$VERIFIER_LIB/*" "$SRC/Verify.java"
# The `version` each signer's frames carry: its own MQVersion (V5_5_0 = 513, V4_9_7 = 407).
for pair in 5.5.0:513 4.9.7:407; do
  v="${pair%%:*}"
  lib="$(scripts/java/fetch.sh "$v")"
  mkdir -p "$WORK/sign-$v"
  javac -nowarn -d "$WORK/sign-$v" -cp "$lib/*" "$SRC/Sign.java"
  java -cp "$WORK/sign-$v:$lib/*" Sign "${pair##*:}" "$WORK/$v.tsv" >"$WORK/sign-$v.log" 2>&1 \
    || { cat "$WORK/sign-$v.log" >&2; exit 1; }
  java -cp "$WORK/verify:$VERIFIER_LIB/*" Verify "$v" "$WORK/$v.tsv" "$OUT/java-$v.json" >"$WORK/verify-$v.log" 2>&1 \
    || { cat "$WORK/verify-$v.log" >&2; exit 1; }
  echo "$OUT/java-$v.json: $(grep -c '"name"' "$OUT/java-$v.json") vectors"
done
