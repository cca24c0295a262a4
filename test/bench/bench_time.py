#!/usr/bin/env python3
"""Windows of time against the executor's floor: segment_agg(ts, v, day,
MovingAverage over 5 minutes) over readings every 10 seconds, beside the same
with a window of 30 rows (the same rows at this cadence), and the floor:
row_number() over the same rows, in the same order, with the key computed
and consumed (as in bench_keys.py).  Also the operators over time (TimeWeightedAverage,
Integral, CounterIncrease), TimeWeightedAverage with "carry" beside the same
without it (daily segments; the ratio is printed), and session_key.  Queries run in alternating
order; medians and their ratios to the floor are printed (no assertion).

Settings as in bench_keys.py: jit off, rows in ts order from an index, no
index-only scan.  Run inside a cluster with segpipe installed, e.g.
    pg_virtualenv -t -v 15 python3 test/bench/bench_time.py [rows] [rounds]
defaults: 2000000 rows, 7 rounds.
"""
import os
import statistics
import subprocess
import sys

sys.dont_write_bytecode = True  # nothing left in test/__pycache__
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/: sptest
import sptest  # noqa: E402

ROWS = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000_000
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 7
DB = "segpipe_bench_time"
KEY = "(date_part('epoch', ts) / 86400)::int"

QUERIES = [
    ("floor: row_number(), the key computed and consumed",
     f"SELECT count(x), count(k) FROM (SELECT row_number() OVER (ORDER BY ts) AS x, "
     f"{KEY} AS k FROM r) AS s"),
    ("MovingAverage window 5 minutes",
     f"""SELECT count(x) FROM (SELECT segment_agg(ts, v, {KEY}, '{{"type": "MovingAverage", "window": "5 minutes"}}')
         OVER (ORDER BY ts) AS x FROM r) AS s"""),
    ("MovingAverage window_size 30 (with ts)",
     f"""SELECT count(x) FROM (SELECT segment_agg(ts, v, {KEY}, '{{"type": "MovingAverage", "window_size": 30}}')
         OVER (ORDER BY ts) AS x FROM r) AS s"""),
    ("MovingAverage window_size 30 (without ts)",
     f"""SELECT count(x) FROM (SELECT segment_agg(v, {KEY}, '{{"type": "MovingAverage", "window_size": 30}}')
         OVER (ORDER BY ts) AS x FROM r) AS s"""),
    ("WindowMinMax window 5 minutes",
     f"""SELECT count(x) FROM (SELECT segment_agg(ts, v, {KEY}, '{{"type": "WindowMinMax", "window": "5 minutes", "mode": "max"}}')
         OVER (ORDER BY ts) AS x FROM r) AS s"""),
    ("TimeWeightedAverage linear",
     f"""SELECT count(x) FROM (SELECT segment_agg(ts, v, {KEY}, '{{"type": "TimeWeightedAverage", "method": "linear"}}')
         OVER (ORDER BY ts) AS x FROM r) AS s"""),
    ("TimeWeightedAverage locf",
     f"""SELECT count(x) FROM (SELECT segment_agg(ts, v, {KEY}, '{{"type": "TimeWeightedAverage", "method": "locf"}}')
         OVER (ORDER BY ts) AS x FROM r) AS s"""),
    ("TimeWeightedAverage locf, carried",
     f"""SELECT count(x) FROM (SELECT segment_agg(ts, v, {KEY}, '{{"type": "TimeWeightedAverage", "method": "locf", "carry": "locf"}}')
         OVER (ORDER BY ts) AS x FROM r) AS s"""),
    ("TimeWeightedAverage linear, carried",
     f"""SELECT count(x) FROM (SELECT segment_agg(ts, v, {KEY}, '{{"type": "TimeWeightedAverage", "method": "linear", "carry": "linear"}}')
         OVER (ORDER BY ts) AS x FROM r) AS s"""),
    ("Integral",
     f"""SELECT count(x) FROM (SELECT segment_agg(ts, v, {KEY}, '{{"type": "Integral"}}')
         OVER (ORDER BY ts) AS x FROM r) AS s"""),
    ("CounterIncrease",
     f"""SELECT count(x) FROM (SELECT segment_agg(ts, v, {KEY}, '{{"type": "CounterIncrease"}}')
         OVER (ORDER BY ts) AS x FROM r) AS s"""),
    ("session_key 1 minute",
     "SELECT count(x) FROM (SELECT session_key(ts, interval '1 minute') OVER (ORDER BY ts) AS x FROM r) AS s"),
]


def main():
    subprocess.run(["dropdb", "--if-exists", DB], check=True, stderr=subprocess.DEVNULL)
    subprocess.run(["createdb", DB], check=True)
    sptest.psql("CREATE EXTENSION segpipe", DB, "bench_time")
    sptest.psql(f"""CREATE TABLE r AS SELECT timestamptz '2026-01-01 00:00+00' + i * interval '10 seconds' AS ts,
                           sin(i) * 100 + i % 7 AS v FROM generate_series(1, {ROWS}) AS i;
                    CREATE INDEX ON r (ts); VACUUM ANALYZE r;""", DB, "bench_time")
    times = {name: [] for name, _ in QUERIES}
    for k in range(ROUNDS):
        for name, q in (QUERIES if k % 2 == 0 else list(reversed(QUERIES))):
            times[name].append(sptest.execution_ms(q, DB, "bench_time",
                                                   "SET jit = off; SET enable_indexonlyscan = off;"))
    base = statistics.median(times[QUERIES[0][0]])
    print(f"{ROWS} readings every 10 s, {ROUNDS} rounds: median execution time, ratio to the floor")
    for name, _ in QUERIES:
        m = statistics.median(times[name])
        print(f"  {name:50s} {m:9.1f} ms  x{m / base:5.2f}")
    # carry against the same operator without it (the goal: within 1.10)
    for carried, plain in (("TimeWeightedAverage locf, carried", "TimeWeightedAverage locf"),
                           ("TimeWeightedAverage linear, carried", "TimeWeightedAverage linear")):
        print(f"  {carried} / without carry: x{statistics.median(times[carried]) / statistics.median(times[plain]):5.3f}")
    subprocess.run(["dropdb", DB], check=True)


if __name__ == "__main__":
    main()
