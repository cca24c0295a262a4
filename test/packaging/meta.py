#!/usr/bin/env python3
"""Check META.json against the PGXN Meta Spec 1.0.0 and the project's versions.

No validator for the spec is packaged in Debian or on npm (PGXN's own are a
Perl module on CPAN and a Rust crate), so this script checks the spec's rules
itself, every one of them that a META.json can break:

  M1  the document is a JSON object; the keys are the spec's or custom ones
      (x_ or X_ and at least one more character), at every level that allows
      custom keys (top, provides entries, prereq phases, resources, no_index,
      meta-spec)
  M2  required: name, version, abstract, maintainer, license, provides,
      meta-spec
  M3  name, provides' keys and prereq names are Terms: at least two
      characters, no slash, backslash, white space or control character
  M4  version and each provides version are Semantic Versions 2.0.0
  M5  abstract, description, generated_by: non-empty strings
  M6  maintainer: a non-empty string, or a non-empty list of distinct ones
  M7  license: one of the spec's license names, a non-empty list of distinct
      ones, or a non-empty object mapping names to URIs
  M8  provides: a non-empty object; each entry has file and version, may have
      abstract and docfile (non-empty strings), nothing else but custom keys
  M9  meta-spec: version 1.0.x; url, when given, is the spec's own
  M10 release_status: stable, testing or unstable
  M11 tags: a non-empty list of distinct strings of 2 to 255 characters with
      no slash, backslash or control character
  M12 no_index: file and/or directory, each a non-empty path or a non-empty
      list of distinct ones
  M13 prereqs: phases configure, build, test, runtime, develop (at least
      one); each maps relationships requires, recommends, suggests, conflicts
      (at least one) to a non-empty object of Term -> version range (0, or
      "[op] version" clauses joined by commas, op one of == != < <= > >=)
  M14 resources: homepage (URI), bugtracker (web URI and/or mailto address),
      repository (url with type, and/or web; type lower case); at least one

and the project's own rules:

  P1  the files that provides names exist in the tree (paths in unix form,
      relative, inside the tree)
  P2  META.json's version, provides.segpipe.version, segpipe.control's
      default_version and debian/changelog's upstream version agree

Every rule is also shown to reject a broken document (one mutation per rule),
so that the checker cannot pass everything.  Prints
"PGXN META.json: N passed, M failed".
"""
import copy
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SEMVER = re.compile(
    r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
    r"(-(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?"
    r"(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?")
CLAUSE = re.compile(r"\s*(?:(==|!=|<=|>=|<|>)\s*)?(" + SEMVER.pattern + r")\s*")
CUSTOM = re.compile(r"[xX]_.")
LICENSES = {
    "agpl_3", "apache_1_1", "apache_2_0", "artistic_1", "artistic_2", "bsd", "freebsd",
    "gfdl_1_2", "gfdl_1_3", "gpl_1", "gpl_2", "gpl_3", "lgpl_2_1", "lgpl_3_0", "mit",
    "mozilla_1_0", "mozilla_1_1", "openssl", "perl_5", "postgresql", "qpl_1_0", "ssleay",
    "sun", "zlib", "open_source", "restricted", "unrestricted", "unknown"}
URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s]+")
EMAIL = re.compile(r"[^@\s]+@[^@\s]+")
SPEC_URL = "https://pgxn.org/meta/spec.txt"


class Checker:
    def __init__(self):
        self.errors = []

    def err(self, rule, where, msg):
        self.errors.append(f"{rule} {where}: {msg}")

    def keys(self, rule, where, obj, allowed):
        """unrecognized keys break M1 whatever the rule of the object"""
        for k in obj:
            if k not in allowed and not CUSTOM.match(k):
                self.err("M1", where, f"unrecognized key {k!r}")

    def obj(self, rule, where, v, nonempty=True):
        if not isinstance(v, dict):
            self.err(rule, where, "not an object")
            return False
        if nonempty and not v:
            self.err(rule, where, "empty object")
            return False
        return True

    def string(self, rule, where, v):
        if not isinstance(v, str) or not v:
            self.err(rule, where, "not a non-empty string")
            return False
        return True

    def strings(self, rule, where, v):
        """a non-empty string, or a non-empty list of distinct ones"""
        if isinstance(v, list):
            if not v:
                self.err(rule, where, "empty list")
            if len(set(map(json.dumps, v))) != len(v):
                self.err(rule, where, "repeated element")
            for i, s in enumerate(v):
                self.string(rule, f"{where}[{i}]", s)
        else:
            self.string(rule, where, v)

    def term(self, where, v):
        if not isinstance(v, str) or len(v) < 2 or any(
                c in "/\\" or c.isspace() or ord(c) < 32 or 127 <= ord(c) < 160 for c in v):
            self.err("M3", where, f"{v!r} is not a Term")

    def semver(self, rule, where, v):
        if not isinstance(v, str) or not SEMVER.fullmatch(v):
            self.err(rule, where, f"{v!r} is not a Semantic Version")

    def version_range(self, where, v):
        if v == 0 and not isinstance(v, bool):
            return
        if isinstance(v, str) and (v.strip() == "0" or all(
                CLAUSE.fullmatch(c) for c in v.split(","))):
            return
        self.err("M13", where, f"{v!r} is not a version range")

    def check(self, d):
        if not self.obj("M1", "document", d):
            return self
        top = {"name", "version", "abstract", "maintainer", "license", "provides", "meta-spec",
               "description", "generated_by", "tags", "no_index", "prereqs",
               "release_status", "resources"}
        self.keys("M1", "document", d, top)
        for k in ("name", "version", "abstract", "maintainer", "license", "provides", "meta-spec"):
            if k not in d:
                self.err("M2", "document", f"{k!r} is missing")
        if "name" in d:
            self.term("name", d["name"])
        if "version" in d:
            self.semver("M4", "version", d["version"])
        for k in ("abstract", "description", "generated_by"):
            if k in d:
                self.string("M5", k, d[k])
        if "maintainer" in d:
            self.strings("M6", "maintainer", d["maintainer"])
        if "license" in d:
            self.license(d["license"])
        if "provides" in d and self.obj("M8", "provides", d["provides"]):
            for name, ext in d["provides"].items():
                where = f"provides.{name}"
                self.term(where, name)
                if not self.obj("M8", where, ext):
                    continue
                self.keys("M8", where, ext, {"file", "version", "abstract", "docfile"})
                for k in ("file", "version"):
                    if k not in ext:
                        self.err("M8", where, f"{k!r} is missing")
                for k in ("file", "abstract", "docfile"):
                    if k in ext:
                        self.string("M8", f"{where}.{k}", ext[k])
                if "version" in ext:
                    self.semver("M4", f"{where}.version", ext["version"])
        if "meta-spec" in d and self.obj("M9", "meta-spec", d["meta-spec"]):
            ms = d["meta-spec"]
            self.keys("M9", "meta-spec", ms, {"version", "url"})
            if not isinstance(ms.get("version"), str) or not re.fullmatch(r"1\.0\.[0-9]+", ms["version"]):
                self.err("M9", "meta-spec.version", f"{ms.get('version')!r} is not 1.0.x")
            if "url" in ms and ms["url"] != SPEC_URL:
                self.err("M9", "meta-spec.url", f"must be {SPEC_URL}")
        if "release_status" in d and d["release_status"] not in ("stable", "testing", "unstable"):
            self.err("M10", "release_status", f"{d['release_status']!r} is not a release status")
        if "tags" in d:
            self.tags(d["tags"])
        if "no_index" in d and self.obj("M12", "no_index", d["no_index"]):
            ni = d["no_index"]
            self.keys("M12", "no_index", ni, {"file", "directory"})
            if "file" not in ni and "directory" not in ni:
                self.err("M12", "no_index", "neither file nor directory")
            for k in ("file", "directory"):
                if k in ni:
                    self.strings("M12", f"no_index.{k}", ni[k])
        if "prereqs" in d:
            self.prereqs(d["prereqs"])
        if "resources" in d:
            self.resources(d["resources"])
        return self

    def license(self, v):
        if isinstance(v, str):
            if v not in LICENSES:
                self.err("M7", "license", f"{v!r} is not a license name of the spec")
        elif isinstance(v, list):
            if not v or len(set(map(json.dumps, v))) != len(v):
                self.err("M7", "license", "empty list or repeated name")
            for s in v:
                if s not in LICENSES:
                    self.err("M7", "license", f"{s!r} is not a license name of the spec")
        elif isinstance(v, dict):
            if not v:
                self.err("M7", "license", "empty object")
            for name, uri in v.items():
                if not isinstance(uri, str) or not URI.fullmatch(uri):
                    self.err("M7", f"license.{name}", f"{uri!r} is not a URI")
        else:
            self.err("M7", "license", "not a name, list or object")

    def tags(self, v):
        if not isinstance(v, list) or not v:
            self.err("M11", "tags", "not a non-empty list")
            return
        if len(set(map(json.dumps, v))) != len(v):
            self.err("M11", "tags", "repeated tag")
        for i, t in enumerate(v):
            if not isinstance(t, str) or not 2 <= len(t) <= 255 or any(
                    c in "/\\" or ord(c) < 32 or 127 <= ord(c) < 160 for c in t):
                self.err("M11", f"tags[{i}]", f"{t!r} is not a tag")

    def prereqs(self, v):
        if not self.obj("M13", "prereqs", v):
            return
        phases = {"configure", "build", "test", "runtime", "develop"}
        rels = {"requires", "recommends", "suggests", "conflicts"}
        self.keys("M13", "prereqs", v, phases)
        if not phases & set(v):
            self.err("M13", "prereqs", "no phase")
        for ph in phases & set(v):
            where = f"prereqs.{ph}"
            if not self.obj("M13", where, v[ph]):
                continue
            self.keys("M13", where, v[ph], rels)
            if not rels & set(v[ph]):
                self.err("M13", where, "no relationship")
            for rel in rels & set(v[ph]):
                w = f"{where}.{rel}"
                if not self.obj("M13", w, v[ph][rel]):
                    continue
                for name, rng in v[ph][rel].items():
                    self.term(f"{w}.{name}", name)
                    self.version_range(f"{w}.{name}", rng)

    def resources(self, v):
        if not self.obj("M14", "resources", v):
            return
        self.keys("M14", "resources", v, {"homepage", "bugtracker", "repository"})
        if not {"homepage", "bugtracker", "repository"} & set(v):
            self.err("M14", "resources", "no resource")
        if "homepage" in v and not (isinstance(v["homepage"], str) and URI.fullmatch(v["homepage"])):
            self.err("M14", "resources.homepage", "not a URI")
        bt = v.get("bugtracker")
        if bt is not None and self.obj("M14", "resources.bugtracker", bt):
            self.keys("M14", "resources.bugtracker", bt, {"web", "mailto"})
            if "web" not in bt and "mailto" not in bt:
                self.err("M14", "resources.bugtracker", "neither web nor mailto")
            if "web" in bt and not (isinstance(bt["web"], str) and URI.fullmatch(bt["web"])):
                self.err("M14", "resources.bugtracker.web", "not a URI")
            if "mailto" in bt and not (isinstance(bt["mailto"], str) and EMAIL.fullmatch(bt["mailto"])):
                self.err("M14", "resources.bugtracker.mailto", "not an address")
        rp = v.get("repository")
        if rp is not None and self.obj("M14", "resources.repository", rp):
            self.keys("M14", "resources.repository", rp, {"url", "web", "type"})
            if not (("url" in rp and "type" in rp) or "web" in rp):
                self.err("M14", "resources.repository", "needs url and type, or web")
            for k in ("url", "web"):
                if k in rp and not (isinstance(rp[k], str) and URI.fullmatch(rp[k])):
                    self.err("M14", f"resources.repository.{k}", "not a URI")
            if "type" in rp and not (isinstance(rp["type"], str) and re.fullmatch(r"[a-z]+", rp["type"])):
                self.err("M14", "resources.repository.type", "not a lower-case word")


def project_rules(d, root):
    """P1 and P2 for the document d and the tree at root; a list of errors"""
    errors = []
    for name, ext in (d.get("provides") or {}).items():
        for k in ("file", "docfile"):
            f = ext.get(k) if isinstance(ext, dict) else None
            if f is None:
                continue
            if not isinstance(f, str) or f.startswith("/") or "\\" in f or ".." in f.split("/") \
                    or not os.path.isfile(os.path.join(root, f)):
                errors.append(f"P1 provides.{name}.{k}: {f!r} is not a file of the tree")
    control = open(os.path.join(root, "segpipe.control")).read()
    m = re.search(r"^default_version\s*=\s*'([^']*)'", control, re.M)
    default = m.group(1) if m else None
    m = re.match(r"\S+ \(([^)]*)\)", open(os.path.join(root, "debian/changelog")).readline())
    deb = re.sub(r"^[0-9]+:", "", m.group(1)).rsplit("-", 1)[0] if m else None
    seen = {"segpipe.control default_version": default,
            "debian/changelog upstream version": deb,
            "META.json version": d.get("version"),
            "META.json provides.segpipe.version": (d.get("provides") or {}).get("segpipe", {}).get("version")}
    if len(set(seen.values())) != 1 or None in seen.values():
        errors.append("P2 versions disagree: " + ", ".join(f"{k} {v}" for k, v in seen.items()))
    return errors


# one broken document per rule: (rule, mutation); each must be rejected
def _set(path, value):
    def f(d):
        *head, last = path
        for k in head:
            d = d[k]
        if value is KeyError:
            del d[last]
        else:
            d[last] = value
    return f


MUTATIONS = [
    ("M1", _set(["homepage"], "https://example.org/")),
    ("M1", _set(["provides", "segpipe", "sql"], "a.sql")),
    ("M2", _set(["meta-spec"], KeyError)),
    ("M2", _set(["maintainer"], KeyError)),
    ("M3", _set(["name"], "seg pipe")),
    ("M3", _set(["name"], "s")),
    ("M4", _set(["version"], "0.3")),
    ("M4", _set(["provides", "segpipe", "version"], "v0.3.0")),
    ("M5", _set(["abstract"], "")),
    ("M6", _set(["maintainer"], [])),
    ("M6", _set(["maintainer"], ["a", "a"])),
    ("M7", _set(["license"], "PostgreSQL")),
    ("M7", _set(["license"], {"PostgreSQL": "not a uri"})),
    ("M8", _set(["provides"], {})),
    ("M8", _set(["provides", "segpipe", "file"], KeyError)),
    ("M9", _set(["meta-spec", "version"], "2.0.0")),
    ("M9", _set(["meta-spec", "url"], "https://pgxn.org/spec/")),
    ("M10", _set(["release_status"], "beta")),
    ("M11", _set(["tags"], ["time/series"])),
    ("M11", _set(["tags"], ["x" * 256])),
    ("M12", _set(["no_index"], {"dirs": ["test"]})),
    ("M13", _set(["prereqs", "runtime", "requires", "PostgreSQL"], "~> 15")),
    ("M1", _set(["prereqs", "runtime", "needs"], {"plpgsql": 0})),
    ("M13", _set(["prereqs", "test"], {"requires": {}})),
    ("M14", _set(["resources"], {"repository": {"url": "https://example.org/segpipe.git"}})),
    ("M14", _set(["resources"], {"bugtracker": {"web": "no uri"}})),
    ("P1", _set(["provides", "segpipe", "file"], "src/segpipe--0.3.0.sql")),
    ("P2", _set(["version"], "0.3.1")),
]


def main():
    path = os.path.join(ROOT, "META.json")
    passed = failed = 0
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"META.json: {e}")
        print("PGXN META.json: 0 passed, 1 failed")
        return 1
    errors = Checker().check(doc).errors + project_rules(doc, ROOT)
    for e in errors:
        print("META.json:", e)
    if errors:
        failed += 1
    else:
        passed += 1
        print(f"META.json satisfies M1-M14 and P1-P2 (version {doc['version']})")
    # the checker rejects each broken document, for the rule broken
    for rule, mutate in MUTATIONS:
        bad = copy.deepcopy(doc)
        mutate(bad)
        got = [e for e in Checker().check(bad).errors + project_rules(bad, ROOT)
               if e.split(" ", 1)[0] == rule]
        if got:
            passed += 1
        else:
            failed += 1
            print(f"the checker accepted a document that breaks {rule}")
    print(f"PGXN META.json: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
