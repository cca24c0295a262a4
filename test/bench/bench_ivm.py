#!/usr/bin/env python3
"""Maintained inserts, updates and deletes with segpipe_maintain, against the
same statements on a plain table and, where the server has it, against
pg_ivm's immediately maintained views (create_immv).  Prints figures and
ratios; asserts nothing about time.

The workload: one readings table (sensor_id int NOT NULL, ts timestamptz
NOT NULL, v float8), 10 sensors, one reading per sensor every 3 minutes;
pgbench, one client, each statement its own transaction,
synchronous_commit = off, and the rows made on the server
(INSERT ... SELECT ... FROM generate_series), so that the client's parsing
of a VALUES list does not hide what maintenance costs.  A sequence gives
each statement the number of its first row, so every sensor's readings
arrive in order.  Values are multiples of 1/8 below 125, so sums of a day's
readings are exact in float8 whatever their order and the means of
segpipe and pg_ivm can be compared for equality.

The day is (ts AT TIME ZONE 'UTC')::date, for both: it does not depend on
the session's TimeZone, and pg_ivm accepts it (its functions are immutable).
Modes, each on fresh tables:
  plain       the bare table;
  index       the table with the (sensor_id, ts) index that segpipe_maintain
              adds (its corrections read a sensor's readings by it);
  max         segpipe_maintain, one results table: the daily maximum
              (MaxTracker);
  max+mean    segpipe_maintain, one results table whose spec has two
              outputs: the daily maximum and the daily mean
              (CumulativeSum / CountNumber);
  2 tables    segpipe_maintain twice on the same readings: one results
              table of daily maxima, one of daily means;
  pg_ivm      create_immv of SELECT sensor_id, day, max(v), avg(v),
              count(*) FROM readings GROUP BY 1, 2, on the table with the
              same (sensor_id, ts) index (pg_ivm recomputes a group's max
              from the readings when a maximum is updated or deleted).

First a check, on one readings table kept by all of them at once: inserts
of 1, 100 and 10,000 rows per statement, updates and deletes (closed days
corrected too); then segpipe's results (the <results>_realtime views:
closed days, and the open day's provisional values) must equal, row for
row, a recomputation with segment_agg over the readings, and pg_ivm's view.
No figure is printed unless they do.

Then the timing: rounds on fresh tables (one schema per mode), and in each
round every mode's statements cut into turns (10, fewer for 10,000-row
statements) taken in rotation, so that a slow moment of the machine falls
on every mode alike; each turn is one pgbench run on a new connection, whose
first statement (planning the trigger's statements, filling the caches) is
not counted; the time of each statement from pgbench's transaction log.
Per mode: the median over the rounds of the time per statement, with its
min..max; the ratio of the medians to plain and to plain with the index,
with the lowest and highest ratio within one round, and segpipe's to
pg_ivm's; the floor's spread (min/median..max/median of its rounds) is the
machine's noise.
  inserts: 1, 100 and 10,000 rows per statement into an empty table;
  updates: on a table holding 3 days (14,400 readings), one statement sets
    v = v + 0.125 for one reading of a random sensor at a random time of the
    last day (the open day: segpipe runs that sensor again from the day's
    checkpoint, pg_ivm adjusts the group, recomputing its max when the old
    value was it); the floor is the table with the index (without it, each
    statement would scan the table);
  deletes: then, on the same table, one statement deletes one reading of the
    last day, a different sensor and time each statement.

Connection settings come from the environment (pg_virtualenv; test/bench/bench.sh).
    test/bench/bench_ivm.py [rounds] [scale]    defaults: 5 rounds, scale 1
(scale multiplies the statements of each run.)
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # nothing left in test/__pycache__
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/: sptest
import sptest  # noqa: E402

DB = "segpipe_bench_ivm"
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
SCALE = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
SENSORS = 10
T0 = "2026-03-01 00:00+00"
DAY = "(ts AT TIME ZONE 'UTC')::date"
PRELOAD_DAYS = 3
PER_DAY = 480 * SENSORS                      # readings a day, every 3 minutes
# statements of each timed run
INSERTS = {1: 3000, 100: 300, 10000: 10}
CHANGES = 400                                # updates, then deletes
CHUNKS = 10                                  # turns each run is cut into

MAX_SPEC = '{"type": "Pipeline", "id": "daily_max", "operators": [{"type": "MaxTracker", "id": "max"}]}'
MEAN_OPS = ('{"type": "Identity", "id": "in"}, {"type": "CumulativeSum", "id": "sum"}, '
            '{"type": "CountNumber", "id": "n"}, {"type": "Division", "id": "mean"}')
MEAN_CONN = ('{"from": "in", "to": "sum"}, {"from": "in", "to": "n"}, '
             '{"from": "sum", "to": "mean", "toPort": "i1"}, {"from": "n", "to": "mean", "toPort": "i2"}')
MEAN_SPEC = ('{"type": "Pipeline", "id": "daily_mean", "operators": [' + MEAN_OPS + '], '
             '"connections": [' + MEAN_CONN + '], "entryOperator": "in", "outputMappings": {"mean": {"o1": "o1"}}}')
BOTH_SPEC = ('{"type": "Pipeline", "id": "daily_max_mean", "output_port_types": ["number", "number"], '
             '"operators": [' + MEAN_OPS + ', {"type": "MaxTracker", "id": "max"}], '
             '"connections": [' + MEAN_CONN + ', {"from": "in", "to": "max"}], "entryOperator": "in", '
             '"outputMappings": {"max": {"o1": "o1"}, "mean": {"o1": "o2"}}}')

MODES = ["plain", "index", "max", "max+mean", "2 tables", "pg_ivm"]
LABEL = {"plain": "plain", "index": "plain, (sensor_id, ts) index", "max": "segpipe: max",
         "max+mean": "segpipe: max and mean, 1 spec", "2 tables": "segpipe: max; mean, 2 tables",
         "pg_ivm": "pg_ivm: max, avg, count"}
# what each mode sets up: results tables (name, spec) and the immv
SEGPIPE = {"max": [("dmax", MAX_SPEC)], "max+mean": [("dboth", BOTH_SPEC)],
           "2 tables": [("dmax", MAX_SPEC), ("dmean", MEAN_SPEC)]}

ivm_fn = None      # pg_ivm's create_immv, schema-qualified, when the server has pg_ivm


def psql(sql):
    return sptest.psql(sql, DB, "bench_ivm")


def insert_sql(n):
    """One statement of n readings: the sequence tick gives its first row's
    number g (it increments by n); row g is sensor g % 10 + 1 at T0 + (g / 10)
    times 3 minutes."""
    return (f"INSERT INTO readings (sensor_id, ts, v) SELECT g % {SENSORS} + 1, "
            f"timestamptz '{T0}' + (g / {SENSORS}) * interval '3 min', ((g * 7919) % 1000) / 8.0::float8 "
            f"FROM (SELECT nextval('tick') AS b) AS b, generate_series(b.b, b.b + {n - 1}) AS g;\n")


# the last preloaded day's readings: slot k (0..479) of sensor s is at
# LAST_DAY + k * 3 minutes
LAST_DAY = f"timestamptz '{T0}' + interval '{PRELOAD_DAYS - 1} days'"
UPDATE_SQL = ("\\set s random(1, 10)\n\\set k random(0, 479)\n"
              f"UPDATE readings SET v = v + 0.125 WHERE sensor_id = :s AND ts = {LAST_DAY} + :k * interval '3 min';\n")
# statement n (0..4799) deletes sensor n % 10 + 1's slot (n / 10) * 97 % 480:
# 97 and 480 have no common divisor, so no two statements delete the same row
DELETE_SQL = ("WITH d AS MATERIALIZED (SELECT nextval('del') - 1 AS n) "
              f"DELETE FROM readings AS r USING d WHERE r.sensor_id = d.n % {SENSORS} + 1 "
              f"AND r.ts = {LAST_DAY} + ((d.n / {SENSORS}) * 97 % 480) * interval '3 min';\n")


def setup(schemas):
    """Fresh tables, one schema per mode: schemas maps the schema to its kinds
    ("index", "segpipe": [(results, spec)], "ivm"): the readings and what keeps
    them, the tick sequence starting at 0."""
    # one statement: segpipe refuses to drop a schema's maintained readings while
    # another schema keeps results of the same name (it finds their functions by name)
    old = psql("SELECT string_agg(nspname, ', ') FROM pg_namespace WHERE nspname LIKE 'm\\_%'")
    if old:
        psql(f"SET client_min_messages = warning; DROP SCHEMA {old} CASCADE")
    for where, kinds in schemas.items():
        sql = [f"CREATE SCHEMA {where}; SET search_path = {where}, public;"
               "CREATE TABLE readings (sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8);"
               "CREATE SEQUENCE tick MINVALUE 0 START WITH 0; CREATE SEQUENCE del;"]
        if "index" in kinds or "ivm" in kinds:
            sql.append("CREATE INDEX ON readings (sensor_id, ts);")
        for name, spec in kinds.get("segpipe", []):
            sql.append(f"SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', $k${DAY}$k$, '{spec}', '{name}');")
        if "ivm" in kinds:
            sql.append(f"SELECT {ivm_fn}('divm', $q$SELECT sensor_id, {DAY} AS day, max(v) AS max, avg(v) AS mean, "
                       "count(*) AS n FROM readings GROUP BY 1, 2$q$);")
        psql("SET client_min_messages = warning;" + "".join(sql) + "VACUUM ANALYZE readings;")
    psql("CHECKPOINT")


def schema(mode):
    return "m_" + re.sub(r"[^a-z0-9]", "_", mode)


def mode_kinds(mode):
    if mode == "plain":
        return {}
    if mode == "index":
        return {"index": True}
    if mode == "pg_ivm":
        return {"ivm": True}
    return {"segpipe": SEGPIPE[mode]}


def ticks(where, step):
    """The next insert statement of where starts at row step (the rows before
    it there are 0 .. step - 1, or none when step is 0); each takes step rows."""
    psql(f"ALTER SEQUENCE {where}.tick INCREMENT BY {step}")


def pgbench(where, path, statements, warm=0):
    """Runs path's one statement warm + statements times in schema where, on
    one connection; the seconds that the last statements took, in all (from
    pgbench's log of each transaction's time): the first warm ones, which
    plan the trigger's statements and fill the new connection's caches, are
    left out."""
    env = dict(os.environ, PGOPTIONS=f"-c synchronous_commit=off -c search_path={where},public")
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run(["pgbench", "-n", "-t", str(warm + statements), "-f", path, "-l",
                            "--log-prefix", os.path.join(tmp, "log"), DB],
                           capture_output=True, text=True, env=env)
        done = re.search(r"number of transactions actually processed: (\d+)/(\d+)", r.stdout)
        logs = [os.path.join(tmp, f) for f in os.listdir(tmp)]
        if r.returncode != 0 or not done or done.group(1) != done.group(2) or len(logs) != 1:
            sys.exit(f"bench_ivm: pgbench -f {os.path.basename(path)} failed:\n{r.stdout[-1500:]}\n{r.stderr[-1500:]}")
        # client_id transaction_no time(us) script_no time_epoch time_us
        with open(logs[0]) as f:
            us = [int(line.split()[2]) for line in f]
    if len(us) != warm + statements:
        sys.exit(f"bench_ivm: pgbench logged {len(us)} transactions, not {warm + statements}")
    return sum(us[warm:]) / 1e6


def interleaved(modes, path, statements, chunks, rnd):
    """statements of path in each mode's schema, in chunks taking turns (the
    order of the modes rotating), so that the machine's slow moments fall on
    every mode alike; each chunk on a connection of its own, whose first
    statement is not counted.  Seconds per statement, per mode."""
    spent = dict.fromkeys(modes, 0.0)
    chunks = min(chunks, max(1, statements // 2))
    sizes = [statements // chunks + (1 if i < statements % chunks else 0) for i in range(chunks)]
    for i, size in enumerate(s for s in sizes if s):
        k = (rnd + i) % len(modes)
        for mode in modes[k:] + modes[:k]:
            spent[mode] += pgbench(schema(mode), path, size, warm=1)
    return {m: t / statements for m, t in spent.items()}


# a sensor-day's maximum and mean, as segpipe_agg recomputes them from the readings
RECOMPUTED = f"""SELECT sensor_id, day, e[1] AS max, e[2] AS mean
FROM (SELECT sensor_id, segment_key(ARRAY[v], {DAY}, true) OVER w AS day,
             segment_agg(ts, ARRAY[v], {DAY}, '{BOTH_SPEC}', true) OVER w AS e
      FROM readings WINDOW w AS (PARTITION BY sensor_id ORDER BY ts, v)) AS s
WHERE day IS NOT NULL"""


def port(results, n):
    return f"SELECT sensor_id, key, value FROM {results}_realtime WHERE port = {n}"


def differing(a, b):
    """Rows of a not in b and of b not in a (as multisets), with the first few."""
    out = psql(f"SELECT count(*), string_agg(x::text, '; ') FILTER (WHERE n <= 3) FROM "
               f"(SELECT x, row_number() OVER () AS n FROM ((({a}) EXCEPT ALL ({b})) UNION ALL "
               f"(({b}) EXCEPT ALL ({a}))) AS x) AS y")
    count, _, first = out.partition("|")
    return int(count), first


def check(paths):
    """Everything at once on one table, then every result compared; exits
    when anything differs.  Returns what was compared, said in words."""
    kinds = {"segpipe": [("dmax", MAX_SPEC), ("dmean", MEAN_SPEC), ("dboth", BOTH_SPEC)]}
    if ivm_fn:
        kinds["ivm"] = True
    where = "m_check"
    setup({where: kinds})
    g = PRELOAD_DAYS * PER_DAY
    ticks(where, g)
    pgbench(where, paths["pre"], 1)
    pgbench(where, paths["upd"], 150)
    pgbench(where, paths["del"], 150)
    for n, statements in ((1, 300), (100, 60), (10000, 2)):
        psql(f"ALTER SEQUENCE {where}.tick INCREMENT BY {n} RESTART WITH {g}")
        pgbench(where, paths[f"ins{n}"], statements)
        g += n * statements
    # the preloaded days are closed now: their corrections run later days again
    pgbench(where, paths["upd"], 150)
    pgbench(where, paths["del"], 150)
    psql(f"ALTER DATABASE {DB} SET search_path = {where}, public")
    expected = f"SELECT sensor_id, day, max, mean FROM ({RECOMPUTED}) AS r"
    sources = {
        "dboth_realtime (max and mean, one spec)":
            f"SELECT sensor_id, key, a.value, m.value FROM ({port('dboth', 1)}) AS a "
            f"FULL JOIN ({port('dboth', 2)}) AS m USING (sensor_id, key)",
        "dmax_realtime and dmean_realtime (two tables)":
            f"SELECT sensor_id, key, a.value, m.value FROM ({port('dmax', 1)}) AS a "
            f"FULL JOIN ({port('dmean', 1)}) AS m USING (sensor_id, key)",
    }
    if ivm_fn:
        sources["pg_ivm's divm"] = "SELECT sensor_id, day, max, mean FROM divm"
    readings, days = psql(f"SELECT count(*), count(DISTINCT (sensor_id, {DAY})) FROM readings").split("|")
    n_expected = int(psql(f"SELECT count(*) FROM ({expected}) AS e"))
    if n_expected != int(days) or n_expected == 0:
        sys.exit(f"bench_ivm: the recomputation has {n_expected} sensor-days, the readings {days}")
    for what, sql in sources.items():
        count, first = differing(expected, sql)
        if count:
            sys.exit(f"bench_ivm: {what} differs from segment_agg over the readings in {count} rows "
                     f"(first: {first}); no figures")
    psql(f"ALTER DATABASE {DB} RESET search_path")
    return (f"{readings} readings, {n_expected} sensor-days: "
            + ", ".join(sources) + " equal to segment_agg over the readings, row for row")


def med(xs):
    return statistics.median(xs)


def spread(xs):
    m = med(xs)
    return f"{min(xs) / m:.2f}..{max(xs) / m:.2f}"


def ratio(xs, ys):
    """The ratio of the medians, and the range of the rounds' own ratios."""
    per_round = [x / y for x, y in zip(xs, ys)]
    return f"{med(xs) / med(ys):.2f} ({min(per_round):.2f}..{max(per_round):.2f})"


def table(title, times, floors):
    """times: mode -> seconds per statement, one per round (the same rounds for
    every mode); floors: the modes the ratios are taken against."""
    print(title)
    against = floors + (["pg_ivm"] if "pg_ivm" in times else [])
    print(f"  {'':<30} | {'ms per statement (min..max)':<28} | " + " | ".join(f"{'/ ' + f:<17}" for f in against))
    for mode, xs in times.items():
        cells = [ratio(xs, times[f]) if f != "pg_ivm" or mode in SEGPIPE else "" for f in against]
        ms = f"{med(xs) * 1e3:.3f} ({min(xs) * 1e3:.3f}..{max(xs) * 1e3:.3f})"
        print(f"  {LABEL[mode]:<30} | {ms:<28} | " + " | ".join(f"{c:<17}" for c in cells).rstrip())
    print("  noise, the floor's spread over the rounds (min/median..max/median): "
          + ", ".join(f"{f} {spread(times[f])}" for f in floors))


def main():
    global ivm_fn
    subprocess.run(["dropdb", "--if-exists", DB], check=True, stderr=subprocess.DEVNULL)
    subprocess.run(["createdb", DB], check=True)
    psql("CREATE EXTENSION segpipe")
    version = psql("SHOW server_version")
    if psql("SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_ivm'") == "1":
        psql("CREATE EXTENSION pg_ivm")
        ivm_fn = psql("SELECT p.oid::regproc FROM pg_proc AS p JOIN pg_extension AS e ON e.extname = 'pg_ivm' "
                      "JOIN pg_depend AS d ON d.objid = p.oid AND d.refobjid = e.oid WHERE p.proname = 'create_immv' "
                      "AND p.pronargs = 2")
        if "." not in ivm_fn:
            ivm_fn = "public." + ivm_fn
        ivm = "pg_ivm " + psql("SELECT extversion FROM pg_extension WHERE extname = 'pg_ivm'")
    else:
        ivm = "no pg_ivm on this server: its rows and column are left out"
    modes = [m for m in MODES if ivm_fn or m != "pg_ivm"]
    scale = lambda n: max(1, round(n * SCALE))  # noqa: E731
    print(f"bench_ivm: PostgreSQL {version}, segpipe "
          f"{psql('SELECT extversion FROM pg_extension WHERE extname = $$segpipe$$')}, {ivm}; "
          f"{SENSORS} sensors, pgbench, one client, synchronous_commit = off, rows made on the server; "
          f"{ROUNDS} rounds on fresh tables, each mode's statements in up to {CHUNKS} turns taken in rotation; medians")
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for name, sql in [("ins1", insert_sql(1)), ("ins100", insert_sql(100)), ("ins10000", insert_sql(10000)),
                          ("pre", insert_sql(PRELOAD_DAYS * PER_DAY)), ("upd", UPDATE_SQL), ("del", DELETE_SQL)]:
            paths[name] = os.path.join(tmp, name + ".pgb")
            with open(paths[name], "w") as f:
                f.write(sql)
        print("checked: " + check(paths))

        inserts = {n: {m: [] for m in modes} for n in INSERTS}
        kept = [m for m in modes if m != "plain"]
        changes = {k: {m: [] for m in kept} for k in ("update", "delete")}
        for rnd in range(ROUNDS):
            for n, statements in INSERTS.items():
                setup({schema(m): mode_kinds(m) for m in modes})
                for m in modes:
                    ticks(schema(m), n)
                for m, t in interleaved(modes, paths[f"ins{n}"], scale(statements), CHUNKS, rnd).items():
                    inserts[n][m].append(t)
            setup({schema(m): mode_kinds(m) for m in kept})
            for m in kept:
                ticks(schema(m), PRELOAD_DAYS * PER_DAY)
                pgbench(schema(m), paths["pre"], 1)
            psql("VACUUM ANALYZE; CHECKPOINT")
            for m, t in interleaved(kept, paths["upd"], scale(CHANGES), CHUNKS, rnd).items():
                changes["update"][m].append(t)
            for m, t in interleaved(kept, paths["del"], min(scale(CHANGES), PER_DAY), CHUNKS, rnd).items():
                changes["delete"][m].append(t)
    for n, statements in INSERTS.items():
        table(f"INSERT of {n:,} row{'s' if n > 1 else ''} per statement into an empty table "
              f"({scale(statements)} statements a run)", inserts[n], ["plain", "index"])
    table(f"UPDATE of one reading of the last day per statement, {PRELOAD_DAYS * PER_DAY:,} readings "
          f"({scale(CHANGES)} statements a run)", changes["update"], ["index"])
    table(f"DELETE of one reading of the last day per statement, after the updates "
          f"({min(scale(CHANGES), PER_DAY)} statements a run)", changes["delete"], ["index"])
    subprocess.run(["dropdb", DB], check=True)


if __name__ == "__main__":
    sys.exit(main())
