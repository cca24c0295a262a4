#!/usr/bin/env python3
"""The tour's results-table recipe, tested (docs/tour.md, "Results tables kept up to date").

It takes the recipe (tables and refresh procedure) from docs/tour.md itself, then, for
several random histories: readings arrive in batches, out of timestamp order, with
late readings and the same reading inserted twice mixed in; a refresh runs after each
batch, and one refresh is killed before it commits.  At the end, daily_results must
equal a full recomputation with segment_agg over the readings the late policy
accepted (worked out here, batch by batch, from the rule: a reading earlier than
what its sensor's pipeline has processed is late), and pipeline_late() must count
the refused ones.  Two specs: the tour's (a day's maximum) and a day's sum, which
also tells whether an accepted duplicate was counted exactly once.

Then pg_cron, when the server preloads it (run-tests.sh does): the refresh is
scheduled every minute, the finest pg_cron 1.4 allows, in a database of its own;
the schedule is made first and checked last, so its wait (under a minute) overlaps
the rest (run-tests.sh makes it with --cron-start before every other suite).

Connection settings come from the environment (pg_virtualenv).
    test/integration/recipe.py [rounds] [--no-cron]      the test (schedules too, if not done yet)
    test/integration/recipe.py --cron-start              only the schedule
"""
import os
import random
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # nothing left in test/__pycache__
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/: sptest, pgcluster
from sptest import check, readme_recipe, summary  # noqa: E402
import sptest  # noqa: E402

DB = "segpipe_recipe"
CRON_DB = "segpipe_recipe_cron"
JOB = "segpipe-recipe-test"
SEED = int(os.environ.get("SEGPIPE_SEED", "20261130"))
ROUNDS = int(next((a for a in sys.argv[1:] if a.isdigit()), "8"))
SUM_SPEC = ('{"type": "Pipeline", "id": "daily_sum", "input_port_types": ["number"], '
            '"output_port_types": ["number"], "operators": [{"type": "CumulativeSum", "id": "sum"}], '
            '"connections": [], "entryOperator": "sum", "outputMappings": {"sum": {"o1": "o1"}}, '
            '"late": "drop"}')
DAY = 86400
# what a refresh changes, in one line
SNAPSHOT = ("SELECT (SELECT count(*) FROM daily_results), (SELECT count(*) FROM sensor_state), "
            "(SELECT md5(string_agg(sensor_id || ' ' || last_id || ' ' || state::text, ',' "
            "ORDER BY sensor_id)) FROM sensor_state)")


def psql(sql, db=DB, check_rc=True):
    return sptest.psql(sql, db, "recipe", check_rc)


def fresh_db(db):
    subprocess.run(["dropdb", "--if-exists", db], check=True, stderr=subprocess.DEVNULL)
    subprocess.run(["createdb", db], check=True)
    psql("CREATE EXTENSION segpipe;\n" + readme_recipe("recipe"), db)


def insert(rows, db=DB):
    values = ",\n".join(f"({s}, to_timestamp({t}), {v!r})" for s, t, v in rows)
    psql(f"INSERT INTO sensor_readings (sensor_id, ts, v) VALUES\n{values};", db)


# ---------------------------------------------------------------- pg_cron
def cron_preloaded():
    return "pg_cron" in psql("SHOW shared_preload_libraries", "postgres")


def cron_start():
    """Readings for two days, then the refresh scheduled every minute."""
    fresh_db(CRON_DB)
    t0 = 1772323200  # 2026-03-01 00:00 UTC
    insert([(s, t0 + h * 3600 + s, float(10 * s + h % 7)) for s in (1, 2, 3) for h in range(0, 30)],
           CRON_DB)
    db = psql("SHOW cron.database_name", "postgres")
    psql("CREATE EXTENSION IF NOT EXISTS pg_cron", db)
    # the tour's command, run in this test's database
    job = psql(f"SELECT cron.schedule_in_database('{JOB}', '* * * * *', "
               f"'CALL refresh_daily_results()', '{CRON_DB}')", db)
    return db, int(job), time.monotonic()


def cron_finish(db, job, started):
    status = ""
    while time.monotonic() - started < 75:
        # every finished run so far (the job may have run several times)
        status = psql("SELECT string_agg(DISTINCT status, ',') FROM cron.job_run_details "
                      f"WHERE jobid = {job} AND status IN ('succeeded', 'failed')", db)
        if status:
            break
        time.sleep(1)
    waited = time.monotonic() - started
    psql(f"SELECT cron.unschedule('{JOB}')", db)
    left = psql(f"SELECT count(*) FROM cron.job WHERE jobname = '{JOB}'", db)
    print(f"pg_cron: scheduled runs, waited {waited:.0f} s here: {status or 'none'}")
    check(status == "succeeded", f"the scheduled refresh ran and succeeded ({status!r})")
    got = psql("SELECT string_agg(sensor_id || ' ' || key || ' ' || value, ', ' ORDER BY sensor_id, key) "
               "FROM daily_results", CRON_DB)
    # each sensor's 2026-03-01 maximum: 10 * s + 6 (hours 6, 13, 20)
    want = "1 2026-03-01 16, 2 2026-03-01 26, 3 2026-03-01 36"
    print(f"pg_cron: daily_results after the scheduled refresh: {got}")
    check(got == want, f"daily_results after the scheduled refresh is {got!r}, not {want!r}")
    check(left == "0", "cron.unschedule removed the job")
    psql("DROP EXTENSION pg_cron", db)
    subprocess.run(["dropdb", CRON_DB], check=True)


# ---------------------------------------------------------------- histories
def history(rng, nsensors):
    """Batches of (sensor, epoch seconds, value): on time, late, and repeated readings."""
    t0 = 1772323200
    clock = {s: t0 + rng.randrange(3600) for s in range(1, nsensors + 1)}
    sent = {s: [] for s in clock}
    batches = []
    for _ in range(rng.randint(4, 9)):
        batch = []
        for s in clock:
            if rng.random() < 0.15:
                continue  # this sensor sends nothing this time
            for _ in range(rng.randint(1, 40)):
                clock[s] += rng.choice([0, 600, 1200, 1800, 3600, 3 * 3600])
                r = rng.random()
                if r < 0.08 and sent[s]:
                    row = rng.choice(sent[s][-20:])            # the same reading again
                elif r < 0.14:
                    row = (s, clock[s] - rng.randint(1, DAY), round(rng.uniform(0, 100), 2))  # late
                else:
                    row = (s, clock[s], round(rng.uniform(0, 100), 2))
                batch.append(row)
                sent[s].append(row)
        rng.shuffle(batch)  # arrival order is not timestamp order
        batches.append(batch)
    return batches


def accept(batches):
    """Which readings (by id) the late policy accepts, refresh by refresh."""
    progress, accepted, late, dup = {}, set(), {}, 0
    next_id, seen = 1, set()
    for batch in batches:
        rows = []
        for s, t, v in batch:
            rows.append((s, t, next_id))
            dup += (s, t, v) in seen
            seen.add((s, t, v))
            next_id += 1
        for s, t, i in sorted(rows, key=lambda r: (r[0], r[1], r[2])):
            if s in progress and t < progress[s]:
                late[s] = late.get(s, 0) + 1
            else:
                progress[s] = t
                accepted.add(i)
    return accepted, late, dup


def round_trip(rng, spec, label):
    psql("TRUNCATE sensor_readings, sensor_state, daily_results RESTART IDENTITY;"
         f"ALTER TABLE sensor_state ALTER COLUMN state SET DEFAULT '{spec}';")
    batches = history(rng, rng.randint(1, 5))
    accepted, late, dup = accept(batches)
    kill_at = rng.randrange(len(batches))
    for n, batch in enumerate(batches):
        insert(batch)
        if n == kill_at:
            # a refresh whose session dies before it commits leaves nothing behind
            before = psql(SNAPSHOT)
            psql("BEGIN; CALL refresh_daily_results(); SELECT pg_terminate_backend(pg_backend_pid());",
                 check_rc=False)
            after = psql(SNAPSHOT)
            check(before == after, f"{label}: a killed refresh changed the tables ({before} -> {after})")
        psql("CALL refresh_daily_results()")
    count = psql("SELECT count(*) FROM daily_results")
    psql("CALL refresh_daily_results()")
    check(psql("SELECT count(*) FROM daily_results") == count, f"{label}: a refresh with nothing new added rows")

    ids = ",".join(f"({i})" for i in sorted(accepted)) or "(0)"
    diff, results, rows_ok = psql(f"""
CREATE TEMP TABLE accepted (id bigint PRIMARY KEY);
INSERT INTO accepted VALUES {ids};
WITH whole AS (
  SELECT sensor_id, ts, k AS key, 1 AS port, v AS value
  FROM (SELECT sensor_id, ts,
               segment_key(r.v, r.day) OVER w AS k,
               segment_agg(r.v, r.day, '{spec}') OVER w AS v
        FROM (SELECT r.*, (r.ts AT TIME ZONE 'UTC')::date AS day
              FROM sensor_readings AS r JOIN accepted USING (id)) AS r
        WINDOW w AS (PARTITION BY sensor_id ORDER BY ts, id)) AS x
  WHERE v IS NOT NULL),
     got AS (SELECT sensor_id, ts, key, port, value FROM daily_results)
SELECT (SELECT count(*) FROM ((SELECT * FROM whole EXCEPT ALL SELECT * FROM got)
                             UNION ALL (SELECT * FROM got EXCEPT ALL SELECT * FROM whole)) AS d),
       (SELECT count(*) FROM got),
       (SELECT sum(pipeline_rows(state)) = {len(accepted)} FROM sensor_state) IS NOT FALSE;""").split("|")
    got_late = dict((int(s), int(n)) for s, n in
                    (l.split("|") for l in psql("SELECT sensor_id, pipeline_late(state) FROM sensor_state "
                                                "WHERE pipeline_late(state) > 0").splitlines()))
    total = sum(len(b) for b in batches)
    print(f"{label}: {total} readings in {len(batches)} refreshes, {dup} repeated, "
          f"{sum(late.values())} late; {results} results, {diff} differing from the recomputation")
    check(diff == "0", f"{label}: daily_results differs from segment_agg over the accepted readings in {diff} rows")
    check(got_late == late, f"{label}: pipeline_late() says {got_late}, the rule says {late}")
    check(rows_ok == "t", f"{label}: pipeline_rows() does not count the {len(accepted)} accepted readings")
    return sum(late.values()), dup, int(results)


def main():
    if "--cron-start" in sys.argv:
        # run-tests.sh schedules early, so that the first run has happened by the end
        if cron_preloaded():
            cron_start()
            print("pg_cron: refresh scheduled")
        return 0
    cron = None
    if "--no-cron" not in sys.argv:
        if not cron_preloaded():
            check(False, "pg_cron is not in shared_preload_libraries (run with --no-cron to skip)")
        else:
            db = psql("SHOW cron.database_name", "postgres")
            scheduled = psql(f"SELECT jobid FROM cron.job WHERE jobname = '{JOB}'", db) \
                if psql("SELECT count(*) FROM pg_extension WHERE extname = 'pg_cron'", db) == "1" else ""
            cron = (db, int(scheduled), time.monotonic()) if scheduled else cron_start()
    fresh_db(DB)
    rng = random.Random(SEED)
    default = psql("SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef "
                   "WHERE adrelid = 'sensor_state'::regclass AND adnum = 3")
    readme_spec = re.match(r"^'(.*)'::pipeline$", default, re.S).group(1).replace("''", "'")
    late = dup = results = 0
    for n in range(ROUNDS):
        for spec, name in ((readme_spec, "daily max"), (SUM_SPEC, "daily sum")):
            a, b, c = round_trip(rng, spec, f"round {n + 1}, {name}")
            late, dup, results = late + a, dup + b, results + c
    print(f"recipe: {2 * ROUNDS} histories, {results} results, {late} late readings, {dup} repeated")
    check(late > 0 and dup > 0, "the histories had late and repeated readings")
    subprocess.run(["dropdb", DB], check=True)
    if cron:
        cron_finish(*cron)
    return summary("results tables recipe")


if __name__ == "__main__":
    sys.exit(main())
