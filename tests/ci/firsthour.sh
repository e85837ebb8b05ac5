#!/usr/bin/env bash
# tests/ci/firsthour.sh - README's two commands, in the order given, work
#
# A new user runs "sh contrib/quickstart.sh" and then "bash tests/run-all".
# In a scratch copy of the tree (the files git knows, as they are in the
# working tree), this runs the build step of each, in that order:
#   sh contrib/quickstart.sh --build-only   build-quickstart/, /etc, /var, /run
#   bash tests/run-all --build-only         build/, the default directories
# and asserts that the second is unaffected by the first:
#   - the two builds are in different directories, and each daemon has its
#     own directories compiled in (strings: the default configuration
#     file, the pid file's directory);
#   - test_config (empty_file_gives_defaults: the compiled-in defaults)
#     passes in build/;
#   - a build directory reconfigured with other directories rebuilds what
#     uses them (installdirs.h): build/ configured like the quickstart,
#     then back to the defaults, passes test_config again;
#   - a cmocka test that calls skip() is reported SKIP, not FAIL, by
#     "make check" (tests/unit/tap-filter.sh, tests/unit/test_harness.c).
# About 3 minutes on 2 cores (two full builds).  Ends with
# "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"	# check, finish; cd to the top directory

work=$(mktemp -d /tmp/postsmtpsts-ci-firsthour.XXXXXX)
trap 'rm -rf "$work"' EXIT
src=$work/src
mkdir -p "$src"
git ls-files -z -c -o --exclude-standard | (cd "$top" &&
	xargs -0 cp --parents -P -t "$src" 2>/dev/null)
[ -f "$src/contrib/quickstart.sh" ] && [ -f "$src/tests/run-all" ] ||
	abort "scratch copy of the tree in $src"
check "scratch copy of the tree ($(git ls-files | wc -l) files)" 0
cd "$src" || abort "cd $src"

# daemon_names BUILD STRING - the daemon built in BUILD contains STRING
daemon_names() {
	strings "$1/postsmtpsts/postsmtpsts" | grep -qxF "$2"
}

# test_config BUILD - make check TESTS=tests/unit/test_config passes in BUILD
test_config() {
	make -C "$1" -j2 check TESTS=tests/unit/test_config \
	    >"$work/check-$2.out" 2>&1 &&
	grep -q '^PASS: tests/unit/test_config [0-9]* - empty_file_gives_defaults' \
	    "$work/check-$2.out" &&
	grep -q '^# FAIL: *0$' "$work/check-$2.out" || {
		grep -E '^(FAIL|ERROR)|^# ' "$work/check-$2.out" | head -n 20
		sed -n '/not ok/,+6p' "$1/tests/unit/test_config.log" 2>/dev/null |
		    head -n 20
		return 1
	}
}

# 1. the quickstart's build step
sh contrib/quickstart.sh --build-only >"$work/quickstart.out" 2>&1 || {
	tail -n 30 "$work/quickstart.out"
	abort "sh contrib/quickstart.sh --build-only"
}
check "sh contrib/quickstart.sh --build-only" 0
qs=$(sed -n 's/^QS_BUILD=//p' contrib/quickstart.sh)
[ -n "$qs" ] && [ -x "$qs/postsmtpsts/postsmtpsts" ]
check "the quickstart built in its own directory ($qs/)" $?
daemon_names "$qs" /etc/postsmtpsts/postsmtpsts.conf &&
	daemon_names "$qs" /run/postsmtpsts/postsmtpsts.pid
check "the quickstart's daemon has /etc and /run compiled in" $?

# 2. the test runner's build step, unaffected
bash tests/run-all --build-only >"$work/run-all.out" 2>&1 || {
	tail -n 30 "$work/run-all.out"
	abort "bash tests/run-all --build-only"
}
check "bash tests/run-all --build-only" 0
[ "$qs" != build ] && [ -x build/postsmtpsts/postsmtpsts ]
check "the test runner built in build/, not in $qs/" $?
daemon_names build /usr/local/etc/postsmtpsts/postsmtpsts.conf &&
	daemon_names build /usr/local/var/run/postsmtpsts/postsmtpsts.pid &&
	! daemon_names build /run/postsmtpsts/postsmtpsts.pid
check "build/'s daemon has the default directories compiled in, none of the quickstart's" $?
test_config build defaults
check "test_config passes in build/ (empty_file_gives_defaults)" $?

# 3. one build directory, reconfigured: what uses the paths is rebuilt
(cd build && ../configure -q --sysconfdir=/etc --localstatedir=/var \
	--runstatedir=/run && make -j2 >/dev/null 2>&1) &&
	daemon_names build /run/postsmtpsts/postsmtpsts.pid &&
	test_config build quickstart-dirs
check "build/ reconfigured with the quickstart's directories: rebuilt, test_config passes" $?
(cd build && ../configure -q && make -j2 >/dev/null 2>&1) &&
	daemon_names build /usr/local/var/run/postsmtpsts/postsmtpsts.pid &&
	test_config build defaults-again
check "build/ reconfigured back to the defaults: rebuilt, test_config passes" $?

# 4. a skipped cmocka test is a SKIP
TEST_HARNESS_SKIP=1 make -C build check TESTS=tests/unit/test_harness \
    >"$work/skip.out" 2>&1
st=$?
grep -q '^SKIP: tests/unit/test_harness 1 # SKIP skip_is_reported_as_skip' \
    "$work/skip.out" && grep -q '^# FAIL: *0$' "$work/skip.out" && [ "$st" -eq 0 ]
check "make check reports a cmocka skip() as SKIP (exit $st)" $?
make -C build check TESTS=tests/unit/test_harness >"$work/noskip.out" 2>&1 &&
	grep -q '^PASS: tests/unit/test_harness 1' "$work/noskip.out"
check "and the same test as PASS when it does not skip" $?

finish
