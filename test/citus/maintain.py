#!/usr/bin/env python3
"""Maintained results on a Citus distributed table (docs/scale-out.md).

segpipe_maintain on the coordinator, on readings distributed by the sensor: it makes the
results, state and checkpoint (and heartbeat) tables distributed and co-located with the
readings, the triggers on the distributed readings (Citus copies them onto every shard),
and on each node a catalog row per shard group it holds (shard_of: the coordinator's row),
then runs each group's readings there.  A statement through the coordinator then changes
the shards in Citus's transaction, and each shard's triggers maintain that shard's results
in it.

Its own clusters (test/citus/citus.py's: a coordinator, two workers, a single server
without Citus that keeps a local copy of the readings).  Random statements through the
coordinator (seeded): INSERTs over several sensors (multi-shard), late INSERTs, COPY,
UPDATE of v, DELETE of a range, now and then two in one transaction or one rolled back,
TRUNCATE before and after the rebalance; the same on the single server.  After every statement: the readings are
the same bit for bit, and the cluster's results (read through the coordinator) are, as a
multiset of (sensor, ts, key, port, float8send(value)), the rows of segment_agg over the
local copy (the rule of docs/reference.md); the state table has one row per sensor with
its number of readings.  A third worker is added and citus_rebalance_start() run in the
middle: the first change of a moved sensor (two clients at once) makes its group's catalog
row on the new node from the set-up Citus copied there (segpipe_citus_setup, a reference
table) and is maintained; segpipe_attach_shards() on the coordinator attaches the other
moved groups; Citus's clean-up of the old shards takes their old rows.  Then a shard split
with the set-up's row taken away from segpipe_citus_setup: a change of the split range is
refused until segpipe_attach_shards() writes it again and attaches the two new groups.
Then segpipe_rebuild from the
coordinator changes nothing, segpipe_maintained on the coordinator lists the set-up with
every sensor, a segpipe_unmaintain rolled back keeps every node's rows, and a second set-up
with a watermark and daily heartbeats: segpipe_close_silent from the coordinator applies
what it applies on one server, and the
results stay equal to one server's.  At the end segpipe_unmaintain(drop_tables => true)
leaves no table, catalog row or trigger on any node.

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
    """segpipe_maintain on the coordinator, on distributed readings; checks that every node
    has one catalog row per shard group it holds, of the coordinator's row.  Returns the
    set-up: its readings and results, and the coordinator's row id."""
    q = key.replace("'", "''")
    co.psql(f"SELECT segpipe_maintain('{readings}', 'sensor', 'ts', 'v', '{q}', '{spec}', '{results}'{options});")
    rid = co.psql(f"SELECT id FROM segpipe_catalog WHERE results = '{results}'::regclass AND shard_of IS NULL")
    m = {"readings": readings, "results": results, "id": rid}
    colocated = co.psql("SELECT count(DISTINCT colocationid) FROM pg_dist_partition WHERE logicalrelid IN "
                        f"('{readings}'::regclass, '{results}'::regclass, '{results}_state'::regclass, "
                        f"'{results}_checkpoint'::regclass)")
    check(colocated == "1", f"{results}: its tables are not co-located with {readings} ({colocated} groups)")
    check(rows_where_held(co, workers, m), f"{results}: after set-up, the nodes' catalog rows are not one per shard group")
    return m


def held(co, workers, m):
    """{node port: the number of shard groups of m's readings it holds}, from the coordinator."""
    out = co.psql("SELECT nodeport, count(*) FROM citus_shards "
                  f"WHERE table_name = '{m['readings']}'::regclass GROUP BY 1")
    have = {w.port: 0 for w in workers}
    for line in out.splitlines():
        port, n = line.split("|")
        have[int(port)] = int(n)
    return have


def rows_where_held(co, workers, m):
    """Whether every node's catalog has exactly one row of m per shard group it holds, each
    naming a readings shard of that node."""
    have = held(co, workers, m)
    ok = True
    for w in workers:
        rows = w.psql("SET citus.override_table_visibility = off;\n"
                      "SELECT count(*), count(DISTINCT c.readings), "
                      f"count(*) FILTER (WHERE c.readings::text ~ '^{m['readings']}_[0-9]+$') "
                      f"FROM segpipe_catalog AS c WHERE c.shard_of = {m['id']}")
        n, distinct, named = (int(x) for x in rows.split("|"))
        ok = check(n == distinct == named == have[w.port],
                   f"node {w.port}: {n} catalog rows of {m['results']} ({distinct} readings shards, "
                   f"{named} named so), holding {have[w.port]} shard groups") and ok
    return ok


def at_once(co, sqls):
    """Each statement through the coordinator from a client of its own, all at once; the
    errors."""
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
    return errors


def rows_on(w, m):
    """The catalog rows of m's shard groups on node w."""
    return int(w.psql("SET citus.override_table_visibility = off;\n"
                      f"SELECT count(*) FROM segpipe_catalog WHERE shard_of = {m['id']}"))


def rebalance(fleet, co, workers, single, m, st):
    """A third worker and citus_rebalance_start(): the first change of a moved sensor, two
    clients at once, makes its group's row on the new node from the set-up Citus copied
    there (one row, not two), and is maintained; segpipe_attach_shards() makes the other
    moved groups' rows; the old node's rows go with the old shards."""
    w3 = fleet.add("worker3", dict(CITUS, **SHARD))
    w3.psql("CREATE EXTENSION citus;")
    co.psql(f"SELECT citus_add_node('127.0.0.1', {w3.port});")
    workers.append(w3)
    # block_writes: the results table has no replica identity for logical replication
    co.psql("SELECT citus_rebalance_start(shard_transfer_mode => 'block_writes');\n"
            "SELECT citus_rebalance_wait();")
    on3 = co.psql(f"SELECT count(*) FROM citus_shards WHERE nodeport = {w3.port} AND table_name = 'mres'::regclass")
    check(int(on3) > 1, f"the rebalance moved fewer than two shard groups of mres to the third worker ({on3})")
    moved = co.psql("SELECT string_agg(DISTINCT r.sensor::text, ',') FROM mreadings AS r JOIN citus_shards AS s "
                    "ON s.shardid = get_shard_id_for_distribution_column('mreadings', r.sensor) "
                    f"WHERE s.nodeport = {w3.port}")
    check(moved != "", "the moved shards hold no readings")
    check(rows_on(w3, m) == 0, "the third worker has catalog rows of mres before any change reached it")
    # the first changes of a moved sensor: two clients at once, both maintained
    s = int(moved.split(",")[0])
    sqls = [f"INSERT INTO mreadings VALUES ({s}, to_timestamp({st.clock[s] + 60 * k}), {1.5 * k})" for k in (1, 2)]
    st.clock[s] += 120
    errors = at_once(co, sqls)
    check(not errors, f"the first INSERTs into a moved shard, two clients at once: {errors}")
    single.psql(";\n".join(sqls))
    adopted = rows_on(w3, m)
    check(adopted == 1, f"the first changes of one moved group made {adopted} catalog rows on its new node, not 1")
    agree(co, single, "after the first INSERTs into a moved shard")
    attached = co.psql("SELECT segpipe_attach_shards('mres');")
    check(int(attached) == int(on3) - 1, f"segpipe_attach_shards after the rebalance attached {attached} shard groups; "
          f"{on3} moved, one of them attached by its first change")
    again = co.psql("SELECT segpipe_attach_shards('mres');")
    check(again == "0", f"a second segpipe_attach_shards had work to do ({again})")
    co.psql("CALL citus_cleanup_orphaned_resources();")
    left = co.psql("SELECT count(*) FROM pg_dist_cleanup")
    check(left == "0", f"Citus's clean-up of the moved shards' old tables did not finish ({left} left)")
    check(rows_where_held(co, workers, m), "after the rebalance, the nodes' catalog rows are not one per shard group")
    print(f"rebalance onto a third worker: {on3} shard groups moved with their results, states and checkpoints; "
          f"the first changes of a moved sensor, two clients at once, maintained and made {adopted} row there; "
          f"segpipe_attach_shards() attached the other {attached}; the old shards cleaned up with their rows; "
          f"sensors moved: {moved}")
    return moved


def split(co, workers, single, m, st):
    """citus_split_shard_by_split_points on one shard of the readings (its whole co-located
    group splits): without the set-up's row in segpipe_citus_setup (taken away for this), a
    change of the split range is refused; segpipe_attach_shards() writes that row again and
    makes the two new groups' rows; the old group's row goes with its shards."""
    shard, lo, hi, node = co.psql("SELECT s.shardid, s.shardminvalue, s.shardmaxvalue, n.nodeid FROM pg_dist_shard AS s "
                                  "JOIN pg_dist_placement USING (shardid) JOIN pg_dist_node AS n USING (groupid) "
                                  "WHERE s.logicalrelid = 'mreadings'::regclass "
                                  "ORDER BY s.shardmaxvalue::bigint - s.shardminvalue::bigint DESC, 1 LIMIT 1").split("|")
    co.psql(f"SELECT citus_split_shard_by_split_points({shard}, ARRAY['{(int(lo) + int(hi)) // 2}'], "
            f"ARRAY[{node}, {node}], 'block_writes');")
    inside = [s for s in sorted(st.clock) if co.psql(
        f"SELECT s.shardminvalue::bigint >= {lo} AND s.shardmaxvalue::bigint <= {hi} FROM pg_dist_shard AS s "
        f"WHERE s.shardid = get_shard_id_for_distribution_column('mreadings', {s})") == "t"]
    check(inside != [], f"no sensor of the split range {lo}..{hi}")
    copies = [w.psql(f"SELECT count(*) FROM segpipe_citus_setup WHERE id = {m['id']}") for w in workers + [co]]
    check(all(x == "1" for x in copies), f"the set-up's row in segpipe_citus_setup, on each node: {copies}")
    co.psql(f"DELETE FROM segpipe_citus_setup WHERE id = {m['id']};")
    before = co.psql(READINGS)
    _, err = co.psql(EXACT + f"INSERT INTO mreadings VALUES ({inside[0]}, to_timestamp({st.clock[inside[0]] + 60}), 2.5);",
                     check=False)
    check("is not attached on this node" in err, "an INSERT into a split shard, the set-up's row in "
          f"segpipe_citus_setup taken away: expected a refusal, got {err!r}")
    check(co.psql(READINGS) == before, "the refused INSERT changed the readings")
    attached = co.psql("SELECT segpipe_attach_shards('mres');")
    check(attached == "2", f"segpipe_attach_shards after the split attached {attached} shard groups, not 2")
    copies = [w.psql(f"SELECT count(*) FROM segpipe_citus_setup WHERE id = {m['id']}") for w in workers + [co]]
    check(all(x == "1" for x in copies), f"segpipe_attach_shards did not write the set-up's row again: {copies}")
    co.psql("CALL citus_cleanup_orphaned_resources();")
    check(rows_where_held(co, workers, m), "after the split, the nodes' catalog rows are not one per shard group")
    sql = f"INSERT INTO mreadings VALUES {rows_sql(st.fresh())}"
    co.psql(EXACT + sql)
    single.psql(sql)
    ok, _ = agree(co, single, "after the split and an INSERT")
    print(f"shard split ({lo}..{hi} at its middle, sensors {','.join(map(str, inside))}): without the set-up's row "
          f"in segpipe_citus_setup a change refused; segpipe_attach_shards() wrote it again and attached {attached} "
          f"new groups; the old group's row gone with its shards; an INSERT after it maintained: {ok}")


def rows_sql(rows):
    return ",".join(f"({s}, to_timestamp({t}), {v!r})" for s, t, v in rows)


class Statements:
    def __init__(self, rng):
        self.rng = rng
        self.clock = {s: T0 + rng.randrange(3600) for s in range(1, SENSORS + 1)}
        self.truncate_at = set()

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
        if rnd in self.truncate_at:
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


def both(c, *queries):
    """The outputs of queries, run in one session of c (a session's first distributed query
    opens Citus's connections to the workers, which costs more than the queries here)."""
    parts = c.psql("".join(f"{q};\nSELECT '-- segpipe: next --';\n" for q in queries)).split("-- segpipe: next --")
    return [x.strip() for x in parts[:-1]]


def agree(co, single, what):
    c_readings, got, states = both(co, READINGS, GOT, STATES)
    s_readings, want, counts = both(single, READINGS, EXPECTED, COUNTS)
    ok = check(c_readings == s_readings, f"{what}: the readings differ from the local copy")
    ok = check(got == want, f"{what}: the results differ from segment_agg over the readings "
               f"({len(got.splitlines())} rows, expected {len(want.splitlines())})") and ok
    ok = check(states == counts, f"{what}: the states' row counts differ from the readings'") and ok
    return ok, len(want.splitlines())


def rounds(fleet, args, rng):
    co, workers, single = setup(fleet)
    table = "CREATE TABLE mreadings (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);\n"
    single.psql(table)
    co.psql(table + "SET citus.shard_count = 8;\nSELECT create_distributed_table('mreadings', 'sensor');")
    st = Statements(rng)
    # one before the rebalance, one after (a moved shard carries a copy of the truncate trigger)
    # (rounds r with r % 6 == 5 are the two clients')
    st.truncate_at = {r + (r % 6 == 5) for r in (args.rounds // 4, args.rounds // 2 + 5)}
    first = rows_sql(st.fresh())
    for c in (co, single):
        c.psql(EXACT + f"INSERT INTO mreadings VALUES {first};")
    m = distribute_maintained(co, workers)
    groups = sum(held(co, workers, m).values())
    ok, n = agree(co, single, "after set-up")
    print(f"segpipe_maintain on the distributed readings: {groups} shard groups, each with its catalog row on its "
          f"node; {n} results after set-up, equal: {ok}")
    kinds = {}
    bad = 0
    for rnd in range(args.rounds):
        if rnd == args.rounds // 2:
            kind = "rebalance"
            moved = rebalance(fleet, co, workers, single, m, st)
            moved_then = co.psql(f"SELECT count(*), sum(v) FROM mreadings WHERE sensor IN ({moved})")
        elif rnd % 6 == 5:
            # two clients at once: INSERTs commute, so the copy takes them in any order
            kind = "two clients at once"
            sqls = [f"INSERT INTO mreadings VALUES {rows_sql(st.fresh(late=k == 1))}" for k in (0, 1)]
            errors = at_once(co, sqls)
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
    split(co, workers, single, m, st)
    before = co.psql(GOT)
    rebuilt = co.psql("SELECT segpipe_rebuild('mres');")
    check(co.psql(GOT) == before, "segpipe_rebuild from the coordinator changed the results")
    sensors = single.psql("SELECT count(DISTINCT sensor) FROM mreadings")
    check(rebuilt == sensors, f"segpipe_rebuild ran {rebuilt} sensors, the readings have {sensors}")
    listed = co.psql("SELECT count(*), sum(sensors), bool_and(insert_trigger IS NOT NULL) FROM segpipe_maintained "
                     "WHERE results = 'mres'::regclass")
    check(listed == f"1|{sensors}|t", f"segpipe_maintained on the coordinator: {listed}, expected one row of "
          f"{sensors} sensors with its insert trigger")
    # a segpipe_unmaintain rolled back: every node keeps its rows, and changes are maintained
    co.psql("BEGIN;\nSELECT segpipe_unmaintain('mres');\nROLLBACK;")
    check(rows_where_held(co, workers, m), "after a segpipe_unmaintain rolled back, the nodes' catalog rows are not "
          "one per shard group")
    sql = f"INSERT INTO mreadings VALUES {rows_sql(st.fresh())}"
    co.psql(EXACT + sql)
    single.psql(sql)
    agree(co, single, "after a segpipe_unmaintain rolled back and an INSERT")
    print(f"from the coordinator: segpipe_rebuild ran {rebuilt} sensors on their nodes and changed nothing; "
          f"segpipe_maintained lists the set-up with {sensors} sensors; a segpipe_unmaintain rolled back left "
          f"every node's rows")
    other_owner(co, workers, single)
    silent(co, workers, single)


def other_owner(co, workers, single):
    """A set-up by a role that is not a superuser, changed by a role with only the rights
    docs/reference.md names: the set-up's row is written into segpipe_citus_setup (as that
    table's owner) though the caller may not write it; a shard group moved to another node
    (citus_move_shard_placement) is attached by the writer's first change there (as the
    readings' owner) and maintained; the unmaintain takes the row away again."""
    co.psql("CREATE ROLE sp_owner LOGIN;\nCREATE ROLE sp_writer LOGIN;")
    for w in [co] + workers:
        w.psql("SET citus.enable_ddl_propagation = off;\nGRANT CREATE ON SCHEMA public TO sp_owner;")
    table = "CREATE TABLE oreadings (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);\n"
    rows = rows_sql([(s, T0 + 900 * i, float(s * 10 + i)) for s in range(1, 9) for i in range(12)])
    single.psql(table + f"INSERT INTO oreadings VALUES {rows};")
    co.psql("SET ROLE sp_owner;\nSET citus.shard_count = 4;\n" + table
            + "SELECT create_distributed_table('oreadings', 'sensor', colocate_with => 'none');\n"
            + EXACT + f"INSERT INTO oreadings VALUES {rows};\n"
            f"SELECT segpipe_maintain('oreadings', 'sensor', 'ts', 'v', $k${KEY}$k$, '{SPEC}', 'ores');\n"
            "GRANT SELECT, INSERT ON oreadings TO sp_writer;\n"
            "GRANT SELECT, INSERT, UPDATE, DELETE ON ores, ores_state, ores_checkpoint TO sp_writer;")
    rid = co.psql("SELECT id FROM segpipe_catalog WHERE results = 'ores'::regclass AND shard_of IS NULL")
    check(co.psql(f"SELECT count(*) FROM segpipe_citus_setup WHERE id = {rid} AND readings = 'public.oreadings'") == "1",
          "a set-up by a role that is not a superuser: no row in segpipe_citus_setup")
    _, err = co.psql(f"SET ROLE sp_owner;\nDELETE FROM segpipe_citus_setup WHERE id = {rid};", check=False)
    check("permission denied" in err, f"the set-up's owner deleting from segpipe_citus_setup: expected a refusal, got {err!r}")
    shardid, src = co.psql("SELECT shardid, nodeport FROM citus_shards WHERE table_name = 'oreadings'::regclass "
                           "ORDER BY shardid LIMIT 1").split("|")
    dst = next(w for w in workers if w.port != int(src))
    co.psql(f"SELECT citus_move_shard_placement({shardid}, '127.0.0.1', {src}, '127.0.0.1', {dst.port}, 'block_writes');\n"
            "CALL citus_cleanup_orphaned_resources();")
    s = next(x for x in range(1, 9) if co.psql(f"SELECT get_shard_id_for_distribution_column('oreadings', {x})") == shardid)
    rows_before = int(dst.psql("SET citus.override_table_visibility = off;\n"
                               f"SELECT count(*) FROM segpipe_catalog WHERE shard_of = {rid}"))
    sql = f"INSERT INTO oreadings VALUES ({s}, to_timestamp({T0 + 900 * 12}), 1.25), ({s}, to_timestamp({T0 + 86400}), 2.5)"
    co.psql("SET ROLE sp_writer;\n" + EXACT + sql)
    single.psql(sql)
    rows_after = int(dst.psql("SET citus.override_table_visibility = off;\n"
                              f"SELECT count(*) FROM segpipe_catalog AS c JOIN pg_class AS r ON r.oid = c.readings "
                              f"WHERE c.shard_of = {rid} AND pg_get_userbyid(r.relowner) = 'sp_owner'"))
    check(rows_after == rows_before + 1, f"the writer's first change of the moved group: {rows_before} rows of the "
          f"set-up on its new node before, {rows_after} of sp_owner's after (expected one more)")
    # a trigger of the writer's own, on a temporary table of a worker, with the set-up's id and
    # 'citus': its table is no shard of the set-up's readings, so nothing is attached or run
    _, err = dst.psql("SET ROLE sp_writer;\nCREATE TEMP TABLE fake (sensor int, ts timestamptz, v float8);\n"
                      "CREATE TRIGGER fake AFTER INSERT ON fake REFERENCING NEW TABLE AS segpipe_new "
                      f"FOR EACH STATEMENT EXECUTE FUNCTION segpipe_insert_trigger('{rid}', 'citus');\n"
                      f"INSERT INTO fake VALUES ({s}, to_timestamp({T0}), 1);", check=False)
    rows_fake = int(dst.psql("SET citus.override_table_visibility = off;\n"
                             f"SELECT count(*) FROM segpipe_catalog WHERE shard_of = {rid}"))
    check("is not attached on this node" in err and rows_fake == rows_after,
          f"a trigger of another role's own with the set-up's id, on a worker: expected a refusal and no row "
          f"made, got {err!r} and {rows_fake} rows ({rows_after} before)")
    got = co.psql(GOT.replace("mres", "ores"))
    want = single.psql(EXPECTED.replace("mreadings", "oreadings"))
    check(got == want and want != "", f"a set-up by sp_owner, changed by sp_writer after a move: the results differ "
          f"from segment_agg over the readings ({len(got.splitlines())} rows, expected {len(want.splitlines())})")
    co.psql("SET ROLE sp_owner;\nSELECT segpipe_unmaintain('ores', drop_tables => true);\nDROP TABLE oreadings;")
    left = co.psql(f"SELECT count(*) FROM segpipe_citus_setup WHERE id = {rid}")
    check(left == "0", f"segpipe_unmaintain by sp_owner left its row in segpipe_citus_setup ({left})")
    print(f"a set-up by a role that is not a superuser: its row written into segpipe_citus_setup, which it may not "
          f"write itself; a group moved to another node attached by another role's first change there, as the "
          f"readings' owner ({rows_before} rows there before, {rows_after} after), results equal: {got == want}; "
          f"the unmaintain took the row away")


HRES = ("SELECT sensor, (extract(epoch FROM ts) * 1000000)::bigint, key - date '2000-01-01', port, "
        "encode(float8send(value), 'hex') FROM hres ORDER BY 1, 2, 4, 5")


def silent(co, workers, single):
    """A watermark and daily heartbeats: segpipe_close_silent from the coordinator closes on
    every shard group what it closes on one server with the same set-up; then both set-ups
    are unmaintained with their tables, and nothing of them is left on any node."""
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
    hb = co.psql("SELECT count(*) FROM pg_dist_partition WHERE logicalrelid = 'hres_heartbeat'::regclass "
                 "AND colocationid = (SELECT colocationid FROM pg_dist_partition WHERE logicalrelid = 'hreadings'::regclass)")
    check(hb == "1", "the set-up with a watermark has no heartbeat table co-located with the readings")
    check(co.psql(HRES) == single.psql(HRES), "with a watermark: the results differ from one server's after set-up")
    closed = []
    for at in (T0 + 2 * 86400, T0 + 2 * 86400, T0 + 3 * 86400):
        one = single.psql(f"SELECT segpipe_close_silent('hres', to_timestamp({at}))")
        many = co.psql(f"SELECT segpipe_close_silent('hres', to_timestamp({at}))")
        check(many == one, f"segpipe_close_silent at {at}: {many} on the cluster, {one} on one server")
        check(co.psql(HRES) == single.psql(HRES), f"segpipe_close_silent at {at}: the results differ from one server's")
        closed.append(one)
    later = rows_sql([(s, T0 + 3 * 86400 + 600 * i, float(i)) for s in range(1, 7) for i in range(3)])
    co.psql(EXACT + f"INSERT INTO hreadings VALUES {later};")
    single.psql(f"INSERT INTO hreadings VALUES {later};")
    same = co.psql(HRES) == single.psql(HRES)
    check(same, "after the heartbeats, new readings: the results differ from one server's")
    check(closed[0] != "0" and closed[1] == "0", f"heartbeats applied at the same instant twice: {closed}")
    print(f"watermark and daily heartbeats on the shards: segpipe_close_silent from the coordinator applied "
          f"{', '.join(closed)} (at 2 days, again, at 3 days), as one server did; results equal to one server's: {same}")
    # nothing left of either set-up, on any node
    for results in ("hres", "mres"):
        co.psql(f"SELECT segpipe_unmaintain('{results}', drop_tables => true);")
    tables = co.psql("SELECT count(*) FROM pg_class WHERE relname ~ '^[hm]res'")
    left = [w.psql("SET citus.override_table_visibility = off;\n"
                   "SELECT (SELECT count(*) FROM segpipe_catalog) || '/' || "
                   "(SELECT count(*) FROM segpipe_citus_setup) || '/' || "
                   "(SELECT count(*) FROM pg_trigger WHERE tgfoid IN ('segpipe_insert_trigger'::regproc, "
                   "'segpipe_change_trigger'::regproc)) || '/' || "
                   "(SELECT count(*) FROM pg_class WHERE relname ~ '^[hm]res')") for w in workers + [co]]
    named = [w.psql("SET citus.override_table_visibility = off;\n"
                    "SELECT string_agg(tgrelid::regclass || '.' || tgname, ', ') FROM pg_trigger "
                    "WHERE tgfoid IN ('segpipe_insert_trigger'::regproc, 'segpipe_change_trigger'::regproc)")
             for w in workers + [co]]
    check(tables == "0" and all(x == "0/0/0/0" for x in left),
          f"segpipe_unmaintain(drop_tables => true) left tables, catalog rows, set-up rows or triggers: coordinator "
          f"{tables} tables; catalog rows/set-up rows/triggers/tables on each node {left}; triggers {named}")
    print(f"segpipe_unmaintain(drop_tables => true) of both: nothing left on any node ({left})")
    # the extension dropped through the coordinator: its reference table goes with it, everywhere
    co.psql("DROP EXTENSION segpipe;")
    gone = [w.psql("SET citus.override_table_visibility = off;\n"
                   "SELECT (SELECT count(*) FROM pg_extension WHERE extname = 'segpipe') || '/' || "
                   "(SELECT count(*) FROM pg_dist_partition WHERE logicalrelid::text LIKE '%segpipe%') || '/' || "
                   "coalesce((SELECT string_agg(relname, ',') FROM pg_class WHERE relname LIKE 'segpipe%'), '')")
            for w in workers + [co]]
    check(all(x == "0/0/" for x in gone), f"DROP EXTENSION segpipe on the coordinator left, on each node, "
          f"the extension/Citus's metadata of its table/its tables or their shards: {gone}")
    print(f"DROP EXTENSION segpipe on the coordinator: gone from every node with its reference table ({gone})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=60)
    args = ap.parse_args()
    rng = random.Random(SEED)
    return run_fleet("Citus maintained results", "citus-maintain", lambda fleet: rounds(fleet, args, rng))


if __name__ == "__main__":
    sys.exit(main())
