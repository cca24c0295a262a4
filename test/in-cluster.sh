#!/usr/bin/env bash
# Runs inside pg_virtualenv (PGHOST, PGPORT, PGUSER set): every suite, then
# one summary line counting the individual tests.
# Order: static analysis, pg_regress, the documentation's examples and its
# picture (README.md, docs/), resource bounds,
# fuzzing through the server, the spec reader's memory and time, fuzzing
# outside the server, the results-tables recipe (its pg_cron job is scheduled
# first).  Exit status is non-zero
# when anything failed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
passed=0
failed=0
status=0

# add the counts of a "<label>: N passed, M failed" line in file $1
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

log=$(mktemp)

# pg_regress says "(using postmaster on localhost, port N)": say whose it is
# (pg_lsclusters sees only pg_virtualenv's own clusters here)
describe_cluster() {
	local ver name port _ _ datadir _
	read -r ver name port _ _ datadir _ < <(pg_lsclusters -h | grep -w "$PGPORT" | head -n 1)
	echo "   pg_regress below runs in pg_virtualenv's throwaway cluster $ver/$name (port $port," \
		"data directory $datadir), dropped at the end; the machine's own clusters are not used"
}

# pg_cron runs jobs at minute boundaries: schedule the recipe's refresh now,
# test/recipe.py checks its run at the end
python3 test/recipe.py --cron-start || status=1

echo "== static analysis (cppcheck)"
if cppcheck --quiet --enable=warning,portability,performance --std=c99 \
	-I "$("$PG_CONFIG" --includedir-server)" --suppress=missingIncludeSystem \
	--suppress='*:/usr/include/*' --suppress=toomanyconfigs --error-exitcode=1 src/*.c; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	status=1
fi

echo "== pg_regress suites"
describe_cluster
if make -s PG_CONFIG="$PG_CONFIG" installcheck >"$log" 2>&1; then
	rm -rf results # pg_regress's outputs; on a failure they stay, with regression.diffs
else
	status=1
fi
cat "$log"
[ $status = 0 ] || head -n 300 regression.diffs 2>/dev/null
echo "pg_regress: $(grep -cE '\.\.\. ok' "$log") passed, $(grep -cE '\.\.\. FAILED' "$log") failed" >"$log.sum"
tally "$log.sum"

for t in "documentation examples (README.md, docs/*.md):python3 test/readme.py --check" \
	"the picture (docs/segments.svg is what docs/segments.py draws):python3 docs/segments.py --check" \
	"resource bounds (state cap, start and reset cost, cancellation, growth):python3 test/bounds.py" \
	"resume equivalence (text, COPY binary, libpq binary mode):python3 test/resume.py" \
	"input fuzzing:python3 test/fuzz.py" \
	"hostile roles through pg_dump and pg_restore:python3 test/hostile_dump.py" \
	"memory and time of reading hostile specs:python3 test/spec_memory.py" \
	"fuzzing outside the server (libFuzzer, ASan, UBSan):bash test/libfuzz.sh 20" \
	"client snippets (psycopg 3, node-postgres):bash test/clients.sh" \
	"maintained on insert, concurrent inserters:python3 test/maintain_concurrency.py" \
	"maintained on insert, crash and recovery (a cluster of its own):python3 test/maintain_crash.py" \
	"results tables recipe (refresh, late and repeated readings, pg_cron):python3 test/recipe.py" \
	"PGXN META.json (meta spec 1.0.0; versions agree):python3 test/meta.py" \
	"postgres_fdw shards (pushdown, recipe on the shards, equality with one server; own clusters):python3 test/shards.py"; do
	echo "== ${t%%:*}"
	# shellcheck disable=SC2086
	${t#*:} 2>&1 | tee "$log" || status=1
	tally "$log"
done

rm -f "$log" "$log.sum"
# run-tests.sh prints the summary as its last line, after pg_virtualenv's
# messages; run alone, this script prints it
if [ -n "${SEGPIPE_SUMMARY:-}" ]; then
	echo "$passed passed, $failed failed" >"$SEGPIPE_SUMMARY"
else
	echo
	echo "$passed passed, $failed failed"
fi
[ $status = 0 ] && [ "$failed" = 0 ]
