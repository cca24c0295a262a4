#!/usr/bin/env python3
"""segpipe over TimescaleDB hypertables (docs/timescaledb.md, "Hypertables"), on the major it
runs on, with the distribution's TimescaleDB installed (test/majors/timescaledb.sh).

Starts its own throwaway clusters (test/pgcluster.py): one with shared_preload_libraries =
'timescaledb,segpipe', one with 'timescaledb' only.

  - readings as a hypertable with daily chunks, and another also space-partitioned (a hash of
    sensor, 3 partitions), each with a plain copy: segment_agg ... OVER (PARTITION BY sensor
    ORDER BY ts) and pipeline_agg ... GROUP BY sensor give the same bytes (float8send,
    pipeline_send) over the hypertable as over the copy, whole and over a ts range;
  - EXPLAIN of a ts range (and of a ts range and a sensor on the space-partitioned one) scans
    only the chunks it needs;
  - segpipe_maintain on the hypertable: after each of inserts that create chunks, COPY, late
    rows, UPDATE of a value, of a ts across chunks and of a sensor, DELETE, drop_chunks(),
    segpipe_close_silent, segpipe_rebuild and TRUNCATE, the results equal a recomputation over
    the readings (and the heartbeats applied), bit for bit, and every state its sensor's rows
    and progress; then 30 random statements of those kinds (seeded), each checked so; under beyond_horizon => 'keep' a chunk dropped behind the horizon leaves the
    results as they were, and under 'error' such a drop is refused;
  - retention policies: add_retention_policy is the Timescale License's, as are compression,
    continuous aggregates and jobs: the Apache build (Debian's) refuses them all (checked); where
    a build has them, a retention policy's job run by hand (CALL run_job) is maintained as
    drop_chunks is;
  - set-up on a hypertable is refused (55000) where segpipe is not in shared_preload_libraries.

Ends with "TimescaleDB: N passed, M failed".
"""
import os
import random
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pgcluster import Fleet, SqlError  # noqa: E402
from sptest import check, summary  # noqa: E402

SPEC = ('{"type": "Pipeline", "id": "day", "output_port_types": ["number"], '
        '"operators": [{"type": "MovingAverage", "id": "ma", "window_size": 4}], '
        '"connections": [], "entryOperator": "ma", "outputMappings": {"ma": {"o1": "o1"}}}')
KEY = "date_trunc('day', ts, 'UTC')"

# six sensors, readings about every 47 minutes from 2026-03-01 to 03-05, NaN and NULL among them
ROWS = ("SELECT s AS sensor, timestamptz '2026-03-01 00:00+00' + make_interval(secs => i * 2820 + s * 13) AS ts, "
        "CASE WHEN i % 29 = 0 THEN 'NaN' WHEN i % 31 = 0 THEN NULL "
        "ELSE ((i * 7919 + s) % 2003 - 1000) / 32.0 END::float8 AS v "
        "FROM generate_series(1, 6) AS s, generate_series({lo}, {hi}) AS i")


def chunks(c, table):
    return int(c.psql(f"SELECT count(*) FROM show_chunks('{table}')"))


def forms(c, table, where=""):
    """The window form's emissions and the aggregate form's pipelines, as bytes, ordered."""
    w = c.psql(f"SELECT sensor, ts, encode(float8send(e), 'hex') FROM "
               f"(SELECT sensor, ts, segment_agg(v, {KEY}, '{SPEC}') OVER w AS e FROM {table} {where} "
               f"WINDOW w AS (PARTITION BY sensor ORDER BY ts, v)) AS q WHERE e IS NOT NULL ORDER BY 1, 2")
    a = c.psql(f"SELECT sensor, md5(pipeline_send(pipeline_agg(ts, v, {KEY}, '{SPEC}' ORDER BY ts, v))) "
               f"FROM {table} {where} GROUP BY sensor ORDER BY 1")
    return w, a


def same_forms(c, hyper, plain, what, where=""):
    hw, ha = forms(c, hyper, where)
    pw, pa = forms(c, plain, where)
    check(hw == pw and len(hw.splitlines()) >= 6,
          f"{what}: segment_agg over the hypertable ({len(hw.splitlines())} emissions) as over the plain "
          f"table ({len(pw.splitlines())})")
    check(ha == pa and len(ha.splitlines()) == 6,
          f"{what}: pipeline_agg GROUP BY sensor over the hypertable as over the plain table")


def scanned_chunks(c, query):
    """The chunks a plan scans (an index's name is the chunk's and more: not counted)."""
    return len(set(re.findall(r" on (?:_timescaledb_internal\.)?(_hyper_[0-9]+_[0-9]+_chunk)\b",
                              c.psql("EXPLAIN (COSTS OFF) " + query))))


def expected(results, key, hb):
    """Differences between results and a run over the readings (and heartbeats) now, and
    between the states and their sensors' rows and progress: one row of four counts."""
    extra = f" UNION ALL SELECT sensor, ts, NULL, key FROM {results}_heartbeat" if hb else ""
    return f"""WITH r AS (SELECT sensor, ts, v, ({key}) AS k FROM readings{extra}),
emit0 AS (SELECT sensor, ts, segment_key(v, k) OVER w AS k, segment_agg(v, k, '{SPEC}') OVER w AS e
          FROM r WINDOW w AS (PARTITION BY sensor ORDER BY ts, v NULLS LAST, k)),
emit AS (SELECT sensor, ts, k AS key, 1 AS port, float8send(e) AS value FROM emit0 WHERE e IS NOT NULL),
got AS (SELECT sensor, ts, key, port, float8send(value) AS value FROM {results}),
agg AS (SELECT sensor, count(*) AS n, max(ts) AS last FROM r GROUP BY sensor),
st AS (SELECT sensor, pipeline_rows(state) AS n, pipeline_progress(state) AS last FROM {results}_state)
SELECT (SELECT count(*) FROM ((TABLE emit EXCEPT ALL TABLE got) UNION ALL (TABLE got EXCEPT ALL TABLE emit)) AS d),
       (SELECT count(*) FROM agg FULL JOIN st USING (sensor) WHERE agg.n IS DISTINCT FROM st.n
                                                                OR agg.last IS DISTINCT FROM st.last),
       (SELECT count(*) FROM got), (SELECT count(*) FROM readings)"""


def snapshot(c, results):
    return c.psql(f"SELECT md5(string_agg(format('%s %s %s %s %s', sensor, ts, key, port, "
                  f"encode(float8send(value), 'hex')), ',' ORDER BY sensor, ts, port)) FROM {results}; "
                  f"SELECT md5(string_agg(encode(pipeline_send(state), 'hex'), ',' ORDER BY sensor)) "
                  f"FROM {results}_state")


class Maintained:
    def __init__(self, c):
        self.c = c
        self.nonempty = 0   # checks of results that have rows

    def verify(self, what):
        for results, hb in (("daily", False), ("closed", True)):
            d, s, n, rows = self.c.psql(expected(results, KEY, hb)).split("|")
            self.nonempty += n != "0"
            check(d == "0" and s == "0",
                  f"after {what}: {results} ({n} results over {rows} readings) differs from a run over the "
                  f"readings in {d} rows, its states from their sensors in {s}")

    def step(self, what, sql):
        self.c.psql(sql)
        self.verify(what)


def maintained(c):
    c.psql(f"""CREATE TABLE readings (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT create_hypertable('readings', by_range('ts', interval '1 day'));
INSERT INTO readings {ROWS.format(lo=1, hi=60)};
SELECT segpipe_maintain('readings', 'sensor', 'ts', 'v', $k${KEY}$k$, '{SPEC}', 'daily');
SELECT segpipe_maintain('readings', 'sensor', 'ts', 'v', $k${KEY}$k$, '{SPEC}', 'closed',
                        watermark => '1 hour', heartbeat_unit => 'day', heartbeat_zone => 'UTC')""")
    m = Maintained(c)
    m.verify("set-up over 2 chunks")
    before = chunks(c, "readings")
    m.step("inserts that create chunks", f"INSERT INTO readings {ROWS.format(lo=61, hi=120)}")
    check(chunks(c, "readings") > before, f"the inserts created chunks ({before} -> {chunks(c, 'readings')})")
    copy = "\n".join(f"{s}\t2026-03-05 {h:02d}:{s:02d}:00+00\t{(h * 31 + s) % 17 / 4}" for s in range(1, 7)
                     for h in range(0, 24, 3))
    m.step("COPY into a new chunk", f"COPY readings (sensor, ts, v) FROM STDIN;\n{copy}\n\\.\n")
    m.step("late rows", "INSERT INTO readings VALUES (2, '2026-03-01 05:00:01+00', 7.5), "
                        "(4, '2026-03-02 10:10:10+00', -3), (7, '2026-03-01 01:00+00', 1)")
    m.step("UPDATE of values", "UPDATE readings SET v = v * 2 WHERE sensor = 3 AND ts < '2026-03-03'")
    m.step("UPDATE of a ts within its chunk", "UPDATE readings SET ts = ts + interval '5 hours' "
                                              "WHERE sensor = 5 AND ts BETWEEN '2026-03-02' AND '2026-03-02 06:00'")
    # TimescaleDB moves no row to another chunk: the statement fails, nothing changes
    _, err = c.psql("UPDATE readings SET ts = ts + interval '1 day' WHERE sensor = 4 AND ts < '2026-03-02'",
                    check=False)
    check("violates check constraint" in err, f"an UPDATE of a ts into another chunk is refused by TimescaleDB ({err[:100]})")
    m.verify("an UPDATE refused")
    m.step("UPDATE of a sensor", "UPDATE readings SET sensor = 6 WHERE sensor = 1 AND ts >= '2026-03-04'")
    # DDL on the hypertable (TimescaleDB passes it to the chunks): the chunks get no triggers
    m.step("ALTER TABLE of the hypertable", "ALTER TABLE readings ADD COLUMN note text; "
                                            "ALTER TABLE readings SET (autovacuum_enabled = on)")
    check(c.psql("SELECT count(*) FROM pg_trigger WHERE tgrelid IN (SELECT show_chunks('readings'))") == "0",
          "no trigger of segpipe's on a chunk")
    m.step("an insert after it", "INSERT INTO readings VALUES (3, '2026-03-05 22:00+00', 2, 'x')")
    m.step("DELETE", "DELETE FROM readings WHERE sensor = 2 AND ts BETWEEN '2026-03-03' AND '2026-03-03 12:00'")
    m.step("segpipe_close_silent", "SELECT segpipe_close_silent('closed', '2026-03-08')")
    check(c.psql("SELECT count(*) FROM closed_heartbeat") != "0", "segpipe_close_silent applied heartbeats")
    m.step("late rows after heartbeats", "INSERT INTO readings VALUES (3, '2026-03-05 23:00+00', 4)")

    n = chunks(c, "readings")
    m.step("drop_chunks of the oldest chunk", "SELECT count(*) FROM drop_chunks('readings', older_than => "
                                              "timestamptz '2026-03-02')")
    check(chunks(c, "readings") == n - 1, f"drop_chunks dropped one chunk ({n} -> {chunks(c, 'readings')})")
    check(c.psql("SELECT count(*) FROM readings WHERE ts < '2026-03-02'") == "0", "its readings are gone")
    m.step("drop_chunks of the newest chunk", "SELECT count(*) FROM drop_chunks('readings', newer_than => "
                                              "timestamptz '2026-03-05')")

    # beyond_horizon => 'keep', 2 days, on a hypertable of its own
    c.psql(f"""CREATE TABLE retained (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT create_hypertable('retained', by_range('ts', interval '1 day'));
INSERT INTO retained SELECT * FROM ({ROWS.format(lo=1, hi=150)}) AS r WHERE ts < '2026-03-05';
SELECT segpipe_maintain('retained', 'sensor', 'ts', 'v', $k${KEY}$k$, '{SPEC}', 'kept',
                        horizon => '2 days', beyond_horizon => 'keep')""")
    four = snapshot(c, "kept")
    c.psql(f"INSERT INTO retained SELECT * FROM ({ROWS.format(lo=1, hi=150)}) AS r WHERE ts >= '2026-03-05'")
    check(snapshot(c, "kept") != four, "'keep': a fifth day changes the results")
    c.psql("SELECT count(*) FROM drop_chunks('retained', newer_than => timestamptz '2026-03-05')")
    check(snapshot(c, "kept") == four,
          "'keep': the chunk of the fifth day dropped (within the horizon), results and states are as before it")
    c.psql("SELECT count(*) FROM drop_chunks('retained', older_than => timestamptz '2026-03-02')")
    check(c.psql("SELECT count(*) FROM retained WHERE ts < '2026-03-02'") == "0" and snapshot(c, "kept") == four,
          "'keep': the chunk of the first day dropped (behind the horizon), results and states stay final")
    c.psql("SELECT segpipe_unmaintain('kept', true)")
    # 'error': a dropped chunk older than the horizon is refused
    c.psql(f"SELECT segpipe_maintain('readings', 'sensor', 'ts', 'v', $k${KEY}$k$, '{SPEC}', 'strict', "
           "horizon => '1 day', beyond_horizon => 'error')")
    n = chunks(c, "readings")
    _, err = c.psql("SELECT drop_chunks('readings', older_than => timestamptz '2026-03-03')", check=False)
    check("is older than the horizon of" in err and chunks(c, "readings") == n,
          f"beyond_horizon => 'error': drop_chunks behind the horizon is refused ({err[:160]})")
    c.psql("SELECT segpipe_unmaintain('strict', true)")

    # retention policies: the Timescale License's; where present, its job is maintained
    out, err = c.psql("SELECT add_retention_policy('readings', drop_after => "
                      "(now() - timestamptz '2026-03-02 12:00+00')::interval)", check=False)
    apache = c.psql("SHOW timescaledb.license") == "apache"
    if apache:
        check(out == "" and "not supported under the current \"apache\" license" in err,
              f"the Apache build refuses add_retention_policy ({err[:120]})")
        # and what else docs/timescaledb.md says it lacks
        for what, q in (("compression", "ALTER TABLE readings SET (timescaledb.compress)"),
                        ("continuous aggregates", "CREATE MATERIALIZED VIEW d WITH (timescaledb.continuous) AS "
                         "SELECT time_bucket('1 day', ts) AS day, avg(v) FROM readings GROUP BY 1"),
                        ("jobs", "SELECT add_job('pg_catalog.now', '1 hour')")):
            _, err = c.psql(q, check=False)
            check("not supported under the current \"apache\" license" in err,
                  f"the Apache build refuses {what} ({err[:120]})")
    else:
        n = chunks(c, "readings")
        m.step("a retention policy's job run by hand", f"CALL run_job({int(out)})")
        check(chunks(c, "readings") < n, "the retention job dropped chunks")

    # random statements, seeded: each followed by the check
    rnd = random.Random(33)
    dropped = 0
    for i in range(30):
        s, day, h = rnd.randint(1, 7), rnd.randint(2, 6), rnd.randint(0, 23)
        at = f"'2026-03-{day:02d} {h:02d}:{rnd.randint(0, 59):02d}:00+00'"
        # every sixth a chunk dropped (late rows and COPY make chunks of those days again)
        kind = "drop" if i % 6 == 5 else rnd.choice(["insert", "insert", "late", "update", "delete", "copy"])
        if kind == "insert":
            q = (f"INSERT INTO readings SELECT {s}, max(ts) + interval '7 minutes' * g, g / 3.0 "
                 f"FROM readings, generate_series(1, {rnd.randint(1, 40)}) AS g GROUP BY g")
        elif kind == "late":
            q = f"INSERT INTO readings VALUES ({s}, {at}, {rnd.randint(-50, 50) / 4})"
        elif kind == "update":
            q = f"UPDATE readings SET v = v + 1 WHERE sensor = {s} AND ts >= {at} AND ts < {at}::timestamptz + interval '5 hours'"
        elif kind == "delete":
            q = f"DELETE FROM readings WHERE sensor = {s} AND ts >= {at} AND ts < {at}::timestamptz + interval '3 hours'"
        elif kind == "drop":
            # the chunk of one of the days that have readings
            d = rnd.choice(c.psql("SELECT DISTINCT date_trunc('day', ts, 'UTC')::date FROM readings ORDER BY 1").split())
            q = (f"SELECT count(*) FROM drop_chunks('readings', newer_than => timestamptz '{d} 00:00+00', "
                 f"older_than => timestamptz '{d} 00:00+00' + interval '1 day')")
        else:
            rows = "\n".join(f"{s}\t2026-03-{day:02d} {h:02d}:{m2:02d}:30+00\t{m2 / 8}" for m2 in range(0, 60, 6))
            q = f"COPY readings (sensor, ts, v) FROM STDIN;\n{rows}\n\\.\n"
        n = chunks(c, "readings")
        m.step(f"random statement {i + 1} ({kind})", q)
        dropped += n - chunks(c, "readings") if kind == "drop" else 0
    check(dropped == 5, f"the random statements dropped a chunk 5 times ({dropped})")

    before = snapshot(c, "daily")
    m.step("segpipe_rebuild", "SELECT segpipe_rebuild('daily'); SELECT segpipe_rebuild('closed')")
    check(snapshot(c, "daily") == before, "segpipe_rebuild leaves the bytes maintenance left")
    m.step("TRUNCATE", "TRUNCATE readings")
    check(chunks(c, "readings") == 0 and c.psql("SELECT count(*) FROM daily") == "0",
          "TRUNCATE dropped the chunks and emptied the results")
    m.step("inserts after TRUNCATE", f"INSERT INTO readings {ROWS.format(lo=1, hi=50)}")
    check(m.nonempty >= 80, f"the checks compared results that have rows ({m.nonempty} times)")
    _, err = c.psql("DROP TABLE readings", check=False)
    check(err == "" and c.psql("SELECT count(*) FROM segpipe_catalog") == "0",
          f"DROP TABLE of the hypertable: its catalog rows go ({err[:160]})")


def main():
    fleet = Fleet("timescaledb")
    c = fleet.add("ts", {"shared_preload_libraries": "timescaledb,segpipe",
                         "timescaledb.telemetry_level": "off", "max_worker_processes": "8"})
    c.psql("CREATE EXTENSION timescaledb; CREATE EXTENSION segpipe")
    print("TimescaleDB " + c.psql("SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'") +
          ", license " + c.psql("SHOW timescaledb.license"))

    # the forms over a hypertable and over a plain copy
    c.psql(f"""CREATE TABLE r1 (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT create_hypertable('r1', by_range('ts', interval '1 day'));
CREATE TABLE r2 (LIKE r1);
SELECT create_hypertable('r2', by_range('ts', interval '1 day'));
SELECT add_dimension('r2', by_hash('sensor', 3));
INSERT INTO r1 {ROWS.format(lo=1, hi=150)};
INSERT INTO r2 SELECT * FROM r1;
CREATE TABLE p1 AS SELECT * FROM r1""")
    check(chunks(c, "r1") == 5, f"daily chunks: 5 ({chunks(c, 'r1')})")
    check(chunks(c, "r2") > 5, f"daily and space chunks: more than 5 ({chunks(c, 'r2')})")
    for t in ("r1", "r2"):
        same_forms(c, t, "p1", f"{t}, every reading")
        same_forms(c, t, "p1", f"{t}, 2026-03-02 to 03-04", "WHERE ts >= '2026-03-02' AND ts < '2026-03-04'")
    q = "SELECT sensor, pipeline_agg(ts, v, {k}, '{s}' ORDER BY ts) FROM r1 WHERE ts >= '2026-03-03' " \
        "AND ts < '2026-03-04' GROUP BY sensor"
    n = scanned_chunks(c, q.format(k=KEY, s=SPEC))
    check(n == 1, f"a day's range scans one daily chunk of 5 ({n})")
    n = scanned_chunks(c, f"SELECT segment_agg(v, {KEY}, '{SPEC}') OVER (ORDER BY ts) FROM r2 "
                          "WHERE ts >= '2026-03-03' AND ts < '2026-03-04' AND sensor = 4")
    check(n == 1, f"a day and a sensor scan one chunk of the space-partitioned hypertable ({n})")

    maintained(c)

    # set-up needs segpipe preloaded
    c2 = fleet.add("ts_only", {"shared_preload_libraries": "timescaledb", "timescaledb.telemetry_level": "off"})
    _, err = c2.psql(f"""CREATE EXTENSION timescaledb; CREATE EXTENSION segpipe;
CREATE TABLE readings (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT create_hypertable('readings', by_range('ts', interval '1 day'));
\\set VERBOSITY verbose
SELECT segpipe_maintain('readings', 'sensor', 'ts', 'v', $k${KEY}$k$, '{SPEC}', 'daily')""", check=False)
    check("55000" in err and "shared_preload_libraries" in err,
          f"without segpipe in shared_preload_libraries, set-up on a hypertable is refused ({err[:200]})")
    fleet.close()
    return summary("TimescaleDB")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SqlError as e:
        check(False, str(e))
        sys.exit(summary("TimescaleDB"))
