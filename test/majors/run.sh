#!/usr/bin/env bash
# segpipe on every PostgreSQL major it supports (docs/versions.md), from one
# source tree:
#
#   - 15, the machine's own (segpipe installed into it, as test/run-tests.sh
#     does): the fixed results as bytes (bytes.sql), a database of stored
#     states and a maintained table dumped with pg_dump (upgrade.py --write),
#     and what this major changes (behaviours.py);
#   - 17 (Debian 13, trixie) and 18 (Debian sid), each in a chroot made with
#     debootstrap from Debian's archive and cached (test/majors/chroot.sh):
#     the Debian package (test/packaging/deb.sh: postgresql-NN-segpipe built, installed,
#     its suites run, removed), then a build with warnings as errors, install,
#     and in a throwaway cluster the
#     pg_regress suites, the documentation's examples, resume equivalence, resource
#     bounds, postgres_fdw shards, what the major changes, the bytes, and 15's
#     dump restored with pg_restore and resumed (in-chroot.sh, in-cluster.sh);
#     then Citus 14.0.1 built there once (cached in the chroot) and
#     test/citus/citus.py, and TimescaleDB's hypertables with Debian's
#     postgresql-NN-timescaledb, installed into the cached chroot on the
#     first run (timescaledb.sh);
#   - the bytes of 15, 17 and 18 compared, byte for byte;
#   - a build against an unsupported major stops at src/sp_compat.h's #error.
#
# 16 is in no suite of Debian's archive (docs/versions.md): it is not built here.
#
#   test/majors/run.sh        as root (else through sudo); after make install
#                             into the machine's PostgreSQL 15, under the host
#                             lock where the machine is shared
#
# SEGPIPE_NO_MATRIX=1 skips it all (quick local runs; ignored when CI=true).
# SEGPIPE_CHROOT_CACHE moves the chroots' cache (default /var/cache/segpipe-majors).
# Ends with "PostgreSQL majors: N passed, M failed".
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LABEL="PostgreSQL majors"
if [ "${SEGPIPE_NO_MATRIX:-}" = 1 ]; then
	if [ "${CI:-}" = true ]; then
		echo "SEGPIPE_NO_MATRIX=1 is ignored in CI"
	else
		echo "$LABEL: skipped (SEGPIPE_NO_MATRIX=1)"
		echo "$LABEL: 0 passed, 0 failed"
		exit 0
	fi
fi
if [ "$(id -u)" != 0 ]; then
	# debootstrap, chroot and mount need root
	exec sudo --preserve-env=CI,SEGPIPE_CHROOT_CACHE,SEGPIPE_CHROOT_MIRROR,SEGPIPE_CITUS_SOURCES,PG_MAJOR bash "$0" "$@"
fi
. "$ROOT/test/lib.sh"
. "$ROOT/test/majors/chroot.sh"

# the other majors: Debian suite and major
MATRIX="trixie:17 sid:18"
passed=0
failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; failed=$((failed + 1)); }
# the counts of the last "<label>: N passed, M failed" line of file $1
tally() {
	local line
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
	if [ -z "$line" ]; then
		bad "no summary line in the output above"
		return
	fi
	passed=$((passed + $(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$line")))
	failed=$((failed + $(sed -E 's/.*passed, ([0-9]+) failed.*/\1/' <<<"$line")))
}

work=$(mktemp -d)
chmod 755 "$work"
entered=()
cleanup() {
	local r
	for r in "${entered[@]}"; do
		chroot_leave "$r"
		rm -rf "$r/build/segpipe-$$"
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
start=$(date +%s)

echo "== $LABEL: a build against an unsupported major stops"
# src/sp_compat.h after a stand-in postgres.h that says which major it is
for v in 140000:14 150000:15 190000:19; do
	mkdir -p "$work/stub"
	printf '#define PG_VERSION_NUM %s\n#define pg_attribute_noreturn()\n#define PG_MODULE_MAGIC\n' "${v%:*}" \
		>"$work/stub/postgres.h"
	printf '#include "postgres.h"\n#include "sp_compat.h"\nint sp_compat_probe;\n' >"$work/stub/probe.c"
	if gcc -fsyntax-only -I "$work/stub" -I "$ROOT/src" "$work/stub/probe.c" >"$work/stub/log" 2>&1; then
		compiled=1
	else
		compiled=0
	fi
	if [ "${v#*:}" = 15 ]; then
		if [ $compiled = 1 ]; then ok "headers of ${v#*:}: sp_compat.h compiles"; else
			cat "$work/stub/log"; bad "headers of ${v#*:}: sp_compat.h does not compile"; fi
	elif [ $compiled = 0 ] && grep -q 'error: #error "segpipe supports PostgreSQL 15, 16, 17 and 18' "$work/stub/log"; then
		ok "headers of ${v#*:}: $(grep -o '#error.*' "$work/stub/log" | head -n 1)"
	else
		cat "$work/stub/log"
		bad "headers of ${v#*:}: no #error naming the supported majors"
	fi
done

echo "== $LABEL: PostgreSQL $PG_MAJOR, this machine's"
mkdir -p "$work/out-$PG_MAJOR"
pg_virtualenv -t -v "$PG_MAJOR" bash "$ROOT/test/majors/in-cluster.sh" old "$PG_MAJOR" "$work/out-$PG_MAJOR" \
	2>&1 | server_log_excerpt | tee "$work/log"
tally "$work/log"

for entry in $MATRIX; do
	suite=${entry%:*}
	major=${entry#*:}
	echo "== $LABEL: PostgreSQL $major in a chroot of Debian $suite"
	t0=$(date +%s)
	mkdir -p "$CHROOT_CACHE"
	# one run at a time per chroot: it installs into the chroot's server
	exec {lockfd}>"$CHROOT_CACHE/$suite.lock"
	flock "$lockfd"
	if ! root=$(chroot_ensure "$suite" "$major"); then
		bad "no chroot of Debian $suite with PostgreSQL $major (the reason is above)"
		exec {lockfd}>&-
		continue
	fi
	t1=$(date +%s)
	dest="$root/build/segpipe-$$"
	chroot_copy_tree "$ROOT" "$dest"
	rm -rf "$dest/.majors-out"
	mkdir -p "$dest/.majors-out"
	# Citus's source archives, for test/citus/citus.sh inside (it builds once and
	# caches the build in the chroot's /var/cache/segpipe-citus)
	for d in ${SEGPIPE_CITUS_SOURCES:-} "$ROOT/../shared/vendor"; do
		if ls "$d"/citus-*.tar.gz >/dev/null 2>&1; then
			mkdir -p "$dest/.citus-sources"
			cp "$d"/citus-*.tar.gz "$dest/.citus-sources/"
			[ -f "$d/SHA256SUMS" ] && cp "$d/SHA256SUMS" "$dest/.citus-sources/"
			break
		fi
	done
	cp -a "$work/out-$PG_MAJOR/upgrade" "$dest/.majors-out/upgrade" 2>/dev/null
	entered+=("$root")
	if chroot_enter "$root"; then
		chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 HOME=/root \
			CI="${CI:-}" SEGPIPE_CITUS_SOURCES="/build/segpipe-$$/.citus-sources" \
			bash "/build/segpipe-$$/test/majors/in-chroot.sh" "$major" "/build/segpipe-$$/.majors-out" \
			2>&1 | tee "$work/log"
		tally "$work/log"
		cp "$dest/.majors-out/bytes-$major.txt" "$work/" 2>/dev/null
	else
		bad "mounting /proc, /dev/pts and /dev/shm in $root"
	fi
	chroot_leave "$root"
	rm -rf "$dest"
	exec {lockfd}>&-
	echo "   PostgreSQL $major: chroot ready in $((t1 - t0)) s, tests in $(($(date +%s) - t1)) s"
done

echo "== $LABEL: the same bytes on every major"
base="$work/out-$PG_MAJOR/bytes-$PG_MAJOR.txt"
for entry in $MATRIX; do
	major=${entry#*:}
	other="$work/bytes-$major.txt"
	if [ ! -s "$base" ] || [ ! -s "$other" ]; then
		bad "bytes of PostgreSQL $PG_MAJOR and $major: missing (see above)"
	elif cmp -s "$base" "$other"; then
		ok "bytes of PostgreSQL $PG_MAJOR and $major: identical ($(wc -l <"$base") lines, $(wc -c <"$base") bytes," \
			"md5 $(md5sum <"$base" | cut -c1-12))"
	else
		diff "$base" "$other" | head -n 20
		bad "bytes of PostgreSQL $PG_MAJOR and $major differ ($(diff "$base" "$other" | grep -c '^[<>]') lines)"
	fi
done

echo "   the matrix took $(($(date +%s) - start)) s"
echo "$LABEL: $passed passed, $failed failed"
[ "$failed" = 0 ]
