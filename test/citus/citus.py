#!/usr/bin/env python3
"""segpipe on a Citus cluster (docs/scale-out.md): a coordinator and two workers, three
clusters of their own on 127.0.0.1 (test/pgcluster.py, shared_preload_libraries = 'citus'),
and a single server without Citus for reference, each with other DateStyle, TimeZone,
IntervalStyle and extra_float_digits.  Citus and segpipe must be installed in the server
of PG_CONFIG (test/citus/citus.sh installs Citus).

readings is distributed by sensor_id (8 shards), zones (a per-sensor lookup) is a
reference table.  Checked, each against the same query on the single server, row for row
and bit for bit (float8send, pipeline_send):
  - segment_agg(...) OVER (PARTITION BY sensor_id ORDER BY ts): EXPLAIN (with every task
    shown) has the WindowAgg inside every worker's task and nothing above Citus's scan
    but the merge;
  - pipeline_agg(...) GROUP BY sensor_id, for a spec of counted windows and one with
    windows of time: the aggregate inside every task, none on the coordinator;
  - the same joined with the reference table (a per-sensor floor): pushed down too;
  - a stored pipeline resumes exactly across: pipelines of the first half computed on the
    cluster resume on the single server over the second half, and the single server's
    on the cluster (from a co-located table of states), both equal to each other and,
    emissions of both halves together, to one run over all rows;
  - segpipe_maintain refuses a reference table and a table distributed by another column
    than the partition column, and Citus a key that reads the reference table (nested in
    the shard's statement); nothing is left behind: no catalog row, no results table; on
    readings without rows that key's set-up passes and the first INSERT is refused, nothing
    kept; the same lookup in a PL/pgSQL function is maintained through INSERTs, a late
    INSERT, an UPDATE and a DELETE, equal to segment_agg over a local copy, and its
    segpipe_rebuild is refused (test/citus/maintain.py maintains results on a distributed
    table).

    test/citus/citus.py [--sensors N] [--rows N]    defaults: 9 sensors, 600 rows
"""
import argparse
import os
import random
import re
import socket
import sys

sys.dont_write_bytecode = True  # nothing left in test/__pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # test/: sptest, pgcluster
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "integration"))  # shards.py's readings and specs
from pgcluster import Fleet, SqlError  # noqa: E402
from shards import COORDINATOR, SHARD, SINGLE, SPEC, SPEC_TIME, readings, values_sql  # noqa: E402
from sptest import check, summary  # noqa: E402

SEED = int(os.environ.get("SEGPIPE_SEED", "20261204"))
SHARDS = 8
KEY = "(ts AT TIME ZONE INTERVAL '0')::date"
CITUS = {"shared_preload_libraries": "citus", "listen_addresses": "127.0.0.1",
         "citus.enable_statistics_collection": "off", "max_connections": "60",
         "max_worker_processes": "16"}


def free_base(n):
    """A base port with n free TCP ports after it on 127.0.0.1."""
    rng = random.Random()
    for _ in range(50):
        base = rng.randrange(20000, 60000, 10)
        try:
            for p in range(base, base + n):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", p))
            return base
        except OSError:
            continue
    raise RuntimeError("no free TCP ports on 127.0.0.1")


def per_sensor(spec=SPEC, source="readings", where=""):
    return (f"SELECT sensor_id, pipeline_agg(ts, v, {KEY}, '{spec}' ORDER BY ts) AS p "
            f"FROM {source} {where} GROUP BY sensor_id")


def exact(pipelines):
    """Every sensor's emissions and its pipeline's binary form, in a form no setting changes."""
    return (f"SELECT s.sensor_id, md5(pipeline_send(s.p)), octet_length(pipeline_send(s.p)), "
            f"(SELECT string_agg(format('%s/%s/%s/%s', (extract(epoch FROM e.ts) * 1000000)::bigint, "
            f"e.key, e.port, encode(float8send(e.value), 'hex')), ',' ORDER BY e.ts, e.port) "
            f"FROM emissions(s.p) AS e) FROM ({pipelines}) AS s ORDER BY 1")


def window_form(spec=SPEC):
    return (f"SELECT sensor_id, (extract(epoch FROM ts) * 1000000)::bigint, "
            f"(SELECT string_agg(coalesce(encode(float8send(x), 'hex'), '-'), ',') FROM unnest(r) AS x) "
            f"FROM (SELECT sensor_id, ts, segment_agg(ARRAY[v], {KEY}, "
            f"'{spec}', close_at_end => true) OVER (PARTITION BY sensor_id ORDER BY ts) AS r "
            f"FROM readings) AS w WHERE r IS NOT NULL ORDER BY 1, 2")


def tasks(plan):
    """(the plan's lines above Citus's scan, [each task's lines]) of EXPLAIN with
    citus.explain_all_tasks on."""
    lines = plan.splitlines()
    scan = next((i for i, line in enumerate(lines) if "Custom Scan (Citus" in line), None)
    if scan is None:
        return None, []
    found, current = [], None
    for line in lines[scan:]:
        if re.match(r"\s*->\s+Task$", line):
            current = []
            found.append(current)
        elif current is not None:
            current.append(line)
    return lines[:scan], found


def pushed(co, query, node, what, verbose=False):
    """Checks that query's plan has node (a plan node's name, and with verbose the
    function's name in its Output) inside every one of the shards' tasks and none above
    Citus's scan."""
    plan = co.psql("SET citus.explain_all_tasks = on;\n"
                   f"EXPLAIN ({'VERBOSE, ' if verbose else ''}COSTS OFF) {query}")
    above, found = tasks(plan)
    node_re = re.compile(rf"(^|->\s+){node}\b")
    ok = (above is not None and len(found) == SHARDS
          and all(any(node_re.search(line.strip()) for line in t) for t in found)
          and not any(node_re.search(line.strip()) for line in above)
          and "Distributed Subplan" not in plan)
    if verbose:
        ok = ok and all(any(what in line for line in t) for t in found)
    check(ok, f"{what}: expected {node} in each of the {SHARDS} tasks and not on the coordinator\n{plan}")
    print(f"{what}: EXPLAIN has it in {sum(any(node_re.search(x.strip()) for x in t) for t in found)} of "
          f"{len(found)} tasks, on the coordinator: {any(node_re.search(x.strip()) for x in above or [])}")
    return ok


def setup(fleet):
    fleet.base_port = free_base(5)  # a fifth for a worker added later (maintain.py)
    co = fleet.add("coordinator", dict(CITUS, **COORDINATOR))
    workers = [fleet.add(f"worker{k}", dict(CITUS, **SHARD)) for k in (1, 2)]
    single = fleet.add("single", SINGLE)
    for w in workers:
        w.psql("CREATE EXTENSION citus;")
    co.psql(f"CREATE EXTENSION citus;\nSELECT citus_set_coordinator_host('127.0.0.1', {co.port});\n"
            + "".join(f"SELECT citus_add_node('127.0.0.1', {w.port});\n" for w in workers)
            # created through the coordinator: Citus creates it on every worker
            + "CREATE EXTENSION segpipe;")
    version = co.psql("SELECT extversion FROM pg_extension WHERE extname = 'citus'")
    on_workers = [w.psql("SELECT extversion FROM pg_extension WHERE extname = 'segpipe'") for w in workers]
    check(all(v != "" for v in on_workers), f"segpipe is created on every worker ({on_workers})")
    table = "CREATE TABLE readings (sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8);\n"
    zones = "CREATE TABLE zones (sensor_id int PRIMARY KEY, zone text NOT NULL, floor float8 NOT NULL);\n"
    single.psql("CREATE EXTENSION segpipe;\n" + table + zones)
    co.psql(f"SET citus.shard_count = {SHARDS};\n" + table + zones
            + "SELECT create_distributed_table('readings', 'sensor_id');\n"
            + "SELECT create_reference_table('zones');")
    placed = co.psql("SELECT count(DISTINCT nodeport) FROM citus_shards WHERE table_name = 'readings'::regclass")
    check(placed == "2", f"readings' shards are on both workers ({placed} nodes)")
    probe = "SELECT 0.1::float8 + 0.2, timestamptz '2026-03-01 00:00+00'"
    shown = {c.name: c.psql(probe) for c in (co, workers[0], single)}
    check(len(set(shown.values())) == 3, f"the servers' settings print differently: {shown}")
    print(f"Citus {version}: a coordinator and two workers on 127.0.0.1 (ports {co.port}, "
          f"{workers[0].port}, {workers[1].port}), readings in {SHARDS} shards on both; "
          f"segpipe {on_workers[0]} on every node")
    return co, workers, single


def same(co, single, query, label, setting=""):
    got, want = co.psql(setting + query), single.psql(query)
    n = len(want.splitlines())
    check(got == want and n > 0, f"{label}: the cluster's rows differ from the single server's ({n} rows)")
    print(f"{label}: {n} rows equal bit for bit: {got == want}")
    return got == want


def forms(co, single):
    pushed(co, window_form(), "WindowAgg", "segment_agg OVER (PARTITION BY sensor_id ORDER BY ts)")
    same(co, single, window_form(), "segment_agg OVER (PARTITION BY sensor_id ORDER BY ts)")
    for label, spec in (("pipeline_agg GROUP BY sensor_id", SPEC),
                        ("pipeline_agg GROUP BY sensor_id, windows of time", SPEC_TIME)):
        pushed(co, per_sensor(spec), "(GroupAggregate|HashAggregate|Aggregate)", label)
        pushed(co, per_sensor(spec), "(GroupAggregate|HashAggregate|Aggregate)", "pipeline_agg", verbose=True)
        same(co, single, exact(per_sensor(spec)), label)
        # the pipelines cross from the workers in text form too
        same(co, single, exact(per_sensor(spec)), label + " (text from the workers)",
             "SET citus.enable_binary_protocol = off;\n")
    joined = ("(SELECT r.sensor_id, r.ts, r.v FROM readings AS r JOIN zones AS z USING (sensor_id) "
              "WHERE r.v >= z.floor) AS j")
    pushed(co, per_sensor(SPEC, joined), "(GroupAggregate|HashAggregate|Aggregate)",
           "pipeline_agg over readings joined with the reference table zones")
    same(co, single, exact(per_sensor(SPEC, joined)), "pipeline_agg over readings joined with zones (floor)")
    by_zone = (f"SELECT z.zone, r.sensor_id, pipeline_agg(r.ts, r.v, {KEY.replace('ts', 'r.ts')}, '{SPEC}' "
               "ORDER BY r.ts) AS p FROM readings AS r JOIN zones AS z USING (sensor_id) GROUP BY z.zone, r.sensor_id")
    zoned = (f"SELECT zone, sensor_id, md5(pipeline_send(p)) FROM ({by_zone}) AS s ORDER BY 1, 2")
    same(co, single, zoned, "pipeline_agg GROUP BY zone, sensor_id (the reference table's key)")


def resume(co, single):
    """Pipelines of the first half resume on the other side over the second half."""
    split = single.psql("SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM ts)) FROM readings")
    first = f"WHERE ts < to_timestamp({split})"
    table = "CREATE TABLE stored (sensor_id int PRIMARY KEY, p pipeline NOT NULL);\n"
    single.psql(table + f"INSERT INTO stored {per_sensor(where=first)};\n")
    co.psql(table + "SELECT create_distributed_table('stored', 'sensor_id', colocate_with => 'readings');\n"
            f"CREATE TABLE cluster_stored AS {per_sensor(where=first)};")
    # each side's stored pipelines in text, as a client moves them
    from_cluster = co.psql("SELECT string_agg(format('(%s, %L)', sensor_id, p::text), ',') FROM cluster_stored")
    from_single = single.psql("SELECT string_agg(format('(%s, %L)', sensor_id, p::text), ',') FROM stored")
    co.psql(f"INSERT INTO stored VALUES {from_single};")
    single.psql("CREATE TABLE cluster_stored (sensor_id int PRIMARY KEY, p pipeline NOT NULL);\n"
                f"INSERT INTO cluster_stored VALUES {from_cluster};")
    check(co.psql("SELECT md5(string_agg(encode(pipeline_send(p), 'hex'), ',' ORDER BY sensor_id)) FROM stored")
          == single.psql("SELECT md5(string_agg(encode(pipeline_send(p), 'hex'), ',' ORDER BY sensor_id)) "
                         "FROM cluster_stored"),
          "the first half's pipelines computed on the cluster and on the single server differ")

    def resumed(states):
        return (f"SELECT s.sensor_id, pipeline_agg(r.ts, r.v, {KEY.replace('ts', 'r.ts')}, s.p ORDER BY r.ts) AS p "
                f"FROM readings AS r JOIN {states} AS s USING (sensor_id) WHERE r.ts >= to_timestamp({split}) "
                "GROUP BY s.sensor_id")
    pushed(co, resumed("stored"), "(GroupAggregate|HashAggregate|Aggregate)",
           "pipeline_agg resumed from a co-located table of states")
    on_cluster = co.psql(exact(resumed("stored")))  # the single server's states, resumed on the cluster
    on_single = single.psql(exact(resumed("cluster_stored")))  # the cluster's, on the single server
    check(on_cluster == on_single and on_cluster != "",
          "the single server's states resumed on the cluster differ from the cluster's resumed on the single server")
    # both halves' emissions together are one run's
    halves = (f"SELECT a.sensor_id, a.e || ',' || b.e FROM ({exact(per_sensor(where=first))}) AS a(sensor_id, m, n, e) "
              f"JOIN ({exact(resumed('cluster_stored'))}) AS b(sensor_id, m, n, e) USING (sensor_id) ORDER BY 1")
    whole = f"SELECT sensor_id, e FROM ({exact(per_sensor())}) AS w(sensor_id, m, n, e) ORDER BY 1"
    one_run = single.psql(whole)
    check(single.psql(halves) == one_run and one_run != "",
          "the first half's emissions and the resumed second half's are not one run's")
    # and the resumed state is the one-run state: what a third part of rows makes of it
    print(f"stored pipelines resumed across (split at {split}): cluster -> single server and single server -> "
          f"cluster equal bit for bit: {on_cluster == on_single}; both halves' emissions = one run: "
          f"{single.psql(halves) == one_run}")


def maintain(co, single):
    """What segpipe_maintain refuses on Citus, and leaves nothing behind for: readings that are
    a reference table, a distributed table partitioned by another column than its distribution
    column, and a key that reads a reference table (Citus refuses a distributed query nested in
    a shard's) (test/citus/maintain.py maintains results on a distributed table)."""
    key = KEY.replace("'", "''")
    co.psql("CREATE TABLE byzone (sensor_id int NOT NULL, zone int NOT NULL, ts timestamptz NOT NULL, v float8);\n"
            "SELECT create_distributed_table('byzone', 'zone', colocate_with => 'none');")
    # a key that reads the reference table (a per-sensor zone): Citus refuses the lookup
    # nested in the shard's statement
    zone_key = ("(ts AT TIME ZONE (SELECT CASE WHEN z.zone = ''zone0'' THEN ''Europe/Berlin'' ELSE ''UTC'' END "
                "FROM public.zones AS z WHERE z.sensor_id = segpipe_new.sensor_id))::date")
    for readings, part, k, want in (("zones", "sensor_id", key, "is a Citus reference table or local table"),
                                    ("byzone", "sensor_id", key, 'is distributed by column "zone", not by "sensor_id"'),
                                    ("readings", "sensor_id", zone_key, "cannot execute a distributed query from a query on a shard")):
        _, err = co.psql(f"SELECT segpipe_maintain('{readings}', '{part}', 'ts', 'v', "
                         f"'{k}', '{SPEC}', 'refused_results')", check=False)
        check(want in err, f"segpipe_maintain on {readings}: expected an error saying {want!r}, got {err!r}")
        left = co.psql("SELECT count(*) FROM pg_class WHERE relname LIKE 'refused_results%'")
        rows = co.psql("SELECT count(*) FROM segpipe_catalog")
        check(left == "0" and rows == "0", f"the refused segpipe_maintain on {readings} left {left} tables "
              f"and {rows} catalog rows behind")
        print(f"segpipe_maintain on {readings}: refused ({next((x for x in err.splitlines() if x.startswith('ERROR')), err[:200])}); "
              "nothing left behind")
    co.psql("DROP TABLE byzone;")
    # on readings without rows set-up runs nothing and is not refused; the first change then
    # is (Citus does not plan the trigger's statement: the transition table joined with a
    # Citus table), and nothing of it is kept
    co.psql("CREATE TABLE zreadings (sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8);\n"
            "SELECT create_distributed_table('zreadings', 'sensor_id', colocate_with => 'readings');\n"
            f"SELECT segpipe_maintain('zreadings', 'sensor_id', 'ts', 'v', '{zone_key}', '{SPEC}', 'zresults');")
    _, err = co.psql("INSERT INTO zreadings VALUES (1, '2026-03-01 22:30+00', 1.5);", check=False)
    kept = co.psql("SELECT (SELECT count(*) FROM zreadings) || '/' || (SELECT count(*) FROM zresults_state)")
    check("ERROR" in err and kept == "0/0", f"an INSERT into empty readings whose key reads a reference table: "
          f"expected an error and nothing kept, got {err!r} and readings/states {kept}")
    print(f"a key that reads a reference table, set up on empty readings: the first INSERT refused "
          f"({next((x for x in err.splitlines() if x.startswith('ERROR')), err[:200])}), nothing kept ({kept})")
    co.psql("SELECT segpipe_unmaintain('zresults', drop_tables => true);\nDROP TABLE zreadings;")
    zone_function(co, single)


FRESULTS = ("SELECT sensor_id, (extract(epoch FROM ts) * 1000000)::bigint, key - date '2000-01-01', port, "
            "encode(float8send(value), 'hex') FROM fresults ORDER BY 1, 2, 3, 4, 5")


def zone_function(co, single):
    """The per-sensor lookup in a function that is not inlined (PL/pgSQL): its query runs
    in the shard's trigger, where Citus reads the reference table's copy on that node.  Set
    up on readings without rows, then INSERTs, a late INSERT, an UPDATE and a DELETE through
    the coordinator: after each the results equal segment_agg over a local copy with the
    same function and zones.  segpipe_rebuild (which runs the sensors in a statement Citus
    routes to each node) is refused by Citus, and changes nothing."""
    fn = ("CREATE FUNCTION public.zone_tz(s int) RETURNS text LANGUAGE plpgsql STABLE AS $f$ BEGIN "
          "RETURN (SELECT CASE WHEN z.zone = 'zone0' THEN 'Europe/Berlin' ELSE 'UTC' END "
          "FROM public.zones AS z WHERE z.sensor_id = s); END $f$;\n")
    key = "(ts AT TIME ZONE public.zone_tz(sensor_id))::date"
    spec = '{"type": "MaxTracker"}'
    table = "CREATE TABLE freadings (sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8);\n"
    single.psql(fn + table)
    co.psql(fn + table + "SELECT create_distributed_table('freadings', 'sensor_id', colocate_with => 'readings');\n"
            f"SELECT segpipe_maintain('freadings', 'sensor_id', 'ts', 'v', $k${key}$k$, '{spec}', 'fresults');")
    want_q = (f"SELECT sensor_id, (extract(epoch FROM ts) * 1000000)::bigint, k - date '2000-01-01', 1, "
              f"encode(float8send(e), 'hex') FROM (SELECT sensor_id, ts, segment_key(v, {key}) OVER w AS k, "
              f"segment_agg(v, {key}, '{spec}') OVER w AS e FROM freadings "
              "WINDOW w AS (PARTITION BY sensor_id ORDER BY ts, v)) AS x WHERE e IS NOT NULL ORDER BY 1, 2, 3, 4, 5")
    t0 = 1772402400  # 2026-03-01 22:00 UTC: Berlin's and UTC's days turn at different rows
    steps = [
        ("INSERT", "INSERT INTO freadings SELECT s, to_timestamp(%d + 1800 * i), s * 100 + (i * 37) %% 11 "
                   "FROM generate_series(1, 6) AS s, generate_series(0, 10) AS i" % t0),
        ("late INSERT", "INSERT INTO freadings VALUES (1, to_timestamp(%d + 2700), 999), (2, to_timestamp(%d + 900), 998)"
         % (t0, t0)),
        ("UPDATE", "UPDATE freadings SET v = v + 500 WHERE sensor_id IN (3, 4) AND ts = to_timestamp(%d + 3600)" % t0),
        ("DELETE", "DELETE FROM freadings WHERE sensor_id IN (1, 5) AND ts BETWEEN to_timestamp(%d + 1800) "
                   "AND to_timestamp(%d + 7200)" % (t0, t0)),
    ]
    equal = []
    for what, sql in steps:
        co.psql(sql + ";")
        single.psql(sql + ";")
        got, want = co.psql(FRESULTS), single.psql(want_q)
        equal.append(check(got == want and want != "", f"a key reading zones through a function, after the {what}: "
                           f"the results differ from segment_agg over the readings ({len(got.splitlines())} rows, "
                           f"expected {len(want.splitlines())})"))
    before = co.psql(FRESULTS)
    _, err = co.psql("SELECT segpipe_rebuild('fresults');", check=False)
    check("cannot execute a distributed query from a query on a shard" in err and co.psql(FRESULTS) == before,
          f"segpipe_rebuild with a key that reads zones: expected Citus's refusal and nothing changed, got {err!r}")
    print(f"a key reading the reference table zones through a PL/pgSQL function, set up on readings without "
          f"rows: results equal to segment_agg after an INSERT, a late INSERT, an UPDATE and a DELETE: {equal}; "
          f"segpipe_rebuild refused by Citus, nothing changed")
    co.psql("SELECT segpipe_unmaintain('fresults', drop_tables => true);\nDROP TABLE freadings;\n"
            "DROP FUNCTION public.zone_tz(int);")


def run_fleet(label, name, body):
    """body(fleet) in clusters of their own, removed at the end; an error is a failed check
    (with the end of each server's log: one that did not start says why there).  Returns
    the exit status of summary(label)."""
    fleet = Fleet(name)
    try:
        body(fleet)
    except (SqlError, RuntimeError) as e:
        check(False, str(e))
        for c in fleet.clusters:
            log = os.path.join(fleet.root, c.name + ".log")
            if os.path.exists(log):
                print(f"--- the end of {c.name}'s log\n" + "".join(open(log).readlines()[-5:]))
    finally:
        fleet.close()
    return summary(label)


def forms_and_resume(fleet, args, rng):
    co, workers, single = setup(fleet)
    rows = readings(rng, args.sensors, args.rows)
    zones = ",".join(f"({s}, 'zone{s % 3}', {rng.uniform(-500, 200)!r})" for s in range(1, args.sensors + 1))
    # through the coordinator, Citus writes a statement's float8 constants into the
    # shards' statements as text with the session's extra_float_digits: below 1 (the
    # coordinator's 0 here) they lose bits (docs/scale-out.md), so the rows go in at 1
    for c in (co, single):
        c.psql("SET extra_float_digits = 1;\n" + values_sql("readings", rows)
               + f"\nINSERT INTO zones VALUES {zones};")
    rounded = co.psql("INSERT INTO zones VALUES (0, 'probe', 527.5492379532282) RETURNING "
                      "encode(float8send(floor), 'hex');\nDELETE FROM zones WHERE sensor_id = 0;")
    print(f"observed: 527.5492379532282 inserted through the coordinator at extra_float_digits 0 is "
          f"stored as {rounded} (exactly: 40807c64d6de36b2)")
    nodes = co.psql("SELECT count(DISTINCT s.nodeport) FROM (SELECT DISTINCT sensor_id FROM readings) AS r "
                    "JOIN citus_shards AS s ON s.shardid = get_shard_id_for_distribution_column('readings', "
                    "r.sensor_id)")
    check(nodes == "2", f"the sensors' rows are on both workers ({nodes})")
    forms(co, single)
    resume(co, single)
    maintain(co, single)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sensors", type=int, default=9)
    ap.add_argument("--rows", type=int, default=600)
    args = ap.parse_args()
    rng = random.Random(SEED)
    return run_fleet("Citus", "citus", lambda fleet: forms_and_resume(fleet, args, rng))


if __name__ == "__main__":
    sys.exit(main())
