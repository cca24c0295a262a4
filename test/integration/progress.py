#!/usr/bin/env python3
"""Long maintenance work says how far it is (docs/reference.md, "Maintained results").

segpipe_maintain over 4,000 sensors of 1,000 readings each (4 million readings, some 10 s of
work here) must print, while it runs, NOTICEs

    res: D of 4000 sensors and R of 4000000 readings run again, about S s left
    DETAIL:  T s so far.

each arriving at least 5 s after the previous one (read as psql prints them, timed on
arrival), with D a multiple of the batch of 256 below 4000, R exactly 1,000 x D (each sensor
has 1,000 readings), T growing, and S a plausible estimate (at most ten times the time so far
per part done); and then the right result.  A rebuild of 50 sensors, done in well under 5 s,
prints none.

Runs in the cluster of PGHOST/PGPORT/PGUSER (a superuser), in a database of its own, dropped
at the end.  Ends with "progress of long work: N passed, M failed".
"""
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sptest import check, psql, summary  # noqa: E402

WHO = "progress"
DB = "segpipe_progress"
SENSORS = 4000
PER_SENSOR = 1000
NOTICE = re.compile(r"^NOTICE:  res: (\d+) of (\d+) sensors and (\d+) of (\d+) readings run again, "
                    r"about (\d+) s left$")
DETAIL = re.compile(r"^DETAIL:  (\d+) s so far\.$")


def timed_notices(sql):
    """Runs sql in DB with psql; returns (stdout, [(arrival in s, stderr line)])."""
    p = subprocess.Popen(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", DB, "-c", sql],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, PGTZ="UTC"))
    start = time.monotonic()
    lines = []
    for line in p.stderr:
        lines.append((time.monotonic() - start, line.rstrip("\n")))
    out = p.stdout.read()
    check(p.wait() == 0, f"{sql}: exit status {p.returncode}; {lines}")
    return out.strip(), lines


def main():
    psql(f"DROP DATABASE IF EXISTS {DB};\nCREATE DATABASE {DB};", "postgres", WHO)
    psql(f"""CREATE EXTENSION segpipe;
SET synchronous_commit = off;
CREATE TABLE r (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
INSERT INTO r SELECT s, '2026-01-01'::timestamptz + g * interval '1 minute', (g * 7 + s) % 101
FROM generate_series(1, {SENSORS}) AS s, generate_series(1, {PER_SENSOR}) AS g;
ANALYZE r;""", DB, WHO)
    out, lines = timed_notices("SELECT segpipe_maintain('r', 'sensor', 'ts', 'v', "
                               "'date_trunc(''day'', ts, ''UTC'')', '{\"type\": \"MaxTracker\"}', 'res')")
    check(out == str(SENSORS * PER_SENSOR), f"segpipe_maintain returns the readings it ran ({out})")
    notices = []
    for i, (at, line) in enumerate(lines):
        m = NOTICE.match(line)
        if m:
            d = DETAIL.match(lines[i + 1][1]) if i + 1 < len(lines) else None
            notices.append((at, *map(int, m.groups()), int(d.group(1)) if d else None))
    check(len(notices) >= 1, f"a set-up of about 10 s says how far it is: {[l for _, l in lines]}")
    prev_at = prev_done = prev_so_far = None
    for at, done, sensors, readings, total, left, so_far in notices:
        check(sensors == SENSORS and total == SENSORS * PER_SENSOR,
              f"the totals are the sensors and readings to run ({sensors}, {total})")
        check(done % 256 == 0 and 0 < done < SENSORS, f"sensors done in whole batches, not all ({done})")
        check(readings == done * PER_SENSOR, f"readings done are those of the sensors done ({readings}, {done})")
        check(so_far is not None and so_far >= 5, f"a DETAIL with the time so far, 5 s or more ({so_far})")
        if so_far is not None:
            check(left <= 10 * so_far * SENSORS / done, f"an estimate of what is left ({left} s after {so_far} s)")
        if prev_at is not None:
            check(at - prev_at >= 4.5, f"reports at most every 5 s ({prev_at:.1f} s, then {at:.1f} s)")
            check(done > prev_done and so_far >= prev_so_far, "each report further than the one before")
        prev_at, prev_done, prev_so_far = at, done, so_far
    check(len(lines) == 2 * len(notices), f"nothing else is said: {[l for _, l in lines]}")
    got = psql("SELECT count(*), sum(value) FROM res;", DB, WHO)
    want = psql("SELECT count(*), sum(m) FROM (SELECT sensor, date_trunc('day', ts, 'UTC') AS d, max(v) AS m "
                "FROM r GROUP BY 1, 2) AS g, (SELECT sensor, max(date_trunc('day', ts, 'UTC')) AS last "
                "FROM r GROUP BY 1) AS l WHERE g.sensor = l.sensor AND g.d < l.last;", DB, WHO)
    check(got == want, f"the results are each closed day's maximum ({got}, expected {want})")
    out, lines = timed_notices("SELECT segpipe_rebuild('res', ARRAY(SELECT generate_series(1, 50)))")
    check(out == "50" and lines == [], f"a rebuild of 50 sensors says nothing ({out}, {lines})")
    psql(f"DROP DATABASE {DB};", "postgres", WHO)
    return summary("progress of long work")


if __name__ == "__main__":
    sys.exit(main())
