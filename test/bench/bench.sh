#!/usr/bin/env bash
# Benchmark (not part of the default test run), every figure a median of
# alternating rounds with its ratio to a baseline run side by side:
#   bench.py       the operators against built-in window functions, and the
#                  partition-memory check (temporary bytes, peak RSS);
#   bench_keys.py  segment_agg per key type against the executor's floor, and
#                  against the plain SQL a user writes today for the same rows;
#   bench_agg.py   pipeline_agg against the aggregate floor sum(v), max(k)
#                  over the same ordered rows, and its peak RSS over a stream;
#   bench_refresh.py  the tour's results-table refresh of one new day into a
#                  year of 10-second readings, against a full recomputation
#                  (its own sizes: a year, 5 rounds; the arguments are not passed);
#   bench_shards.py  per-sensor pipelines on postgres_fdw shards: rows per second on
#                  one server, 1 shard and 3 shards, and the bytes that cross per
#                  sensor (its own clusters and sizes: 12 sensors x 100000 readings);
#   bench_maintain.py  insert throughput with segpipe_maintain() on, against
#                  plain inserts into the same table, batches of 1, 100 and
#                  10,000 rows (its own sizes: 20,000 rows a run, 3 rounds);
#   bench_corrections.py  a correction 20 days back in a maintained table against
#                  recomputing every sensor and that sensor from its checkpoint, and
#                  in-order inserts maintained against plain (its own sizes: 100
#                  sensors x 30 days of 1-minute readings, 7 rounds);
#   bench_time.py  windows of time and the operators over time against the
#                  executor's floor (readings every 10 seconds);
#   bench_ivm.py   the comparison with pg_ivm: maintained inserts of 1, 100 and
#                  10,000 rows per statement made on the server (pgbench),
#                  updates and deletes, against plain tables and, where the
#                  server has pg_ivm, create_immv of the same daily max and
#                  mean, results checked equal first (its own sizes: 5 rounds);
#                  here without pg_ivm (Debian 12 has no package of it), then
#                  again on PostgreSQL 18 with pg_ivm in the version matrix's
#                  Debian sid chroot (bench_ivm_pg18.sh; SEGPIPE_BENCH_NO_PG18=1
#                  skips that);
#   bench_insert.sh  a maintained insert against a plain one (with the index
#                  set-up adds), one and two results tables, 1, 100 and 10,000
#                  rows a statement, 10 and then 1000 sensors (its own sizes:
#                  7 rounds);
#   bench_stages.py  three maintained stages chained (hourly, daily, monthly
#                  results tables, each the readings of the next) against one,
#                  at 100 and 10,000 rows per statement, checked equal to GROUP BY
#                  first (its own sizes: 5 rounds);
#   bench_bounds.py  the time side of test/integration/bounds.py: partition
#                  starts under windows of 1,000,000 against row_number(),
#                  and how long long queries take to end after a 1 s
#                  statement_timeout (its own sizes and 3 rounds).
#
#   test/bench/bench.sh [rows] [rounds]     defaults: 2000000 rows, 5 rounds
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/test/lib.sh"
bash "$ROOT/test/setup.sh"
build_install
pg_virtualenv -t -v "$PG_MAJOR" -c "$CLUSTER_OPTS" -o "port=$(free_port)" -o "work_mem=4MB" -o "max_parallel_workers_per_gather=0" \
	bash -c 'python3 "$0/test/bench/bench.py" "$@" && python3 "$0/test/bench/bench_keys.py" "$@" &&
		python3 "$0/test/bench/bench_agg.py" "$@" && python3 "$0/test/bench/bench_refresh.py" &&
		python3 "$0/test/bench/bench_shards.py" &&
		python3 "$0/test/bench/bench_maintain.py" && python3 "$0/test/bench/bench_corrections.py" &&
		python3 "$0/test/bench/bench_ivm.py" && python3 "$0/test/bench/bench_stages.py" &&
		bash "$0/test/bench/bench_insert.sh" 7 10 && bash "$0/test/bench/bench_insert.sh" 7 1000 &&
		python3 "$0/test/bench/bench_bounds.py" && python3 "$0/test/bench/bench_time.py" "$@"' "$ROOT" "$@"
if [ "${SEGPIPE_BENCH_NO_PG18:-}" = 1 ]; then
	echo "bench_ivm.py on PostgreSQL 18 with pg_ivm: skipped (SEGPIPE_BENCH_NO_PG18=1)"
else
	bash "$ROOT/test/bench/bench_ivm_pg18.sh"
fi
