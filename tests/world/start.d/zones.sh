# tests/world/start.d/zones.sh - a step of tests/world/start, DNS: every zone written and
# signed, the trust anchor and root hints, the nsd and unbound configurations
#
# Sourced by tests/world/start, in its shell: it uses and sets that
# script's variables (addresses, catalogues, $D, $cache, $log) and
# helpers (step, fail, retry, world_* from lib.sh).  Not run on its own.
# shellcheck shell=bash disable=SC2034,SC2153,SC2154 # start's variables

# DNS zones. Records are written with absolute owner names into the file of
# the deepest world zone containing the owner (zone_of), then every zone but
# the insecure ones is signed with one ECDSAP256SHA256 key (flags 257, used
# for all RRsets) whose DS goes into the parent.

dns=$D/dns
step "DNS zones"

# Zones: root, the TLD, the bulk zone, one per non-tld case.
declare -A zone_kind # zone name (no trailing dot, root = ".") -> kind
zone_kind[.]=signed
zone_kind[pstest]=signed
zone_kind[bulk.pstest]=signed
for ((i = 0; i < ncases; i++)); do
	[[ ${C_ZONE[i]} == tld ]] || zone_kind[${C_DOMAIN[i]}]=${C_ZONE[i]}
done

# zone_base ZONE - file base name of a zone (zone files, keys): "." is "root"
zone_base() {
	if [[ $1 == . ]]; then echo root; else echo "$1"; fi
}
declare -A zfile # zone -> its unsigned zone file
for z in "${!zone_kind[@]}"; do
	zfile[$z]=$dns/$(zone_base "$z").zone
done

# zone_of NAME - set $zone to the deepest world zone containing NAME (no
# trailing dot). Sets a variable rather than printing: rec runs hundreds of
# times and a subshell each would cost a noticeable part of the start time.
zone_of() {
	local n=$1
	while :; do
		if [[ -n ${zone_kind[$n]:-} ]]; then
			zone=$n
			return
		fi
		[[ $n == *.* ]] || break
		n=${n#*.}
	done
	zone=.
}

# rec OWNER TYPE RDATA... - add a record (OWNER absolute, no trailing dot)
rec() {
	local owner=$1 zone
	shift
	zone_of "$owner"
	printf '%s.\t%s\tIN\t%s\n' "$owner" "$TTL" "$*" >>"${zfile[$zone]}"
}

# dnskey ID ZONE - the cached key $cache/dnskeys/ID.{key,private,ds}
dnskey() {
	local id=$1 zone=$2 k=$cache/dnskeys/$1 tmp base
	[[ -s $k.private && -s $k.key && -s $k.ds ]] && return 0
	tmp=$(mktemp -d)
	base=$(cd "$tmp" && ldns-keygen -a ECDSAP256SHA256 -k "$zone")
	mv "$tmp/$base.key" "$k.key"
	mv "$tmp/$base.private" "$k.private"
	rm -rf "$tmp"
	ldns-key2ds -n -2 "$k.key" >"$k.ds"
}

serial=$(date +%s)
for z in "${!zone_kind[@]}"; do
	origin=$z.
	[[ $z == . ]] && origin=.
	# shellcheck disable=SC2016 # $TTL is the zone file directive
	printf '$TTL %s\n%s\tIN\tSOA\tns1.pstest. hostmaster.pstest. %s 3600 600 86400 %s\n%s\tIN\tNS\tns1.pstest.\n' \
		"$TTL" "$origin" "$serial" "$TTL" "$origin" >"${zfile[$z]}"
	kind=${zone_kind[$z]}
	[[ $kind == insecure ]] && continue
	dnskey "$(zone_base "$z")" "$origin"
	[[ $kind == bogus-ds ]] && dnskey "$z-decoy" "$origin"
done

# Delegations: NS (+ DS unless insecure) in the parent. ns1.pstest. serves
# every zone, so no glue is needed below pstest.
for z in "${!zone_kind[@]}"; do
	[[ $z == . ]] && continue
	parent=${z#*.}
	[[ $z == pstest ]] && parent=.
	printf '%s.\t%s\tIN\tNS\tns1.pstest.\n' "$z" "$TTL" >>"${zfile[$parent]}"
	case ${zone_kind[$z]} in
	insecure) ;;
	bogus-ds) # a DS for a key the zone does not have: BOGUS (RFC 4035 5.2)
		cat "$cache/dnskeys/$z-decoy.ds" >>"${zfile[$parent]}" ;;
	*) cat "$cache/dnskeys/$(zone_base "$z").ds" >>"${zfile[$parent]}" ;;
	esac
done
# glue for the root's name server (lives in pstest., below the root's cut)
printf 'ns1.pstest.\t%s\tIN\tA\t%s\n' "$TTL" "$NS_ADDR" >>"$dns/root.zone"
rec ns1.pstest A "$NS_ADDR"
rec web.pstest A "$HTTPS_ADDR" # CNAME target for the host-cname case
for ((i = 0; i < ${#MX_NAME[@]}; i++)); do
	rec "mx-${MX_NAME[i]}.pstest" A "${MX_ADDR[i]}"
done

declare -A a_done # MX host names that already have their A record
for ((i = 0; i < ncases; i++)); do
	d=${C_DOMAIN[i]}
	# _mta-sts TXT (RFC 8461 3.1): "-", "CNAME target." or rdata|rdata...
	case ${C_TXT[i]} in
	-) ;;
	"CNAME "*) rec "_mta-sts.$d" "${C_TXT[i]}" ;;
	*)
		IFS='|' read -ra txts <<<"${C_TXT[i]}"
		for t in "${txts[@]}"; do rec "_mta-sts.$d" TXT "$t"; done
		;;
	esac
	# MX records, preference 10, 20, ... in column order; host@server adds
	# the host's A record pointing at that MX server.
	if [[ ${C_MX[i]} != - ]]; then
		IFS=, read -ra mxs <<<"${C_MX[i]}"
		pref=10
		for mx in "${mxs[@]}"; do
			host=${mx%@*}
			rec "$d" MX "$pref" "$host."
			pref=$((pref + 10))
			if [[ $mx == *@* && -z ${a_done[$host]:-} ]]; then
				rec "$host" A "${mx_addr_of[${mx#*@}]}"
				a_done[$host]=1
			fi
		done
	fi
	# the policy host
	case ${C_HOST[i]} in
	A) rec "mta-sts.$d" A "$HTTPS_ADDR" ;;
	A:*) rec "mta-sts.$d" A "$(world_net_addr "${C_HOST[i]#A:}")" ;;
	-) ;;
	"CNAME "*) rec "mta-sts.$d" "${C_HOST[i]}" ;;
	*) world_die "cases.tsv: ${C_NAME[i]}: bad host column '${C_HOST[i]}'" ;;
	esac
	# extra records: "owner TYPE RDATA|...", owner relative to the domain
	# (@ = the domain); {domain}, {spki:SERVER} (SHA-256 of an MX
	# server's public key, for TLSA 3 1 1), {spki:ca} (of the test CA's
	# key, for TLSA 2 1 1), {addr:SERVER} (an MX server's address),
	# {addr:ns} (nsd's), {addr:blackhole} and {addr:collector}
	# (tlsrpt-collector's) are substituted.
	if [[ ${C_RR[i]} != - ]]; then
		IFS='|' read -ra rrs <<<"${C_RR[i]}"
		for r in "${rrs[@]}"; do
			r=${r//\{domain\}/$d}
			while [[ $r =~ \{spki:([a-z0-9-]+)\} ]]; do
				srv=${BASH_REMATCH[1]}
				if [[ $srv == ca ]]; then
					spki=$(openssl x509 -in "$pki/ca.pem" -noout -pubkey |
						openssl pkey -pubin -outform DER |
						openssl dgst -sha256 -r | cut -d' ' -f1)
				else
					spki=$(openssl pkey -in "$pki/certs/mx-$srv.key" -pubout -outform DER |
						openssl dgst -sha256 -r | cut -d' ' -f1)
				fi
				r=${r//\{spki:$srv\}/$spki}
			done
			r=${r//\{addr:ns\}/$NS_ADDR}
			r=${r//\{addr:blackhole\}/$BLACKHOLE_ADDR}
			r=${r//\{addr:collector\}/$COLLECTOR_ADDR}
			while [[ $r =~ \{addr:([a-z0-9]+)\} ]]; do
				srv=${BASH_REMATCH[1]}
				[[ -n ${mx_addr_of[$srv]:-} ]] ||
					world_die "cases.tsv: ${C_NAME[i]}: {addr:$srv}: no such MX server"
				r=${r//\{addr:$srv\}/${mx_addr_of[$srv]}}
			done
			read -r owner rest <<<"$r"
			if [[ $owner == @ ]]; then owner=$d; else owner=$owner.$d; fi
			rec "$owner" "$rest"
		done
	fi
done

# Bulk domains: bN.bulk.pstest with TXT, MX bN.mx.bulk.pstest (-> the good MX
# server, whose certificate covers them all with *.mx.bulk.pstest) and the
# policy host. Written with awk: thousands of records in milliseconds.
# shellcheck disable=SC2016 # $-fields are awk's
# WORLD_BULK_WEB_ADDR points the bulk policy hosts elsewhere, e.g. at
# tests/world/delay-proxy in front of nginx (bench: simulated network RTT).
# WORLD_BULK_DANE=1 also gives every bulk MX host a TLSA 3 1 1 record for the
# good MX server's key: the bulk domains are then DANE domains (dane-only);
# WORLD_BULK_DANE=P% gives it to P % of the domains, spread evenly (domain i
# when int(i*P/100) steps: 10% is b10, b20, ...).  WORLD_BULK_MX=2 adds a
# second MX host of the domain's own, MX 20 bN-2.mx.bulk.pstest (same
# server, TLSA too on a DANE domain), and the policy lists both.
bulk_spki=-
if ((BULK_DANE_PCT > 0)); then
	bulk_spki=$(openssl pkey -in "$pki/certs/mx-good.key" -pubout -outform DER |
		openssl dgst -sha256 -r | cut -d' ' -f1)
fi
# bulk_awk - the awk prelude: dane(i) and the MX host list of domain i
bulk_awk='function dane(i) { return int(i * pct / 100) != int((i - 1) * pct / 100) }
function mxs(i,   l) { l = "b" i ".mx.bulk.pstest"; if (nmx == 2) l = l " b" i "-2.mx.bulk.pstest"; return l }'
awk -v n="$WORLD_BULK" -v ttl="$TTL" -v web="${WORLD_BULK_WEB_ADDR:-$HTTPS_ADDR}" -v mx="${mx_addr_of[good]}" -v spki="$bulk_spki" \
	-v pct="$BULK_DANE_PCT" -v nmx="$BULK_MX" "$bulk_awk"'
BEGIN {
	for (i = 1; i <= n; i++) {
		d = "b" i ".bulk.pstest."
		printf "_mta-sts.%s\t%s\tIN\tTXT\t\"v=STSv1; id=bulk%d;\"\n", d, ttl, i
		k = split(mxs(i), h, " ")
		for (j = 1; j <= k; j++) {
			printf "%s\t%s\tIN\tMX\t%d %s.\n", d, ttl, 10 * j, h[j]
			printf "%s.\t%s\tIN\tA\t%s\n", h[j], ttl, mx
			if (spki != "-" && dane(i))
				printf "_25._tcp.%s.\t%s\tIN\tTLSA\t3 1 1 %s\n", h[j], ttl, spki
		}
		printf "mta-sts.%s\t%s\tIN\tA\t%s\n", d, ttl, web
	}
}' >>"$dns/bulk.pstest.zone"
{
	head -n 1 "$here/cases.tsv"
	echo "# Generated by tests/world/start (WORLD_BULK=$WORLD_BULK): bulk enforce domains."
	awk -v n="$WORLD_BULK" -v pct="$BULK_DANE_PCT" -v nmx="$BULK_MX" "$bulk_awk"'
	BEGIN { OFS = "\t"
		for (i = 1; i <= n; i++) {
			d = "b" i ".bulk.pstest"
			k = split(mxs(i), h, " ")
			m = h[1]; hs = h[1] "@good"
			for (j = 2; j <= k; j++) { m = m ":" h[j]; hs = hs "," h[j] "@good" }
			print "bulk" i, d, dane(i) ? "dane-only" : "secure match=" m " servername=hostname",
				"bulk enforce domain " i, "bulk", "\"v=STSv1; id=bulk" i ";\"",
				hs, "A", "good", "-", "bulk", "-", "-"
		}
	}'
} >"$D/bulk.tsv"

# Sign. Validity: from 2024 to 10 years from now ("long validity"), except
# bogus-expired, whose signatures expired in 2020 (RFC 4035 5.3.1: BOGUS).
inception=20240101000000
expiration=$(($(date +%Y) + 10))0101000000
pids=()
for z in "${!zone_kind[@]}"; do
	kind=${zone_kind[$z]}
	zf=${zfile[$z]}
	if [[ $kind == insecure ]]; then
		cp "$zf" "$zf.signed"
		continue
	fi
	i_=$inception e_=$expiration
	[[ $kind == bogus-expired ]] && i_=20200101000000 e_=20200201000000
	ldns-signzone -i "$i_" -e "$e_" -f "$zf.signed" "$zf" "$cache/dnskeys/$(zone_base "$z")" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || world_die "ldns-signzone failed"; done
# bogus-txt: break only the signature over the _mta-sts TXT RRset (replace
# the first 8 base64 characters), so the TXT validates BOGUS while the rest of
# the zone, including the policy host, stays secure.
for z in "${!zone_kind[@]}"; do
	[[ ${zone_kind[$z]} == bogus-txt ]] || continue
	awk -v owner="_mta-sts.$z." 'BEGIN { OFS = "\t" }
		$1 == owner && $4 == "RRSIG" && $5 == "TXT" {
			$NF = "AAAAAAAA" substr($NF, 9); broken = 1 }
		{ print }
		END { if (!broken) exit 1 }' "${zfile[$z]}.signed" >"$dns/tmp.$$" ||
		world_die "bogus-txt: no TXT RRSIG at _mta-sts.$z"
	mv "$dns/tmp.$$" "${zfile[$z]}.signed"
done

# Trust anchor (root DS and DNSKEY) and root hints, for unbound and libunbound.
cp "$cache/dnskeys/root.ds" "$dns/root.ds"
cp "$cache/dnskeys/root.key" "$dns/root.key"
printf '.\t3600000\tIN\tNS\tns1.pstest.\nns1.pstest.\t3600000\tIN\tA\t%s\n' \
	"$NS_ADDR" >"$dns/root.hints"

# nsd
{
	cat <<-EOF
		# Generated by tests/world/start.
		server:
		    ip-address: $NS_ADDR
		    port: 53
		    do-ip4: yes
		    do-ip6: no
		    username: ""
		    chroot: ""
		    zonesdir: "$dns"
		    database: ""
		    pidfile: "$dns/nsd.pid"
		    logfile: "$log/nsd.log"
		    xfrdfile: "$dns/xfrd.state"
		    xfrdir: "$dns"
		    zonelistfile: "$dns/zone.list"
		    server-count: 2
		    verbosity: 1
		    hide-version: yes
		    # The default response rate limiting throttles load tests.
		    rrl-ratelimit: 0
		    rrl-whitelist-ratelimit: 0
		remote-control:
		    control-enable: no
	EOF
	for z in "${!zone_kind[@]}"; do
		printf 'zone:\n    name: "%s"\n    zonefile: "%s.signed"\n' "$z" "${zfile[$z]}"
	done
} >"$dns/nsd.conf"
nsd-checkconf "$dns/nsd.conf" >"$log/nsd-checkconf.log" 2>&1 ||
	fail "nsd.conf invalid" "$log/nsd-checkconf.log"

# unbound: validating resolver for programs using the system resolver
cat >"$D/unbound/unbound.conf" <<EOF
# Generated by tests/world/start.
server:
    interface: $RESOLVER_ADDR
    port: 53
    do-ip6: no
    access-control: 127.0.0.0/8 allow
    username: ""
    chroot: ""
    directory: "$D/unbound"
    pidfile: "$D/unbound/unbound.pid"
    logfile: "$log/unbound.log"
    use-syslog: no
    verbosity: 1
    val-log-level: 2
    module-config: "validator iterator"
    num-threads: 2
    root-hints: "$dns/root.hints"
    trust-anchor-file: "$dns/root.ds"
    # The world's name server is on 127/8, which unbound skips by default.
    do-not-query-localhost: no
    # No RFC 8145 key-tag signalling, no queries outside the world.
    trust-anchor-signaling: no
    root-key-sentinel: no
remote-control:
    control-enable: no
EOF
unbound-checkconf "$D/unbound/unbound.conf" >"$log/unbound-checkconf.log" 2>&1 ||
	fail "unbound.conf invalid" "$log/unbound-checkconf.log"

# For libunbound users (ub_ctx_config): same hints and anchor, talking to nsd
# directly.
cat >"$dns/libunbound.conf" <<EOF
# Generated by tests/world/start: ub_ctx_config() file for the world.
server:
    root-hints: "$dns/root.hints"
    trust-anchor-file: "$dns/root.ds"
    do-not-query-localhost: no
    do-ip6: no
    trust-anchor-signaling: no
    root-key-sentinel: no
EOF

printf 'nameserver %s\noptions trust-ad\n' "$RESOLVER_ADDR" >"$D/resolv.conf"
