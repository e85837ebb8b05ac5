#!/bin/bash
# lint.sh - static analysis: cppcheck and clang-tidy over postsmtpsts/*.c,
# with build/'s flags (mk/lint.am, config in .clang-tidy).  One result per
# tool; a finding fails it.  Run from the top directory with build/
# configured (tests/run-all does).
set -u
pass=0 fail=0
if [ ! -f build/Makefile ]; then
	echo "lint: build/ is not configured"
	echo "0 passed, 1 failed"
	exit 1
fi
for t in cppcheck clang-tidy; do
	echo "--- make lint-$t"
	if ! command -v "$t" >/dev/null 2>&1; then
		echo "lint: $t not installed (contrib/install-deps.sh --test)"
		fail=$((fail + 1))
		continue
	fi
	if out=$(make -s -C build "lint-$t" 2>&1); then
		echo "lint-$t: clean"
		pass=$((pass + 1))
	else
		printf '%s\n' "$out" | grep -v '^clang-tidy \|warnings\? generated' |
		    tail -n 60
		echo "lint-$t: FAILED"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
