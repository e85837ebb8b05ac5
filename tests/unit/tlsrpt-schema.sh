#!/bin/sh
# tlsrpt-schema.sh - the RFC 8460 report schema and the reporter's JSON
#
# tlsrpt-report.schema.json is written from RFC 8460 §4; this test shows
# it is the RFC's (the example of Appendix B passes), that it can fail
# (each of a few broken copies of the example fails, for its own reason),
# and that every report test_report builds passes it
# (TLSRPT_SAMPLE_DIR: test_report writes its JSON there).  The e2e test
# (tests/e2e/tlsrpt.sh) checks the reports the world receives the same
# way.  Needs python3-jsonschema.
srcdir=${top_srcdir:-.}/tests/unit
builddir=${top_builddir:-.}/tests/unit
schema=$srcdir/tlsrpt-report.schema.json
check="python3 $srcdir/tlsrpt-check.py $schema"

if ! python3 -c 'import jsonschema' 2>/dev/null; then
	echo "1..0 # SKIP python3-jsonschema not installed"
	exit 0
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/tlsrpt-schema.XXXXXX")
trap 'rm -rf "$T"' EXIT
n=0
failed=0
# ok STATUS DESC
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

out=$($check "$srcdir/tlsrpt-rfc8460-example.json" 2>&1)
ok $? "RFC 8460 Appendix B example passes"
[ $? -eq 0 ] || echo "$out" | sed 's/^/# /'

# broken copies of the example: each must fail
python3 - "$srcdir/tlsrpt-rfc8460-example.json" "$T" <<'PY'
import copy, json, sys
base = json.load(open(sys.argv[1]))
def save(name, f):
    r = copy.deepcopy(base)
    f(r)
    json.dump(r, open("%s/bad-%s.json" % (sys.argv[2], name), "w"))
save("no-report-id", lambda r: r.pop("report-id"))
save("result-type", lambda r: r["policies"][0]["failure-details"][0]
     .__setitem__("result-type", "certificate-bad"))
save("misspelled", lambda r: r["policies"][0]["summary"]
     .__setitem__("total-success-session-count", 1))
save("sum", lambda r: r["policies"][0]["summary"]
     .__setitem__("total-failure-session-count", 2))
save("no-policy-string", lambda r: r["policies"][0]["policy"]
     .__setitem__("policy-type", "no-policy-found"))
save("date", lambda r: r["date-range"]
     .__setitem__("start-datetime", "2016-04-01 00:00:00"))
save("count", lambda r: r["policies"][0]["summary"]
     .__setitem__("total-successful-session-count", -1))
save("policies", lambda r: r.__setitem__("policies", []))
PY
for f in "$T"/bad-*.json; do
	$check "$f" >"$T/out" 2>&1
	rc=$?
	ok $((rc == 1 ? 0 : 1)) "$(basename "$f" .json) fails: $(sed 's/.*: //' "$T/out" | head -c 120)"
done

mkdir "$T/samples"
TLSRPT_SAMPLE_DIR=$T/samples CMOCKA_MESSAGE_OUTPUT=TAP \
    "$builddir/test_report" >"$T/report.out" 2>&1
ok $? "test_report built its reports"
count=$(ls "$T/samples" | wc -l)
ok $((count >= 3 ? 0 : 1)) "test_report wrote $count reports"
out=$($check "$T"/samples/*.json 2>&1)
ok $? "every report test_report builds passes the schema"
echo "$out" | sed 's/^/# /'
echo "1..$n"
[ "$failed" -eq 0 ]
