#!/usr/bin/env python3
"""Chained maintained stages: a results table of segpipe_maintain() as the
readings of the next stage, hourly -> daily -> monthly maxima, against one
stage (hourly) on the same inserts.  Prints figures and ratios; asserts
nothing about time.

The workload is bench_ivm.py's (its helpers are used): one readings table
(sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8), 10 sensors, one
reading per sensor every 3 minutes, pgbench, one client, each statement its
own transaction, synchronous_commit = off, the rows made on the server.
Modes, each on fresh tables in a schema of its own:
  index       the bare table with the (sensor_id, ts) index segpipe adds;
  1 stage     segpipe_maintain: each sensor's hourly maximum (MaxTracker,
              key date_trunc('hour', ts));
  3 stages    the same, and on its results table a second stage keeping
              each Berlin day's maximum of the hourly maxima (key: the day
              of the hour the row stands for, date_trunc('day', key,
              'Europe/Berlin')), and on that one a third keeping each Berlin
              month's maximum.

First a check on one table kept by three stages: inserts of 1, 100 and
10,000 rows per statement, late rows, updates and deletes; then every
stage's results must equal plain SQL GROUP BY over the readings (the hours,
days and months that are closed: those before a sensor's latest one at the
stage below); no figure is printed unless they do.  Then rounds of inserts
of 100 and of 10,000 rows per statement, every mode's statements cut into
turns taken in rotation (bench_ivm.interleaved), medians over the rounds and
the ratios of the medians, with the floor's spread as the machine's noise.

Connection settings come from the environment (pg_virtualenv; test/bench/bench.sh).
    test/bench/bench_stages.py [rounds] [scale]    defaults: 5 rounds, scale 1
"""
import os
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_ivm as b  # noqa: E402  (its helpers read b.DB when called)

b.DB = "segpipe_bench_stages"
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
SCALE = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
INSERTS = {100: 300, 10000: 10}
MAX = '{"type": "MaxTracker"}'
# (readings, value column, key, results) of each stage
STAGES = [("readings", "v", "date_trunc('hour', ts)", "hourly"),
          ("hourly", "value", "date_trunc('day', key, 'Europe/Berlin')", "daily"),
          ("daily", "value", "date_trunc('month', key, 'Europe/Berlin')", "monthly")]
MODES = ["index", "1 stage", "3 stages"]
b.LABEL.update({"1 stage": "segpipe: hourly", "3 stages": "segpipe: hourly, daily, monthly"})


def setup(modes):
    old = b.psql("SELECT string_agg(nspname, ', ') FROM pg_namespace WHERE nspname LIKE 'm\\_%'")
    if old:
        b.psql(f"SET client_min_messages = warning; DROP SCHEMA {old} CASCADE")
    for mode in modes:
        where = b.schema(mode)
        sql = [f"CREATE SCHEMA {where}; SET search_path = {where}, public;"
               "CREATE TABLE readings (sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8);"
               "CREATE SEQUENCE tick MINVALUE 0 START WITH 0; CREATE SEQUENCE del;"
               "CREATE INDEX ON readings (sensor_id, ts);"]
        stages = {"index": 0, "1 stage": 1, "3 stages": 3, "check": 3}[mode]
        for readings, value, key, results in STAGES[:stages]:
            sql.append(f"SELECT segpipe_maintain('{readings}', 'sensor_id', 'ts', '{value}', $k${key}$k$, "
                       f"'{MAX}', '{results}');")
        b.psql("SET client_min_messages = warning;" + "".join(sql) + "VACUUM ANALYZE readings;")
    b.psql("CHECKPOINT")


# closed periods of each stage from the readings: an hour is closed once a
# later hour has readings, a day once a later day has a closed hour, a
# month once a later month has a closed day
ORACLE = """WITH h AS (SELECT sensor_id, date_trunc('hour', ts) AS k, max(v) AS m FROM readings GROUP BY 1, 2),
hc AS (SELECT * FROM h WHERE k < (SELECT max(k) FROM h AS h2 WHERE h2.sensor_id = h.sensor_id)),
d AS (SELECT sensor_id, date_trunc('day', k, 'Europe/Berlin') AS k, max(m) AS m FROM hc GROUP BY 1, 2),
dc AS (SELECT * FROM d WHERE k < (SELECT max(k) FROM d AS d2 WHERE d2.sensor_id = d.sensor_id)),
mo AS (SELECT sensor_id, date_trunc('month', k, 'Europe/Berlin') AS k, max(m) AS m FROM dc GROUP BY 1, 2),
mc AS (SELECT * FROM mo WHERE k < (SELECT max(k) FROM mo AS m2 WHERE m2.sensor_id = mo.sensor_id))
SELECT 1 AS stage, sensor_id, k, m FROM hc UNION ALL SELECT 2, sensor_id, k, m FROM dc
UNION ALL SELECT 3, sensor_id, k, m FROM mc"""
KEPT = """SELECT 1 AS stage, sensor_id, key, value FROM hourly UNION ALL SELECT 2, sensor_id, key, value FROM daily
UNION ALL SELECT 3, sensor_id, key, value FROM monthly"""


def check(paths):
    where = b.schema("check")
    setup(["check"])
    g = 0
    # 60 days in all: March closes, and Berlin's change to summer time on
    # 29 March is crossed (T0 is 1 March)
    for n, statements in ((10000, 10), (100, 300), (1, 300), (10000, 16)):
        b.psql(f"ALTER SEQUENCE {where}.tick INCREMENT BY {n} RESTART WITH {g}")
        b.pgbench(where, paths[f"ins{n}"], statements)
        g += n * statements
    # late rows, updates and deletes: corrections flow through the stages
    b.psql(f"SET search_path = {where}, public;"
           f"INSERT INTO readings SELECT s, timestamptz '{b.T0}' + interval '9 days 7 min', 200 + s FROM generate_series(1, 10) AS s;"
           "UPDATE readings SET v = 300 WHERE sensor_id = 3 AND ts = "
           f"timestamptz '{b.T0}' + interval '20 days 6 hours';"
           "DELETE FROM readings WHERE sensor_id = 4 AND v > 100 AND ts < "
           f"timestamptz '{b.T0}' + interval '5 days';"
           "UPDATE readings SET v = v + 1 WHERE sensor_id = 5 AND ts >= "
           f"timestamptz '{b.T0}' + interval '30 days';")
    counts = b.psql(f"SET search_path = {where}, public; SELECT string_agg(c::text, ', ' ORDER BY stage) "
                    f"FROM (SELECT stage, count(*) AS c FROM ({KEPT}) AS k GROUP BY 1) AS s")
    if len(counts.split(", ")) != 3:
        sys.exit(f"bench_stages: a stage has no results ({counts})")
    b.psql(f"ALTER DATABASE {b.DB} SET search_path = {where}, public")
    count, first = b.differing(ORACLE, KEPT)
    b.psql(f"ALTER DATABASE {b.DB} RESET search_path")
    if count:
        sys.exit(f"bench_stages: the stages differ from GROUP BY over the readings in {count} rows "
                 f"(first: {first}); no figures")
    readings = b.psql(f"SELECT count(*) FROM {where}.readings")
    return (f"{readings} readings; hourly, daily and monthly results ({counts} rows) equal to GROUP BY "
            "over the readings after inserts, late rows, updates and deletes")


def main():
    import subprocess
    subprocess.run(["dropdb", "--if-exists", b.DB], check=True, stderr=subprocess.DEVNULL)
    subprocess.run(["createdb", b.DB], check=True)
    b.psql("CREATE EXTENSION segpipe")
    scale = lambda n: max(1, round(n * SCALE))  # noqa: E731
    print(f"bench_stages: PostgreSQL {b.psql('SHOW server_version')}, segpipe "
          f"{b.psql('SELECT extversion FROM pg_extension WHERE extname = $$segpipe$$')}; "
          f"{b.SENSORS} sensors, pgbench, one client, synchronous_commit = off, rows made on the server; "
          f"{ROUNDS} rounds on fresh tables, turns in rotation; medians")
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for n in (1, 100, 10000):
            paths[f"ins{n}"] = os.path.join(tmp, f"ins{n}.pgb")
            with open(paths[f"ins{n}"], "w") as f:
                f.write(b.insert_sql(n))
        print("checked: " + check(paths))
        times = {n: {m: [] for m in MODES} for n in INSERTS}
        for rnd in range(ROUNDS):
            for n, statements in INSERTS.items():
                setup(MODES)
                for m in MODES:
                    b.ticks(b.schema(m), n)
                for m, t in b.interleaved(MODES, paths[f"ins{n}"], scale(statements), b.CHUNKS, rnd).items():
                    times[n][m].append(t)
    for n, statements in INSERTS.items():
        print(f"INSERT of {n:,} rows per statement into an empty table ({scale(statements)} statements a run)")
        print(f"  {'':<32} | {'ms per statement (min..max)':<28} | {'/ index':<17} | / 1 stage")
        for m, xs in times[n].items():
            ms = f"{b.med(xs) * 1e3:.3f} ({min(xs) * 1e3:.3f}..{max(xs) * 1e3:.3f})"
            cells = [b.ratio(xs, times[n]['index']), b.ratio(xs, times[n]['1 stage']) if m == "3 stages" else ""]
            print(f"  {b.LABEL[m]:<32} | {ms:<28} | {cells[0]:<17} | {cells[1]}".rstrip())
        print(f"  noise, the floor's spread over the rounds (min/median..max/median): index "
              f"{b.spread(times[n]['index'])}, 1 stage {b.spread(times[n]['1 stage'])}")
    subprocess.run(["dropdb", b.DB], check=True)


if __name__ == "__main__":
    sys.exit(main())
