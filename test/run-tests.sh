#!/usr/bin/env bash
# Runs every test of segpipe and exits non-zero on any failure:
# the Debian package (test/deb.sh: build, install, suites against it), then
# build (warnings are errors: COPT=-Werror), install, a throwaway PostgreSQL
# cluster, the pg_regress suites (make installcheck), the documentation's examples,
# the fuzzers and the rest (test/in-cluster.sh).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/test/lib.sh"

ensure_deps
ensure_test_deps
status=0
# The Debian package first: installing the .deb puts its files where make
# install puts them (and removes them afterwards); build_install then installs
# this tree's build for everything else.  SEGPIPE_NO_DEB=1 skips it.
deb_summary=
if [ "${SEGPIPE_NO_DEB:-}" != 1 ]; then
	echo "== Debian package (test/deb.sh)"
	deblog=$(mktemp)
	bash "$ROOT/test/deb.sh" 2>&1 | tee "$deblog" || status=1
	deb_summary=$(grep -E '^Debian package: [0-9]+ passed, [0-9]+ failed$' "$deblog" | tail -n 1)
	[ -n "$deb_summary" ] || { deb_summary="Debian package: 0 passed, 1 failed"; status=1; }
	rm -f "$deblog"
fi
build_install COPT=-Werror
echo "== starting a throwaway cluster"
# pg_virtualenv creates a cluster, sets PG* for it, runs the command and
# drops the cluster afterwards, whatever the outcome.
SEGPIPE_SUMMARY=$(mktemp)
export SEGPIPE_SUMMARY
# pg_cron is preloaded for test/recipe.py; its jobs run in background workers
# (a libpq connection to localhost would need the cluster's password).
pg_virtualenv -t -v "$PG_MAJOR" -o "max_stack_depth=2MB" -o "shared_preload_libraries=pg_cron" \
	-o "cron.database_name=postgres" -o "cron.use_background_workers=on" \
	bash "$ROOT/test/in-cluster.sh" || status=$?
# the summary (written by in-cluster.sh), once, as the last line, after
# pg_virtualenv's own messages
echo
summary=$(cat "$SEGPIPE_SUMMARY")
rm -f "$SEGPIPE_SUMMARY"
[ -n "$summary" ] || { summary="0 passed, 1 failed"; status=1; }
count() { sed -nE "s/.*(^|[^0-9])([0-9]+) $1.*/\2/p" <<<"$2"; }
passed=$(($(count passed "$summary") + $(count passed "${deb_summary:-0 passed}")))
failed=$(($(count failed "$summary") + $(count failed "${deb_summary:-0 failed}")))
# PostgreSQL 17 and 18 in Debian chroots, the same bytes on 15, 17 and 18, and
# 15's dump restored on them (test/majors/run.sh, with this tree's segpipe
# installed here; SEGPIPE_NO_MATRIX=1 skips it, but not in CI)
majorslog=$(mktemp)
bash "$ROOT/test/majors/run.sh" 2>&1 | tee "$majorslog" || status=1
majors=$(grep -E '^PostgreSQL majors: [0-9]+ passed, [0-9]+ failed$' "$majorslog" | tail -n 1 || true)
rm -f "$majorslog"
majors=${majors:-PostgreSQL majors: 0 passed, 1 failed}
passed=$((passed + $(count passed "$majors")))
failed=$((failed + $(count failed "$majors")))
[ "$failed" = 0 ] || status=1
# nothing left in the tree: the build's files go too (after a failure they
# stay, with pg_regress's results/ and regression.diffs)
if [ $status = 0 ]; then make -s -C "$ROOT" PG_CONFIG="$PG_CONFIG" clean >/dev/null; fi
echo "$passed passed, $failed failed"
exit $status
