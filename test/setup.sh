#!/usr/bin/env bash
# Installs, with apt-get (as root, or through sudo), what is missing on a
# Debian 12 machine with the PostgreSQL server installed: the one place the
# scripts of test/ install packages.
#
#   test/setup.sh             what building segpipe and running it in a
#                             throwaway cluster need (test/demo.sh,
#                             test/bench/bench.sh)
#   test/setup.sh --tests     that and the tools the tests use (test/run-tests.sh)
#   test/setup.sh --valgrind  that and valgrind (test/valgrind.sh)
#
# Only what is missing is installed; when something is, apt-get update runs
# first (a fresh machine has no package lists).  Nothing comes from
# elsewhere than Debian's archive: node-postgres is Debian's node-pg (see
# lib.sh's NODE_PG_CACHE for a machine whose nodejs is not Debian's).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/test/lib.sh"

tests=0
valgrind=0
for arg; do
	case $arg in
	--tests) tests=1 ;;
	--valgrind) valgrind=1 ;;
	*) echo "usage: test/setup.sh [--tests] [--valgrind]" >&2; exit 2 ;;
	esac
done

need=()
# Building and running: the server headers (postgresql-server-dev-NN, which
# brings clang for the JIT bitcode) are not on a fresh machine.
[ -f "/usr/include/postgresql/$PG_MAJOR/server/postgres.h" ] || need+=("postgresql-server-dev-$PG_MAJOR")
command -v pg_virtualenv >/dev/null || need+=(postgresql-common)
command -v make >/dev/null || need+=(make)
command -v gcc >/dev/null || need+=(gcc)
command -v python3 >/dev/null || need+=(python3)

if [ $tests = 1 ]; then
	# pg_cron (test/integration/recipe.py)
	[ -f "/usr/lib/postgresql/$PG_MAJOR/lib/pg_cron.so" ] || need+=("postgresql-$PG_MAJOR-cron")
	# the client snippets (test/clients/clients.sh): psycopg 3 with the
	# system's python3, node-postgres (node-pg, which brings nodejs)
	/usr/bin/python3 -c 'import psycopg' 2>/dev/null || need+=(python3-psycopg)
	command -v node >/dev/null || need+=(node-pg)
	# the duration windows' oracle (test/integration/time_windows.py)
	/usr/bin/python3 -c 'import pandas' 2>/dev/null || need+=(python3-pandas)
	# static analysis (test/in-cluster.sh)
	command -v cppcheck >/dev/null || need+=(cppcheck)
	# libFuzzer (test/fuzz/libfuzz.sh)
	command -v clang >/dev/null || need+=(clang)
	compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null ||
		need+=(libclang-rt-14-dev)
	# a libpq client compiled at test time (test/integration/resume.py)
	[ -f /usr/include/postgresql/libpq-fe.h ] || need+=(libpq-dev)
	# the Debian package (test/packaging/deb.sh)
	command -v dpkg-buildpackage >/dev/null || need+=(dpkg-dev)
	command -v dh >/dev/null || need+=(debhelper)
	command -v fakeroot >/dev/null || need+=(fakeroot)
	command -v pg_buildext >/dev/null && [ -f /usr/share/postgresql-common/pgxs_debian_control.mk ] ||
		need+=(postgresql-server-dev-all)
	# the package's test dependency (debian/control: every supported server)
	dpkg-query -W -f='${Status}' postgresql-all 2>/dev/null | grep -q ' installed$' || need+=(postgresql-all)
fi
# instructions counted (test/integration/work.py), memcheck (test/valgrind.sh)
if [ $tests = 1 ] || [ $valgrind = 1 ]; then
	command -v valgrind >/dev/null || need+=(valgrind)
fi

updated=0
if [ ${#need[@]} -gt 0 ]; then
	echo "== installing: ${need[*]}"
	as_root apt-get update -qq
	updated=1
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

# node-pg where a nodejs is there but no node-pg: installed when the nodejs
# is Debian's; when it is not (apt-get cannot install node-pg beside it, and
# replacing it is not ours to do), node-pg and the two packages of its
# dependencies that pg needs are unpacked into NODE_PG_CACHE, as they are
# in Debian's archive
if [ $tests = 1 ] && ! NODE_PATH=$NODE_PG_PATH node -e "require('pg')" 2>/dev/null; then
	[ $updated = 1 ] || as_root apt-get update -qq
	if as_root apt-get install -s -qq node-pg >/dev/null 2>&1; then
		echo "== installing: node-pg"
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq node-pg >/dev/null
	else
		echo "== unpacking node-pg, node-split2 and node-xtend into $NODE_PG_CACHE" \
			"(this machine's nodejs, $(node --version), is not Debian's)"
		debs=$(mktemp -d)
		chmod 755 "$debs" # apt-get download writes as _apt where it can
		(cd "$debs" && apt-get download -qq node-pg node-split2 node-xtend 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2) || true
		as_root mkdir -p "$NODE_PG_CACHE"
		for deb in "$debs"/*.deb; do as_root dpkg-deb -x "$deb" "$NODE_PG_CACHE"; done
		rm -rf "$debs"
		NODE_PATH=$NODE_PG_PATH node -e "require('pg')" || { echo "node-pg: not found in $NODE_PG_CACHE" >&2; exit 1; }
	fi
fi
