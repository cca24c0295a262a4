#!/usr/bin/python3
"""What maintenance costs the backend's CPU (/proc/<pid>/schedstat: time on a
core, in nanoseconds), not the wall clock: on a shared machine the wall
clock moves with other work by more than the differences measured here.
Prints figures and ratios; asserts nothing about time.

The workload of bench_insert.sh: readings (sensor_id int, ts timestamptz,
v float8), 10 sensors, one reading each every 3 minutes, rows made on the
server (INSERT ... SELECT ... generate_series), one statement a transaction,
synchronous_commit = off, a daily MaxTracker keyed by
(ts AT TIME ZONE 'UTC')::date.  One connection, tables taken in rotation
within each round (plain with the (sensor_id, ts) index, one results table,
two), the first round not counted:
  inserts of 1, 100 and 10,000 rows a statement;
  then UPDATE (v + 0.125) and DELETE of one reading of the open day (of a
  random sensor, among the last 200 of each table), maintained against the
  plain table with the index.
Per size: the median over the rounds of the backend's CPU time per
statement, and the median (min..max) of the rounds' ratios.  The server runs
on this machine (it reads /proc of the server's backend).
    test/bench/bench_cpu.py [rounds]    default 5
Connection settings come from the environment (PG* variables).
"""
import random
import statistics
import sys

import psycopg

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
DB = "segpipe_bench_cpu"
SPEC = '{"type": "Pipeline", "id": "daily_max", "operators": [{"type": "MaxTracker", "id": "max"}]}'
KEY = "$k$(ts AT TIME ZONE 'UTC')::date$k$"
STATEMENTS = {1: 1500, 100: 300, 10000: 6}
UPDATES, DELETES = 200, 100


def main():
    admin = psycopg.connect(dbname="postgres", autocommit=True)
    admin.execute(f"DROP DATABASE IF EXISTS {DB}")
    admin.execute(f"CREATE DATABASE {DB}")
    c = psycopg.connect(dbname=DB, autocommit=True)
    c.execute("SET client_min_messages = warning")
    c.execute("CREATE EXTENSION segpipe")
    for t in ("rp", "r1", "r2"):
        c.execute(f"CREATE TABLE {t} (sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8)")
    c.execute("CREATE INDEX ON rp (sensor_id, ts)")
    c.execute(f"SELECT segpipe_maintain('r1', 'sensor_id', 'ts', 'v', {KEY}, '{SPEC}', 'd1')")
    c.execute(f"SELECT segpipe_maintain('r2', 'sensor_id', 'ts', 'v', {KEY}, '{SPEC}', 'd2a')")
    c.execute(f"SELECT segpipe_maintain('r2', 'sensor_id', 'ts', 'v', {KEY}, '{SPEC}', 'd2b')")
    c.execute("SET synchronous_commit = off")
    pid = c.execute("SELECT pg_backend_pid()").fetchone()[0]

    def cpu():
        with open(f"/proc/{pid}/schedstat") as f:
            return int(f.read().split()[0])

    last = {"rp": 0, "r1": 0, "r2": 0}

    def insert(t, n):
        e = last[t] + n
        last[t] = e
        c.execute(f"INSERT INTO {t} (sensor_id, ts, v) SELECT g % 10 + 1, "
                  f"timestamptz '2026-03-01 00:00+00' + (g / 10) * interval '3 min', "
                  f"((g::bigint * 7919) % 1000) / 8.0::float8 FROM generate_series({e - n + 1}, {e}) AS g")

    def reading(t, rnd):
        g = last[t] - rnd.randrange(1, 200)
        return f"sensor_id = {g % 10 + 1} AND ts = timestamptz '2026-03-01 00:00+00' + ({g} / 10) * interval '3 min'"

    ms = {}
    for r in range(ROUNDS + 1):
        for n in (1, 100, 10000):
            for t in ("rp", "r1", "r2"):
                a = cpu()
                for _ in range(STATEMENTS[n]):
                    insert(t, n)
                if r > 0:
                    ms.setdefault((n, t), []).append((cpu() - a) / STATEMENTS[n] / 1e6)
    rnd = random.Random(1)
    for r in range(ROUNDS + 1):
        for t in ("rp", "r1"):
            a = cpu()
            for _ in range(UPDATES):
                c.execute(f"UPDATE {t} SET v = v + 0.125 WHERE {reading(t, rnd)}")
            b = cpu()
            for _ in range(DELETES):
                c.execute(f"DELETE FROM {t} WHERE {reading(t, rnd)}")
            if r > 0:
                ms.setdefault(("update", t), []).append((b - a) / UPDATES / 1e6)
                ms.setdefault(("delete", t), []).append((cpu() - b) / DELETES / 1e6)
    c.close()
    admin.execute(f"DROP DATABASE {DB}")

    def ratio(k, t):
        x = [a / b for a, b in zip(ms[(k, t)], ms[(k, "rp")])]
        return f"{statistics.median(x):.3f} ({min(x):.3f}..{max(x):.3f})"

    print(f"backend CPU ms a statement, median of {ROUNDS} rounds; ratios to plain with the index: "
          "median (min..max) of the rounds'")
    for n in (1, 100, 10000):
        print(f"{n:>6} rows: plain {statistics.median(ms[(n, 'rp')]):.4f}, one results table "
              f"{statistics.median(ms[(n, 'r1')]):.4f}, two {statistics.median(ms[(n, 'r2')]):.4f}; "
              f"one / plain {ratio(n, 'r1')}, two / plain {ratio(n, 'r2')}")
    for k in ("update", "delete"):
        print(f"{k:>6} of one reading: plain {statistics.median(ms[(k, 'rp')]):.4f}, one results table "
              f"{statistics.median(ms[(k, 'r1')]):.4f}; one / plain {ratio(k, 'r1')}")


if __name__ == "__main__":
    sys.exit(main())
