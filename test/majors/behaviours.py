#!/usr/bin/env python3
"""What a PostgreSQL major changes around segpipe, checked on the major it runs on
(docs/versions.md says the same, per version).

Starts its own throwaway clusters (test/pgcluster.py): a coordinator and a shard.

  postgres_fdw (the shard a foreign server with extensions 'segpipe'):
    - pipeline_agg GROUP BY sensor is shipped with a day key written with an interval, and not
      with a key whose function takes a text literal ('UTC', a zone name for date_trunc); both
      give the local results, bit for bit;
    - segment_agg (a window function) is never shipped;
    - pipeline_agg fed a state from the outer query (LATERAL) is shipped from 17 on, the state
      a parameter of the remote query, and not on 15; the same results either way;
    - a pipeline[] constant (state = ANY (ARRAY[...])) is shipped from 17 on, where pipeline[]
      is a member of the extension (pg_depend), and not on 15;
  MERGE and RETURNING:
    - MERGE upserts states computed by pipeline_agg (every major);
    - MERGE ... RETURNING merge_action() feeds emissions() in the same statement (17 on; a
      syntax error before);
    - UPDATE ... RETURNING old.state, new.state around punctuate (18 on);
  triggers with transition tables (segpipe_maintain): rows inserted by INSERT, COPY, MERGE and
    INSERT ... ON CONFLICT DO NOTHING reach the maintained results, which equal pipeline_agg over
    the readings;
  generated columns in a maintained readings table: STORED ones work as value and key; VIRTUAL
    ones (18) are NULL in a trigger's transition table, so segpipe_maintain refuses them;
  18's PG_MODULE_MAGIC_EXT: pg_get_loaded_modules() names segpipe and its version.

Each check says what it expects on this major.  Ends with
"PostgreSQL N behaviours: N passed, M failed".
"""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pgcluster import Fleet, SqlError  # noqa: E402
from sptest import check, summary  # noqa: E402

SPEC = ('{"type": "Pipeline", "id": "day", "output_port_types": ["number", "number"], '
        '"operators": [{"type": "Identity", "id": "in"}, '
        '{"type": "MovingAverage", "id": "ma", "window_size": 4}, {"type": "MaxTracker", "id": "max"}], '
        '"connections": [{"from": "in", "to": "ma"}, {"from": "in", "to": "max"}], "entryOperator": "in", '
        '"outputMappings": {"ma": {"o1": "o1"}, "max": {"o1": "o2"}}, "late": "drop"}')

ROWS = ("SELECT i, s AS sensor_id, timestamptz '2026-03-01 00:00+00' + make_interval(secs => i * 3300 + s * 7) AS ts, "
        "CASE WHEN i % 29 = 0 THEN 'NaN' WHEN i % 31 = 0 THEN NULL "
        "ELSE ((i * 7919 + s) % 2003 - 1000) / 32.0 END::float8 AS v "
        "FROM generate_series(1, 4) AS s, generate_series(1, 120) AS i")

# day keys: (key, shipped on every major tested)
KEYS = {
    "interval": ("(ts AT TIME ZONE INTERVAL '0')::date", True),
    "'UTC'": ("(ts AT TIME ZONE 'UTC')::date", False),
    "zone name": ("date_trunc('day', ts, 'Europe/Berlin')", False),
}

EXACT = ("SELECT q.sensor_id, extract(epoch FROM e.ts), e.key, e.port, encode(float8send(e.value), 'hex') "
         "FROM ({}) AS q, emissions(q.p) AS e ORDER BY 1, 2, 4")


def per_sensor(key, table="readings"):
    return (f"SELECT sensor_id, pipeline_agg(ts, v, {key}, '{SPEC}' ORDER BY ts) AS p "
            f"FROM {table} GROUP BY sensor_id")


def remote_sql(plan):
    return [line.split("Remote SQL:", 1)[1] for line in plan.splitlines() if "Remote SQL:" in line]


def fdw(co, shard, major):
    shard.psql("CREATE EXTENSION segpipe;\n"
               f"CREATE TABLE readings AS {ROWS};\n"
               f"CREATE TABLE states AS SELECT sensor_id, p AS state FROM "
               f"({per_sensor(KEYS['interval'][0], '(SELECT * FROM readings WHERE i <= 60) AS r')}) AS q;")
    co.psql("CREATE EXTENSION segpipe; CREATE EXTENSION postgres_fdw;\n"
            f"CREATE SERVER shard FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '{co.fleet.root}', "
            f"port '{shard.port}', dbname 'postgres', extensions 'segpipe');\n"
            "CREATE USER MAPPING FOR CURRENT_USER SERVER shard OPTIONS (user 'postgres');\n"
            "CREATE FOREIGN TABLE readings (i int, sensor_id int, ts timestamptz, v float8) SERVER shard;\n"
            "CREATE FOREIGN TABLE states (sensor_id int, state pipeline) SERVER shard;\n"
            f"CREATE TABLE local_readings AS {ROWS};")
    for label, (key, shipped) in KEYS.items():
        plan = co.psql("EXPLAIN (VERBOSE, COSTS OFF) " + per_sensor(key))
        got = any("pipeline_agg(" in q for q in remote_sql(plan))
        check(got == shipped, f"postgres_fdw {major}: pipeline_agg with the {label} day key "
              f"{'is' if got else 'is not'} shipped, expected {'shipped' if shipped else 'not shipped'}\n{plan}")
        same = co.psql(EXACT.format(per_sensor(key))) == co.psql(EXACT.format(per_sensor(key, "local_readings")))
        check(same, f"postgres_fdw {major}: the {label} day key gives other results through the shard")
        print(f"postgres_fdw: pipeline_agg with the {label} day key: {'shipped' if got else 'not shipped'}, "
              f"results equal to local: {same}")

    plan = co.psql("EXPLAIN (VERBOSE, COSTS OFF) SELECT sensor_id, ts, segment_agg(v, ts::date, "
                   f"'{SPEC}') OVER (PARTITION BY sensor_id ORDER BY ts) FROM readings")
    got = any("segment_agg" in q for q in remote_sql(plan))
    check(not got and "WindowAgg" in plan, f"postgres_fdw {major}: segment_agg was shipped\n{plan}")
    print(f"postgres_fdw: segment_agg (a window function): {'shipped' if got else 'not shipped'}")

    # a state from the outer query: from 17 on, a parameterized aggregate on the shard (each
    # state sent as a parameter, one round trip per sensor); on 15 the rows are fetched
    lateral = ("SELECT s.sensor_id, n.p FROM {} AS s, LATERAL "
               "(SELECT pipeline_agg(r.ts, r.v, (r.ts AT TIME ZONE INTERVAL '0')::date, s.state ORDER BY r.ts) AS p "
               "FROM {} AS r WHERE r.sensor_id = s.sensor_id AND r.i > 60 GROUP BY r.sensor_id) AS n")
    plan = co.psql("EXPLAIN (VERBOSE, COSTS OFF) " + lateral.format("states", "readings"))
    got = any("pipeline_agg" in q for q in remote_sql(plan))
    check(got == (major >= 17), f"postgres_fdw {major}: pipeline_agg with a state from the outer query is "
          f"{'' if got else 'not '}shipped\n{plan}")
    co.psql("CREATE TABLE local_states AS SELECT * FROM states")
    here = co.psql(EXACT.format(lateral.format("local_states", "local_readings")))
    same = co.psql(EXACT.format(lateral.format("states", "readings"))) == here
    check(same and len(here.splitlines()) >= 8,
          f"postgres_fdw {major}: pipeline_agg with a state from the outer query gives other results")
    print(f"postgres_fdw: pipeline_agg fed a state from the outer query (LATERAL): "
          f"{'shipped, as a parameter' if got else 'not shipped'}, {len(here.splitlines())} emissions, "
          f"equal to local: {same}")

    # pipeline[] is a member of the extension from 17 on (on 15 only pipeline is), and
    # postgres_fdw ships what the listed extensions own
    member = co.psql("SELECT count(*) FROM pg_depend WHERE classid = 'pg_type'::regclass "
                     "AND objid = 'pipeline[]'::regtype AND deptype = 'e'") == "1"
    check(member == (major >= 17), f"PostgreSQL {major}: pipeline[] is {'' if member else 'not '}a member "
          "of the extension")
    state = shard.psql("SELECT state FROM states WHERE sensor_id = 2").replace("'", "''")
    q = f"SELECT sensor_id FROM states WHERE state = ANY (ARRAY['{state}'::pipeline])"
    plan = co.psql("EXPLAIN (VERBOSE, COSTS OFF) " + q)
    got = any("ANY" in r for r in remote_sql(plan))
    check(got == (major >= 17), f"postgres_fdw {major}: a pipeline[] constant is "
          f"{'' if got else 'not '}shipped\n{plan}")
    check(co.psql(q) == "2", f"postgres_fdw {major}: state = ANY (ARRAY[...]) finds the stored state")
    print(f"pipeline[] a member of the extension: {member}; postgres_fdw ships a pipeline[] constant: {got}")


def merge_returning(co, major):
    co.psql(f"""
CREATE TABLE m_readings AS {ROWS};
CREATE TABLE m_state (sensor_id int PRIMARY KEY, state pipeline NOT NULL);
CREATE TABLE m_results (sensor_id int, ts timestamptz, key date, port int, value float8);
CREATE TABLE u_state (sensor_id int PRIMARY KEY, state pipeline NOT NULL);""")
    # two batches, upserted with MERGE and, for comparison, with INSERT ... ON CONFLICT
    for lo, hi in ((1, 70), (71, 120)):
        src = (f"SELECT b.sensor_id, pipeline_agg(b.ts, b.v, (b.ts AT TIME ZONE INTERVAL '0')::date, "
               f"coalesce(s.state, '{SPEC}') ORDER BY b.ts) AS p FROM (SELECT * FROM m_readings "
               f"WHERE ts >= timestamptz '2026-03-01 00:00+00' + make_interval(secs => {lo} * 3300) "
               f"AND ts < timestamptz '2026-03-01 00:00+00' + make_interval(secs => {hi + 1} * 3300)) AS b "
               "LEFT JOIN STATE_TABLE AS s USING (sensor_id) GROUP BY b.sensor_id, s.state")
        co.psql(f"MERGE INTO m_state AS t USING ({src.replace('STATE_TABLE', 'm_state')}) AS n ON t.sensor_id = n.sensor_id "
                "WHEN MATCHED THEN UPDATE SET state = n.p WHEN NOT MATCHED THEN INSERT VALUES (n.sensor_id, n.p);\n"
                f"INSERT INTO u_state SELECT * FROM ({src.replace('STATE_TABLE', 'u_state')}) AS n "
                "ON CONFLICT (sensor_id) DO UPDATE SET state = excluded.state;")
    same = co.psql("SELECT count(*) FROM m_state JOIN u_state USING (sensor_id) "
                   "WHERE m_state.state = u_state.state") == "4"
    check(same, f"MERGE {major}: the states upserted by MERGE differ from INSERT ... ON CONFLICT's")
    print(f"MERGE upserting pipeline_agg's states: equal to INSERT ... ON CONFLICT: {same}")

    # MERGE ... RETURNING (17 on): the emissions of a watermark in the statement that stores it
    sql = (f"WITH m AS (MERGE INTO m_state AS t USING (SELECT sensor_id FROM m_state) AS n "
           "ON t.sensor_id = n.sensor_id WHEN MATCHED THEN UPDATE SET state = "
           "punctuate(t.state, timestamptz '2026-03-10 00:00+00', date '2026-03-10') "
           "RETURNING merge_action() AS action, t.sensor_id, t.state) "
           "INSERT INTO m_results SELECT m.sensor_id, e.ts, e.key::date, e.port, e.value FROM m, emissions(m.state) AS e "
           "WHERE m.action = 'UPDATE'")
    out, err = co.psql(sql, check=False)
    if major >= 17:
        ok = not err and co.psql(
            "SELECT count(*) = 8 AND count(DISTINCT sensor_id) = 4 FROM m_results") == "t"
        ok = ok and co.psql(
            "SELECT count(*) FROM (SELECT sensor_id, ts, key::text, port, float8send(value) FROM m_results "
            "EXCEPT SELECT u.sensor_id, e.ts, e.key, e.port, float8send(e.value) FROM u_state AS u, "
            "emissions(punctuate(u.state, timestamptz '2026-03-10 00:00+00', date '2026-03-10')) AS e) AS d") == "0"
        check(ok, f"MERGE {major}: MERGE ... RETURNING into emissions(): {err}")
    else:
        ok = "syntax error" in err
        check(ok, f"MERGE {major}: MERGE ... RETURNING should be a syntax error before 17: {err!r}")
    print(f"MERGE ... RETURNING merge_action() feeding emissions(): "
          f"{'works, 8 emissions equal to punctuate()' if major >= 17 and ok else err.splitlines()[0] if err else '?'}")

    # RETURNING old and new (18 on)
    sql = ("UPDATE u_state SET state = punctuate(state, timestamptz '2026-03-11 00:00+00', date '2026-03-11') "
           "WHERE sensor_id = 3 RETURNING pipeline_key(old.state), pipeline_key(new.state), "
           "(SELECT count(*) FROM emissions(new.state))")
    before = co.psql("SELECT pipeline_key(state) FROM u_state WHERE sensor_id = 3")
    out, err = co.psql(sql, check=False)
    if major >= 18:
        check(not err and out == f"{before}|2026-03-11|2", f"RETURNING {major}: old and new states: {out!r} {err}")
    else:
        check("old" in err, f"RETURNING {major}: old.state should be an error before 18: {err!r}")
    print(f"UPDATE ... RETURNING old.state, new.state: {out if not err else err.splitlines()[0]}")


def maintained(co, major):
    """Rows that reach a statement trigger's transition table by four paths."""
    def reference(t):
        return (f"SELECT q.sensor_id, e.ts, e.key::date, e.port, float8send(e.value) FROM "
                f"(SELECT sensor_id, pipeline_agg(ts, v, (ts AT TIME ZONE INTERVAL '0')::date, '{SPEC}' "
                f"ORDER BY ts, id) AS p FROM {t} GROUP BY sensor_id) AS q, emissions(q.p) AS e")
    results = "SELECT sensor_id, ts, key, port, float8send(value) FROM {}"
    paths = {
        "INSERT": "INSERT INTO {t} (sensor_id, ts, v) SELECT sensor_id, ts, v FROM src WHERE b = {b} ORDER BY n",
        "COPY": "COPY",
        "MERGE": ("MERGE INTO {t} AS t USING (SELECT * FROM src WHERE b = {b}) AS s ON false "
                  "WHEN NOT MATCHED THEN INSERT (sensor_id, ts, v) VALUES (s.sensor_id, s.ts, s.v)"),
        "ON CONFLICT": ("INSERT INTO {t} (sensor_id, ts, v) SELECT sensor_id, ts, v FROM src WHERE b = {b} "
                        "UNION ALL SELECT sensor_id, ts, v FROM {t} ORDER BY 1, 2 ON CONFLICT (sensor_id, ts) DO NOTHING"),
    }
    # four statements, each of 30 steps of time for every sensor, its rows in no time order
    co.psql(f"CREATE TABLE src AS SELECT (i * 7919) % 120 AS n, (i - 1) / 30 AS b, r.* FROM ({ROWS}) AS r;")
    for name, stmt in paths.items():
        t = "p_" + name.replace(" ", "_").lower()
        co.psql(f"CREATE TABLE {t} (id bigserial PRIMARY KEY, sensor_id int NOT NULL, ts timestamptz NOT NULL, "
                f"v float8, UNIQUE (sensor_id, ts));\n"
                f"SELECT segpipe_maintain('{t}', partition_by => 'sensor_id', ts => 'ts', value => 'v', "
                f"key => $k$(ts AT TIME ZONE INTERVAL '0')::date$k$, spec => '{SPEC}', results => '{t}_r');")
        for b in range(4):
            if name == "COPY":
                rows = co.psql(f"COPY (SELECT sensor_id, ts, v FROM src WHERE b = {b} ORDER BY n) TO STDOUT")
                co.psql(f"COPY {t} (sensor_id, ts, v) FROM STDIN;\n{rows}\n\\.\n")
            else:
                co.psql(stmt.format(t=t, b=b))
        diff = co.psql(f"SELECT (SELECT count(*) FROM {t}_r), "
                       f"(SELECT count(*) FROM ({results.format(t + '_r')} EXCEPT {reference(t)}) AS a) + "
                       f"(SELECT count(*) FROM ({reference(t)} EXCEPT {results.format(t + '_r')}) AS b)")
        n, bad = diff.split("|")
        check(int(n) > 0 and bad == "0", f"maintained {major}: rows inserted by {name}: {n} results, {bad} differ")
        print(f"maintained readings, rows inserted by {name}: {n} results, equal to pipeline_agg over the readings: "
              f"{bad == '0'}")


def generated(co, major):
    """Generated columns as the value and in the key of a maintained readings table."""
    co.psql(f"""
CREATE TABLE g_stored (id bigserial PRIMARY KEY, sensor_id int NOT NULL, ts timestamptz NOT NULL, c float8,
  f float8 GENERATED ALWAYS AS (c * 1.8 + 32) STORED,
  day date GENERATED ALWAYS AS ((ts AT TIME ZONE INTERVAL '0')::date) STORED);
SELECT segpipe_maintain('g_stored', partition_by => 'sensor_id', ts => 'ts', value => 'f', key => 'day',
                        spec => '{SPEC}', results => 'g_stored_r');
INSERT INTO g_stored (sensor_id, ts, c) SELECT sensor_id, ts, v FROM ({ROWS}) AS r ORDER BY ts;""")
    want = co.psql(f"SELECT count(*) FROM (SELECT sensor_id, pipeline_agg(ts, c * 1.8 + 32, "
                   f"(ts AT TIME ZONE INTERVAL '0')::date, '{SPEC}' ORDER BY ts) AS p FROM g_stored GROUP BY 1) AS q, "
                   "emissions(q.p)")
    got = co.psql("SELECT count(*) FROM g_stored_r")
    check(got == want and got != "0", f"generated {major}: STORED value and key columns: {got} results, expected {want}")
    print(f"maintained readings with STORED generated value and key: {got} results (pipeline_agg: {want})")

    out, err = co.psql("CREATE TABLE g_virtual (a int, b int GENERATED ALWAYS AS (a * 2) VIRTUAL);", check=False)
    if major < 18:
        check("syntax error" in err, f"generated {major}: VIRTUAL should be a syntax error before 18: {err!r}")
        print(f"VIRTUAL generated columns: {err.splitlines()[0] if err else 'accepted'}")
        return
    check(not err, f"generated {major}: VIRTUAL generated column: {err}")
    # PostgreSQL 18 does not compute virtual generated columns for triggers: a statement
    # trigger's transition table holds NULL in them (what docs/versions.md warns about)
    co.psql("""
CREATE TABLE g_seen (a int, b int);
CREATE FUNCTION g_trig() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO g_seen SELECT a, b FROM new_rows; RETURN NULL; END $$;
CREATE TRIGGER g_trig AFTER INSERT ON g_virtual REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION g_trig();
INSERT INTO g_virtual (a) VALUES (1), (2);""")
    seen = co.psql("SELECT string_agg(a || ':' || coalesce(b::text, 'NULL'), ',' ORDER BY a) FROM g_seen")
    table = co.psql("SELECT string_agg(a || ':' || b, ',' ORDER BY a) FROM g_virtual")
    check(seen == "1:NULL,2:NULL" and table == "1:2,2:4",
          f"generated {major}: a transition table shows {seen} for a table that reads {table}")
    print(f"VIRTUAL generated column: the table reads {table}, a statement trigger's transition table {seen}")
    # so segpipe_maintain refuses a VIRTUAL column it would read, as the value or in the
    # key, before it creates anything
    co.psql("""
CREATE TABLE g_virt (id bigserial PRIMARY KEY, sensor_id int NOT NULL, ts timestamptz NOT NULL, c float8,
  f float8 GENERATED ALWAYS AS (c * 1.8 + 32) VIRTUAL,
  day date GENERATED ALWAYS AS ((ts AT TIME ZONE INTERVAL '0')::date) VIRTUAL);""")
    for what, value, key in (("value", "f", "(ts AT TIME ZONE INTERVAL '0')::date"), ("key", "c", "day + 1")):
        out, err = co.psql(f"""\\set VERBOSITY verbose
SELECT segpipe_maintain('g_virt', partition_by => 'sensor_id', ts => 'ts', value => '{value}',
                        key => $k${key}$k$, spec => '{SPEC}', results => 'g_virt_r');""", check=False)
        made = co.psql("SELECT count(*) FROM pg_class WHERE relname LIKE 'g_virt_r%'")
        check("0A000" in err and "virtual generated column" in err and made == "0",
              f"generated {major}: a VIRTUAL {what} column is refused at set-up (got {err!r}, {made} tables made)")
        print(f"segpipe_maintain with a VIRTUAL {what} column: {err.splitlines()[0] if err else 'accepted'}")


def module(co, major):
    if major < 18:
        return
    got = co.psql("LOAD 'segpipe'; SELECT module_name || ' ' || version FROM pg_get_loaded_modules() "
                  "WHERE file_name = 'segpipe.so'")
    want = co.psql("SELECT 'segpipe ' || default_version FROM pg_available_extensions WHERE name = 'segpipe'")
    check(got == want, f"PG_MODULE_MAGIC_EXT {major}: pg_get_loaded_modules() says {got!r}, expected {want!r}")
    print(f"pg_get_loaded_modules(): {got}")


def main():
    fleet = Fleet("majors")
    major = 0
    try:
        co = fleet.add("coordinator")
        shard = fleet.add("shard")
        major = int(co.psql("SHOW server_version_num")) // 10000
        fdw(co, shard, major)
        merge_returning(co, major)
        maintained(co, major)
        generated(co, major)
        module(co, major)
    except SqlError as e:
        check(False, str(e))
    finally:
        fleet.close()
    return summary(f"PostgreSQL {major} behaviours")


if __name__ == "__main__":
    sys.exit(main())
