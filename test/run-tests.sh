#!/usr/bin/env bash
# Runs every test of segpipe and exits non-zero on any failure:
# installs what the tests need (test/setup.sh --tests), then the Debian
# package (test/packaging/deb.sh: build, install, suites against it), then
# build (warnings are errors: COPT=-Werror), install, a throwaway PostgreSQL
# cluster, the pg_regress suites (make installcheck), the documentation's examples,
# the fuzzers and the rest (test/in-cluster.sh).
# Ends with what failed (each failing suite by name, with the lines of its
# output that name a failed check), then "N passed, M failed" as the very
# last line.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/test/lib.sh"

status=0
passed=0
failed=0
SEGPIPE_FAILURES=$(mktemp)
SEGPIPE_SUMMARY=$(mktemp)
export SEGPIPE_FAILURES SEGPIPE_SUMMARY

# the list of what failed and the summary line, last (after pg_virtualenv's
# messages and, on a failure, the lines of the server's log it prints that
# tell of a crash: lib.sh's server_log_excerpt)
finish() {
	echo
	if [ -s "$SEGPIPE_FAILURES" ]; then
		echo "== what failed"
		cat "$SEGPIPE_FAILURES"
	fi
	rm -f "$SEGPIPE_FAILURES" "$SEGPIPE_SUMMARY"
	[ "$failed" = 0 ] || status=1
	# nothing left in the tree: the build's files go too (after a failure
	# they stay, with pg_regress's results/ and regression.diffs)
	if [ $status = 0 ]; then make -s -C "$ROOT" PG_CONFIG="$PG_CONFIG" clean >/dev/null; fi
	echo "$passed passed, $failed failed"
	exit $status
}
# a step that cannot go on (set-up, build): named as the failure
fail_step() {
	echo "$1: failed (its output is above)" >>"$SEGPIPE_FAILURES"
	failed=$((failed + 1))
	finish
}
count() { sed -nE "s/.*(^|[^0-9])([0-9]+) $1.*/\2/p" <<<"$2"; }
# run_counted LABEL SCRIPT: runs a script of ours that ends with the line
# "LABEL: N passed, M failed", adds its counts (no such line: one failure),
# and lists its FAILED lines under its name when it failed
run_counted() {
	local label=$1 script=$2 log line
	log=$(mktemp)
	bash "$ROOT/$script" 2>&1 | tee "$log" || status=1
	line=$(grep -E "^$label: [0-9]+ passed, [0-9]+ failed\$" "$log" | tail -n 1 || true)
	line=${line:-$label: 0 passed, 1 failed}
	passed=$((passed + $(count passed "$line")))
	failed=$((failed + $(count failed "$line")))
	if [ "$(count failed "$line")" != 0 ]; then
		{
			echo "$label ($script): $(count failed "$line") failed"
			grep -E '^FAILED' "$log" | sed 's/^/    /'
		} >>"$SEGPIPE_FAILURES"
	fi
	rm -f "$log"
}

bash "$ROOT/test/setup.sh" --tests || fail_step "installing what the tests need (test/setup.sh --tests)"
# The Debian package first: installing the .deb puts its files where make
# install puts them (and removes them afterwards); build_install then installs
# this tree's build for everything else.  SEGPIPE_NO_DEB=1 skips it.
if [ "${SEGPIPE_NO_DEB:-}" != 1 ]; then
	echo "== Debian package (test/packaging/deb.sh)"
	run_counted "Debian package" test/packaging/deb.sh
fi
build_install COPT=-Werror || fail_step "build and install (make COPT=-Werror, make install)"
echo "== starting a throwaway cluster"
# pg_virtualenv creates a cluster, sets PG* for it, runs the command and
# drops the cluster afterwards, whatever the outcome.
# pg_cron is preloaded for test/integration/recipe.py; its jobs run in
# background workers (a libpq connection to localhost would need the
# cluster's password).
pg_virtualenv -t -v "$PG_MAJOR" -c "$CLUSTER_OPTS" -o "port=$(free_port)" -o "max_stack_depth=2MB" -o "shared_preload_libraries=pg_cron" \
	-o "cron.database_name=postgres" -o "cron.use_background_workers=on" \
	bash "$ROOT/test/in-cluster.sh" 2>&1 | server_log_excerpt || status=$?
# in-cluster.sh's counts
summary=$(cat "$SEGPIPE_SUMMARY")
if [ -z "$summary" ]; then
	echo "the throwaway cluster's run (test/in-cluster.sh in pg_virtualenv): no summary; exit status $status" \
		>>"$SEGPIPE_FAILURES"
	summary="0 passed, 1 failed"
	status=1
fi
passed=$((passed + $(count passed "$summary")))
failed=$((failed + $(count failed "$summary")))
# PostgreSQL 17 and 18 in Debian chroots, the same bytes on 15, 17 and 18, and
# 15's dump restored on them (test/majors/run.sh, with this tree's segpipe
# installed here; SEGPIPE_NO_MATRIX=1 skips it, but not in CI)
run_counted "PostgreSQL majors" test/majors/run.sh
finish
