#!/bin/sh
# replay.sh - replay every fuzz corpus through its target, as TAP
#
# For each target - a corpus directory tests/fuzz/corpus/<name>/ in the
# source tree, or a replay binary tests/fuzz/fuzz_<name>.replay in the
# build tree (mk/fuzz.am builds one per FUZZ_TARGETS word) - prints one TAP
# line: "ok" when the binary ran the whole corpus and exited 0, "not ok"
# on a crash, a sanitizer report, a FUZZ_CHECK failure, or when either the
# binary or the corpus is missing.  The output of a failing run follows as
# TAP comments.  Run by "make check" with top_srcdir and top_builddir set.

srcdir=${top_srcdir:-.}
builddir=${top_builddir:-.}
corpora=$srcdir/tests/fuzz/corpus

targets=$(
	for d in "$corpora"/*/; do
		test -d "$d" && basename "$d"
	done
	for b in "$builddir"/tests/fuzz/fuzz_*.replay; do
		test -f "$b" || continue
		b=${b##*/fuzz_}
		echo "${b%.replay}"
	done
)
targets=$(printf '%s\n' $targets | sort -u)

if test -z "$targets"; then
	echo "1..1"
	echo "not ok 1 - no fuzz targets: no corpus under $corpora"
	exit 0
fi
echo "1..$(printf '%s\n' $targets | wc -l | tr -d ' ')"

i=0
for t in $targets; do
	i=$((i + 1))
	bin=$builddir/tests/fuzz/fuzz_$t.replay
	corpus=$corpora/$t
	if test ! -x "$bin"; then
		echo "not ok $i - $t: no $bin (is $t in FUZZ_TARGETS?)"
		continue
	fi
	if test ! -d "$corpus"; then
		echo "not ok $i - $t: no corpus $corpus"
		continue
	fi
	if out=$("$bin" "$corpus" 2>&1); then
		n=$(printf '%s\n' "$out" |
		    sed -n 's/^replay: \([0-9]*\) inputs$/\1/p')
		echo "ok $i - $t: ${n:-?} inputs replayed"
	else
		rc=$?
		echo "not ok $i - $t: replay exited with status $rc"
		printf '%s\n' "$out" | sed 's/^/# /'
	fi
done
exit 0
