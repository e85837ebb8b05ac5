#!/bin/sh
# contrib/install-deps.sh - install what postsmtpsts needs on Debian 12
#
#   contrib/install-deps.sh          build dependencies
#   contrib/install-deps.sh --test   plus everything the test suite runs:
#                                    Postfix, nsd, unbound, nginx, ldns tools,
#                                    systemd-analyze, man and groff (tests/ci),
#                                    redis-server (the fleet tier, tests/e2e/fleet.sh),
#                                    gdb (fleet.sh stops a daemon to stage a race),
#                                    debhelper, lintian, autopkgtest (deb.sh)
#   contrib/install-deps.sh --bench  plus the benchmarks' extras: Debian's
#                                    postfix-mta-sts-resolver (bench/peer)
#                                    and perf (profiles in bench/README.md)
# Installs only what is missing; needs root.  Postfix is preseeded to
# "No configuration" so installing it configures and starts no mail server.
set -eu

BUILD="build-essential autoconf automake pkgconf libconfuse-dev libevent-dev
liblmdb-dev lmdb-utils libunbound-dev libcurl4-gnutls-dev libgnutls28-dev
libidn2-dev libcmocka-dev libsystemd-dev dns-root-data ca-certificates
libseccomp-dev libhiredis-dev"
TEST="postfix nsd unbound ldnsutils nginx-light bind9-dnsutils openssl
python3 curl swaks procps iproute2 valgrind clang libclang-rt-14-dev
shellcheck python3-prometheus-client systemd man-db groff-base cppcheck
clang-tidy redis-server gdb debhelper dpkg-dev fakeroot lintian autopkgtest
tinyproxy-bin"
BENCH="postfix-mta-sts-resolver linux-perf"

pkgs=$BUILD
[ "${1:-}" = "--test" ] && pkgs="$BUILD $TEST"
[ "${1:-}" = "--bench" ] && pkgs="$BUILD $TEST $BENCH"

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages:$missing (run as root)" >&2
	exit 1
fi
echo "install-deps: installing$missing"
echo "postfix postfix/main_mailer_type select No configuration" |
	debconf-set-selections
export DEBIAN_FRONTEND=noninteractive
# Never start services from package scripts: the tests start their own.
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
	chmod 755 /usr/sbin/policy-rc.d
	trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
