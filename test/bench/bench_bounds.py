#!/usr/bin/env python3
"""The time side of test/integration/bounds.py (see test/bench/bench.sh); a test
asserts no time, so these are measured and printed, never judged.

F3  Starting a partition and a segment under windows of 1,000,000: bounds.py's
    cases, segment_agg against row_number() over the same rows in the same
    session, median of alternating rounds, and the ratio (before the rings
    grew with the values held: 33 s against 0.15 s).
F4  Cancellation: with statement_timeout = 1 s, how long each long query
    takes to end, and how (57014, or a quick refusal of the text).  Every
    loop that can run long checks for interrupts, so each should end soon
    after 1 s; one that does not runs on to its end.

    test/bench/bench_bounds.py [rounds]      default 3

Connection settings come from the environment (pg_virtualenv); the role must
be a superuser (bounds.py reads the backend's peak with pg_read_file).
"""
import json
import os
import statistics
import subprocess
import sys

sys.dont_write_bytecode = True  # nothing left in test/integration/__pycache__
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "integration"))
from bounds import DB, MA, PEAK, WMM, chain, f3_cases, lit, mb, one, session, setup  # noqa: E402

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
TIMEOUT_MS = 1000                # F4's statement_timeout
HANG_MS = 600000                 # F3: the statement_timeout of a run that has hung

# F4's huge texts, built before the timed statements
TEXTS = f"""
CREATE TABLE huge_id AS
  SELECT replace('{{"type": "Identity", "id": "@"}}', '@', repeat(repeat('x', 1000), 120000)) AS s;
CREATE TABLE long_ids AS
  SELECT replace({lit(chain([{"type": "Identity"}] * 256, lambda i: f"@{i}"))}, '@', repeat('x', 200000)) AS s;
"""


def f3():
    print(f"F3: segment_agg against row_number() over the same rows, median of {ROUNDS} alternating rounds")
    for name, segment_q, baseline_q in f3_cases():
        steps = []
        for r in range(ROUNDS):
            pair = [("rn", baseline_q, HANG_MS, False), ("sa", segment_q, HANG_MS, False)]
            steps += pair if r % 2 == 0 else pair[::-1]
        s = session(steps)
        rn = [ms for st, ms in s.runs.get("rn", []) if st == "00000"]
        sa = [ms for st, ms in s.runs.get("sa", []) if st == "00000"]
        if len(rn) != ROUNDS or len(sa) != ROUNDS:
            print(f"  {name}: not every round ran: {s.runs}")
            continue
        base, seg = statistics.median(rn), statistics.median(sa)
        print(f"  {name}: segment_agg {seg:.0f} ms, row_number() {base:.0f} ms, x{seg / base:.2f}")


def stream(spec, rows, key):
    return (f"SELECT count(x) AS n FROM (SELECT segment_agg(i::float8, {key}, {lit(spec)}) OVER () AS x "
            f"FROM (SELECT generate_series(1, {rows}) AS i) AS g) AS s")


def cancel_case(name, sql):
    s = session([("q", sql, TIMEOUT_MS, False)])
    st, ms = one(s, "q")
    how = "did not run" if st is None else f"{st} after {ms:.0f} ms" if ms is not None else st
    print(f"  {name}: {how}, peak +{mb(s.grew_kb())}" + ("" if s.ended else ", session lost"))


def f4():
    print(f"F4: cancellation: statement_timeout = {TIMEOUT_MS} ms; how long each query takes to end")
    cancel_case("MovingAverage(1000000), 50,000,000 rows in one segment", stream(json.dumps(MA), 50_000_000, 0))
    cancel_case("WindowMinMax(1000000), 50,000,000 rows in one segment", stream(json.dumps(WMM), 50_000_000, 0))
    cancel_case("PeakDetector(999999), 50,000,000 rows in one segment", stream(json.dumps(PEAK), 50_000_000, 0))
    cancel_case("MovingAverage(1000000), 100,000,000 one-row segments", stream(json.dumps(MA), 100_000_000, "i"))
    fir = {"type": "FiniteImpulseResponse", "coeff": [1] * 4096}
    big = chain([fir] * 128)
    cancel_case(f"cast of a valid {len(big) // 1000} kB spec (128 x FIR of 4096 taps), 100,000 times",
                f"SELECT count(s::pipeline) AS n FROM generate_series(1, 100000), "
                f"(SELECT {lit(big)}::text OFFSET 0) AS t(s)")
    # One cast of a huge text: the cast runs once, so only checks inside the
    # reader and the writer can stop it (or a quick refusal: a cap on the
    # text, 54000, or on an id's length, 22023).
    cancel_case("one cast of a spec whose id is 120 MB", "SELECT length(s::pipeline::text) AS n FROM huge_id")
    cancel_case("one cast of 256 operators whose 200 kB ids differ only at the end",
                "SELECT length(s::pipeline::text) AS n FROM long_ids")


def main():
    setup(TEXTS)
    try:
        f3()
        f4()
    finally:
        subprocess.run(["dropdb", "--if-exists", "--force", DB], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
