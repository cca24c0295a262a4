#!/usr/bin/env python3
"""segment_agg against built-in window functions; see test/bench/bench.sh."""
import os
import statistics
import subprocess
import sys

sys.dont_write_bytecode = True  # nothing left in test/__pycache__
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/: sptest
import sptest  # noqa: E402

ROWS = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000_000
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
DB = "segpipe_bench"


def psql(sql):
    return sptest.psql(sql, DB, "bench")


def exec_ms(query):
    # as in bench_keys.py: no JIT, and the baseline reads the heap as the
    # others do (no index-only scan), so that ratios compare the functions
    return sptest.execution_ms("SELECT count(x) FROM (%s) AS s" % query, DB, "bench",
                               "SET jit = off; SET enable_indexonlyscan = off;")


QUERIES = [
    ("row_number()  [baseline]", "SELECT row_number() OVER (ORDER BY ts) AS x FROM t"),
    ("sum() ROWS 9 PRECEDING", "SELECT sum(v) OVER (ORDER BY ts ROWS BETWEEN 9 PRECEDING AND CURRENT ROW) AS x FROM t"),
    ("lag()", "SELECT lag(v) OVER (ORDER BY ts) AS x FROM t"),
    ("segment_agg(v, k)", "SELECT segment_agg(v, k) OVER (ORDER BY ts) AS x FROM t"),
    ("segment_agg MovingAverage(10)",
     """SELECT segment_agg(v, k, '{"type": "MovingAverage", "window_size": 10}') OVER (ORDER BY ts) AS x FROM t"""),
    ("segment_agg MovingAverage(100000)",
     """SELECT segment_agg(v, k, '{"type": "MovingAverage", "window_size": 100000}') OVER (ORDER BY ts) AS x FROM t"""),
    ("segment_agg MovingAverage(100000), 1 segment",
     """SELECT segment_agg(v, 0, '{"type": "MovingAverage", "window_size": 100000}') OVER (ORDER BY ts) AS x FROM t"""),
    ("segment_agg MovingAverage(1000000), new key every row",
     """SELECT segment_agg(v, ts, '{"type": "MovingAverage", "window_size": 1000000}') OVER (ORDER BY ts) AS x FROM t"""),
    ("segment_agg StandardDeviation(10)",
     """SELECT segment_agg(v, k, '{"type": "StandardDeviation", "window_size": 10}') OVER (ORDER BY ts) AS x FROM t"""),
    ("segment_agg WindowMinMax(10)",
     """SELECT segment_agg(v, k, '{"type": "WindowMinMax", "window_size": 10, "mode": "max"}') OVER (ORDER BY ts) AS x FROM t"""),
    ("segment_agg WindowMinMax(100000)",
     """SELECT segment_agg(v, k, '{"type": "WindowMinMax", "window_size": 100000, "mode": "max"}') OVER (ORDER BY ts) AS x FROM t"""),
    ("segment_agg WindowMinMax(100000), 1 segment",
     """SELECT segment_agg(v, 0, '{"type": "WindowMinMax", "window_size": 100000, "mode": "max"}') OVER (ORDER BY ts) AS x FROM t"""),
    ("segment_agg PeakDetector(101)",
     """SELECT segment_agg(v, k, '{"type": "PeakDetector", "window_size": 101}') OVER (ORDER BY ts) AS x FROM t"""),
    ("segment_agg FIR(16 taps)",
     """SELECT segment_agg(v, k, '{"type": "FiniteImpulseResponse", "coeff": [1,2,3,4,5,6,7,8,8,7,6,5,4,3,2,1]}') OVER (ORDER BY ts) AS x FROM t"""),
    ("segment_agg float8[] 3-operator mesh",
     """SELECT segment_agg(ARRAY[v], k, '{"type": "Pipeline", "output_port_types": ["number", "number"],
        "operators": [{"type": "MovingAverage", "id": "ma", "window_size": 10},
                      {"type": "StandardDeviation", "id": "sd", "window_size": 10},
                      {"type": "CountNumber", "id": "n"}],
        "connections": [{"from": "ma", "to": "sd"}, {"from": "ma", "to": "n"}],
        "entryOperator": "ma", "outputMappings": {"sd": {"o1": "o1"}, "n": {"o1": "o2"}}}')
        OVER (ORDER BY ts) AS x FROM t"""),
]


def temp_bytes(query):
    psql("SELECT pg_stat_force_next_flush()")
    before = int(psql("SELECT temp_bytes FROM pg_stat_database WHERE datname = current_database()"))
    psql("SET enable_sort = off; SELECT count(x) FROM (%s) AS s" % query)
    psql("SELECT pg_stat_force_next_flush()")
    after = int(psql("SELECT temp_bytes FROM pg_stat_database WHERE datname = current_database()"))
    return after - before


def main():
    subprocess.run(["dropdb", "--if-exists", DB], check=True, stderr=subprocess.DEVNULL)
    subprocess.run(["createdb", DB], check=True)
    psql("CREATE EXTENSION segpipe")
    # a key that changes every 1000 rows (the "1 segment" queries use a
    # constant key instead, so that large windows fill); values with spread
    psql(f"""CREATE TABLE t AS SELECT i AS ts, sin(i) * 100 + i % 7 AS v, (i / 1000)::float8 AS k
             FROM generate_series(1, {ROWS}) AS i""")
    psql("CREATE INDEX ON t (ts)")
    psql("VACUUM ANALYZE t")
    times = {name: [] for name, _ in QUERIES}
    for r in range(ROUNDS):
        order = QUERIES if r % 2 == 0 else list(reversed(QUERIES))
        for name, q in order:
            times[name].append(exec_ms(q))
    base = statistics.median(times[QUERIES[0][0]])
    print(f"{ROWS} rows, {ROUNDS} rounds, median execution time; ratio to row_number()")
    for name, _ in QUERIES:
        m = statistics.median(times[name])
        print(f"  {name:40s} {m:9.1f} ms  x{m / base:5.2f}  ({1e6 * m / ROWS:6.1f} ns/row)")

    # The rows come in ts order from the index, so no sort spills; whatever
    # is written to disk then is the window's own tuplestore.
    print(f"\ntemporary bytes written for one partition of {ROWS} rows (work_mem 4MB, input from the index):")
    for name, q in [
        ("segment_agg MovingAverage(10)",
         """SELECT segment_agg(v, k, '{"type": "MovingAverage", "window_size": 10}') OVER (ORDER BY ts) AS x FROM t"""),
        ("segment_agg MovingAverage(10), close_at_end",
         """SELECT segment_agg(v, k, '{"type": "MovingAverage", "window_size": 10}', close_at_end => true)
            OVER (ORDER BY ts) AS x FROM t"""),
        ("row_number()", "SELECT row_number() OVER (ORDER BY ts) AS x FROM t"),
        ("count(*) OVER () (keeps the partition)", "SELECT count(*) OVER () AS x FROM t"),
    ]:
        print(f"  {name:40s} {temp_bytes(q):12d} bytes")
    # One partition of ROWS * 50 rows streamed from generate_series (no
    # table, no sort): temporary bytes and the backend's peak resident size,
    # each query in a fresh session, segment_agg beside row_number().
    big = ROWS * 50
    print(f"\none partition of {big} streamed rows, fresh session each:")
    stream = f"(SELECT generate_series(1, {big}) AS i) AS g"
    for name, expr in [
        ("segment_agg MovingAverage(10)",
         """segment_agg(i::float8, (i / 1000)::float8, '{"type": "MovingAverage", "window_size": 10}') OVER ()"""),
        ("row_number()", "row_number() OVER ()"),
    ]:
        psql("SELECT pg_stat_force_next_flush()")
        before = int(psql("SELECT temp_bytes FROM pg_stat_database WHERE datname = current_database()"))
        out = psql(f"SELECT count(x) FROM (SELECT {expr} AS x FROM {stream}) AS s; "
                   "SELECT substring(pg_read_file('/proc/self/status') from 'VmHWM:\\s+(\\d+ kB)')")
        psql("SELECT pg_stat_force_next_flush()")
        after = int(psql("SELECT temp_bytes FROM pg_stat_database WHERE datname = current_database()"))
        peak = out.strip().split("\n")[-1]
        print(f"  {name:40s} peak RSS {peak:>12s}, {after - before} temporary bytes")
    subprocess.run(["dropdb", DB], check=True)


if __name__ == "__main__":
    main()
