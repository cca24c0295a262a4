#!/usr/bin/env python3
"""Run the SQL examples of the documentation (README.md, docs/*.md) against a live server.

Every ```sql block of a document runs, in order, in a fresh database of the
document's own; a document that does not create the extension itself gets it
created first.  When a ```text block follows a ```sql block (nothing but blank
lines between), that block is the output psql prints for it, and --check
compares the two, so the documentation cannot drift from the code; a block
with no output shown must print nothing.  --check then runs the README's
blocks and the tour's (docs/tour.md, without its CREATE EXTENSION) in one
database, as a reader following both would, with the same comparisons.
--demo prints each query and its output instead.

Connection settings come from the environment (PGHOST, PGPORT, PGUSER), as
set by pg_virtualenv.  Output is taken in the UTC time zone.

The client snippets (```python and ```js blocks) are not run here: test/clients/clients.sh
runs their files.  A snippet's first line names its file ("# test/clients/x.py"
or "// test/clients/x.js"); --check compares the block with that file, and the
```text block after it, if any, with the file's .out.  Every .py and .js file
in test/clients must be shown this way, in one document or another.

--check also follows the links between the documents: a relative link must
name a file of the repository and, after "#", one of its headings (as GitHub
turns headings into anchors).
"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DB = "segpipe_readme"
FENCE = re.compile(r"^```(\w*)\s*$")
CREATES = re.compile(r"(?i)\bCREATE\s+EXTENSION\s+segpipe\b")
CREATE_STATEMENT = re.compile(r"(?im)^\s*CREATE\s+EXTENSION\s+segpipe\s*;[ \t]*$")


def documents():
    """The documents, as paths relative to ROOT: the README first, then docs/ in name order."""
    docs = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
    return ["README.md"] + docs


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


def read_lines(doc):
    return open(os.path.join(ROOT, doc), encoding="utf-8").read().split("\n")


def blocks(doc):
    """Yield (sql, expected_or_None, line_number) for the ```sql blocks of a document."""
    lines = read_lines(doc)
    found = fenced(lines)
    for n, (lang, text, start, end) in enumerate(found):
        if lang == "sql":
            yield text, followed_by_text(lines, found, n), start


SNIPPET = re.compile(r"^(?:#|//) (test/clients/[\w.-]+\.(?:py|js))\b")


def check_snippets(docs):
    """Compare the client snippets with their files; returns (passed, failed)."""
    passed = failed = 0
    shown = set()
    for doc in docs:
        lines = read_lines(doc)
        found = fenced(lines)
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
                    print(f"{doc} line {start}: differs from {file}", file=sys.stderr)
    folder = os.path.join(ROOT, "test", "clients")
    for f in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if f.endswith((".py", ".js")) and f"test/clients/{f}" not in shown:
            failed += 1
            print(f"test/clients/{f} is not shown in the documentation", file=sys.stderr)
    return passed, failed


def prose(lines):
    """The lines outside fenced blocks, with their numbers, inline code removed."""
    inside = False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            inside = not inside
            continue
        if not inside:
            yield i + 1, re.sub(r"`[^`]*`", "", line)


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation but '-' and '_' dropped, spaces to '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def heading_anchors(doc):
    """Every anchor the document's headings give, duplicates numbered as GitHub numbers them."""
    result = set()
    count = {}
    inside = False
    for line in read_lines(doc):
        if line.startswith("```"):
            inside = not inside
            continue
        m = None if inside else re.match(r"^#{1,6}\s+(.*?)\s*$", line)
        if m:
            s = slug(m.group(1))
            n = count.get(s, 0)
            count[s] = n + 1
            result.add(s if n == 0 else f"{s}-{n}")
    return result


LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def check_links(docs):
    """Every relative link of every document; returns (passed, failed), one check per document."""
    passed = failed = 0
    for doc in docs:
        broken = []
        for number, line in prose(read_lines(doc)):
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                    continue
                path, _, fragment = target.partition("#")
                file = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
                if not os.path.exists(os.path.join(ROOT, file)):
                    broken.append(f"{doc} line {number}: links to {file}, which is not in this tree")
                    continue
                if fragment and (not file.endswith(".md") or fragment not in heading_anchors(file)):
                    broken.append(f"{doc} line {number}: {target}: no heading of {file} "
                                  f"has the anchor #{fragment}")
        if broken:
            failed += 1
            print("\n".join(broken), file=sys.stderr)
        else:
            passed += 1
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


def run_document(doc, mode, *more):
    """Runs a document's SQL blocks in a fresh database, then those of the documents in
    more, in the same database, skipping their CREATE EXTENSION segpipe (a reader who
    follows the README and then the tour); returns (passed, failed)."""
    runs = [(doc, sql, expected, line) for sql, expected, line in blocks(doc)]
    for other in more:
        runs += [(other, CREATE_STATEMENT.sub("", sql), expected, line) for sql, expected, line in blocks(other)]
    if not runs:
        return 0, 0
    passed = failed = 0
    subprocess.run(["dropdb", "--if-exists", DB], check=True, stderr=subprocess.DEVNULL)
    subprocess.run(["createdb", "-E", "UTF8", "-T", "template0", DB], check=True)
    if not any(CREATES.search(sql) for d, sql, _, _ in runs if d == doc):
        out = psql("CREATE EXTENSION segpipe;", DB)
        if out.strip():
            print(f"{doc}: CREATE EXTENSION segpipe printed\n{out}", file=sys.stderr)
            failed += 1
    for doc, sql, expected, line in runs:
        out = psql(sql, DB)
        if mode == "--demo":
            print("-" * 72)
            print(f"-- {doc} line {line}")
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
            print(f"{doc} line {line}: output differs", file=sys.stderr)
            print("--- documented\n" + (expected or "(nothing)") + "\n--- actual\n" + out,
                  file=sys.stderr)
    subprocess.run(["dropdb", DB], check=True)
    return passed, failed


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "--check"
    docs = documents()
    passed = failed = 0
    for doc in docs:
        p, f = run_document(doc, mode)
        passed += p
        failed += f
    if mode != "--demo":
        # a reader who follows the README and then the tour in one database: the
        # tour's names must not clash with the README's, and its outputs stay as shown
        p, f = run_document("README.md", mode, "docs/tour.md")
        print(f"README.md, then docs/tour.md in the same database: {p} passed, {f} failed")
        passed += p
        failed += f
        for p, f in (check_snippets(docs), check_links(docs)):
            passed += p
            failed += f
        print(f"documentation examples: {passed} passed, {failed} failed")
        if passed == 0:
            print("documentation examples: no example ran", file=sys.stderr)
            return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
