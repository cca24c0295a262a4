#!/bin/bash
# The maintained insert trigger's argument layouts side by side, on one
# build: layout 1 (results tables set up by 0.6.0 and 0.7.0: the sensors
# inserted or locked by one statement, their states read by another),
# layout 2 (0.8.0: the states of the sensors that have one locked and read
# by one statement, saved by an UPDATE) and layout 3 (0.9.0: the same, the
# states written in place of the rows locked), with plain inserts into a
# table with the (sensor_id, ts) index as the floor.  The runs the trigger
# keeps between statements (src/server/maintain_cache.h) serve every
# layout alike.  pgbench, one client, rows made on the server,
# synchronous_commit = off, daily MaxTracker; runs of 300 statements of 100
# rows, taken in rotation (plain, layout 1, 2, 3) so that a slow moment
# falls on each alike.  Prints each run's ms per statement, the medians and
# the ratios; asserts nothing about time.
#   test/bench/bench_insert_layout.sh [rounds] [sensors]    defaults: 8, 10
# Run inside a cluster with segpipe installed (pg_virtualenv; bench.sh).
set -euo pipefail
ROUNDS=${1:-8}
SENSORS=${2:-10}
DB=segpipe_bench_layout
SPEC='{"type": "Pipeline", "id": "daily_max", "operators": [{"type": "MaxTracker", "id": "max"}]}'
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"; dropdb --if-exists "$DB" >/dev/null 2>&1 || true' EXIT
dropdb --if-exists "$DB" >/dev/null 2>&1 || true
createdb "$DB"
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" >/dev/null <<SQL
CREATE EXTENSION segpipe VERSION '0.7.0';
CREATE TABLE r1 (sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8);
CREATE TABLE r2 (sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8);
CREATE TABLE r3 (sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8);
CREATE TABLE rp (sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8);
CREATE INDEX ON rp (sensor_id, ts);
SELECT segpipe_maintain('r1', 'sensor_id', 'ts', 'v', \$k\$(ts AT TIME ZONE 'UTC')::date\$k\$, '$SPEC', 'd1');
ALTER EXTENSION segpipe UPDATE TO '0.8.0';
SELECT segpipe_maintain('r2', 'sensor_id', 'ts', 'v', \$k\$(ts AT TIME ZONE 'UTC')::date\$k\$, '$SPEC', 'd2');
ALTER EXTENSION segpipe UPDATE TO '0.9.0';
SELECT segpipe_maintain('r3', 'sensor_id', 'ts', 'v', \$k\$(ts AT TIME ZONE 'UTC')::date\$k\$, '$SPEC', 'd3');
ALTER DATABASE $DB SET synchronous_commit = off;
CREATE SEQUENCE t1 INCREMENT 100; CREATE SEQUENCE t2 INCREMENT 100; CREATE SEQUENCE t3 INCREMENT 100;
CREATE SEQUENCE tp INCREMENT 100;
SQL
layouts=$(psql -X -At -d "$DB" -c "SELECT string_agg(tgname || ' ' || split_part(encode(tgargs, 'escape'), '\\000', 1), ', ' ORDER BY tgname) FROM pg_trigger WHERE tgname IN ('d1_insert', 'd2_insert', 'd3_insert')")
echo "triggers: $layouts; $SENSORS sensors, 100 rows a statement, $ROUNDS rounds of 300 statements"
for t in p 1 2 3; do
	echo "INSERT INTO r$t (sensor_id, ts, v) SELECT g % $SENSORS + 1, timestamptz '2026-03-01 00:00+00' + (g / $SENSORS) * interval '3 min', ((g * 7919) % 1000) / 8.0::float8 FROM (SELECT nextval('t$t') AS b) AS b, generate_series(b.b, b.b + 99) AS g;" > "$DIR/$t.sql"
done
for r in $(seq 1 "$ROUNDS"); do
	for t in p 1 2 3; do
		echo "$t $(pgbench -n -c1 -t 300 -f "$DIR/$t.sql" "$DB" 2>&1 | awk '/latency average/ {print $4}')"
	done
done > "$DIR/runs"
python3 - "$DIR/runs" <<'PY'
import statistics, sys
d = {"p": [], "1": [], "2": [], "3": []}
for line in open(sys.argv[1]):
    t, ms = line.split()
    d[t].append(float(ms))
names = {"p": "plain, with the index", "1": "layout 1 (0.7.0)", "2": "layout 2 (0.8.0)",
         "3": "layout 3 (0.9.0)"}
for t in "p123":
    print("%-22s median %.3f ms  runs %s" % (names[t], statistics.median(d[t]), " ".join("%.3f" % x for x in d[t])))
def ratio(a, b):
    r = [x / y for x, y in zip(d[a], d[b])]
    return "%.3f (%.3f..%.3f)" % (statistics.median(r), min(r), max(r))
print("layout 1 / plain %s; layout 2 / plain %s; layout 3 / plain %s" % (ratio("1", "p"), ratio("2", "p"), ratio("3", "p")))
print("layout 2 / layout 1 %s; layout 3 / layout 2 %s" % (ratio("2", "1"), ratio("3", "2")))
spread = [x / statistics.median(d["p"]) for x in d["p"]]
print("noise, the floor's spread (min/median..max/median): %.2f..%.2f" % (min(spread), max(spread)))
PY
