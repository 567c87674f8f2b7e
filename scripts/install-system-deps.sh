#!/bin/sh
# System packages the tests need, checked before `npm test` runs anything (and by .ci/run).
# Installs what is missing when it can (root, or sudo without a password); otherwise stops at once
# naming what is missing and the one command that installs it. No test skips for a missing tool.
# One line per tool: "<command or absolute path> <Debian package>"; add yours here.
set -eu
# --bench: the peers of `npm run bench` instead (NSD, PowerDNS with its bind backend, dnsperf for
# bench:dns; Postfix, which also provides smtp-source, for bench:inbound).
# Not needed by any test; the default run below (no flag: `npm test`, CI) is unchanged.
if [ "${1:-}" = "--bench" ]; then
  bench_missing=""
  [ -x /usr/sbin/nsd ] || bench_missing="$bench_missing nsd"
  [ -x /usr/sbin/pdns_server ] || bench_missing="$bench_missing pdns-server"
  ls /usr/lib/*/pdns/libbindbackend.so >/dev/null 2>&1 || bench_missing="$bench_missing pdns-backend-bind"
  command -v dnsperf >/dev/null 2>&1 || bench_missing="$bench_missing dnsperf"
  { [ -x /usr/sbin/postfix ] && [ -x /usr/sbin/smtp-source ]; } || bench_missing="$bench_missing postfix"
  if [ -z "$bench_missing" ]; then
    echo "bench deps: all present"
    exit 0
  fi
  if [ "$(id -u)" -ne 0 ]; then
    echo "bench deps missing:$bench_missing" >&2
    echo "install them with:  sudo sh scripts/install-system-deps.sh --bench" >&2
    exit 1
  fi
  # The Debian packages start nsd and pdns as system services on port 53 when installed. The
  # bench starts its own private copies on free loopback ports, so the services must not run:
  # a policy-rc.d that answers 101 ("action forbidden") makes invoke-rc.d and
  # deb-systemd-invoke skip every start during this install. An existing policy is kept
  # aside and put back; with systemd the units are also disabled so a reboot does not start them.
  policy=/usr/sbin/policy-rc.d
  [ -e "$policy" ] && mv "$policy" "$policy.install-system-deps"
  restore_policy() {
    rm -f "$policy"
    if [ -e "$policy.install-system-deps" ]; then mv "$policy.install-system-deps" "$policy"; fi
  }
  trap restore_policy EXIT
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  echo "bench deps: installing$bench_missing (services not started)"
  # Postfix's debconf question is answered "No configuration": no /etc/postfix/main.cf is written,
  # so even a later start of the system service cannot listen on port 25 (master stops at once
  # without main.cf). The bench writes its own main.cf/master.cf under a temp folder. An existing
  # answer (a machine that already configured Postfix) is left alone: debconf keeps seen answers.
  if command -v debconf-set-selections >/dev/null 2>&1; then
    echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections
  fi
  apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $bench_missing
  if [ -d /run/systemd/system ]; then
    systemctl disable --now nsd pdns postfix >/dev/null 2>&1 || true
  fi
  # Nothing of the system Postfix may be left running (a start that slipped past the policy, e.g.
  # a package without invoke-rc.d): stop it through its own command, which only acts on the
  # default instance, and fail loudly if something still listens on port 25.
  if [ -x /usr/sbin/postfix ] && [ -e /etc/postfix/main.cf ]; then
    /usr/sbin/postfix status >/dev/null 2>&1 && /usr/sbin/postfix stop >/dev/null 2>&1 || true
  fi
  if command -v ss >/dev/null 2>&1 && ss -ltnH 'sport = :25' | grep -q .; then
    echo "bench deps: something listens on port 25 after the install:" >&2
    ss -ltnp 'sport = :25' >&2
    exit 1
  fi
  exit 0
fi
# chromium: webmail, unsubscribe and docs pages through playwright-core; dig: DNS answers;
# swaks: a real SMTP client delivering bounce reports; pebble: the ACME test CA; openssl: test certificates;
# postgresql: the throwaway clusters of the PostgreSQL backend's tests (test/support/postgres.ts);
# nginx: the round-robin proxy in front of two instances in the scale-out tests (test/support/nginx.ts);
# curl, jq: the README's first-mail blocks, run as written by test/readme/npm-start.test.ts.
needs="
/usr/lib/postgresql/15/bin/postgres postgresql
/usr/sbin/nginx nginx
/usr/lib/nginx/modules/ngx_stream_module.so libnginx-mod-stream
/usr/bin/systemd-analyze systemd
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
