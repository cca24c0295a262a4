#!/usr/bin/env bash
# The client snippets of docs/reference.md, run as they are written there:
# psycopg 3 (Debian's python3-psycopg, with the system's python3) and node-postgres
# (pg 8 from the npm registry, installed into a temporary directory).  Each
# snippet's output must be its .out file.  Runs inside pg_virtualenv
# (PGHOST, PGPORT, PGUSER, PGPASSWORD set), in a database of its own.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
DB=segpipe_clients
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# npm's cache and its debug logs go in there too, not into ~/.npm
export npm_config_cache="$tmp/npm-cache" npm_config_update_notifier=false

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

if (cd "$tmp" && npm install --no-audit --no-fund --loglevel=error pg@8 >"$tmp/npm.log" 2>&1); then
	check "node-postgres $(node -p "require('$tmp/node_modules/pg/package.json').version") (test/clients/node_example.js)" \
		test/clients/node_example.out env NODE_PATH="$tmp/node_modules" node test/clients/node_example.js
else
	rc=$?
	# the reason: npm's error lines, without its stack trace, the error
	# object's fields and the debug log's name (that log goes with $tmp)
	reason=$(grep -E '^npm (error|ERR!) ' "$tmp/npm.log" |
		grep -vE '^npm (error|ERR!)(  |$| *\}$)|complete log of this run')
	[ -n "$reason" ] || reason=$(tail -n 20 "$tmp/npm.log")
	# the FAILED line carries the most telling one
	why=$(grep -m 1 -E 'Error|reason|[0-9]{3} ' <<<"$reason" || head -n 1 <<<"$reason")
	echo "FAILED: npm install pg@8 (exit status $rc): ${why#npm * }"
	sed 's/^/    /' <<<"$reason"
	failed=$((failed + 1))
fi

dropdb "$DB"
echo "client snippets: $passed passed, $failed failed"
[ "$failed" = 0 ]
