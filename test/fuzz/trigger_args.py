#!/usr/bin/env python3
"""Hand-written trigger arguments for segpipe_insert_trigger() and
segpipe_change_trigger(): every layout ever shipped, and worse.

Runs in the cluster pg_virtualenv set up (PG* in the environment), as its superuser.
The layouts of 0.6.0 ('segpipe insert 1'), 0.8.0 ('segpipe insert 2') and 0.9.0
('segpipe insert 3') are read from the triggers those versions' segpipe_maintain
made; 0.4.0 and 0.5.0 had no arguments.  Each layout is used whole, cut short at
every length, with its tag changed and its statements shuffled; then ids: of other
catalog rows, of none, negative, zero, leading zeros, signs, blanks, past int4,
huge (100,000 digits), 'partition' where there is no partition and misspelt; random
printable and non-ASCII strings; no argument; three.  Each is put on a trigger of
every event a table has (as set-up makes them, and as it does not: BEFORE, FOR EACH
ROW, without transition tables) with both functions, and fired:

- as a role with only LOGIN (and TEMP, which PUBLIC has), on a temporary table,
  while another session holds every table of the set-ups (lock_timeout 300 ms:
  a firing that locked one before its checks would fail with 55P03);
- as the readings' owner, on the real readings and a real partition of them
  (with the ids of the other results table, and of none).

Every firing must fail with 39P01, or 55000 for a first argument of the old
layouts, as docs/reference.md says; the postmaster's start time is unchanged (no
crash); the results, state, checkpoint and heartbeat tables and the catalog keep
their bytes (nothing written).  An argument holding NUL cannot be written at all.
"""
import os
import random
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/
from sptest import check, summary, psql  # noqa: E402

WHO = "trigger_args.py"
DB = "segpipe_fz_trig"
LOW = "regress_fz_low"


def run(sql, db, role=None):
    """sql in db, as role when given: the superuser's connection becomes the role's session
    (SET SESSION AUTHORIZATION: session_user and current_user are the role), since the
    test's cluster may take passwords for its own user only."""
    env = dict(os.environ, PGTZ="UTC")
    become = f"SET SESSION AUTHORIZATION {role};\n" if role else ""
    r = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", db],
                       input="SET client_min_messages = warning;\n" + become + sql, capture_output=True, text=True,
                       env=env)
    return r.returncode == 0, r.stdout.strip(), r.stderr.strip()


def q(sql, db):
    return psql("SET client_min_messages = warning;\n" + sql, db, WHO)


def harvest(version):
    """The arguments of the insert trigger that version's segpipe_maintain made."""
    db = "segpipe_fz_" + version.replace(".", "")
    psql(f"DROP DATABASE IF EXISTS {db}; CREATE DATABASE {db}", "postgres", WHO)
    extra = ", watermark => '1 hour', heartbeat_unit => 'day', heartbeat_zone => 'UTC'" if version != "0.6.0" else ", horizon => '1 day'"
    hexargs = q(f"""
CREATE EXTENSION segpipe VERSION '{version}';
CREATE TABLE r (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('r', 'sensor', 'ts', 'v', 'ts::date', '{{"type": "MaxTracker"}}', 'res'{extra}) IS NULL;
SELECT encode(tgargs, 'hex') FROM pg_trigger WHERE tgname = 'res_insert';""", db).split("\n")[-1]
    psql(f"DROP DATABASE {db}", "postgres", WHO)
    return [a.decode() for a in bytes.fromhex(hexargs).split(b"\0")[:-1]]


def cases(layouts, ids):
    rnd = random.Random(32)
    out = []
    for tag, args in layouts.items():
        out.append(args)
        out += [args[:k] for k in range(1, len(args))]
        out.append([tag.replace("insert", "INSERT")] + args[1:])
        out.append(["segpipe insert 4"] + args[1:])
        out.append(["segpipe insert "] + args[1:])
        out.append(["segpipe insert"] + args[1:])
        shuffled = args[1:]
        rnd.shuffle(shuffled)
        out.append([args[0]] + shuffled)
        out.append(args[1:])                       # the statements without the tag
        out.append([str(ids[0])] + args[1:])       # an id and then SQL
    for i in ids:
        out += [[str(i)], [str(i), "partition"], [str(i), "partition", "x"], [str(i), "Partition"],
                [str(i), "partition "], [str(i), ""], [str(i), str(i)], [f" {i}"], [f"{i} "], [f"+{i}"],
                [f"0{i}"], [f"{i}.0"], [f"{i}\n"], [f"{i}abc"]]
    out += [[], ["0"], ["-1"], ["-2147483648"], ["2147483647"], ["2147483648"], ["4294967297"],
            ["9223372036854775807"], ["9223372036854775808"], ["99999999999999999999999"], ["1" * 100000],
            ["1e3"], ["0x1"], ["999"], [""], ["", ""], ["partition"], ["partition", "1"], ["1", "2", "3"],
            ["NULL"], ["segpipe"], ["x" * 100000]]
    alphabet = "0123456789 -+'\"\\;,.()$%" + "abcdefghijklmnopqrstuvwxyz" + "é€𝄞\u200b\t"
    for _ in range(40):
        out.append(["".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 30)))
                    for _ in range(rnd.randint(1, 4))])
    return out


HELD = ["w", "w_part", "r2", "res", "res_state", "res_checkpoint", "res_heartbeat", "res2", "res2_state",
        "res2_checkpoint"]

# the ways a trigger is made: (name, CREATE TRIGGER's middle, statement firing it)
FORMS = [
    ("insert", "AFTER INSERT ON {t} REFERENCING NEW TABLE AS segpipe_new FOR EACH STATEMENT", "INSERT INTO {t} VALUES (1, '2026-03-09 00:00+00', 1)"),
    ("update", "AFTER UPDATE ON {t} REFERENCING OLD TABLE AS segpipe_old NEW TABLE AS segpipe_new FOR EACH STATEMENT", "UPDATE {t} SET v = v + 1"),
    ("delete", "AFTER DELETE ON {t} REFERENCING OLD TABLE AS segpipe_old FOR EACH STATEMENT", "DELETE FROM {t}"),
    ("truncate", "BEFORE TRUNCATE ON {t} FOR EACH STATEMENT", "TRUNCATE {t}"),
    ("insert, no transition table", "AFTER INSERT ON {t} FOR EACH STATEMENT", "INSERT INTO {t} VALUES (1, '2026-03-09 00:00+00', 1)"),
    ("insert, before, each row", "BEFORE INSERT ON {t} FOR EACH ROW", "INSERT INTO {t} VALUES (1, '2026-03-09 00:00+00', 1)"),
    ("update, each row", "AFTER UPDATE ON {t} FOR EACH ROW", "UPDATE {t} SET v = v + 1"),
    ("truncate, after", "AFTER TRUNCATE ON {t} FOR EACH STATEMENT", "TRUNCATE {t}"),
]

# One session fires every case on every form with both functions, each in a
# subtransaction that is rolled back; what each raised is counted by SQLSTATE.
FIRE = r"""
CREATE TEMP TABLE fz_cases (n int, args text[]);
CREATE TEMP TABLE fz_forms (form text, how text, stmt text);
CREATE TEMP TABLE fz_out (n int, form text, fn text, tab text, state text, msg text);
\copy fz_cases FROM '{cases}'
\copy fz_forms FROM '{forms}'
DO $fz$
DECLARE c record; f record; fn text; t text; st text; msg text;
BEGIN
	FOR c IN SELECT * FROM fz_cases ORDER BY n LOOP
		FOR f IN SELECT * FROM fz_forms LOOP
			FOREACH fn IN ARRAY ARRAY['segpipe_insert_trigger', 'segpipe_change_trigger'] LOOP
				FOREACH t IN ARRAY string_to_array('{tables}', ' ') LOOP
					BEGIN
						EXECUTE format('CREATE TRIGGER fz_t %s EXECUTE FUNCTION {ext}.%s(%s)', replace(f.how, '{{t}}', t), fn,
						               coalesce((SELECT string_agg(quote_literal(a), ', ') FROM unnest(c.args) AS a), ''));
						EXECUTE replace(f.stmt, '{{t}}', t);
						st := 'ok'; msg := '';
						RAISE EXCEPTION USING ERRCODE = 'P0099';  -- roll back what the firing did
					EXCEPTION WHEN OTHERS THEN
						IF SQLSTATE <> 'P0099' THEN
							st := SQLSTATE; msg := SQLERRM;
						END IF;
					END;
					INSERT INTO fz_out VALUES (c.n, f.form, fn, t, st, msg);
				END LOOP;
			END LOOP;
		END LOOP;
	END LOOP;
END
$fz$;
SELECT count(*) FROM fz_out;
SELECT state, count(*) FROM fz_out GROUP BY 1 ORDER BY 1;
-- a trigger set-up would make (the row's own id on its readings, or with
-- 'partition' on its partition, for the row's event) is no attack: it runs
CREATE TEMP TABLE fz_genuine AS
SELECT o.* FROM fz_out AS o JOIN fz_cases AS c USING (n) JOIN segpipe_catalog AS k
  ON c.args = CASE WHEN o.tab = 'w_part' THEN ARRAY[k.id::text, 'partition'] ELSE ARRAY[k.id::text] END
 AND (o.tab = k.readings::text OR o.tab = 'w_part' AND k.readings::text = 'w')
WHERE (o.form, o.fn) IN (('insert', 'segpipe_insert_trigger'), ('update', 'segpipe_change_trigger'),
                         ('delete', 'segpipe_change_trigger'), ('truncate', 'segpipe_change_trigger'));
SELECT 'GENUINE', count(*), count(*) FILTER (WHERE state = 'ok') FROM fz_genuine;
SELECT 'BAD', n, form, fn, tab, state, left(msg, 200) FROM fz_out AS o
WHERE NOT (state = '39P01' OR state = '55000' AND (SELECT args[1] LIKE 'segpipe insert %' FROM fz_cases AS c WHERE c.n = o.n))
  AND (n, form, fn, tab) NOT IN (SELECT n, form, fn, tab FROM fz_genuine)
ORDER BY n LIMIT 20;
"""


def copy_text(v):
    return v.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def pg_array(items):
    return "{" + ",".join('"' + a.replace("\\", "\\\\").replace('"', '\\"') + '"' for a in items) + "}"


def fire(role, tables, all_cases, tmp):
    cf, ff = os.path.join(tmp, f"fz_cases_{os.getpid()}"), os.path.join(tmp, f"fz_forms_{os.getpid()}")
    with open(cf, "w", encoding="utf-8") as fh:
        for n, c in enumerate(all_cases):
            fh.write(f"{n}\t{copy_text(pg_array(c))}\n")
    with open(ff, "w", encoding="utf-8") as fh:
        for form, how, stmt in FORMS:
            fh.write(f"{form}\t{how}\t{stmt}\n")
    setup = ""
    if role == LOW:
        # another session holds every table of the set-ups: a firing that
        # locked one before its checks would fail with 55P03, not 39P01
        setup = ("CREATE TEMP TABLE fz_tmp (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);"
                 "INSERT INTO fz_tmp VALUES (1, '2026-03-01', 1); SET lock_timeout = '300ms';")
    sql = setup + FIRE.format(cases=cf, forms=ff, tables=" ".join(tables), ext="public")
    try:
        ok, out, err = run(sql, DB, role)
    finally:
        os.unlink(cf)
        os.unlink(ff)
    return ok, out, err


def bytes_of(db):
    return q("""SELECT md5(string_agg(x, ',' ORDER BY x)) FROM (
        SELECT 'res|' || r::text FROM res AS r UNION ALL SELECT 'rs|' || s.sensor || encode(pipeline_send(s.state), 'hex') FROM res_state AS s
        UNION ALL SELECT 'rc|' || c.sensor || c.ts || encode(pipeline_send(c.state), 'hex') FROM res_checkpoint AS c
        UNION ALL SELECT 'rh|' || h::text FROM res_heartbeat AS h
        UNION ALL SELECT 'res2|' || r::text FROM res2 AS r UNION ALL SELECT 's2|' || s.sensor || encode(pipeline_send(s.state), 'hex') FROM res2_state AS s
        UNION ALL SELECT 'c2|' || c.sensor || c.ts || encode(pipeline_send(c.state), 'hex') FROM res2_checkpoint AS c
        UNION ALL SELECT 'cat|' || k::text FROM segpipe_catalog AS k
        UNION ALL SELECT 'w|' || w::text FROM w AS w UNION ALL SELECT 'r2|' || r::text FROM r2 AS r) AS a(x)""", db)


def main():
    layouts = {}
    for v in ("0.6.0", "0.8.0", "0.9.0"):
        args = harvest(v)
        layouts[args[0] if args else v] = args
        check(len(args) > 5 and args[0].startswith("segpipe insert "),
              f"{v}'s insert trigger has arguments of a 'segpipe insert' layout ({args[:1]}, {len(args)} of them)")
    check(sorted(layouts) == ["segpipe insert 1", "segpipe insert 2", "segpipe insert 3"],
          f"the three layouts ever shipped are read (got {sorted(layouts)})")

    psql(f"DROP DATABASE IF EXISTS {DB}; CREATE DATABASE {DB}; DROP ROLE IF EXISTS {LOW}; "
         f"CREATE ROLE {LOW} LOGIN", "postgres", WHO)
    q("""CREATE EXTENSION segpipe;
CREATE TABLE w (sensor int NOT NULL, ts timestamptz NOT NULL, v float8) PARTITION BY RANGE (sensor);
CREATE TABLE w_part PARTITION OF w FOR VALUES FROM (0) TO (100);
CREATE TABLE r2 (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
INSERT INTO w SELECT s, timestamptz '2026-03-01' + h * interval '6 hours', (s + h) % 7 FROM generate_series(1, 3) s, generate_series(0, 15) h;
INSERT INTO r2 SELECT * FROM w;
SELECT segpipe_maintain('w', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'res',
                        watermark => '1 hour', heartbeat_unit => 'day', heartbeat_zone => 'UTC') IS NULL;
SELECT segpipe_maintain('r2', 'sensor', 'ts', 'v', 'ts::date', '{"type": "CountNumber"}', 'res2') IS NULL;
SELECT segpipe_close_silent('res', '2026-03-06 00:00+00') IS NULL;
""", DB)
    ids = [int(x) for x in q("SELECT id FROM segpipe_catalog ORDER BY id", DB).split("\n")]
    all_cases = cases(layouts, ids)
    before = bytes_of(DB)
    started = q("SELECT pg_postmaster_start_time()", "postgres")
    tmp = os.environ.get("TMPDIR", "/tmp")

    ok, _, err = run("\\set VERBOSITY verbose\nCREATE TEMP TABLE t (a int); CREATE TRIGGER x AFTER INSERT ON t "
                     "FOR EACH STATEMENT EXECUTE FUNCTION segpipe_insert_trigger(E'1\\x00partition')", DB, LOW)
    check(not ok and "22021" in err, f"an argument holding NUL cannot be written (22021): {err}")

    # the real readings carry the triggers set-up made; a second trigger on
    # them with the other row's id, and on the partition without 'partition'
    for role, tables in ((LOW, ["fz_tmp"]), (None, ["w", "w_part", "r2"])):
        holder = None
        if role == LOW:
            holder = subprocess.Popen(["psql", "-X", "-q", "-At", "-d", DB], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True)
            holder.stdin.write(f"BEGIN; LOCK TABLE {', '.join(HELD)} IN ACCESS EXCLUSIVE MODE; SELECT 'held';\n")
            holder.stdin.flush()
            check(holder.stdout.readline().strip() == "held", "another session holds the set-ups' tables")
        try:
            ok, out, err = fire(role, tables, all_cases, tmp)
        finally:
            if holder:
                holder.communicate("ROLLBACK;\n", timeout=60)
        lines = out.split("\n")
        role = role or "the owner"
        check(ok, f"as {role}: every firing ran in one session (no crash): {err[-800:]}")
        want = len(all_cases) * len(FORMS) * 2 * len(tables)
        got = int(lines[0]) if ok and lines and lines[0].isdigit() else -1
        check(got == want, f"as {role}: {want} firings recorded (got {got})")
        bad = [x for x in lines if x.startswith("BAD|")]
        for b in bad[:10]:
            print("  " + b[:300])
        genuine = [x.split("|")[1:] for x in lines if x.startswith("GENUINE|")]
        if role != LOW:  # noqa
            # 2 ids x 4 events on their readings, 4 on the partition: each is a twin of
            # a trigger set-up made (same relation, row and event), so both refuse (39P01)
            check(genuine == [["12", "0"]], f"as {role}: the 12 twins of set-up's triggers are refused (got {genuine})")
        check(not bad, f"as {role}: every firing fails with 39P01, or 55000 for an old layout ({len(bad)} not)")
        print(f"as {role}: {got} firings of {len(all_cases)} argument lists; by SQLSTATE: "
              + ", ".join(x.replace('|', ' ') for x in lines[1:] if not x.startswith(("BAD|", "GENUINE|"))))
        check(q("SELECT pg_postmaster_start_time()", "postgres") == started, f"as {role}: the postmaster did not restart")
        check(bytes_of(DB) == before, f"as {role}: nothing written to the results, states, checkpoints, heartbeats, catalog")
    ok, _, err = run("INSERT INTO w VALUES (1, '2026-03-09 00:00+00', 3)", DB)
    check(ok and bytes_of(DB) != before, f"the genuine triggers still maintain after the fuzzing: {err}")
    psql(f"DROP DATABASE {DB}; DROP ROLE {LOW}", "postgres", WHO)
    return summary("trigger arguments fuzzed")


if __name__ == "__main__":
    sys.exit(main())
