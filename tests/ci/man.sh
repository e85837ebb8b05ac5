#!/usr/bin/env bash
# tests/ci/man.sh - every installed manual page renders without a warning
#
# Installs build/ into a scratch root (make install DESTDIR=) and checks:
#   - each installed program (bin, sbin) has its manual page, and
#     postsmtpsts.conf(5) is there: a missing page fails;
#   - each page through "groff -man -ww -z" and "man --warnings -l" (the
#     way man(1) renders it, 80 columns) prints nothing on stderr;
#   - no page still holds an unsubstituted @dir@ placeholder, and each
#     has NAME, DESCRIPTION, FILES and SEE ALSO (and SYNOPSIS, OPTIONS,
#     EXIT STATUS and EXAMPLES in sections 1 and 8).
# Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"	# check, finish; cd to the top directory

for c in groff man; do
	command -v "$c" >/dev/null || abort "$c missing (apt-get install groff-base man-db)"
done
[ -f build/Makefile ] || abort "build/ not configured"
root=$(mktemp -d /tmp/postsmtpsts-ci-man.XXXXXX)
trap 'rm -rf "$root"' EXIT
make -C build -s install DESTDIR="$root" >"$root/install.log" 2>&1 ||
	{ tail -n 20 "$root/install.log"; check "make install DESTDIR" 1; finish; }

mandir=$(find "$root" -type d -name man -path '*/share/man' | head -n1)
[ -n "$mandir" ] || { check "manual pages installed" 1; finish; }

# one page per program, in its section (1 for bin, 8 for sbin)
want="man5/postsmtpsts.conf.5"
while read -r p; do
	case "$p" in */sbin/*) want="$want man8/$(basename "$p").8" ;;
	*) want="$want man1/$(basename "$p").1" ;; esac
done < <(find "$root" -type f \( -path '*/bin/*' -o -path '*/sbin/*' \) -perm -u+x)
for w in $want; do
	check "page installed: $w" "$([ -f "$mandir/$w" ]; echo $?)"
done

for page in "$mandir"/man*/*; do
	name=${page#"$mandir"/}
	out=$(groff -man -ww -z "$page" 2>&1)
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/  /'
	check "groff -man -ww -z $name: no warnings" "$([ -z "$out" ]; echo $?)"
	out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=w -l "$page" 2>&1 >/dev/null)
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/  /'
	check "man -l $name: no warnings" "$([ -z "$out" ]; echo $?)"
	bad=0
	if grep -n '@[a-zA-Z_]*@' "$page" | sed 's/^/  placeholder: /' | grep .; then
		bad=1
	fi
	for sh in NAME DESCRIPTION FILES "SEE ALSO"; do
		grep -q "^\.SH \"*$sh\"*\$" "$page" || { echo "  no $sh section"; bad=1; }
	done
	case "$name" in
	man1/*|man8/*)
		for sh in SYNOPSIS OPTIONS "EXIT STATUS" EXAMPLES; do
			grep -q "^\.SH \"*$sh\"*\$" "$page" || { echo "  no $sh section"; bad=1; }
		done ;;
	esac
	check "$name: sections present, placeholders substituted" "$bad"
done
finish
