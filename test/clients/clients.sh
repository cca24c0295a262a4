#!/usr/bin/env bash
# The client snippets of docs/reference.md, run as they are written there:
# psycopg 3 (Debian's python3-psycopg, with the system's python3) and node-postgres
# (Debian's node-pg, which test/setup.sh --tests installs: nothing is
# downloaded here).  Each snippet's output must be its .out file.  Runs inside
# pg_virtualenv (PGHOST, PGPORT, PGUSER, PGPASSWORD set), in a database of its
# own.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
. test/lib.sh
DB=segpipe_clients
passed=0
failed=0

dropdb --if-exists "$DB" 2>/dev/null && createdb "$DB" && psql -X -q -d "$DB" -c 'CREATE EXTENSION segpipe' || exit 1
export PGDATABASE=$DB PGTZ=UTC

# check <label> <expected output file> <command...>
check() {
	local label=$1 expected=$2 out
	shift 2
	if out=$("$@" 2>&1) && [ "$out" = "$(cat "$expected")" ]; then
		echo "ok: $label"
		passed=$((passed + 1))
	else
		echo "FAILED: $label"
		diff <(cat "$expected") <(echo "$out") | sed 's/^/    /'
		failed=$((failed + 1))
	fi
}

check "psycopg 3 (test/clients/psycopg_example.py)" test/clients/psycopg_example.out \
	/usr/bin/python3 test/clients/psycopg_example.py

# /usr/share/nodejs is where Debian's node looks by itself; another node
# (NodeSource's) needs it named, and the cache where test/setup.sh unpacked
# node-pg for it
export NODE_PATH=$NODE_PG_PATH
if pg_version=$(node -p "require('pg/package.json').version" 2>/dev/null); then
	pg_dir=$(node -p "require('path').dirname(require.resolve('pg/package.json'))")
	check "node-postgres $pg_version in $pg_dir (test/clients/node_example.js)" \
		test/clients/node_example.out node test/clients/node_example.js
else
	echo "FAILED: node-postgres: no module pg in $NODE_PATH (Debian's node-pg; test/setup.sh --tests installs it)"
	failed=$((failed + 1))
fi

dropdb "$DB"
echo "client snippets: $passed passed, $failed failed"
[ "$failed" = 0 ]
