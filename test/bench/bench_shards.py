#!/usr/bin/env python3
"""Per-sensor pipelines on postgres_fdw shards: rows per second and bytes that travel (see test/bench/bench.sh).

Its own throwaway clusters (test/pgcluster.py): a coordinator, three shards and a single
server, all on this machine.  The coordinator has readings_1 (one foreign partition, on
shard 0) and readings_3 (three, one per shard) over the same rows, SENSORS sensors with
ROWS readings each over 30 days; the single server has them in a local table.  Timed in
alternating rounds, medians: the per-sensor daily results, emissions(pipeline_agg(...
ORDER BY ts)) GROUP BY sensor_id, with enable_partitionwise_aggregate (pushed to the
shards), on the single server, through 1 shard and through 3; and through 3 shards with a
key postgres_fdw does not ship (every row then travels).  Then the bytes that cross per
sensor (the pipeline's text, what postgres_fdw transfers) with ROWS / 10 and ROWS readings
per sensor over the same 30 days.

    test/bench/bench_shards.py [rows per sensor] [rounds]     defaults: 100000 rows, 12 sensors, 5 rounds
"""
import os
import re
import statistics
import sys

sys.dont_write_bytecode = True  # nothing left in test/__pycache__
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/: sptest, pgcluster
from pgcluster import Fleet  # noqa: E402
from shards import SPEC  # noqa: E402

ROWS = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
SENSORS = 12
SPAN = 30 * 86400
PUSHED_KEY = "(ts AT TIME ZONE INTERVAL '0')::date"
LOCAL_KEY = "(ts AT TIME ZONE 'UTC')::date"
SETTINGS = {"shared_buffers": "256MB", "work_mem": "64MB"}


def query(table, key):
    return (f"SELECT count(*) FROM (SELECT sensor_id, pipeline_agg(ts, v, {key}, '{SPEC}' ORDER BY ts) AS p "
            f"FROM {table} GROUP BY sensor_id) AS s, emissions(s.p) AS e")


def timed(cluster, sql):
    out = cluster.psql("SET enable_partitionwise_aggregate = on;\n\\timing on\n" + sql)
    return float(re.findall(r"Time: ([0-9.]+) ms", out)[-1]) / 1000


def fill(cluster, table, rows, where="true"):
    step = SPAN / rows
    cluster.psql(f"""INSERT INTO {table}
        SELECT s, timestamptz '2026-03-01 00:00+00' + i * interval '{step} seconds',
               sin(i * 0.37 + s) * 100 + (i * 7919 % 13) / 7.0
        FROM generate_series(1, {SENSORS}) AS s, generate_series(0, {rows - 1}) AS i WHERE {where};
        ANALYZE {table};""")


def main():
    fleet = Fleet("bench-shards")
    try:
        co = fleet.add("coordinator", SETTINGS)
        shards = [fleet.add(f"shard{k}", SETTINGS) for k in range(3)]
        single = fleet.add("single", SETTINGS)
        cols = "sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8"
        for k, sh in enumerate(shards):
            sql = [f"CREATE EXTENSION segpipe;"]
            for name, modulus, rows in (("r3", 3, ROWS), ("thin3", 3, ROWS // 10)):
                sql.append(f"CREATE TABLE {name}_bound ({cols}) PARTITION BY HASH (sensor_id);"
                           f"CREATE TABLE {name} PARTITION OF {name}_bound "
                           f"FOR VALUES WITH (MODULUS {modulus}, REMAINDER {k});")
            if k == 0:
                sql.append(f"CREATE TABLE r1 ({cols});")
            sh.psql("\n".join(sql))
            for name, rows in (("r3", ROWS), ("thin3", ROWS // 10)):
                fill(sh, name, rows, f"satisfies_hash_partition('{name}_bound'::regclass, 3, {k}, s)")
        fill(shards[0], "r1", ROWS)
        single.psql(f"CREATE EXTENSION segpipe; CREATE TABLE readings ({cols});")
        fill(single, "readings", ROWS)
        sql = ["CREATE EXTENSION segpipe;", "CREATE EXTENSION postgres_fdw;"]
        for k, sh in enumerate(shards):
            sql.append(f"CREATE SERVER shard{k} FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '{fleet.root}', "
                       f"port '{sh.port}', dbname 'postgres', extensions 'segpipe', async_capable 'true', "
                       f"fetch_size '10000');"
                       f"CREATE USER MAPPING FOR CURRENT_USER SERVER shard{k} OPTIONS (user 'postgres');")
        for name, remote, n in (("readings_1", "r1", 1), ("readings_3", "r3", 3), ("thin_3", "thin3", 3)):
            sql.append(f"CREATE TABLE {name} ({cols}) PARTITION BY HASH (sensor_id);")
            for k in range(n):
                sql.append(f"CREATE FOREIGN TABLE {name}_s{k} PARTITION OF {name} FOR VALUES WITH "
                           f"(MODULUS {n}, REMAINDER {k}) SERVER shard{k} OPTIONS (table_name '{remote}');")
        co.psql("\n".join(sql))

        runs = {"single server": (single, query("readings", PUSHED_KEY)),
                "1 shard": (co, query("readings_1", PUSHED_KEY)),
                "3 shards": (co, query("readings_3", PUSHED_KEY)),
                "3 shards, key not shipped (rows travel)": (co, query("readings_3", LOCAL_KEY))}
        for label, (c, q) in runs.items():
            plan = c.psql("SET enable_partitionwise_aggregate = on; EXPLAIN (VERBOSE, COSTS OFF) " + q)
            pushed = len(re.findall(r"Remote SQL: SELECT sensor_id, public\.pipeline_agg", plan))
            print(f"{label}: pipeline_agg pushed to {pushed} shard(s)"
                  f"{', asynchronous (the shards run at once)' if 'Async Foreign Scan' in plan else ''}")
        want = {c.psql(q) for c, q in runs.values()}
        if len(want) != 1:
            sys.exit(f"bench_shards: the runs disagree on the number of emissions: {want}")
        times = {label: [] for label in runs}
        for _ in range(ROUNDS):
            for label, (c, q) in runs.items():
                times[label].append(timed(c, q))
        total = SENSORS * ROWS
        base = statistics.median(times["single server"])
        print(f"per-sensor daily results, {SENSORS} sensors x {ROWS} readings = {total} rows, "
              f"median of {ROUNDS} rounds on {os.cpu_count()} CPUs:")
        for label, t in times.items():
            m = statistics.median(t)
            print(f"  {label}: {m:.3f} s, {total / m:,.0f} rows/s, {m / base:.2f} x the single server")

        size = ("SET enable_partitionwise_aggregate = on; SELECT sum(octet_length(p::text)), "
                "max(octet_length(p::text)), min(octet_length(p::text)) FROM "
                f"(SELECT sensor_id, pipeline_agg(ts, v, {PUSHED_KEY}, '{SPEC}' ORDER BY ts) AS p "
                "FROM TABLE GROUP BY sensor_id) AS s")
        rowbytes = co.psql("SELECT sum(octet_length(sensor_id::text) + octet_length(ts::text) "
                           "+ octet_length(v::text)) / count(DISTINCT sensor_id) FROM readings_3")
        for label, table, rows in (("thin", "thin_3", ROWS // 10), ("full", "readings_3", ROWS)):
            s, hi, lo = co.psql(size.replace("TABLE", table)).split("|")
            print(f"  bytes that cross per sensor, {rows} readings in 30 days: pipeline text {lo}..{hi} "
                  f"(total for {SENSORS} sensors {s})")
        print(f"  for comparison, the text of the rows themselves (what travels when the key is not "
              f"shipped): {int(float(rowbytes)):,} bytes per sensor at {ROWS} readings")
    finally:
        fleet.close()


if __name__ == "__main__":
    main()
