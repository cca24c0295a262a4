#!/usr/bin/python3
"""Silent sensors closed on time: a watermark (docs/reference.md, segpipe_maintain).

A cluster of its own (test/pgcluster.py) that preloads pg_cron.  For each of
Berlin's two clock changes of 2026 (the 23-hour 29 March, the 25-hour 25
October) a readings table of 1,000 sensors over 8 days is maintained with
watermark => 2 hours and calendar heartbeats at Berlin's midnights (the
autumn one also quiet heartbeats every 10 hours), keyed by the Berlin day, a
daily sum.  Each reading gets a reading every 2 hours or so; 10% of the
sensors fall silent for 2 to 5 days (some to the end).  Readings arrive up to
the watermark late, a few (1 in 200) later than it.

Time is simulated: `at` steps every 3 hours; at each step the readings that
arrived since the last one are inserted (one statement), now and then a few
readings are updated or deleted, then segpipe_close_silent(results, at)
runs, and again at the same `at`.  Checked:
  - the second run at the same `at` adds nothing (every step);
  - every Berlin day of every sensor with a reading in it, whose midnight is
    at or before at - watermark, has its emission in the results: closed no
    later than the watermark plus the schedule's step (every step);
  - the results equal, as a multiset of (sensor, ts, key, port,
    float8send(value)), the rows where segment_agg over the readings UNION ALL
    the recorded heartbeats (value NULL), PARTITION BY sensor ORDER BY ts,
    value (NULLS LAST), key, is not NULL, with segment_key as the key; each
    state's rows and progress are those of the same rows (every 8th step and
    at the end);
  - heartbeats belong to sensors with readings only (three silent sensors
    lose all their readings half-way);
  - segpipe_rebuild() leaves states, checkpoints and results byte for byte
    as maintenance left them.
Then, concurrently, three inserters (readings up to 3 hours behind a simulated
clock, many of them before heartbeats already applied) while the schedule
runs: the results equal the run over readings and heartbeats.
Then pg_cron: a small results table set up with schedule => '* * * * *' has
its job in cron.job (the command calls segpipe_close_silent), the job runs
(waits for pg_cron's next minute) and closes its silent sensor's days; and
segpipe_unmaintain() removes the job.

Needs psycopg 3 (Debian's python3-psycopg, hence /usr/bin/python3), pg_cron
(Debian's postgresql-15-cron) and the extension installed.
    test/integration/watermark.py          (SEGPIPE_SEED sets the seed)
    test/integration/watermark.py --broken
--broken runs the schedule a step behind: the check that days close on time must fail.
"""
import datetime
import os
import random
import sys
import threading
import time

sys.dont_write_bytecode = True  # nothing left in test/__pycache__
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/: sptest, pgcluster
import psycopg  # noqa: E402
from pgcluster import Fleet  # noqa: E402
from sptest import check, summary  # noqa: E402

SEED = int(os.environ.get("SEGPIPE_SEED", "20261202"))
BROKEN = "--broken" in sys.argv
SENSORS = 1000
H = 3600
WATERMARK = 2 * H
STEP = 3 * H
DAYS = 8
KEY = "date_trunc('day', ts, 'Europe/Berlin')"
SPEC = '{"type": "CumulativeSum"}'
DB = "postgres"  # pg_cron's database (cron.database_name)
SETTINGS = {"TimeZone": "UTC", "shared_preload_libraries": "pg_cron", "cron.database_name": DB,
            "cron.use_background_workers": "on", "max_worker_processes": "16"}


def utc(*a):
    return datetime.datetime(*a, tzinfo=datetime.timezone.utc)


def readings(rng, start):
    """(sensor, ts, v, arrival) of one window: a reading every 2 hours or so per sensor,
    none while a sensor is silent; arrival up to the watermark after ts, now and then later."""
    t0 = int(start.timestamp())
    end = t0 + DAYS * 24 * H
    out = []
    silent = set(rng.sample(range(1, SENSORS + 1), SENSORS // 10))
    for s in range(1, SENSORS + 1):
        quiet_from = quiet_to = None
        if s in silent:
            quiet_from = t0 + rng.randrange(0, (DAYS - 2) * 24 * H)
            quiet_to = quiet_from + rng.randrange(2 * 24 * H, 5 * 24 * H)
        t = t0 + rng.randrange(0, 2 * H)
        while t < end:
            if not (quiet_from is not None and quiet_from <= t < quiet_to):
                late = rng.random() < 0.005
                arrival = t + (rng.randrange(WATERMARK + 60, WATERMARK + 12 * H) if late
                               else rng.randrange(0, WATERMARK))
                out.append((s, t, float(rng.randrange(0, 100)), arrival))
            t += rng.randrange(90 * 60, 150 * 60)
    return out, silent


def expected_diff_sql(results, table):
    """Counts of differences between the results (and states) and a run over the readings
    UNION ALL the recorded heartbeats, written from the rule."""
    return f"""WITH r AS (SELECT sensor, ts, v, {KEY} AS k FROM {table}
           UNION ALL SELECT sensor, ts, NULL, key FROM {results}_heartbeat),
e0 AS (SELECT sensor, ts, segment_key(v, k) OVER w AS k, segment_agg(v, k, '{SPEC}') OVER w AS e
       FROM r WINDOW w AS (PARTITION BY sensor ORDER BY ts, v NULLS LAST, k)),
expected AS (SELECT sensor, ts, k AS key, 1 AS port, float8send(e) AS value FROM e0 WHERE e IS NOT NULL),
got AS (SELECT sensor, ts, key, port, float8send(value) AS value FROM {results}),
n AS (SELECT sensor, count(*) AS n, max(ts) AS last FROM r GROUP BY sensor)
SELECT (SELECT count(*) FROM ((SELECT * FROM expected EXCEPT ALL SELECT * FROM got)
                              UNION ALL (SELECT * FROM got EXCEPT ALL SELECT * FROM expected)) AS d),
       (SELECT count(*) FROM {results}_state AS s FULL JOIN n USING (sensor)
        WHERE pipeline_rows(s.state) IS DISTINCT FROM n.n OR pipeline_progress(s.state) IS DISTINCT FROM n.last),
       (SELECT count(*) FROM expected)"""


def unclosed_sql(results, table):
    """(sensor, day) with a reading whose Berlin midnight is at or before at - watermark,
    without an emission keyed by that day."""
    return f"""SELECT count(*), min(d.sensor::text || ' ' || d.k::text) FROM (
    SELECT DISTINCT sensor, {KEY} AS k FROM {table}) AS d
WHERE ((d.k AT TIME ZONE 'Europe/Berlin') + interval '1 day') AT TIME ZONE 'Europe/Berlin' <= %(w)s::timestamptz
  AND NOT EXISTS (SELECT 1 FROM {results} AS x WHERE x.sensor = d.sensor AND x.key = d.k)"""


def window(conn, rng, name, start, extra):
    table, results = name, name + "_daily"
    rows, silent = readings(rng, start)
    conn.execute(f"CREATE TABLE {table} (sensor int NOT NULL, ts timestamptz NOT NULL, v float8)")
    conn.execute(f"SELECT segpipe_maintain('{table}', 'sensor', 'ts', 'v', $k${KEY}$k$, '{SPEC}', '{results}', "
                 f"watermark => '{WATERMARK} seconds', heartbeat_unit => 'day', heartbeat_zone => 'Europe/Berlin'{extra})")
    rows.sort(key=lambda r: r[3])
    t0 = int(start.timestamp())
    at, i, steps = t0, 0, 0
    repeats = unclosed = diffs = 0
    applied = lost = 0
    stop = t0 + (DAYS + 1) * 24 * H
    gone = sorted(silent)[:3]
    while at <= stop:
        at += STEP
        steps += 1
        batch = []
        while i < len(rows) and rows[i][3] <= at:
            batch.append(rows[i])
            i += 1
        if batch:
            conn.execute(f"INSERT INTO {table} SELECT * FROM unnest(%s::int[], %s::timestamptz[], %s::float8[])",
                         ([b[0] for b in batch], [datetime.datetime.fromtimestamp(b[1], datetime.timezone.utc) for b in batch],
                          [b[2] for b in batch]))
        if rng.random() < 0.3:
            conn.execute(f"UPDATE {table} SET v = v + 1 WHERE (sensor, ts) IN "
                         f"(SELECT sensor, ts FROM {table} ORDER BY random() LIMIT 20)")
        if rng.random() < 0.3:
            conn.execute(f"DELETE FROM {table} WHERE (sensor, ts) IN (SELECT sensor, ts FROM {table} ORDER BY random() LIMIT 10)")
        if steps == 32:
            lost = conn.execute(f"SELECT count(*) FROM {results}_heartbeat WHERE sensor = ANY (%s)", (gone,)).fetchone()[0]
            conn.execute(f"DELETE FROM {table} WHERE sensor = ANY (%s)", (gone,))
            rows[i:] = [r for r in rows[i:] if r[0] not in gone]
        at_ts = datetime.datetime.fromtimestamp(at, datetime.timezone.utc)
        # (--broken: the schedule runs a step behind, so days close too late)
        run_at = at_ts - datetime.timedelta(seconds=STEP) if BROKEN else at_ts
        applied += conn.execute("SELECT segpipe_close_silent(%s, %s)", (results, run_at)).fetchone()[0]
        again = conn.execute("SELECT segpipe_close_silent(%s, %s)", (results, run_at)).fetchone()[0]
        repeats += again != 0
        w = datetime.datetime.fromtimestamp(at - WATERMARK, datetime.timezone.utc)
        n, first = conn.execute(unclosed_sql(results, table), {"w": w}).fetchone()
        if n and not unclosed:
            print(f"    {name}: at {at_ts}, {n} days not closed (first: {first})", file=sys.stderr)
        unclosed += n
        if steps % 8 == 0 or at > stop:
            d = conn.execute(expected_diff_sql(results, table)).fetchone()
            if d[0] or d[1]:
                print(f"    {name}: at {at_ts}: {d[0]} result rows and {d[1]} states differ", file=sys.stderr)
            diffs += d[0] + d[1]
    hb, hb_sensors = conn.execute(f"SELECT count(*), count(DISTINCT sensor) FROM {results}_heartbeat").fetchone()
    res = conn.execute(f"SELECT count(*) FROM {results}").fetchone()[0]
    print(f"{name}: {len(rows)} readings, {steps} scheduled runs, {applied} heartbeats applied "
          f"({hb} recorded, of {hb_sensors} sensors), {res} results")
    check(repeats == 0, f"{name}: a second run at the same time added heartbeats in {repeats} steps")
    check(unclosed == 0, f"{name}: {unclosed} sensor-days past the watermark not closed (summed over the steps)")
    check(diffs == 0, f"{name}: results or states differ from the run over readings and heartbeats ({diffs})")
    check(applied > 0 and hb == applied - lost,
          f"{name}: {applied} heartbeats applied, {hb} recorded, {lost} went with the sensors whose readings all went")
    orphans = conn.execute(f"SELECT count(*) FROM {results}_heartbeat AS h "
                           f"WHERE NOT EXISTS (SELECT 1 FROM {table} AS r WHERE r.sensor = h.sensor)").fetchone()[0]
    check(orphans == 0, f"{name}: {orphans} heartbeats of sensors without readings")
    check(conn.execute(f"SELECT count(*) FROM {results}_state WHERE sensor = ANY (%s)", (gone,)).fetchone()[0] == 0,
          f"{name}: sensors without readings have no state")
    # a rebuild finds what maintenance left, byte for byte
    conn.execute(f"CREATE TEMP TABLE k_state AS SELECT sensor, state::text AS s FROM {results}_state")
    conn.execute(f"CREATE TEMP TABLE k_ckpt AS SELECT sensor, ts, state::text AS s FROM {results}_checkpoint")
    conn.execute(f"CREATE TEMP TABLE k_res AS SELECT sensor, ts, key, port, float8send(value) AS v FROM {results}")
    conn.execute("SELECT segpipe_rebuild(%s)", (results,))
    d = conn.execute(f"""SELECT
        (SELECT count(*) FROM ((SELECT sensor, state::text FROM {results}_state EXCEPT ALL SELECT * FROM k_state)
                               UNION ALL (SELECT * FROM k_state EXCEPT ALL SELECT sensor, state::text FROM {results}_state)) AS d),
        (SELECT count(*) FROM ((SELECT sensor, ts, state::text FROM {results}_checkpoint EXCEPT ALL SELECT * FROM k_ckpt)
                               UNION ALL (SELECT * FROM k_ckpt EXCEPT ALL SELECT sensor, ts, state::text FROM {results}_checkpoint)) AS d),
        (SELECT count(*) FROM ((SELECT sensor, ts, key, port, float8send(value) FROM {results} EXCEPT ALL SELECT * FROM k_res)
                               UNION ALL (SELECT * FROM k_res EXCEPT ALL SELECT sensor, ts, key, port, float8send(value) FROM {results})) AS d),
        (SELECT count(*) FROM k_ckpt)""").fetchone()
    if not check(d[:3] == (0, 0, 0), f"{name}: segpipe_rebuild() changed states, checkpoints, results: {d[:3]}"):
        for row in conn.execute(f"""SELECT coalesce(k.sensor, c.sensor), coalesce(k.ts, c.ts), k.s IS NULL, c.state IS NULL,
                                         k.s::pipeline::text = c.state::text, left(k.s, 300), left(c.state::text, 300)
                                  FROM k_ckpt AS k FULL JOIN {results}_checkpoint AS c USING (sensor, ts)
                                  WHERE k.s IS DISTINCT FROM c.state::text ORDER BY 1, 2 LIMIT 4"""):
            print("    " + " | ".join(str(x) for x in row), file=sys.stderr)
    print(f"{name}: rebuilt, {d[3]} checkpoints compared")
    conn.execute("DROP TABLE k_state, k_ckpt, k_res")


def concurrent(c, rng):
    """Inserters (threads, a connection each) and the closing schedule at once: 200 sensors,
    readings up to 3 hours behind a simulated clock (many of them before heartbeats already
    applied: late, corrected), segpipe_close_silent() at the clock as it advances."""
    table, results = "busy", "busy_daily"
    with psycopg.connect(c.conninfo(DB), autocommit=True, options="-c TimeZone=UTC") as conn:
        conn.execute(f"CREATE TABLE {table} (sensor int NOT NULL, ts timestamptz NOT NULL, v float8)")
        conn.execute(f"SELECT segpipe_maintain('{table}', 'sensor', 'ts', 'v', $k${KEY}$k$, '{SPEC}', '{results}', "
                     f"watermark => '1 hour', heartbeat_unit => 'day', heartbeat_zone => 'Europe/Berlin', "
                     f"quiet => '5 hours')")
        clock = [int(utc(2026, 10, 23).timestamp())]
        done = threading.Event()
        errors = []

        def inserter(seed):
            r = random.Random(seed)
            try:
                with psycopg.connect(c.conninfo(DB), autocommit=True, options="-c TimeZone=UTC") as ic:
                    while not done.is_set():
                        now = clock[0]
                        rows = [(r.randrange(1, 201), now - r.randrange(0, 3 * H), float(r.randrange(100)))
                                for _ in range(30)]
                        ic.execute(f"INSERT INTO {table} SELECT * FROM unnest(%s::int[], %s::timestamptz[], %s::float8[])",
                                   ([x[0] for x in rows],
                                    [datetime.datetime.fromtimestamp(x[1], datetime.timezone.utc) for x in rows],
                                    [x[2] for x in rows]))
            except Exception as e:  # noqa: BLE001 (reported as a failed check)
                errors.append(repr(e))

        threads = [threading.Thread(target=inserter, args=(rng.random(),)) for _ in range(3)]
        for t in threads:
            t.start()
        applied = 0
        try:
            for _ in range(60):
                clock[0] += 1800
                at = datetime.datetime.fromtimestamp(clock[0], datetime.timezone.utc)
                applied += conn.execute("SELECT segpipe_close_silent(%s, %s)", (results, at)).fetchone()[0]
                time.sleep(0.05)
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))
        done.set()
        for t in threads:
            t.join()
        n = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        d = conn.execute(expected_diff_sql(results, table)).fetchone()
        print(f"concurrently: {n} readings from 3 inserters, {applied} heartbeats applied by 60 runs meanwhile, "
              f"{d[2]} results")
        check(not errors, f"concurrently: errors: {errors[:3]}")
        check(applied > 0 and n > 0, f"concurrently: {n} readings, {applied} heartbeats")
        check(d[0] == 0 and d[1] == 0,
              f"concurrently: results or states differ from the run over readings and heartbeats ({d[0]}, {d[1]})")


def cron_setup(conn):
    """A silent sensor whose days pg_cron closes: its one reading 3 days before now (at least
    two Berlin midnights are due an hour before now)."""
    conn.execute("CREATE EXTENSION pg_cron")
    conn.execute("CREATE TABLE cronned (sensor int NOT NULL, ts timestamptz NOT NULL, v float8)")
    conn.execute("INSERT INTO cronned VALUES (1, now() - interval '3 days', 5)")
    conn.execute(f"SELECT segpipe_maintain('cronned', 'sensor', 'ts', 'v', $k${KEY}$k$, '{SPEC}', 'cronned_daily', "
                 f"watermark => '1 hour', heartbeat_unit => 'day', heartbeat_zone => 'Europe/Berlin', "
                 f"schedule => '* * * * *')")
    job = conn.execute("SELECT jobid, schedule, command, database FROM cron.job").fetchall()
    check(len(job) == 1 and job[0][1] == "* * * * *"
          and job[0][2] == "SELECT public.segpipe_close_silent('public.cronned_daily'::pg_catalog.regclass)"
          and job[0][3] == DB, f"pg_cron: the job of cronned_daily: {job}")
    return time.monotonic()


def cron_finish(conn, started):
    waited = 0.0
    status = None
    deadline = time.monotonic() + 75
    while time.monotonic() < deadline:
        status = conn.execute("SELECT string_agg(DISTINCT status, ',') FROM cron.job_run_details "
                              "WHERE status NOT IN ('starting', 'running')").fetchone()[0]
        if status:
            break
        time.sleep(0.5)
    waited = time.monotonic() - started
    n = conn.execute("SELECT count(*) FROM cronned_daily_heartbeat").fetchone()[0]
    res = conn.execute("SELECT count(*) FROM cronned_daily").fetchone()[0]
    print(f"pg_cron: the job ran ({status}) {waited:.0f} s after set-up: {n} heartbeats, {res} results")
    check(status == "succeeded", f"pg_cron: the scheduled run: {status}")
    check(n >= 2 and res == 1, f"pg_cron: the scheduled run closed the silent sensor's day ({n} heartbeats, {res} results)")
    conn.execute("SELECT segpipe_unmaintain('cronned_daily', drop_tables => true)")
    left = conn.execute("SELECT count(*) FROM cron.job").fetchone()[0]
    check(left == 0, "pg_cron: segpipe_unmaintain() unscheduled the job")


def main():
    rng = random.Random(SEED)
    started = time.monotonic()
    fleet = Fleet("watermark")
    try:
        c = fleet.add("data", SETTINGS)
        c.psql("CREATE EXTENSION segpipe", DB)
        with psycopg.connect(c.conninfo(DB), autocommit=True, options="-c TimeZone=UTC") as conn:
            conn.execute("SELECT setseed(%s)", (rng.random() * 2 - 1,))  # the rows updated and deleted
            cron_started = cron_setup(conn)
            window(conn, rng, "spring", utc(2026, 3, 25), "")
            window(conn, rng, "autumn", utc(2026, 10, 21), ", quiet => '10 hours'")
            concurrent(c, rng)
            cron_finish(conn, cron_started)
    finally:
        fleet.close()
    print(f"elapsed: {time.monotonic() - started:.1f} s")
    return summary("silent sensors closed on time (watermark)")


if __name__ == "__main__":
    sys.exit(main())
