#!/bin/sh
# System packages the tests need: chromium (webmail and unsubscribe pages through playwright-core),
# dnsutils (dig, for DNS answers), swaks (a real SMTP client delivering bounce reports), pebble
# (the ACME test CA for certificates) and openssl (test certificates).
# Idempotent: installs only what is missing; called by .ci/run.
set -eu
missing=""
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || missing="$missing chromium"
command -v dig >/dev/null 2>&1 || missing="$missing dnsutils"
command -v swaks >/dev/null 2>&1 || missing="$missing swaks"
command -v pebble >/dev/null 2>&1 || [ -x /usr/bin/pebble ] || missing="$missing pebble"
command -v openssl >/dev/null 2>&1 || missing="$missing openssl"
if [ -z "$missing" ]; then
  echo "system deps: chromium, dig, swaks, pebble and openssl present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "system deps: installing$missing"
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
