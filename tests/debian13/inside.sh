#!/bin/bash
# tests/debian13/inside.sh - the Debian 13 leg, run inside the trixie tree
#
#   chroot TREE /bin/bash /src/tests/debian13/inside.sh
#
# Run by tests/ci/debian13.sh, which made the tree (tree.sh), put the
# source in /src, pointed the tree's resolver and CA bundle at the host's
# loopback world ($WORLD_DIR, bind-mounted at the same path) and mounted
# /proc, /dev and /tmp.  In order, with trixie's compilers and libraries:
#
#   1. the build (configure's defaults, -Werror);
#   2. make check-unit: the unit tests, the fuzz corpus replay and the
#      scenarios (virtual time) — not the whole suite a second time;
#   3. tests/ci/deb.sh: the .deb built twice (reproducible), lintian clean
#      on 13 (its t64 library names), autopkgtest, installed, the
#      installed daemon answering postmap -q, purged.  This tree is a root
#      where nothing was installed by hand, so none of it is skipped;
#   4. the end-to-end deliveries with trixie's own Postfix (3.10.13, with
#      libtlsrpt) against the host's world: E2E13 below.
#
# Prints "ok: DESC", "FAILED: DESC" or "skipped: DESC" per result (the
# host counts them) and each step's seconds.
set -u
cd /src || exit 1
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive

# The end-to-end scripts the leg runs here: delivery through the daemon's
# answers (the plain map), both maps through Postfix 3.10 (postfix310:
# the tlsrpt attributes), Postfix's own TLSRPT events into
# postsmtpsts-tlsrpt's socket (tlsrpt-dgram.sh, part B), the reporter on
# the log of real deliveries.
E2E13="tests/e2e/deliver.sh tests/e2e/postfix310.sh tests/e2e/tlsrpt-dgram.sh
    tests/e2e/tlsrpt.sh tests/e2e/dane.sh"

res() { if [ "$1" -eq 0 ]; then echo "ok: $2"; else echo "FAILED: $2"; fi; }
t0=$SECONDS
took() { echo "  ($1: $((SECONDS - t0)) s)"; t0=$SECONDS; }

echo "  Debian $(cat /etc/debian_version), Postfix $(postconf -dh mail_version)," \
    "$(pkg-config --modversion libcurl gnutls libunbound json-c | paste -sd' ')" \
    "(curl gnutls unbound json-c)"

# -- 1. build ----------------------------------------------------------------
rm -rf build
autoreconf -fi >autoreconf.out 2>&1 &&
    mkdir -p build && (cd build && ../configure -q && make -j2) >build13.out 2>&1
st=$?
[ "$st" -eq 0 ] || tail -n 30 autoreconf.out build13.out
res "$st" "Debian 13: configure and build with -Werror (gcc $(gcc -dumpversion))"
took build
[ "$st" -eq 0 ] || exit 0

# -- 2. unit tests, fuzz replay, scenarios -----------------------------------
(cd build && make -j2 check-unit) >check-unit.out 2>&1
st=$?
p=$(sed -n 's/^# PASS: *//p' check-unit.out | tail -n 1)
f=$(sed -n 's/^# FAIL: *//p' check-unit.out | tail -n 1)
s=$(sed -n 's/^# SKIP: *//p' check-unit.out | tail -n 1)
grep -E '^(FAIL|ERROR|SKIP):' check-unit.out | head -n 20 | sed 's/^/  /'
[ -n "$p" ] || { tail -n 20 check-unit.out; st=1; }
res "$st" "Debian 13: unit tests, fuzz replay, scenarios (${p:-0} passed, ${f:-?} failed, ${s:-?} skipped)"
took check-unit

# -- 3. the package ----------------------------------------------------------
bash tests/ci/deb.sh >deb13.out 2>&1
grep -E '^(ok|FAILED|skipped): ' deb13.out | sed 's/^\(ok\|FAILED\|skipped\): /&Debian 13 package: /'
grep -qE '^[0-9]+ passed, 0 failed' deb13.out || {
	grep -E '^[0-9]+ passed' deb13.out >/dev/null || echo "FAILED: Debian 13 package: deb.sh gave no summary"
	tail -n 40 deb13.out | sed 's/^/  /'
}
took deb.sh

# -- 4. deliveries with trixie's Postfix -------------------------------------
# shellcheck disable=SC2086 # a list of words
(cd build && make check TESTS="$(echo $E2E13)") >e2e13.out 2>&1
for t in $E2E13; do
	log=build/${t%.sh}.log
	if [ ! -f "$log" ]; then
		echo "FAILED: Debian 13 e2e: $t (no log)"
		continue
	fi
	n=$(grep -c '^ok' "$log")
	bad=$(grep -c '^not ok' "$log")
	if grep -q '^1\.\.0 # SKIP' "$log"; then
		echo "FAILED: Debian 13 e2e: $t skipped: $(sed -n 's/^1\.\.0 # SKIP *//p' "$log")"
	elif [ "$bad" -eq 0 ] && [ "$n" -gt 0 ] && ! grep -q '^Bail out' "$log"; then
		echo "ok: Debian 13 e2e: $t ($n checks)"
	else
		echo "FAILED: Debian 13 e2e: $t ($bad of $((n + bad)) failed)"
		grep -E '^not ok|^Bail out|^#' "$log" | head -n 30 | sed 's/^/  /'
	fi
done
took e2e
