#!/bin/bash
# fuzz.sh - build the libFuzzer targets with clang (ASan+UBSan) in
# build-fuzz/ and run each for FUZZ_SECONDS (default 60), two at a time,
# starting from its seed corpus tests/fuzz/corpus/<target>/ (read only:
# new inputs go to a scratch directory).  A crash, sanitizer report, leak,
# timeout (> FUZZ_TIMEOUT s for one input) or out-of-memory fails the
# target; its input is printed with the commands that reproduce it.  One
# result per target.  Budget: FUZZ_TARGETS of mk/*.am (19 on 2026-12-07:
# mk/fuzz.am's and those mk/tools.am, mk/tlsrpt.am and mk/daemon.am add,
# tlsrpt_state and ipc the latest), two at a time on 2 cores: 10 rounds
# of 30 s plus the build, about 6 minutes.  CI's
# run guards against shallow regressions from the seed corpus; long runs
# are by hand: FUZZ_SECONDS=600 bash tests/ci/fuzz.sh.
#
# A failure found here is fixed by the developer, and the input added to
# the corpus as a regression test (make check replays it from then on):
#   cp build-fuzz/fuzz-work/<target>-crash-<hash> \
#       tests/fuzz/corpus/<target>/crash-<what-it-was>
# (see tests/fuzz/README.md).
set -u
. "$(dirname "$0")/lib.sh"	# check, finish; cd to the top directory
S=${FUZZ_SECONDS:-30}
TO=${FUZZ_TIMEOUT:-10}
JOBS=${FUZZ_JOBS:-2}
B=build-fuzz
W=$top/$B/fuzz-work

mkdir -p "$B"
if [ ! -f "$B/Makefile" ]; then
	echo "--- configure $B"
	( cd "$B" && CC=clang "$top/configure" -q ) >"$B/configure.out" 2>&1 || {
		tail -n 20 "$B/configure.out"
		abort "configure $B"
	}
fi
echo "--- make fuzz-build in $B"
rm -rf "$W"
if ! make -C "$B" fuzz-build FUZZ_WORKDIR="$W" >"$B/fuzz-build.out" 2>&1; then
	tail -n 30 "$B/fuzz-build.out"
	abort "make fuzz-build in $B"
fi
targets=$(make -s -C "$B" fuzz-targets)

# run_one TARGET - one libFuzzer run; exit status is libFuzzer's
run_one() {
	local t=$1 dict=$top/tests/fuzz/dict/$1.dict d=()
	[ -f "$dict" ] && d=(-dict="$dict")
	mkdir -p "$W/new-$t"
	"$W/fuzz_$t" -max_total_time="$S" -timeout="$TO" -rss_limit_mb=2048 \
	    -print_final_stats=1 -artifact_prefix="$W/$t-" "${d[@]}" \
	    "$W/new-$t" "$top/tests/fuzz/corpus/$t" >"$W/fuzz-$t.log" 2>&1
	echo $? >"$W/rc-$t"
}

echo "--- fuzzing $S s each, $JOBS at a time: $targets"
running=0
for t in $targets; do
	if [ "$running" -ge "$JOBS" ]; then
		wait -n
		running=$((running - 1))
	fi
	run_one "$t" &
	running=$((running + 1))
done
wait

for t in $targets; do
	rc=$(cat "$W/rc-$t" 2>/dev/null || echo 99)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$W/fuzz-$t.log")
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$W/fuzz-$t.log")
	if [ "$rc" = 0 ]; then
		check "fuzz $t: ${execs:-?} executions (${eps:-?}/s)" 0
		continue
	fi
	check "fuzz $t: libFuzzer exit $rc; log $W/fuzz-$t.log:" 1
	grep -E '^(==[0-9]+==ERROR|SUMMARY|.*FUZZ_CHECK failed|ALARM|.*runtime error)' \
	    "$W/fuzz-$t.log" | head -n 10
	tail -n 25 "$W/fuzz-$t.log"
	for f in "$W/$t"-crash-* "$W/$t"-leak-* "$W/$t"-timeout-* \
	    "$W/$t"-oom-*; do
		[ -f "$f" ] || continue
		echo "fuzz $t: failing input: $f"
		echo "  reproduce: $W/fuzz_$t $f"
		echo "  or:        build/tests/fuzz/fuzz_$t.replay $f"
		echo "  then fix, and keep it: cp $f tests/fuzz/corpus/$t/"
	done
done
finish
