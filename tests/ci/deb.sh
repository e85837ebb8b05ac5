#!/usr/bin/env bash
# tests/ci/deb.sh - the Debian package, built, checked and used on this host
#
#   1. builds the binary packages twice with the same SOURCE_DATE_EPOCH
#      (contrib/debian/build.sh, DEB_BUILD_OPTIONS=nocheck): once from the
#      git work tree, once from the release tarball (make dist in build/),
#      each in a scratch directory of its own; the .deb files of the two
#      must be byte-identical (reproducible: no date, path or host name in
#      them), which also proves the tarball builds the package;
#   2. lintian --fail-on error,warning on the .changes;
#   3. autopkgtest of contrib/debian/tests with the built .deb (--- null:
#      on this host);
#   4. apt-get install ./postsmtpsts_*.deb; dpkg -L has the expected files;
#      the system user _postsmtpsts and the state directory exist;
#   5. the installed daemon, started as root with the shipped conffile (to
#      which the lines pointing it at the loopback world's DNS root and CA
#      are appended, as an operator edits it), runs as _postsmtpsts and
#      answers postmap -q with the world catalogue's expected answers;
#      the installed postsmtpsts-cache warm reaches it with the defaults;
#   6. dpkg --purge leaves nothing: no user, group, state or runtime
#      directory, conffile, or packaged file.
#
# nocheck: the unit tests run in make check already; a package build with
# them costs another two minutes per build.  The world (tests/world) is
# the one tests/run-all started ($WORLD_DIR); started here if not running.
# Needs root and a host where installing the package is fine (CI).
# Ends with "N passed, N failed".  4 to 8 minutes on 2 cores (two package
# builds of about a minute each on an idle machine, lintian, autopkgtest).
set -u
# shellcheck source=tests/ci/lib.sh
. "$(dirname "$0")/lib.sh"

for c in dpkg-buildpackage dh lintian autopkgtest apt-get postmap; do
	command -v "$c" >/dev/null ||
		abort "$c installed (contrib/install-deps.sh --test)"
done
[ "$(id -u)" -eq 0 ] || abort "running as root (installs the package)"
[ -f build/Makefile ] || abort "build/ configured"
if dpkg-query -W -f='${Status}' postsmtpsts 2>/dev/null | grep -q installed; then
	abort "postsmtpsts not installed on this host already (not touching it)"
fi

W=$(mktemp -d /tmp/postsmtpsts-ci-deb.XXXXXX)
chmod 755 "$W"
DAEMON_PID=
WORLD_STARTED=
cleanup() {
	[ -n "$DAEMON_PID" ] && kill -TERM "$DAEMON_PID" 2>/dev/null && sleep 1
	dpkg-query -W postsmtpsts >/dev/null 2>&1 &&
		dpkg --purge postsmtpsts >/dev/null 2>&1
	[ -n "$WORLD_STARTED" ] && tests/world/stop >/dev/null 2>&1
	rm -rf "$W"
}
trap cleanup EXIT

# -- 1. two builds, one from git and one from the release tarball ------------
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null ||
    dpkg-parsechangelog -l contrib/debian/changelog -S Timestamp)
DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)"
export SOURCE_DATE_EPOCH DEB_BUILD_OPTIONS
echo "building (SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH, DEB_BUILD_OPTIONS=$DEB_BUILD_OPTIONS)"
contrib/debian/build.sh "$W/a" >"$W/build-a.out" 2>&1
st=$?
[ "$st" -eq 0 ] || tail -n 30 "$W/build-a.out"
check "make deb from the git tree: postsmtpsts and -dbgsym built" \
	"$([ "$st" -eq 0 ] && ls "$W"/a/postsmtpsts_*.deb "$W"/a/postsmtpsts-dbgsym_*.deb >/dev/null 2>&1; echo $?)"
[ "$st" -eq 0 ] || finish

rm -f build/postsmtpsts-*.tar.gz
if make -C build -s dist >"$W/dist.out" 2>&1 &&
    tar -C "$W" -xzf build/postsmtpsts-*.tar.gz; then
	rm -f build/postsmtpsts-*.tar.gz
	tb=$(ls -d "$W"/postsmtpsts-*/)
	(cd "$tb" && contrib/debian/build.sh "$W/b") >"$W/build-b.out" 2>&1
	st=$?
	[ "$st" -eq 0 ] || tail -n 30 "$W/build-b.out"
else
	tail -n 20 "$W/dist.out"; st=1
fi
check "the release tarball (make dist) builds the package" "$st"
if [ "$st" -eq 0 ]; then
	bad=0
	for d in "$W"/a/*.deb; do
		if ! cmp -s "$d" "$W/b/$(basename "$d")"; then
			bad=1
			echo "  differs: $(basename "$d")"
			mkdir -p "$W/x/a" "$W/x/b"
			dpkg-deb -R "$d" "$W/x/a" && dpkg-deb -R "$W/b/$(basename "$d")" "$W/x/b"
			diff -r "$W/x/a" "$W/x/b" | head -n 10 | sed 's/^/    /'
			rm -rf "$W/x"
		fi
	done
	check "reproducible: the two builds' .deb files are byte-identical" "$bad"
fi

# -- 2. lintian ----------------------------------------------------------------
lintian --fail-on error,warning "$W"/a/postsmtpsts_*.changes >"$W/lintian.out" 2>&1
st=$?
grep -v 'running with root privileges is not recommended' "$W/lintian.out" |
    sed 's/^/  /'
check "lintian --fail-on error,warning" "$st"

# -- a postsmtpsts installed by hand (contrib/quickstart.sh, make install
# with the Debian paths) shares the package's paths and user: installing
# and purging the package over it would take its configuration, state and
# user away, and its daemon holds the shipped listener.  The remaining
# checks need a host without one (CI's fresh machine is such a host).
by_hand=
for p in /usr/local/sbin/postsmtpsts /etc/postsmtpsts /var/lib/postsmtpsts; do
	[ -e "$p" ] && by_hand="$by_hand $p"
done
getent passwd _postsmtpsts >/dev/null && by_hand="$by_hand user:_postsmtpsts"
if [ -n "$by_hand" ]; then
	echo "  a postsmtpsts installed by hand is on this host:$by_hand"
	echo "  (README.md, 'What the two commands do to the machine', removes it)"
	for c in "autopkgtest (--- null)" "apt-get install and dpkg -L" \
	    "the installed daemon answers postmap -q" "dpkg --purge leaves nothing"; do
		skip_check "$c: a postsmtpsts installed by hand is on this host"
	done
	finish
fi

# -- 3. autopkgtest ------------------------------------------------------------
mkdir -p "$W/apt-src"
cp -R contrib/debian "$W/apt-src/debian"
# isolation-container: the smoke test starts the daemon; this host (CI's
# fresh machine, or the Debian 13 leg's tree) is the throwaway testbed, as
# the rest of this script assumes.  autopkgtest 5.28 (Debian 12) ran it
# under "null" anyway, 5.49 (Debian 13) skips it unless told.
autopkgtest --ignore-restrictions=isolation-container \
    "$W"/a/postsmtpsts_*.deb "$W/apt-src" -- null >"$W/autopkgtest.out" 2>&1
st=$?
grep -E '^(ok|not ok) - |^smoke ' "$W/autopkgtest.out" | awk '!seen[$0]++' |
    sed 's/^/  /'
[ "$st" -eq 0 ] || tail -n 30 "$W/autopkgtest.out"
check "autopkgtest (--- null): smoke passes" "$st"
dpkg --purge postsmtpsts >/dev/null 2>&1

# -- 4. install ----------------------------------------------------------------
(cd "$W/a" && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    ./postsmtpsts_*.deb) >"$W/install.out" 2>&1
st=$?
[ "$st" -eq 0 ] || tail -n 20 "$W/install.out"
check "apt-get install ./postsmtpsts_*.deb" "$st"
[ "$st" -eq 0 ] || finish
# postinst names the map for the installed Postfix (postfix310 from 3.10 on)
want=$(sh contrib/postfix/policy-maps-line.sh | grep '^smtp_tls_policy_maps = ')
grep -qF "postsmtpsts:   $want" "$W/install.out"
check "postinst printed '$want'" $?

dpkg -L postsmtpsts >"$W/files"
# systemd's unit directory: /lib/systemd/system on Debian 12,
# /usr/lib/systemd/system on Debian 13 (its systemd.pc, merged /usr)
unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
[ -n "$unitdir" ] || unitdir=/lib/systemd/system
missing=
for f in /usr/sbin/postsmtpsts /usr/sbin/postsmtpsts-cache \
    /usr/bin/postsmtpsts-query /usr/bin/postsmtpsts-check \
    /etc/postsmtpsts/postsmtpsts.conf \
    "$unitdir/postsmtpsts.service" "$unitdir/postsmtpsts.socket" \
    /usr/lib/sysusers.d/postsmtpsts.conf /usr/lib/tmpfiles.d/postsmtpsts.conf \
    /usr/share/man/man8/postsmtpsts.8.gz \
    /usr/share/man/man5/postsmtpsts.conf.5.gz \
    /usr/share/man/man8/postsmtpsts-cache.8.gz \
    /usr/share/man/man1/postsmtpsts-query.1.gz \
    /usr/share/man/man1/postsmtpsts-check.1.gz \
    /usr/share/doc/postsmtpsts/copyright \
    /usr/share/doc/postsmtpsts/README.Debian \
    /usr/share/postsmtpsts/policy-maps-line \
    /etc/logrotate.d/postsmtpsts; do
	grep -qx "$f" "$W/files" && [ -e "$f" ] || missing="$missing $f"
done
[ -z "$missing" ] || echo "  missing:$missing"
check "dpkg -L: daemon, tools, conffile, units, snippets, manuals" \
	"$([ -z "$missing" ]; echo $?)"
stray=$(grep -vE -e '^/(\.|etc|lib|lib/systemd|usr|usr/lib|usr/lib/systemd|usr/share)$' \
    -e "^/(etc/postsmtpsts|etc/logrotate\\.d|${unitdir#/}|usr/(s?bin|lib/(sysusers|tmpfiles)\\.d|share/(doc|man|lintian|postsmtpsts)))(/|\$)" \
    "$W/files")
[ -z "$stray" ] || echo "  unexpected: $stray"
check "dpkg -L: nothing outside the Debian layout (no /usr/local, no /var)" \
	"$([ -z "$stray" ]; echo $?)"
check "conffile: /etc/postsmtpsts/postsmtpsts.conf" \
	"$(grep -qx /etc/postsmtpsts/postsmtpsts.conf /var/lib/dpkg/info/postsmtpsts.conffiles; echo $?)"
check "user and group _postsmtpsts (sysusers.d), no login shell" \
	"$(getent passwd _postsmtpsts | grep -q ':/usr/sbin/nologin$' &&
	    getent group _postsmtpsts >/dev/null; echo $?)"
check "state directory /var/lib/postsmtpsts owned by _postsmtpsts, 0750" \
	"$([ "$(stat -c '%U %a' /var/lib/postsmtpsts 2>/dev/null)" = '_postsmtpsts 750' ]; echo $?)"
if [ -d /run/systemd/system ]; then
	check "postsmtpsts.service enabled and active" \
	    "$(systemctl is-enabled --quiet postsmtpsts && systemctl is-active --quiet postsmtpsts; echo $?)"
	systemctl stop postsmtpsts
else
	check "no systemd as PID 1 ($(ps -o comm= -p 1)): postinst enabled the unit all the same" \
	    "$([ -L /etc/systemd/system/multi-user.target.wants/postsmtpsts.service ]; echo $?)"
fi

# -- 5. the installed daemon against the loopback world ------------------------
WORLD_DIR=${WORLD_DIR:-/tmp/postsmtpsts-world}
export WORLD_DIR
world_alive() {
	[ -r "$WORLD_DIR/env.sh" ] && (. "$WORLD_DIR/env.sh" &&
	    dig +time=1 +tries=1 +short @"$WORLD_RESOLVER_ADDR" SOA pstest. | grep -q .)
}
if ! world_alive; then
	if tests/world/start >"$W/world.out" 2>&1; then
		WORLD_STARTED=1
	else
		tail -n 20 "$W/world.out"
	fi
fi
if world_alive; then
	fail0=$fail
	# shellcheck source=/dev/null
	. "$WORLD_DIR/env.sh"
	conf=/etc/postsmtpsts/postsmtpsts.conf
	cat >>"$conf" <<-EOF
		# tests/ci/deb.sh: the loopback world's DNS root and CA
		dns { trust_anchor_file = "$WORLD_TRUST_ANCHOR" root_hints = "$WORLD_ROOT_HINTS" unbound_options = { "do-not-query-localhost: no" } }
		https { ca_file = "$WORLD_CA" }
		request_timeout = 10
	EOF
	/usr/sbin/postsmtpsts -t -c "$conf" >"$W/t.out" 2>&1
	st=$?
	[ "$st" -eq 0 ] || cat "$W/t.out"
	check "postsmtpsts -t: the shipped conffile plus the world lines" "$st"
	mkdir -p "$W/pf"
	printf 'compatibility_level = 3.6\nmaillog_file = /dev/stderr\nmaillog_file_prefixes = /var, /dev/stdout, /dev/stderr\n' >"$W/pf/main.cf"
	pq() { postmap -c "$W/pf" -q "$1" socketmap:inet:127.0.0.1:8461:postfix; }
	if ss -Htln 'sport = :8461' 2>/dev/null | grep -q .; then
		echo "  127.0.0.1:8461 (the shipped listener) is in use:"
		ss -Htlnp 'sport = :8461' | sed 's/^/    /'
	fi
	/usr/sbin/postsmtpsts -f -c "$conf" >"$W/daemon.log" 2>&1 &
	DAEMON_PID=$!
	for _ in $(seq 1 100); do
		o=$(pq '[readiness.invalid]' 2>&1)
		[ $? -eq 1 ] && [ -z "$o" ] && break
		kill -0 "$DAEMON_PID" 2>/dev/null || break
		sleep 0.1
	done
	uids=$(ps -o uid= --ppid "$DAEMON_PID" | tr -d ' ' | sort -u | tr '\n' ' ')
	check "the daemon's processes run as _postsmtpsts (uid $(id -u _postsmtpsts))" \
	    "$([ "$uids" = "$(id -u _postsmtpsts) " ]; echo $?)"
	bad=0 n=0
	while IFS=$'\t' read -r name domain expect _; do
		case "$name" in enforce|enforce-wild|none|dane-ok|dane-some) ;; *) continue ;; esac
		got=$(pq "$domain" 2>&1)
		[ -n "$got" ] || got=NOTFOUND
		n=$((n + 1))
		if [ "$got" != "$expect" ]; then
			echo "  $domain: got '$got', want '$expect'"; bad=1
		fi
	done <"$WORLD_CASES"
	check "postmap -q: $n world domains answered as cases.tsv expects" \
	    "$([ "$bad" -eq 0 ] && [ "$n" -eq 5 ]; echo $?)"
	printf '%s\n' dane-ok.pstest enforce.pstest nosuch-warm.pstest |
	    /usr/sbin/postsmtpsts-cache warm >"$W/warm.out" 2>&1
	st=$?
	check "postsmtpsts-cache warm (default configuration): $(cat "$W/warm.out")" \
	    "$([ "$st" -eq 0 ] && grep -q '^warm: 3 of 3 domains done .* 2 policies found .* 1 without, 0 failed' "$W/warm.out"; echo $?)"
	check "the cache is written in /var/lib/postsmtpsts/cache as _postsmtpsts" \
	    "$([ "$(stat -c %U /var/lib/postsmtpsts/cache/data.mdb 2>/dev/null)" = _postsmtpsts ]; echo $?)"
	kill -TERM "$DAEMON_PID"; wait "$DAEMON_PID"
	st=$?
	DAEMON_PID=
	check "SIGTERM: the daemon exits 0" "$st"
	[ "$fail" -eq "$fail0" ] || tail -n 20 "$W/daemon.log"
else
	check "the loopback world runs ($WORLD_DIR)" 1
fi

# -- 6. purge ------------------------------------------------------------------
dpkg --purge postsmtpsts >"$W/purge.out" 2>&1
st=$?
[ "$st" -eq 0 ] || cat "$W/purge.out"
check "dpkg --purge postsmtpsts" "$st"
left=
getent passwd _postsmtpsts >/dev/null && left="$left user"
getent group _postsmtpsts >/dev/null && left="$left group"
for p in /var/lib/postsmtpsts /run/postsmtpsts /etc/postsmtpsts \
    /etc/systemd/system/multi-user.target.wants/postsmtpsts.service; do
	[ -e "$p" ] && left="$left $p"
done
while read -r f; do
	# every file, and the directories that are ours alone
	if [ -d "$f" ]; then	# /lib is a symbolic link (merged /usr)
		case "$f" in *postsmtpsts*) ;; *) continue ;; esac
	fi
	[ -e "$f" ] && left="$left $f"
done <"$W/files"
[ -z "$left" ] || echo "  left behind:$left"
check "after purge: no user, group, state, conffile, unit link or packaged file" \
	"$([ -z "$left" ]; echo $?)"
check "after purge: dpkg knows no postsmtpsts" \
	"$(! dpkg-query -W postsmtpsts >/dev/null 2>&1; echo $?)"
finish
