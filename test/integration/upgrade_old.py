#!/usr/bin/env python3
"""ALTER EXTENSION segpipe UPDATE from set-ups of 0.4.0, 0.5.0, 0.6.0 and 0.7.0, then
pg_dump | psql and pg_dump -Fc | pg_restore of the updated databases.

Runs in the cluster pg_virtualenv set up (PG* in the environment), as its superuser
(0.9.0's set-ups are the pg_regress suite maintain_upgrade's).  One database per
version: `CREATE EXTENSION segpipe VERSION 'X'`, readings, then that version's
segpipe_maintain with the options it had (0.4.0: the seven
arguments, the late policy in the spec; 0.5.0: late, horizon, beyond_horizon and
partitioned readings; 0.6.0: the same on its C insert trigger; 0.7.0: watermark,
heartbeat unit and zone, quiet, 'keep'),
keys of five types, partition columns of three, a stage (results of results);
readings inserted (0.4.0, 0.5.0; the insert triggers of 0.6.0 and 0.7.0 are
refused, 55000, with nothing written, and so are their corrections that reach a
stage) and corrected (0.5.0 to 0.7.0) and heartbeats applied (0.7.0) by the
machinery of that version.  Then the update:

- each results table is one catalog row holding what its set-up was given;
- no function is left in the database's schemas but the extension's, and every
  trigger left runs one of the extension's functions;
- every table (results, state, checkpoint, heartbeat) has the bytes it had, and
  segpipe_rebuild makes those bytes again (but for what 0.4.0 and 0.5.0 stored
  more: the emissions of a state's last run, the checkpoints of 0.5.0's
  corrections; 0.4.0's checkpoint table is made, empty);
- inserts, late rows, updates, deletes, a truncate and a close on the new
  machinery leave each results table equal to a recomputation over its readings
  (pipeline_agg and emissions(), heartbeats fed as readings without a value),
  0 rows of difference each way, after each change.

Each updated database is then dumped and restored both ways: the catalog rows
name the restored tables, every table has the source's bytes, and maintenance
goes on (insert, late row, update, delete, close) with 0 differences.  Last,
segpipe_unmaintain(drop_tables => true) of each leaves nothing of it.
"""
import hashlib
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/
from sptest import check, summary, psql  # noqa: E402

WHO = "upgrade_old.py"


def run(sql, db):
    """Runs sql in db; returns (ok, stdout, stderr) without stopping on an error."""
    r = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-v", "VERBOSITY=verbose",
                        "-d", db], input="SET client_min_messages = warning;\n" + sql,
                       capture_output=True, text=True, env=dict(os.environ, PGTZ="UTC"))
    return r.returncode == 0, r.stdout.strip(), r.stderr.strip()


def q(sql, db):
    return psql("SET client_min_messages = warning;\n" + sql, db, WHO)


# A set-up: name, readings, partition column, value column, key, spec, the named
# arguments, what the catalog must hold (key_type, late, horizon, beyond_horizon,
# watermark, heartbeat_unit, heartbeat_zone, quiet), and the oracle's filter.
def setup(name, readings, part, value, key, spec, args="", key_type="date", late="correct", horizon=None,
          beyond="replay", watermark=None, unit=None, zone=None, quiet=None, where="true"):
    return dict(name=name, readings=readings, part=part, value=value, key=key, spec=spec, args=args,
                expect=[readings, part, "ts", value, key, key_type, late, horizon or "null", beyond,
                        watermark or "null", unit or "null", zone or "null", quiet or "null"],
                heartbeats=watermark is not None, where=where)


DROP_SPEC = '{"operators": [{"type": "CountNumber", "id": "n"}], "late": "drop"}'
VERSIONS = {
    "0.4.0": dict(
        tables="""
CREATE TABLE r4 (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
CREATE TABLE rt4 (dev text NOT NULL, ts timestamptz NOT NULL, v float8, note text);
INSERT INTO r4 SELECT s, timestamptz '2026-03-01' + h * interval '6 hours', (s * 7 + h * 3) % 11
FROM generate_series(1, 4) AS a(s), generate_series(0, 19) AS h;
INSERT INTO rt4 SELECT 'd' || s, timestamptz '2026-03-01 01:00' + h * interval '5 hours', (s + h) % 7
FROM generate_series(1, 3) AS a(s), generate_series(0, 19) AS h;
""",
        setups=[setup("a4", "r4", "sensor", "v", "ts::date", '{"type": "MaxTracker"}', late="error"),
                setup("b4", "rt4", "dev", "v", "CASE WHEN v > 3 THEN 'hi' ELSE 'lo' END", DROP_SPEC,
                      key_type="text", late="drop", where="note IS DISTINCT FROM 'late'"),
                setup("a4w", "a4", "sensor", "value", "date_trunc('week', key)", '{"type": "MaxTracker"}',
                      key_type="timestamp with time zone", late="error")],
        # 0.4.0 maintained inserts only: readings in order, through its trigger
        before="""
INSERT INTO r4 VALUES (1, '2026-03-06 02:00+00', 4), (2, '2026-03-06 03:00+00', 12);
INSERT INTO rt4 VALUES ('d1', '2026-03-06 02:00+00', 5), ('d9', '2026-03-06 02:00+00', 1);
""",
        late_error="INSERT INTO r4 VALUES (3, '2026-03-02 01:00+00', 1)",
    ),
    "0.5.0": dict(
        tables="""
CREATE TABLE p5 (sensor bigint NOT NULL, ts timestamptz NOT NULL, v float8) PARTITION BY RANGE (sensor);
CREATE TABLE p5_a PARTITION OF p5 FOR VALUES FROM (0) TO (10);
CREATE TABLE p5_b PARTITION OF p5 FOR VALUES FROM (10) TO (20);
CREATE TABLE q5 (dev text NOT NULL, ts timestamptz NOT NULL, v float8, note text);
INSERT INTO p5 SELECT s, timestamptz '2026-03-01' + h * interval '6 hours', (s * 5 + h * 3) % 13
FROM (VALUES (1), (2), (11), (12)) AS a(s), generate_series(0, 19) AS h;
CREATE TABLE t5 (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
INSERT INTO t5 SELECT s, timestamptz '2026-03-01 03:00' + h * interval '6 hours', (s * 2 + h) % 5
FROM generate_series(1, 3) AS a(s), generate_series(0, 19) AS h;
INSERT INTO q5 SELECT 'q' || s, timestamptz '2026-03-01 02:00' + h * interval '7 hours', (s * 3 + h) % 9
FROM generate_series(1, 3) AS a(s), generate_series(0, 15) AS h;
""",
        setups=[setup("c5", "p5", "sensor", "v", "ts::date", '{"type": "MaxTracker"}',
                      "horizon => '2 days'", horizon="2 days"),
                setup("f5", "t5", "sensor", "v", "ts::date", '{"type": "CountNumber"}',
                      "horizon => '1 day', beyond_horizon => 'error'", horizon="1 day", beyond="error"),
                setup("d5", "p5", "sensor", "v", "(extract(hour FROM ts)::int / 12)", '{"type": "CumulativeSum"}',
                      key_type="integer"),
                setup("e5", "q5", "dev", "v", "v > 5", DROP_SPEC, "late => 'drop'", key_type="boolean",
                      late="drop", where="note IS DISTINCT FROM 'late'"),
                setup("c5w", "c5", "sensor", "value", "date_trunc('week', key)", '{"type": "MaxTracker"}',
                      key_type="timestamp with time zone")],
        before="""
INSERT INTO p5 VALUES (1, '2026-03-06 01:00+00', 4), (11, '2026-03-06 02:00+00', 20);
INSERT INTO p5 VALUES (2, '2026-03-05 07:00+00', 30);
UPDATE p5 SET v = v + 2 WHERE sensor = 12 AND ts = '2026-03-05 12:00+00';
DELETE FROM p5 WHERE sensor = 1 AND ts = '2026-03-05 06:00+00';
INSERT INTO q5 VALUES ('q1', '2026-03-06 06:00+00', 7);
INSERT INTO t5 VALUES (1, '2026-03-06 03:00+00', 2);
UPDATE t5 SET v = 9 WHERE sensor = 2 AND ts = '2026-03-05 15:00+00';
""",
        late_error=None,
    ),
    "0.6.0": dict(
        tables="""
CREATE TABLE p6 (sensor int NOT NULL, ts timestamptz NOT NULL, v float8) PARTITION BY LIST (sensor);
CREATE TABLE p6_a PARTITION OF p6 FOR VALUES IN (1, 2);
CREATE TABLE p6_b PARTITION OF p6 FOR VALUES IN (3);
CREATE TABLE q6 (dev text NOT NULL, ts timestamptz NOT NULL, v float8);
INSERT INTO p6 SELECT s, timestamptz '2026-03-01 02:00' + h * interval '6 hours', (s * 4 + h * 5) % 9
FROM generate_series(1, 3) AS a(s), generate_series(0, 19) AS h;
INSERT INTO q6 SELECT 'm' || s, timestamptz '2026-03-01 04:00' + h * interval '9 hours', (s + h * 3) % 8
FROM generate_series(1, 2) AS a(s), generate_series(0, 12) AS h;
""",
        setups=[setup("g6", "p6", "sensor", "v", "ts::date", '{"type": "MaxTracker"}', "horizon => '2 days'",
                      horizon="2 days"),
                setup("h6", "q6", "dev", "v", "date_trunc('day', ts, 'America/New_York')", '{"type": "CumulativeSum"}',
                      "late => 'error'", key_type="timestamp with time zone", late="error"),
                setup("g6w", "g6", "sensor", "value", "date_trunc('week', key)", '{"type": "MaxTracker"}',
                      key_type="timestamp with time zone")],
        # inserts wait for the update (0.6.0's insert trigger carries SQL);
        # corrections run on 0.6.0's generated functions
        before="""
UPDATE p6 SET v = 20 WHERE sensor = 1 AND ts = '2026-03-05 08:00+00';
DELETE FROM p6 WHERE sensor = 3 AND ts = '2026-03-05 14:00+00';
UPDATE q6 SET v = 0 WHERE dev = 'm2' AND ts = '2026-03-05 04:00+00';
""",
        late_error=None,
        stages_after_changes=True,
        refused_through_stage=["DELETE FROM p6 WHERE sensor = 2 AND ts = '2026-03-05 20:00+00'"],
    ),
    "0.7.0": dict(
        tables="""
CREATE TABLE w7 (site text NOT NULL, ts timestamptz NOT NULL, v float8) PARTITION BY LIST (site);
CREATE TABLE w7_n PARTITION OF w7 FOR VALUES IN ('north', 'east');
CREATE TABLE w7_s PARTITION OF w7 FOR VALUES IN ('south');
CREATE TABLE x7 (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
INSERT INTO w7 SELECT s, timestamptz '2026-03-01 00:30' + h * interval '6 hours', (length(s) * 7 + h * 3) % 11
FROM unnest(ARRAY['north', 'east', 'south']) AS a(s), generate_series(0, 19) AS h;
INSERT INTO x7 SELECT s, timestamptz '2026-03-01' + h * interval '8 hours', (s + h * 2) % 7
FROM generate_series(1, 3) AS a(s), generate_series(0, 14) AS h;
""",
        setups=[setup("wm7", "w7", "site", "v", "date_trunc('day', ts, 'Europe/Berlin')", '{"type": "MaxTracker"}',
                      "watermark => '2 hours', heartbeat_unit => 'day', heartbeat_zone => 'Europe/Berlin', "
                      "quiet => '30 hours'", key_type="timestamp with time zone", watermark="02:00:00",
                      unit="day", zone="Europe/Berlin", quiet="30:00:00"),
                setup("k7", "x7", "sensor", "v", "ts::date", '{"type": "CountNumber"}',
                      "horizon => '2 days', beyond_horizon => 'keep'", horizon="2 days", beyond="keep"),
                setup("h7", "x7", "sensor", "v", "to_char(ts, 'IYYY-IW')", '{"type": "CumulativeSum"}',
                      "watermark => '1 hour', heartbeat_unit => 'week', heartbeat_zone => 'UTC'",
                      key_type="text", watermark="01:00:00", unit="week", zone="UTC"),
                setup("x7e", "x7", "sensor", "v", "ts::date", '{"type": "MaxTracker"}', "late => 'error'",
                      late="error"),
                setup("wm7w", "wm7", "site", "value", "date_trunc('week', key)", '{"type": "MaxTracker"}',
                      key_type="timestamp with time zone")],
        # inserts wait for the update (55000, checked below); corrections and
        # heartbeats run on 0.7.0's generated functions
        before="""
UPDATE w7 SET v = 10 WHERE site = 'east' AND ts = '2026-03-04 12:30+00';
DELETE FROM w7 WHERE site = 'south' AND ts = '2026-03-05 06:30+00';
UPDATE x7 SET v = 6 WHERE sensor = 2 AND ts = '2026-03-05 16:00+00';
SELECT segpipe_close_silent('h7', '2026-03-20 00:00+00');
""",
        late_error=None,  # every insert waits for the update
        stages_after_changes=True,
        refused_through_stage=["UPDATE w7 SET v = 3 WHERE site = 'north' AND ts = '2026-03-05 12:30+00'",
                               # its heartbeats close the last day, which inserts into wm7
                               "SELECT segpipe_close_silent('wm7', '2026-03-07 12:00+00')"],
    ),
}

# What a table holds, as text of its bytes: every column, pipelines and float8
# by their send functions, rows sorted; one md5 per table.
BYTES_FN = """
CREATE FUNCTION pg_temp.bytes(name text, strip boolean DEFAULT false, rows boolean DEFAULT false) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE cols text; r text; t regclass := to_regclass(name);
BEGIN
	IF t IS NULL THEN
		RETURN 'absent';
	END IF;
	SELECT string_agg(CASE WHEN a.atttypid = 'pipeline'::regtype AND strip
	                       THEN format('encode(pipeline_send(without_emissions(%I)), ''hex'')', a.attname)
	                       WHEN a.atttypid = 'pipeline'::regtype THEN format('encode(pipeline_send(%I), ''hex'')', a.attname)
	                       WHEN a.atttypid = 'float8'::regtype THEN format('encode(float8send(%I), ''hex'')', a.attname)
	                       ELSE format('%I::text', a.attname) END, ', ' ORDER BY a.attnum) INTO cols
	FROM pg_attribute AS a WHERE a.attrelid = t AND a.attnum > 0 AND NOT a.attisdropped;
	EXECUTE format('SELECT %s FROM (SELECT concat_ws(''|'', %s) AS x FROM %s) AS s',
	               CASE WHEN rows THEN 'string_agg(md5(x), '' '' ORDER BY x)' ELSE 'md5(coalesce(string_agg(x, '','' ORDER BY x), ''''))' END,
	               cols, t) INTO r;
	RETURN r;
END $f$;
"""


def tables_of(s):
    return [s["name"], s["name"] + "_state", s["name"] + "_checkpoint"] + (
        [s["name"] + "_heartbeat"] if s["heartbeats"] else [])


def all_bytes(setups, db, strip=False):
    names = [t for s in setups for t in tables_of(s)]
    sql = BYTES_FN + f"SELECT string_agg(n || '=' || pg_temp.bytes(n, {strip}), ' ' ORDER BY o) FROM unnest(%s) WITH ORDINALITY AS u(n, o);" % (
        "ARRAY[" + ", ".join(f"'{n}'" for n in names) + "]")
    return dict(x.split("=") for x in q(sql, db).split(" "))


def row_hashes(table, db):
    return q(BYTES_FN + f"SELECT pg_temp.bytes('{table}', false, true)", db).split(" ")


def differences_sql(s):
    """Rows of the results table not in a recomputation over its readings, and the other way."""
    src = f"SELECT * FROM {s['readings']} WHERE {s['where']}"
    if s["heartbeats"]:
        src = (f"SELECT {s['part']}, ts, {s['value']} FROM ({src}) AS r UNION ALL "
               f"SELECT {s['part']}, ts, NULL FROM {s['name']}_heartbeat")
    spec = s["spec"].replace("'", "''")
    o = (f"SELECT q.part, e.ts, e.key::{s['expect'][5]}, e.port, e.value FROM (SELECT part, pipeline_agg(ts, v, k, '{spec}'::pipeline "
         f"ORDER BY ts, v, k) AS p FROM (SELECT {s['part']} AS part, ts, {s['value']} AS v, ({s['key']}) AS k "
         f"FROM ({src}) AS r) AS r GROUP BY part) AS q, emissions(q.p) AS e")
    t = f"SELECT {s['part']}, ts, key, port, value FROM {s['name']}"
    return (f"(SELECT count(*) FROM (({o}) EXCEPT ALL ({t})) AS x) + "
            f"(SELECT count(*) FROM (({t}) EXCEPT ALL ({o})) AS y)")


def differences(setups, db):
    sql = "SELECT " + " || ' ' || ".join(f"'{s['name']}=' || ({differences_sql(s)})" for s in setups)
    return q(sql, db)


def zero(setups):
    return " ".join(f"{s['name']}=0" for s in setups)


def check_changes(db, version, setups, steps):
    for what, sql in steps:
        ok, _, err = run(sql, db)
        check(ok, f"{db}: {what} runs on the new machinery: {err[-600:]}")
        got = differences(setups, db)
        check(got == zero(setups), f"{db}: after {what}, each results table equals a recomputation (got {got})")


def catalog_check(db, setups):
    rows = q("SELECT results, readings, partition_column, ts_column, value_column, key, key_type, late, horizon, "
             "beyond_horizon, watermark, heartbeat_unit, heartbeat_zone, quiet, heartbeat_table IS NOT NULL "
             "FROM segpipe_catalog ORDER BY results::text", db)
    got = {r.split("|")[0]: r.split("|")[1:] for r in rows.split("\n") if r}
    check(sorted(got) == sorted(s["name"] for s in setups),
          f"{db}: one catalog row per results table (got {sorted(got)})")
    for s in setups:
        row = got.get(s["name"])
        want = [v if v != "null" else "" for v in s["expect"]] + ["t" if s["heartbeats"] else "f"]
        check(row == want, f"{db}: {s['name']}'s catalog row holds what it was given (got {row}, want {want})")
        same = q(f"SELECT spec = '{s['spec']}'::pipeline FROM segpipe_catalog WHERE results = '{s['name']}'::regclass", db)
        check(same == "t", f"{db}: {s['name']}'s spec is the one it was given")


def machinery_check(db, setups):
    fns = q("SELECT count(*) FROM pg_proc AS p JOIN pg_namespace AS n ON n.oid = p.pronamespace "
            "WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%' "
            "AND NOT EXISTS (SELECT 1 FROM pg_depend AS d WHERE d.classid = 'pg_proc'::regclass "
            "AND d.objid = p.oid AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e')", db)
    check(fns == "0", f"{db}: no function is left but the extension's ({fns} others)")
    names = "|".join(s["name"] for s in setups)
    gen = q(f"SELECT count(*) FROM pg_proc WHERE proname ~ '^({names})_(maintain|correct|close)$'", db)
    check(gen == "0", f"{db}: no generated function is left ({gen})")
    bad = q("SELECT count(*) FROM pg_trigger AS t WHERE NOT t.tgisinternal AND (t.tgnargs NOT IN (1, 2) "
            "OR split_part(encode(t.tgargs, 'escape'), '\\000', 1) NOT IN (SELECT id::text FROM segpipe_catalog) "
            "OR t.tgnargs = 2 AND split_part(encode(t.tgargs, 'escape'), '\\000', 2) <> 'partition' OR NOT EXISTS "
            "(SELECT 1 FROM pg_depend AS d WHERE d.classid = 'pg_proc'::regclass AND d.objid = t.tgfoid "
            "AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'))", db)
    check(bad == "0", f"{db}: every trigger runs one of the extension's functions, with a catalog id ({bad} not)")
    for s in setups:
        n = q(f"SELECT count(*) FROM pg_trigger AS t WHERE NOT t.tgisinternal AND t.tgrelid = '{s['readings']}'::regclass", db)
        check(int(n) > 0, f"{db}: {s['readings']} has triggers of the new machinery")


def one_version(version, spec):
    db = "segpipe_uo_" + version.replace(".", "")
    setups = spec["setups"]
    psql(f"DROP DATABASE IF EXISTS {db}", "postgres", WHO)
    psql(f"CREATE DATABASE {db}", "postgres", WHO)
    names = {s["name"] for s in setups}
    late_stages = spec.get("stages_after_changes", False)

    def maintain(ss):
        sql = ""
        for s in ss:
            args = ", " + s["args"] if s["args"] else ""
            sql += (f"SELECT segpipe_maintain('{s['readings']}', '{s['part']}', 'ts', '{s['value']}', "
                    f"$k${s['key']}$k$, '{s['spec']}', '{s['name']}'{args});\n")
        return sql

    q(f"CREATE EXTENSION segpipe VERSION '{version}';\n" + spec["tables"]
      + maintain([s for s in setups if not (late_stages and s["readings"] in names)]), db)
    check(q("SELECT extversion FROM pg_extension WHERE extname = 'segpipe'", db) == version,
          f"{db}: set up by {version}")
    if version in ("0.6.0", "0.7.0"):
        # their insert triggers carry SQL: refused until the update, nothing written
        r, res, part = {"0.6.0": ("p6", "g6", "1"), "0.7.0": ("w7", "wm7", "'north'")}[version]
        count = f"SELECT (SELECT count(*) FROM {r}) + (SELECT count(*) FROM {res}) + (SELECT count(*) FROM {res}_state)"
        n0 = q(count, db)
        ok, _, err = run(f"INSERT INTO {r} VALUES ({part}, '2026-03-06 03:00+00', 1)", db)
        check(not ok and "55000" in err, f"{db}: an insert before the update is refused with 55000 (got {err[-300:]})")
        n1 = q(count, db)
        check(n0 == n1, f"{db}: the refused insert wrote nothing ({n0} rows, then {n1})")
    ok, _, err = run(spec["before"], db)
    check(ok, f"{db}: inserts and corrections under {version}: {err[-600:]}")
    if late_stages:
        q(maintain([s for s in setups if s["readings"] in names]), db)
        # a correction of readings whose results are maintained again
        # inserts into those results: the stage's insert trigger of 0.7.0
        # is refused until the update, and nothing is written
        b0 = all_bytes(setups, db)
        for sql in spec["refused_through_stage"]:
            ok, _, err = run(sql, db)
            check(not ok and "55000" in err, f"{db}: before the update, a change reaching a stage is refused "
                                             f"with 55000: {sql} (got {err[-300:]})")
        check(all_bytes(setups, db) == b0, f"{db}: the refused changes wrote nothing")
    if spec["late_error"]:
        b0 = all_bytes(setups, db)
        ok, _, err = run(spec["late_error"], db)
        check(not ok and all_bytes(setups, db) == b0,
              f"{db}: a late row under late 'error' is refused under {version}, and nothing written")
    # before the update, every results table is what a recomputation makes
    got = differences(setups, db)
    check(got == zero(setups), f"{db}: under {version}, each results table equals a recomputation (got {got})")
    before = all_bytes(setups, db)

    ok, _, err = run("ALTER EXTENSION segpipe UPDATE", db)
    check(ok and "WARNING" not in err, f"{db}: ALTER EXTENSION segpipe UPDATE from {version} (no warning): {err[-800:]}")
    check(q("SELECT extversion FROM pg_extension WHERE extname = 'segpipe'", db) == "0.10.0", f"{db}: at 0.10.0")
    catalog_check(db, setups)
    machinery_check(db, setups)
    after = all_bytes(setups, db)
    stripped = all_bytes(setups, db, strip=True) if version in ("0.4.0", "0.5.0") else after
    # the checkpoints as the update left them, to compare rows with after the rebuild
    kept = [t for t in before if t.endswith("_checkpoint")]
    q("".join(f"CREATE TABLE uo_kept_{t} AS SELECT * FROM {t};" for t in kept), db)
    for t in before:
        if version == "0.4.0" and t.endswith("_checkpoint"):
            # 0.4.0 kept none: the update makes the table, empty
            check(before[t] == "absent" and after[t] == hashlib.md5(b"").hexdigest(),
                  f"{db}: {t} is made, empty, by the update ({before[t]}, then {after[t]})")
            continue
        check(after[t] == before[t], f"{db}: {t} keeps its bytes through the update")
    q("SELECT " + ", ".join(f"segpipe_rebuild('{s['name']}')" for s in setups), db)
    rebuilt = all_bytes(setups, db)
    for t in before:
        if version == "0.4.0" and t.endswith("_checkpoint"):
            # 0.4.0 kept none: a rebuild makes them
            check(rebuilt[t] != after[t], f"{db}: segpipe_rebuild fills {t}")
            continue
        if version in ("0.4.0", "0.5.0") and t.endswith("_state"):
            # 0.4.0 and 0.5.0 stored each state with the emissions of its
            # last run, later versions without: equal once those are taken away
            check(rebuilt[t] == stripped[t], f"{db}: {t} is what segpipe_rebuild makes, but for the "
                                             f"emissions {version} kept in its states")
            continue
        if version == "0.5.0" and t.endswith("_checkpoint") and rebuilt[t] != before[t]:
            # 0.5.0's correction of a late row kept a checkpoint at the
            # correction's start too (a state of the run there): every
            # checkpoint a rebuild makes was there before the update
            old, new = set(row_hashes("uo_kept_" + t, db)), set(row_hashes(t, db))
            check(new <= old, f"{db}: every checkpoint of {t} that segpipe_rebuild makes was there "
                              f"({len(new - old)} not; {len(old - new)} more kept by 0.5.0's corrections)")
            continue
        check(rebuilt[t] == before[t], f"{db}: {t} is what segpipe_rebuild makes")
    q("".join(f"DROP TABLE uo_kept_{t};" for t in kept), db)

    steps = {
        "0.4.0": [
            ("an insert in order", "INSERT INTO r4 VALUES (1, '2026-03-07 00:00+00', 9), (4, '2026-03-07 01:00+00', 2);"
                                   "INSERT INTO rt4 VALUES ('d2', '2026-03-07 00:00+00', 6)"),
            ("an update", "UPDATE r4 SET v = v * 2 WHERE sensor = 2 AND ts >= '2026-03-04'; UPDATE rt4 SET v = 0 WHERE dev = 'd3' AND ts < '2026-03-02'"),
            ("a delete", "DELETE FROM r4 WHERE sensor = 3 AND ts = '2026-03-03 12:00+00'; DELETE FROM rt4 WHERE dev = 'd1' AND ts = '2026-03-02 02:00+00'"),
            ("a late row under 'drop'", "INSERT INTO rt4 VALUES ('d2', '2026-03-02 00:30+00', 6, 'late')"),
            ("a truncate", "TRUNCATE rt4"),
        ],
        "0.5.0": [
            ("an insert in order", "INSERT INTO p5 VALUES (2, '2026-03-07 00:00+00', 3), (12, '2026-03-07 01:00+00', 8);"
                                   "INSERT INTO q5 VALUES ('q2', '2026-03-06 08:00+00', 8)"),
            ("a late row within the horizon", "INSERT INTO p5 VALUES (11, '2026-03-05 09:00+00', 40)"),
            ("a late row under 'drop'", "INSERT INTO q5 VALUES ('q3', '2026-03-02 00:00+00', 8, 'late')"),
            ("an update", "UPDATE p5 SET v = v + 1 WHERE sensor IN (1, 12) AND ts >= '2026-03-05';"
                          "UPDATE t5 SET v = v + 1 WHERE sensor = 1 AND ts >= '2026-03-05 12:00+00'"),
            ("a delete", "DELETE FROM p5 WHERE sensor = 2 AND ts = '2026-03-05 18:00+00';"
                         "DELETE FROM t5 WHERE sensor = 3 AND ts = '2026-03-05 21:00+00'"),
            ("a truncate of a partition", "TRUNCATE p5_b"),
        ],
        "0.6.0": [
            ("an insert in order", "INSERT INTO p6 VALUES (1, '2026-03-06 03:00+00', 2), (3, '2026-03-06 04:00+00', 11);"
                                   "INSERT INTO q6 VALUES ('m1', '2026-03-06 02:00+00', 6)"),
            ("a late row within the horizon", "INSERT INTO p6 VALUES (2, '2026-03-05 21:00+00', 15)"),
            ("an update", "UPDATE p6 SET v = v + 3 WHERE sensor = 2 AND ts >= '2026-03-05'; "
                          "UPDATE q6 SET v = 1 WHERE dev = 'm1' AND ts >= '2026-03-05'"),
            ("a delete", "DELETE FROM p6 WHERE sensor = 1 AND ts = '2026-03-05 20:00+00'; "
                         "DELETE FROM q6 WHERE dev = 'm2' AND ts = '2026-03-05 13:00+00'"),
            ("a truncate of a partition", "TRUNCATE p6_b"),
        ],
        "0.7.0": [
            ("an insert in order", "INSERT INTO w7 VALUES ('north', '2026-03-06 02:00+00', 4), ('south', '2026-03-06 03:00+00', 2);"
                                   "INSERT INTO x7 VALUES (1, '2026-03-20 09:00+00', 5)"),
            ("a late row within the horizon", "INSERT INTO w7 VALUES ('east', '2026-03-05 09:00+00', 9)"),
            ("an update", "UPDATE w7 SET v = v + 1 WHERE site = 'north' AND ts >= '2026-03-05'"),
            ("a delete", "DELETE FROM w7 WHERE site = 'east' AND ts = '2026-03-05 18:30+00'; DELETE FROM x7 WHERE sensor = 3 AND ts = '2026-03-20 08:00+00'"),
            ("a truncate of a partition", "TRUNCATE w7_s"),
            ("a close", "SELECT segpipe_close_silent('wm7', '2026-03-09 12:00+00'), segpipe_close_silent('h7', '2026-04-01 00:00+00')"),
        ],
    }[version]
    # the refusals are checked on their own: a late row under 'error', a change
    # older than an 'error' horizon
    refusals = {"0.4.0": ["INSERT INTO r4 VALUES (3, '2026-03-02 01:00+00', 1)"],
                "0.5.0": ["UPDATE t5 SET v = 0 WHERE sensor = 1 AND ts = '2026-03-01 09:00+00'"],
                "0.6.0": ["INSERT INTO q6 VALUES ('m1', '2026-03-02 09:00+00', 5)"],
                "0.7.0": ["INSERT INTO x7 VALUES (1, '2026-03-02 09:00+00', 5)"]}[version]
    check_changes(db, version, setups, steps)
    b0 = all_bytes(setups, db)
    for sql in refusals:
        ok, _, err = run(sql, db)
        check(not ok, f"{db}: refused on the new machinery: {sql}")
    check(all_bytes(setups, db) == b0, f"{db}: the refused changes wrote nothing")
    if version == "0.7.0":
        n = q("SELECT count(*) FROM wm7_heartbeat", db)
        check(int(n) > 0, f"{db}: wm7 has heartbeats ({n})")
        # the watermark as given: a Berlin midnight (23:00 UTC) is due two
        # hours after it, an ISO week one hour after it, and not before
        q("SELECT segpipe_close_silent('wm7', '2026-03-10 00:59+00'), segpipe_close_silent('h7', '2026-04-06 00:59+00')", db)
        early = q("SELECT (SELECT count(*) FROM wm7_heartbeat WHERE ts = '2026-03-09 23:00+00') + "
                  "(SELECT count(*) FROM h7_heartbeat WHERE ts = '2026-04-06 00:00+00')", db)
        q("SELECT segpipe_close_silent('wm7', '2026-03-10 01:00+00'), segpipe_close_silent('h7', '2026-04-06 01:00+00')", db)
        due = q("SELECT (SELECT count(DISTINCT site) FROM wm7_heartbeat WHERE ts = '2026-03-09 23:00+00') || ' ' || "
                "(SELECT count(DISTINCT sensor) FROM h7_heartbeat WHERE ts = '2026-04-06 00:00+00')", db)
        check(early == "0" and due == "2 3", f"{db}: heartbeats come at the watermarks given, 2 hours (wm7) and "
                                             f"1 hour (h7) after their instants (before: {early}; at: {due})")
        got = differences(setups, db)
        check(got == zero(setups), f"{db}: after those closes, each results table equals a recomputation (got {got})")
    return db, setups


def dump_restore(db, setups):
    text_db, custom_db = db + "_t", db + "_c"
    psql(f"DROP DATABASE IF EXISTS {text_db}; DROP DATABASE IF EXISTS {custom_db}; "
         f"CREATE DATABASE {text_db}; CREATE DATABASE {custom_db};", "postgres", WHO)
    r = subprocess.run(f"pg_dump -d {db} | psql -X -q -v ON_ERROR_STOP=1 -d {text_db} >/dev/null", shell=True,
                       capture_output=True, text=True)
    check(r.returncode == 0, f"pg_dump {db} | psql restores it: {r.stderr[-1500:]}")
    dump = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"segpipe_uo_{os.getpid()}.dump")
    try:
        r = subprocess.run(f"pg_dump -Fc -f {dump} -d {db} && pg_restore --exit-on-error -d {custom_db} {dump}",
                           shell=True, capture_output=True, text=True)
        check(r.returncode == 0, f"pg_dump -Fc {db} | pg_restore restores it: {r.stderr[-1500:]}")
    finally:
        if os.path.exists(dump):
            os.unlink(dump)
    src_bytes = all_bytes(setups, db)
    cat = ("SELECT string_agg(concat_ws('|', results, readings, state_table, checkpoint_table, heartbeat_table, "
           "to_regclass(results::text) = results, to_regclass(readings::text) = readings, "
           "to_regclass(state_table::text) = state_table, to_regclass(checkpoint_table::text) = checkpoint_table, "
           "coalesce(to_regclass(heartbeat_table::text) = heartbeat_table, true), key, late, horizon, beyond_horizon, "
           "watermark, heartbeat_unit, heartbeat_zone, quiet, spec::text), E'\\n' ORDER BY results::text) FROM segpipe_catalog")
    src_cat = q(cat, db)
    for copy in (text_db, custom_db):
        got = q(cat, copy)
        check(got == src_cat and src_cat.count("|t|t|t|t|t|") == len(setups),
              f"{copy}: the catalog rows name the restored tables and hold what they held (got {got[:400]})")
        check(all_bytes(setups, copy) == src_bytes, f"{copy}: every table restores byte for byte")
        machinery_check(copy, setups)
        got = differences(setups, copy)
        check(got == zero(setups), f"{copy}: each results table equals a recomputation after the restore (got {got})")
    return text_db, custom_db


def unmaintain_all(db, setups):
    """segpipe_unmaintain(drop_tables => true) of each, stages first: nothing of them is left."""
    ok, _, err = run("".join(f"SELECT segpipe_unmaintain('{s['name']}', true);\n" for s in reversed(setups)), db)
    check(ok, f"{db}: segpipe_unmaintain(drop_tables => true) of each results table: {err[-400:]}")
    names = "|".join(s["name"] for s in setups)
    left = q(f"SELECT (SELECT count(*) FROM pg_class WHERE relname ~ '^({names})(_|$)') || ' ' || "
             "(SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal) || ' ' || (SELECT count(*) FROM segpipe_catalog)", db)
    check(left == "0 0 0", f"{db}: no table, trigger or catalog row of them is left (got {left})")


AFTER_RESTORE = {
    "0.4.0": [("an insert", "INSERT INTO r4 VALUES (1, '2026-03-08 00:00+00', 1), (2, '2026-03-08 00:00+00', 30)"),
              ("an update", "UPDATE r4 SET v = 7 WHERE sensor = 4 AND ts = '2026-03-03 00:00+00'"),
              ("a delete", "DELETE FROM r4 WHERE sensor = 1 AND ts = '2026-03-07 00:00+00'")],
    "0.5.0": [("an insert", "INSERT INTO p5 VALUES (1, '2026-03-08 00:00+00', 1), (12, '2026-03-08 00:00+00', 30)"),
              ("a late row", "INSERT INTO p5 VALUES (2, '2026-03-06 13:00+00', 50)"),
              ("an update", "UPDATE p5 SET v = 7 WHERE sensor = 2 AND ts = '2026-03-06 00:00+00'"),
              ("a delete", "DELETE FROM p5 WHERE sensor = 1 AND ts = '2026-03-06 01:00+00'")],
    "0.6.0": [("an insert", "INSERT INTO p6 VALUES (1, '2026-03-08 00:00+00', 1), (2, '2026-03-08 00:00+00', 30)"),
              ("a late row", "INSERT INTO p6 VALUES (2, '2026-03-07 13:00+00', 50)"),
              ("an update", "UPDATE q6 SET v = 7 WHERE dev = 'm1' AND ts = '2026-03-06 02:00+00'"),
              ("a delete", "DELETE FROM p6 WHERE sensor = 1 AND ts = '2026-03-06 03:00+00'")],
    "0.7.0": [("an insert", "INSERT INTO w7 VALUES ('north', '2026-03-09 20:00+00', 1), ('south', '2026-03-09 21:00+00', 3)"),
              ("a late row", "INSERT INTO w7 VALUES ('east', '2026-03-08 13:00+00', 50)"),
              ("an update", "UPDATE w7 SET v = 0 WHERE site = 'north' AND ts = '2026-03-06 02:00+00'"),
              ("a delete", "DELETE FROM x7 WHERE sensor = 1 AND ts = '2026-03-20 09:00+00'"),
              ("a close", "SELECT segpipe_close_silent('wm7', '2026-03-12 00:00+00'), segpipe_close_silent('h7', '2026-04-10 00:00+00')")],
}


def main():
    dbs = []
    only = sys.argv[1:] or list(VERSIONS)
    for version in only:
        db, setups = one_version(version, VERSIONS[version])
        copies = dump_restore(db, setups)
        for copy in copies:
            check_changes(copy, version, setups, AFTER_RESTORE[version])
        for d in (db, *copies):
            unmaintain_all(d, setups)
        dbs += [db, *copies]
    for db in dbs if not os.environ.get("SEGPIPE_KEEP_DATABASES") else []:
        psql(f"DROP DATABASE IF EXISTS {db}", "postgres", WHO)
    return summary("updates from 0.4.0, 0.5.0, 0.6.0 and 0.7.0, and their dumps")


if __name__ == "__main__":
    sys.exit(main())
