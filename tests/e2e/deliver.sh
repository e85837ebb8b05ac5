#!/bin/bash
# deliver.sh - real deliveries through the daemon's answers (issue 3): a
# Postfix sender instance with smtp_tls_policy_maps = socketmap:inet:...
# pointing at the daemon sends mail to the world's MX servers.
#
#   deliver-ok       enforce, MX certificate matches   -> sent, Verified TLS
#   deliver-badcert  enforce, MX has a wrong-name cert -> deferred, nothing
#                                                         delivered
#   deliver-testing  testing, MX has a wrong-name cert -> sent (RFC 8461 §5:
#                                                         testing never blocks)
# and every DANE case of the catalogue with a delivery column (dane-ok,
# dane-mismatch, dane-ta, dane-some, dane-cname, dane-implicit,
# dane-sts-testing; and the narrow failures: dane-bogus-addr, a DANE MX
# beside a first MX whose address is bogus, and dane-sts-bogus-mx3 /
# dane-sts-tlsa-fail, MTA-STS domains whose third MX has a bogus address
# or a failing TLSA lookup: delivered through the good hosts, never
# TEMP): the daemon answers dane-only/dane, and the sender
# (smtp_dns_support_level = dnssec, the world's validating resolver) does
# the TLSA checks itself: a matching TLSA -> sent, Verified; a TLSA that
# matches nothing -> deferred, whatever MTA-STS says.  TLSA records none of
# which is usable (RFC 7672 2.2, issue 29: dane-pkix, dane-pkix-ee,
# dane-malformed) -> encrypt: sent over TLS, Trusted (not authenticated);
# dane-pkix-nostarttls, the same at an MX without STARTTLS -> deferred,
# never sent in the clear; dane-tls-some and dane-tls-fail (only one host
# has such records, or the other's lookup fails) -> dane, Postfix's own
# per-host walk: encrypt for that host, Trusted; dane-pkix-sts -> secure.
#
# Control: the same badcert message through a sender without a policy map is
# delivered (opportunistic TLS), so the deferral above is the daemon's doing
# and the test can tell the difference; so is dane-pkix-nostarttls's (in the
# clear: the daemon's encrypt is what holds it back).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap postfix swaks flock
world_up || { echo "Bail out! world did not start"; exit 1; }
# shellcheck source=../world/lib.sh
. "$top_srcdir/tests/world/lib.sh"

# The world has one sending instance: take it for the whole test, so that
# two builds' test runs (or two engineers) never restart it under each other.
exec 8>"$WORLD_DIR.sender.lock"
flock -w 120 8 || { echo "Bail out! sender instance busy for 120 s"; exit 1; }
_deliver_cleanup() {
	( sender_stop ) >/dev/null 2>&1
	_cleanup
}
trap _deliver_cleanup EXIT

mapfile -t lines < <(world_daemon_lines)
daemon_start "${lines[@]}" || { echo "Bail out! daemon did not start"; exit 1; }

# start_sender DESC MAPS - sender_start, its complaints as TAP diagnostics.
# sender_start stops the old instance, but only waits for its master: the
# old smtpd may still hold 127.0.26.1:25 for a moment, and the new master
# then cannot bind it.  So stop first and wait for the port; and retry once
# (a restart failed once under make -j2 check, without a trace we could
# reproduce; the diagnostics show it if it recurs).
start_sender() {
	local out rc try
	( sender_stop ) >/dev/null 2>&1
	wait_until 5 '[ -z "$(ss -Hltn src "$WORLD_SENDER_ADDR:25" 2>/dev/null)" ]'
	for try in 1 2; do
		out=$( (sender_start "$2") 2>&1)
		rc=$?
		[ $rc -eq 0 ] && break
		echo "# sender_start attempt $try failed ($rc):"
		printf '%s\n' "$out" | sed 's/^/#   /'
		sleep 1
	done
	ok $rc "$1"
}

# wait_count SERVER DOMAIN N - until the MX's mailbox holds N messages (the
# MX delivers to its Maildir after it said 250 to the sender); prints it
wait_count() {
	local n server=$1 domain=$2 want=$3
	wait_until 10 'n=$(world_mx_count "$server" "$domain"); [ "$n" -ge "$want" ]'
	echo "$n"
}

dane_cases=$(world_cases | awk -F '\t' '$1 ~ /^dane-/ && $12 != "-" { print $1 }' |
	tr '\n' ' ')
cases="deliver-ok deliver-badcert deliver-testing $dane_cases"

# 1. The daemon's answer for each domain is the catalogue's.  This also
# discovers the policies, so the sender finds them cached.
for c in $cases; do
	d=$(world_case_field "$c" 2)
	want=$(world_case_field "$c" 3)
	# a discovery may outlast the request deadline (dane-sts-tlsa-timeout:
	# a TLSA lookup that times out): ask until the discovered answer is in
	if [ "$want" != NOTFOUND ]; then
		WAIT_STEP=0.5 wait_until 30 '[ "$(pq "$d" postfix inet 2>&1)" = "$want" ]'
	fi
	out=$(pq "$d" postfix inet 2>&1)
	rc=$?
	if [ "$want" = NOTFOUND ]; then
		is "$rc:$out" "1:" "$c: daemon answers NOTFOUND for $d"
	else
		is "$rc:$out" "0:$want" "$c: daemon answers '$want' for $d"
	fi
done

# 2. Deliveries through the daemon.
start_sender "sender started with smtp_tls_policy_maps = socketmap:inet:127.0.0.1:$PORT:postfix" \
    "socketmap:inet:127.0.0.1:$PORT:postfix"

declare -A qid before server
for c in $cases; do
	d=$(world_case_field "$c" 2)
	server[$c]=$(world_case_mx_server "$c")
	before[$c]=$(world_mx_count "${server[$c]}" "$d")
	qid[$c]=$(sender_send "user@$d" 2>&1) || qid[$c]=
	ok $([ -n "${qid[$c]}" ]; echo $?) "$c: submitted (queue id ${qid[$c]})"
done
for c in $cases; do
	d=$(world_case_field "$c" 2)
	want=$(world_case_field "$c" 12)	# sent:Verified, sent:Trusted, deferred
	st=$(sender_wait "${qid[$c]}" 30)
	is "$st" "${want%%:*}" "$c: delivery status ${want%%:*}"
	case $want in
	sent:*)
		is "$(sender_tls "${qid[$c]}")" "${want#sent:}" \
		    "$c: TLS trust ${want#sent:}"
		n=$(wait_count "${server[$c]}" "$d" $((before[$c] + 1)))
		is "$n" $((before[$c] + 1)) \
		    "$c: MX ${server[$c]} received it ($d mailbox ${before[$c]} -> $n)"
		;;
	deferred)
		sender_queue | grep -q "^${qid[$c]}[* !]"
		ok $? "$c: still in the sender's queue"
		sender_log_qid "${qid[$c]}" |
		    grep -q -E 'certificate verification failed|not verified|Server certificate not|TLSA|TLS is required'
		ok $? "$c: deferred for the certificate or the missing TLS"
		;;
	esac
done
sender_log_qid "${qid[deliver-ok]}" | grep -q 'Verified TLS connection established'
ok $? "deliver-ok: the sender logged 'Verified TLS connection established'"
# DANE: Postfix verified the chain against the TLSA records itself
sender_log_qid "${qid[dane-ok]}" | grep -q 'Verified TLS connection established'
ok $? "dane-ok: the sender logged 'Verified TLS connection established'"
sender_log_qid "${qid[dane-mismatch]}" | grep -q 'no matching DANE TLSA records'
ok $? "dane-mismatch: deferred because no DANE TLSA record matched"
sender_log_qid "${qid[dane-sts-testing]}" | grep -q 'no matching DANE TLSA records'
ok $? "dane-sts-testing: DANE failure defers even with an STS testing policy"
# RFC 7672 2.2: TLSA records, none usable: TLS required, so an MX without
# STARTTLS gets nothing, and the others get TLS without authentication
sender_log_qid "${qid[dane-pkix-nostarttls]}" |
    grep -q 'TLS is required, but was not offered by host'
ok $? "dane-pkix-nostarttls: deferred because TLS is required (encrypt)"
for c in dane-pkix dane-pkix-ee dane-malformed; do
	sender_log_qid "${qid[$c]}" | grep -q 'Trusted TLS connection established'
	ok $? "$c: the sender logged 'Trusted TLS connection established' (encrypt)"
done
sleep 1	# let a (wrong) late delivery show up before counting
is "$(world_mx_count "${server[deliver-badcert]}" deliver-badcert.pstest)" \
    "${before[deliver-badcert]}" "deliver-badcert: nothing delivered to the MX"
# Step 1 asked each domain once (source=resolver): a cache hit can only be
# the sender's smtp(8) asking the daemon.
for c in $cases; do
	d=$(world_case_field "$c" 2)
	grep -q -F "domain=$d map=postfix source=cache" "$DAEMON_LOG"
	ok $? "$c: the sender's smtp(8) looked $d up in the daemon"
done

# 3. Control: without the policy map the same mail is delivered, so the
# deferral above is the daemon's answer at work.
start_sender "control sender started without smtp_tls_policy_maps" ""
d=deliver-badcert.pstest
b=$(world_mx_count "${server[deliver-badcert]}" "$d")
q=$(sender_send "user@$d" 2>&1) || q=
is "$(sender_wait "$q" 30)" sent "control: $d delivered without the policy map"
n=$(wait_count "${server[deliver-badcert]}" "$d" $((b + 1)))
is "$n" $((b + 1)) "control: MX ${server[deliver-badcert]} received it"
d=dane-pkix-nostarttls.pstest
b=$(world_mx_count "${server[dane-pkix-nostarttls]}" "$d")
q=$(sender_send "user@$d" 2>&1) || q=
is "$(sender_wait "$q" 30)" sent "control: $d delivered (in the clear) without the policy map"
n=$(wait_count "${server[dane-pkix-nostarttls]}" "$d" $((b + 1)))
is "$n" $((b + 1)) "control: MX ${server[dane-pkix-nostarttls]} received it"

( sender_stop )
ok $? "sender stopped"
daemon_stop
ok $? "clean exit"
done_testing
