#!/usr/bin/env python3
"""pipeline_agg against the aggregate floor, sum(v), max(k), over the same
ordered rows (see test/bench/bench.sh); then its memory over a stream of rows.

Two forms: the rows ordered by a subquery (from the index on ts), and the
aggregate's own ORDER BY (a sort per call, in both queries).  Then each form
that sorts in the call (ORDER BY inside pipeline_agg's call, and the
ordered-set form WITHIN GROUP) against the floor sum(v ORDER BY ts),
max(k ORDER BY ts), all of them run in each round (interleaved, the order
reversed every other round), with the floor's own spread beside the ratios:
the ratio of medians, and the lowest and highest ratio of one round's pair.
PostgreSQL 16 and later may sort below the aggregate instead (the plan then
has a Sort node under it; enable_presorted_aggregate), for the floor as for
pipeline_agg: the last column says where the sort is."""
import os
import statistics
import subprocess
import sys

sys.dont_write_bytecode = True  # nothing left in test/__pycache__
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/: sptest
import sptest  # noqa: E402

ROWS = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000_000
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
DB = "segpipe_bench_agg"
SPEC = '{"type": "MovingAverage", "window_size": 10}'


def psql(sql):
    return sptest.psql(sql, DB, "bench_agg")


def exec_ms(query, settings=""):
    return sptest.execution_ms(query, DB, "bench_agg", settings)


ORDERED = "(SELECT * FROM t ORDER BY ts) AS s"
PAIRS = [
    ("ordered input",
     f"SELECT sum(v), max(k) FROM {ORDERED}",
     f"SELECT pipeline_agg(ts, v, k, '{SPEC}') FROM {ORDERED}"),
    ("ORDER BY in the call",
     "SELECT sum(v ORDER BY ts), max(k ORDER BY ts) FROM t",
     f"SELECT pipeline_agg(ts, v, k, '{SPEC}' ORDER BY ts) FROM t"),
    ("ordered input, Identity",
     f"SELECT sum(v), max(k) FROM {ORDERED}",
     f"""SELECT pipeline_agg(ts, v, k, '{{"type": "Identity"}}') FROM {ORDERED}"""),
    ("ordered input, text keys",
     f"SELECT sum(v), max(k::text) FROM {ORDERED}",
     f"SELECT pipeline_agg(ts, v, k::text, '{SPEC}') FROM {ORDERED}"),
]


# the forms that sort in the call, each against the ORDER BY floor
# (text keys against a floor of text keys)
SORTING_FLOORS = {
    "float8 keys": "SELECT sum(v ORDER BY ts), max(k ORDER BY ts) FROM t",
    "text keys": "SELECT sum(v ORDER BY ts), max(k::text ORDER BY ts) FROM t",
}
SORTING = [
    ("ORDER BY ts", "float8 keys", f"SELECT pipeline_agg(ts, v, k, '{SPEC}' ORDER BY ts) FROM t"),
    ("ORDER BY ts, v", "float8 keys", f"SELECT pipeline_agg(ts, v, k, '{SPEC}' ORDER BY ts, v) FROM t"),
    ("ORDER BY ts, float8[] values", "float8 keys",
     f"SELECT pipeline_agg(ts, ARRAY[v], k, '{SPEC}' ORDER BY ts) FROM t"),
    ("WITHIN GROUP (ORDER BY ts, v, k)", "float8 keys",
     f"SELECT pipeline_agg('{SPEC}') WITHIN GROUP (ORDER BY ts, v, k) FROM t"),
    ("WITHIN GROUP, float8[] values", "float8 keys",
     f"SELECT pipeline_agg('{SPEC}') WITHIN GROUP (ORDER BY ts, ARRAY[v], k) FROM t"),
    ("ORDER BY ts", "text keys", f"SELECT pipeline_agg(ts, v, k::text, '{SPEC}' ORDER BY ts) FROM t"),
    ("WITHIN GROUP (ORDER BY ts, v, k)", "text keys",
     f"SELECT pipeline_agg('{SPEC}') WITHIN GROUP (ORDER BY ts, v, k::text) FROM t"),
]


# with the index on ts, and without it: from 16 on, the planner may read the
# index in order for an ORDER BY inside the call, and sort below the
# aggregate without it
VARIANTS = [
    ("with the index on ts", ""),
    ("index scans off", "SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;"),
]


def sort_place(query, settings):
    """Where the plan orders the rows: a Sort node below the aggregate, the
    index read in order, or in the aggregate (its own sort)."""
    plan = psql(settings + "\nEXPLAIN (COSTS OFF) " + query)
    if "Sort" in plan:
        return "Sort below the Agg"
    if "Index" in plan:
        return "index order"
    return "in the Agg"


def sorting_forms():
    # the results agree before anything is timed: the forms over fully
    # ordered rows give one pipeline
    same = psql(f"""SELECT pipeline_agg('{SPEC}') WITHIN GROUP (ORDER BY ts, v, k)
                     = pipeline_agg(ts, v, k, '{SPEC}' ORDER BY ts, v, k) FROM t""")
    if same != "t":
        sys.exit("bench_agg: the WITHIN GROUP form and the ORDER BY form differ")
    times = {}
    queries = [(v + "/" + name, settings, q) for v, settings in VARIANTS
               for name, q in list(SORTING_FLOORS.items()) + [(n + ", " + k, q) for n, k, q in SORTING]]
    for r in range(ROUNDS):
        for name, settings, q in (queries if r % 2 == 0 else list(reversed(queries))):
            times.setdefault(name, []).append(exec_ms(q, settings))
    print(f"\nsorting in the call ({ROWS} rows, {ROUNDS} interleaved rounds, work_mem {psql('SHOW work_mem')}):")
    for v, settings in VARIANTS:
        print(f"  {v}")
        for keys, fq in SORTING_FLOORS.items():
            floor = times[v + "/" + keys]
            f = statistics.median(floor)
            print(f"    floor, {keys}: {fq}")
            print(f"      {f:8.1f} ms, its spread {min(floor) / f:4.2f}..{max(floor) / f:4.2f} of its median;"
                  f" ordered: {sort_place(fq, settings)}")
            for name, k, q in SORTING:
                if k != keys:
                    continue
                a = statistics.median(times[v + "/" + name + ", " + keys])
                rounds = [x / y for x, y in zip(times[v + "/" + name + ", " + keys], floor)]
                print(f"      {name:32s} {a:8.1f} ms  ratio {a / f:4.2f}"
                      f"  (rounds {min(rounds):4.2f}..{max(rounds):4.2f})  ordered: {sort_place(q, settings)}")


def main():
    subprocess.run(["dropdb", "--if-exists", DB], check=True, stderr=subprocess.DEVNULL)
    subprocess.run(["createdb", DB], check=True)
    psql("CREATE EXTENSION segpipe")
    # a key that changes every 1000 rows: 2,000 emissions for 2M rows
    psql(f"""CREATE TABLE t AS SELECT '2026-01-01'::timestamptz + i * interval '1 second' AS ts,
             sin(i) * 100 + i % 7 AS v, (i / 1000)::float8 AS k
             FROM generate_series(1, {ROWS}) AS i""")
    psql("CREATE INDEX ON t (ts)")
    psql("VACUUM ANALYZE t")
    times = {}
    for r in range(ROUNDS):
        for name, floor, agg in (PAIRS if r % 2 == 0 else list(reversed(PAIRS))):
            for label, q in ((name + ": floor", floor), (name + ": pipeline_agg", agg)):
                times.setdefault(label, []).append(exec_ms(q))
    print(f"{ROWS} rows, {ROUNDS} rounds, median execution time")
    for name, _, _ in PAIRS:
        f = statistics.median(times[name + ": floor"])
        a = statistics.median(times[name + ": pipeline_agg"])
        print(f"  {name:28s} floor {f:8.1f} ms  pipeline_agg {a:8.1f} ms  ratio {a / f:4.2f}"
              f"  ({1e6 * a / ROWS:5.1f} ns/row)")
    sorting_forms()

    # memory: rows streamed from generate_series, fresh session each, beside
    # the floor over the same stream (the function scan's own memory grows
    # with the rows); a key changing every million rows keeps 10 emissions
    big = ROWS * 10
    print(f"\n{big} streamed rows, fresh session each, peak RSS:")
    for name, query in [
        ("floor sum(v), max(k), max(ts)",
         f"""SELECT sum(i::float8), max(i / 1000000), max('2026-01-01'::timestamptz + i * interval '1 second')
               FROM generate_series(1, {big}) AS i"""),
        ("pipeline_agg, key changes every 1M rows",
         f"""SELECT pipeline_rows(pipeline_agg('2026-01-01'::timestamptz + i * interval '1 second',
               i::float8, i / 1000000, '{SPEC}')) FROM generate_series(1, {big}) AS i"""),
        # its own sort spills past work_mem: memory stays bounded
        ("pipeline_agg WITHIN GROUP, the same rows",
         f"""SELECT pipeline_rows(pipeline_agg('{SPEC}') WITHIN GROUP (ORDER BY
               '2026-01-01'::timestamptz + i * interval '1 second', i::float8, i / 1000000))
               FROM generate_series(1, {big}) AS i"""),
    ]:
        out = psql(query + "; SELECT substring(pg_read_file('/proc/self/status') from 'VmHWM:\\s+(\\d+ kB)')")
        print(f"  {name:40s} {out.strip().split(chr(10))[-1]:>12s}")
    subprocess.run(["dropdb", DB], check=True)


if __name__ == "__main__":
    main()
