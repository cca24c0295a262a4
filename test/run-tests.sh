#!/usr/bin/env bash
# Runs every test of segpipe and exits non-zero on any failure:
# build (warnings are errors), install, a throwaway PostgreSQL cluster,
# the pg_regress suites (make installcheck), the README's examples, and the
# input fuzzer.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/test/lib.sh"

ensure_deps
build_install
echo "== starting a throwaway cluster"
# pg_virtualenv creates a cluster, sets PG* for it, runs the command and
# drops the cluster afterwards, whatever the outcome.
SEGPIPE_SUMMARY=$(mktemp)
export SEGPIPE_SUMMARY
status=0
# pg_cron is preloaded for test/recipe.py; its jobs run in background workers
# (a libpq connection to localhost would need the cluster's password).
pg_virtualenv -t -v "$PG_MAJOR" -o "max_stack_depth=2MB" -o "shared_preload_libraries=pg_cron" \
	-o "cron.database_name=postgres" -o "cron.use_background_workers=on" \
	bash "$ROOT/test/in-cluster.sh" || status=$?
# the summary again, as the last line, after pg_virtualenv's own messages
echo
if [ -s "$SEGPIPE_SUMMARY" ]; then cat "$SEGPIPE_SUMMARY"; else echo "0 passed, 1 failed"; status=1; fi
rm -f "$SEGPIPE_SUMMARY"
exit $status
