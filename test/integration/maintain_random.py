#!/usr/bin/python3
"""Maintained results with corrections, randomized (docs/reference.md, segpipe_maintain).

A cluster of its own (test/pgcluster.py), a readings table RANGE-partitioned
by time (sensor, ts, tag, v; PRIMARY KEY (sensor, ts, tag), and va, a stored
generated ARRAY[v]), 100 sensors, and two maintained results on it, both
under late => 'correct':
  - "hourly": MovingAverage(3) inside each hour (key date_trunc('hour', ts)),
    so a segment closes every hour and a window spans readings;
  - "daily2": a mesh with two output ports (the segment's sum and count) over
    va, keyed by the day and whether the reading's tag is a multiple of 7 (a
    text key of two columns: an UPDATE of tag changes keys, and readings of
    equal ts and value are ordered by it).
Several clients (threads, each with its own psycopg connection, autocommit)
run rounds: in each round every client sends one statement at once, then,
with nothing in flight, one check compares everything with a recomputation
written from the rule, never from what the implementation stored:
  - the results table equals, as a multiset of (sensor, ts, key, port,
    float8send(value)), the rows where segment_agg(v, k, spec) OVER
    (PARTITION BY sensor ORDER BY ts, v, k) is not NULL (one row per element,
    port = its position, for the array form), with segment_key() as the key;
  - the real-time view equals those rows (provisional false) plus, per
    sensor, pending() of pipeline_agg over its readings in the same order,
    stamped with the sensor's latest ts (provisional true);
  - the state table has a row exactly for each sensor with readings, with
    pipeline_rows() = its number of readings and pipeline_progress() = its
    latest ts;
  - every checkpoint belongs to a sensor with readings and holds its pipeline
    after all its readings with ts <= checkpoint.ts (pipeline_rows() and
    pipeline_progress() agree with a count and a max over the readings).
Statements (a fixed seed chooses them; which of two concurrent statements
commits first may vary): INSERTs in order, late, and with the ts of a reading
already there (ties, some with the same value), through the parent or naming
a partition; UPDATE of v, of ts (rows may move to another partition), of
sensor and of tag (a key column); DELETE (a range, a sensor's latest
readings, now and then all of a sensor's readings); INSERT ... ON CONFLICT
DO UPDATE; MERGE (update, of ts too, delete and insert in one statement);
COPY into the parent or a partition; now and then two or three of them in
one transaction, committed, rolled back, or with one rolled back to a
savepoint.  Errors allowed: the readings' own primary key taken, a row with
no partition for it; a deadlock only in a round with a transaction of
several statements.  Alone in their round: a partition created after set-up,
a pre-filled table attached over a gap in the past (its rows count from the
attach: late rows for 40 sensors), TRUNCATE of one partition (twice), DETACH
of the oldest partition (its rows stop counting), and, in the middle, an
immediate stop (pg_ctl stop -m immediate) while a transaction that ran a
large late INSERT waits to commit and a large UPDATE runs, a restart, and
the checks again.

Then, briefly, on small tables of their own: late => 'error' (a late INSERT
fails with SQLSTATE 22000 and nothing of the statement stays, a tie at the
latest ts is accepted), beyond_horizon => 'error' (a change earlier than the
sensor's progress less the horizon fails with 22000, nothing stays; a change
within it is corrected), beyond_horizon => 'replay', TRUNCATE of the whole
partitioned table with two results tables on it (each one's states,
checkpoints and results cleared), and set-up inside REPEATABLE READ
(refused, 25000).

Needs psycopg 3 (Debian's python3-psycopg, hence /usr/bin/python3) and the
extension installed.
    test/integration/maintain_random.py [clients] [rounds]     defaults: 5, 210
(SEGPIPE_SEED sets the seed; 1 client runs the statements one at a time, each
checked alone, which tells which statement broke what.)
    test/integration/maintain_random.py --mock [--broken]
--mock runs the same rounds and checks against a naive stand-in written in
this file (every table recomputed from scratch after every statement), to
check the harness itself; --broken makes the stand-in order ties by tag
instead of by value, and the checks must then fail.
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
import sptest  # noqa: E402
from sptest import check, summary  # noqa: E402

SEED = int(os.environ.get("SEGPIPE_SEED", "20261201"))
ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
MOCK = "--mock" in sys.argv
BROKEN = "--broken" in sys.argv
CLIENTS = int(ARGS[0]) if len(ARGS) > 0 else 5
ROUNDS = int(ARGS[1]) if len(ARGS) > 1 else 210
SENSORS = 100
DB = "segpipe_maintain_random"
T0 = int(datetime.datetime(2026, 3, 1, tzinfo=datetime.timezone.utc).timestamp())
H = 3600
SETTINGS = {"TimeZone": "UTC", "max_connections": "30", "synchronous_commit": "on"}
OPTIONS = "-c TimeZone=UTC -c lock_timeout=60s -c statement_timeout=120s -c extra_float_digits=3"

SPEC_MA = ('{"type": "Pipeline", "id": "hourly_ma", '
           '"operators": [{"type": "MovingAverage", "id": "ma", "window_size": 3}]}')
SPEC_MESH = ('{"type": "Pipeline", "id": "daily_sum_count", "output_port_types": ["number", "number"], '
             '"operators": [{"type": "Identity", "id": "in"}, {"type": "CumulativeSum", "id": "sum"}, '
             '{"type": "CountNumber", "id": "n"}], '
             '"connections": [{"from": "in", "to": "sum"}, {"from": "in", "to": "n"}], '
             '"entryOperator": "in", "outputMappings": {"sum": {"o1": "o1"}, "n": {"o1": "o2"}}}')


class Maintained:
    """One maintained results table, and how the rule recomputes it."""

    def __init__(self, results, value, key, key_type, spec, array):
        self.results, self.value, self.key, self.key_type = results, value, key, key_type
        self.spec, self.array = spec, array

    def setup_sql(self, table="readings", extra=""):
        return (f"SELECT segpipe_maintain('{table}', 'sensor', 'ts', '{self.value}', $k${self.key}$k$, "
                f"'{self.spec}', '{self.results}'{extra})")

    def expected_sql(self, table="readings"):
        """CTEs: r (the readings in the rule's terms), emit (expected result rows, value as
        float8send), agg (each sensor's pipeline over its readings in the rule's order)."""
        rows = ("SELECT sensor, ts, k AS key, 1 AS port, float8send(e) AS value FROM emit0 WHERE e IS NOT NULL"
                if not self.array else
                "SELECT sensor, ts, k AS key, u.port::int, float8send(u.value) AS value "
                "FROM emit0, unnest(e) WITH ORDINALITY AS u(value, port) WHERE e IS NOT NULL")
        return f"""r AS (SELECT sensor, ts, {self.value} AS v, ({self.key}) AS k FROM {table}),
emit0 AS (SELECT sensor, ts, segment_key(v, k) OVER w AS k, segment_agg(v, k, '{self.spec}') OVER w AS e
          FROM r WINDOW w AS (PARTITION BY sensor ORDER BY ts, v, k)),
emit AS ({rows}),
agg AS (SELECT sensor, pipeline_agg(ts, v, k, '{self.spec}' ORDER BY ts, v, k) AS st,
               count(*) AS n, max(ts) AS last FROM r GROUP BY sensor),
exp_rt AS (SELECT sensor, ts, key, port, value, false AS provisional FROM emit
           UNION ALL
           SELECT a.sensor, a.last, p.key::{self.key_type}, p.port, float8send(p.value), true
           FROM agg AS a, pending(a.st) AS p),
got AS (SELECT sensor, ts, key, port, float8send(value) AS value FROM {self.results}),
got_rt AS (SELECT sensor, ts, key, port, float8send(value) AS value, provisional FROM {self.results}_realtime)"""

    def check_sql(self, table="readings"):
        """One statement, one snapshot: the four counts of differences, then sizes."""
        return f"""WITH {self.expected_sql(table)},
st AS (SELECT sensor, pipeline_rows(state) AS n, pipeline_progress(state) AS last FROM {self.results}_state)
SELECT (SELECT count(*) FROM ((TABLE emit EXCEPT ALL TABLE got) UNION ALL (TABLE got EXCEPT ALL TABLE emit)) AS d),
       (SELECT count(*) FROM ((TABLE exp_rt EXCEPT ALL TABLE got_rt)
                              UNION ALL (TABLE got_rt EXCEPT ALL TABLE exp_rt)) AS d),
       (SELECT count(*) FROM (SELECT sensor, n, last FROM agg) AS a FULL JOIN st USING (sensor)
        WHERE a.n IS DISTINCT FROM st.n OR a.last IS DISTINCT FROM st.last),
       (SELECT count(*) FROM {self.results}_checkpoint AS c
        WHERE NOT EXISTS (SELECT FROM {table} AS x WHERE x.sensor = c.sensor)
           OR pipeline_rows(c.state) <> (SELECT count(*) FROM {table} AS x WHERE x.sensor = c.sensor AND x.ts <= c.ts)
           OR pipeline_progress(c.state) IS DISTINCT FROM
              (SELECT max(x.ts) FROM {table} AS x WHERE x.sensor = c.sensor AND x.ts <= c.ts)),
       (SELECT count(*) FROM got), (SELECT count(*) FROM got_rt WHERE provisional),
       (SELECT count(*) FROM {self.results}_checkpoint)"""

    def detail_sql(self, table="readings"):
        """The differing rows (at most 12 each way), for a failure's report."""
        return f"""WITH {self.expected_sql(table)},
st AS (SELECT sensor, pipeline_rows(state) AS n, pipeline_progress(state) AS last FROM {self.results}_state)
(SELECT 'expected, missing' AS what, sensor, ts::text, key::text, port, encode(value, 'hex'), provisional FROM (TABLE exp_rt EXCEPT ALL TABLE got_rt) AS d ORDER BY 2, 3 LIMIT 12)
UNION ALL
(SELECT 'stored, unexpected', sensor, ts::text, key::text, port, encode(value, 'hex'), provisional FROM (TABLE got_rt EXCEPT ALL TABLE exp_rt) AS d ORDER BY 2, 3 LIMIT 12)
UNION ALL
(SELECT 'state rows/progress: expected ' || coalesce(a.n::text, '-') || ' ' || coalesce(a.last::text, '-')
        || ', stored ' || coalesce(st.n::text, '-') || ' ' || coalesce(st.last::text, '-'),
        sensor, NULL, NULL, NULL, NULL, NULL
 FROM (SELECT sensor, n, last FROM agg) AS a FULL JOIN st USING (sensor)
 WHERE a.n IS DISTINCT FROM st.n OR a.last IS DISTINCT FROM st.last ORDER BY 2 LIMIT 12)"""


MA = Maintained("hourly", "v", "date_trunc('hour', ts)", "timestamptz", SPEC_MA, False)
# a key of two columns: the day, and whether the reading's tag is marked (a multiple
# of 7); a marked reading mostly makes a segment of its own, an UPDATE of tag
# changes keys, and equal ts and values are ordered by the key (its text)
MARKED = "ts::date::text || CASE WHEN tag % 7 = 0 THEN ' marked' ELSE '' END"
MESH = Maintained("daily2", "va", MARKED, "text", SPEC_MESH, True)

# The stand-in for --mock: every table recomputed from the readings after every
# statement, under a lock that makes concurrent statements take turns.  It only
# checks this harness (its generator, its checks, its crash); it is not the
# implementation's model.
MOCK_SQL = """CREATE FUNCTION mock_maintain(readings regclass, val text, key text, key_type text, spec text,
                              results text, arr boolean, broken boolean) RETURNS bigint LANGUAGE plpgsql AS $mock$
DECLARE
  ord text := CASE WHEN broken THEN 'ts, tag' ELSE 'ts, v, k' END;
  emit text := CASE WHEN arr THEN 'SELECT sensor, ts, k, u.port::int, u.value FROM e, unnest(e.e) WITH ORDINALITY AS u(value, port) WHERE e.e IS NOT NULL'
                    ELSE 'SELECT sensor, ts, k, 1, e FROM e WHERE e IS NOT NULL' END;
BEGIN
  EXECUTE format('CREATE TABLE %I (sensor int NOT NULL, ts timestamptz NOT NULL, key %s, port int NOT NULL, value float8)', results, key_type);
  EXECUTE format('CREATE TABLE %I (sensor int PRIMARY KEY, state pipeline NOT NULL)', results || '_state');
  EXECUTE format('CREATE TABLE %I (sensor int, ts timestamptz, state pipeline NOT NULL, PRIMARY KEY (sensor, ts))', results || '_checkpoint');
  EXECUTE format('CREATE VIEW %I AS SELECT sensor, ts, key, port, value, false AS provisional FROM %I UNION ALL '
                 'SELECT s.sensor, pipeline_progress(s.state), p.key::%s, p.port, p.value, true FROM %I AS s, pending(s.state) AS p',
                 results || '_realtime', results, key_type, results || '_state');
  EXECUTE format($f$CREATE FUNCTION %I() RETURNS void LANGUAGE plpgsql AS $b$
BEGIN
  LOCK TABLE %I IN EXCLUSIVE MODE;
  DELETE FROM %I; DELETE FROM %I;
  INSERT INTO %I WITH r AS (SELECT sensor, ts, tag, %s AS v, (%s) AS k FROM %s),
    e AS (SELECT sensor, ts, segment_key(v, k) OVER w AS k, segment_agg(v, k, %L) OVER w AS e
          FROM r WINDOW w AS (PARTITION BY sensor ORDER BY %s)) %s;
  INSERT INTO %I SELECT sensor, pipeline_agg(ts, v, k, %L ORDER BY %s)
    FROM (SELECT sensor, ts, tag, %s AS v, (%s) AS k FROM %s) AS r GROUP BY sensor;
END $b$$f$, results || '_refresh', results || '_state', results, results || '_state',
     results, val, key, readings, spec, ord, emit, results || '_state', spec, ord, val, key, readings);
  EXECUTE format('CREATE FUNCTION %I() RETURNS trigger LANGUAGE plpgsql AS $b$ BEGIN PERFORM %I(); RETURN NULL; END $b$',
                 results || '_m', results || '_refresh');
  PERFORM mock_attach(readings, results);
  PERFORM mock_attach(inhrelid, results) FROM pg_inherits WHERE inhparent = readings;
  EXECUTE format('SELECT %I()', results || '_refresh');
  RETURN 0;
END $mock$;
CREATE FUNCTION mock_attach(rel regclass, results text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %s FOR EACH STATEMENT EXECUTE FUNCTION %I()',
                 results || '_m', rel, results || '_m');
END $$;"""


def iso(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S+00")


def lit(t):
    return f"'{iso(t)}'::timestamptz"


class Partition:
    def __init__(self, name, lo, hi, attached):
        self.name, self.lo, self.hi, self.attached = name, lo, hi, attached


class Model:
    """What the generator knows: each sensor's clock (the latest ts it sent in
    order) and which time ranges have an attached partition."""

    def __init__(self, rng):
        self.rng = rng
        self.parts = [Partition("p1a", T0, T0 + 12 * H, True),
                      Partition("pgap", T0 + 12 * H, T0 + 18 * H, False),
                      Partition("p1b", T0 + 18 * H, T0 + 24 * H, True),
                      Partition("p2", T0 + 24 * H, T0 + 48 * H, True),
                      Partition("p3", T0 + 48 * H, T0 + 72 * H, False)]
        self.clock = {s: T0 + 42 * H for s in range(1, SENSORS + 1)}

    def part(self, name):
        return next(p for p in self.parts if p.name == name)

    def routable(self, t):
        return any(p.attached and p.lo <= t < p.hi for p in self.parts)

    def where(self, t):
        return next((p for p in self.parts if p.attached and p.lo <= t < p.hi), None)

    def past(self, s):
        """A routable time at or before sensor s's clock (in-order ranges excluded)."""
        for _ in range(50):
            lo = min(p.lo for p in self.parts if p.attached)
            t = self.rng.randint(lo, self.clock[s])
            if self.routable(t):
                return t
        return self.clock[s]

    def next_ts(self, s):
        """An in-order time for sensor s (advancing its clock), or None past the attached ranges."""
        t = self.clock[s] + self.rng.randint(240, 2400)
        if not self.routable(t):
            return None
        self.clock[s] = t
        return t

    def value(self):
        r = self.rng.random()
        if r < 0.6:
            return self.rng.uniform(-50, 50)        # every bit counts
        if r < 0.9:
            return float(self.rng.randint(0, 20))   # equal values, for ties
        return self.rng.choice([0.1, 1e-300, -0.0, 1e300, 0.3])

    def tag(self):
        return self.rng.randint(1, 2**31 - 1)

    def sensors(self, n):
        return self.rng.sample(range(1, SENSORS + 1), n)

    def rows_in_order(self, n):
        rows = []
        for s in self.sensors(n):
            for _ in range(self.rng.choice([1, 1, 2, 3])):
                t = self.next_ts(s)
                if t is not None:
                    rows.append((s, t, self.tag(), self.value()))
        return rows

    def rows_late(self, n):
        rows = []
        for s in self.sensors(n):
            t = self.past(s)
            rows.append((s, t, self.tag(), self.value()))
            if self.rng.random() < 0.3:  # a tie within the statement
                rows.append((s, t, self.tag(), self.rng.choice([rows[-1][3], self.value()])))
        return rows


def values_sql(rows):
    return ", ".join(f"({s}, {lit(t)}, {g}, {v!r}::float8)" for s, t, g, v in rows)


def window(m, s):
    """A range of about 20 to 200 minutes of sensor s's past."""
    a = m.past(s) - m.rng.randint(0, 3 * H)
    return a, a + m.rng.randint(1200, 12000)


def statement(m):
    """One random statement, (kind, sql, rows for COPY or None), or now and then a
    transaction of two or three: (kind, [sql, ...], how it ends)."""
    rng = m.rng
    if rng.random() < 0.06:
        qs = []
        while len(qs) < rng.randint(2, 3):
            _, q, rows = single(m)
            if rows is None:
                qs.append(q)
        end = rng.choice(["commit", "commit", "rollback", "savepoint rolled back"])
        return f"transaction ({end})", qs, end
    return single(m)


def single(m):
    """One random statement: (kind, sql, rows for COPY or None)."""
    rng = m.rng
    kinds = [("insert in order", 24), ("insert late", 11), ("insert tie", 6), ("insert into partition", 7),
             ("update v", 8), ("update ts", 5), ("update sensor", 4), ("update tag", 3), ("delete", 7), ("upsert", 7),
             ("merge", 6), ("copy", 6), ("copy into partition", 2)]
    kind = rng.choices([k for k, _ in kinds], [w for _, w in kinds])[0]
    if kind == "insert in order":
        rows = m.rows_in_order(rng.randint(1, 10))
        if not rows:
            kind, rows = "insert late", m.rows_late(3)
        return kind, f"INSERT INTO readings (sensor, ts, tag, v) VALUES {values_sql(rows)}", None
    if kind == "insert late":
        return kind, f"INSERT INTO readings (sensor, ts, tag, v) VALUES {values_sql(m.rows_late(rng.randint(1, 6)))}", None
    if kind == "insert tie":
        # the ts of a reading already there, a value equal to its or not, and sometimes the sensor's latest
        s = rng.randint(1, SENSORS)
        upto = m.clock[s] if rng.random() < 0.4 else m.past(s)
        v = "v" if rng.random() < 0.4 else f"{m.value()!r}::float8"
        return kind, (f"INSERT INTO readings (sensor, ts, tag, v) SELECT sensor, ts, {m.tag()}, {v} FROM readings "
                      f"WHERE sensor = {s} AND ts <= {lit(upto)} ORDER BY ts DESC, tag LIMIT 1"), None
    if kind in ("insert into partition", "copy into partition"):
        p = rng.choice([p for p in m.parts if p.attached])
        rows = []
        for s in m.sensors(rng.randint(1, 6)):
            t = m.clock[s] + rng.randint(240, 2400)
            if p.lo <= t < p.hi and rng.random() < 0.5:
                m.clock[s] = t
            else:
                t = rng.randrange(p.lo, p.hi)
            rows.append((s, t, m.tag(), m.value()))
        if kind == "copy into partition":
            return kind, f"COPY {p.name} (sensor, ts, tag, v) FROM STDIN", rows
        return kind, f"INSERT INTO {p.name} (sensor, ts, tag, v) VALUES {values_sql(rows)}", None
    if kind == "copy":
        rows = m.rows_in_order(rng.randint(1, 8)) + m.rows_late(rng.randint(0, 4))
        rng.shuffle(rows)
        return kind, "COPY readings (sensor, ts, tag, v) FROM STDIN", rows
    s = rng.randint(1, SENSORS)
    a, b = window(m, s)
    cond = f"sensor = {s} AND ts >= {lit(a)} AND ts < {lit(b)}"
    if rng.random() < 0.15:  # the sensor's latest readings
        cond = f"sensor = {s} AND ts >= (SELECT max(ts) FROM readings WHERE sensor = {s}) - interval '{rng.randint(0, 90)} minutes'"
    if kind == "update v":
        v = rng.choice([f"{m.value()!r}::float8", "v + 1", "-v", "v * 0.5"])
        return kind, f"UPDATE readings SET v = {v} WHERE {cond}", None
    if kind == "update ts":
        shift = rng.choice([-1, 1]) * rng.randint(60, 6 * H)
        return kind, f"UPDATE readings SET ts = ts + interval '{shift} seconds' WHERE {cond}", None
    if kind == "update tag":  # the key of daily2
        return kind, f"UPDATE readings SET tag = tag + {rng.randint(1, 6)} WHERE {cond}", None
    if kind == "update sensor":
        return kind, f"UPDATE readings SET sensor = {rng.randint(1, SENSORS)} WHERE {cond}", None
    if kind == "delete":
        if rng.random() < 0.04:
            cond = f"sensor = {s}"  # all of a sensor's readings: no state, no checkpoint
        return kind, f"DELETE FROM readings WHERE {cond}", None
    if kind == "upsert":
        new = m.rows_late(rng.randint(0, 3)) + m.rows_in_order(rng.randint(0, 2))
        src = (f"SELECT sensor, ts, tag, {m.value()!r}::float8 FROM readings WHERE {cond}"
               + (f" UNION ALL VALUES {values_sql(new)}" if new else ""))
        return kind, (f"INSERT INTO readings (sensor, ts, tag, v) {src} "
                      "ON CONFLICT (sensor, ts, tag) DO UPDATE SET v = excluded.v"), None
    # MERGE: some matched rows updated, some deleted, new rows inserted
    new = m.rows_late(rng.randint(0, 3)) + m.rows_in_order(rng.randint(0, 2))
    src = (f"SELECT sensor, ts, tag, v * 2 + 1 AS v, (tag % 3 = 0) AS del FROM readings WHERE {cond}"
           + (f" UNION ALL SELECT *, false FROM (VALUES {values_sql(new)}) AS n" if new else ""))
    update = "v = s.v" if rng.random() < 0.7 else f"v = s.v, ts = t.ts + interval '{rng.randint(-7200, 7200)} seconds'"
    return kind, (f"MERGE INTO readings AS t USING ({src}) AS s(sensor, ts, tag, v, del) "
                  "ON t.sensor = s.sensor AND t.ts = s.ts AND t.tag = s.tag "
                  f"WHEN MATCHED AND s.del THEN DELETE WHEN MATCHED THEN UPDATE SET {update} "
                  "WHEN NOT MATCHED THEN INSERT (sensor, ts, tag, v) VALUES (s.sensor, s.ts, s.tag, s.v)"), None


def text(q):
    return "BEGIN; " + "; ".join(q) + "; END" if isinstance(q, list) else q


def allowed(e):
    """What a random statement may meet without anything being wrong: the readings'
    primary key taken (an UPDATE of ts or sensor onto a reading there), a row moved
    or inserted where no partition is attached.  None for anything else (a key of
    the implementation's own tables taken is not allowed)."""
    if e.sqlstate == "23505" and (e.diag.constraint_name or "").endswith("_pkey") and \
            (e.diag.table_name or "") in ("readings", "p1a", "pgap", "p1b", "p2", "p3"):
        return "readings' primary key taken"
    if e.sqlstate == "23514" and (e.diag.message_primary or "").startswith("no partition of relation"):
        return "no partition for the row"
    return None


class Run:
    def __init__(self, cluster):
        self.c = cluster
        self.conns = []
        self.checker = None
        self.outcomes = {}     # kind -> {outcome: count}
        self.errors = []       # unexpected errors: (round, kind, sqlstate, message, sql)
        self.reported = {}     # check category -> failures reported in detail
        self.maintained = [MA, MESH]
        self.statements = 0
        self.log = []          # this round's statements
        self.checking = 0.0    # seconds spent in the checks
        self.failed_rounds = {}  # check category -> rounds where it failed

    def connect(self):
        info = self.c.conninfo(DB) + f" options='{OPTIONS}'"
        self.conns = [psycopg.connect(info, autocommit=True) for _ in range(CLIENTS)]
        self.checker = psycopg.connect(info, autocommit=True)

    def close(self):
        for conn in self.conns + [self.checker]:
            if conn is not None:
                conn.close()

    def sql(self, q):
        with self.checker.cursor() as cur:
            cur.execute(q)
            return cur.fetchall() if cur.description else None

    def execute(self, n, kind, q, rows, rnd, crash_ok=False, multi=False):
        """Runs one client's statement (or transaction); multi: the round has a
        transaction of several statements, so a deadlock is no fault (the contract
        rules them out between single statements only)."""
        out = "ok"
        conn = self.conns[n]
        try:
            with conn.cursor() as cur:
                if isinstance(q, list):
                    with conn.transaction():
                        cur.execute(q[0])
                        if rows == "savepoint rolled back":
                            with conn.transaction():
                                cur.execute(q[1])
                                raise psycopg.Rollback()
                        else:
                            cur.execute(q[1])
                        for more in q[2:]:
                            cur.execute(more)
                        if rows == "rollback":
                            raise psycopg.Rollback()
                elif rows is not None:
                    with cur.copy(q) as cp:
                        for s, t, g, v in rows:
                            cp.write_row((s, iso(t), g, v))
                else:
                    cur.execute(q)
        except psycopg.Error as e:
            state = e.sqlstate or "connection"
            out = allowed(e) or state
            if crash_ok:
                out = "cut by the stop"
            elif state == "40P01" and multi:
                out = "deadlock, with a transaction of several statements in the round"
            elif not allowed(e):
                self.errors.append((rnd, kind, state, str(e).splitlines()[0] + (
                    " (" + e.diag.message_detail.replace("\n", " ") + ")" if e.diag.message_detail else ""), text(q)[:600]))
        self.outcomes.setdefault(kind, {}).setdefault(out, 0)
        self.outcomes[kind][out] += 1

    def round(self, m, rnd):
        stmts = [statement(m) for _ in range(CLIENTS)]
        self.log = [(k, text(q)) for k, q, _ in stmts]
        multi = any(isinstance(q, list) for _, q, _ in stmts)
        threads = [threading.Thread(target=self.execute, args=(n, k, q, rows, rnd, False, multi))
                   for n, (k, q, rows) in enumerate(stmts)]
        errors = len(self.errors)
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.statements += len(stmts)
        if len(self.errors) > errors and errors < 5:
            for k, q in self.log:
                print(f"    round {rnd} had an unexpected error; its statement ({k}): {q[:1500]}", file=sys.stderr)

    def alone(self, kind, q, rnd):
        """A statement alone in its round (DDL, TRUNCATE); it must succeed."""
        self.log = [(kind, q)]
        try:
            with self.checker.cursor() as cur:
                cur.execute(q)
            ok = True
        except psycopg.Error as e:
            ok = False
            self.errors.append((rnd, kind, e.sqlstate, str(e).splitlines()[0], q[:300]))
        self.outcomes.setdefault(kind, {}).setdefault("ok" if ok else "failed", 0)
        self.outcomes[kind]["ok" if ok else "failed"] += 1
        self.statements += 1
        return ok

    def verify(self, rnd, label=None, event=False):
        started = time.monotonic()
        try:
            return self._verify(rnd, label, event)
        finally:
            self.checking += time.monotonic() - started

    def _verify(self, rnd, label, event):
        """The checks after a round.  A failure is told in full (the round's statements
        and the differing rows) when it starts a run of failing rounds of its results
        table, or comes with a statement that ran alone (at most 6 times a table); the
        other failures by a line, at most 4 a check, and all are counted."""
        label = label or f"round {rnd}"
        sizes = []
        for mt in self.maintained:
            diff, rt, st, cp, results, pending, cps = self.sql(mt.check_sql())[0]
            names = ("the results table", "the real-time view", "the state table", "the checkpoints")
            failing = [(what, n) for what, n in zip(names, (diff, rt, st, cp)) if n]
            for what, n in zip(names, (diff, rt, st, cp)):
                if not n:
                    check(True, f"{mt.results}: {what}")
            if failing:
                was = self.failed_rounds.get(mt.results, [])
                told = self.reported.get(mt.results, 0)
                full = told < 6 and (event or not was or was[-1] != rnd - 1)
                self.failed_rounds.setdefault(mt.results, []).append(rnd)
                for what, n in failing:
                    category = f"{mt.results}: {what}"
                    self.failed_rounds.setdefault(category, []).append(rnd)
                    lines = self.reported.get(category, 0)
                    self.reported[category] = lines + 1
                    if full or lines < 4:
                        check(False, f"{label}: {mt.results}: {what} differs from the recomputation in {n} rows")
                    else:
                        sptest.failed += 1
                if full:
                    self.reported[mt.results] = told + 1
                    for k, q in self.log:
                        print(f"    round {rnd}'s statement ({k}): {q[:400]}", file=sys.stderr)
                    for row in self.sql(mt.detail_sql()):
                        print("    " + " | ".join(str(x) for x in row), file=sys.stderr)
            sizes.append(f"{mt.results} {results} results, {pending} provisional, {cps} checkpoints")
        return sizes


def create(run, m):
    """The readings table, its partitions (but the gap and p3), the initial readings, the set-up."""
    rng = m.rng
    run.sql("""CREATE TABLE readings (sensor int NOT NULL, ts timestamptz NOT NULL, tag int NOT NULL,
                       v float8 NOT NULL, va float8[] GENERATED ALWAYS AS (ARRAY[v]) STORED,
                       PRIMARY KEY (sensor, ts, tag)) PARTITION BY RANGE (ts)""")
    for p in m.parts:
        if p.attached:
            run.sql(f"CREATE TABLE {p.name} PARTITION OF readings FOR VALUES FROM ({lit(p.lo)}) TO ({lit(p.hi)})")
    n = 0
    with run.checker.cursor() as cur:
        with cur.copy("COPY readings (sensor, ts, tag, v) FROM STDIN") as cp:
            for s in range(1, SENSORS + 1):
                t = T0 + rng.randint(0, 1200)
                while t < m.clock[s]:
                    if m.routable(t):
                        cp.write_row((s, iso(t), m.tag(), m.value()))
                        n += 1
                    t += rng.randint(300, 2100)
    if MOCK:
        run.sql(MOCK_SQL)
    started = time.monotonic()
    for mt in run.maintained:
        try:
            if MOCK:
                run.sql(f"SELECT mock_maintain('readings', '{mt.value}', $k${mt.key}$k$, '{mt.key_type}', "
                        f"'{mt.spec}', '{mt.results}', {mt.array}, {BROKEN})")
            else:
                got = run.sql(mt.setup_sql())[0][0]
                check(got == n, f"set-up of {mt.results} says it ran {got} readings, not {n}")
        except psycopg.Error as e:
            check(False, f"set-up of {mt.results} failed: {e}")
            raise
    print(f"set-up: {n} readings of {SENSORS} sensors in {len([p for p in m.parts if p.attached])} partitions, "
          f"{len(run.maintained)} results tables, {time.monotonic() - started:.1f} s")
    return n


def event(run, m, rnd, what):
    """The statements that run alone in their round."""
    rng = m.rng
    if what == "create p3":
        p = m.part("p3")
        ok = run.alone("create partition", f"CREATE TABLE p3 PARTITION OF readings FOR VALUES FROM ({lit(p.lo)}) TO ({lit(p.hi)})", rnd)
        p.attached = ok
        if ok and MOCK:
            for mt in run.maintained:
                run.sql(f"SELECT mock_attach('p3', '{mt.results}')")
    elif what == "attach gap":
        p = m.part("pgap")
        rows = []
        for s in sorted(m.sensors(40)):
            t = p.lo + rng.randint(0, 1200)
            while t < p.hi:
                rows.append((s, t, m.tag(), m.value()))
                t += rng.randint(300, 2100)
        # filled before it is a partition: nothing maintains it yet
        run.sql("CREATE TABLE pgap (LIKE readings INCLUDING DEFAULTS INCLUDING GENERATED)")
        run.sql(f"ALTER TABLE pgap ADD PRIMARY KEY (sensor, ts, tag), ADD CHECK (ts >= {lit(p.lo)} AND ts < {lit(p.hi)})")
        run.sql(f"INSERT INTO pgap (sensor, ts, tag, v) VALUES {values_sql(rows)}")
        ok = run.alone("attach partition", f"ALTER TABLE readings ATTACH PARTITION pgap FOR VALUES FROM ({lit(p.lo)}) TO ({lit(p.hi)})", rnd)
        p.attached = ok
        if ok and MOCK:
            for mt in run.maintained:
                run.sql(f"SELECT mock_attach('pgap', '{mt.results}'); SELECT {mt.results}_refresh()")
    elif what.startswith("truncate "):
        run.alone("truncate partition", f"TRUNCATE {what.split()[1]}", rnd)
    elif what == "detach p1a":
        ok = run.alone("detach partition", "ALTER TABLE readings DETACH PARTITION p1a", rnd)
        m.part("p1a").attached = not ok
        if ok and MOCK:
            for mt in run.maintained:
                run.sql(f"SELECT {mt.results}_refresh()")


def crash(run, m, rnd):
    """An immediate stop, then a restart: while one client's transaction has run a large
    late INSERT (every sensor corrected) and waits to commit, another runs a large
    UPDATE of every sensor's readings over two hours, the others random statements."""
    big = ("INSERT INTO readings (sensor, ts, tag, v) SELECT i % 100 + 1, "
           f"{lit(T0 + 26 * H)} + (i * 37 % 43200) * interval '1 second', 2000000000 + i, (i * 7919 % 1000) / 8.0 "
           "FROM generate_series(1, 4000) AS i")
    stmts = [("large late insert, then waiting to commit", [big, "SELECT pg_sleep(30)"], "commit"),
             ("large update", f"UPDATE readings SET v = v + 0.5 WHERE ts >= {lit(T0 + 30 * H)} AND ts < {lit(T0 + 32 * H)}", None)]
    stmts += [statement(m) for _ in range(CLIENTS - 2)]
    run.log = [(k, text(q)) for k, q, _ in stmts]
    threads = [threading.Thread(target=run.execute, args=(n, k, q, rows, rnd, True)) for n, (k, q, rows) in enumerate(stmts)]
    for t in threads:
        t.start()
    # the stop comes once the large insert has run (its transaction sleeps), a little later
    waited = time.monotonic()
    while time.monotonic() - waited < 60 and not run.sql(
            "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)' AND state = 'active'")[0][0]:
        time.sleep(0.005)
    time.sleep(m.rng.uniform(0, 0.03))
    running = [k for (k, _, _), t in zip(stmts, threads) if t.is_alive()]
    run.c.crash()
    for t in threads:
        t.join()
    run.statements += len(stmts)
    run.close()
    run.c.start()
    run.connect()
    print(f"round {rnd}: immediate stop with {len(running)} of {len(stmts)} statements still running "
          f"({', '.join(running)}), restarted")


def main():
    rng = random.Random(SEED)
    started = time.monotonic()
    fleet = Fleet("random")
    try:
        c = fleet.add("data", SETTINGS)
        c.psql(f"CREATE DATABASE {DB}")
        c.psql("CREATE EXTENSION segpipe", DB)
        run = Run(c)
        run.connect()
        m = Model(rng)
        create(run, m)
        sizes = run.verify(0, "after set-up")
        print("after set-up: " + "; ".join(sizes))
        events = {int(ROUNDS * 0.12): "create p3", int(ROUNDS * 0.3): "attach gap", int(ROUNDS * 0.42): "truncate p1b",
                  int(ROUNDS * 0.66): "detach p1a", int(ROUNDS * 0.85): "truncate pgap"}
        crash_at = ROUNDS // 2
        for rnd in range(1, ROUNDS + 1):
            if rnd in events:
                event(run, m, rnd, events[rnd])
            elif rnd == crash_at:
                crash(run, m, rnd)
            else:
                run.round(m, rnd)
            sizes = run.verify(rnd, f"round {rnd}" + (" (after the restart)" if rnd == crash_at else ""),
                               rnd in events or rnd == crash_at)
            if rnd in events or rnd == crash_at or rnd % 50 == 0:
                print(f"round {rnd}{' (' + events[rnd] + ')' if rnd in events else ''}: "
                      f"{run.sql('SELECT count(*) FROM readings')[0][0]} readings; " + "; ".join(sizes))
        for mt in run.maintained:
            if any(c.startswith(mt.results + ":") for c in run.failed_rounds):
                rows = run.sql(mt.detail_sql())
                print(f"    {mt.results} after the last round: {len(rows)} differences (at most 12 of each kind)", file=sys.stderr)
                for row in rows:
                    print("    " + " | ".join(str(x) for x in row), file=sys.stderr)
        for category, rounds in run.failed_rounds.items():
            if ":" not in category:
                continue
            print(f"    {category}: failed in {len(rounds)} rounds: {', '.join(str(r) for r in rounds[:30])}"
                  + (" ..." if len(rounds) > 30 else ""), file=sys.stderr)
        for rnd, kind, state, msg, q in run.errors[:10]:
            print(f"    round {rnd}, {kind}: {state} {msg}\n        {q}", file=sys.stderr)
        check(not run.errors, f"{len(run.errors)} statements failed with errors no rule explains "
              f"(first: {run.errors[0][1:4] if run.errors else None})")
        print(f"{run.statements} statements in {ROUNDS} rounds of {CLIENTS} clients "
              f"({time.monotonic() - started:.1f} s so far, {run.checking:.1f} s of it in the checks):")
        for kind, outs in sorted(run.outcomes.items()):
            print(f"    {kind}: " + ", ".join(f"{n} {o}" for o, n in sorted(outs.items())))
        if not ARGS:  # the default run: at least 1,000 statements
            check(run.statements >= 1000, f"only {run.statements} statements")
        run.close()
        if not MOCK:
            policies(c)
    finally:
        fleet.close()
    print(f"elapsed: {time.monotonic() - started:.1f} s")
    return summary("maintained results with corrections, randomized")


def expect_error(conn, q, state, what):
    try:
        with conn.cursor() as cur:
            cur.execute(q)
        check(False, f"{what}: no error")
    except psycopg.Error as e:
        check(e.sqlstate == state, f"{what}: SQLSTATE {e.sqlstate}, not {state} ({str(e).splitlines()[0]})")


def snapshot(conn, results, table):
    """Everything a refused statement must leave as it was, as text."""
    with conn.cursor() as cur:
        cur.execute(f"""SELECT (SELECT string_agg(x::text, ';' ORDER BY x::text) FROM {table} AS x),
                               (SELECT string_agg(x::text, ';' ORDER BY x::text) FROM {results} AS x),
                               (SELECT string_agg(x::text, ';' ORDER BY x::text) FROM {results}_state AS x),
                               (SELECT string_agg(x::text, ';' ORDER BY x::text) FROM {results}_checkpoint AS x)""")
        return cur.fetchone()


def agrees(conn, mt, table, what):
    with conn.cursor() as cur:
        cur.execute(mt.check_sql(table))
        diff, rt, st, cp, results, _, _ = cur.fetchone()
    check((diff, rt, st, cp) == (0, 0, 0, 0) and results > 0,
          f"{what}: differences (results, real-time view, states, checkpoints) {(diff, rt, st, cp)}, {results} results")


HOURLY = "date_trunc('hour', ts)"


def policies(c):
    """late => 'error', beyond_horizon => 'error' and 'replay', TRUNCATE, the isolation
    level: each on a small table of its own (two sensors, ten hours of readings every
    ten minutes), each section counted on its own."""
    h0 = T0 + 100 * 24 * H
    last = h0 + 59 * 600       # the sensors' progress after set-up
    far = lit(last - 5 * H)    # a reading 5 hours back

    def table(conn, t, partitioned=False):
        conn.execute(f"CREATE TABLE {t} (sensor int NOT NULL, ts timestamptz NOT NULL, v float8 NOT NULL)"
                     + (" PARTITION BY RANGE (ts)" if partitioned else ""))
        if partitioned:  # a day and the rest
            conn.execute(f"CREATE TABLE {t}_1 PARTITION OF {t} FOR VALUES FROM (MINVALUE) TO ({lit(h0 + 24 * H)})")
            conn.execute(f"CREATE TABLE {t}_2 PARTITION OF {t} FOR VALUES FROM ({lit(h0 + 24 * H)}) TO (MAXVALUE)")
        conn.execute(f"INSERT INTO {t} SELECT s, {lit(h0)} + i * interval '10 minutes', (i * 7 + s) % 11 "
                     "FROM generate_series(1, 2) AS s, generate_series(0, 59) AS i")

    def late_error(conn):
        table(conn, "le")
        le = Maintained("le_hourly", "v", HOURLY, "timestamptz", SPEC_MA, False)
        conn.execute(le.setup_sql("le", ", late => 'error'"))
        before = snapshot(conn, "le_hourly", "le")
        expect_error(conn, f"INSERT INTO le VALUES (1, {lit(last - 1800)}, 5)", "22000", "late => 'error': a late row")
        check(snapshot(conn, "le_hourly", "le") == before, "late => 'error': the refused row left something behind")
        expect_error(conn, f"INSERT INTO le VALUES (1, {lit(last + 600)}, 5), (2, {lit(last + 600)}, 6), "
                           f"(2, {lit(last - 7200)}, 7)", "22000", "late => 'error': a statement with one late row")
        check(snapshot(conn, "le_hourly", "le") == before, "late => 'error': the refused statement left something behind")
        conn.execute(f"INSERT INTO le VALUES (1, {lit(last + 600)}, 4), (2, {lit(last + 4000)}, 3)")
        agrees(conn, le, "le", "late => 'error': rows in order")
        # a tie at the latest ts, with a smaller value: not earlier, so not late;
        # the rule's order puts it before the row already processed
        conn.execute(f"INSERT INTO le VALUES (1, {lit(last + 600)}, 1)")
        agrees(conn, le, "le", "late => 'error': a tie at the latest ts")

    def horizon_error(conn):
        table(conn, "bh")
        bh = Maintained("bh_hourly", "v", HOURLY, "timestamptz", SPEC_MA, False)
        conn.execute(bh.setup_sql("bh", ", horizon => interval '2 hours', beyond_horizon => 'error'"))
        before = snapshot(conn, "bh_hourly", "bh")
        for what, q in (("an UPDATE", f"UPDATE bh SET v = v + 1 WHERE sensor = 1 AND ts = {far}"),
                        ("a DELETE", f"DELETE FROM bh WHERE sensor = 1 AND ts = {far}"),
                        ("an INSERT", f"INSERT INTO bh VALUES (1, {lit(last - 5 * H + 1)}, 9)"),
                        ("an UPDATE of ts into the horizon", f"UPDATE bh SET ts = {lit(last - 600 + 1)} WHERE sensor = 1 AND ts = {far}"),
                        ("an UPDATE of sensor", f"UPDATE bh SET sensor = 2 WHERE sensor = 1 AND ts = {far}")):
            expect_error(conn, q, "22000", f"beyond_horizon => 'error': {what} 5 hours back")
            check(snapshot(conn, "bh_hourly", "bh") == before, f"beyond_horizon => 'error': the refused {what} left something behind")
        conn.execute(f"UPDATE bh SET v = v * 3 + 0.25 WHERE sensor = 1 AND ts >= {lit(last - H)}")
        conn.execute(f"INSERT INTO bh VALUES (2, {lit(last - 1800 + 7)}, 0.5)")
        conn.execute(f"DELETE FROM bh WHERE sensor = 2 AND ts = {lit(last - 1200)}")
        agrees(conn, bh, "bh", "beyond_horizon => 'error': changes within the horizon")

    def horizon_replay(conn):
        # beyond_horizon => 'replay' (the default): the same changes 5 hours back are corrected
        table(conn, "br")
        br = Maintained("br_hourly", "v", HOURLY, "timestamptz", SPEC_MA, False)
        conn.execute(br.setup_sql("br", ", horizon => interval '2 hours'"))
        conn.execute(f"UPDATE br SET v = v + 1 WHERE sensor = 1 AND ts = {far}")
        conn.execute(f"DELETE FROM br WHERE sensor = 2 AND ts = {far}")
        conn.execute(f"INSERT INTO br VALUES (1, {lit(last - 5 * H + 1)}, 9)")
        agrees(conn, br, "br", "beyond_horizon => 'replay': changes 5 hours back")

    def truncate(conn):
        # TRUNCATE of the whole table clears states, checkpoints and results; readings may then start again
        # (partitioned readings with two results tables: each is cleared)
        table(conn, "tr", True)
        both = [Maintained("tr_daily", "v", "ts::date", "date", SPEC_MA, False),
                Maintained("tr_hourly", "v", HOURLY, "timestamptz", SPEC_MA, False)]
        for tr in both:
            conn.execute(tr.setup_sql("tr"))
        conn.execute("TRUNCATE tr")
        for tr in both:
            t = tr.results
            got = conn.execute(f"SELECT (SELECT count(*) FROM {t}), (SELECT count(*) FROM {t}_state), "
                               f"(SELECT count(*) FROM {t}_checkpoint), (SELECT count(*) FROM {t}_realtime)").fetchone()
            check(got == (0, 0, 0, 0), f"TRUNCATE of the readings: {t}'s results, states, checkpoints, view: {got}, not all empty")
        conn.execute(f"INSERT INTO tr SELECT 1, {lit(h0)} + i * interval '7 minutes', i FROM generate_series(0, 600) AS i")
        for tr in both:
            agrees(conn, tr, "tr", f"TRUNCATE of the readings, then readings from the start again ({tr.results})")

    def isolation(conn):
        conn.execute("CREATE TABLE rr (sensor int NOT NULL, ts timestamptz NOT NULL, v float8)")
        conn.autocommit = False
        try:
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            expect_error(conn, Maintained("rr_out", "v", "ts::date", "date", SPEC_MA, False).setup_sql("rr"),
                         "25000", "set-up inside REPEATABLE READ")
        finally:
            conn.rollback()

    for what, section in (("late => 'error'", late_error), ("beyond_horizon => 'error'", horizon_error),
                          ("beyond_horizon => 'replay'", horizon_replay), ("TRUNCATE of the readings", truncate),
                          ("set-up inside REPEATABLE READ", isolation)):
        with psycopg.connect(c.conninfo(DB) + f" options='{OPTIONS}'", autocommit=True) as conn:
            try:
                section(conn)
            except psycopg.Error as e:
                check(False, f"{what}: {str(e).splitlines()[0]}")


if __name__ == "__main__":
    sys.exit(main())
