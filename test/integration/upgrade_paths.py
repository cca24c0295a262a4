#!/usr/bin/env python3
"""Every update path reads like a fresh install, and the scripts are built as src/sql/build.sh says.

For each released version (the Makefile's SEGPIPE_UPDATES_FROM), in a database of its own:
CREATE EXTENSION segpipe VERSION 'X' (from the released scripts, an archive in test/released/
that make install-released unpacks), then ALTER EXTENSION segpipe UPDATE; the extension's objects,
described property by property (test/integration/describe_extension.sql: every function with
its body's md5, settings, privileges and comment; aggregates, operators and their classes,
casts, event triggers, the catalog table's columns and privileges, the view, what pg_dump
dumps), equal those of a fresh CREATE EXTENSION segpipe, line for line.  The update takes one
step (the built script from X, not a chain).  Then src/sql/build.sh itself: a copy of src/sql/
with a CREATE that cannot run twice outside an @since block, or an unclosed block, is refused
with the file and line; an @since block is in the install and in updates from before its
version only.

Runs in the cluster of PGHOST/PGPORT/PGUSER (a superuser).  Ends with
"update paths: N passed, M failed".
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sptest import ROOT, check, psql, summary  # noqa: E402

WHO = "upgrade_paths"
DESCRIBE = os.path.join(ROOT, "test", "integration", "describe_extension.sql")


def makefile_list(name):
    text = open(os.path.join(ROOT, "Makefile"), encoding="utf-8").read()
    m = re.search(r"(?m)^%s = (.*)$" % name, text)
    return m.group(1).split()


def default_version():
    text = open(os.path.join(ROOT, "segpipe.control"), encoding="utf-8").read()
    return re.search(r"default_version = '([^']+)'", text).group(1)


def describe(db):
    r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", db, "-f", DESCRIBE],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{WHO}: describing {db}: {r.stderr[-2000:]}")
    return r.stdout.splitlines()


def fresh_db(name, version=None):
    psql(f"DROP DATABASE IF EXISTS {name};\nCREATE DATABASE {name};", "postgres", WHO)
    clause = f" VERSION '{version}'" if version else ""
    psql(f"CREATE EXTENSION segpipe{clause};", name, WHO)


def check_paths():
    latest = default_version()
    released = makefile_list("SEGPIPE_UPDATES_FROM")
    # the archive holds the released chain, 0.1.0 up to the last released version, as
    # test/released/SHA256SUMS lists it
    rel = os.path.join(ROOT, "test", "released")
    with tarfile.open(os.path.join(rel, "segpipe-released.tar.gz")) as tar:
        sums = {m.name: hashlib.sha256(tar.extractfile(m).read()).hexdigest() for m in tar.getmembers()}
    listed = dict(reversed(line.split()) for line in open(os.path.join(rel, "SHA256SUMS")))
    chain = ["segpipe--0.1.0.sql"] + [f"segpipe--{a}--{b}.sql" for a, b in zip(released, released[1:])]
    check(sorted(chain) == sorted(sums) and sums == listed,
          f"the archive of test/released/ holds the released chain {chain} with the sums of SHA256SUMS, "
          f"not {sorted(sums)}")
    fresh_db("segpipe_paths_fresh")
    want = describe("segpipe_paths_fresh")
    check(len(want) > 200, f"a fresh install describes as {len(want)} lines (more than 200 expected)")
    for v in released:
        db = "segpipe_paths_" + v.replace(".", "_")
        fresh_db(db, v)
        path = psql(f"SELECT path FROM pg_extension_update_paths('segpipe') "
                    f"WHERE source = '{v}' AND target = '{latest}';", db, WHO)
        check(path == f"{v}--{latest}", f"the update from {v} takes one step (path: {path})")
        psql("ALTER EXTENSION segpipe UPDATE;", db, WHO)
        got = describe(db)
        missing = [line for line in want if line not in got]
        extra = [line for line in got if line not in want]
        check(not missing and not extra,
              f"updated from {v}: as a fresh install, but missing {missing[:5]} and extra {extra[:5]}")
        psql(f"DROP DATABASE {db};", "postgres", WHO)
    psql("DROP DATABASE segpipe_paths_fresh;", "postgres", WHO)


def build(srcdir, *args):
    return subprocess.run(["sh", os.path.join(srcdir, "build.sh"), *args], capture_output=True, text=True)


def check_build_rules():
    latest = default_version()
    with tempfile.TemporaryDirectory(prefix="segpipe-build-") as tmp:
        src = os.path.join(tmp, "sql")
        shutil.copytree(os.path.join(ROOT, "src", "sql"), src)
        ok = build(src, latest)
        check(ok.returncode == 0 and "CREATE TYPE pipeline (" in ok.stdout,
              f"build.sh {latest} writes the install script ({ok.stderr.strip()})")
        # an @since block: in the install and an update from before it, not after
        since = build(src, latest, "0.4.0").stdout
        check("CREATE EVENT TRIGGER segpipe_partitions" in since,
              "the update from 0.4.0 makes the event trigger of 0.5.0")
        after = build(src, latest, "0.5.0").stdout
        check("CREATE EVENT TRIGGER segpipe_partitions" not in after
              and "CREATE EVENT TRIGGER segpipe_drop_starting" in after,
              "the update from 0.5.0 makes 0.10.0's event trigger, not 0.5.0's again")
        check("DROP FUNCTION IF EXISTS segpipe_maintain(regclass, text, text, text, text, pipeline, text);"
              not in after and "DROP FUNCTION IF EXISTS segpipe_maintain(regclass, text, text, text, text, pipeline, text, text, interval, text);" in after,
              "the update from 0.5.0 runs the deltas from 0.5.0 on, not 0.4.0's")
        topic = os.path.join(src, "heartbeat.sql")
        text = open(topic).read()
        open(topic, "w").write(text + "\nCREATE FUNCTION bare() RETURNS int LANGUAGE sql AS 'SELECT 1';\n")
        bad = build(src, latest)
        check(bad.returncode != 0 and "src/sql/heartbeat.sql:" in bad.stderr and "cannot run twice" in bad.stderr,
              f"a bare CREATE FUNCTION outside an @since block is refused ({bad.returncode}: {bad.stderr.strip()})")
        open(topic, "w").write(text + "\n-- @since 0.11.0\nCREATE TABLE t (a int);\n")
        bad = build(src, latest)
        check(bad.returncode != 0 and "@since without @end" in bad.stderr,
              f"an @since block without @end is refused ({bad.returncode}: {bad.stderr.strip()})")


def main():
    check_build_rules()
    check_paths()
    return summary("update paths")


if __name__ == "__main__":
    sys.exit(main())
