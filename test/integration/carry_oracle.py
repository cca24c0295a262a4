#!/usr/bin/env python3
"""Carried values against an oracle written from the rules (docs/reference.md,
"Carried values"): each local day of Europe/Berlin is a segment, and the
time operators with "carry" give the signal over exactly [start, end) of it.

Random irregular readings (CARRY_STREAMS streams, default 60; CARRY_SEED)
over the seven local days around a change of offset (2026-03-29 has 23
hours, 2026-10-25 has 25), some days without readings, equal timestamps,
zeros among the values (DurationTrue's false), counters that reset.  Two
forms of edges, both through pipeline_agg and emissions():
  heartbeats: a punctuation row at every local midnight, keyed by the day
      it opens: each day is [midnight, next midnight), and with "fill" a day
      without readings emits what the carried signal gives;
  rows: no heartbeats: a day's segment is closed by the next day's first
      reading and ends there (a day without readings has no segment), the
      last one by flush(p, end).
The oracle integrates, with fractions, the signal the rule defines: a
reading holds until the next (locf); under "linear" the line from each
point to the next (trapezoids; of rows at one timestamp the last carries
on), the segment's start being a point with the carried value, and its end
the closing row's reading when a reading closes it (else the value held
flat to the edge).  The first segment starts at its first reading (nothing
is carried into it).

Passing means: every day's value equals the oracle's exactly for Integral
and DurationTrue (unit 1 microsecond: the areas are sums of exact dyadic
products), CounterIncrease and the sums below; TimeWeightedAverage, a
division of the exact area by the span, within 1 ulp of the exact quotient;
CounterRate, which divides the increase by the span in units (itself a
rounded quotient: two roundings), within 2 (the largest deviations seen are
printed); the
same days emit; and the days add up, exactly, to the whole span run as one
segment (flushed at the end).  With units of a second the areas are divided
by 1e6, which rounds: days add up there only to the rounding of each day.
"""
import datetime
import math
import os
import random
import sys
from fractions import Fraction
from zoneinfo import ZoneInfo

sys.dont_write_bytecode = True  # nothing left in test/__pycache__
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/: sptest
from sptest import check, summary, psql  # noqa: E402

DB = "segpipe_carry_oracle"
STREAMS = int(os.environ.get("CARRY_STREAMS", "60"))
SEED = int(os.environ.get("CARRY_SEED", "20261204"))
BERLIN = ZoneInfo("Europe/Berlin")
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
US = 1_000_000

OPS = {
    "twa_locf": '{"type": "TimeWeightedAverage", "method": "locf", "carry": "locf"}',
    "twa_linear": '{"type": "TimeWeightedAverage", "method": "linear", "carry": "linear"}',
    "integral": '{"type": "Integral", "unit": "00:00:00.000001", "carry": "linear"}',
    "on": '{"type": "DurationTrue", "unit": "00:00:00.000001", "carry": "locf"}',
    "counter": '{"type": "CounterIncrease", "carry": "locf"}',
    "rate": '{"type": "CounterRate", "unit": "1 hour", "carry": "locf"}',
}
COUNTERS = ("counter", "rate")


def midnight_us(day):
    local = datetime.datetime(day.year, day.month, day.day, tzinfo=BERLIN)
    return (local - EPOCH) // datetime.timedelta(microseconds=1)


def stream(rng):
    first = datetime.date(2026, 3, 26) if rng.random() < 0.5 else datetime.date(2026, 10, 22)
    days = [first + datetime.timedelta(days=d) for d in range(8)]
    mids = [midnight_us(d) for d in days]     # mids[7]: the end of the seventh day
    readings, counters = [], []
    c = Fraction(rng.randint(0, 100))
    for d in range(7):
        if rng.random() < 0.3:
            continue
        ts = sorted(rng.randrange(mids[d], mids[d + 1]) for _ in range(rng.randint(1, 6)))
        if rng.random() < 0.3:
            ts.insert(rng.randrange(len(ts)), ts[rng.randrange(len(ts))])   # a tie
            ts.sort()
        for t in ts:
            v = Fraction(0) if rng.random() < 0.3 else Fraction(rng.randint(-40, 40), 4)
            readings.append((t, v, days[d]))
            c = Fraction(rng.randint(0, 20)) if rng.random() < 0.1 else c + Fraction(rng.randint(0, 16), 4)
            counters.append((t, c, days[d]))
    return days, mids, readings, counters


def area(points, end, linear, x_end):
    """The area under the points' signal from the first point to end, the value
    at end x_end when a reading closes the segment (linear) or None."""
    a = Fraction(0)
    for (t0, x0), (t1, x1) in zip(points, points[1:]):
        if t1 > t0:
            a += (x0 + x1) / 2 * (t1 - t0) if linear else x0 * (t1 - t0)
    t, x = points[-1]
    if end > t:
        a += (x + x_end) / 2 * (end - t) if linear and x_end is not None else x * (end - t)
    return a


def oracle(kind, segments):
    """segments: (key, start, end, carried value or None, [(t, v)], closing reading or None)."""
    out = {}
    for key, start, end, carried, rows, closing in segments:
        if carried is not None and kind in ("twa_linear", "integral") and rows and rows[0][0] == start:
            carried = rows[0][1]    # the line reached the closing reading at the edge
        pts = ([(start, carried)] if carried is not None else []) + rows
        if not pts:
            continue
        if kind == "on":
            pts = [(t, Fraction(int(x != 0))) for t, x in pts]
            out[key] = area(pts, end, False, None)
        elif kind in COUNTERS:
            inc = Fraction(0)
            for (_, a), (_, b) in zip(pts, pts[1:]):
                inc += b if b < a else b - a
            out[key] = inc if kind == "counter" else inc / (Fraction(end - pts[0][0]) / (3600 * US))
        else:
            linear = kind != "twa_locf"
            a = area(pts, end, linear, closing)
            out[key] = a if kind == "integral" else a / (end - pts[0][0])
    return out


def segments_of(mids, days, rows, heartbeats, fill):
    """The segments the rule makes of rows, with what each carries in."""
    segs = []
    carried = None
    if heartbeats:
        for d in range(7):
            mine = [(t, v) for t, v, k in rows if k == days[d]]
            start = mids[d]
            if carried is None and mine:
                start = mine[0][0]
            if mine or (fill and carried is not None):
                segs.append((days[d], start, mids[d + 1], carried, mine, None))
            if mine:
                carried = mine[-1][1]
        return segs
    keys = sorted({k for _, _, k in rows})
    start = None
    for i, k in enumerate(keys):
        mine = [(t, v) for t, v, kk in rows if kk == k]
        if i + 1 < len(keys):
            nxt = [(t, v) for t, v, kk in rows if kk == keys[i + 1]][0]
            end, closing = nxt
        else:
            end, closing = mids[7], None
        segs.append((k, start if start is not None else mine[0][0], end, carried, mine, closing))
        # the value at the edge is the closing reading's; under locf the
        # reading before it is what holds up to the edge (a counter's jump at
        # the edge is the next segment's)
        carried = mine[-1][1]
        segs[-1] = segs[-1][:5] + (closing,)
        start = end
    return segs


def ulps(got, want):
    if want == 0:
        return 0 if got == 0 else math.inf
    w = float(want)
    return abs(Fraction(got) - want) / Fraction(math.ulp(w))


def main():
    rng = random.Random(SEED)
    data = [stream(rng) for _ in range(STREAMS)]
    psql(f"DROP DATABASE IF EXISTS {DB}", "postgres", "carry_oracle")
    psql(f"CREATE DATABASE {DB}", "postgres", "carry_oracle")
    psql("CREATE EXTENSION segpipe", DB, "carry_oracle")
    lines = []
    for s, (days, mids, readings, counters) in enumerate(data):
        for series, rows in (("v", readings), ("c", counters)):
            for i, (t, v, k) in enumerate(rows):
                lines.append(f"{s}\t{series}\t{i * 2 + 1}\t{t}\t{float(v)!r}\t{k}\n")
            for d in range(8):     # heartbeats: ordered before a reading at the same instant
                lines.append(f"{s}\t{series}h\t{0}\t{mids[d]}\t\\N\t{days[d]}\n")
    psql("CREATE TABLE r (s int, series text, i int, us bigint, v float8, k date);\n"
         "COPY r FROM STDIN;\n" + "".join(lines) + "\\.\n"
         "CREATE TABLE ends (s int, us bigint);", DB, "carry_oracle")
    psql("INSERT INTO ends VALUES " + ", ".join(f"({s}, {d[1][7]})" for s, d in enumerate(data)),
         DB, "carry_oracle")
    specs = ", ".join(f"('{name}', '{spec}'::pipeline)" for name, spec in OPS.items()) + ", " + \
        ", ".join(f"('{name}_fill', '{spec[:-1]}, \"fill\": true}}'::pipeline)" for name, spec in OPS.items())
    # per form: (stream, op, key, value) of every emission
    q = f"""SET extra_float_digits = 3;
CREATE TABLE specs (name text, spec pipeline); INSERT INTO specs VALUES {specs};
CREATE FUNCTION t(us bigint) RETURNS timestamptz IMMUTABLE LANGUAGE sql
  AS $$ SELECT timestamptz 'epoch' + us * interval '1 microsecond' $$;
CREATE TABLE runs AS
SELECT r.s, sp.name, form, pipeline_agg(t(r.us), r.v, r.k, sp.spec ORDER BY r.us, r.i) AS p
FROM specs AS sp, (VALUES ('heartbeats'), ('rows')) AS f(form), r
WHERE left(r.series, 1) = (CASE WHEN split_part(sp.name, '_', 1) IN ('counter', 'rate') THEN 'c' ELSE 'v' END)
  AND (form = 'heartbeats' OR length(r.series) = 1)
GROUP BY r.s, sp.name, form;
"""
    psql(q, DB, "carry_oracle")
    # the whole span: every reading keyed alike, one segment flushed at the end
    out = psql("""SET extra_float_digits = 3;
WITH w AS (
  SELECT r.s, sp.name, pipeline_agg(t(r.us), r.v, 0, sp.spec ORDER BY r.us, r.i) AS p
  FROM specs AS sp, r
  WHERE r.v IS NOT NULL AND r.series = (CASE WHEN split_part(sp.name, '_', 1) IN ('counter', 'rate') THEN 'c' ELSE 'v' END)
  GROUP BY r.s, sp.name)
SELECT w.s, w.name, 'whole', e.key, e.value FROM w JOIN ends USING (s), emissions(flush(w.p, t(ends.us))) AS e
UNION ALL
SELECT x.s, x.name, x.form, e.key, e.value FROM runs AS x, emissions(x.p) AS e WHERE x.form = 'heartbeats'
UNION ALL
SELECT x.s, x.name, x.form, e.key, e.value FROM runs AS x JOIN ends USING (s),
  LATERAL (SELECT * FROM emissions(x.p) UNION ALL SELECT * FROM emissions(flush(x.p, t(ends.us)))) AS e
WHERE x.form = 'rows';""", DB, "carry_oracle")
    got = {}
    for line in out.splitlines():
        s, name, form, key, value = line.split("|")
        got.setdefault((int(s), name, form), {})[key] = Fraction(float(value))
    worst = {}
    for s, (days, mids, readings, counters) in enumerate(data):
        for name in OPS:
            kind = name
            rows = counters if kind in COUNTERS else readings
            for fill in (False, True):
                op = name + ("_fill" if fill else "")
                for form in ("heartbeats", "rows"):
                    want = oracle(kind, segments_of(mids, days, rows, form == "heartbeats", fill))
                    have = got.get((s, op, form), {})
                    want = {str(k): v for k, v in want.items()}
                    check(sorted(have) == sorted(want),
                          f"stream {s} {op} {form}: days {sorted(have)}, expected {sorted(want)}")
                    for k in want:
                        if k not in have:
                            continue
                        if kind in ("twa_locf", "twa_linear", "rate"):
                            u = ulps(have[k], want[k])
                            worst[kind] = max(worst.get(kind, 0), u)
                            check(u <= (2 if kind == "rate" else 1), f"stream {s} {op} {form} {k}: {float(have[k])!r}, "
                                  f"expected {float(want[k])!r} ({float(u)} ulp)")
                        else:
                            check(have[k] == want[k], f"stream {s} {op} {form} {k}: {float(have[k])!r}, "
                                  f"expected {want[k]} = {float(want[k])!r}")
                    # the days add up to the whole span, exactly
                    # (a day without a segment is missing from the sum but
                    # with fill; across a heartbeat the line is broken)
                    if kind in ("integral", "on", "counter") and rows and \
                            (form == "rows" or (fill and kind != "integral")):
                        whole = got.get((s, op, "whole"), {})
                        total = sum(have.values(), Fraction(0))
                        check(list(whole.values()) == [total],
                              f"stream {s} {op} {form}: days add up to {float(total)!r}, the whole "
                              f"span gives {[float(x) for x in whole.values()]}")
    print("largest deviation from the exact quotient, in ulps: " +
          ", ".join(f"{k} {float(v):.3f}" for k, v in sorted(worst.items())))
    psql(f"DROP DATABASE {DB}", "postgres", "carry_oracle")
    return summary("carry_oracle")


if __name__ == "__main__":
    sys.exit(main())
