#!/bin/bash
# What a maintained insert costs: plain inserts into a table with the
# (sensor_id, ts) index set-up adds (the floor), into the same table with a
# statement trigger that does nothing but has a transition table (what any
# such trigger costs, segpipe's included: PostgreSQL copies every row into
# it), into readings with one results table, and into readings with two, at
# 1, 100 and 10,000 rows a statement.  pgbench, one client, rows made on the server,
# synchronous_commit = off, a daily MaxTracker over SENSORS sensors; runs
# taken in rotation (plain, nothing, one, two) so that a slow moment falls on each
# alike.  Prints each run's ms per statement, the medians and the ratios to
# the floor; asserts nothing about time.
#   test/bench/bench_insert.sh [rounds] [sensors]    defaults: 7, 10
# Run inside a cluster with segpipe installed (pg_virtualenv; bench.sh).
set -euo pipefail
ROUNDS=${1:-7}
SENSORS=${2:-10}
DB=segpipe_bench_insert
SPEC='{"type": "Pipeline", "id": "daily_max", "operators": [{"type": "MaxTracker", "id": "max"}]}'
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"; dropdb --if-exists "$DB" >/dev/null 2>&1 || true' EXIT
dropdb --if-exists "$DB" >/dev/null 2>&1 || true
createdb "$DB"
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" >/dev/null <<SQL
SET client_min_messages = warning;
CREATE EXTENSION segpipe;
CREATE TABLE rp (sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8);
CREATE INDEX ON rp (sensor_id, ts);
CREATE TABLE rt (sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8);
CREATE INDEX ON rt (sensor_id, ts);
CREATE FUNCTION nothing() RETURNS trigger LANGUAGE plpgsql AS \$\$BEGIN RETURN NULL; END\$\$;
CREATE TRIGGER nothing AFTER INSERT ON rt REFERENCING NEW TABLE AS n FOR EACH STATEMENT EXECUTE FUNCTION nothing();
CREATE TABLE r1 (sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8);
CREATE TABLE r2 (sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('r1', 'sensor_id', 'ts', 'v', \$k\$(ts AT TIME ZONE 'UTC')::date\$k\$, '$SPEC', 'd1');
SELECT segpipe_maintain('r2', 'sensor_id', 'ts', 'v', \$k\$(ts AT TIME ZONE 'UTC')::date\$k\$, '$SPEC', 'd2a');
SELECT segpipe_maintain('r2', 'sensor_id', 'ts', 'v', \$k\$(ts AT TIME ZONE 'UTC')::date\$k\$, '$SPEC', 'd2b');
ALTER DATABASE $DB SET synchronous_commit = off;
CREATE SEQUENCE sp; CREATE SEQUENCE st; CREATE SEQUENCE s1; CREATE SEQUENCE s2;
SQL
# statements per run at each size: about a second of work for the floor
declare -A STATEMENTS=([1]=2000 [100]=300 [10000]=6)
for n in 1 100 10000; do
	for t in p t 1 2; do
		echo "SELECT setval('s$t', nextval('s$t') + $n - 1) AS e \\gset
INSERT INTO r$t (sensor_id, ts, v) SELECT g % $SENSORS + 1, timestamptz '2026-03-01 00:00+00' + (g / $SENSORS) * interval '3 min', ((g::bigint * 7919) % 1000) / 8.0::float8 FROM generate_series(:e - $n + 1, :e) AS g;" > "$DIR/$t-$n.sql"
	done
done
for r in $(seq 1 "$ROUNDS"); do
	for n in 1 100 10000; do
		for t in p t 1 2; do
			echo "$n $t $(pgbench -n -c1 -t "${STATEMENTS[$n]}" -f "$DIR/$t-$n.sql" "$DB" 2>&1 | awk '/latency average/ {print $4}')"
		done
	done
done > "$DIR/runs"
python3 - "$DIR/runs" "$SENSORS" "$ROUNDS" <<'PY'
import statistics, sys
d = {}
for line in open(sys.argv[1]):
    n, t, ms = line.split()
    d.setdefault((n, t), []).append(float(ms))
print("%s sensors, %s rounds; ms per statement (median of the runs), ratios to the floor (median, min..max over rounds)" % (sys.argv[2], sys.argv[3]))
for n in ("1", "100", "10000"):
    def ratio(t):
        r = [x / y for x, y in zip(d[(n, t)], d[(n, "p")])]
        return "%.3f (%.3f..%.3f)" % (statistics.median(r), min(r), max(r))
    print("%6s rows: plain %.3f ms, a trigger doing nothing %.3f ms, one results table %.3f ms, two %.3f ms; "
          "nothing / plain %s, one / plain %s, two / plain %s"
          % (n, statistics.median(d[(n, "p")]), statistics.median(d[(n, "t")]), statistics.median(d[(n, "1")]),
             statistics.median(d[(n, "2")]), ratio("t"), ratio("1"), ratio("2")))
PY
