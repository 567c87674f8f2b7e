#!/bin/sh
# System packages the tests need: chromium (webmail tests through playwright-core) and dnsutils
# (dig, for DNS answers). Idempotent: installs only what is missing; called by .ci/run.
set -eu
missing=""
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || missing="$missing chromium"
command -v dig >/dev/null 2>&1 || missing="$missing dnsutils"
if [ -z "$missing" ]; then
  echo "system deps: chromium and dig present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "system deps: installing$missing"
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
