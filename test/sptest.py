"""What the Python test scripts share: the pass/fail tally with its final line, a psql
runner for the cluster pg_virtualenv set up, a query's execution time (for the
benchmarks; a test asserts no time), and the tour's results-table recipe.

    sys.dont_write_bytecode = True  # nothing left in test/__pycache__
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/
    from sptest import check, summary, psql  # noqa: E402

A script counts its checks with check(ok, what) and ends with
sys.exit(summary(label)): the "<label>: N passed, M failed" line that
test/in-cluster.sh tallies, and the exit status.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
passed = failed = 0


def check(ok, what):
    """Counts one check; a failed one is said on stderr.  Returns ok."""
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAILED: " + what, file=sys.stderr)
    return ok


def summary(label):
    """Prints the final line and returns the exit status (1 when anything failed)."""
    print(f"{label}: {passed} passed, {failed} failed")
    return 1 if failed else 0


def psql(sql, db, who, check_rc=True, timeout=None):
    """Runs sql as one script in db (connection settings from the environment, PGTZ=UTC):
    unaligned, tuples only, stopping at the first error.  Returns stdout, stripped; on an
    error, unless check_rc is false, exits with "who: " and the end of stderr."""
    r = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", db],
                       input=sql, capture_output=True, text=True, env=dict(os.environ, PGTZ="UTC"),
                       timeout=timeout)
    if check_rc and r.returncode != 0:
        sys.exit(f"{who}: " + r.stderr[-3000:])
    return r.stdout.strip()


def execution_ms(query, db, who, settings=""):
    """The server's execution time of query, in ms (EXPLAIN ANALYZE without per-node
    timing), after the SET statements in settings, in one session."""
    out = psql(settings + "\nEXPLAIN (ANALYZE, TIMING OFF) " + query, db, who)
    return float(re.search(r"Execution Time: ([0-9.]+) ms", out).group(1))


def readme_recipe(who):
    """The tour's SQL block (docs/tour.md) that creates the recipe's tables and refresh procedure."""
    text = open(os.path.join(ROOT, "docs", "tour.md"), encoding="utf-8").read()
    for block in re.findall(r"(?ms)^```sql\n(.*?)^```", text):
        if "CREATE PROCEDURE refresh_daily_results" in block:
            return block
    sys.exit(f"{who}: docs/tour.md has no block creating refresh_daily_results")
