#!/usr/bin/env bash
# The Debian package: builds postgresql-NN-segpipe with dpkg-buildpackage in
# a temporary copy of the tree, installs the .deb on this machine, runs the
# pg_regress suites against the installed files (pg_buildext installcheck, in
# a throwaway cluster) and removes the package again, unless it was installed
# before.  Also checks that the versions agree: segpipe.control's
# default_version, debian/changelog's upstream version, META.json's, and the
# built package's.  Ends with "Debian package: N passed, M failed".
#
# The build runs the suites too (dh_pgxs_test, against debian/<package>);
# DEB_BUILD_OPTIONS=nocheck skips that.  Needs dpkg-dev, debhelper, fakeroot
# and postgresql-server-dev-all (test/setup.sh --tests).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/test/lib.sh"
passed=0
failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; failed=$((failed + 1)); }
finish() {
	echo "Debian package: $passed passed, $failed failed"
	[ "$failed" = 0 ]
	exit
}

pkg="postgresql-$PG_MAJOR-segpipe"
work=$(mktemp -d)
# the build's test cluster runs as postgres when we are root: it reads the
# package's files in debian/<package>
chmod 755 "$work"
was_installed=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -c ' installed$')
cleanup() {
	if [ "$was_installed" = 0 ] && dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q ' installed$'; then
		as_root dpkg -r "$pkg" >/dev/null 2>&1
	fi
	rm -rf "$work"
}
trap cleanup EXIT

# the versions agree
default=$(sed -nE "s/^default_version *= *'([^']*)'.*/\1/p" "$ROOT/segpipe.control")
debver=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)
meta=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["version"], d["provides"]["segpipe"]["version"])' "$ROOT/META.json")
if [ -n "$default" ] && [ "${debver%-*}" = "$default" ] && [ "$meta" = "$default $default" ]; then
	ok "versions agree: default_version $default, debian/changelog $debver, META.json $meta"
else
	bad "versions disagree: default_version '$default', debian/changelog '$debver', META.json '$meta'"
fi

# a copy of the tree: the files git knows (committed or not), else all of it
src="$work/segpipe-$default"
mkdir "$src"
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$ROOT" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$src")
else
	cp -a "$ROOT/." "$src/"
fi
make -s -C "$src" PG_CONFIG="$PG_CONFIG" clean >/dev/null 2>&1

# The build's suites and pg_buildext installcheck below make their clusters
# with pg_createcluster, which takes the locale from the environment: the
# same as everywhere else (test/lib.sh's CLUSTER_OPTS), whatever the caller's.
export LC_ALL=C.UTF-8
# segpipe's scripts installed before (make install of another tree) must not
# mix with the package's
remove_installed_scripts

echo "== dpkg-buildpackage -us -uc -b in $src"
start=$(date +%s)
if (cd "$src" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1; then
	ok "dpkg-buildpackage ($(($(date +%s) - start)) s)"
else
	tail -n 60 "$work/build.log"
	bad "dpkg-buildpackage"
	finish
fi
# the build's own run of the suites (dh_pgxs_test), unless nocheck
grep -E '^### End|tests (passed|failed)|\.\.\. FAILED|^not ok [0-9]' "$work/build.log" | sed 's/^/   build: /'
deb=$(ls "$work"/"$pkg"_*.deb 2>/dev/null | head -n 1)
if [ -z "$deb" ]; then
	bad "no $pkg .deb built"
	finish
fi
files=$(dpkg-deb -c "$deb" | awk '{print $6}' | grep -vE '/$')
ok "built $(basename "$deb"), $(du -k "$deb" | cut -f1) kB, installed size $(dpkg-deb -f "$deb" Installed-Size) kB;" \
	"$(grep -c /bitcode/ <<<"$files") JIT bitcode files and:"
grep -v /bitcode/ <<<"$files" | sed 's/^/   /'
if [ "$(dpkg-deb -f "$deb" Version)" = "$debver" ] && [ "$(dpkg-deb -f "$deb" Package)" = "$pkg" ]; then
	ok "the package is $pkg $debver"
else
	bad "the package is $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version), not $pkg $debver"
fi

echo "== installing $(basename "$deb")"
if as_root dpkg -i "$deb" >"$work/install.log" 2>&1; then
	ok "dpkg -i"
else
	cat "$work/install.log"
	bad "dpkg -i"
	finish
fi
sharedir=$("$PG_CONFIG" --sharedir)
libdir=$("$PG_CONFIG" --pkglibdir)
missing=0
# the upgrade script that ends at the default version, whichever it starts from
upgrade=$(ls "$sharedir"/extension/segpipe--*--"$default".sql 2>/dev/null | head -n 1)
for f in "$libdir/segpipe.so" "$sharedir/extension/segpipe.control" \
	"${upgrade:-$sharedir/extension/segpipe--*--$default.sql}"; do
	dpkg -S "$f" >/dev/null 2>&1 || { echo "   $f is not from $pkg"; missing=1; }
done
if [ $missing = 0 ]; then ok "segpipe.so, segpipe.control and the scripts are the package's"; else bad "files"; fi

# pg_buildext runs make installcheck in a throwaway cluster (pg_virtualenv)
# for each installed server version, against the installed files
echo "== pg_buildext installcheck (the suites against the installed package, in pg_virtualenv's throwaway cluster)"
(cd "$src" && pg_buildext installcheck) >"$work/check.log" 2>&1
rc=$?
# a suite's line: "test ... ok" (PostgreSQL 15), "ok 1 - test" (16 on)
grep -E 'Creating new|Dropping cluster|using postmaster|\.\.\. (ok|FAILED)|^(not )?ok [0-9]|tests (passed|failed)' "$work/check.log"
n_ok=$(grep -cE '\.\.\. ok|^ok [0-9]' "$work/check.log")
n_bad=$(grep -cE '\.\.\. FAILED|^not ok [0-9]' "$work/check.log")
passed=$((passed + n_ok))
failed=$((failed + n_bad))
if [ $rc != 0 ] || [ "$n_ok" = 0 ]; then
	server_log_excerpt <"$work/check.log" | tail -n 80
	bad "pg_buildext installcheck exited $rc"
fi
finish
