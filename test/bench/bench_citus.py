#!/usr/bin/env python3
"""segpipe on Citus against one server: per-sensor pipelines and maintained inserts.

Its own clusters (test/citus/citus.py's set-up: a coordinator and two workers with Citus
on 127.0.0.1, and a single server), all on this machine: Citus must be installed
(test/citus/citus.sh install).  Timed in alternating rounds, medians, wall-clock from
the client:
  - emissions(pipeline_agg(ts, v, day, spec ORDER BY ts)) GROUP BY sensor_id over
    SENSORS sensors x ROWS readings over 30 days: on the single server, and through the
    coordinator (pushed down: each worker runs its shards' sensors);
  - INSERTs of 100 rows (10 sensors, 10 rows each, in order) into a maintained table
    (test/citus/maintain.py's set-up on the cluster, segpipe_maintain on the single
    server), and into one without maintained results, on both.
On one machine the servers share its cores: the figure says what Citus's distribution
costs or gains here, not what separate machines would give.

    test/bench/bench_citus.py [rows per sensor] [rounds]     defaults: 50000 rows, 12 sensors, 5 rounds
"""
import os
import statistics
import sys
import time

sys.dont_write_bytecode = True  # nothing left in test/__pycache__
TEST = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TEST)
sys.path.insert(0, os.path.join(TEST, "citus"))
sys.path.insert(0, os.path.join(TEST, "integration"))
from citus import setup  # noqa: E402
from maintain import EXACT, KEY as MKEY, SPEC as MSPEC, distribute_maintained  # noqa: E402
from pgcluster import Fleet  # noqa: E402
from shards import SPEC  # noqa: E402

ROWS = int(sys.argv[1]) if len(sys.argv) > 1 else 50000
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
SENSORS = 12
SPAN = 30 * 86400
KEY = "(ts AT TIME ZONE INTERVAL '0')::date"
T0 = 1772323200


def timed(c, sql):
    t = time.perf_counter()
    c.psql(sql)
    return time.perf_counter() - t


def main():
    fleet = Fleet("bench-citus")
    try:
        co, workers, single = setup(fleet)
        load = (f"INSERT INTO readings SELECT s, to_timestamp({T0} + i * {SPAN // ROWS}), sin(i * 0.01 + s) * 100 "
                f"FROM generate_series(1, {SENSORS}) AS s, generate_series(1, {ROWS}) AS i;\nANALYZE readings;")
        for c in (co, single):
            c.psql(load)
        query = (f"SELECT count(*) FROM (SELECT sensor_id, pipeline_agg(ts, v, {KEY}, '{SPEC}' ORDER BY ts) AS p "
                 "FROM readings GROUP BY sensor_id) AS s, emissions(s.p) AS e")
        agg = {"single": [], "cluster": []}
        for _ in range(ROUNDS):
            agg["single"].append(timed(single, query))
            agg["cluster"].append(timed(co, query))
        s, c = statistics.median(agg["single"]), statistics.median(agg["cluster"])
        n = SENSORS * ROWS
        print(f"pipeline_agg GROUP BY sensor_id, {SENSORS} sensors x {ROWS} readings ({n} rows), median of {ROUNDS}:")
        print(f"  one server {s:.2f} s ({n / s:,.0f} rows/s); coordinator and two workers {c:.2f} s "
              f"({n / c:,.0f} rows/s): {c / s:.2f} of one server's time")

        table = "CREATE TABLE mreadings (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);\n"
        plain = "CREATE TABLE preadings (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);\n"
        key = MKEY.replace("'", "''")
        single.psql(table + plain + f"SELECT segpipe_maintain('mreadings', 'sensor', 'ts', 'v', '{key}', '{MSPEC}', 'mres');")
        co.psql(table + plain + "SET citus.shard_count = 8;\nSELECT create_distributed_table('mreadings', 'sensor');\n"
                "SELECT create_distributed_table('preadings', 'sensor', colocate_with => 'mreadings');")
        distribute_maintained(co, workers)
        batches = 20
        times = {(w, t): [] for w in ("single", "cluster") for t in ("mreadings", "preadings")}
        clock = [T0]

        def batch(table):
            clock[0] += 600
            rows = ",".join(f"({s}, to_timestamp({clock[0] + i * 60}), {s * 0.5 + i})"
                            for s in range(1, 11) for i in range(10))
            return EXACT + f"INSERT INTO {table} VALUES {rows};\n"

        for _ in range(ROUNDS):
            for t in ("mreadings", "preadings"):
                sqls = [batch(t) for _ in range(batches)]
                for who, c in (("single", single), ("cluster", co)):
                    times[(who, t)].append(timed(c, "".join(sqls)) / batches)
        print(f"INSERT of 100 rows (10 sensors), median of {ROUNDS} rounds of {batches} statements, per statement:")
        for who in ("single", "cluster"):
            m, p = statistics.median(times[(who, "mreadings")]), statistics.median(times[(who, "preadings")])
            print(f"  {'one server' if who == 'single' else 'coordinator and two workers'}: maintained "
                  f"{m * 1000:.1f} ms, not maintained {p * 1000:.1f} ms ({m / p:.2f} times)")
        ms = statistics.median(times[("single", "mreadings")])
        mc = statistics.median(times[("cluster", "mreadings")])
        print(f"  maintained INSERT on the cluster: {mc / ms:.2f} of one server's time")
        got = co.psql("SELECT count(*) FROM mres")
        want = single.psql("SELECT count(*) FROM mres")
        print(f"  results: {got} on the cluster, {want} on one server")
    finally:
        fleet.close()


if __name__ == "__main__":
    main()
