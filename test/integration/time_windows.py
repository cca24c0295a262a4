#!/usr/bin/python3
"""Windows of time against pandas: MovingSum, MovingAverage,
StandardDeviation, WindowMinMax (min and max) and CountNumber with
"window": w give, on every row, what pandas' rolling(w, closed='right')
gives over the rows with timestamps in (t - w, t].

Random irregular series (TIME_SERIES of them, default 1000; TIME_SEED): 1 to
60 rows, gaps from 1 ms to hours (log-uniform), duplicates of timestamps,
gaps of exactly the window or a fraction of it (rows that land on the
window's open edge), values of magnitudes from 1e-3 to 1e6, NaN and
infinities in some series.  Each series runs through one pipeline of the six
operators in segment_agg(ts, value[], key, spec, close_at_end); every prefix
of a series is a partition of its own, so each row's outputs are those of
the prefix that ends with it.

Where pandas and segpipe define the same thing, pandas is the oracle:
segpipe counts NaN and infinities as float8 arithmetic does (a NaN in the
window makes sum, mean, standard deviation and max NaN; an Infinity is the
max), where pandas' rolling windows skip NaN and take infinities for NaN,
and the standard deviation of one value is 0 in segpipe (NaN in pandas).
So pandas gives, per window, the sum, mean and sample standard deviation of
the finite values (non-finite ones replaced by 0), the count of rows, of
NaN, of Infinity and of -Infinity, and min and max of the finite values,
and the rule above makes the expected value from them.

pandas slides its sums (adding the value that enters, removing the one that
leaves, with compensation), so after large values leave a window its sums
can keep their rounding; segpipe's sums are exact.  So the sums, means and
standard deviations are also computed exactly (fractions; the square root
to 50 digits), and passing means: every output of every row within 1e-12
relative of the exact value, and of pandas' unless pandas' own is further
than 1e-12 from the exact value (those rows are counted and reported);
counts, extremes and non-finite results exactly equal.  One check per
series.

Runs with the system's python3 (python3-pandas, test/setup.sh --tests).
"""
import decimal
import json
import math
from fractions import Fraction
import os
import random
import subprocess
import sys

import numpy as np
import pandas as pd

sys.dont_write_bytecode = True  # nothing left in test/__pycache__
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/
from sptest import check, summary, psql  # noqa: E402

DB = "segpipe_time_windows"
SERIES = int(os.environ.get("TIME_SERIES", "1000"))
SEED = int(os.environ.get("TIME_SEED", "20261201"))
REL = 1e-12
US = 1
MS = 1000
S = 1000 * MS
# the windows, as the spec spells them and in microseconds
WINDOWS = [("250 ms", 250 * MS), ("1 s", S), ("5 seconds", 5 * S), ("00:01:00", 60 * S),
           ("5 min", 300 * S), ("1 hour", 3600 * S), ("90 minutes", 5400 * S),
           ("0.0015 s", 1500 * US), ("1 day", 86400 * S)]
OPS = ["sum", "mean", "std", "min", "max", "count"]
BASE_NS = pd.Timestamp("2026-01-01 00:00:00", tz="UTC").value


def series(rng):
    label, w = rng.choice(WINDOWS)
    n = rng.randint(1, 60)
    nonfinite = rng.random() < 0.4
    scale = 10.0 ** rng.randint(-3, 6)
    mean = rng.choice([0.0, scale * rng.uniform(-3, 3)])
    t, ts, vs = 0, [], []
    for _ in range(n):
        r = rng.random()
        if r < 0.15:
            gap = 0                                         # a duplicate timestamp
        elif r < 0.3:
            gap = rng.choice([w, w // 2, w // 3, w - 1, w + 1])   # on and near the window's edge
        else:
            gap = int(math.exp(rng.uniform(math.log(MS), math.log(4 * 3600 * S))))
        t += gap if ts else 0
        ts.append(t)
        r = rng.random()
        if nonfinite and r < 0.06:
            vs.append(rng.choice([math.nan, math.nan, math.inf, -math.inf]))
        else:
            vs.append(rng.gauss(mean, scale))
    return label, w, ts, vs


def expected(w, ts, vs):
    """Per row: sum, mean, std, min, max, count as segpipe defines them."""
    idx = pd.to_datetime([BASE_NS + t * 1000 for t in ts], utc=True)
    v = pd.Series(vs, index=idx, dtype="float64")
    win = pd.Timedelta(microseconds=w)

    def roll(s):
        return s.rolling(win, closed="right")

    finite = v.where(np.isfinite(v), 0.0)
    rows = roll(pd.Series(1.0, index=idx)).sum()
    nan = roll(v.isna().astype(float)).sum()
    pinf = roll((v == math.inf).astype(float)).sum()
    ninf = roll((v == -math.inf).astype(float)).sum()
    fsum, fmean, fstd = roll(finite).sum(), roll(finite).mean(), roll(finite).std()
    vmin, vmax = roll(v).min(), roll(v).max()     # of the finite values: pandas takes inf for NaN
    out = []
    for i in range(len(ts)):
        n, has_nan, has_pinf, has_ninf = rows.iloc[i], nan.iloc[i] > 0, pinf.iloc[i] > 0, ninf.iloc[i] > 0
        if has_nan or (has_pinf and has_ninf):
            total = math.nan
        elif has_pinf:
            total = math.inf
        elif has_ninf:
            total = -math.inf
        else:
            total = None
        s = fsum.iloc[i] if total is None else total
        m = fmean.iloc[i] if total is None else total / n
        if has_nan or has_pinf or has_ninf:
            sd = math.nan
        elif n == 1:
            sd = 0.0
        else:
            sd = fstd.iloc[i]
        fmax, fmin = vmax.iloc[i], vmin.iloc[i]
        # float8 ordering: -Infinity < finite < Infinity < NaN; min skips NaN but for all-NaN
        mx = math.nan if has_nan else math.inf if has_pinf else fmax if not math.isnan(fmax) else -math.inf
        mn = (-math.inf if has_ninf else fmin if not math.isnan(fmin) else math.inf if has_pinf
              else math.nan)
        out.append([s, m, sd, mn, mx, n])
    return out


def exact(w, ts, vs):
    """Per row: sum, mean, standard deviation of the window's values, exactly
    (None where a non-finite value is in the window, or for the deviation of one value)."""
    out = []
    for i, t in enumerate(ts):
        win = [v for u, v in zip(ts[:i + 1], vs[:i + 1]) if u > t - w]
        if not all(math.isfinite(v) for v in win):
            out.append([None, None, None])
            continue
        xs = [Fraction(v) for v in win]
        n, s = len(xs), sum(xs)
        sd = None
        if n > 1:
            var = (sum(x * x for x in xs) - s * s / n) / (n - 1)
            sd = float((decimal.Decimal(var.numerator) / decimal.Decimal(var.denominator)).sqrt())
        out.append([float(s), float(s / n), sd])
    return out


def literal(v):
    """float8 input text, exact (repr is shortest round-trip)."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return repr(v)


def close(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= REL * max(abs(a), abs(b)) or a == b


def main():
    rng = random.Random(SEED)
    data = [series(rng) for _ in range(SERIES)]
    subprocess.run(["dropdb", "--if-exists", DB], check=True, stderr=subprocess.DEVNULL)
    subprocess.run(["createdb", DB], check=True)
    ids = ["sum", "mean", "std", "min", "max", "count"]
    types = {"sum": "MovingSum", "mean": "MovingAverage", "std": "StandardDeviation",
             "min": "WindowMinMax", "max": "WindowMinMax", "count": "CountNumber"}
    setup = ["CREATE EXTENSION segpipe;",
             "CREATE TABLE r (sid int, i int, us bigint, v float8);",
             "CREATE TABLE sp (sid int, n int, p pipeline);"]
    for sid, (label, w, ts, vs) in enumerate(data):
        ops = [{"id": "in", "type": "Identity"}] + [
            dict({"id": o, "type": types[o], "window": label},
                 **({"mode": o} if o in ("min", "max") else {})) for o in ids]
        spec = {"type": "Pipeline", "output_port_types": ["number"] * 6, "operators": ops,
                "connections": [{"from": "in", "to": o} for o in ids], "entryOperator": "in",
                "outputMappings": {o: {"o1": "o%d" % (k + 1)} for k, o in enumerate(ids)}}
        setup.append("INSERT INTO sp VALUES (%d, %d, '%s');" % (sid, len(ts), json.dumps(spec)))
        setup.append("INSERT INTO r VALUES " + ", ".join(
            "(%d, %d, %d, '%s')" % (sid, i + 1, t, literal(v)) for i, (t, v) in enumerate(zip(ts, vs))) + ";")
    psql("\n".join(setup), DB, "time windows")
    out = psql("""
SELECT sid, n, array_to_string(res, ' ') FROM (
  SELECT r.sid, g.n, segment_agg(timestamptz '2026-01-01 00:00:00+00' + r.us * interval '1 microsecond',
                                 ARRAY[r.v], 1, sp.p, true) OVER (PARTITION BY r.sid, g.n ORDER BY r.i) AS res
  FROM r JOIN sp USING (sid), generate_series(r.i, sp.n) AS g(n)) AS q
WHERE res IS NOT NULL ORDER BY sid, n;""", DB, "time windows")
    got = {}
    for line in out.splitlines():
        sid, n, vals = line.split("|")
        got.setdefault(int(sid), {})[int(n)] = [float(x) for x in vals.split(" ")]
    decimal.getcontext().prec = 50
    worst = {o: 0.0 for o in OPS}
    worst_exact = {o: 0.0 for o in OPS[:3]}
    rows = pandas_off = 0
    for sid, (label, w, ts, vs) in enumerate(data):
        exp, ex = expected(w, ts, vs), exact(w, ts, vs)
        bad = None
        for i, e in enumerate(exp):
            rows += 1
            g = got.get(sid, {}).get(i + 1)
            if g is None:
                bad = f"row {i + 1}: no output"
                break
            for k, o in enumerate(OPS):
                a, b = g[k], e[k]
                if math.isfinite(a) and math.isfinite(b) and max(abs(a), abs(b)) > 0:
                    worst[o] = max(worst[o], abs(a - b) / max(abs(a), abs(b)))
                if o in ("min", "max", "count") or ex[i][k] is None:
                    ok = a == b or (math.isnan(a) and math.isnan(b))
                    if o == "std" and ex[i][k] is None and e[0] is not None and math.isfinite(e[0]):
                        ok = a == b     # one value: 0
                else:
                    x = ex[i][k]
                    if math.isfinite(a) and a != x:
                        worst_exact[o] = max(worst_exact[o], abs(a - x) / max(abs(a), abs(x)))
                    ok = close(a, x) and (close(a, b) or not close(b, x))
                    if ok and not close(a, b):
                        pandas_off += 1
                if not ok:
                    bad = bad or f"row {i + 1} {o}: segpipe {a!r}, pandas {b!r}, exact {ex[i][k]!r}"
        check(bad is None, f"series {sid} (window {label}, {len(ts)} rows): {bad}")
    print(f"time windows: {SERIES} series, {rows} rows; largest relative differences from pandas: "
          + ", ".join(f"{o} {worst[o]:.1e}" for o in OPS)
          + "; from the exact values: " + ", ".join(f"{o} {worst_exact[o]:.1e}" for o in OPS[:3])
          + f"; outputs where pandas is further than {REL:g} from the exact value: {pandas_off}")
    subprocess.run(["dropdb", DB], check=True)
    return summary("time windows")


if __name__ == "__main__":
    sys.exit(main())
