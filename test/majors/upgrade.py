#!/usr/bin/env python3
"""Upgrading PostgreSQL with pg_dump and pg_restore: states written on one major resume exactly on
another (docs/versions.md, "Upgrading").

    upgrade.py --write DIR    on the old major (15): makes the database, stores states and a
                              maintained readings table after a first batch of readings, dumps
                              it (pg_dump -Fc) to DIR/upgrade.dump, and writes DIR/expected.json:
                              the stored values, and what resuming them with the second batch
                              gives on this major
    upgrade.py --read DIR     on the new major (17, 18): restores DIR/upgrade.dump into a new
                              database (pg_restore) and checks, against DIR/expected.json:
                              - every restored state has the same text and the same binary form;
                              - resuming it with the second batch (pipeline_agg from the stored
                                state, and inserts into the restored maintained table, whose
                                trigger the restore made) gives the same pipelines, bytes for
                                bytes, and the same emissions (float8send);
    both modes check, on their own major, that the first batch then the second equals one run
    over all the rows (emissions, and the final state but for its emissions).

Runs in the cluster of PGHOST/PGPORT/PGUSER (pg_virtualenv's), in a database of its own, dropped
at the end.  Ends with "upgrade with pg_dump/pg_restore (...): N passed, M failed".
"""
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sptest import check, psql, summary  # noqa: E402

DB = "segpipe_upgrade"

# three specs with state of every kind: windows, a mesh with three outputs and late rows
# dropped, filters; keys of three types
SPECS = {
    "day": ('{"type": "Pipeline", "id": "day", "output_port_types": ["number", "number", "number"], '
            '"operators": [{"type": "Identity", "id": "in"}, '
            '{"type": "MovingAverage", "id": "ma", "window_size": 12}, '
            '{"type": "StandardDeviation", "id": "sd", "window_size": 12}, '
            '{"type": "MaxTracker", "id": "max"}], '
            '"connections": [{"from": "in", "to": "ma"}, {"from": "in", "to": "sd"}, {"from": "in", "to": "max"}], '
            '"entryOperator": "in", "outputMappings": {"ma": {"o1": "o1"}, "sd": {"o1": "o2"}, "max": {"o1": "o3"}}, '
            '"late": "drop"}', "(ts AT TIME ZONE INTERVAL '0')::date"),
    "shift": ('{"type": "Pipeline", "id": "shift", "operators": ['
              '{"type": "FiniteImpulseResponse", "id": "fir", "coeff": [0.5, 0.25, 0.125, 0.125]}, '
              '{"type": "InfiniteImpulseResponse", "id": "iir", "b_coeffs": [0.5, 0.25], "a_coeffs": [-0.25]}, '
              '{"type": "PeakDetector", "id": "peak", "window_size": 5}], '
              '"connections": [{"from": "fir", "to": "iir"}, {"from": "iir", "to": "peak"}], '
              '"entryOperator": "fir", "outputMappings": {"peak": {"o1": "o1"}}, "late": "drop"}',
              "'shift ' || (extract(hour FROM ts AT TIME ZONE 'UTC')::int / 8)"),
    "bin": ('{"type": "Pipeline", "id": "bin", "operators": [{"type": "WindowMinMax", "id": "w", '
            '"window_size": 6, "mode": "max"}], "entryOperator": "w", "outputMappings": {"w": {"o1": "o1"}}, '
            '"late": "drop"}',
            "date_bin('6 hours', ts, timestamptz '2000-01-01 00:00+00')"),
}
SENSORS = 5
ROWS = 240


def readings():
    """(sensor, i, seconds, value text, batch): exact decimal values, NaN, -0, infinities,
    subnormals and punctuation; batch 2 holds some late rows."""
    out = []
    for s in range(1, SENSORS + 1):
        t = 1772323200 + s * 97
        for i in range(ROWS):
            t += 600 + (i * s * 131) % 3000
            m = (i * 7919 + s * 104729) % 1000
            v = ("'NaN'" if m == 3 else "'-0'" if m == 5 else "'Infinity'" if m == 7
                 else "4.9e-322" if m == 11 else "NULL" if m == 13
                 else repr(((i * 7919 + s) % 2003 - 1000) / 64.0 * (1 + (i % 3) * 0.25)))
            out.append((s, i, t, v, 1 if i < ROWS * 3 // 5 else 2))
        # late rows in the second batch: before what the first batch processed
        for j in range(3):
            out.append((s, ROWS + j, 1772323200 + s * 97 + 3600 * (j + 1), "1.5", 2))
    return out


def values(rows):
    return ",\n".join(f"({s}, {i}, to_timestamp({t}), {v})" for s, i, t, v, _ in rows)


def run(mode, where):
    rows = readings()
    b1 = [r for r in rows if r[4] == 1]
    b2 = [r for r in rows if r[4] == 2]
    subprocess.run(["dropdb", "--if-exists", DB], check=True, stderr=subprocess.DEVNULL)
    dump = os.path.join(where, "upgrade.dump")
    if mode == "--write":
        subprocess.run(["createdb", "-E", "UTF8", "-T", "template0", "--locale=C", DB], check=True)
        setup = ["CREATE EXTENSION segpipe;",
                 "CREATE TABLE readings (sensor_id int NOT NULL, i int, ts timestamptz NOT NULL, v float8);",
                 "CREATE TABLE states (sensor_id int, name text, state pipeline, PRIMARY KEY (sensor_id, name));",
                 f"INSERT INTO readings VALUES {values(b1)};"]
        for name, (spec, key) in SPECS.items():
            setup.append(f"""INSERT INTO states SELECT sensor_id, '{name}',
  pipeline_agg(ts, v, {key}, '{spec}' ORDER BY ts, i) FROM readings GROUP BY sensor_id;""")
        # a maintained readings table, its first batch in three statements
        setup.append("""CREATE TABLE plant (id bigserial PRIMARY KEY, sensor_id int NOT NULL,
  i int, ts timestamptz NOT NULL, v float8);""")
        spec, key = SPECS["day"]
        setup.append(f"""SELECT segpipe_maintain('plant', partition_by => 'sensor_id', ts => 'ts', value => 'v',
  key => $k${key}$k$, spec => '{spec}', results => 'plant_daily');""")
        third = len(b1) // 3
        for part in (b1[:third], b1[third:2 * third], b1[2 * third:]):
            setup.append(f"INSERT INTO plant (sensor_id, i, ts, v) VALUES {values(part)};")
        psql("\n".join(setup), DB, "upgrade")
        subprocess.run(["pg_dump", "-Fc", "-f", dump, DB], check=True)
    else:
        subprocess.run(["createdb", "-E", "UTF8", "-T", "template0", "--locale=C", DB], check=True)
        r = subprocess.run(["pg_restore", "--exit-on-error", "-d", DB, dump], capture_output=True, text=True)
        if not check(r.returncode == 0, f"pg_restore of the dump made on the old major: {r.stderr[-2000:]}"):
            return
        print(f"restored {os.path.getsize(dump)} bytes of pg_dump -Fc output")

    stored = dict(line.split("|", 1) for line in psql(
        "SELECT sensor_id || ' ' || name || ' text', state::text FROM states UNION ALL "
        "SELECT sensor_id || ' ' || name || ' binary', encode(pipeline_send(state), 'hex') FROM states UNION ALL "
        "SELECT sensor_id || ' maintained binary', encode(pipeline_send(state), 'hex') FROM plant_daily_state "
        "ORDER BY 1", DB, "upgrade").splitlines())

    # resume: the second batch from the stored states (ts, i and v are batch2's columns in the
    # key expressions), and into the maintained table
    steps = ["CREATE TABLE batch2 (sensor_id int, i int, ts timestamptz, v float8);",
             f"INSERT INTO batch2 VALUES {values(b2)};",
             "CREATE TABLE resumed (sensor_id int, name text, state pipeline);"]
    for name, (spec, key) in SPECS.items():
        steps.append(f"""INSERT INTO resumed SELECT s.sensor_id, '{name}', pipeline_agg(ts, v, {key}, s.state ORDER BY ts, i)
  FROM states AS s JOIN batch2 USING (sensor_id) WHERE s.name = '{name}' GROUP BY s.sensor_id;""")
    steps.append("INSERT INTO plant (sensor_id, i, ts, v) SELECT sensor_id, i, ts, v FROM batch2 ORDER BY i % 7, i;")
    psql("\n".join(steps), DB, "upgrade")
    resumed = {}
    for line in psql(
            "SELECT sensor_id || ' ' || name, encode(pipeline_send(state), 'hex'), "
            "  (SELECT coalesce(string_agg(extract(epoch FROM e.ts)::text || ' ' || e.key || ' ' || e.port || ' ' "
            "    || encode(float8send(e.value), 'hex'), ';' ORDER BY n), '') "
            "   FROM emissions(state) WITH ORDINALITY AS e(ts, key, port, value, n)) "
            "FROM resumed ORDER BY 1", DB, "upgrade").splitlines():
        k, sent, em = line.split("|")
        resumed[k] = {"sent": sent, "emissions": em}
    maintained = psql("SELECT string_agg(sensor_id || ' ' || extract(epoch FROM ts) || ' ' || key || ' ' || port "
                      "|| ' ' || encode(float8send(value), 'hex'), ';' ORDER BY sensor_id, ts, port) "
                      "FROM plant_daily", DB, "upgrade")
    maintained_state = psql("SELECT string_agg(sensor_id || ' ' || encode(pipeline_send(state), 'hex'), ';' "
                            "ORDER BY sensor_id) FROM plant_daily_state", DB, "upgrade")
    got = {"stored": stored, "resumed": resumed, "maintained": maintained, "maintained_state": maintained_state}
    print(f"{len(stored)} stored values, {len(resumed)} resumed pipelines, "
          f"{maintained.count(';') + 1} maintained results")
    check(len(resumed) == SENSORS * len(SPECS) and maintained, "the resumed runs produced pipelines and results")

    # on this major: first batch, then second, equals one run over all the rows in the order
    # they arrived (the late rows of the second batch are late in both)
    em = ("(SELECT coalesce(string_agg(extract(epoch FROM e.ts) || ' ' || e.key || ' ' || e.port || ' ' "
          "|| encode(float8send(e.value), 'hex'), ';' ORDER BY e.n), '') "
          "FROM emissions({}) WITH ORDINALITY AS e(ts, key, port, value, n))")
    for name, (spec, key) in SPECS.items():
        whole = psql(f"""
CREATE TEMP TABLE allrows AS SELECT sensor_id, i, ts, v, 1 AS batch FROM readings
  UNION ALL SELECT sensor_id, i, ts, v, 2 FROM batch2;
WITH w AS (SELECT sensor_id, pipeline_agg(ts, v, {key}, '{spec}' ORDER BY batch, ts, i) AS p
           FROM allrows GROUP BY sensor_id)
SELECT count(*) FILTER (WHERE split_part(w.p::text, '"emissions": ', 1)
                              = split_part(r.state::text, '"emissions": ', 1)
                        AND {em.format('w.p')} = concat_ws(';', nullif({em.format('s.state')}, ''),
                                                           nullif({em.format('r.state')}, ''))),
       count(*)
FROM w JOIN states AS s USING (sensor_id) JOIN resumed AS r USING (sensor_id)
WHERE s.name = '{name}' AND r.name = '{name}';""", DB, "upgrade")
        same, total = whole.split("|")
        check(same == total and int(total) == SENSORS,
              f"{name}: stored first batch + second batch = one run, for {same} of {total} sensors")
    return got


def main():
    mode, where = sys.argv[1], sys.argv[2]
    label = "upgrade with pg_dump/pg_restore ({})".format("dump written" if mode == "--write" else "restored, resumed")
    try:
        got = run(mode, where)
        if mode == "--write":
            with open(os.path.join(where, "expected.json"), "w") as f:
                json.dump(got, f, indent=1, sort_keys=True)
        elif got is not None:
            with open(os.path.join(where, "expected.json")) as f:
                want = json.load(f)
            for k, v in want["stored"].items():
                check(got["stored"].get(k) == v, f"restored {k} differs from the dumped one")
            for k, v in want["resumed"].items():
                check(got["resumed"].get(k) == v, f"resumed {k}: pipeline or emissions differ from the old major's")
            check(got["maintained"] == want["maintained"],
                  "the restored maintained table's results after the second batch differ from the old major's")
            check(got["maintained_state"] == want["maintained_state"],
                  "the restored maintained table's states after the second batch differ from the old major's")
            print(f"{len(want['stored'])} restored values and {len(want['resumed'])} resumed pipelines "
                  "compared with the old major's, byte for byte")
    finally:
        subprocess.run(["dropdb", "--if-exists", DB], check=False, stderr=subprocess.DEVNULL)
    return summary(label)


if __name__ == "__main__":
    sys.exit(main())
