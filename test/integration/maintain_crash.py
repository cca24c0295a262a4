#!/usr/bin/env python3
"""Maintained on insert, through a crash (docs/tour.md, "Maintained on insert").

A cluster of its own (test/pgcluster.py: initdb in a mktemp directory, as the
postgres user when run as root; removed afterwards, whatever happens): readings
maintained by segpipe_maintain(), three psql clients streaming small
transactions (BEGIN; INSERT INTO readings ...; INSERT INTO arrival ...;
COMMIT), and the server killed in the middle
(pg_ctl stop -m immediate: no shutdown checkpoint, recovery from the WAL on
restart), three times.  After each restart:
  - every batch is in readings whole or not at all, and exactly the batches
    with an arrival row are there (nothing half-applied);
  - every COMMIT a client saw acknowledged survived;
  - the results table equals segment_agg over all readings in processing
    order (arrival, ts, value, id: a statement runs its rows in ts, value order), and the states count every reading;
  - the stream then goes on from the recovered states.

Needs the extension installed (run-tests.sh installs it); the PostgreSQL
binaries come from PG_CONFIG's bindir.
    test/integration/maintain_crash.py
"""
import os
import random
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # nothing left in test/__pycache__
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/: sptest, pgcluster
from pgcluster import Fleet  # noqa: E402
from sptest import check, summary  # noqa: E402

SEED = int(os.environ.get("SEGPIPE_SEED", "20261130"))
SPEC = ('{"type": "Pipeline", "id": "daily_sum", "operators": [{"type": "CumulativeSum", "id": "sum"}], '
        '"late": "drop"}')
CLIENTS = 3
CRASHES = 3
T0 = 1772323200  # 2026-03-01 00:00 UTC
# every commit durable, as in production: what a client saw acknowledged must survive
DURABLE = {"fsync": "on", "synchronous_commit": "on", "full_page_writes": "on", "TimeZone": "UTC",
           "max_connections": "20"}


def stream(rng, client, first_batch, count):
    """Small transactions for overlapping sensors, some rows late, some repeated."""
    parts, sizes, sent = [], {}, []
    for j in range(count):
        b = first_batch + client * 1000000 + j
        base = T0 + (first_batch + j) * 1800 + rng.randrange(-900, 900)
        rows = []
        for _ in range(rng.choice([1, 3, 10, 40])):
            r = rng.random()
            if r < 0.05 and sent:
                row = rng.choice(sent[-20:])
            elif r < 0.1:
                row = (rng.randint(1, 4), base - rng.randint(3600, 86400), rng.randint(0, 400) / 4)
            else:
                row = (rng.randint(1, 4), base + rng.randrange(1800), rng.randint(0, 400) / 4)
            rows.append(row)
            sent.append(row)
        sizes[b] = len(rows)
        values = ", ".join(f"({b}, {s}, to_timestamp({t}), {v!r})" for s, t, v in rows)
        parts.append(f"BEGIN;\nINSERT INTO readings (batch, sensor_id, ts, v) VALUES {values};\n"
                     f"INSERT INTO arrival (batch) VALUES ({b});\nCOMMIT;\n\\echo acked {b}\n")
    return "".join(parts), sizes


def verify(c, sizes, acked, label):
    got = c.psql("SELECT a.batch, count(r.id) FROM arrival AS a LEFT JOIN readings AS r USING (batch) "
                 "GROUP BY a.batch", timeout=120)
    committed = {int(b): int(n) for b, n in (l.split("|") for l in got.splitlines())}
    present = {int(b) for b in c.psql("SELECT DISTINCT batch FROM readings", timeout=120).split()}
    check(present == set(committed), f"{label}: readings and arrivals disagree on the committed batches")
    check(all(n == sizes[b] for b, n in committed.items()), f"{label}: a batch is in readings in part")
    lost = acked - set(committed)
    check(not lost, f"{label}: acknowledged batches lost: {sorted(lost)[:5]}")
    diff, counted, results = c.psql(f"""
WITH whole AS (
  SELECT sensor_id, ts, k AS key, 1 AS port, v AS value
  FROM (SELECT r.sensor_id, r.ts,
               segment_key(r.v, r.ts::date) OVER w AS k,
               segment_agg(r.v, r.ts::date, '{SPEC}') OVER w AS v
        FROM (SELECT r.*, a.seq,
                     -- the late rule: a row earlier than what its sensor has processed
                     r.ts < max(r.ts) OVER (PARTITION BY r.sensor_id ORDER BY a.seq, r.ts, r.v, r.id
                                            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS late
              FROM readings AS r JOIN arrival AS a USING (batch)) AS r
        WHERE late IS NOT TRUE
        WINDOW w AS (PARTITION BY r.sensor_id ORDER BY r.seq, r.ts, r.v, r.id)) AS x
  WHERE v IS NOT NULL),
     got AS (SELECT sensor_id, ts, key, port, value FROM daily)
SELECT (SELECT count(*) FROM ((SELECT * FROM whole EXCEPT ALL SELECT * FROM got)
                             UNION ALL (SELECT * FROM got EXCEPT ALL SELECT * FROM whole)) AS d),
       (SELECT bool_and(pipeline_rows(s.state) + pipeline_late(s.state) =
                        (SELECT count(*) FROM readings AS r WHERE r.sensor_id = s.sensor_id))
        FROM daily_state AS s) IS NOT FALSE,
       (SELECT count(*) FROM got);""", timeout=120).split("|")
    print(f"{label}: {len(committed)} batches committed ({len(acked)} acknowledged before the kill), "
          f"{results} results, {diff} differing from the recomputation")
    check(diff == "0", f"{label}: the results differ from the recomputation in {diff} rows")
    check(counted == "t", f"{label}: the states do not count every reading")
    return len(committed)


def main():
    rng = random.Random(SEED)
    fleet = Fleet("crash")
    try:
        c = fleet.add("data", DURABLE)
        c.psql(f"""CREATE EXTENSION segpipe;
CREATE TABLE readings (id bigserial PRIMARY KEY, batch bigint NOT NULL, sensor_id int NOT NULL,
                       ts timestamptz NOT NULL, v float8);
CREATE TABLE arrival (seq bigserial PRIMARY KEY, batch bigint NOT NULL UNIQUE);
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', 'ts::date', '{SPEC}', 'daily', late => 'drop');""", timeout=120)
        sizes, acked, first = {}, set(), 0
        for n in range(CRASHES):
            procs, outs = [], []
            for k in range(CLIENTS):
                text, sz = stream(rng, k, first, 4000)
                sizes.update(sz)
                path = os.path.join(fleet.root, f"stream{n}-{k}.sql")
                with open(path, "w") as f:
                    f.write(text)
                out = os.path.join(fleet.root, f"stream{n}-{k}.out")
                outs.append(out)
                procs.append(subprocess.Popen(["psql", "-X", "-q", "-f", path, "-o", os.devnull],
                                              stdout=open(out, "w"), stderr=subprocess.DEVNULL, env=c.env()))
            first += 4000
            # let the clients run into the middle of their streams, then kill
            time.sleep(rng.uniform(1.5, 3.0))
            still = all(p.poll() is None for p in procs)
            c.crash()
            for p in procs:
                p.wait(timeout=60)
            check(still, f"crash {n + 1}: the clients had finished before the kill (streams too short)")
            for out in outs:
                acked |= {int(l.split()[1]) for l in open(out).read().splitlines() if l.startswith("acked ")}
            c.start()
            verify(c, sizes, acked, f"crash {n + 1}")
        # and the stream goes on from the recovered states
        text, sz = stream(rng, 0, first, 50)
        sizes.update(sz)
        path = os.path.join(fleet.root, "after.sql")
        with open(path, "w") as f:
            f.write(text)
        r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", path], capture_output=True,
                           text=True, env=c.env(), timeout=120)
        acked |= {int(l.split()[1]) for l in r.stdout.splitlines() if l.startswith("acked ")}
        check(r.returncode == 0, "inserts after the last restart failed: " + r.stderr[-500:])
        verify(c, sizes, acked, "after the restarts")
    finally:
        fleet.close()
    return summary("maintained on insert, crash and recovery")


if __name__ == "__main__":
    sys.exit(main())
