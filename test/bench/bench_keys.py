#!/usr/bin/env python3
"""segment_agg's cost per key type, against the executor's floor, and
against the plain SQL a user writes today for the same results.

The floor is row_number() over the same rows, in the same order, with the
same key expression computed and consumed.  Each key runs segment_agg with
MovingAverage(10) over readings every 10 seconds; queries run in
alternating order, and the medians are compared.  Then close_at_end and
segment_key (bench.py counts the temporary bytes of close_at_end's lookahead).

Settings for every query: jit off, no sort (the rows come in ts order from an
index), no index-only scan (so that the floor reads the heap as segment_agg
does).  Run inside a cluster with segpipe installed (PGHOST etc. set), e.g.
    pg_virtualenv -t -v 15 python3 test/bench/bench_keys.py [rows] [rounds]
defaults: 2000000 rows, 7 rounds.
"""
import os
import re
import statistics
import subprocess
import sys

sys.dont_write_bytecode = True  # nothing left in test/__pycache__
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/: sptest
import sptest  # noqa: E402

ROWS = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000_000
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 7
DB = "segpipe_bench_keys"
SPEC = """'{"type": "MovingAverage", "window_size": 10}'"""

KEYS = [
    ("float8 day", "floor(date_part('epoch', ts) / 86400)"),
    ("Berlin day (timestamptz)", "date_trunc('day', ts, 'Europe/Berlin')"),
    ("date column", "day"),
    ("int8 column", "shift"),
    ("text column", "state"),
]


def psql(sql):
    return sptest.psql(sql, DB, "bench_keys")


SETTINGS = ("SET jit = off", "SET enable_sort = off", "SET enable_indexonlyscan = off")


def on_cpu_ns():
    return "SELECT split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)"


def exec_ms(query):
    """Execution time and the backend's time on a CPU, both in ms.  The
    index gives the rows in ts order (no sort), both plans read the heap (no
    index-only scan for the floor), no JIT.  Time on a CPU is the steadier
    figure on a busy machine."""
    args = ["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", DB]
    for c in SETTINGS + (on_cpu_ns(), "EXPLAIN (ANALYZE, TIMING OFF) " + query, on_cpu_ns()):
        args += ["-c", c]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout.split("\n")
    cpu = [int(l) for l in out if l.strip().isdigit()]
    wall = float(re.search(r"Execution Time: ([0-9.]+) ms", "\n".join(out)).group(1))
    return wall, (cpu[1] - cpu[0]) / 1e6


def floor_query(key):
    return (f"SELECT count(x), count(k) FROM (SELECT row_number() OVER (ORDER BY ts) AS x, "
            f"{key} AS k FROM r) AS s")


def agg_query(key, extra=""):
    return (f"SELECT count(x) FROM (SELECT segment_agg(v, {key}, {SPEC}{extra}) "
            f"OVER (ORDER BY ts) AS x FROM r) AS s")


def key_query(key):
    return f"SELECT count(x) FROM (SELECT segment_key(v, {key}) OVER (ORDER BY ts) AS x FROM r) AS s"


# The plain SQL a user writes today for the same results.  Day-scoped: the
# mean of each Berlin day's last 10 readings, stamped with the first reading
# of the next day.  Cycle-scoped: the same for each run of the machine state.
BERLIN = "date_trunc('day', ts, 'Europe/Berlin')"
PLAIN = [
    ("day-scoped MovingAverage(10) at day end, Berlin days",
     f"""SELECT ts, x FROM (SELECT ts, segment_agg(v, {BERLIN}, {SPEC}) OVER (ORDER BY ts) AS x FROM r) AS s
         WHERE x IS NOT NULL""",
     f"""WITH d AS (SELECT ts, v, {BERLIN} AS seg,
                           row_number() OVER (PARTITION BY {BERLIN} ORDER BY ts DESC) AS back FROM r),
              last10 AS (SELECT seg, avg(v) AS x FROM d WHERE back <= 10 GROUP BY seg HAVING count(*) = 10),
              segs AS (SELECT seg, lead(min(ts)) OVER (ORDER BY seg) AS closed_at FROM d GROUP BY seg)
         SELECT closed_at AS ts, x FROM last10 JOIN segs USING (seg) WHERE closed_at IS NOT NULL"""),
    ("cycle-scoped MovingAverage(10) at run end, text state",
     f"""SELECT ts, x FROM (SELECT ts, segment_agg(v, state, {SPEC}) OVER (ORDER BY ts) AS x FROM r) AS s
         WHERE x IS NOT NULL""",
     """WITH c AS (SELECT ts, v, count(*) FILTER (WHERE state IS DISTINCT FROM prev) OVER (ORDER BY ts) AS seg
                  FROM (SELECT ts, v, state, lag(state) OVER (ORDER BY ts) AS prev FROM r) AS l),
             d AS (SELECT ts, v, seg, row_number() OVER (PARTITION BY seg ORDER BY ts DESC) AS back FROM c),
             last10 AS (SELECT seg, avg(v) AS x FROM d WHERE back <= 10 GROUP BY seg HAVING count(*) = 10),
             segs AS (SELECT seg, lead(min(ts)) OVER (ORDER BY seg) AS closed_at FROM d GROUP BY seg)
        SELECT closed_at AS ts, x FROM last10 JOIN segs USING (seg) WHERE closed_at IS NOT NULL"""),
]


def plain_sql():
    """Check that both queries return the same rows, then time them side by side."""
    print("\nsegment_agg against the plain SQL a user writes today for the same results")
    for label, seg, plain in PLAIN:
        rounded = "SELECT ts, round(x::numeric, 6) FROM ({}) AS q"
        n, diff = psql(f"SELECT (SELECT count(*) FROM ({seg}) AS a), (SELECT count(*) FROM "
                       f"(({rounded.format(seg)} EXCEPT ALL {rounded.format(plain)}) UNION ALL "
                       f"({rounded.format(plain)} EXCEPT ALL {rounded.format(seg)})) AS d)").strip().split("|")
        if int(diff) != 0:
            sys.exit(f"  {label}: the two queries disagree on {diff} rows")
        wall = {"segment_agg": [], "plain SQL": []}
        cpu = {"segment_agg": [], "plain SQL": []}
        for rnd in range(ROUNDS):
            for name, q in (("segment_agg", seg), ("plain SQL", plain))[::1 if rnd % 2 == 0 else -1]:
                w, c = exec_ms(f"SELECT count(*) FROM ({q}) AS s")
                wall[name].append(w)
                cpu[name].append(c)
        ws, wp = statistics.median(wall["segment_agg"]), statistics.median(wall["plain SQL"])
        cs, cp = statistics.median(cpu["segment_agg"]), statistics.median(cpu["plain SQL"])
        print(f"  {label}: {n} rows, the same from both;\n"
              f"    execution segment_agg {ws:.1f} ms, plain SQL {wp:.1f} ms: x{wp / ws:.2f} faster; "
              f"on a CPU {cs:.1f} ms against {cp:.1f} ms: x{cp / cs:.2f}")


def main():
    subprocess.run(["dropdb", "--if-exists", DB], check=True, stderr=subprocess.DEVNULL)
    subprocess.run(["createdb", DB], check=True)
    psql("CREATE EXTENSION segpipe")
    # readings every 10 s from late March 2026 (a DST change in Berlin);
    # a machine state that changes every 500 readings, a shift number
    psql(f"""CREATE TABLE r AS
             SELECT timestamptz '2026-03-20 00:00:00+00' + i * interval '10 seconds' AS ts,
                    sin(i) * 100 + i % 7 AS v,
                    ((timestamptz '2026-03-20 00:00:00+00' + i * interval '10 seconds')
                      AT TIME ZONE 'Europe/Berlin')::date AS day,
                    (i / 2880)::int8 AS shift,
                    CASE WHEN (i / 500) % 2 = 0 THEN 'RUNNING' ELSE 'IDLE' END AS state
             FROM generate_series(1, {ROWS}) AS i""")
    psql("CREATE INDEX ON r (ts)")
    psql("VACUUM ANALYZE r")
    queries = []
    for name, key in KEYS:
        queries.append((f"floor, key {name}", floor_query(key)))
        queries.append((f"segment_agg, key {name}", agg_query(key)))
    queries.append(("segment_agg, float8 day, close_at_end",
                    agg_query(KEYS[0][1], ", close_at_end => true")))
    queries.append(("segment_key, float8 day", key_query(KEYS[0][1])))
    queries.append(("segment_key, text column", key_query("state")))
    wall = {name: [] for name, _ in queries}
    cpu = {name: [] for name, _ in queries}
    for rnd in range(ROUNDS):
        order = queries if rnd % 2 == 0 else list(reversed(queries))
        for name, q in order:
            w, c = exec_ms(q)
            wall[name].append(w)
            cpu[name].append(c)
    # the minimum is the run least disturbed by other work on the machine
    for title, times in (("execution time", wall), ("time on a CPU", cpu)):
        print(f"\n{ROWS} rows, {ROUNDS} rounds, {title}: median, minimum (ns/row at the median)")
        med = {name: statistics.median(t) for name, t in times.items()}
        low = {name: min(t) for name, t in times.items()}
        for name, _ in queries:
            print(f"  {name:45s} {med[name]:8.1f} ms {low[name]:8.1f} ms  ({1e6 * med[name] / ROWS:6.1f} ns/row)")
        print(f"segment_agg MovingAverage(10) / floor with the same key ({title}): median, minimum")
        for name, _ in KEYS:
            a, f = "segment_agg, key " + name, "floor, key " + name
            print(f"  {name:30s} x{med[a] / med[f]:5.3f}  x{low[a] / low[f]:5.3f}")
        a, f = "segment_agg, float8 day, close_at_end", "floor, key float8 day"
        print(f"  {'float8 day, close_at_end':30s} x{med[a] / med[f]:5.3f}  x{low[a] / low[f]:5.3f}")
        for a in ("segment_key, float8 day", "segment_key, text column"):
            f = "floor, key " + ("float8 day" if "float8" in a else "text column")
            print(f"  {a:30s} x{med[a] / med[f]:5.3f}  x{low[a] / low[f]:5.3f}")
    plain_sql()
    subprocess.run(["dropdb", DB], check=True)


if __name__ == "__main__":
    main()
