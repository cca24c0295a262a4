#!/usr/bin/env bash
# Runs inside pg_virtualenv's throwaway cluster (PGHOST, PGPORT, PGUSER set),
# for test/majors/run.sh, from the tree's top directory:
#
#   in-cluster.sh old MAJOR OUT    on the machine's own major (15): the bytes
#                                  (test/majors/bytes.sql) to OUT/bytes-MAJOR.txt,
#                                  the dump to move (upgrade.py --write OUT/upgrade),
#                                  the behaviours of this major
#   in-cluster.sh new MAJOR OUT    in a chroot with another major: the pg_regress
#                                  suites, the documentation's examples, resume equivalence,
#                                  resource bounds, postgres_fdw shards, the
#                                  behaviours of this major, the bytes, and the
#                                  dump of the old major restored and resumed
#
# Ends with "PostgreSQL MAJOR tests: N passed, M failed", counting the checks of
# every script as test/in-cluster.sh does.
set -uo pipefail
mode=$1
MAJOR=$2
OUT=$3
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log" "$log.sum"' EXIT

# add the counts of the last "<label>: N passed, M failed" line of file $1
# (none: one failure)
tally() {
	local line
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
	if [ -z "$line" ]; then
		failed=$((failed + 1))
		return
	fi
	passed=$((passed + $(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$line")))
	failed=$((failed + $(sed -E 's/.*passed, ([0-9]+) failed.*/\1/' <<<"$line")))
}

# a test script by name, wherever the test tree keeps it (test/ or a folder
# of it)
script() {
	local f
	for f in "test/$1" test/*/"$1"; do
		[ -f "$f" ] && { echo "$f"; return; }
	done
	echo "test/$1"
}

run() { # label, command...: runs it, shows its output, tallies its last line
	local label=$1
	shift
	echo "== PostgreSQL $MAJOR: $label"
	"$@" 2>&1 | tee "$log"
	tally "$log"
}

# the fixed results, as bytes, compared across majors by run.sh
bytes() {
	local db=segpipe_bytes
	dropdb --if-exists "$db" 2>/dev/null
	createdb -E UTF8 -T template0 --locale=C "$db" &&
		psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" -f test/majors/bytes.sql >"$OUT/bytes-$MAJOR.txt" 2>"$log"
	local rc=$?
	dropdb --if-exists "$db"
	if [ $rc = 0 ]; then
		echo "bytes: $(wc -l <"$OUT/bytes-$MAJOR.txt") lines of results written on PostgreSQL $MAJOR"
		echo "bytes: 1 passed, 0 failed"
	else
		cat "$log"
		echo "bytes: 0 passed, 1 failed"
	fi
}

if [ "$mode" = new ]; then
	echo "== PostgreSQL $MAJOR: pg_regress suites"
	if make -s PG_CONFIG="$PG_CONFIG" installcheck >"$log" 2>&1; then
		rm -rf results
	else
		head -n 300 regression.diffs 2>/dev/null
	fi
	cat "$log"
	echo "pg_regress: $(grep -cE '\.\.\. ok|^ok ' "$log") passed, $(grep -cE '\.\.\. FAILED|^not ok ' "$log") failed" >"$log.sum"
	cat "$log.sum"
	tally "$log.sum"
	run "the documentation's examples" python3 "$(script readme.py)" --check
	run "resume equivalence" python3 "$(script resume.py)"
	run "resource bounds" python3 "$(script bounds.py)"
	run "postgres_fdw shards" python3 "$(script shards.py)"
fi
run "what this major changes" python3 test/majors/behaviours.py
run "bytes" bytes
mkdir -p "$OUT/upgrade"
if [ "$mode" = old ]; then
	run "pg_dump of stored states" python3 test/majors/upgrade.py --write "$OUT/upgrade"
else
	run "the old major's dump restored and resumed" python3 test/majors/upgrade.py --read "$OUT/upgrade"
fi
echo "PostgreSQL $MAJOR tests: $passed passed, $failed failed"
[ "$failed" = 0 ]
