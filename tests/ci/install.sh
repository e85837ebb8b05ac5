#!/usr/bin/env bash
# tests/ci/install.sh - configure's directories are honoured everywhere
#
# Configures a scratch build with --prefix=/opt/pst --sysconfdir=/etc/pst
# --localstatedir=/var/pst, runs "make install DESTDIR=", then asserts:
#   - the programs, manual pages, example configuration, units and
#     tmpfiles.d/sysusers.d snippets are installed, and nothing lands
#     outside /opt/pst, /etc/pst and systemd's own directories;
#   - no installed file (text or binary) names /usr/local or the default
#     layout's /etc/postsmtpsts, /var/lib/postsmtpsts, /run/postsmtpsts;
#   - the units, pages and example configuration name the chosen paths,
#     and so does the installed daemon (its default configuration file,
#     and "postsmtpsts -t -v" on the installed example);
#   - a second "make install" keeps an operator's postsmtpsts.conf, and
#     "make uninstall" removes everything else.
# Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"	# check, finish; cd to the top directory

[ -x configure ] || autoreconf -fi >/dev/null 2>&1
work=$(mktemp -d /tmp/postsmtpsts-ci-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
R=$work/root
mkdir -p "$work/build"
if ! ( cd "$work/build" && "$top/configure" -q --prefix=/opt/pst \
	--sysconfdir=/etc/pst --localstatedir=/var/pst &&
	make -j2 >make.log 2>&1 && make install DESTDIR="$R" >install.log 2>&1 ); then
	tail -n 20 "$work"/build/*.log 2>/dev/null
	abort "configure, make, make install DESTDIR"
fi
check "configure --prefix=/opt/pst --sysconfdir=/etc/pst --localstatedir=/var/pst; make install" 0

unitdir=$(sed -n 's/^systemdsystemunitdir = //p' "$work/build/Makefile")
tmpfilesdir=$(sed -n 's/^tmpfilesdir = //p' "$work/build/Makefile")
sysusersdir=$(sed -n 's/^sysusersdir = //p' "$work/build/Makefile")

bad=0
for f in /opt/pst/sbin/postsmtpsts /opt/pst/sbin/postsmtpsts-cache \
	/opt/pst/bin/postsmtpsts-query \
	/opt/pst/share/man/man8/postsmtpsts.8 \
	/opt/pst/share/man/man8/postsmtpsts-cache.8 \
	/opt/pst/share/man/man5/postsmtpsts.conf.5 \
	/opt/pst/share/man/man1/postsmtpsts-query.1 \
	/etc/pst/postsmtpsts/postsmtpsts.conf \
	/etc/pst/postsmtpsts/postsmtpsts.conf.example \
	"$unitdir/postsmtpsts.service" "$unitdir/postsmtpsts.socket" \
	"$tmpfilesdir/postsmtpsts.conf" "$sysusersdir/postsmtpsts.conf"; do
	[ -f "$R$f" ] || { echo "  missing: $f"; bad=1; }
done
check "programs, pages, example config, units and snippets installed" "$bad"

bad=0
while read -r f; do
	f=${f#"$R"}
	case "$f" in
	/opt/pst/*|/etc/pst/*|"$unitdir"/*|"$tmpfilesdir"/*|"$sysusersdir"/*) ;;
	*) echo "  outside the chosen directories: $f"; bad=1 ;;
	esac
done < <(find "$R" -type f)
check "nothing installed outside /opt/pst, /etc/pst and systemd's directories" "$bad"

# The default layout's paths, where they start a path.
old='(^|[^A-Za-z0-9_./-])(/usr/local|/etc/postsmtpsts|/var/lib/postsmtpsts|/run/postsmtpsts)'
bad=0
while read -r f; do
	if [ "$(head -c 4 "$f" | tr -d '\177')" = ELF ]; then
		hits=$(tr -c '[:print:]' '\n' <"$f" | grep -E "$old")
	else
		hits=$(grep -E "$old" "$f")
	fi
	if [ -n "$hits" ]; then
		echo "  ${f#"$R"} names the default layout:"
		printf '%s\n' "$hits" | head -n 5 | sed 's/^/    /'
		bad=1
	fi
done < <(find "$R" -type f)
check "no installed file names /usr/local or /etc|/var/lib|/run/postsmtpsts" "$bad"

# has FILE STRING... - every STRING appears in FILE
has() {
	local f=$1 s miss=0; shift
	for s in "$@"; do
		grep -qF -- "$s" "$R$f" || { echo "  $f lacks $s"; miss=1; }
	done
	return $miss
}
conf=/etc/pst/postsmtpsts/postsmtpsts.conf
has "$unitdir/postsmtpsts.service" "ExecStart=/opt/pst/sbin/postsmtpsts -f -c $conf" \
	"ReadWritePaths=-/var/pst/run/postsmtpsts -/var/pst/lib/postsmtpsts"
check "postsmtpsts.service runs /opt/pst/sbin/postsmtpsts with $conf" $?
has "$tmpfilesdir/postsmtpsts.conf" "d /var/pst/run/postsmtpsts" "d /var/pst/lib/postsmtpsts"
check "tmpfiles.d snippet names /var/pst" $?
has "$sysusersdir/postsmtpsts.conf" "/var/pst/lib/postsmtpsts"
check "sysusers.d snippet: home under /var/pst" $?
has /opt/pst/share/man/man8/postsmtpsts.8 "$conf" /var/pst/run/postsmtpsts \
	/var/pst/lib/postsmtpsts/cache /opt/pst/sbin/postsmtpsts
check "postsmtpsts(8) names the chosen paths" $?
has /opt/pst/share/man/man5/postsmtpsts.conf.5 "$conf" /var/pst/run/postsmtpsts \
	/var/pst/lib/postsmtpsts/cache
check "postsmtpsts.conf(5) names the chosen paths" $?
has /opt/pst/share/man/man8/postsmtpsts-cache.8 /var/pst/lib/postsmtpsts/cache "$conf"
check "postsmtpsts-cache(8) names the chosen paths" $?
has "$conf.example" /var/pst/run/postsmtpsts/postsmtpsts.pid \
	/var/pst/lib/postsmtpsts/cache
check "the example configuration names the chosen paths" $?

# The installed daemon's built-in defaults
out=$("$R/opt/pst/sbin/postsmtpsts" -t 2>&1)
printf '%s\n' "$out" | grep -qF "$conf"
check "postsmtpsts -t reads $conf by default" $?
out=$("$R/opt/pst/sbin/postsmtpsts" -t -v -c "$R$conf" 2>&1)
printf '%s\n' "$out" | grep -q '"/var/pst/run/postsmtpsts/postsmtpsts.pid"' &&
	printf '%s\n' "$out" | grep -q '"/var/pst/lib/postsmtpsts/cache"'
check "postsmtpsts -t -v: pid_file and cache under /var/pst" $?

# reinstall keeps the operator's file; uninstall removes the rest
echo "# operator's change" >>"$R$conf"
make -C "$work/build" install DESTDIR="$R" >/dev/null 2>&1
grep -q "operator's change" "$R$conf"
check "make install again keeps an edited postsmtpsts.conf" $?
make -C "$work/build" uninstall DESTDIR="$R" >/dev/null 2>&1
left=$(find "$R" -type f | sed "s|^$R||")
[ "$left" = "$conf" ]
check "make uninstall removes all but the edited postsmtpsts.conf" $?
[ "$left" = "$conf" ] || printf '%s\n' "$left" | sed 's/^/  left: /'
finish
