#!/usr/bin/env python3
"""The tour's results-table refresh against a full recomputation (see test/bench/bench.sh).

sensor_readings holds a year of readings, one every 10 seconds (3,153,600 rows),
round-robin over a few sensors, and sensor_state / daily_results are up to date.
Each round inserts one more day (8,640 rows, not timed), then times, side by side
in alternating order: the tour's refresh (CALL refresh_daily_results(), which
runs only the new day) and a full recomputation of the same daily results from
every row (REFRESH MATERIALIZED VIEW over emissions(pipeline_agg(...)), the
tour's other form).  Medians, and their ratio: the target is <= 1/50.

    test/bench/bench_refresh.py [days] [rounds]      defaults: 365 days, 5 rounds
"""
import os
import re
import statistics
import subprocess
import sys

sys.dont_write_bytecode = True  # nothing left in test/__pycache__
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/: sptest, pgcluster
from sptest import readme_recipe  # noqa: E402
import sptest  # noqa: E402

DAYS = int(sys.argv[1]) if len(sys.argv) > 1 and int(sys.argv[1]) >= 30 else 365
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
DB = "segpipe_bench_refresh"
SENSORS = 4
STEP = 10  # seconds between readings of the table
PER_DAY = 86400 // STEP
T0 = "timestamptz '2025-01-01 00:00+00'"


def psql(sql):
    return sptest.psql(sql, DB, "bench_refresh")


def timed(sql):
    """Time of one statement, in ms, as psql's \\timing reports it (no connection set-up)."""
    out = psql("\\timing on\n" + sql)
    return float(re.findall(r"Time: ([0-9.]+) ms", out)[-1])


def add_days(first, count):
    """Readings of days first .. first + count - 1, in timestamp (and so id) order."""
    lo, hi = first * PER_DAY, (first + count) * PER_DAY - 1
    psql(f"""INSERT INTO sensor_readings (sensor_id, ts, v)
             SELECT 1 + i % {SENSORS}, {T0} + i * interval '{STEP} seconds', sin(i / 100.0) * 50 + i % 13
             FROM generate_series({lo}, {hi}) AS i""")


def main():
    subprocess.run(["dropdb", "--if-exists", DB], check=True, stderr=subprocess.DEVNULL)
    subprocess.run(["createdb", DB], check=True)
    psql("CREATE EXTENSION segpipe;\n" + readme_recipe("bench_refresh"))
    add_days(0, DAYS)
    spec = psql("SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef "
                "WHERE adrelid = 'sensor_state'::regclass AND adnum = 3")
    psql(f"""CREATE MATERIALIZED VIEW daily_all AS
             SELECT p.sensor_id, e.ts, e.key::date AS key, e.port, e.value
             FROM (SELECT sensor_id, pipeline_agg(ts, v, (ts AT TIME ZONE 'UTC')::date, {spec}
                                                  ORDER BY ts, id) AS p
                   FROM sensor_readings GROUP BY sensor_id) AS p, emissions(p.p) AS e
             WITH NO DATA""")
    psql("VACUUM ANALYZE sensor_readings")
    first = timed("CALL refresh_daily_results()")
    rows = int(psql("SELECT count(*) FROM sensor_readings"))
    print(f"{rows} readings ({DAYS} days, one every {STEP} s, {SENSORS} sensors); "
          f"the first refresh, over all of them: {first:.0f} ms")
    inc, full = [], []
    for r in range(ROUNDS):
        add_days(DAYS + r, 1)
        pair = [("inc", "CALL refresh_daily_results()"), ("full", "REFRESH MATERIALIZED VIEW daily_all")]
        for name, sql in (pair if r % 2 == 0 else pair[::-1]):
            (inc if name == "inc" else full).append(timed(sql))
    # both forms must give the same results
    diff = psql("""SELECT count(*) FROM ((SELECT * FROM daily_all EXCEPT ALL SELECT * FROM daily_results)
                   UNION ALL (SELECT * FROM daily_results EXCEPT ALL SELECT * FROM daily_all)) AS d""")
    i, f = statistics.median(inc), statistics.median(full)
    print(f"{ROUNDS} rounds, one new day ({PER_DAY} readings) each, median time (psql \\timing):")
    print(f"  refresh (new day only)     {i:8.1f} ms")
    print(f"  full recomputation         {f:8.1f} ms")
    print(f"  ratio                      1/{f / i:.0f}  (target <= 1/50)"
          f"{'' if f / i >= 50 else '  MISSED'}")
    print(f"  results differing between the two: {diff}")
    subprocess.run(["dropdb", DB], check=True)
    return 0 if diff == "0" else 1


if __name__ == "__main__":
    sys.exit(main())
