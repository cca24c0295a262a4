#!/usr/bin/env python3
"""segpipe's work, counted in instructions rather than timed: a count is exact
and the same on every run, where time on a shared machine is not.

The code the server runs is built outside it (test/fuzz/standalone/work.c,
against the stand-ins of shim.c and shim_state.c, gcc -O2) and run under
valgrind's callgrind, which counts the instructions executed inside one
function of it.  Checks:

  - Reading a spec is linear in its text (src/sp_spec.h says so): each
    family of hostile texts of test/integration/spec_memory.py, built by the
    server at W and 2W units, is read as the type's text input reads it;
    instructions(2W) <= 2.1 x instructions(W) (a linear reader stays at 2 or
    just under, its fixed costs being shared; one that grows as n log n or
    faster goes over: made quadratic on purpose, by a scan back over the text
    per number, it gave 2.71), and the outcome is the expected one.
  - Starting a partition and a segment costs what the rows need, not what
    the window could hold: partitions begun as segment_agg begins them, under
    windows of 1,000,000, take at most 1.5 x the instructions of the same
    pipeline with windows of 10 (rings allocated and zeroed to their limit
    took 5,600 times as many, made so on purpose).

Runs inside pg_virtualenv (the server builds the texts; segpipe need not be
installed).  Needs gcc and valgrind.  Ends with "work: N passed, M failed".
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # nothing left in __pycache__
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/: sptest
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # spec_memory's families
from sptest import ROOT, check, summary  # noqa: E402
from spec_memory import CASES  # noqa: E402

LINEAR = 2.1            # bound on instructions(2W) / instructions(W)
WINDOWLESS = 1.5        # bound on instructions(window 1,000,000) / instructions(window 10)


def ops(window):
    ma = {"type": "MovingAverage", "window_size": window}
    wmm = {"type": "WindowMinMax", "window_size": window, "mode": "max"}
    peak = {"type": "PeakDetector", "window_size": window - 1}
    return ma, wmm, peak


def chain(ops_):
    ids = [f"w{i + 1}" for i in range(len(ops_))]
    return {"type": "Pipeline", "operators": [dict(op, id=i) for op, i in zip(ops_, ids)],
            "connections": [{"from": a, "to": b} for a, b in zip(ids, ids[1:])],
            "entryOperator": ids[0], "outputMappings": {ids[-1]: {"o1": "o1"}}}


# label, spec of a window, partitions, rows a partition, rows a segment (as
# test/integration/bounds.py's F3 in the server, fewer partitions)
PARTITION_CASES = [
    ("1,000 two-row partitions, MovingAverage", lambda w: ops(w)[0], 1000, 2, 2),
    ("1,000 two-row partitions, WindowMinMax -> PeakDetector", lambda w: chain([ops(w)[1], ops(w)[2]]), 1000, 2, 2),
    ("2,000 rows, a new key on every row, 3 x WindowMinMax", lambda w: chain([ops(w)[1]] * 3), 1, 2000, 1),
]


def callgrind(tmp, function, args):
    """Instructions executed inside function, and the program's output."""
    r = subprocess.run(["valgrind", "--tool=callgrind", "--toggle-collect=" + function,
                        "--callgrind-out-file=" + os.path.join(tmp, "callgrind.out"),
                        os.path.join(tmp, "work")] + args, capture_output=True, text=True)
    m = re.search(r"Collected : (\d+)", r.stderr)
    if r.returncode != 0 or not m:
        sys.exit("work %s under valgrind:\n%s%s" % (" ".join(args), r.stdout, r.stderr[-2000:]))
    return int(m.group(1)), r.stdout.strip()


def spec_text(tmp, sql, n):
    """The text the server builds from sql at n units, in a file."""
    path = os.path.join(tmp, "text")
    r = subprocess.run(["psql", "-X", "-q", "-At", "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-o", path,
                        "-c", "SELECT " + sql.replace("@n@", str(n))], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("work: building a text: " + r.stderr)
    with open(path, "rb") as f:
        text = f.read()[:-1]    # unaligned, tuples only: the text and a newline (a spec has none)
    with open(path, "wb") as f:
        f.write(text)
    return path, len(text)


def reading(tmp):
    print("Reading hostile specs (instructions in spec_read_text()):")
    print("%-36s %8s %10s %14s %9s  %s" % ("text", "n", "length", "instructions", "per byte", "outcome"))
    for label, _, w, sql, expected in CASES:
        counts = []
        for k in (w, 2 * w):
            path, length = spec_text(tmp, sql, k)
            count, out = callgrind(tmp, "spec_read_text", ["read", path])
            outcome = out.split()[-1]
            counts.append(count)
            print("%-36s %8d %9.1fM %14d %9.1f  %s" % (label, k, length / 2**20, count, count / length, outcome))
            check(outcome == expected, "%s (n = %d): outcome %s, expected %s" % (label, k, outcome, expected))
        check(counts[1] <= LINEAR * counts[0],
              "%s: %d instructions at 2W > %.1f x %d at W (x%.3f)"
              % (label, counts[1], LINEAR, counts[0], counts[1] / counts[0]))


def partitions(tmp):
    print("Starting partitions and segments (instructions in run_partitions()):")
    for label, spec, parts, rows, segment in PARTITION_CASES:
        got = {}
        for window in (10, 1000000):
            path = os.path.join(tmp, "spec.json")
            with open(path, "w") as f:
                json.dump(spec(window), f)
            got[window] = callgrind(tmp, "run_partitions", ["partitions", path, str(parts), str(rows), str(segment)])
        small, big = got[10][0], got[1000000][0]
        print(f"  {label}: windows of 1,000,000 {big} instructions, of 10 {small} (x{big / small:.3f})")
        check(big <= WINDOWLESS * small,
              f"{label}: {big} instructions with windows of 1,000,000 > {WINDOWLESS} x {small} with windows of 10")


def main():
    tmp = tempfile.mkdtemp(prefix="segpipe_work.")
    try:
        subprocess.run(["bash", os.path.join(ROOT, "test", "fuzz", "standalone", "build.sh"), "work",
                        os.path.join(tmp, "work")], check=True)
        reading(tmp)
        partitions(tmp)
    finally:
        shutil.rmtree(tmp)
    return summary("work")


if __name__ == "__main__":
    sys.exit(main())
