#!/usr/bin/env python3
"""Run the SQL examples of README.md against a live server.

Every ```sql block of the README runs, in order, in one fresh database.
When a ```text block follows it (nothing but blank lines between), that
block is the output psql prints for it, and --check compares the two, so the
documentation cannot drift from the code.  --demo prints each query and its
output instead.

Connection settings come from the environment (PGHOST, PGPORT, PGUSER), as
set by pg_virtualenv.  Output is taken in the UTC time zone.

The client snippets (```python and ```js blocks) are not run here: test/clients/clients.sh
runs their files.  A snippet's first line names its file ("# test/clients/x.py"
or "// test/clients/x.js"); --check compares the block with that file, and the
```text block after it, if any, with the file's .out.  Every .py and .js file
in test/clients must be shown this way.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DB = "segpipe_readme"
FENCE = re.compile(r"^```(\w*)\s*$")


def fenced(lines):
    """The fenced blocks: (lang, text, first line index, closing line index)."""
    found = []  # (lang, text, start line)
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            lang, start = m.group(1), i + 1
            body = []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            found.append((lang, "\n".join(body), start, i))
        i += 1
    return found


def followed_by_text(lines, found, n):
    """The ```text block right after block n (blank lines between), or None."""
    end = found[n][3]
    if n + 1 < len(found) and found[n + 1][0] == "text":
        between = lines[end + 1:found[n + 1][2] - 1]
        if all(not l.strip() for l in between):
            return found[n + 1][1]
    return None


def blocks(path):
    """Yield (sql, expected_or_None, line_number) pairs from a Markdown file."""
    lines = open(path, encoding="utf-8").read().split("\n")
    found = fenced(lines)
    for n, (lang, text, start, end) in enumerate(found):
        if lang == "sql":
            yield text, followed_by_text(lines, found, n), start


SNIPPET = re.compile(r"^(?:#|//) (test/clients/[\w.-]+\.(?:py|js))\b")


def check_snippets(path):
    """Compare the client snippets with their files; returns (passed, failed)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    found = fenced(lines)
    passed = failed = 0
    shown = set()
    for n, (lang, text, start, end) in enumerate(found):
        m = SNIPPET.match(text)
        if lang not in ("python", "js") or not m:
            continue
        name = m.group(1)
        shown.add(name)
        checks = [(name, text)]
        output = followed_by_text(lines, found, n)
        if output is not None:
            checks.append((os.path.splitext(name)[0] + ".out", output))
        for file, documented in checks:
            try:
                actual = open(os.path.join(ROOT, file), encoding="utf-8").read()
            except OSError as e:
                actual = f"({e.strerror})"
            if documented.rstrip("\n") == actual.rstrip("\n"):
                passed += 1
            else:
                failed += 1
                print(f"README.md line {start}: differs from {file}", file=sys.stderr)
    folder = os.path.join(ROOT, "test", "clients")
    for f in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if f.endswith((".py", ".js")) and f"test/clients/{f}" not in shown:
            failed += 1
            print(f"README.md: test/clients/{f} is not shown", file=sys.stderr)
    return passed, failed


def psql(sql, db):
    env = dict(os.environ, PGTZ="UTC", PGDATESTYLE="ISO, MDY", PGCLIENTENCODING="UTF8")
    r = subprocess.run(["psql", "-X", "-q", "-d", db], input=sql, env=env, cwd=ROOT,
                       capture_output=True, text=True)
    out = r.stdout + re.sub(r"(?m)^psql:<stdin>:\d+: ", "", r.stderr)
    return out


def normalise(text):
    lines = [l.rstrip() for l in text.strip("\n").split("\n")]
    return "\n".join(lines).strip("\n")


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "--check"
    subprocess.run(["dropdb", "--if-exists", DB], check=True, stderr=subprocess.DEVNULL)
    subprocess.run(["createdb", "-E", "UTF8", "-T", "template0", DB], check=True)
    passed = failed = 0
    for sql, expected, line in blocks(os.path.join(ROOT, "README.md")):
        out = psql(sql, DB)
        if mode == "--demo":
            print("-" * 72)
            print(sql.strip())
            print()
            print(out.rstrip() or "(no output)")
            continue
        if expected is None:
            # setup blocks must run cleanly and print nothing
            ok = out.strip() == ""
        else:
            ok = normalise(out) == normalise(expected)
        if ok:
            passed += 1
        else:
            failed += 1
            print(f"README.md line {line}: output differs", file=sys.stderr)
            print("--- documented\n" + (expected or "(nothing)") + "\n--- actual\n" + out,
                  file=sys.stderr)
    subprocess.run(["dropdb", DB], check=True)
    if mode != "--demo":
        p, f = check_snippets(os.path.join(ROOT, "README.md"))
        passed += p
        failed += f
        print(f"README examples: {passed} passed, {failed} failed")
        if passed == 0:
            print("README examples: no example ran", file=sys.stderr)
            return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
