#!/usr/bin/env python3
"""Per-sensor pipelines on the shards of a postgres_fdw-partitioned table (docs/scale-out.md).

Starts its own throwaway clusters (test/pgcluster.py: unix sockets in a mktemp directory,
trust, removed at the end whatever happens): a coordinator, SHARDS shards and a single
server for reference, each with different DateStyle, TimeZone, IntervalStyle and
extra_float_digits.  segpipe must be installed (make install; hold /work/segpipe.lock).

On the coordinator, readings and the results-table recipe's tables are partitioned by
hash of sensor_id, each partition a postgres_fdw foreign table on a shard (server
option extensions 'segpipe').  On each shard, the table is attached as the only
partition of a local table hash-partitioned the same way, so that a row of another
shard is refused there (postgres_fdw does not check a foreign partition's bound).
Data is loaded through the coordinator.  Checked:
  - per-sensor daily results, emissions(pipeline_agg(ts, v, day, spec ORDER BY ts)),
    also for a spec with windows of time and a time-weighted mean
    GROUP BY sensor_id with enable_partitionwise_aggregate: EXPLAIN (VERBOSE) shows
    pipeline_agg in the Remote SQL of every shard, for a date key and a timestamptz key;
    a key written with a text time zone ('UTC') is not pushed (postgres_fdw's collation
    rule) and still gives the same rows; segment_agg over the foreign partitions runs on
    the coordinator (window functions are not pushed) and gives the single server's rows;
  - the tour's results-table recipe, with sensor_state on the shards, refreshed on
    every shard from the coordinator (dblink) after each batch of readings (late and
    repeated ones included), read back through the coordinator;
  - everything equal, row for row and bit for bit (float8send, pipeline text), to the
    same computations on the single server;
  - a pipeline that arrives malformed from a shard is refused, not misread.

    test/integration/shards.py [--sensors N] [--rows N] [--shards N]    defaults: 9 sensors, 600 rows, 3 shards
"""
import argparse
import os
import random
import re
import sys

sys.dont_write_bytecode = True  # nothing left in test/__pycache__
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/: sptest, pgcluster
from pgcluster import Fleet, SqlError  # noqa: E402
from sptest import check, readme_recipe, summary  # noqa: E402

SEED = int(os.environ.get("SEGPIPE_SEED", "20261130"))
T0 = 1772323200  # 2026-03-01 00:00 UTC

# settings that would change any text written with the session's rules
COORDINATOR = {"TimeZone": "America/St_Johns", "DateStyle": "SQL, DMY", "extra_float_digits": "0",
               "IntervalStyle": "sql_standard"}
SHARD = {"TimeZone": "Asia/Kathmandu", "DateStyle": "German, DMY", "extra_float_digits": "-15",
         "IntervalStyle": "iso_8601", "bytea_output": "escape"}
SINGLE = {"TimeZone": "Pacific/Chatham", "DateStyle": "Postgres, MDY", "extra_float_digits": "3"}

# three outputs: the last 12 readings' mean and sample deviation, and the day's maximum
SPEC = ('{"type": "Pipeline", "id": "day", "output_port_types": ["number", "number", "number"], '
        '"operators": [{"type": "Identity", "id": "in"}, '
        '{"type": "MovingAverage", "id": "ma", "window_size": 12}, '
        '{"type": "StandardDeviation", "id": "sd", "window_size": 12}, '
        '{"type": "MaxTracker", "id": "max"}], '
        '"connections": [{"from": "in", "to": "ma"}, {"from": "in", "to": "sd"}, {"from": "in", "to": "max"}], '
        '"entryOperator": "in", "outputMappings": {"ma": {"o1": "o1"}, "sd": {"o1": "o2"}, "max": {"o1": "o3"}}}')

# windows of time and a time-weighted mean (operators that read each row's ts): the
# same three-output shape
SPEC_TIME = ('{"type": "Pipeline", "id": "day_t", "output_port_types": ["number", "number", "number"], '
             '"operators": [{"type": "Identity", "id": "in"}, '
             '{"type": "MovingAverage", "id": "ma", "window": "30 minutes"}, '
             '{"type": "StandardDeviation", "id": "sd", "window": "1 hour", "min_rows": 2}, '
             '{"type": "TimeWeightedAverage", "id": "twa", "method": "linear"}], '
             '"connections": [{"from": "in", "to": "ma"}, {"from": "in", "to": "sd"}, {"from": "in", "to": "twa"}], '
             '"entryOperator": "in", "outputMappings": {"ma": {"o1": "o1"}, "sd": {"o1": "o2"}, "twa": {"o1": "o3"}}}')

# day keys: postgres_fdw ships a function call only when no argument carries a collation
# that does not come from a column, so 'UTC' (text) is not shipped while an interval is
KEYS = {
    "date key (ts AT TIME ZONE INTERVAL '0')::date": ("(ts AT TIME ZONE INTERVAL '0')::date", True),
    "timestamptz key date_bin('1 day', ts, ...)": ("date_bin('1 day', ts, timestamptz '2000-01-01 00:00+00')", True),
    "date key (ts AT TIME ZONE 'UTC')::date": ("(ts AT TIME ZONE 'UTC')::date", False),
}



def per_sensor(key, spec=SPEC):
    return (f"SELECT sensor_id, pipeline_agg(ts, v, {key}, '{spec}' ORDER BY ts) AS p "
            "FROM readings GROUP BY sensor_id")


def exact_emissions(key, spec=SPEC):
    """The emissions of every sensor, in a form no setting changes."""
    return (f"SELECT sensor_id, (extract(epoch FROM e.ts) * 1000000)::bigint, e.key, e.port, "
            f"encode(float8send(e.value), 'hex') "
            f"FROM ({per_sensor(key, spec)}) AS s, emissions(s.p) AS e ORDER BY 1, 2, 4")


def exact_pipelines(key, spec=SPEC):
    return (f"SELECT sensor_id, md5(p::text), octet_length(p::text) FROM ({per_sensor(key, spec)}) AS s "
            "ORDER BY 1")


def window_form():
    """segment_agg over the same rows, the array form (three outputs)."""
    return (f"SELECT sensor_id, (extract(epoch FROM ts) * 1000000)::bigint, "
            f"(SELECT string_agg(coalesce(encode(float8send(x), 'hex'), '-'), ',') FROM unnest(r) AS x) "
            f"FROM (SELECT sensor_id, ts, segment_agg(ARRAY[v], (ts AT TIME ZONE INTERVAL '0')::date, "
            f"'{SPEC}', close_at_end => true) OVER (PARTITION BY sensor_id ORDER BY ts) AS r "
            f"FROM readings) AS w WHERE r IS NOT NULL ORDER BY 1, 2")


def remote_sql_by_shard(plan, nshards):
    """{shard index: [Remote SQL texts]} of a plan printed by EXPLAIN (VERBOSE)."""
    found = {k: [] for k in range(nshards)}
    current = None
    for line in plan.splitlines():
        m = re.search(r"(?:Foreign Scan on|Aggregate on \() ?public\.readings_s(\d+)\b", line)
        if m:
            current = int(m.group(1))
        m = re.search(r"Remote SQL: (.*)", line)
        if m and current is not None:
            found[current].append(m.group(1))
            current = None
    return found


def readings(rng, sensors, rows):
    """(sensor, epoch, value): strictly increasing ts per sensor, full-precision values,
    a few NaN, -0, subnormal and infinite values, and punctuation (NULL)."""
    out = []
    for s in range(1, sensors + 1):
        t = T0 + rng.randrange(3600)
        for _ in range(rows):
            t += rng.choice([60, 300, 300, 300, 900, 3 * 3600])
            r = rng.random()
            v = (rng.choice(["'NaN'", "'-0'", "4.9e-322", "'Infinity'", "NULL"]) if r < 0.02
                 else repr(rng.uniform(-1e3, 1e3) * 10 ** rng.randint(-8, 8)))
            out.append((s, t, v))
    rng.shuffle(out)  # arrival order is not timestamp order
    return out


def values_sql(table, rows):
    return (f"INSERT INTO {table} (sensor_id, ts, v) VALUES\n" +
            ",\n".join(f"({s}, to_timestamp({t}), {v})" for s, t, v in rows) + ";")


def history(rng, sensors):
    """Batches of readings for the recipe: on time, late, and the same reading twice."""
    clock = {s: T0 + rng.randrange(3600) for s in range(1, sensors + 1)}
    sent = {s: [] for s in clock}
    batches = []
    for _ in range(5):
        batch = []
        for s in clock:
            for _ in range(rng.randint(0, 30)):
                clock[s] += rng.choice([0, 600, 1800, 3600, 3 * 3600])
                r = rng.random()
                if r < 0.08 and sent[s]:
                    row = rng.choice(sent[s][-20:])
                elif r < 0.14:
                    row = (s, clock[s] - rng.randint(1, 86400), repr(rng.uniform(0, 100)))
                else:
                    row = (s, clock[s], repr(rng.uniform(0, 100)))
                batch.append(row)
                sent[s].append(row)
        rng.shuffle(batch)
        batches.append(batch)
    return batches


def setup(fleet, nshards):
    co = fleet.add("coordinator", COORDINATOR)
    shards = [fleet.add(f"shard{k}", SHARD) for k in range(nshards)]
    single = fleet.add("single", SINGLE)
    recipe = readme_recipe("shards")
    table = "CREATE TABLE readings (sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8);\n"
    for k, sh in enumerate(shards):
        # the shard's tables are the only partitions of local parents hash-partitioned as the
        # coordinator's, so a row of another shard is refused here
        sh.psql("CREATE EXTENSION segpipe;\n" + table + recipe + f"""
CREATE TABLE readings_bound (LIKE readings) PARTITION BY HASH (sensor_id);
ALTER TABLE readings_bound ATTACH PARTITION readings FOR VALUES WITH (MODULUS {nshards}, REMAINDER {k});
CREATE INDEX ON readings (sensor_id, ts);
CREATE TABLE sensor_readings_bound (LIKE sensor_readings) PARTITION BY HASH (sensor_id);
ALTER TABLE sensor_readings_bound ATTACH PARTITION sensor_readings
  FOR VALUES WITH (MODULUS {nshards}, REMAINDER {k});
CREATE TABLE malformed (p text);""")
    single.psql("CREATE EXTENSION segpipe;\n" + table + "CREATE INDEX ON readings (sensor_id, ts);\n" + recipe)
    sql = ["CREATE EXTENSION segpipe;", "CREATE EXTENSION postgres_fdw;", "CREATE EXTENSION dblink;"]
    for k, sh in enumerate(shards):
        sql.append(f"CREATE SERVER shard{k} FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '{fleet.root}', "
                   f"port '{sh.port}', dbname 'postgres', extensions 'segpipe', async_capable 'true', "
                   f"fetch_size '10000', batch_size '1000');")
        # user: the server's backend would otherwise connect as the OS user it runs as
        sql.append(f"CREATE USER MAPPING FOR CURRENT_USER SERVER shard{k} OPTIONS (user 'postgres');")
    parts = {"readings": "sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8",
             "sensor_readings": "sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8",
             "sensor_state": "sensor_id int NOT NULL, last_id bigint NOT NULL, state pipeline NOT NULL",
             "daily_results": "sensor_id int, ts timestamptz, key date, port int, value float8"}
    for name, cols in parts.items():
        sql.append(f"CREATE TABLE {name} ({cols}) PARTITION BY HASH (sensor_id);")
        for k in range(nshards):
            sql.append(f"CREATE FOREIGN TABLE {name}_s{k} PARTITION OF {name} "
                       f"FOR VALUES WITH (MODULUS {nshards}, REMAINDER {k}) SERVER shard{k} "
                       f"OPTIONS (table_name '{name}');")
    sql.append("CREATE FOREIGN TABLE malformed (p pipeline) SERVER shard0;")
    # every shard refreshes its own sensors, in a transaction of its own
    sql.append("CREATE PROCEDURE refresh_daily_results() LANGUAGE sql AS $$\n"
               "  SELECT dblink_exec(srvname, 'CALL refresh_daily_results()') FROM pg_foreign_server\n"
               "  WHERE srvname LIKE 'shard%' ORDER BY srvname;\n$$;")
    co.psql("\n".join(sql))
    # the servers do print with different settings (else the equality below proves little)
    probe = "SELECT 0.1::float8 + 0.2, timestamptz '2026-03-01 00:00+00'"
    shown = {c.name: c.psql(probe) for c in (co, shards[0], single)}
    check(len(set(shown.values())) == 3, f"the servers' settings print differently: {shown}")
    return co, shards, single


def daily_queries(co, single, nshards):
    for label, (key, pushed) in KEYS.items():
        plan = co.psql("SET enable_partitionwise_aggregate = on;\n"
                       f"EXPLAIN (VERBOSE, COSTS OFF) SELECT s.sensor_id, e.* FROM ({per_sensor(key)}) AS s, "
                       "emissions(s.p) AS e;")
        remote = remote_sql_by_shard(plan, nshards)
        shipped = [k for k, sqls in remote.items() if any("public.pipeline_agg(" in q for q in sqls)]
        if pushed:
            check(len(shipped) == nshards and all("GROUP BY" in q for k in shipped for q in remote[k]),
                  f"{label}: pipeline_agg is in the Remote SQL of shards {shipped}, not of all {nshards}\n{plan}")
        else:
            check(shipped == [] and all(remote.values()),
                  f"{label}: expected the rows, not pipeline_agg, to be fetched from every shard\n{plan}")
        got = co.psql("SET enable_partitionwise_aggregate = on;\n" + exact_emissions(key))
        want = single.psql(exact_emissions(key))
        n = len(want.splitlines())
        check(got == want and n > 0, f"{label}: the coordinator's emissions differ from the single server's")
        got_p = co.psql("SET enable_partitionwise_aggregate = on;\n" + exact_pipelines(key))
        want_p = single.psql(exact_pipelines(key))
        check(got_p == want_p, f"{label}: the pipelines differ from the single server's")
        size = [int(line.split("|")[2]) for line in got_p.splitlines()]
        print(f"{label}: {'pushed to every shard' if pushed else 'not pushed, rows fetched'}; "
              f"{n} emissions, equal bit for bit: {got == want}; pipelines equal: {got_p == want_p} "
              f"({min(size)}..{max(size)} bytes of text per sensor)")

    # operators that know time, pushed down with the first key
    key = next(iter(KEYS.values()))[0]
    plan = co.psql("SET enable_partitionwise_aggregate = on;\n"
                   f"EXPLAIN (VERBOSE, COSTS OFF) {exact_emissions(key, SPEC_TIME)};")
    remote = remote_sql_by_shard(plan, nshards)
    check(all(any("public.pipeline_agg(" in q for q in sqls) for sqls in remote.values()),
          f"windows of time: pipeline_agg is not in the Remote SQL of every shard\n{plan}")
    got = co.psql("SET enable_partitionwise_aggregate = on;\n" + exact_emissions(key, SPEC_TIME))
    want = single.psql(exact_emissions(key, SPEC_TIME))
    check(got == want and want != "", "windows of time: the coordinator's emissions differ from the single server's")
    got_p = co.psql("SET enable_partitionwise_aggregate = on;\n" + exact_pipelines(key, SPEC_TIME))
    want_p = single.psql(exact_pipelines(key, SPEC_TIME))
    check(got_p == want_p, "windows of time: the pipelines differ from the single server's")
    print(f"windows of time and a time-weighted mean: pushed to every shard; {len(want.splitlines())} "
          f"emissions, equal bit for bit: {got == want}; pipelines equal: {got_p == want_p}")

    # an observation, not a rule of segpipe's: with the state on the coordinator, the
    # refresh passes it to pipeline_agg from the outer query (LATERAL), and postgres_fdw 15
    # then computes pipeline_agg on the coordinator from the shards' rows
    plan = co.psql("CREATE TEMP TABLE coordinator_state AS SELECT DISTINCT sensor_id, "
                   f"'{SPEC}'::pipeline AS state FROM readings;\n"
                   "SET enable_partitionwise_aggregate = on;\n"
                   "EXPLAIN (VERBOSE, COSTS OFF) SELECT s.sensor_id, n.state FROM coordinator_state AS s, "
                   "LATERAL (SELECT pipeline_agg(r.ts, r.v, (r.ts AT TIME ZONE INTERVAL '0')::date, s.state "
                   "ORDER BY r.ts) AS state FROM readings AS r WHERE r.sensor_id = s.sensor_id "
                   "GROUP BY r.sensor_id) AS n;")
    remote = remote_sql_by_shard(plan, nshards)
    print("state on the coordinator (LATERAL): pipeline_agg is "
          + ("pushed to the shards" if any("pipeline_agg" in q for sqls in remote.values() for q in sqls)
             else "computed on the coordinator, the rows are fetched"))

    plan = co.psql("EXPLAIN (VERBOSE, COSTS OFF) " + window_form())
    remote = remote_sql_by_shard(plan, nshards)
    check("WindowAgg" in plan and all(remote.values())
          and not any("segment_agg" in q for sqls in remote.values() for q in sqls),
          f"segment_agg: expected a WindowAgg on the coordinator over every shard's rows\n{plan}")
    got, want = co.psql(window_form()), single.psql(window_form())
    check(got == want and got != "", "segment_agg over the foreign partitions differs from the single server's")
    print(f"segment_agg over the foreign partitions: computed on the coordinator, "
          f"{len(want.splitlines())} emitting rows, equal bit for bit: {got == want}")


RESULTS = ("SELECT sensor_id, (extract(epoch FROM ts) * 1000000)::bigint, key - date '2000-01-01', port, "
           "encode(float8send(value), 'hex') FROM daily_results ORDER BY 1, 2, 4")
STATES = ("SELECT sensor_id, md5(state::text), pipeline_rows(state), pipeline_late(state) "
          "FROM sensor_state ORDER BY 1")


def recipe(co, shards, single, rng, sensors):
    batches = history(rng, sensors)
    for n, batch in enumerate(batches):
        co.psql(values_sql("sensor_readings", batch))
        single.psql(values_sql("sensor_readings", batch))
        co.psql("CALL refresh_daily_results()")
        single.psql("CALL refresh_daily_results()")
    spread = co.psql("SELECT string_agg(n::text, ',' ORDER BY t) FROM (SELECT tableoid::regclass::text AS t, "
                     "count(DISTINCT sensor_id) AS n FROM sensor_readings GROUP BY 1) AS d")
    check(len(spread.split(",")) == len(shards), f"every shard has sensors ({spread})")
    got, want = co.psql(RESULTS), single.psql(RESULTS)
    check(got == want and got != "", "daily_results through the coordinator differ from the single server's")
    got_s, want_s = co.psql(STATES), single.psql(STATES)
    check(got_s == want_s, "sensor_state through the coordinator differs from the single server's")
    late = sum(int(line.split("|")[3]) for line in want_s.splitlines())
    check(late > 0, "the history had late readings")
    before = co.psql("SELECT count(*) FROM daily_results")
    co.psql("CALL refresh_daily_results()")
    check(co.psql("SELECT count(*) FROM daily_results") == before, "a refresh with nothing new added results")
    print(f"results-table recipe on {len(shards)} shards (sensors per shard {spread}): "
          f"{sum(map(len, batches))} readings in {len(batches)} refreshes, {late} late; "
          f"{len(want.splitlines())} results and {len(want_s.splitlines())} states equal bit for bit: "
          f"{got == want and got_s == want_s}")


def refusals(co, shards, nshards):
    # a row of another shard, inserted directly on a shard, is refused there
    other = co.psql("SELECT sensor_id FROM readings WHERE tableoid <> 'readings_s0'::regclass LIMIT 1")
    for table in ("readings", "sensor_readings"):
        _, err = shards[0].psql(f"INSERT INTO {table} (sensor_id, ts, v) VALUES ({other}, now(), 1)",
                                check=False)
        check("violates partition constraint" in err, f"a row of another shard in shard0's {table}: {err!r}")
    # what arrives from a shard is read as hostile input: a pipeline text with an
    # unrecognized member (as a newer format would have) is refused, not misread
    shards[0].psql("INSERT INTO malformed VALUES "
                   "('{\"type\": \"MaxTracker\", \"state2\": {}}')")
    _, err = co.psql("SELECT p FROM malformed", check=False)
    check("ERROR" in err and "state2" in err, f"a malformed pipeline from a shard: {err!r}")
    print(f"refused: rows of another shard inserted on a shard; a malformed pipeline from a shard "
          f"({err.splitlines()[0] if err else ''})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sensors", type=int, default=9)
    ap.add_argument("--rows", type=int, default=600)
    ap.add_argument("--shards", type=int, default=3)
    args = ap.parse_args()
    rng = random.Random(SEED)
    fleet = Fleet("shards")
    try:
        co, shards, single = setup(fleet, args.shards)
        rows = readings(rng, args.sensors, args.rows)
        co.psql(values_sql("readings", rows))
        single.psql(values_sql("readings", rows))
        daily_queries(co, single, args.shards)
        recipe(co, shards, single, rng, args.sensors)
        refusals(co, shards, args.shards)
    except SqlError as e:
        check(False, str(e))
    finally:
        fleet.close()
    return summary("postgres_fdw shards")


if __name__ == "__main__":
    sys.exit(main())
