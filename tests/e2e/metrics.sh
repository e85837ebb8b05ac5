#!/bin/bash
# metrics.sh - the counters and the metrics listener, end to end: scrape,
# look up known world cases through Postfix's postmap, scrape again, and
# check that exactly the right counters moved by the right amounts (each
# lookup also by its answer's level: secure for id-32 and the pin, notfound,
# other for PERM); the text is valid Prometheus exposition format
# throughout; postsmtpsts-cache stats shows the same numbers; bad HTTP
# requests get 404/405/400 and the listener keeps serving; counters
# survive a worker's restart and SIGHUP.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap python3
world_up || { echo "Bail out! world did not start"; exit 1; }

TOOL="$top_builddir/postsmtpsts/postsmtpsts-cache"
MPORT=$(free_port $((PORT + 1)))
URL="http://127.0.0.1:$MPORT/metrics"

mapfile -t lines < <(world_daemon_lines)
daemon_start "${lines[@]}" "metrics = \"inet:127.0.0.1:$MPORT\"" \
    'domain "pinned.example" { level = "secure" match = "mx.pinned.example" }' ||
    { echo "Bail out! daemon did not start"; exit 1; }

# scrape N - the metrics into $T/sN; checks status, type and syntax
scrape() {
	is "$($PROM fetch "$URL" "$T/s$1")" \
	    "200 text/plain; version=0.0.4; charset=utf-8" \
	    "scrape $1: 200 with the Prometheus content type"
	out=$($PROM check "$T/s$1")
	_rc=$?
	ok $_rc "scrape $1: valid exposition text ($(echo "$out" | tail -n1))"
	[ $_rc -eq 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
}
# moved A B - the series that changed from scrape A to B, without the
# scrapes' own counter and the latency histogram (checked separately)
moved() {
	$PROM diff "$T/s$1" "$T/s$2" |
	    grep -v -e '^postsmtpsts_metrics_requests_total' \
	    -e '^postsmtpsts_lookup_duration_seconds' -e '^postsmtpsts_connections_total'
}
get() { $PROM get "$T/s$1" "$2"; }

scrape 0
is "$(get 0 'postsmtpsts_lookups_total{source="invalid",answer="notfound"}')" \
    1 "the readiness probe ([readiness.invalid]) counted before the first scrape"

# Known cases (tests/world/cases.tsv), one at a time; none whose policy
# fetches cache.sh counts in the shared world's HTTPS log.
pq id-32.pstest >/dev/null		# discovered: policy, OK
# written after the answer (write-behind, at most 20 ms late): the next
# lookup is a cache hit once the record is in the map
WAIT_STEP=0.02 wait_until 2 "$TOOL" -c "$CONF" show id-32.pstest \
    >/dev/null 2>&1
pq id-32.pstest >/dev/null		# the worker's cache: OK
pq pinned.example >/dev/null		# pinned: OK
pq no-txt.pstest >/dev/null		# discovered: no policy, NOTFOUND
pq cert-unknownca.pstest >/dev/null	# failure: webpki, NOTFOUND
pq http-500.pstest >/dev/null		# failure: fetch (HTTP 500), NOTFOUND
pq dnssec-bogus-txt.pstest >/dev/null	# failure: DNSSEC-bogus TXT, NOTFOUND
pq '[next.hop.example]' >/dev/null	# not a domain: NOTFOUND
pq id-32.pstest nosuchmap >/dev/null 2>&1	# unknown map: PERM
out=$(sm "unix:$SOCK" send '7:nospace,')	# a request with no key: PERM
# Let the workers see the last clients go (read from the file, so the
# listener's own counter does not move).
# all_closed - as many connections closed as accepted, in the stats file
all_closed() {
	"$TOOL" -c "$CONF" stats 2>/dev/null | sed -n '/^counters: /,$p' |
	    tail -n +2 >"$T/probe"
	[ "$($PROM get "$T/probe" 'postsmtpsts_connections_total{event="accepted"}')" = \
	  "$($PROM get "$T/probe" 'postsmtpsts_connections_total{event="closed"}')" ]
}
wait_until 5 all_closed
scrape 1

# The Prometheus project's own parser (Debian python3-prometheus-client,
# for the system python) reads every family and sample we wrote.
if /usr/bin/python3 -c 'import prometheus_client.parser' 2>/dev/null; then
	out=$(/usr/bin/python3 -c '
import sys
from prometheus_client.parser import text_string_to_metric_families as p
f = list(p(open(sys.argv[1], encoding="utf-8").read()))
print(len(f), sum(len(x.samples) for x in f))' "$T/s1" 2>&1)
	is "$out" "$(grep -c '^# TYPE ' "$T/s1") $($PROM check "$T/s1" |
	    sed -n 's/^ok \([0-9]*\) samples$/\1/p')" \
	    "prometheus_client's parser reads every family and sample"
else
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n - prometheus_client's parser # SKIP python3-prometheus-client not installed"
fi

is "$(moved 0 1)" 'postsmtpsts_answers_total{level="notfound"} 5
postsmtpsts_answers_total{level="other"} 1
postsmtpsts_answers_total{level="secure"} 3
postsmtpsts_cache_reads_total{result="hit"} 1
postsmtpsts_cache_reads_total{result="miss"} 5
postsmtpsts_dane_lookups_total{outcome="none"} 5
postsmtpsts_discoveries_total{trigger="request",outcome="failure"} 3
postsmtpsts_discoveries_total{trigger="request",outcome="no-policy"} 1
postsmtpsts_discoveries_total{trigger="request",outcome="policy"} 1
postsmtpsts_discovery_failures_total{kind="dns-bogus"} 1
postsmtpsts_discovery_failures_total{kind="fetch-error"} 1
postsmtpsts_discovery_failures_total{kind="webpki-invalid"} 1
postsmtpsts_dns_errors_total{kind="bogus"} 1
postsmtpsts_https_errors_total{kind="http-status"} 1
postsmtpsts_https_errors_total{kind="webpki"} 1
postsmtpsts_lookups_total{source="cache",answer="ok"} 1
postsmtpsts_lookups_total{source="invalid",answer="notfound"} 1
postsmtpsts_lookups_total{source="invalid",answer="perm"} 1
postsmtpsts_lookups_total{source="pinned",answer="ok"} 1
postsmtpsts_lookups_total{source="resolver",answer="notfound"} 4
postsmtpsts_lookups_total{source="resolver",answer="ok"} 1
postsmtpsts_policy_events_total{kind="first-seen"} 1
postsmtpsts_protocol_errors_total{kind="request"} 1
postsmtpsts_requests_total 10' \
    "9 lookups and a malformed request moved exactly these counters"
is "$($PROM diff "$T/s0" "$T/s1" | grep '^postsmtpsts_connections_total')" \
    'postsmtpsts_connections_total{event="accepted"} 10
postsmtpsts_connections_total{event="closed"} 10' \
    "one connection per postmap (and one for the raw client), all closed"
is "$($PROM diff "$T/s0" "$T/s1" | grep '^postsmtpsts_metrics_requests_total')" \
    'postsmtpsts_metrics_requests_total{code="200"} 1' \
    "the scrape between counted itself"
is "$($PROM diff "$T/s0" "$T/s1" |
    sed -n 's/^postsmtpsts_lookup_duration_seconds_count //p')" 9 \
    "the latency histogram counted the 9 lookups"
sum=$($PROM diff "$T/s0" "$T/s1" |
    sed -n 's/^postsmtpsts_lookup_duration_seconds_sum //p')
ok "$(python3 -c "import sys; sys.exit(not (0 < $sum < 80))"; echo $?)" \
    "latency sum moved by a plausible amount ($sum s)"
fast=$($PROM diff "$T/s0" "$T/s1" |
    sed -n 's/^postsmtpsts_lookup_duration_seconds_bucket{le="0.01"} //p')
ok "$([ "${fast:-0}" -ge 4 ]; echo $?)" \
    "the 4 lookups answered without the network took < 10 ms ($fast)"

# postsmtpsts-cache stats reads the same file: the same numbers.
"$TOOL" -c "$CONF" stats >"$T/tool" 2>"$T/tool.err"
ok $? "postsmtpsts-cache stats exits 0"
sed -n '/^counters: /,$p' "$T/tool" | tail -n +2 >"$T/s2"
is "$(sed -n 's/^counters: //p' "$T/tool")" "$T/stats" \
    "postsmtpsts-cache stats names the stats file in runtime_dir"
out=$($PROM check "$T/s2")
ok $? "postsmtpsts-cache stats prints valid exposition text ($out)"
is "$($PROM diff "$T/s1" "$T/s2" | grep -v '^postsmtpsts_metrics_requests_total')" "" \
    "postsmtpsts-cache stats shows the same counters as the listener"
grep -q '^entries: 10$' "$T/tool"
ok $? "... after the cache figures (10 entries: 5 domains, MTA-STS and DANE)"

# Bad requests: the right status, counted, and the listener keeps serving.
is "$($PROM fetch "http://127.0.0.1:$MPORT/nothing" "$T/body")" \
    "404 text/plain; charset=utf-8" "another path: 404"
is "$($PROM raw 127.0.0.1 "$MPORT" 'POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n')" \
    "HTTP/1.1 405 Method Not Allowed" "POST: 405"
is "$($PROM raw 127.0.0.1 "$MPORT" 'hello there\r\n\r\n')" \
    "HTTP/1.1 400 Bad Request" "garbage: 400"
is "$($PROM raw 127.0.0.1 "$MPORT" "GET /$(head -c 5000 /dev/zero | tr '\0' a) HTTP/1.1\r\n\r\n")" \
    "HTTP/1.1 400 Bad Request" "a head over 4096 bytes: 400"
is "$($PROM raw 127.0.0.1 "$MPORT" 'HEAD /metrics HTTP/1.0\r\n\r\n')" \
    "HTTP/1.1 200 OK" "HEAD /metrics: 200"
is "$($PROM busy 127.0.0.1 "$MPORT" 16)" closed \
    "a 17th connection while 16 are open is closed at once"
sleep 0.3
scrape 3
is "$($PROM diff "$T/s1" "$T/s3" | grep '^postsmtpsts_metrics_requests_total')" \
    'postsmtpsts_metrics_requests_total{code="200"} 2
postsmtpsts_metrics_requests_total{code="400"} 2
postsmtpsts_metrics_requests_total{code="404"} 1
postsmtpsts_metrics_requests_total{code="405"} 1' \
    "every reply counted by status (the tool read the file, not the listener)"
is "$(moved 1 3)" "" "no lookup counter moved without lookups"

# A worker killed and restarted keeps its counts (they live in the file).
wpid=$(worker_pid 0)
kill -KILL "$wpid"
wait_until 5 '[ "$(worker_pid 0)" != "$wpid" ]'
ok "$([ "$(worker_pid 0)" != "$wpid" ]; echo $?)" "worker 0 was restarted"
pq pinned.example >/dev/null
pq pinned.example >/dev/null
scrape 4
is "$(moved 3 4)" 'postsmtpsts_answers_total{level="secure"} 2
postsmtpsts_lookups_total{source="pinned",answer="ok"} 2
postsmtpsts_requests_total 2' \
    "counters kept across the restart, and the new worker counts on"

# SIGHUP: a new generation (workers, resolver, metrics process) starts
# with the same file; the listener keeps serving and nothing is lost.
mpid=$(sed -n 's/.*debug: metrics [0-9]* started, pid \([0-9]*\).*/\1/p' \
    "$DAEMON_LOG" | tail -n1)
kill -HUP "$DAEMON_PID"
wait_until 5 grep -q "reloaded $CONF" "$DAEMON_LOG"
sleep 0.5
pq pinned.example >/dev/null
scrape 5
is "$(moved 4 5)" 'postsmtpsts_answers_total{level="secure"} 1
postsmtpsts_lookups_total{source="pinned",answer="ok"} 1
postsmtpsts_requests_total 1' "after SIGHUP: counters kept, the new workers count on"
ok "$(! kill -0 "${mpid:-0}" 2>/dev/null; echo $?)" \
    "after SIGHUP: the old metrics process has gone ($mpid)"

# A lookup still running at request_timeout: answered by the deadline;
# the discovery finishes later (the stall case: HTTPS total timeout).
daemon_config "${lines[@]}" "metrics = \"inet:127.0.0.1:$MPORT\"" \
    'domain "pinned.example" { level = "secure" match = "mx.pinned.example" }' \
    'request_timeout = 1'
kill -HUP "$DAEMON_PID"
wait_until 5 '[ "$(grep -c "reloaded $CONF" "$DAEMON_LOG")" -ge 2 ]'
sleep 0.5
pq stall.pstest >/dev/null
scrape 6
# What the lookup counts is there at once; what its discovery counts (the
# DANE walk, the HTTPS timeout) may come at any time on a loaded machine, so
# it is left out of the first comparison and checked once it has come.
LATE='dane_lookups_total|discoveries_total|discovery_failures_total|https_errors_total'
is "$(moved 5 6 | grep -Ev "$LATE")" 'postsmtpsts_answers_total{level="notfound"} 1
postsmtpsts_cache_reads_total{result="miss"} 1
postsmtpsts_lookups_total{source="deadline",answer="notfound"} 1
postsmtpsts_requests_total 1' "a lookup past request_timeout: source=deadline"
wait_until 10 '$PROM fetch "$URL" "$T/s7" >/dev/null; moved 5 7 | grep -q https_errors_total'
is "$(moved 5 7 | grep -E "$LATE")" 'postsmtpsts_dane_lookups_total{outcome="none"} 1
postsmtpsts_discoveries_total{trigger="request",outcome="failure"} 1
postsmtpsts_discovery_failures_total{kind="fetch-error"} 1
postsmtpsts_https_errors_total{kind="timeout"} 1' \
    "... and its discovery ends later in an HTTPS timeout"

daemon_stop
ok $? "clean exit"
ok "$([ ! -e "$T/stats" ]; echo $?)" "the stats file is removed at exit"
done_testing
