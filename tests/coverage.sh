#!/usr/bin/env bash
# tests/coverage.sh - line coverage of postsmtpsts/ by make check (gcovr)
#
# Run by hand, not by tests/run-all (it is slow: one more full build and
# make check, about 5 minutes on 2 cores), from any directory:
#
#   WORLD_BULK=500 tests/world/start     # the world must already be up
#   bash tests/coverage.sh               # COVERAGE_FLOOR=73 by default
#
# 1. builds with --coverage in build-cov/ (configured once; the warning
#    flags and -Werror of configure.ac stay: they are PS_CFLAGS, apart from
#    CFLAGS);
# 2. zeroes the counters and runs the whole make check there, against the
#    running loopback world (WORLD_NET and WORLD_DIR as for make check,
#    tests/world/README.md; WORLD_DIR defaults to /tmp/postsmtpsts-world
#    as in tests/run-all);
# 3. prints gcovr's line coverage of postsmtpsts/ per folder and in total,
#    and checks the total against COVERAGE_FLOOR (percent);
# 4. zeroes the counters again, runs only the scenarios
#    (tests/scenario/*.scn) and prints their coverage of postsmtpsts/daemon/
#    per file.
#
# The daemon's children (worker, resolver, metrics) end with _exit() and
# run as the unprivileged daemon user, so gcov never writes their counters:
# the end-to-end scripts add the master's lines only; the resolver's lines
# are counted through the scenario runner and the unit tests, which run
# that code in their own process.
#
# Needs gcovr (apt-get install gcovr).  The full report is left in
# build-cov/coverage.txt (make check) and build-cov/coverage-scenario.txt.
# Ends with "N passed, N failed".
set -u
# shellcheck source=tests/ci/lib.sh
. "$(dirname "$0")/ci/lib.sh"	# check, abort, finish; cd to the top directory

floor=${COVERAGE_FLOOR:-73}
B=build-cov
export WORLD_DIR=${WORLD_DIR:-/tmp/postsmtpsts-world}
[ -n "${WORLD_NET:-}" ] && export WORLD_NET

command -v gcovr >/dev/null 2>&1 || abort "gcovr installed (apt-get install gcovr)"

# The world must be up already (as tests/run-all starts it): make check
# would otherwise start one with too few bulk domains and leave it running.
echo "--- the loopback world in $WORLD_DIR"
world_ok() {
	[ -r "$WORLD_DIR/env.sh" ] || return 1
	(
		# shellcheck source=/dev/null
		. "$WORLD_DIR/env.sh"
		dig +time=1 +tries=1 +short @"$WORLD_NS_ADDR" SOA pstest. | grep -q . &&
		dig +time=1 +tries=1 +short @"$WORLD_RESOLVER_ADDR" SOA pstest. | grep -q .
	)
}
world_ok || abort "the world is up (start it first: WORLD_BULK=500 tests/world/start)"

echo "--- build $B/ with --coverage"
{ [ -x configure ] && [ configure -nt configure.ac ]; } ||
	autoreconf -fi >/dev/null 2>&1 || abort "autoreconf"
mkdir -p "$B"
if [ ! -f "$B/Makefile" ]; then
	( cd "$B" && "$top/configure" -q CFLAGS='-O0 -g --coverage' \
	    LDFLAGS=--coverage ) || abort "$B/: configure"
fi
make -C "$B" -j2 >"$B/make.out" 2>&1 || { tail -n 30 "$B/make.out"; abort "$B/: build"; }

# gcov_zero - remove every counter file, so the next run counts alone
gcov_zero() {
	find "$B" -name '*.gcda' -delete
}

# folders CSV - lines hit/total and percent per folder of postsmtpsts/,
# then "total"; from gcovr's CSV (file,line_total,line_covered,...)
folders() {
	awk -F, 'NR > 1 {
		n = split($1, p, "/"); d = n > 2 ? p[2] : "."
		t[d] += $2; c[d] += $3; T += $2; C += $3
	} END {
		for (d in t)
			printf "  %-8s %6d / %-6d %5.1f%%\n", d, c[d], t[d],
			    t[d] ? 100 * c[d] / t[d] : 0
		printf "  %-8s %6d / %-6d %5.1f%%\n", "total", C, T,
		    T ? 100 * C / T : 0
	}' "$1" | sort -k1,1 | awk '$1 != "total"; $1 == "total" { t = $0 } END { print t }'
}

echo "--- make check in $B/ (WORLD_DIR=$WORLD_DIR${WORLD_NET:+ WORLD_NET=$WORLD_NET})"
gcov_zero
make -C "$B" -j2 check >"$B/check.out" 2>&1
grep -E '^(FAIL|ERROR|XPASS):' "$B/check.out"
p=$(sed -n 's/^# PASS: *//p' "$B/check.out" | tail -n1)
f=$(sed -n 's/^# FAIL: *//p' "$B/check.out" | tail -n1)
e=$(sed -n 's/^# ERROR: *//p' "$B/check.out" | tail -n1)
check "make check in $B/: ${p:-?} passed, ${f:-?} failed, ${e:-?} errors" \
    "$([ -n "$p" ] && [ "$f" = 0 ] && [ "$e" = 0 ]; echo $?)"

echo "--- line coverage of postsmtpsts/ (gcovr; $B/coverage.txt)"
gcovr -r . --object-directory "$B" --filter 'postsmtpsts/' \
    --csv "$B/coverage.csv" --txt "$B/coverage.txt" 2>/dev/null ||
	abort "gcovr over $B/"
folders "$B/coverage.csv"
total=$(awk -F, 'NR > 1 { T += $2; C += $3 }
    END { printf "%.1f", T ? 100 * C / T : 0 }' "$B/coverage.csv")
check "line coverage of postsmtpsts/ $total% >= COVERAGE_FLOOR $floor%" \
    "$(awk -v t="$total" -v f="$floor" 'BEGIN { exit !(t + 0 >= f + 0) }'; echo $?)"

echo "--- the scenarios alone: coverage of postsmtpsts/daemon/ ($B/coverage-scenario.txt)"
gcov_zero
# shellcheck disable=SC2016	# $(SCENARIO_TESTS) is make's (mk/fake.am)
make -C "$B" check TESTS='$(SCENARIO_TESTS)' >"$B/check-scenario.out" 2>&1
st=$?
grep -E '^(FAIL|ERROR|XPASS):' "$B/check-scenario.out"
n=$(sed -n 's/^# PASS: *//p' "$B/check-scenario.out" | tail -n1)
check "the scenarios pass (${n:-?} checks)" "$st"
gcovr -r . --object-directory "$B" --filter 'postsmtpsts/daemon/' \
    --csv "$B/coverage-scenario.csv" --txt "$B/coverage-scenario.txt" \
    2>/dev/null || abort "gcovr over $B/ (scenarios)"
awk -F, 'NR > 1 && $2 > 0 { printf "  %-36s %5d / %-5d %5.1f%%\n", $1, $3, $2, 100 * $3 / $2
    T += $2; C += $3 }
    END { printf "  %-36s %5d / %-5d %5.1f%%\n", "daemon/ total", C, T, T ? 100 * C / T : 0 }' \
    "$B/coverage-scenario.csv"
finish
