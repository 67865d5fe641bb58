#!/usr/bin/env bash
# Installs Debian's chromium when it is missing (never a downloaded browser), and Debian's CJK
# fonts so the page's Chinese renders in screenshots: the browser tests and the package test
# drive chromium through playwright-core. CHROMIUM names another binary.
set -euo pipefail
need=()
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || need+=(chromium)
dpkg -s fonts-noto-cjk >/dev/null 2>&1 || need+=(fonts-noto-cjk)
if [ "${#need[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}"
fi
