#!/usr/bin/env python3
"""Black-box checks that segpipe's cost is bounded by design, through SQL only.

F2  A pipeline's total operator state is capped (64 MiB): a spec whose
    operators could hold more is refused when it is read (cast, binary
    receive, a literal in segment_agg) with SQLSTATE 54000, the detail naming
    the total and the cap, before anything is allocated; a spec under the cap
    is accepted and a short segment of it needs little memory.
F3  State grows with the values a segment holds, not with its window:
    100,000 two-row partitions, or 2,000 rows with a new key on each, under
    windows of 1,000,000 run, and the backend's peak resident size beyond
    row_number()'s over the same rows stays small.  That their work does not
    grow with the window is counted in instructions by
    test/integration/work.py; their time against row_number() is measured,
    not asserted, by test/bench/bench_bounds.py, as is F4 (cancellation: how
    long a long query takes to end after its statement_timeout).  A test
    asserts no time.
F5  State that grows gives the same results: windows of 100,000 over a
    segment longer than the window (it wraps), one of 7 rows after it (reset
    from a grown state, never full) and one exactly full, against the values
    computed here.
F6  Resuming a large stored state costs about its text, not a multiple of
    it: pipeline_agg continuing for one row from a MovingAverage(1000000)
    and a WindowMinMax(1000000) with their windows full (20 and 27 MB of
    text), and from a run of 499,999 emissions (22 MB), raises the
    backend's peak (beyond a small resume's) by at most 3 x the text; from
    a window of a million zeros (3 MB of text, "0, " each) by at most 3 x
    the text plus the 8 bytes a value takes in its ring.  The state is read
    where it is stored (no copy of its text), its rings at their size, its
    emissions without being kept, and the result written without doubling
    copies.

Peak memory is the backend's VmHWM (/proc/self/status, read with
pg_read_file: the role must be a superuser, as pg_virtualenv's is), in a
fresh session per case because it is a high-water mark.  The cases that a
broken engine would make slow run under a statement_timeout far above what a
working one needs (a guard against hanging, not a measure).
Connection settings come from the environment (PGHOST, PGPORT, PGUSER).
Prints every figure, then "bounds: N passed, M failed"; exits 1 on failure.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

DB = "segpipe_bounds"
CAP = 64 * 1024 * 1024           # bytes of operator state per pipeline
SMALL_KB = 16 * 1024             # peak resident growth that counts as small
GUARD_MS = 120000                # statement_timeout for cases slow on a bad engine
SESSION_S = 300                  # a session that takes longer has hung
WMM = {"type": "WindowMinMax", "window_size": 1000000, "mode": "max"}
MA = {"type": "MovingAverage", "window_size": 1000000}
PEAK = {"type": "PeakDetector", "window_size": 999999}

passed = 0
failed = 0


def check(name, ok, figures):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
    print(f"  {'ok  ' if ok else 'FAIL'} {name}: {figures}", flush=True)


def chain(ops, id_of=lambda i: f"w{i + 1}"):
    """A pipeline running ops one after the other."""
    ids = [id_of(i) for i in range(len(ops))]
    return json.dumps({
        "type": "Pipeline",
        "operators": [dict(op, id=i) for op, i in zip(ops, ids)],
        "connections": [{"from": a, "to": b} for a, b in zip(ids, ids[1:])],
        "entryOperator": ids[0], "outputMappings": {ids[-1]: {"o1": "o1"}}})


def lit(s):
    return "'" + s.replace("'", "''") + "'"


HWM = (r"SELECT (regexp_match(pg_read_file('/proc/self/status'), 'VmHWM:\s+(\d+) kB'))[1] AS hwm \gset"
       "\n\\echo @hwm :hwm")


class Session:
    """The outcome of one psql session: the peak resident size (kB) at the
    start and after each step, and per step its SQLSTATE, elapsed
    milliseconds and error text."""

    def __init__(self, hwm, runs, errors, ended):
        self.hwm = hwm
        self.runs = runs
        self.errors = errors
        self.ended = ended

    def grew_kb(self, since=0):
        """Growth of the peak from the start (or from after step since)."""
        return self.hwm[-1] - self.hwm[since] if self.ended else None


def session(steps):
    """Run steps in one fresh session: a list of (label, sql, timeout_ms,
    stop_on_error).  sql is a single-row SELECT (its result is swallowed) or
    a psql meta-command (run once).  Once a step with stop_on_error set has
    not succeeded, the later ones with it set are skipped (so that a slow
    engine is timed out once, not three times)."""
    lines = [r"\set VERBOSITY verbose", r"\set go true", HWM]
    for label, sql, timeout_ms, stop in steps:
        if stop:
            lines.append(r"\if :go")
        lines += [f"\\warn @step {label}",
                  f"SET statement_timeout = {timeout_ms};",
                  r"SELECT clock_timestamp() AS t0 \gset",
                  sql if sql.startswith("\\") else sql + r" \gset r_",
                  f"\\echo @run {label} :SQLSTATE"]
        if stop:
            lines.append(r"SELECT :'SQLSTATE' = '00000' AS go \gset")
        lines += [r"SELECT round(extract(epoch FROM clock_timestamp() - :'t0'::timestamptz) * 1000, 1) AS ms \gset",
                  r"\echo @ms :ms", "RESET statement_timeout;"]
        if stop:
            lines.append(r"\endif")
        lines.append(HWM)
    lines.append(r"\echo @end")
    try:
        r = subprocess.run(["psql", "-X", "-q", "-At", "-d", DB], input="\n".join(lines) + "\n",
                           capture_output=True, text=True, timeout=SESSION_S)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else e.stdout or ""
        r = subprocess.CompletedProcess(e.cmd, -1, out, f"no answer in {SESSION_S} s")
    hwm, runs, label = [], {}, None
    for line in r.stdout.splitlines():
        f = line.split(" ")
        if f[0] == "@hwm":
            hwm.append(int(f[1]))
        elif f[0] == "@run":
            label = f[1]
            runs.setdefault(label, []).append([f[2], None])
        elif f[0] == "@ms" and label:
            runs[label][-1][1] = float(f[1])
    errors, cur = {}, None
    for line in r.stderr.splitlines():
        if line.startswith("@step "):
            cur = line[6:]
        elif cur:
            errors[cur] = errors.get(cur, "") + line + "\n"
    # psql leaves :SQLSTATE alone when \copy fails: read the error instead
    for label, sql, _, _ in steps:
        m = re.search(r"^ERROR:\s+([0-9A-Z]{5}):", errors.get(label, ""), re.M)
        if sql.startswith("\\") and m and label in runs:
            runs[label][-1][0] = m.group(1)
    ended = "@end" in r.stdout.splitlines()
    if not ended:
        print("  (the session ended early: " + r.stderr.strip()[-300:] + ")")
    return Session(hwm, runs, errors, ended)


def one(s, label):
    """SQLSTATE and milliseconds of the single run of a step."""
    runs = s.runs.get(label) or [[None, None]]
    return runs[0][0], runs[0][1]


def run_one(label, sql):
    """sql alone in a fresh session under the guard: the session, its SQLSTATE and ms."""
    s = session([(label, sql, GUARD_MS, False)])
    return (s,) + one(s, label)


def mb(kb):
    return "?" if kb is None else f"{kb / 1024:.1f} MB"


def state_text(state, ms):
    if state is None:
        return "did not run"
    return f"{state} after {ms:.0f} ms" if ms is not None else state


# ---------------------------------------------------------------- F2

def detail_names_cap(err):
    m = re.search(r"^DETAIL:\s+(.*)$", err or "", re.M)
    if not m:
        return False, "no detail"
    d = m.group(1)
    cap = rf"\b{CAP}\b|\b{CAP >> 20} ?Mi?B\b|\b{CAP >> 10} ?kB\b"
    names_cap = re.search(cap, d) is not None
    numbers = re.findall(r"\d[\d,]*", re.sub(cap, "", d))
    return names_cap and len(numbers) > 0, d


def ten_row_segment(spec):
    return (f"SELECT count(x) AS n FROM (SELECT segment_agg(i::float8, 0, {lit(spec)}) OVER (ORDER BY i) AS x "
            "FROM generate_series(1, 10) AS i) AS s")


def little(s):
    """The session's peak grew by less than SMALL_KB."""
    return s.ended and s.grew_kb() is not None and s.grew_kb() < SMALL_KB


def f2(tmp):
    print("F2: total state cap (64 MiB) enforced when a spec is read")
    s67, s68, s3 = chain([WMM] * 67), chain([WMM] * 68), chain([WMM] * 3)

    s, st, ms = run_one("cast", f"SELECT length({lit(s67)}::pipeline::text) AS n")
    check("67 x WindowMinMax(1000000) refused at the cast with 54000",
          st == "54000", f"{len(s67)}-byte spec, {state_text(st, ms)}, peak +{mb(s.grew_kb())}")
    ok, d = detail_names_cap(s.errors.get("cast"))
    check("  its detail names the total and the cap", ok, d if st != "00000" else "accepted, no detail")
    check("  reading it needs little memory", little(s), f"peak +{mb(s.grew_kb())} (bound {mb(SMALL_KB)})")

    s, st, ms = run_one("cast", f"SELECT length({lit(s68)}::pipeline::text) AS n")
    check("68 x WindowMinMax(1000000) refused at the cast with 54000", st == "54000", state_text(st, ms))

    s, st, ms = run_one("run", ten_row_segment(s67))
    check("segment_agg with 67 x WindowMinMax(1000000) refused before any row, little memory",
          st == "54000" and little(s), f"{state_text(st, ms)}, peak +{mb(s.grew_kb())}")

    # the binary form goes through pipeline_recv: a COPY file made by hand
    body = s67.encode()
    value = bytes([1, 0, 0, 0]) + struct.pack(">I", len(body)) + body
    path = os.path.join(tmp, "over_cap.copy")
    with open(path, "wb") as f:
        f.write(b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
                + struct.pack(">hi", 1, len(value)) + value + struct.pack(">h", -1))
    s, st, ms = run_one("recv", f"\\copy recv_target FROM {lit(path)} WITH (FORMAT binary)")
    check("binary receive of 67 x WindowMinMax(1000000) refused with 54000", st == "54000", state_text(st, ms))

    s, st, ms = run_one("cast", f"SELECT length({lit(s3)}::pipeline::text) AS n")
    check("3 x WindowMinMax(1000000) (about 48 MB) accepted", st == "00000", state_text(st, ms))
    s, st, ms = run_one("run", ten_row_segment(s3))
    check("  a 10-row segment of it runs in little memory",
          st == "00000" and little(s), f"{state_text(st, ms)}, peak +{mb(s.grew_kb())} (bound {mb(SMALL_KB)})")


# ---------------------------------------------------------------- F3

def rows_case(name, segment_q, baseline_q):
    """The baseline, then segment_agg over the same rows, in one session: it
    runs, and the backend's peak grows little beyond the baseline's."""
    s = session([("rn", baseline_q, GUARD_MS, False), ("sa", segment_q, GUARD_MS, False)])
    st, _ = one(s, "sa")
    rn, _ = one(s, "rn")
    # the first step is row_number(): what segment_agg needs beyond it
    grew = s.grew_kb(since=1)
    check(name, rn == "00000" and st == "00000" and grew is not None and grew < SMALL_KB,
          f"row_number() {rn}, segment_agg {st}; peak +{mb(grew)} beyond row_number()'s "
          f"+{mb(s.hwm[1] - s.hwm[0] if len(s.hwm) > 1 else None)} (bound {mb(SMALL_KB)})")


# F3's cases, shared with test/bench/bench_bounds.py: (name, segment_agg query,
# row_number() query over the same rows)
def f3_cases():
    parts = "FROM two_row_partitions"
    rows = "FROM generate_series(1, 2000) AS i"
    return [
        # the control: a small window, which the engine has always handled in
        # proportion to the rows
        ("100,000 two-row partitions, MovingAverage(10) (control)",
         f"SELECT count(x) AS n FROM (SELECT segment_agg(v, 0, {lit(json.dumps(dict(MA, window_size=10)))}) "
         f"OVER (PARTITION BY p ORDER BY ts) AS x {parts}) AS s",
         f"SELECT count(x) AS n FROM (SELECT row_number() OVER (PARTITION BY p ORDER BY ts) AS x {parts}) AS s"),
        ("100,000 two-row partitions, MovingAverage(1000000)",
         f"SELECT count(x) AS n FROM (SELECT segment_agg(v, 0, {lit(json.dumps(MA))}) "
         f"OVER (PARTITION BY p ORDER BY ts) AS x {parts}) AS s",
         f"SELECT count(x) AS n FROM (SELECT row_number() OVER (PARTITION BY p ORDER BY ts) AS x {parts}) AS s"),
        ("100,000 two-row partitions, WindowMinMax(1000000) -> PeakDetector(999999)",
         f"SELECT count(x) AS n FROM (SELECT segment_agg(v, 0, {lit(chain([WMM, PEAK]))}) "
         f"OVER (PARTITION BY p ORDER BY ts) AS x {parts}) AS s",
         f"SELECT count(x) AS n FROM (SELECT row_number() OVER (PARTITION BY p ORDER BY ts) AS x {parts}) AS s"),
        ("2,000 rows, a new key on every row, 3 x WindowMinMax(1000000)",
         f"SELECT count(x) AS n FROM (SELECT segment_agg(i::float8, i, {lit(chain([WMM] * 3))}) "
         f"OVER (ORDER BY i) AS x {rows}) AS s",
         f"SELECT count(x) AS n FROM (SELECT row_number() OVER (ORDER BY i) AS x {rows}) AS s"),
    ]


def f3():
    print("F3: starting a partition and a segment need memory for the rows, not the window")
    for name, segment_q, baseline_q in f3_cases():
        rows_case(name, segment_q, baseline_q)


# ---------------------------------------------------------------- F5

def grow_v(i):
    return 1000000 if i == 60000 else (i * 7919) % 1000 - 500


def f5():
    """Large windows give the same results as before, through growth,
    wrap-around, a reset after growth and a segment too short to fill."""
    print("F5: results unchanged when state grows: segments of 150,000, 7 and 100,000 rows, windows of 100,000")
    segs = [range(1, 150001), range(150001, 150008), range(150008, 250008)]
    w = 100000

    def last(seg, f):
        vals = [grow_v(i) for i in seg]
        return f(vals[-w:]) if len(vals) >= w else None

    cases = [
        ({"type": "MovingSum", "window_size": w}, [last(g, sum) for g in segs]),
        ({"type": "WindowMinMax", "window_size": w, "mode": "max"}, [last(g, max) for g in segs]),
        ({"type": "WindowMinMax", "window_size": w, "mode": "min"}, [last(g, min) for g in segs]),
        # the only value strictly above all others within 49,999 rows is the
        # spike at row 60,000 (each other value recurs every 1000 rows)
        ({"type": "PeakDetector", "window_size": w - 1}, [1000000, None, None]),
    ]
    for spec, want in cases:
        q = (f"SELECT array_agg(x ORDER BY ts) FROM (SELECT ts, segment_agg(v, k, {lit(json.dumps(spec))}) "
             "OVER (ORDER BY ts) AS x FROM grow) AS s WHERE ts IN (150001, 150008, 250008)")
        r = subprocess.run(["psql", "-X", "-q", "-At", "-d", DB, "-c", q], capture_output=True, text=True)
        got = [None if e == "NULL" else float(e) for e in r.stdout.strip().strip("{}").split(",")] \
            if r.returncode == 0 else r.stderr.strip()
        check(f"{spec['type']}({spec['window_size']}{', ' + spec['mode'] if 'mode' in spec else ''})",
              got == want, f"emitted {got}, expected {want}")


# ---------------------------------------------------------------- F6

def f6():
    print("F6: resuming a large stored state: peak memory against its text")
    rows = subprocess.run(["psql", "-X", "-At", "-F", " ", "-d", DB, "-c",
                           "SELECT name, text_len, n_values FROM big_states ORDER BY name"],
                          capture_output=True, text=True, check=True).stdout.split("\n")
    for row in filter(None, rows):
        name, text_len, n_values = row.split()
        text_kb, n_values = int(text_len) / 1024, int(n_values)
        # the zeros' rings outweigh their text: 8 bytes a value
        bound_kb = 3 * text_kb + (8 * n_values / 1024 if name == "zeros" else 0)
        q = ("SELECT pg_column_size(pipeline_agg(timestamptz '2030-01-01 00:00+00', 1, 1, p)) AS n "
             f"FROM big_states WHERE name = {lit(name)}")
        # a small resume first: loading the library and the catalog caches
        # is not what this measures
        warm = ("SELECT pg_column_size(pipeline_agg(now(), 1, 1, '{\"type\": \"MovingAverage\", "
                "\"window_size\": 2}'::pipeline)) AS n")
        s = session([("warm", warm, GUARD_MS, False), ("resume", q, GUARD_MS, False)])
        st, ms = one(s, "resume")
        grew = s.grew_kb(since=1)
        held = f"windows of {n_values} values" if n_values else "499,999 emissions"
        check(f"pipeline_agg resuming {name} ({mb(text_kb)} of text, {held})",
              st == "00000" and grew is not None and grew <= bound_kb,
              f"{state_text(st, ms)}, peak +{mb(grew)} = {grew / text_kb if grew else 0:.2f} x the text "
              f"(bound {mb(bound_kb)})")


SETUP = f"""
\\set ON_ERROR_STOP 1
CREATE EXTENSION segpipe;
CREATE TABLE two_row_partitions AS
  SELECT i / 2 AS p, i AS ts, sin(i) AS v FROM generate_series(0, 199999) AS i;
ANALYZE two_row_partitions;
CREATE TABLE grow AS
  SELECT i AS ts, (CASE WHEN i = 60000 THEN 1000000 ELSE (i * 7919) % 1000 - 500 END)::float8 AS v,
         (CASE WHEN i <= 150000 THEN 1 WHEN i <= 150007 THEN 2 ELSE 3 END)::float8 AS k
  FROM generate_series(1, 250007) AS i
  UNION ALL SELECT 250008, NULL, 'Infinity';
CREATE TABLE recv_target (p pipeline);
CREATE TABLE big_states (name text, p pipeline, text_len bigint, n_values bigint);
INSERT INTO big_states (name, p)
SELECT 'MovingAverage', pipeline_agg(ts, v, 1, '{json.dumps(MA)}'::pipeline ORDER BY ts)
FROM (SELECT timestamptz '2026-01-01 00:00+00' + i * interval '1 s' AS ts, sin(i) * 1000 AS v
      FROM generate_series(1, 1000000) AS i) AS r;
INSERT INTO big_states (name, p)
SELECT 'WindowMinMax', pipeline_agg(ts, v, 1, '{json.dumps(dict(WMM, mode="min"))}'::pipeline ORDER BY ts)
FROM (SELECT timestamptz '2026-01-01 00:00+00' + i * interval '1 s' AS ts, i + sin(i) AS v
      FROM generate_series(1, 1000000) AS i) AS r;
INSERT INTO big_states (name, p)
SELECT 'zeros', pipeline_agg(ts, 0, 1, '{json.dumps(dict(MA, type="MovingSum"))}'::pipeline ORDER BY ts)
FROM (SELECT timestamptz '2026-01-01 00:00+00' + i * interval '1 s' AS ts
      FROM generate_series(1, 1000000) AS i) AS r;
INSERT INTO big_states (name, p)
SELECT 'emissions', pipeline_agg(ts, 1, i, '{{"type": "Identity"}}'::pipeline ORDER BY ts)
FROM (SELECT timestamptz '2026-01-01 00:00+00' + i * interval '1 s' AS ts, i
      FROM generate_series(1, 500000) AS i) AS r;
-- every window is full: a million values held in each ring
UPDATE big_states SET text_len = length(p::text),
  n_values = CASE WHEN name = 'emissions' THEN 0 ELSE 1000000 END;
"""


def setup(extra=""):
    """The database with SETUP's tables (and extra's)."""
    subprocess.run(["dropdb", "--if-exists", "--force", DB], check=True, stderr=subprocess.DEVNULL)
    subprocess.run(["createdb", DB], check=True)
    subprocess.run(["psql", "-X", "-q", "-d", DB], input=SETUP + extra, text=True, check=True,
                   stdout=subprocess.DEVNULL)


def main():
    setup()
    tmp = tempfile.mkdtemp(prefix="segpipe_bounds.")
    try:
        f2(tmp)
        f3()
        f5()
        f6()
    finally:
        shutil.rmtree(tmp)
        subprocess.run(["dropdb", "--if-exists", "--force", DB], check=False)
    print(f"bounds: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
