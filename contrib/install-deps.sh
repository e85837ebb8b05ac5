#!/bin/sh
# contrib/install-deps.sh - install what postsmtpsts needs on Debian 12
#
#   contrib/install-deps.sh          build dependencies
#   contrib/install-deps.sh --test   plus everything the test suite runs:
#                                    Postfix, nsd, unbound, nginx, ldns tools,
#                                    systemd-analyze, man and groff (tests/ci),
#                                    redis-server (the fleet tier, tests/e2e/fleet.sh),
#                                    Debian's postfix-mta-sts-resolver,
#                                    python3-redis and faketime (its caches
#                                    imported, tests/e2e/cache-import.sh),
#                                    gdb (fleet.sh stops a daemon to stage a race),
#                                    gpg and gpgv (preload lists: test_gpgv makes
#                                    its keys and signatures with gpg),
#                                    debhelper, lintian, autopkgtest (deb.sh),
#                                    python3-jsonschema (the RFC 8460 report
#                                    schema: tests/unit/tlsrpt-schema.sh,
#                                    tests/e2e/tlsrpt.sh),
#                                    and Postfix 3.10 from bookworm-backports,
#                                    downloaded, never installed
#                                    (tests/e2e/postfix310.sh, below)
#   contrib/install-deps.sh --bench  plus the benchmarks' extras: perf
#                                    (profiles in bench/README.md; bench/peer's
#                                    postfix-mta-sts-resolver is a test one)
# Installs only what is missing; needs root.  Postfix is preseeded to
# "No configuration" so installing it configures and starts no mail server.
set -eu

BUILD="build-essential autoconf automake pkgconf libconfuse-dev libevent-dev
liblmdb-dev lmdb-utils libunbound-dev libcurl4-gnutls-dev libgnutls28-dev
libidn2-dev libcmocka-dev libsystemd-dev dns-root-data ca-certificates
libseccomp-dev libhiredis-dev libsqlite3-dev zlib1g-dev libjson-c-dev"
TEST="postfix nsd unbound ldnsutils nginx-light bind9-dnsutils openssl
python3 curl swaks procps iproute2 valgrind clang libclang-rt-dev
shellcheck python3-prometheus-client systemd man-db groff-base cppcheck
clang-tidy redis-server gdb debhelper dpkg-dev fakeroot lintian autopkgtest
tinyproxy-bin postfix-mta-sts-resolver python3-redis faketime python3-jsonschema
gpg gpgv"
BENCH="linux-perf"

# Postfix >= 3.10 for tests/e2e/postfix310.sh, where the system's Postfix
# is older (Debian 12: 3.7): the bookworm-backports package, downloaded into
# PF310_DIR and never installed (every other test runs the system's
# Postfix); the test unpacks it into a prefix of its own.
PF310_DIR=/var/cache/postsmtpsts-tests
PF310_SUITE=bookworm-backports
PF310_SOURCE="deb http://deb.debian.org/debian $PF310_SUITE main"

# pf310_needed - is a Postfix 3.10 package for the tests still missing?
pf310_needed() {
	v=$(postconf -dh mail_version 2>/dev/null) || v=
	case $v in
	3.[0-9] | 3.[0-9].*) ;;	# 3.0 .. 3.9: the backports package is needed
	*) [ -n "$v" ] && return 1 ;;
	esac
	! ls "$PF310_DIR"/postfix_3.1[0-9]*.deb >/dev/null 2>&1
}

# pf310_fetch - add the backports suite to apt's sources if no source names
# it, and download its postfix package into PF310_DIR
pf310_fetch() {
	# shellcheck source=/dev/null
	. /etc/os-release
	if [ "${VERSION_CODENAME:-}" != bookworm ]; then
		echo "install-deps: no $PF310_SUITE on ${VERSION_CODENAME:-this system}:" \
		    "tests/e2e/postfix310.sh needs Postfix >= 3.10" >&2
		return 0
	fi
	if ! grep -Eqs "^[^#]*[[:space:]]$PF310_SUITE([[:space:]]|\$)" \
	    /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
	    /etc/apt/sources.list.d/*.sources; then
		echo "install-deps: adding $PF310_SUITE to" \
		    "/etc/apt/sources.list.d/$PF310_SUITE.list"
		echo "$PF310_SOURCE" >"/etc/apt/sources.list.d/$PF310_SUITE.list"
		apt-get update -q
	fi
	mkdir -p "$PF310_DIR"
	# apt-get download writes as the _apt user where it can
	chown _apt "$PF310_DIR" 2>/dev/null || true
	(cd "$PF310_DIR" && apt-get download -q "postfix/$PF310_SUITE")
	ls "$PF310_DIR"/postfix_3.1[0-9]*.deb >/dev/null 2>&1 || {
		echo "install-deps: $PF310_SUITE has no postfix >= 3.10" >&2
		return 1
	}
}

pkgs=$BUILD
[ "${1:-}" = "--test" ] && pkgs="$BUILD $TEST"
[ "${1:-}" = "--bench" ] && pkgs="$BUILD $TEST $BENCH"
pf310=no
case ${1:-} in
--test | --bench) pf310_needed && pf310=yes ;;
esac

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	[ "$pf310" = no ] && exit 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps: missing: postfix from $PF310_SUITE in" \
		    "$PF310_DIR (run as root)" >&2
		exit 1
	fi
	pf310_fetch
	exit
fi

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
if [ "$pf310" = yes ]; then
	pf310_fetch
fi
