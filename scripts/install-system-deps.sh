#!/bin/sh
# System packages the tests need, checked before `npm test` runs anything (and by .ci/run).
# Installs what is missing when it can (root, or sudo without a password); otherwise stops at once
# naming what is missing and the one command that installs it. No test skips for a missing tool.
# One line per tool: "<command or absolute path> <Debian package>"; add yours here.
set -eu
# chromium: webmail, unsubscribe and docs pages through playwright-core; dig: DNS answers;
# swaks: a real SMTP client delivering bounce reports; pebble: the ACME test CA; openssl: test certificates;
# postgresql: the throwaway clusters of the PostgreSQL backend's tests (test/support/postgres.ts);
# nginx: the round-robin proxy in front of two instances in the scale-out tests (test/support/nginx.ts);
# curl, jq: the README's first-mail blocks, run as written by test/readme/npm-start.test.ts.
needs="
/usr/lib/postgresql/15/bin/postgres postgresql
/usr/sbin/nginx nginx
/usr/bin/chromium chromium
dig dnsutils
swaks swaks
/usr/bin/pebble pebble
openssl openssl
curl curl
jq jq
"
missing=""
for_each() {
  echo "$needs" | while read -r tool pkg; do
    [ -n "$tool" ] || continue
    case "$tool" in
      /*) [ -x "$tool" ] || echo "$pkg" ;;
      *) command -v "$tool" >/dev/null 2>&1 || echo "$pkg" ;;
    esac
  done
}
missing=$(for_each | sort -u | tr '\n' ' ')
if [ -z "$missing" ]; then
  echo "system deps: all present"
  exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  SUDO="sudo"
else
  echo "system deps missing: $missing" >&2
  echo "install them with:  sudo sh scripts/install-system-deps.sh" >&2
  echo "(that is: sudo apt-get install -y --no-install-recommends $missing)" >&2
  exit 1
fi
echo "system deps: installing $missing"
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
