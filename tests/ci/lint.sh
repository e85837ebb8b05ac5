#!/bin/bash
# lint.sh - static analysis: cppcheck and clang-tidy over postsmtpsts/*.c,
# with build/'s flags (mk/lint.am, config in .clang-tidy).  One result per
# tool; a finding fails it.  Run from the top directory with build/
# configured (tests/run-all does).
set -u
. "$(dirname "$0")/lib.sh"	# check, finish; cd to the top directory
[ -f build/Makefile ] || abort "lint: build/ is configured"
for t in cppcheck clang-tidy; do
	echo "--- make lint-$t"
	if ! command -v "$t" >/dev/null 2>&1; then
		check "lint-$t: $t installed (contrib/install-deps.sh --test)" 1
		continue
	fi
	if out=$(make -s -C build "lint-$t" 2>&1); then
		check "lint-$t: clean" 0
	else
		printf '%s\n' "$out" | grep -v '^clang-tidy \|warnings\? generated' |
		    tail -n 60
		check "lint-$t: clean" 1
	fi
done

# One clock (lib/clock.c): no other file of postsmtpsts/ reads the time
# itself, so a test that fakes the clock moves it for everything.
echo "--- one clock"
others=$(grep -rnE '(^|[^_a-z])(time|gettimeofday|clock_gettime)[[:space:]]*\(' \
    postsmtpsts --include='*.c' | grep -v '^postsmtpsts/lib/clock\.c:' |
    grep -vE ':[0-9]+:[[:space:]]*(/?\*|//)')
[ -n "$others" ] && printf '%s\n' "$others"
check "one clock: only lib/clock.c calls time(), gettimeofday(), clock_gettime()" \
    "$([ -z "$others" ]; echo $?)"
finish
