#!/usr/bin/env python3
"""Peak memory of reading hostile specs, in a live server.

Each text is built inside the server (so that the client and the query
string hold no copy of it) and stored in a table, uncompressed.  Then, for
each text, a fresh connection warms up, reads its backend's VmHWM from
/proc/<pid>/status, casts the stored text to pipeline, and reads VmHWM
again.  Of the peak, about three times the text is the server's, not the
reader's: the detoasted text, the cstring the input function gets, and the
shared buffers the toast table is read through (touched pages count in a
backend's resident size).  An accepted spec also holds the value built
from it, whose canonical text repeats each operator id up to three times.

Checks, for every text:
  - the outcome (accepted, or refused with the expected SQLSTATE);
  - peak - before <= 10 x len(text) + 8 MB.
That reading is linear in the text is checked on the same families by
test/integration/work.py, in instructions counted outside the server (it
was timed here, a check that a shared machine made fail now and then).

Must run on the server's machine with the right to read the backend's
/proc entry (as root, or as the server's user).  Connection settings come
from the environment (PGHOST, PGPORT, PGUSER), as pg_virtualenv sets them.  SPEC_MEMORY_SO=/path/to/segpipe.so measures
another build's memory without installing it (the types and functions are
created from that file); SPEC_MEMORY_ROUNDS sets the number of rounds, the
highest peak counting (default 1);
SPEC_MEMORY_CASES=word,word keeps the texts whose label holds one of them.
Ends with a line "spec memory: N passed, M failed".
"""
import os
import re
import tarfile
import subprocess
import sys

sys.dont_write_bytecode = True  # nothing left in test/__pycache__
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/: sptest, pgcluster
from sptest import check, summary  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DB = "segpipe_spec_memory"
ROUNDS = int(os.environ.get("SPEC_MEMORY_ROUNDS", "1"))
MB = 1024 * 1024
SLACK = 8 * MB          # fixed allowance: catalog caches, plan, result

# A spec with a big array that Identity does not take: read whole, then refused.
def wrap(array_sql):
    return "'{\"type\":\"Identity\",\"x\":[' || %s || ']}'" % array_sql


# 4096 members "member_NNNN":1 (16 characters each with the comma)
MEMBERS = ("(SELECT '{' || string_agg(format('\"member_%s\":1', lpad(j::text, 4, '0')), ',') || '}'"
           " FROM generate_series(1, 4096) AS j)")
# 4096 coefficients "0.NNN"
COEFFS = ("(SELECT string_agg('0.' || lpad((j * 37 % 1000)::text, 3, '0'), ', ')"
          " FROM generate_series(1, 4096) AS j)")
DEEP = "repeat('[', 62) || repeat(']', 62)"  # with the spec and "x": depth 64

# label, N (memory: texts of N and 2N units), W (test/integration/work.py: W and 2W
# units; an instruction count is exact, so smaller texts do, and valgrind is slow),
# SQL building the text of @n@ units, expected outcome
CASES = [
    ("2M empty strings", 999994, 250000, wrap("repeat('\"\",', @n@ - 1) || '\"\"'"), "22023"),
    ("objects of 4096 members", 240, 16, wrap("repeat(%s || ',', @n@ - 1) || %s" % (MEMBERS, MEMBERS)), "22023"),
    ("2M numbers", 999995, 125000, wrap("repeat('0,', @n@ - 1) || '0'"), "22023"),
    ("1M small objects", 499995, 62500, wrap("repeat('{\"a\":0},', @n@ - 1) || '{\"a\":0}'"), "22023"),
    ("nesting 64 deep", 16000, 2000, wrap("repeat(%s || ',', @n@ - 1) || %s" % (DEEP, DEEP)), "22023"),
    ("one long string", 15000000, 1875000, "'{\"type\":\"Identity\",\"x\":\"' || repeat('a', @n@) || '\"}'", "22023"),
    # unescaped in full to be looked up as a type, then refused
    ("one long escaped string", 2500000, 156250, "'{\"type\":\"' || repeat('\\u00e9', @n@) || '\"}'", "22023"),
    ("one long number", 5000000, 1250000, "'{\"type\":\"Scale\",\"value\":0.' || repeat('1', @n@) || '}'", "ok"),
    # the largest valid spec at 2N = 256: FIR operators of 4096 coefficients in a chain
    ("FIR operators of 4096 coefficients", 128, 8,
     "(SELECT '{\"type\":\"Pipeline\",\"operators\":[' || string_agg(format("
     "'{\"type\":\"FiniteImpulseResponse\",\"id\":\"f%s\",\"coeff\":[%s]}', i, c.coeffs), ',') || "
     "'],\"connections\":[' || coalesce((SELECT string_agg(format('{\"from\":\"f%s\",\"to\":\"f%s\"}', i, i + 1), ',')"
     " FROM generate_series(1, @n@ - 1) AS i), '') || "
     "'],\"entryOperator\":\"f1\",\"outputMappings\":{\"f' || @n@ || '\":{\"o1\":\"o1\"}}}'"
     " FROM generate_series(1, @n@) AS i, " + COEFFS + " AS c(coeffs))", "ok"),
    # ids of 30000 characters that differ only at the end, chained: refused
    # (ids have at most 63 bytes) once the text is read, not after comparing
    # every pair of ids or every reference with every id
    ("operators with long ids", 128, 64,
     "(SELECT '{\"type\":\"Pipeline\",\"operators\":[' || string_agg(format("
     "'{\"type\":\"Identity\",\"id\":\"%s%s\"}', repeat('a', 30000), i), ',') || "
     "'],\"connections\":[' || coalesce((SELECT string_agg(format('{\"from\":\"%s%s\",\"to\":\"%s%s\"}',"
     " repeat('a', 30000), i, repeat('a', 30000), i + 1), ',') FROM generate_series(1, @n@ - 1) AS i), '') || "
     "'],\"entryOperator\":\"' || repeat('a', 30000) || '1\",\"outputMappings\":{\"' || repeat('a', 30000) || @n@"
     " || '\":{\"o1\":\"o1\"}}}' FROM generate_series(1, @n@) AS i)", "22023"),
]
if os.environ.get("SPEC_MEMORY_CASES"):
    CASES = [c for c in CASES if any(w in c[0] for w in os.environ["SPEC_MEMORY_CASES"].split(","))]


def psql(script, db=DB, check=True):
    r = subprocess.run(["psql", "-X", "-q", "-At", "-d", db, "-f", "-"], input=script,
                       capture_output=True, text=True)
    if check and r.returncode != 0:
        sys.exit("psql failed:\n" + script[:2000] + "\n" + r.stderr)
    return r


def setup():
    psql("DROP DATABASE IF EXISTS %s;\nCREATE DATABASE %s ENCODING 'UTF8' TEMPLATE template0 LOCALE 'C';" % (DB, DB),
         db="postgres")
    so = os.environ.get("SPEC_MEMORY_SO")
    if so:
        # 0.1.0's install script, from the released scripts' archive (test/released/)
        with tarfile.open(os.path.join(ROOT, "test", "released", "segpipe-released.tar.gz")) as tar:
            install = tar.extractfile("segpipe--0.1.0.sql").read().decode()
        install = install.replace("MODULE_PATHNAME", os.path.abspath(so))
        install = re.sub(r"(?m)^\\echo.*$", "", install)
        psql("\\set ON_ERROR_STOP 1\n" + install)
    else:
        psql("\\set ON_ERROR_STOP 1\nCREATE EXTENSION segpipe;")
    script = ["\\set ON_ERROR_STOP 1",
              "CREATE TABLE spec_texts (label text, n int, t text);",
              "ALTER TABLE spec_texts ALTER t SET STORAGE EXTERNAL;"]
    for label, n, _, sql, _ in CASES:
        for k in (n, 2 * n):
            script.append("INSERT INTO spec_texts SELECT %s, %d, %s;"
                          % (quote(label), k, sql.replace("@n@", str(k))))
    script.append("INSERT INTO spec_texts VALUES ('warm-up', 0, '{\"type\": \"Identity\"}');")
    psql("\n".join(script))


def quote(s):
    return "'" + s.replace("'", "''") + "'"


def measure(label, n):
    where = "label = %s AND n = %d" % (quote(label), n)
    script = "\n".join([
        "\\set VERBOSITY sqlstate",
        "SELECT pg_column_size(t::pipeline) FROM spec_texts WHERE label = 'warm-up';",
        "SELECT 'len ' || octet_length(t) FROM spec_texts WHERE " + where + ";",
        "SELECT pg_backend_pid() AS pid \\gset",
        "\\setenv SPEC_PID :pid",
        "\\! echo before $(grep VmHWM /proc/$SPEC_PID/status)",
        "SELECT 'size ' || pg_column_size(t::pipeline) FROM spec_texts WHERE " + where + ";",
        "\\! echo after $(grep VmHWM /proc/$SPEC_PID/status)",
    ])
    r = psql(script, check=False)
    out = r.stdout
    try:
        length = int(re.search(r"^len (\d+)$", out, re.M).group(1))
        before = int(re.search(r"^before VmHWM: (\d+) kB$", out, re.M).group(1)) * 1024
        after = int(re.search(r"^after VmHWM: (\d+) kB$", out, re.M).group(1)) * 1024
    except AttributeError:
        sys.exit("unexpected output for %s (n = %d):\n%s\n%s" % (label, n, out, r.stderr))
    if re.search(r"^size \d+$", out, re.M):
        outcome = "ok"
    else:
        m = re.search(r"ERROR:\s+([0-9A-Z]{5})", r.stderr)
        outcome = m.group(1) if m else "?"
    return length, after - before, outcome


def main():
    setup()
    print("%-36s %8s %10s %9s %7s  %s" % ("text", "n", "length", "peak", "ratio", "outcome"))
    for label, n, _, _, expected in CASES:
        worst = {}
        for _ in range(ROUNDS):
            for k in (n, 2 * n):
                length, peak, outcome = measure(label, k)
                old = worst.get(k)
                worst[k] = (length, max(peak, old[1]) if old else peak, outcome)
        for k in (n, 2 * n):
            length, peak, outcome = worst[k]
            print("%-36s %8d %9.1fM %8.1fM %6.2fx  %s"
                  % (label, k, length / MB, peak / MB, peak / length, outcome))
            check(outcome == expected, "%s (n = %d): outcome %s, expected %s" % (label, k, outcome, expected))
            check(peak <= 10 * length + SLACK,
                  "%s (n = %d): peak %.1f MB > 10 x %.1f MB + 8 MB" % (label, k, peak / MB, length / MB))
    psql("DROP DATABASE %s;" % DB, db="postgres")
    return summary("spec memory")


if __name__ == "__main__":
    sys.exit(main())
