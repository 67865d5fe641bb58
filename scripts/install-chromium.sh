#!/usr/bin/env bash
# Installs Debian's chromium when it is missing (never a downloaded browser): the browser tests
# and the package test drive it through playwright-core. CHROMIUM names another binary.
set -euo pipefail
if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium
fi
