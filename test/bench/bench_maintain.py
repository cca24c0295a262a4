#!/usr/bin/env python3
"""Insert throughput with maintenance on (segpipe_maintain), against plain
inserts into the same table (docs/tour.md, "Maintained on insert").

One readings table (id bigserial primary key, sensor_id, ts, v), 10 sensors
reading every 3 minutes, each statement its own transaction (autocommit),
rows as a VALUES list, in batches of 1, 100 and 10,000 rows.  Maintained: a
day's maximum per sensor (the tour's spec), so the trigger locks, runs and
saves each sensor's state and writes a result when a day turns over.  Time is
psql's \\timing of each statement (client round trips, no psql start-up),
summed per run; plain and maintained runs alternate, on fresh tables, and the
median of the rounds is reported with its ratio and the time added per row,
and the ratio to plain inserts into the table with the (sensor_id, ts) index
that the set-up adds (corrections read the readings by it).
Twice: with the server's durable commits (each commit waits for its WAL to
reach the disk, which dominates one-row statements), and with
synchronous_commit = off, where the trigger's own work shows.

Connection settings come from the environment (pg_virtualenv).
    test/bench/bench_maintain.py [rows] [rounds]    defaults: 20000 rows a run, 3 rounds
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # nothing left in test/__pycache__
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/: sptest
import sptest  # noqa: E402

DB = "segpipe_bench_maintain"
ROWS = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 20000
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
SENSORS = 10
T0 = 1772323200  # 2026-03-01 00:00 UTC
SPEC = ('{"type": "Pipeline", "id": "daily_max", "operators": [{"type": "MaxTracker", "id": "max"}], '
        '"late": "drop"}')


def psql(sql, db=DB):
    return sptest.psql(sql, db, "bench_maintain")


def statements(batch, rows, path):
    """rows readings in statements of batch rows: 10 sensors, every 3 minutes."""
    with open(path, "w") as f:
        f.write("\\timing on\n")
        for start in range(0, rows, batch):
            values = ",".join(f"({i % SENSORS + 1},to_timestamp({T0 + (i // SENSORS) * 180}),{(i * 7919) % 1000 / 10})"
                              for i in range(start, min(rows, start + batch)))
            f.write(f"INSERT INTO readings (sensor_id, ts, v) VALUES {values};\n")


def timed(path, sync):
    env = dict(os.environ, PGOPTIONS=f"-c synchronous_commit={sync}")
    r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", DB, "-f", path, "-o", os.devnull],
                       capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit("bench_maintain: " + r.stderr[-2000:])
    return sum(float(ms) for ms in re.findall(r"^Time: ([0-9.]+) ms", r.stdout, re.M)) / 1000


def fresh(maintained, indexed=False):
    psql("DROP TABLE IF EXISTS readings CASCADE; DROP TABLE IF EXISTS daily, daily_state, daily_checkpoint CASCADE;"
         "CREATE TABLE readings (id bigserial PRIMARY KEY, sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8);"
         "DROP FUNCTION IF EXISTS daily_maintain(); DROP FUNCTION IF EXISTS daily_correct(int[], timestamptz[], oid[]);"
         "DROP FUNCTION IF EXISTS daily_correct(regclass, boolean);")
    if indexed:
        psql("CREATE INDEX ON readings (sensor_id, ts)")
    if maintained:
        psql(f"SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', 'ts::date', '{SPEC}', 'daily')")
    psql("CHECKPOINT; VACUUM ANALYZE")


def main():
    subprocess.run(["dropdb", "--if-exists", DB], check=True, stderr=subprocess.DEVNULL)
    subprocess.run(["createdb", DB], check=True)
    psql("CREATE EXTENSION segpipe")
    print(f"bench_maintain: {ROWS} rows a run (10,000-row batches: {max(ROWS, 100000)}), {SENSORS} sensors, "
          f"{ROUNDS} rounds, median")
    with tempfile.TemporaryDirectory() as tmp:
        for sync in ("on", "off"):
            print(f"synchronous_commit = {sync}")
            print(f"{'batch':>6} | {'plain rows/s':>12} | {'maintained rows/s':>17} | maintained / plain | "
                  f"added per row | results | maintained / plain with the index")
            for batch in (1, 100, 10000):
                rows = max(ROWS, 100000) if batch == 10000 else ROWS
                path = os.path.join(tmp, f"b{batch}.sql")
                statements(batch, rows, path)
                # plain, plain with the (sensor_id, ts) index that set-up adds
                # (corrections read the readings by it), maintained
                times = {"plain": [], "indexed": [], "kept": []}
                for _ in range(ROUNDS):
                    for mode in times:
                        fresh(mode == "kept", mode == "indexed")
                        times[mode].append(timed(path, sync))
                        if mode == "kept":
                            results = psql("SELECT count(*) FROM daily")
                plain, indexed, kept = (statistics.median(times[m]) for m in ("plain", "indexed", "kept"))
                print(f"{batch:>6} | {rows / plain:>12.0f} | {rows / kept:>17.0f} | {kept / plain:>18.2f} | "
                      f"{(kept - plain) / rows * 1e6:>10.1f} us | {results:>7} | {kept / indexed:.2f}")
    subprocess.run(["dropdb", DB], check=True)


if __name__ == "__main__":
    sys.exit(main())
