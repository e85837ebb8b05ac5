#!/bin/sh
# contrib/quickstart.sh - build, install and run postsmtpsts on Debian 12
#
# Installs the build dependencies if missing, builds in build/, installs
# under /usr/local with /etc, /var and /run as the system directories,
# creates the "postsmtpsts" system user, and starts the daemon in the
# foreground with the default configuration (Ctrl-C stops it).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
contrib/install-deps.sh
[ -x configure ] || autoreconf -fi
mkdir -p build
cd build
[ -f Makefile ] || ../configure -q --sysconfdir=/etc --localstatedir=/var \
	--runstatedir=/run
make -j"$(nproc)"
make install >/dev/null
id postsmtpsts >/dev/null 2>&1 ||
	useradd --system --home-dir /var/lib/postsmtpsts --no-create-home \
		--shell /usr/sbin/nologin postsmtpsts
install -d -o postsmtpsts -g postsmtpsts -m 0750 /var/lib/postsmtpsts
echo "quickstart: config /etc/postsmtpsts/postsmtpsts.conf," \
	"socketmap inet:127.0.0.1:8461 (Postfix: socketmap:inet:127.0.0.1:8461:postfix)," \
	"cache /var/lib/postsmtpsts/cache"
exec /usr/local/sbin/postsmtpsts -f -c /etc/postsmtpsts/postsmtpsts.conf
