#!/usr/bin/env bash
# Runs inside a chroot of test/majors/chroot.sh, as root, after segpipe is
# installed into PostgreSQL MAJOR (in-chroot.sh): installs the distribution's
# TimescaleDB for MAJOR (postgresql-MAJOR-timescaledb: Debian 13 has 2.19
# for 17, sid a newer one for 18) into the cached chroot, once, and runs
# test/majors/timescaledb.py.  Ends with "TimescaleDB: N passed, M failed".
#
#   timescaledb.sh MAJOR
set -uo pipefail
MAJOR=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
pkg=postgresql-$MAJOR-timescaledb
t0=$(date +%s)
if ! dpkg -s "$pkg" >/dev/null 2>&1; then
	log=$(mktemp)
	trap 'rm -f "$log"' EXIT
	# the chroot's package lists may be older than the archive: read them again when the install fails
	apt_install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >>"$log" 2>&1; }
	if ! apt_install && ! { apt-get update -qq >>"$log" 2>&1 && apt_install; }; then
		tail -n 20 "$log"
		echo "TimescaleDB: $pkg does not install in $(. /etc/os-release && echo "$PRETTY_NAME") (above)"
		echo "TimescaleDB: 0 passed, 1 failed"
		exit 1
	fi
	apt-get clean >/dev/null 2>&1
	echo "TimescaleDB: $pkg $(dpkg-query -W -f '${Version}' "$pkg") installed in $(($(date +%s) - t0)) s"
fi
t1=$(date +%s)
PG_CONFIG=/usr/lib/postgresql/$MAJOR/bin/pg_config python3 "$ROOT/test/majors/timescaledb.py"
rc=$?
echo "   TimescaleDB tests in $(($(date +%s) - t1)) s"
exit $rc
