#!/usr/bin/env python3
"""Maintained on insert, through a crash (README "Maintained on insert").

A cluster of its own (initdb in a mktemp directory, as the postgres user when
run as root; removed afterwards): readings maintained by segpipe_maintain(),
three psql clients streaming small transactions (BEGIN; INSERT INTO readings
...; INSERT INTO arrival ...; COMMIT), and the server killed in the middle
(pg_ctl stop -m immediate: no shutdown checkpoint, recovery from the WAL on
restart), three times.  After each restart:
  - every batch is in readings whole or not at all, and exactly the batches
    with an arrival row are there (nothing half-applied);
  - every COMMIT a client saw acknowledged survived;
  - the results table equals segment_agg over all readings in processing
    order (arrival, ts, id), and the states count every reading;
  - the stream then goes on from the recovered states.

Needs the extension installed (run-tests.sh installs it); the PostgreSQL
binaries come from PG_CONFIG's bindir.
    test/maintain_crash.py
"""
import os
import pwd
import random
import shutil
import subprocess
import sys
import tempfile
import time

SEED = int(os.environ.get("SEGPIPE_SEED", "20261130"))
PG_CONFIG = os.environ.get("PG_CONFIG", "/usr/lib/postgresql/15/bin/pg_config")
BINDIR = subprocess.run([PG_CONFIG, "--bindir"], capture_output=True, text=True, check=True).stdout.strip()
SPEC = ('{"type": "Pipeline", "id": "daily_sum", "operators": [{"type": "CumulativeSum", "id": "sum"}], '
        '"late": "drop"}')
CLIENTS = 3
CRASHES = 3
T0 = 1772323200  # 2026-03-01 00:00 UTC
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAILED: " + what, file=sys.stderr)


class Cluster:
    """A throwaway cluster on a Unix socket in its own directory."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="segpipe-crash-")
        self.data = os.path.join(self.dir, "data")
        self.user = None
        if os.getuid() == 0:
            # the server refuses to run as root
            self.user = pwd.getpwnam("postgres")
            os.chown(self.dir, self.user.pw_uid, self.user.pw_gid)
        self.port = "5432"
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        self.env.update(PGHOST=self.dir, PGPORT=self.port, PGUSER="postgres", PGDATABASE="postgres", PGTZ="UTC")

    def run(self, *args, check_rc=True, **kw):
        cmd = list(args)
        if self.user:
            cmd = ["runuser", "-u", "postgres", "--"] + cmd
        r = subprocess.run(cmd, env=self.env, capture_output=True, text=True, **kw)
        if check_rc and r.returncode != 0:
            raise RuntimeError(f"{' '.join(args)}: {r.stdout[-2000:]}{r.stderr[-2000:]}")
        return r

    def init(self):
        self.run(os.path.join(BINDIR, "initdb"), "-D", self.data, "-U", "postgres", "-A", "trust",
                 "--no-sync", "-E", "UTF8", "--locale=C")
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.write(f"listen_addresses = ''\nunix_socket_directories = '{self.dir}'\nport = {self.port}\n"
                    "fsync = on\nsynchronous_commit = on\nmax_connections = 20\n")
        self.start()

    def start(self):
        self.run(os.path.join(BINDIR, "pg_ctl"), "-D", self.data, "-l", os.path.join(self.dir, "log"),
                 "-w", "-t", "60", "start")

    def kill(self):
        self.run(os.path.join(BINDIR, "pg_ctl"), "-D", self.data, "-m", "immediate", "-w", "stop")

    def remove(self):
        if os.path.exists(os.path.join(self.data, "postmaster.pid")):
            self.run(os.path.join(BINDIR, "pg_ctl"), "-D", self.data, "-m", "immediate", "-w", "stop",
                     check_rc=False)
        shutil.rmtree(self.dir, ignore_errors=True)

    def psql(self, sql):
        r = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1"], input=sql,
                           capture_output=True, text=True, env=self.env, timeout=120)
        if r.returncode != 0:
            raise RuntimeError("psql: " + r.stderr[-3000:])
        return r.stdout.strip()


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
                 "GROUP BY a.batch")
    committed = {int(b): int(n) for b, n in (l.split("|") for l in got.splitlines())}
    present = {int(b) for b in c.psql("SELECT DISTINCT batch FROM readings").split()}
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
                     r.ts < max(r.ts) OVER (PARTITION BY r.sensor_id ORDER BY a.seq, r.ts, r.id
                                            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS late
              FROM readings AS r JOIN arrival AS a USING (batch)) AS r
        WHERE late IS NOT TRUE
        WINDOW w AS (PARTITION BY r.sensor_id ORDER BY r.seq, r.ts, r.id)) AS x
  WHERE v IS NOT NULL),
     got AS (SELECT sensor_id, ts, key, port, value FROM daily)
SELECT (SELECT count(*) FROM ((SELECT * FROM whole EXCEPT ALL SELECT * FROM got)
                             UNION ALL (SELECT * FROM got EXCEPT ALL SELECT * FROM whole)) AS d),
       (SELECT bool_and(pipeline_rows(s.state) + pipeline_late(s.state) =
                        (SELECT count(*) FROM readings AS r WHERE r.sensor_id = s.sensor_id))
        FROM daily_state AS s) IS NOT FALSE,
       (SELECT count(*) FROM got);""").split("|")
    print(f"{label}: {len(committed)} batches committed ({len(acked)} acknowledged before the kill), "
          f"{results} results, {diff} differing from the recomputation")
    check(diff == "0", f"{label}: the results differ from the recomputation in {diff} rows")
    check(counted == "t", f"{label}: the states do not count every reading")
    return len(committed)


def main():
    rng = random.Random(SEED)
    c = Cluster()
    try:
        c.init()
        c.psql(f"""CREATE EXTENSION segpipe;
CREATE TABLE readings (id bigserial PRIMARY KEY, batch bigint NOT NULL, sensor_id int NOT NULL,
                       ts timestamptz NOT NULL, v float8);
CREATE TABLE arrival (seq bigserial PRIMARY KEY, batch bigint NOT NULL UNIQUE);
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', 'ts::date', '{SPEC}', 'daily');""")
        sizes, acked, first = {}, set(), 0
        for n in range(CRASHES):
            procs, outs = [], []
            for k in range(CLIENTS):
                text, sz = stream(rng, k, first, 4000)
                sizes.update(sz)
                path = os.path.join(c.dir, f"stream{n}-{k}.sql")
                with open(path, "w") as f:
                    f.write(text)
                out = os.path.join(c.dir, f"stream{n}-{k}.out")
                outs.append(out)
                procs.append(subprocess.Popen(["psql", "-X", "-q", "-f", path, "-o", os.devnull],
                                              stdout=open(out, "w"), stderr=subprocess.DEVNULL, env=c.env))
            first += 4000
            # let the clients run into the middle of their streams, then kill
            time.sleep(rng.uniform(1.5, 3.0))
            still = all(p.poll() is None for p in procs)
            c.kill()
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
        path = os.path.join(c.dir, "after.sql")
        with open(path, "w") as f:
            f.write(text)
        r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", path], capture_output=True,
                           text=True, env=c.env, timeout=120)
        acked |= {int(l.split()[1]) for l in r.stdout.splitlines() if l.startswith("acked ")}
        check(r.returncode == 0, "inserts after the last restart failed: " + r.stderr[-500:])
        verify(c, sizes, acked, "after the restarts")
    finally:
        c.remove()
    print(f"maintained on insert, crash and recovery: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
