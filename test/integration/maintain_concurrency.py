#!/usr/bin/env python3
"""Maintained on insert, under concurrent inserters (docs/tour.md, "Maintained on insert").

Several psql clients insert interleaved batches into one readings table for
overlapping sensors, each batch in a transaction of its own that also
records its arrival: BEGIN; INSERT INTO readings ...; INSERT INTO arrival
...; COMMIT.  Batches carry rows out of timestamp order, late rows and the
same reading sent again.  The trigger locks the batch's sensors until
commit, so for any two committed batches that share a sensor, the one that
was processed first also took its arrival number first: ordering each
sensor's readings by (arrival, ts, value, id) is the order the trigger ran
them in (a statement runs its rows in ts, value order).

Afterwards, for each late policy ("drop": late rows counted; "error": a batch
with a late row fails as a whole; "correct": a late row runs its sensor
again, so that the results are those of a run over all readings in ts,
value order, whatever the arrival):
  - the committed batches are exactly the batches present in readings, whole;
  - which rows the policy accepts is worked out here from the rule (a row
    earlier than what its sensor has processed is late), and the results
    table equals segment_agg over the accepted rows in that order;
  - pipeline_rows() + pipeline_late() account for every reading of each
    sensor, and pipeline_late() equals the late rows found here;
  - the only errors the clients saw are late rows (under "error") and
    nothing ever deadlocked.
The spec is an hour's sum, so a row counted twice or lost changes a result.

Connection settings come from the environment (pg_virtualenv).
    test/integration/maintain_concurrency.py [clients] [batches per client]
"""
import os
import random
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # nothing left in test/__pycache__
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/: sptest, pgcluster
from sptest import check, summary  # noqa: E402
import sptest  # noqa: E402

DB = "segpipe_maintain_conc"
SEED = int(os.environ.get("SEGPIPE_SEED", "20261130"))
CLIENTS = int(sys.argv[1]) if len(sys.argv) > 1 else 6
BATCHES = int(sys.argv[2]) if len(sys.argv) > 2 else 60
SENSORS = 5
T0 = 1772323200  # 2026-03-01 00:00 UTC


def psql(sql):
    return sptest.psql(sql, DB, "maintain_concurrency", timeout=300)


def spec(policy):
    # under late => 'correct' the pipeline never meets a late row: its own
    # "late" is the default
    return ('{"type": "Pipeline", "id": "hourly_sum", "operators": [{"type": "CumulativeSum", "id": "sum"}], '
            f'"late": "{"error" if policy == "correct" else policy}"}}')


def client_batches(rng, client, late_share):
    """This client's batches: (batch id, number of rows, the INSERT statement).

    Timestamps come from the server's clock, one real second for six hours
    from the start, less up to ten seconds: clients that run side by side send
    neighbouring timestamps, interleaved, and the key (the hour) turns over.  Some
    rows are late on purpose (hours behind the clock), and some batches send
    a reading of an earlier batch of this client again (same sensor, ts and
    value), in the same statement."""
    out = []
    for j in range(BATCHES):
        batch_id = client * 100000 + j
        values = []
        for _ in range(rng.choice([1, 1, 2, 5, 20, 60])):
            behind = rng.randint(600, 7200) if rng.random() < late_share else rng.randrange(10)
            values.append(f"({batch_id}, {rng.randint(1, SENSORS)}, "
                          f"clock - make_interval(secs => {behind}), {rng.randint(0, 1000) / 4!r})")
        again = ""
        if j > 0 and rng.random() < 0.15:
            earlier = client * 100000 + rng.randrange(j)
            again = (f"\nUNION ALL (SELECT {batch_id}, sensor_id, ts, v FROM readings "
                     f"WHERE batch = {earlier} ORDER BY id LIMIT 1)")
        stmt = ("INSERT INTO readings (batch, sensor_id, ts, v)\n"
                "SELECT b, s, t, v FROM (SELECT timestamptz '2026-03-01 00:00+00' + "
                "(clock_timestamp() - (SELECT started FROM clock)) * 21600 AS clock) AS c,\n"
                f"  LATERAL (VALUES {', '.join(values)}) AS r(b, s, t, v){again}")
        out.append((batch_id, stmt))
    return out


def script(batches):
    return "".join(f"BEGIN;\n{stmt};\nINSERT INTO arrival (batch) VALUES ({b});\nCOMMIT;\n"
                   for b, stmt in batches)


def run(policy, rng):
    label = f'"late": "{policy}"'
    subprocess.run(["dropdb", "--if-exists", DB], check=True, stderr=subprocess.DEVNULL)
    subprocess.run(["createdb", DB], check=True)
    psql(f"""CREATE EXTENSION segpipe;
CREATE TABLE readings (id bigserial PRIMARY KEY, batch int NOT NULL, sensor_id int NOT NULL,
                       ts timestamptz NOT NULL, v float8);
CREATE TABLE arrival (seq bigserial PRIMARY KEY, batch int NOT NULL UNIQUE);
CREATE TABLE clock AS SELECT clock_timestamp() AS started;
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', $$date_trunc('hour', ts)$$, '{spec(policy)}', 'hourly', late => '{policy}');""")
    plans = [client_batches(rng, c, 0.01 if policy == "error" else 0.06) for c in range(CLIENTS)]
    batches = [b for p in plans for b, _ in p]
    env = dict(os.environ, PGTZ="UTC", PGOPTIONS="-c lock_timeout=60s -c statement_timeout=60s")
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for n, plan in enumerate(plans):
            files.append((os.path.join(tmp, f"client{n}.sql"), os.path.join(tmp, f"client{n}.err")))
            with open(files[-1][0], "w") as f:
                f.write(script(plan))
        started = time.monotonic()
        # every client starts at once, each with its script in a file
        procs = [subprocess.Popen(["psql", "-X", "-q", "-d", DB, "-f", sql, "-o", os.devnull],
                                  stderr=open(err, "w"), env=env) for sql, err in files]
        for p in procs:
            try:
                p.wait(timeout=max(1, 240 - (time.monotonic() - started)))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                check(False, f"{label}: a client did not finish within 240 s")
        took = time.monotonic() - started
        errors = [l for _, err in files for l in open(err).read().splitlines()]
    kinds = {}
    for line in errors:
        if "ERROR:" in line:
            msg = line.split("ERROR:", 1)[1].strip()
            kind = ("late" if msg.endswith("is late") else
                    "aborted" if msg.startswith("current transaction is aborted") else msg)
            kinds[kind] = kinds.get(kind, 0) + 1
    expected_kinds = {"late", "aborted"} if policy == "error" else set()
    check(set(kinds) <= expected_kinds, f"{label}: unexpected errors {kinds}")
    check("deadlock detected" not in kinds, f"{label}: a deadlock")

    # committed batches, whole, and nothing else
    # a batch is one statement: in readings whole (it has its arrival) or not at all
    committed = {int(b) for b in psql("SELECT batch FROM arrival").split()}
    present = {int(b) for b in psql("SELECT DISTINCT batch FROM readings").split()}
    check(present == committed, f"{label}: batches in readings {sorted(present - committed)[:5]} "
          f"without an arrival, or the converse")
    refused = len(batches) - len(committed)

    # the late rule, sensor by sensor, in processing order
    # timestamps in microseconds, exactly
    rows = psql("SELECT r.id, r.sensor_id, (extract(epoch FROM r.ts) * 1000000)::bigint, a.seq "
                "FROM readings AS r JOIN arrival AS a USING (batch)")
    order = sorted((int(q), int(t), int(i), int(s)) for i, s, t, q in (l.split("|") for l in rows.splitlines()))
    progress, accepted, late = {}, [], {}
    for _, t, i, s in (order if policy != "correct" else []):
        if s in progress and t < progress[s]:
            late[s] = late.get(s, 0) + 1
        else:
            progress[s] = t
            accepted.append(i)
    if policy == "correct":
        # every committed reading counts, late or not, in ts and value order
        accepted = [i for _, _, i, _ in order]
        check(refused == 0, f"{label}: {refused} batches failed")
    elif policy == "error":
        check(not late, f"{label}: committed rows that the rule finds late: {late}")
        check(refused > 0, f"{label}: no batch was refused (the test should make some late)")
    else:
        check(sum(late.values()) > 0, f"{label}: no late row was dropped (the test should make some)")
        check(refused == 0, f"{label}: {refused} batches failed")

    ids = ",".join(f"({i})" for i in accepted) or "(0)"
    diff, results, counted = psql(f"""
CREATE TEMP TABLE accepted (id bigint PRIMARY KEY);
INSERT INTO accepted VALUES {ids};
WITH whole AS (
  SELECT sensor_id, ts, k AS key, 1 AS port, v AS value
  FROM (SELECT r.sensor_id, r.ts,
               segment_key(r.v, date_trunc('hour', r.ts)) OVER w AS k,
               segment_agg(r.v, date_trunc('hour', r.ts), '{spec(policy)}') OVER w AS v
        FROM readings AS r JOIN accepted USING (id) JOIN arrival AS a USING (batch)
        WINDOW w AS (PARTITION BY r.sensor_id ORDER BY {"" if policy == "correct" else "a.seq, "}r.ts, r.v, r.id)) AS x
  WHERE v IS NOT NULL),
     got AS (SELECT sensor_id, ts, key, port, value FROM hourly)
SELECT (SELECT count(*) FROM ((SELECT * FROM whole EXCEPT ALL SELECT * FROM got)
                             UNION ALL (SELECT * FROM got EXCEPT ALL SELECT * FROM whole)) AS d),
       (SELECT count(*) FROM got),
       (SELECT bool_and(pipeline_rows(s.state) + pipeline_late(s.state) =
                        (SELECT count(*) FROM readings AS r WHERE r.sensor_id = s.sensor_id))
        FROM hourly_state AS s);""").split("|")
    got_late = {int(s): int(n) for s, n in (l.split("|") for l in psql(
        "SELECT sensor_id, pipeline_late(state) FROM hourly_state WHERE pipeline_late(state) > 0").splitlines())}
    dups = psql("SELECT count(*) - count(DISTINCT (sensor_id, ts, v)) FROM readings")
    print(f"{label}: {CLIENTS} clients, {len(batches)} batches in {took:.1f} s; "
          f"{len(committed)} committed, {refused} refused; {len(order)} readings, {dups} repeated, "
          f"{sum(late.values())} late; {results} results, {diff} differing from the recomputation")
    check(diff == "0", f"{label}: the results table differs from segment_agg over the accepted rows in {diff} rows")
    check(got_late == late, f"{label}: pipeline_late() says {got_late}, the rule says {late}")
    check(counted == "t", f"{label}: pipeline_rows() + pipeline_late() do not account for every reading")
    if policy == "drop":
        # (under "error" a reading sent again is mostly late, and its batch refused)
        check(int(dups) > 0, f"{label}: no reading was repeated (the test should repeat some)")
    check(int(results) > 0, f"{label}: no results at all")



def catalog_row_reused():
    """A session that cached a catalog row goes on right when another session
    ends that set-up and a new one takes the same id for other readings: the
    catalog's writes invalidate what every session cached of it (else the
    first session's trigger on the new readings would find the old row's
    readings and refuse)."""
    psql("CREATE TABLE ca (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);\n"
         "CREATE TABLE cb (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);\n"
         "SELECT segpipe_maintain('ca', 'sensor', 'ts', 'v', 'ts::date', '{\"type\": \"MaxTracker\"}', 'cra');")
    first = psql("SELECT id FROM segpipe_catalog WHERE results = 'cra'::regclass")
    keeper = subprocess.Popen(["psql", "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-d", DB],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    keeper.stdin.write("INSERT INTO ca VALUES (1, '2026-03-01 08:00+00', 1);\nSELECT 'cached';\n")
    keeper.stdin.flush()
    check(keeper.stdout.readline().strip() == "cached", "the keeping session's first insert failed")
    psql("SELECT segpipe_unmaintain('cra', true);\n"
         "SELECT segpipe_maintain('cb', 'sensor', 'ts', 'v', 'ts::date', '{\"type\": \"MaxTracker\"}', 'crb');")
    again = psql("SELECT id FROM segpipe_catalog WHERE results = 'crb'::regclass")
    check(again == first, f"the new set-up took id {again}, not the freed {first}: the test does not reuse an id")
    out, _ = keeper.communicate("INSERT INTO cb VALUES (1, '2026-03-01 08:00+00', 1), (1, '2026-03-02 08:00+00', 2);\n"
                                "SELECT count(*), min(value) FROM crb;\n", timeout=60)
    check(keeper.returncode == 0 and out.strip() == "1|1",
          f"the session that cached row {first} did not maintain the new set-up of that id: {out.strip()!r}")
    psql("SELECT segpipe_unmaintain('crb', true);\nDROP TABLE ca, cb;")


def main():
    rng = random.Random(SEED)
    for policy in ("drop", "error", "correct"):
        run(policy, rng)
    catalog_row_reused()
    subprocess.run(["dropdb", DB], check=True)
    return summary("maintained on insert, concurrent inserters")


if __name__ == "__main__":
    sys.exit(main())
