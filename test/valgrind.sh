#!/usr/bin/env bash
# Memory check (not part of the default test run, about 10 minutes): runs
# the pg_regress suites against a server started under valgrind memcheck,
# then lists every valgrind report whose stack passes through segpipe.so.
# PostgreSQL and glibc have reports of their own (the loader, the relcache
# init file); those are not ours and are not counted.  Exits non-zero when a
# report names segpipe.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/test/lib.sh"
bash "$ROOT/test/setup.sh" --valgrind
build_install

dir=$(mktemp -d)
chmod 777 "$dir"
run_pg() { if [ "$(id -u)" = 0 ]; then su postgres -c "$*"; else bash -c "$*"; fi; }
bindir=$("$PG_CONFIG" --bindir)
run_pg "$bindir/initdb -D $dir/data -A trust $CLUSTER_OPTS >/dev/null"
run_pg "nohup valgrind --quiet --trace-children=yes --log-file=$dir/vg.%p.log \
	$bindir/postgres -D $dir/data -p 5497 -k $dir -c max_stack_depth=2MB >$dir/server.log 2>&1 &"
trap 'run_pg "$bindir/pg_ctl -D $dir/data stop -m fast" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
for _ in $(seq 60); do
	PGHOST=$dir PGPORT=5497 psql -U postgres -X -qc "select 1" postgres >/dev/null 2>&1 && break
	sleep 2
done
status=0
PGHOST=$dir PGPORT=5497 PGUSER=postgres make -s -C "$ROOT" PG_CONFIG="$PG_CONFIG" installcheck || status=1
# a report block runs from its first line to the next blank report line;
# those through segpipe.so are printed (the logs go with the cluster)
awk '/^==[0-9]+== [A-Z]/ {blk=$0; next} /^==[0-9]+== *$/ {if (blk ~ /segpipe/) print blk "\n"; blk=""; next} {blk=blk "\n" $0}' \
	"$dir"/vg.*.log >"$dir/ours"
ours=$(grep -cE '^==[0-9]+== (Invalid|Conditional|Use of|Syscall)' "$dir/ours" || true)
cat "$dir/ours"
echo "valgrind: $(cat "$dir"/vg.*.log | grep -cE '^==[0-9]+== (Invalid|Conditional|Use of|Syscall)') reports in all, $ours through segpipe.so"
[ "$ours" = 0 ] || status=1
exit $status
