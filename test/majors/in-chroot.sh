#!/usr/bin/env bash
# Runs inside a chroot of test/majors/chroot.sh, as root, in a copy of the
# tree: the Debian package for PostgreSQL MAJOR (test/packaging/deb.sh), then builds
# segpipe against it with warnings as errors, installs it, and runs
# test/majors/in-cluster.sh in a throwaway cluster
# (pg_virtualenv), then the Citus tests (test/citus/citus.sh) and
# TimescaleDB's hypertables (test/majors/timescaledb.sh: the distribution's
# package installed into the cached chroot once).  OUT holds the old major's
# dump (OUT/upgrade) and receives this major's bytes.  Ends with
# "PostgreSQL MAJOR: N passed, M failed".
#
#   in-chroot.sh MAJOR OUT
set -uo pipefail
MAJOR=$1
OUT=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
export PG_CONFIG=/usr/lib/postgresql/$MAJOR/bin/pg_config
. test/lib.sh
echo "== PostgreSQL $MAJOR: $("$PG_CONFIG" --version), $(. /etc/os-release && echo "$PRETTY_NAME"), $(gcc --version | head -n 1)"
passed=0
failed=0
# the Debian package of this major (debian/pgversions): built, installed, its
# suites run, removed; debian/control names the packages of the machine's own
# majors, so pg_buildext rewrites it for this one (PG_UPDATECONTROL)
deb=test/deb.sh
for f in test/deb.sh test/*/deb.sh; do [ -f "$f" ] && deb=$f && break; done
echo "== PostgreSQL $MAJOR: the Debian package ($deb)"
log=$(mktemp)
PG_MAJOR=$MAJOR PG_UPDATECONTROL=yes bash "$deb" 2>&1 | tee "$log"
line=$(grep -E '^Debian package: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
[ -n "$line" ] || line="Debian package: 0 passed, 1 failed"
passed=$(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")
failed=$(sed -E 's/.*passed, ([0-9]+) failed.*/\1/' <<<"$line")
make -s clean >/dev/null 2>&1
# segpipe's scripts that an earlier run installed here (another tree's) must
# not change the path CREATE EXTENSION takes
rm -f "$("$PG_CONFIG" --sharedir)"/extension/segpipe--*.sql
if make -s COPT=-Werror >"$log" 2>&1 && make -s install >>"$log" 2>&1 && make -s install-released >>"$log" 2>&1; then
	echo "build (COPT=-Werror) and install against PostgreSQL $MAJOR: ok"
	build=1
else
	cat "$log"
	echo "build (COPT=-Werror) and install against PostgreSQL $MAJOR: FAILED"
	echo "PostgreSQL $MAJOR: $passed passed, $((failed + 1)) failed"
	rm -f "$log"
	exit 1
fi
rm -f "$log"
summary=$(mktemp)
pg_virtualenv -t -v "$MAJOR" -o max_stack_depth=2MB bash test/majors/in-cluster.sh new "$MAJOR" "$OUT" 2>&1 | server_log_excerpt | tee "$summary"
line=$(grep -E '^PostgreSQL [0-9]+ tests: [0-9]+ passed, [0-9]+ failed$' "$summary" | tail -n 1)
[ -n "$line" ] || line="PostgreSQL $MAJOR: 0 passed, 1 failed"
p=$(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")
f=$(sed -E 's/.*passed, ([0-9]+) failed.*/\1/' <<<"$line")
# Citus (test/citus/citus.sh: built from SEGPIPE_CITUS_SOURCES once, cached
# in this chroot; skipped, saying why, without the archives)
echo "== PostgreSQL $MAJOR: Citus"
log=$(mktemp)
bash test/citus/citus.sh 2>&1 | tee "$log"
line=$(grep -E '^Citus: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
rm -f "$log"
[ -n "$line" ] || line="Citus: 0 passed, 1 failed"
p=$((p + $(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")))
f=$((f + $(sed -E 's/.*passed, ([0-9]+) failed.*/\1/' <<<"$line")))
# TimescaleDB's hypertables, in clusters of their own (shared_preload_libraries)
echo "== PostgreSQL $MAJOR: TimescaleDB"
bash test/majors/timescaledb.sh "$MAJOR" 2>&1 | tee "$summary"
line=$(grep -E '^TimescaleDB: [0-9]+ passed, [0-9]+ failed$' "$summary" | tail -n 1)
rm -f "$summary"
[ -n "$line" ] || line="TimescaleDB: 0 passed, 1 failed"
p=$((p + $(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")))
f=$((f + $(sed -E 's/.*passed, ([0-9]+) failed.*/\1/' <<<"$line")))
make -s clean >/dev/null 2>&1
echo
echo "PostgreSQL $MAJOR: $((passed + p + build)) passed, $((failed + f)) failed"
[ "$((failed + f))" = 0 ]
