#!/usr/bin/env python3
"""Maintained results on a Citus distributed table, shard by shard (docs/scale-out.md).

Citus refuses segpipe_maintain on a distributed table (it creates triggers there).  What
works without a change to segpipe: the results, state and checkpoint tables distributed
and co-located with the readings (made on the coordinator by segpipe_maintain on an
empty local table of the readings' shape, then distributed), and on every worker, for
every shard of the readings, a row of segpipe's catalog naming that shard and the shards
of the same group of the other tables (segpipe_catalog_register), the triggers on the
shard (segpipe_maintain_triggers) and a first run (segpipe_rebuild_sensors).  A statement
through the coordinator then changes the shards in Citus's transaction, and each shard's
triggers maintain that shard's results in it.

Its own clusters (test/citus/citus.py's: a coordinator, two workers, a single server
without Citus that keeps a local copy of the readings).  Random statements through the
coordinator (seeded): INSERTs over several sensors (multi-shard), late INSERTs, COPY,
UPDATE of v, DELETE of a range, now and then two in one transaction or one rolled back,
TRUNCATE once; the same on the single server.  After every statement: the readings are
the same bit for bit, and the cluster's results (read through the coordinator) are, as a
multiset of (sensor, ts, key, port, float8send(value)), the rows of segment_agg over the
local copy (the rule of docs/reference.md); the state table has one row per sensor with
its number of readings.  Then segpipe_rebuild_sensors on every shard changes nothing.

    test/citus/maintain.py [--rounds N]    default 60
"""
import argparse
import datetime
import os
import random
import sys

sys.dont_write_bytecode = True  # nothing left in test/__pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # test/: sptest, pgcluster
sys.path.insert(0, HERE)
from citus import setup  # noqa: E402
from pgcluster import Fleet, SqlError  # noqa: E402
from sptest import check, summary  # noqa: E402

SEED = int(os.environ.get("SEGPIPE_SEED", "20261204"))
T0 = 1772323200  # 2026-03-01 00:00 UTC
KEY = "date_bin('1 hour', ts, timestamptz '2000-01-01 00:00+00')"
SPEC = '{"type": "MovingAverage", "window_size": 3}'
SENSORS = 12
TABLES = ("mres", "mres_state", "mres_checkpoint")
# rows through the coordinator keep every bit only at extra_float_digits >= 1 (citus.py)
EXACT = "SET extra_float_digits = 1;\n"


def distribute_maintained(co, workers):
    """Maintained results for the distributed table mreadings, shard by shard."""
    key = KEY.replace("'", "''")
    co.psql("CREATE TABLE mreadings_shape (LIKE mreadings);\n"
            f"SELECT segpipe_maintain('mreadings_shape', 'sensor', 'ts', 'v', '{key}', '{SPEC}', 'mres');")
    row = co.psql("SELECT format('%L, %L::regtype, %L::pipeline, %L, %L::interval, %L', key, key_type, spec, late, "
                  "horizon, beyond_horizon) FROM segpipe_catalog WHERE results = 'mres'::regclass")
    co.psql("SELECT segpipe_unmaintain('mres');\nDROP VIEW mres_realtime;\nDROP TABLE mreadings_shape;\n"
            + "".join(f"SELECT create_distributed_table('{t}', 'sensor', colocate_with => 'mreadings');\n"
                      for t in TABLES))
    groups = {}
    out = co.psql("SELECT s.shardminvalue, s.logicalrelid::regclass::text, shard_name(s.logicalrelid, s.shardid), "
                  "p.nodeport FROM pg_dist_shard AS s JOIN pg_dist_placement AS pl USING (shardid) "
                  "JOIN pg_dist_node AS p USING (groupid) "
                  "WHERE s.logicalrelid IN ('mreadings'::regclass, 'mres'::regclass, 'mres_state'::regclass, "
                  "'mres_checkpoint'::regclass)")
    for line in out.splitlines():
        lo, table, shard, port = line.split("|")
        groups.setdefault(lo, {})[table] = (shard, int(port))
    by_port = {w.port: w for w in workers}
    for lo, g in sorted(groups.items()):
        ports = {p for _, p in g.values()}
        check(len(ports) == 1 and len(g) == 4, f"shard group {lo}: its four tables on one node ({g})")
        w = by_port[ports.pop()]
        read, res, st, ck = (g[t][0] for t in ("mreadings",) + TABLES)
        w.psql("SET citus.enable_manual_changes_to_shards = on;\n"
               f"SELECT segpipe_catalog_register('{res}', '{read}', '{st}', '{ck}', NULL, NULL, NULL, 'sensor', "
               f"'ts', 'v', {row}, NULL, NULL, NULL, NULL, NULL, NULL);\n"
               f"SELECT segpipe_maintain_triggers('{res}', '{read}');\n"
               f"SELECT segpipe_rebuild_sensors('{res}', NULL);")
    return len(groups)


def rows_sql(rows):
    return ",".join(f"({s}, to_timestamp({t}), {v!r})" for s, t, v in rows)


class Statements:
    def __init__(self, rng):
        self.rng = rng
        self.clock = {s: T0 + rng.randrange(3600) for s in range(1, SENSORS + 1)}
        self.truncated = False

    def fresh(self, late=False):
        rng, out = self.rng, []
        for s in rng.sample(sorted(self.clock), rng.randint(2, 6)):
            for _ in range(rng.randint(1, 8)):
                if late:
                    t = self.clock[s] - rng.randint(60, 4 * 3600)
                else:
                    self.clock[s] += rng.choice([0, 300, 900, 1800])
                    t = self.clock[s]
                out.append((s, t, rng.uniform(-100, 100) * 10 ** rng.randint(-3, 3)))
        return out

    def next(self, rnd):
        rng = self.rng
        r = rng.random()
        if rnd == 15 and not self.truncated:
            self.truncated = True
            return "TRUNCATE", "TRUNCATE mreadings"
        if r < 0.3:
            return "INSERT", f"INSERT INTO mreadings VALUES {rows_sql(self.fresh())}"
        if r < 0.45:
            return "late INSERT", f"INSERT INTO mreadings VALUES {rows_sql(self.fresh(late=True))}"
        if r < 0.55:
            # ISO 8601 with an offset: read the same under any DateStyle
            lines = "".join(f"{s}\t{datetime.datetime.fromtimestamp(t, datetime.timezone.utc).isoformat()}\t{v!r}\n"
                            for s, t, v in self.fresh())
            return "COPY", f"COPY mreadings FROM stdin;\n{lines}\\.\n"
        if r < 0.7:
            s = rng.randint(1, SENSORS)
            return "UPDATE", (f"UPDATE mreadings SET v = v * 2 + 1 WHERE sensor = {s} AND "
                              f"ts >= to_timestamp({self.clock[s] - rng.randint(0, 6 * 3600)})")
        if r < 0.8:
            lo = rng.randint(1, SENSORS - 2)
            return "DELETE", (f"DELETE FROM mreadings WHERE sensor BETWEEN {lo} AND {lo + 2} AND "
                              f"ts BETWEEN to_timestamp({T0 + rng.randint(0, 10 * 3600)}) AND "
                              f"to_timestamp({T0 + rng.randint(10 * 3600, 20 * 3600)})")
        if r < 0.9:
            return "two in a transaction", (f"BEGIN;\nINSERT INTO mreadings VALUES {rows_sql(self.fresh())};\n"
                                            f"INSERT INTO mreadings VALUES {rows_sql(self.fresh(late=True))};\n"
                                            "COMMIT;")
        return "rolled back", f"BEGIN;\nINSERT INTO mreadings VALUES {rows_sql(self.fresh())};\nROLLBACK;"


READINGS = ("SELECT sensor, (extract(epoch FROM ts) * 1000000)::bigint, encode(float8send(v), 'hex') "
            "FROM mreadings ORDER BY 1, 2, 3")
EXPECTED = (f"SELECT sensor, (extract(epoch FROM ts) * 1000000)::bigint, (extract(epoch FROM k) * 1000000)::bigint, 1, "
            f"encode(float8send(e), 'hex') FROM (SELECT sensor, ts, segment_key(v, {KEY}) OVER w AS k, "
            f"segment_agg(v, {KEY}, '{SPEC}') OVER w AS e FROM mreadings "
            f"WINDOW w AS (PARTITION BY sensor ORDER BY ts, v)) AS x WHERE e IS NOT NULL ORDER BY 1, 2, 3, 4, 5")
GOT = ("SELECT sensor, (extract(epoch FROM ts) * 1000000)::bigint, (extract(epoch FROM key) * 1000000)::bigint, "
       "port, encode(float8send(value), 'hex') FROM mres ORDER BY 1, 2, 3, 4, 5")
STATES = "SELECT sensor, pipeline_rows(state) FROM mres_state ORDER BY 1"
COUNTS = "SELECT sensor, count(*) FROM mreadings GROUP BY 1 ORDER BY 1"


def agree(co, single, what):
    ok = check(co.psql(READINGS) == single.psql(READINGS), f"{what}: the readings differ from the local copy")
    got, want = co.psql(GOT), single.psql(EXPECTED)
    ok = check(got == want, f"{what}: the results differ from segment_agg over the readings "
               f"({len(got.splitlines())} rows, expected {len(want.splitlines())})") and ok
    ok = check(co.psql(STATES) == single.psql(COUNTS), f"{what}: the states' row counts differ from the readings'") and ok
    return ok, len(want.splitlines())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=60)
    args = ap.parse_args()
    rng = random.Random(SEED)
    fleet = Fleet("citus-maintain")
    try:
        co, workers, single = setup(fleet)
        table = "CREATE TABLE mreadings (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);\n"
        single.psql(table)
        co.psql(table + "SET citus.shard_count = 8;\nSELECT create_distributed_table('mreadings', 'sensor');")
        st = Statements(rng)
        first = rows_sql(st.fresh())
        for c in (co, single):
            c.psql(EXACT + f"INSERT INTO mreadings VALUES {first};")
        groups = distribute_maintained(co, workers)
        ok, n = agree(co, single, "after set-up")
        print(f"maintained results on {groups} shard groups (catalog rows and triggers on the workers' shards): "
              f"{n} results after set-up, equal: {ok}")
        kinds = {}
        bad = 0
        for rnd in range(args.rounds):
            kind, sql = st.next(rnd)
            co.psql(EXACT + sql)
            single.psql(sql)
            ok, n = agree(co, single, f"round {rnd} ({kind})")
            kinds[kind] = kinds.get(kind, 0) + 1
            bad += not ok
            if not ok:
                print(f"    round {rnd}: {sql[:400]}", file=sys.stderr)
        print(f"{args.rounds} statements through the coordinator ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}): "
              f"results equal to segment_agg over the readings after {args.rounds - bad} of them; {n} results at the end")
        before = co.psql(GOT)
        for w in workers:
            w.psql("SET citus.enable_manual_changes_to_shards = on;\n"
                   "SELECT segpipe_rebuild_sensors(results, NULL) FROM segpipe_catalog;")
        check(co.psql(GOT) == before, "segpipe_rebuild_sensors on every shard changed the results")
        # Citus hides its shards from a worker's catalog queries unless told otherwise
        listed = sum(int(w.psql("SET citus.override_table_visibility = off;\n"
                                "SELECT count(*) FROM segpipe_maintained")) for w in workers)
        check(listed == groups, f"segpipe_maintained on the workers lists {listed} shards, not {groups}")
        print(f"segpipe_rebuild_sensors on every shard: results unchanged; segpipe_maintained on the workers: "
              f"{listed} rows, one per shard")
    except (SqlError, RuntimeError) as e:
        check(False, str(e))
    finally:
        fleet.close()
    return summary("Citus maintained results")


if __name__ == "__main__":
    sys.exit(main())
