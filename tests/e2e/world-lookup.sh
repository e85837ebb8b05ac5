#!/bin/bash
# world-lookup.sh - every case of the world's catalogue through real Postfix:
# postmap -q DOMAIN against the daemon discovering MTA-STS policies over
# DNSSEC (nsd + libunbound) and HTTPS (nginx, test CA).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap
world_up || { echo "Bail out! world did not start"; exit 1; }

# Every case, DANE ones included (the daemon looks DANE up by default).
cases() {
	awk -F '\t' 'NR > 1 && !/^[[:space:]]*(#|$)/' \
	    "$top_srcdir/tests/world/cases.tsv"
}

mapfile -t lines < <(world_daemon_lines)
daemon_start "${lines[@]}" || { echo "Bail out! daemon did not start"; exit 1; }

# Ask for every domain at once first (concurrent discoveries), then check
# each answer with postmap.  The first round may answer at the deadline for
# slow cases; a second postmap gets the discovered (cached) answer.
while IFS=$'\t' read -r name domain expect _; do
	[ "$expect" = "-" ] && continue
	pq "$domain" >/dev/null 2>&1 &
	pids="${pids:-} $!"
done < <(cases)
# shellcheck disable=SC2086
wait $pids	# not a bare wait: the daemon is a background job too

while IFS=$'\t' read -r name domain expect _; do
	[ "$expect" = "-" ] && continue
	pq_expect "$domain" "$expect" "$name: $domain -> $expect"
done < <(cases)

grep -q "discovery=" "$DAEMON_LOG"
ok $? "the resolver logged its discoveries"
daemon_stop
ok $? "clean exit"
done_testing
