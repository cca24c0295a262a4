#!/usr/bin/env python3
"""Hostile roles against stored pipelines, through pg_dump and pg_restore.

Runs in the cluster pg_virtualenv set up (PG* in the environment), as its superuser.
Mallory owns a domain whose CHECK records a row in mal.trap_log, and types built on
it; an inserter, with the grants a maintained results table asks for, writes states
that name those types into the administrator's state table.  The superuser then
dumps and restores the database (plain text through psql, and the custom format
through pg_restore), reads every value, and inserts readings: trap_log stays empty
in every database, and every value reads back.  Types also change under stored
values (an enum label renamed, a composite attribute added, a type dropped and made
again, array_nulls off at dump time): every dump restores, every value reads back.
"""
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/
from sptest import check, summary, psql  # noqa: E402

SRC, TEXT_COPY, CUSTOM_COPY = "segpipe_hd_src", "segpipe_hd_text", "segpipe_hd_custom"
WHO = "hostile_dump.py"


def run(sql, db):
    """Runs sql in db; returns (ok, stdout, stderr) without stopping on an error."""
    r = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-v", "VERBOSITY=verbose",
                        "-d", db], input=sql, capture_output=True, text=True,
                       env=dict(os.environ, PGTZ="UTC"))
    return r.returncode == 0, r.stdout.strip(), r.stderr.strip()


def sh(cmd):
    r = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    return r.returncode == 0, r.stderr.strip()


def drop_all():
    psql(f"DROP DATABASE IF EXISTS {SRC}; DROP DATABASE IF EXISTS {TEXT_COPY}; "
         f"DROP DATABASE IF EXISTS {CUSTOM_COPY};", "postgres", WHO)
    psql("DROP ROLE IF EXISTS regress_hd_mallory; DROP ROLE IF EXISTS regress_hd_inserter;", "postgres", WHO)


def traps(db):
    return psql("SELECT count(*) FROM mal.trap_log", db, WHO)


STATE = ('{{"type": "MaxTracker", "state": {{"key_type": {kt}, "key": {k}, '
         '"progress": "2026-03-01 08:00:00+00", "rows": 1, "discarded": 0, "late": 0, "buffer": [1], '
         '"operators": {{"op1": {{"count": 1, "extreme": 1}}}}, '
         '"emissions": [["2026-03-01 08:00:00+00", {k}, 1, 1]]}}}}')


def hostile_state(key_type, key):
    import json
    return STATE.format(kt=json.dumps(key_type), k=json.dumps(key))


def main():
    drop_all()
    psql(f"CREATE DATABASE {SRC}", "postgres", WHO)
    psql("CREATE ROLE regress_hd_mallory LOGIN; CREATE ROLE regress_hd_inserter LOGIN;", "postgres", WHO)
    psql(f"""
GRANT CREATE ON DATABASE {SRC} TO regress_hd_mallory;
CREATE EXTENSION segpipe;
SET ROLE regress_hd_mallory;
CREATE SCHEMA mal;
GRANT USAGE ON SCHEMA mal TO PUBLIC;
CREATE TABLE mal.trap_log (trap text, by_role name);
GRANT INSERT, SELECT ON mal.trap_log TO PUBLIC;
CREATE FUNCTION mal.trap(name text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO mal.trap_log VALUES (name, current_user);
    RAISE WARNING 'trap % ran as %', name, current_user;
    RETURN true;
END $$;
CREATE DOMAIN mal.dom AS text CHECK (mal.trap('domain check'));
CREATE TYPE mal.comp AS (a int, d mal.dom);
CREATE TYPE mal.rng AS RANGE (subtype = mal.dom);
RESET ROLE;

-- the administrator's maintained results, and an inserter with the grants
-- they ask for
CREATE TABLE readings (sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', 'ts::date',
                        '{{"type": "MaxTracker"}}', 'daily');
GRANT INSERT ON readings TO regress_hd_inserter;
GRANT SELECT, INSERT, UPDATE ON daily_state TO regress_hd_inserter;
GRANT INSERT ON daily TO regress_hd_inserter;
INSERT INTO readings SELECT s, '2026-03-01 08:00+00', s FROM generate_series(1, 6) AS s;

-- type life: states keyed by an enum, a composite, a text[] with NULL, and
-- a type that will be dropped
CREATE TYPE mood AS ENUM ('idle', 'run');
CREATE TYPE pair AS (a int, b text);
CREATE TYPE gone AS ENUM ('x', 'y');
CREATE TABLE life (name text PRIMARY KEY, p pipeline);
INSERT INTO life
SELECT 'enum', pipeline_agg(ts, v, k, '{{"type": "MaxTracker"}}' ORDER BY ts)
FROM (VALUES ('2026-01-01 00:00'::timestamptz, 1.0, 'idle'::mood), ('2026-01-01 01:00', 5, 'run')) AS r(ts, v, k)
UNION ALL
SELECT 'composite', pipeline_agg(ts, v, k, '{{"type": "MaxTracker"}}' ORDER BY ts)
FROM (VALUES ('2026-01-01 00:00'::timestamptz, 1.0, (1, 'a')::pair), ('2026-01-01 01:00', 5, (2, 'b')::pair)) AS r(ts, v, k)
UNION ALL
SELECT 'array', pipeline_agg(ts, v, k, '{{"type": "MaxTracker"}}' ORDER BY ts)
FROM (VALUES ('2026-01-01 00:00'::timestamptz, 1.0, ARRAY['NULL', 'x']), ('2026-01-01 01:00', 5, ARRAY[NULL, 'x'])) AS r(ts, v, k)
UNION ALL
SELECT 'dropped type', pipeline_agg(ts, v, k, '{{"type": "MaxTracker"}}' ORDER BY ts)
FROM (VALUES ('2026-01-01 00:00'::timestamptz, 1.0, 'x'::gone), ('2026-01-01 01:00', 5, 'y')) AS r(ts, v, k)
UNION ALL
SELECT 'anonymous record', pipeline_agg('2026-01-01', 1.0, row(1, 'a'), '{{"type": "MaxTracker"}}');
""", SRC, WHO)

    # The inserter writes states naming Mallory's types into the state table.
    shapes = [("mal.dom", "x"), ("mal.comp", "(1,x)"), ("mal.dom[]", "{x,y}"), ("mal.rng", "[a,b)"),
              ("mal.comp[]", '{"(1,x)"}')]
    updates = "\n".join(
        f"UPDATE daily_state SET state = $s${hostile_state(kt, k)}$s$ WHERE sensor_id = {i + 1};"
        for i, (kt, k) in enumerate(shapes))
    ok, _, err = run("SET ROLE regress_hd_inserter;\n" + updates, SRC)
    check(ok, f"the inserter stores states that name another role's types: {err}")
    check(traps(SRC) == "0", "storing those states ran no trap")

    # Reading them as the superuser: text, json, binary, comparison, hashing.
    out = psql("SELECT count(*) FILTER (WHERE state::text::pipeline = state), "
               "count(*) FILTER (WHERE state::json::pipeline = state), "
               "count(*) FILTER (WHERE pipeline_send(state) IS NOT NULL), "
               "count(DISTINCT state) FROM daily_state", SRC, WHO)
    check(out == "6|6|6|6", f"every state reads back as text, json and binary (got {out})")
    check(traps(SRC) == "0", "reading the states as the superuser ran no trap")

    # Types change under the stored values; then dump and restore.
    psql("ALTER TYPE mood RENAME VALUE 'run' TO 'running'; ALTER TYPE pair ADD ATTRIBUTE c int; "
         "ALTER TABLE life ADD COLUMN t text; UPDATE life SET t = p::text; DROP TYPE gone;", SRC, WHO)
    psql(f"CREATE DATABASE {TEXT_COPY}; CREATE DATABASE {CUSTOM_COPY};", "postgres", WHO)
    env_off = "PGOPTIONS='-c array_nulls=off'"
    ok, err = sh(f"{env_off} pg_dump -d {SRC} | psql -X -q -v ON_ERROR_STOP=1 -d {TEXT_COPY} >/dev/null")
    check(ok, f"pg_dump | psql restores the database (array_nulls off on both sides): {err[-2000:]}")
    dump = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"segpipe_hd_{os.getpid()}.dump")
    try:
        ok, err = sh(f"pg_dump -Fc -f {dump} -d {SRC} && pg_restore --exit-on-error -d {CUSTOM_COPY} {dump}")
        check(ok, f"pg_dump -Fc and pg_restore restore the database: {err[-2000:]}")
    finally:
        if os.path.exists(dump):
            os.unlink(dump)
    for db in (TEXT_COPY, CUSTOM_COPY):
        check(traps(db) == "0", f"restoring {db} ran no trap (trap_log has {traps(db)} rows)")
        out = psql("SELECT count(*), count(*) FILTER (WHERE p::text = t), "
                   "count(*) FILTER (WHERE p::text::pipeline = p) FROM life", db, WHO)
        check(out == "5|5|5", f"{db}: every state of the type life reads back unchanged (got {out})")
        same = psql(f"SELECT md5(string_agg(state::text, ',' ORDER BY sensor_id)) FROM daily_state", db, WHO)
        src = psql("SELECT md5(string_agg(state::text, ',' ORDER BY sensor_id)) FROM daily_state", SRC, WHO)
        check(same == src, f"{db}: the state table restores byte for byte")

    # The superuser's inserts run the maintained trigger: the hostile states
    # are refused (their key type is not the trigger's), no trap runs, the
    # untouched sensor advances.
    for db in (SRC, TEXT_COPY):
        ok, _, err = run("INSERT INTO readings VALUES (1, '2026-03-02 08:00+00', 9)", db)
        check(not ok and "42804" in err, f"{db}: a hostile state is refused on resuming with 42804 (got {err})")
        ok, _, err = run("INSERT INTO readings VALUES (6, '2026-03-02 08:00+00', 9)", db)
        check(ok, f"{db}: an untouched sensor advances: {err}")
        out = psql("SELECT sensor_id, key, value FROM daily ORDER BY sensor_id, ts", db, WHO)
        check(out == "6|2026-03-01|6", f"{db}: sensor 6 closed its first day with 6 (got {out!r})")
        check(traps(db) == "0", f"{db}: the superuser's inserts ran no trap")

    # Resuming after the type changes: a clear error naming the key, or (the
    # type made again) the run continues.
    for db in (SRC, CUSTOM_COPY):
        ok, _, err = run("SELECT pipeline_agg('2026-01-01 02:00', 7.0, 'running'::mood, p) FROM life "
                         "WHERE name = 'enum'", db)
        check(not ok and "22P02" in err and '"run"' in err,
              f"{db}: the renamed label is refused with 22P02 naming it (got {err})")
        ok, out, err = run("SET array_nulls = off; SELECT (SELECT count(*) FROM emissions(q)) FROM "
                           "(SELECT pipeline_agg('2026-01-01 02:00', 7.0, ARRAY[NULL, 'x'], p) AS q "
                           "FROM life WHERE name = 'array') AS r", db)
        check(ok and out == "0", f"{db}: {{NULL,x}} is still the same key with array_nulls off (got {out} {err})")

    print(f"trap_log rows: {SRC} {traps(SRC)}, {TEXT_COPY} {traps(TEXT_COPY)}, {CUSTOM_COPY} {traps(CUSTOM_COPY)}")
    drop_all()
    return summary("hostile roles through pg_dump and pg_restore")


if __name__ == "__main__":
    sys.exit(main())
