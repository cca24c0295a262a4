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
its number of readings.  A third worker is added and citus_rebalance_start() run in the
middle; the moved shard groups get their catalog rows and triggers on the new node.  Then
segpipe_rebuild_sensors on every shard changes nothing, and a second set-up with a
watermark and daily heartbeats (its heartbeat table distributed too): segpipe_close_silent
on every shard applies what it applies on one server, and the results stay equal to one
server's.

    test/citus/maintain.py [--rounds N]    default 60
"""
import argparse
import datetime
import os
import random
import sys
import threading

sys.dont_write_bytecode = True  # nothing left in test/__pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # test/: sptest, pgcluster
sys.path.insert(0, HERE)
from citus import CITUS, SHARD, run_fleet, setup  # noqa: E402
from pgcluster import SqlError  # noqa: E402
from sptest import check  # noqa: E402

SEED = int(os.environ.get("SEGPIPE_SEED", "20261204"))
T0 = 1772323200  # 2026-03-01 00:00 UTC
KEY = "date_bin('1 hour', ts, timestamptz '2000-01-01 00:00+00')"
SPEC = '{"type": "MovingAverage", "window_size": 3}'
SENSORS = 40  # every shard holds some
# rows through the coordinator keep every bit only at extra_float_digits >= 1 (citus.py)
EXACT = "SET extra_float_digits = 1;\n"


def distribute_maintained(co, workers, readings="mreadings", results="mres", key=KEY, spec=SPEC, options=""):
    """Maintained results for the distributed table readings, shard by shard; returns the
    set-up (its tables and the catalog row's values) for attach()."""
    q = key.replace("'", "''")
    co.psql(f"CREATE TABLE {readings}_shape (LIKE {readings});\n"
            f"SELECT segpipe_maintain('{readings}_shape', 'sensor', 'ts', 'v', '{q}', '{spec}', '{results}'{options});")
    row = co.psql("SELECT format('%L, %L::regtype, %L::pipeline, %L, %L::interval, %L, %L::interval, %L, %L, "
                  "%L::interval', key, key_type, spec, late, horizon, beyond_horizon, watermark, heartbeat_unit, "
                  "heartbeat_zone, quiet) FROM segpipe_catalog "
                  f"WHERE results = '{results}'::regclass")
    tables = co.psql("SELECT concat_ws(',', results, state_table, checkpoint_table, heartbeat_table) "
                     f"FROM segpipe_catalog WHERE results = '{results}'::regclass").split(",")
    co.psql(f"SELECT segpipe_unmaintain('{results}');\nDROP VIEW {results}_realtime;\nDROP TABLE {readings}_shape;\n"
            + "".join(f"SELECT create_distributed_table('{t}', 'sensor', colocate_with => '{readings}');\n"
                      for t in tables))
    m = {"readings": readings, "tables": tables, "row": row}
    attach(co, workers, m, rebuild=True)
    return m


def shard_groups(co, m):
    """{shard group (its min value): {table: (shard name, node port)}} from the coordinator."""
    groups = {}
    names = ", ".join(f"'{t}'::regclass" for t in [m["readings"]] + m["tables"])
    out = co.psql("SELECT s.shardminvalue, s.logicalrelid::regclass::text, shard_name(s.logicalrelid, s.shardid), "
                  "p.nodeport FROM pg_dist_shard AS s JOIN pg_dist_placement AS pl USING (shardid) "
                  f"JOIN pg_dist_node AS p USING (groupid) WHERE s.logicalrelid IN ({names})")
    for line in out.splitlines():
        lo, table, shard, port = line.split("|")
        groups.setdefault(lo, {})[table] = (shard, int(port))
    return groups


def attach(co, workers, m, rebuild):
    """Each shard group's catalog row and triggers on the node that holds it, where they
    are missing (all at set-up, the moved ones after a rebalance), and the rows of shards
    that moved away dropped (segpipe_unmaintain: the triggers and the row, not the tables,
    which Citus drops).  rebuild: a first run of the readings there (at set-up; a moved
    shard's state moved with it).  Returns (attached, detached)."""
    groups = shard_groups(co, m)
    by_port = {w.port: w for w in workers}
    here = {w.port: set() for w in workers}
    attached = detached = 0
    for lo, g in sorted(groups.items()):
        ports = {p for _, p in g.values()}
        check(len(ports) == 1 and len(g) == len(m["tables"]) + 1,
              f"shard group {lo}: its tables on one node ({g})")
        port = ports.pop()
        w = by_port[port]
        read = g[m["readings"]][0]
        res, st, ck = (g[t][0] for t in m["tables"][:3])
        hb = f"'{g[m['tables'][3]][0]}'" if len(m["tables"]) > 3 else "NULL"
        here[port].add(res)
        if w.psql(f"SELECT count(*) FROM segpipe_catalog WHERE results::text = '{res}'") != "0":
            continue
        w.psql("SET citus.enable_manual_changes_to_shards = on;\n"
               f"SELECT segpipe_catalog_register('{res}', '{read}', '{st}', '{ck}', {hb}, NULL, NULL, 'sensor', "
               f"'ts', 'v', {m['row']}, NULL, NULL);\n"
               f"SELECT segpipe_maintain_triggers('{res}', '{read}');\n"
               + (f"SELECT segpipe_rebuild_sensors('{res}', NULL);" if rebuild else ""))
        attached += 1
    for w in workers:
        for res in w.psql(f"SELECT results::text FROM segpipe_catalog WHERE results::text ~ '^{m['tables'][0]}_[0-9]+$'").splitlines():
            if res not in here[w.port]:
                w.psql(f"SELECT segpipe_unmaintain('{res}');")
                detached += 1
    return attached, detached


def rebalance(fleet, co, workers, m):
    """A third worker, citus_rebalance_start(), and the moved shard groups' catalog rows
    and triggers made on their new node (attach)."""
    w3 = fleet.add("worker3", dict(CITUS, **SHARD))
    w3.psql("CREATE EXTENSION citus;")
    co.psql(f"SELECT citus_add_node('127.0.0.1', {w3.port});")
    workers.append(w3)
    # block_writes: the results table has no replica identity for logical replication
    co.psql("SELECT citus_rebalance_start(shard_transfer_mode => 'block_writes');\n"
            "SELECT citus_rebalance_wait();")
    on3 = co.psql(f"SELECT count(*) FROM citus_shards WHERE nodeport = {w3.port} AND table_name = 'mres'::regclass")
    check(int(on3) > 0, f"the rebalance moved no shard of mres to the third worker ({on3})")
    moved = co.psql("SELECT string_agg(DISTINCT r.sensor::text, ',') FROM mreadings AS r JOIN citus_shards AS s "
                    "ON s.shardid = get_shard_id_for_distribution_column('mreadings', r.sensor) "
                    f"WHERE s.nodeport = {w3.port}")
    check(moved != "", "the moved shards hold no readings")
    attached, detached = attach(co, workers, m, rebuild=False)
    # a moved shard whose old readings shard Citus dropped first has lost its catalog row
    # already (segpipe forgets results whose readings are dropped)
    check(attached == int(on3) and detached <= int(on3),
          f"after the rebalance: {attached} shard groups attached on their new node, {detached} detached, "
          f"{on3} moved")
    check(attach(co, workers, m, rebuild=False) == (0, 0), "a second attach after the rebalance had work to do")
    co.psql("CALL citus_cleanup_orphaned_resources();")
    left = co.psql("SELECT count(*) FROM pg_dist_cleanup")
    check(left == "0", f"Citus's clean-up of the moved shards' old tables did not finish ({left} left)")
    print(f"rebalance onto a third worker: {on3} shard groups moved with their results, states and checkpoints; "
          f"catalog rows and triggers made there for them ({attached}) and dropped where they were ({detached}; "
          f"{int(on3) - detached} gone with their readings' old shard); the old shards cleaned up; "
          f"sensors moved: {moved}")
    return moved


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


def rounds(fleet, args, rng):
    co, workers, single = setup(fleet)
    table = "CREATE TABLE mreadings (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);\n"
    single.psql(table)
    co.psql(table + "SET citus.shard_count = 8;\nSELECT create_distributed_table('mreadings', 'sensor');")
    st = Statements(rng)
    first = rows_sql(st.fresh())
    for c in (co, single):
        c.psql(EXACT + f"INSERT INTO mreadings VALUES {first};")
    m = distribute_maintained(co, workers)
    groups = len(shard_groups(co, m))
    ok, n = agree(co, single, "after set-up")
    print(f"maintained results on {groups} shard groups (catalog rows and triggers on the workers' shards): "
          f"{n} results after set-up, equal: {ok}")
    kinds = {}
    bad = 0
    for rnd in range(args.rounds):
        if rnd == args.rounds // 2:
            kind = "rebalance"
            moved = rebalance(fleet, co, workers, m)
            moved_then = co.psql(f"SELECT count(*), sum(v) FROM mreadings WHERE sensor IN ({moved})")
        elif rnd % 6 == 5:
            # two clients at once: INSERTs commute, so the copy takes them in any order
            kind = "two clients at once"
            sqls = [f"INSERT INTO mreadings VALUES {rows_sql(st.fresh(late=k == 1))}" for k in (0, 1)]
            errors = []

            def send(q):
                try:
                    co.psql(EXACT + q)
                except SqlError as e:
                    errors.append(str(e))
            threads = [threading.Thread(target=send, args=(q,)) for q in sqls]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            check(not errors, f"round {rnd}: two clients at once: {errors}")
            single.psql(";\n".join(sqls))
        else:
            kind, sql = st.next(rnd)
            co.psql(EXACT + sql)
            single.psql(sql)
        ok, n = agree(co, single, f"round {rnd} ({kind})")
        kinds[kind] = kinds.get(kind, 0) + 1
        bad += not ok
        if not ok:
            print(f"    round {rnd} ({kind}) differs", file=sys.stderr)
    print(f"{args.rounds} rounds through the coordinator ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}): "
          f"results equal to segment_agg over the readings after {args.rounds - bad} of them; {n} results at the end")
    # the rounds after the rebalance changed the moved sensors' readings
    check(co.psql(f"SELECT count(*), sum(v) FROM mreadings WHERE sensor IN ({moved})") != moved_then,
          "no statement after the rebalance changed the readings of the moved sensors")
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
    silent(co, workers, single)


HRES = ("SELECT sensor, (extract(epoch FROM ts) * 1000000)::bigint, key - date '2000-01-01', port, "
        "encode(float8send(value), 'hex') FROM hres ORDER BY 1, 2, 4, 5")


def silent(co, workers, single):
    """A watermark and daily heartbeats: segpipe_close_silent on every shard of the cluster
    closes what it closes on one server with the same set-up."""
    key = "(ts AT TIME ZONE 'UTC')::date"
    options = ", watermark => '1 hour', heartbeat_unit => 'day', heartbeat_zone => 'UTC'"
    table = "CREATE TABLE hreadings (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);\n"
    # six sensors over a day and a half, three of them silent after the first morning
    rows = rows_sql([(s, T0 + i * 1800, float(s * 100 + i)) for s in range(1, 7)
                     for i in range(72 if s <= 3 else 16)])
    single.psql(table + f"INSERT INTO hreadings VALUES {rows};\n"
                f"SELECT segpipe_maintain('hreadings', 'sensor', 'ts', 'v', $k${key}$k$, '{SPEC}', 'hres'{options});")
    co.psql(table + "SELECT create_distributed_table('hreadings', 'sensor', colocate_with => 'mreadings');\n"
            + EXACT + f"INSERT INTO hreadings VALUES {rows};")
    m = distribute_maintained(co, workers, "hreadings", "hres", key, SPEC, options)
    check(len(m["tables"]) == 4, f"the set-up with a watermark has a heartbeat table ({m['tables']})")
    check(co.psql(HRES) == single.psql(HRES), "with a watermark: the results differ from one server's after set-up")
    closed = []
    for at in (T0 + 2 * 86400, T0 + 2 * 86400, T0 + 3 * 86400):
        one = single.psql(f"SELECT segpipe_close_silent('hres', to_timestamp({at}))")
        many = sum(int(w.psql(f"SELECT coalesce(sum(segpipe_close_silent(results, to_timestamp({at}))), 0) "
                              "FROM segpipe_catalog WHERE results::text ~ '^hres_[0-9]+$'")) for w in workers)
        check(str(many) == one, f"segpipe_close_silent at {at}: {many} on the shards, {one} on one server")
        check(co.psql(HRES) == single.psql(HRES), f"segpipe_close_silent at {at}: the results differ from one server's")
        closed.append(one)
    later = rows_sql([(s, T0 + 3 * 86400 + 600 * i, float(i)) for s in range(1, 7) for i in range(3)])
    co.psql(EXACT + f"INSERT INTO hreadings VALUES {later};")
    single.psql(f"INSERT INTO hreadings VALUES {later};")
    same = co.psql(HRES) == single.psql(HRES)
    check(same, "after the heartbeats, new readings: the results differ from one server's")
    check(closed[0] != "0" and closed[1] == "0", f"heartbeats applied at the same instant twice: {closed}")
    print(f"watermark and daily heartbeats on the shards: segpipe_close_silent on every shard applied "
          f"{', '.join(closed)} (at 2 days, again, at 3 days), as one server did; results equal to one server's: {same}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=60)
    args = ap.parse_args()
    rng = random.Random(SEED)
    return run_fleet("Citus maintained results", "citus-maintain", lambda fleet: rounds(fleet, args, rng))


if __name__ == "__main__":
    sys.exit(main())
