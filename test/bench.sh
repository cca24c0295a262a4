#!/usr/bin/env bash
# Benchmark (not part of the default test run): segment_agg against
# built-in window functions (test/bench.py), and pipeline_agg against the
# aggregate floor sum(v), max(k) (test/bench_agg.py), over the same rows,
# run side by side in alternating order, printing medians and ratios; then
# memory checks (temporary bytes, peak resident size).
#
#   test/bench.sh [rows] [rounds]     defaults: 2000000 rows, 5 rounds
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/test/lib.sh"
ensure_deps
build_install
pg_virtualenv -t -v "$PG_MAJOR" -o "work_mem=4MB" -o "max_parallel_workers_per_gather=0" \
	bash -c 'python3 "$1"/test/bench.py "${@:2}" && python3 "$1"/test/bench_agg.py "${@:2}"' _ "$ROOT" "$@"
