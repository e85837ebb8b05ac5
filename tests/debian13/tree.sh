#!/bin/bash
# tests/debian13/tree.sh - a Debian 13 (trixie) tree for the Debian 13 leg
#
#   tests/debian13/tree.sh DIR
#
# Makes DIR a trixie tree (debootstrap --variant=minbase from the archive
# this machine's apt already uses), then installs the build and test
# packages inside it with apt, services kept from starting (policy-rc.d)
# and Postfix preseeded to "No configuration": nothing in the tree binds
# a port or starts a daemon while it is made.  The packages are
# contrib/install-deps.sh's lists less what the leg does not run (clang,
# valgrind, the fuzzers, the benchmarks), under trixie's names.
#
# A finished tree is kept as a tarball in $DEBIAN13_CACHE
# (/var/cache/postsmtpsts-tests), named by a hash of this script and the
# package list: a rerun on the same machine unpacks it (seconds) instead
# of making it again (3 to 5 minutes).  Any failure removes DIR.
# Needs root; installs debootstrap on the host if it is missing.
set -eu
DIR=${1:?usage: tests/debian13/tree.sh DIR}
CACHE=${DEBIAN13_CACHE:-/var/cache/postsmtpsts-tests}
SUITE=trixie

PKGS="build-essential autoconf automake pkgconf libconfuse-dev libevent-dev
liblmdb-dev lmdb-utils libunbound-dev libcurl4-gnutls-dev libgnutls28-dev
libidn2-dev libcmocka-dev libsystemd-dev systemd-dev dns-root-data
ca-certificates libseccomp-dev libhiredis-dev libsqlite3-dev zlib1g-dev
libjson-c-dev
postfix nsd unbound ldnsutils nginx-light bind9-dnsutils openssl python3
curl swaks procps iproute2 python3-prometheus-client python3-jsonschema
systemd man-db groff-base debhelper dpkg-dev fakeroot lintian autopkgtest
git redis-server zstd gpg gpg-agent gpgv"

key=$(sha256sum <"$0" | cut -c1-16)
tarball=$CACHE/debian13-tree-$key.tar.zst

fail() {
	echo "debian13 tree: $*" >&2
	umount_all
	rm -rf "$DIR"
	exit 1
}
mounted=
umount_all() {
	local m
	for m in $mounted; do umount -l "$m" 2>/dev/null || true; done
	mounted=
}
trap umount_all EXIT

command -v zstd >/dev/null || apt-get install -y -q zstd >/dev/null
if [ -f "$tarball" ]; then
	rm -rf "$DIR"
	mkdir -p "$DIR"
	tar -C "$DIR" --zstd -xf "$tarball" || fail "unpacking $tarball"
	echo "debian13 tree: $DIR from $tarball"
	exit 0
fi

command -v debootstrap >/dev/null || {
	apt-get update -q >/dev/null
	apt-get install -y -q debootstrap >/dev/null
} || fail "cannot install debootstrap"
# the archive this machine already uses (deb822 or one-line sources)
uri=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/*.sources \
    2>/dev/null || true)
[ -n "$uri" ] || uri=$(awk '/^deb / { print $2; exit }' \
    /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)
[ -n "$uri" ] || fail "no Debian archive in /etc/apt/sources.list*"

rm -rf "$DIR"
mkdir -p "$DIR"
echo "debian13 tree: debootstrap $SUITE from $uri"
debootstrap --variant=minbase "$SUITE" "$DIR" "$uri" >"$DIR.debootstrap.log" 2>&1 ||
	{ tail -n 20 "$DIR.debootstrap.log" >&2; fail "debootstrap failed"; }
rm -f "$DIR.debootstrap.log"

# nothing starts while packages are installed
printf '#!/bin/sh\nexit 101\n' >"$DIR/usr/sbin/policy-rc.d"
chmod 755 "$DIR/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$DIR/etc/resolv.conf" 2>/dev/null || true
mount -t proc proc "$DIR/proc" && mounted="$DIR/proc $mounted"
echo "postfix postfix/main_mailer_type select No configuration" |
	chroot "$DIR" debconf-set-selections
echo "debian13 tree: apt-get install (the build and test packages)"
# shellcheck disable=SC2086 # the list is words
chroot "$DIR" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends $PKGS >"$DIR/apt.log" 2>&1 ||
	{ tail -n 30 "$DIR/apt.log" >&2; fail "apt-get install in the tree failed"; }
chroot "$DIR" apt-get clean
rm -f "$DIR/apt.log"
umount_all

mkdir -p "$CACHE"
rm -f "$CACHE"/debian13-tree-*.tar.zst
tar -C "$DIR" --zstd -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball" ||
	rm -f "$tarball.tmp"
echo "debian13 tree: made $DIR (cached as $tarball)"
