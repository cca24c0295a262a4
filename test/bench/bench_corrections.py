#!/usr/bin/env python3
"""What a correction costs in a maintained results table (segpipe_maintain,
late => 'correct', horizon NULL: every checkpoint kept), against
recomputing.  Prints figures and ratios; asserts nothing about time.

100 sensors x 30 days of 1-minute readings (4,320,000 rows; fewer days with
the first argument, and the output says so), a daily key, MovingAverage(10)
inside each day.  Interleaved rounds, the order of the measurements rotating
from round to round, each statement timed by psql's \\timing (client round
trip included, no psql start-up), median of the rounds with the spread
(min..max) of each:
  (a) a correction: UPDATE of one reading's value, 20 days back, for one
      sensor; twice a round (+1, then -1), the first in its psql session (the
      trigger's PL/pgSQL compiled and its statements planned) printed apart;
  (b) recomputing every sensor: (b1) segment_agg over the whole table (every
      sensor's results, counted: writing their 3,000 rows would add little
      to reading 4.32M), and (b2) pipeline_agg grouped by sensor (every
      sensor's state); the set-up's own full run, once, is printed too;
  (c) recomputing that one sensor from its checkpoint: pipeline_agg over its
      readings since the latest checkpoint before the changed reading,
      starting from that checkpoint's state;
then (a)/(b1) and (a)/(b2) (the target: at most 1%) and (a)/(c) (at most 1.5).
Whether every other sensor's state, result and checkpoint rows keep their
xmin (and ctid) through all the corrections is checked and printed, and
whether the corrected sensor's results equal segment_agg over its readings.
Last, in-order inserts of 100 rows per statement (one reading of each of the
100 sensors, minute after minute; or ten readings of each of 10 sensors)
into the maintained table against the same inserts into a plain copy of it
(same rows, same index), alternating, with synchronous_commit on and off
(the target: at most 2x), and whether the maintained results still
equal segment_agg for three sensors afterwards.

Connection settings come from the environment (pg_virtualenv; test/bench/bench.sh).
    test/bench/bench_corrections.py [days] [rounds]    defaults: 30 days, 7 rounds
"""
import os
import re
import statistics
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # nothing left in test/__pycache__
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/: sptest
import sptest  # noqa: E402

DB = "segpipe_bench_corrections"
DAYS = int(sys.argv[1]) if len(sys.argv) > 1 else 30
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 7
SENSORS = 100
SENSOR = 42                       # the corrected sensor
BACK = min(20, DAYS * 2 // 3)     # days back from the last reading
T0 = "2026-01-01 00:00+00"
SPEC = '{"type": "Pipeline", "id": "daily_ma", "operators": [{"type": "MovingAverage", "id": "ma", "window_size": 10}]}'
KEY = "ts::date"
# the same for every measurement: sorts in memory, no parallel workers (bench.sh's cluster)
SETTINGS = "SET work_mem = '256MB'; SET max_parallel_workers_per_gather = 0;"
INSERTS = 60                      # statements of 100 rows a run: an hour of readings


def psql(sql):
    return sptest.psql(sql, DB, "bench_corrections", timeout=3600)


def timed(script, sync="off"):
    """Runs script in one psql session after SETTINGS; returns the \\timing of each statement."""
    env = dict(os.environ, PGTZ="UTC", PGOPTIONS=f"-c synchronous_commit={sync}")
    r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", DB, "-o", os.devnull],
                       input=SETTINGS + "\n\\timing on\n" + script,
                       capture_output=True, text=True, env=env, timeout=3600)
    if r.returncode != 0:
        sys.exit("bench_corrections: " + r.stderr[-2000:])
    return [float(ms) for ms in re.findall(r"^Time: ([0-9.]+) ms", r.stdout, re.M)]


def fingerprint(results, other):
    """A digest of (sensor, ctid, xmin) of the rows of other sensors (other: a condition on
    sensor) in the state, results and checkpoint tables, and their number."""
    parts = []
    for t in (f"{results}_state", results, f"{results}_checkpoint"):
        parts.append(psql(f"SELECT count(*) || ' ' || md5(coalesce(string_agg(sensor || ':' || ctid::text || ':' || xmin::text, ',' "
                          f"ORDER BY sensor, ctid), '')) FROM {t} WHERE {other}"))
    return parts


def spread(xs):
    return f"{statistics.median(xs):9.2f} ms ({min(xs):.2f}..{max(xs):.2f})"


def main():
    subprocess.run(["dropdb", "--if-exists", DB], check=True, stderr=subprocess.DEVNULL)
    subprocess.run(["createdb", DB], check=True)
    psql("CREATE EXTENSION segpipe")
    rows = SENSORS * DAYS * 1440
    print(f"bench_corrections: {SENSORS} sensors x {DAYS} days of 1-minute readings = {rows} rows"
          + ("" if DAYS == 30 else " (scaled down from 30 days)")
          + f"; daily key, MovingAverage(10); a correction {BACK} days back; {ROUNDS} rounds, median (min..max)")
    started = time.monotonic()
    psql(f"""CREATE TABLE readings (sensor int NOT NULL, ts timestamptz NOT NULL, v float8 NOT NULL);
INSERT INTO readings
SELECT s, timestamptz '{T0}' + m * interval '1 minute', ((s * 7919 + m::bigint * 104729) % 10007) / 64.0
FROM generate_series(0, {DAYS * 1440 - 1}) AS m, generate_series(1, {SENSORS}) AS s;""")
    loaded = time.monotonic() - started
    started = time.monotonic()
    ran = psql(f"{SETTINGS} SELECT segpipe_maintain('readings', 'sensor', 'ts', 'v', '{KEY}', '{SPEC}', 'daily', "
               "horizon => NULL)")
    setup = time.monotonic() - started
    psql("VACUUM ANALYZE")
    counts = psql("SELECT (SELECT count(*) FROM daily) || ' results, ' || (SELECT count(*) FROM daily_checkpoint) "
                  "|| ' checkpoints, index: ' || (SELECT string_agg(indexdef, '; ') FROM pg_indexes WHERE tablename = 'readings')")
    print(f"loaded in {loaded:.1f} s; set-up ran {ran} readings in {setup:.1f} s: {counts}")

    at = psql(f"SELECT max(ts) - interval '{BACK} days' + interval '12 hours 34 minutes' FROM readings WHERE sensor = {SENSOR}")
    at = psql(f"SELECT max(ts) FROM readings WHERE sensor = {SENSOR} AND ts <= '{at}'")
    cp = psql(f"SELECT count(*) FROM daily_checkpoint WHERE sensor = {SENSOR} AND ts < '{at}'")
    print(f"the corrected reading: sensor {SENSOR} at {at}; {cp} of its checkpoints are before it")
    a_sql = f"UPDATE readings SET v = v {{}} 1 WHERE sensor = {SENSOR} AND ts = '{at}';"
    b1_sql = (f"SELECT count(*) FROM (SELECT segment_agg(v, {KEY}, '{SPEC}') OVER (PARTITION BY sensor ORDER BY ts, v) AS e "
              "FROM readings) AS x WHERE e IS NOT NULL;")
    b2_sql = (f"SELECT count(*) FROM (SELECT sensor, pipeline_agg(ts, v, {KEY}, '{SPEC}' ORDER BY ts, v) "
              "FROM readings GROUP BY sensor) AS x;")
    c_sql = (f"SELECT pipeline_rows(pipeline_agg(r.ts, r.v, r.ts::date, c.state ORDER BY r.ts, r.v)) "
             f"FROM (SELECT ts, state FROM daily_checkpoint WHERE sensor = {SENSOR} AND ts < '{at}' "
             "ORDER BY ts DESC LIMIT 1) AS c "
             f"JOIN readings AS r ON r.sensor = {SENSOR} AND r.ts > c.ts;")
    replayed = psql(f"SELECT count(*) FROM readings WHERE sensor = {SENSOR} AND ts > "
                    f"(SELECT max(ts) FROM daily_checkpoint WHERE sensor = {SENSOR} AND ts < '{at}')")
    print(f"(c) replays {replayed} readings of sensor {SENSOR} from its checkpoint")

    others = f"sensor <> {SENSOR}"
    before = fingerprint("daily", others)
    mine_before = fingerprint("daily", f"sensor = {SENSOR}")
    times = {"a1": [], "a": [], "b1": [], "b2": [], "c": []}
    order = ["a", "b1", "b2", "c"]
    for n in range(ROUNDS):
        k = order[n % 4:] + order[:n % 4]
        # (a) twice in a row, +1 then -1: the first in its session (the trigger's
        # PL/pgSQL compiled, its statements planned), then the second
        script = "".join(a_sql.format("+") + a_sql.format("-") if x == "a" else
                         {"b1": b1_sql, "b2": b2_sql, "c": c_sql}[x] for x in k)
        got = iter(timed(script))
        for x in k:
            if x == "a":
                times["a1"].append(next(got))
            times[x].append(next(got))
    after = fingerprint("daily", others)
    mine_after = fingerprint("daily", f"sensor = {SENSOR}")
    a, a1, b1, b2, c = (statistics.median(times[x]) for x in ("a", "a1", "b1", "b2", "c"))
    print(f"(a)  the correction (UPDATE of one reading)        {spread(times['a'])}")
    print(f"     the same, the first in its session            {spread(times['a1'])}")
    print(f"(b1) segment_agg over every sensor                 {spread(times['b1'])}")
    print(f"(b2) pipeline_agg grouped by sensor                {spread(times['b2'])}")
    print(f"(c)  pipeline_agg of sensor {SENSOR} from its checkpoint  {spread(times['c'])}")
    for label, x in (("(a)", a), ("(a), first in its session,", a1)):
        print(f"{label} / (b1) = {x / b1 * 100:.3f} %, / (b2) = {x / b2 * 100:.3f} %, / the set-up's full run = "
              f"{x / (setup * 1000) * 100:.3f} %   (target: at most 1 %); / (c) = {x / c:.2f}   (target: at most 1.5)")
    kept = before == after
    print(f"other sensors' state, result and checkpoint rows keep their xmin and ctid: {'yes' if kept else 'NO'} "
          f"(rows: state {before[0].split()[0]}, results {before[1].split()[0]}, checkpoints {before[2].split()[0]}"
          + ("" if kept else f"; after: {[x.split()[0] for x in after]}") + ")")
    print(f"sensor {SENSOR}'s own rows were rewritten: state {mine_before[0] != mine_after[0]}, "
          f"results {mine_before[1] != mine_after[1]}, checkpoints {mine_before[2] != mine_after[2]}")
    diff = psql(f"""WITH e AS (SELECT sensor, ts, k AS key, 1 AS port, float8send(e) AS value
          FROM (SELECT sensor, ts, segment_key(v, {KEY}) OVER w AS k, segment_agg(v, {KEY}, '{SPEC}') OVER w AS e
                FROM readings WHERE sensor = {SENSOR} WINDOW w AS (ORDER BY ts, v)) AS x WHERE e IS NOT NULL),
     g AS (SELECT sensor, ts, key, port, float8send(value) FROM daily WHERE sensor = {SENSOR})
SELECT count(*) FROM ((TABLE e EXCEPT ALL TABLE g) UNION ALL (TABLE g EXCEPT ALL TABLE e)) AS d""")
    print(f"sensor {SENSOR}'s results after the corrections equal segment_agg over its readings: "
          + ("yes" if diff == "0" else f"NO ({diff} rows differ)"))

    # in-order inserts, 100 rows a statement, maintained against a plain copy
    psql("CREATE TABLE plain AS SELECT * FROM readings ORDER BY ts, sensor")
    for idx in psql("SELECT indexdef FROM pg_indexes WHERE tablename = 'readings'").splitlines():
        psql(re.sub(r"^CREATE (UNIQUE )?INDEX \S+ ON (\S+\.)?readings ", r"CREATE \1INDEX ON plain ", idx))
    psql("VACUUM ANALYZE plain; CHECKPOINT")
    start = psql("SELECT extract(epoch FROM max(ts))::bigint FROM readings")
    minute = int(start) // 60 + 1
    print(f"in-order inserts, {INSERTS} statements of 100 rows a run (an hour of readings), {ROUNDS} runs each, "
          "alternating, median; a statement holds one reading of each of the 100 sensors (100 x 1), or ten "
          "readings of each of 10 sensors (10 x 10, as bench_maintain.py's batches of 100):")
    print(f"{'statement':>9} | {'synchronous_commit':>18} | {'plain rows/s':>12} | {'maintained rows/s':>17} | maintained / plain")
    for shape in ("100 x 1", "10 x 10"):
        for sync in ("on", "off"):
            t = {"plain": [], "readings": []}
            for n in range(ROUNDS):
                for table in (("plain", "readings") if n % 2 == 0 else ("readings", "plain")):
                    m0 = minute + n * INSERTS
                    if shape == "100 x 1":
                        stmts = [(f"generate_series(1, {SENSORS})", f"{m0 + i}") for i in range(INSERTS)]
                    else:  # statement i: sensors of group i % 10, the minutes of block i // 10
                        stmts = [(f"generate_series({i % 10 * 10 + 1}, {i % 10 * 10 + 10})",
                                  f"{m0 + i // 10 * 10} + m") for i in range(INSERTS)]
                    script = "".join(
                        f"INSERT INTO {table} (sensor, ts, v) SELECT s, to_timestamp(({mm}) * 60), "
                        f"((s * 7919 + ({mm})::bigint * 104729) % 10007) / 64.0 "
                        f"FROM {ss} AS s, generate_series(0, {0 if shape == '100 x 1' else 9}) AS m;\n"
                        for ss, mm in stmts)
                    t[table].append(sum(timed(script, sync)) / 1000)
            minute += ROUNDS * INSERTS
            plain, kept = statistics.median(t["plain"]), statistics.median(t["readings"])
            n_rows = INSERTS * 100
            print(f"{shape:>9} | {sync:>18} | {n_rows / plain:>12.0f} | {n_rows / kept:>17.0f} | {kept / plain:>6.2f} "
                  f"(plain {min(t['plain']):.3f}..{max(t['plain']):.3f} s, maintained "
                  f"{min(t['readings']):.3f}..{max(t['readings']):.3f} s a run)")
    got = psql(f"""WITH e AS (SELECT sensor, ts, k AS key, 1 AS port, float8send(e) AS value
          FROM (SELECT sensor, ts, segment_key(v, {KEY}) OVER w AS k, segment_agg(v, {KEY}, '{SPEC}') OVER w AS e
                FROM readings WHERE sensor IN (1, {SENSOR}, 100) WINDOW w AS (PARTITION BY sensor ORDER BY ts, v)) AS x
          WHERE e IS NOT NULL),
     g AS (SELECT sensor, ts, key, port, float8send(value) FROM daily WHERE sensor IN (1, {SENSOR}, 100))
SELECT count(*) FROM ((TABLE e EXCEPT ALL TABLE g) UNION ALL (TABLE g EXCEPT ALL TABLE e)) AS d""")
    print("after the inserts, the results of sensors 1, 42 and 100 equal segment_agg over their readings: "
          + ("yes" if got == "0" else f"NO ({got} rows differ)"))
    subprocess.run(["dropdb", DB], check=True)


if __name__ == "__main__":
    sys.exit(main())
