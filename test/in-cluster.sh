#!/usr/bin/env bash
# Runs inside pg_virtualenv (PGHOST, PGPORT, PGUSER set): every suite, then
# what failed (each failing suite by name, with the lines of its output that
# name a failed check) and one summary line counting the individual tests.
# Order: static analysis, pg_regress, the documentation's examples and its
# picture (README.md, docs/), resource bounds, fuzzing through the server,
# hostile roles through pg_dump, the spec reader's memory, work counted in
# instructions, fuzzing outside the server, the client snippets, results
# maintained on insert, silent sensors closed on time, the results-tables
# recipe (its pg_cron job is scheduled first), META.json, postgres_fdw
# shards, Citus (test/citus/citus.sh).  Exit status is non-zero
# when anything failed.
#
# Run by test/run-tests.sh, which prints the list and the summary itself, at
# its very end (SEGPIPE_FAILURES and SEGPIPE_SUMMARY name the files for
# them); run alone, this script prints them.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
passed=0
failed=0
status=0

log=$(mktemp)
failures=${SEGPIPE_FAILURES:-$(mktemp)}

# tally <label> <log> <exit status>: adds the counts of the last "N passed,
# M failed" line of the suite's output; a suite without that line, or one
# that exits non-zero with no failure counted, counts one failure.  A suite
# that failed goes on the list of failures: its label, its count, and the
# lines of its output that name a failed check.
tally() {
	local label=$1 out=$2 rc=$3 line p=0 f=1 why=
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
	if [ -n "$line" ]; then
		p=$(sed -E 's/.*(^|[^0-9])([0-9]+) passed.*/\2/' <<<"$line")
		f=$(sed -E 's/.*passed, ([0-9]+) failed.*/\1/' <<<"$line")
		if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
			f=1
			why=" (exit status $rc)"
		fi
	else
		why=" (no \"N passed, M failed\" line; exit status $rc)"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$f" != 0 ]; then
		status=1
		{
			echo "$label: $f failed$why"
			grep -E '(^|[[:space:]])FAIL(ED)?\b' "$out" | head -n 20 | sed -E 's/^[[:space:]]*/    /'
		} >>"$failures"
	fi
}

# pg_regress says "(using postmaster on localhost, port N)": say whose it is
# (pg_lsclusters sees only pg_virtualenv's own clusters here)
describe_cluster() {
	local ver name port _ _ datadir _
	read -r ver name port _ _ datadir _ < <(pg_lsclusters -h | grep -w "$PGPORT" | head -n 1)
	echo "   pg_regress below runs in pg_virtualenv's throwaway cluster $ver/$name (port $port," \
		"data directory $datadir), dropped at the end; the machine's own clusters are not used"
}

# pg_cron runs jobs at minute boundaries: schedule the recipe's refresh now,
# test/integration/recipe.py checks its run at the end
python3 test/integration/recipe.py --cron-start >"$log" 2>&1
rc=$?
cat "$log"
[ $rc = 0 ] || tally "results tables recipe: scheduling its pg_cron job" "$log" $rc

# (one process per core: it is the slowest step of this script)
echo "== static analysis (cppcheck)"
cppcheck --quiet -j "$(nproc)" --enable=warning,portability,performance --std=c99 \
	-I "$("$PG_CONFIG" --includedir-server)" -I src -I src/engine -I src/codec -I src/server \
	--suppress=missingIncludeSystem --suppress='*:/usr/include/*' --suppress=toomanyconfigs \
	--error-exitcode=1 src/*/*.c >"$log" 2>&1
rc=$?
cat "$log"
# its findings, each on a line of its own, are the failed checks
{ cat "$log"; echo "cppcheck: $((rc == 0)) passed, $((rc != 0)) failed"; } | sed -E 's/^(src\/)/FAILED: \1/' >"$log.sum"
tally "static analysis (cppcheck)" "$log.sum" $rc

echo "== pg_regress suites"
describe_cluster
# as a superuser named neither postgres nor after whoever runs this: an
# expected output that held the name of the cluster's own superuser (postgres
# as root, the login otherwise) fails here, and one that held this name fails
# in the Debian package's run (test/packaging/deb.sh) and in the 17 and 18
# chroots, which connect as the cluster's own
runner=regress_segpipe_runner
psql -X -q -v ON_ERROR_STOP=1 -v runner="$runner" -v pw="${PGPASSWORD:-}" -d postgres >"$log" 2>&1 <<'SQL'
SELECT format('CREATE ROLE %I SUPERUSER LOGIN', :'runner')
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'runner') \gexec
SELECT format('ALTER ROLE %I PASSWORD %L', :'runner', :'pw') WHERE :'pw' <> '' \gexec
SQL
rc=$?
echo "   as $runner, a superuser of another name than the cluster's own ($PGUSER)"
if [ $rc = 0 ]; then
	PGUSER=$runner make -s PG_CONFIG="$PG_CONFIG" installcheck >"$log" 2>&1
	rc=$?
fi
rc=$?
cat "$log"
if [ $rc = 0 ]; then
	rm -rf results # pg_regress's outputs; on a failure they stay, with regression.diffs
else
	head -n 300 regression.diffs 2>/dev/null
fi
{ cat "$log"; echo "pg_regress: $(grep -cE '\.\.\. ok' "$log") passed, $(grep -cE '\.\.\. FAILED' "$log") failed"; } >"$log.sum"
tally "pg_regress suites (regression.diffs)" "$log.sum" $rc

for t in "layers of src/ (no include runs upward):bash test/integration/layers.sh" \
	"update paths (each released version, updated, reads as a fresh install; src/sql/build.sh's rules):python3 test/integration/upgrade_paths.py" \
	"progress of long work (set-up over 4 million readings says how far it is):python3 test/integration/progress.py" \
	"documentation examples (README.md, docs/*.md):python3 test/integration/readme.py --check" \
	"the picture (docs/segments.svg is what docs/segments.py draws):python3 docs/segments.py --check" \
	"resource bounds (state cap, memory of partition starts, growth):python3 test/integration/bounds.py" \
	"resume equivalence (text, COPY binary, libpq binary mode):python3 test/integration/resume.py" \
	"windows of time against pandas (1000 irregular series; exact sums):/usr/bin/python3 test/integration/time_windows.py" \
	"carried values against exact fractions (Berlin's 23- and 25-hour days):/usr/bin/python3 test/integration/carry_oracle.py" \
	"input fuzzing:python3 test/fuzz/fuzz.py" \
	"trigger arguments fuzzed (every layout shipped, a LOGIN-only role and an owner):python3 test/fuzz/trigger_args.py" \
	"hostile roles through pg_dump and pg_restore:python3 test/integration/hostile_dump.py" \
	"updates from 0.4.0, 0.5.0, 0.6.0 and 0.7.0 set-ups, and their dumps:python3 test/integration/upgrade_old.py" \
	"memory of reading hostile specs:python3 test/integration/spec_memory.py" \
	"work counted in instructions (reading specs, starting partitions; callgrind):python3 test/integration/work.py" \
	"fuzzing outside the server (libFuzzer, ASan, UBSan):bash test/fuzz/libfuzz.sh 20" \
	"client snippets (psycopg 3, node-postgres):bash test/clients/clients.sh" \
	"maintained on insert, concurrent inserters:python3 test/integration/maintain_concurrency.py" \
	"maintained on insert, crash and recovery (a cluster of its own):python3 test/integration/maintain_crash.py" \
	"maintained results with corrections, randomized (a cluster of its own):/usr/bin/python3 test/integration/maintain_random.py" \
	"silent sensors closed on time, watermark (a cluster of its own, pg_cron):/usr/bin/python3 test/integration/watermark.py" \
	"results tables recipe (refresh, late and repeated readings, pg_cron):python3 test/integration/recipe.py" \
	"PGXN META.json (meta spec 1.0.0; versions agree):python3 test/packaging/meta.py" \
	"postgres_fdw shards (pushdown, recipe on the shards, equality with one server; own clusters):python3 test/integration/shards.py" \
	"Citus (a coordinator and two workers, own clusters on 127.0.0.1; Citus built once and cached):bash test/citus/citus.sh"; do
	echo "== ${t%%:*}"
	# shellcheck disable=SC2086
	${t#*:} 2>&1 | tee "$log"
	tally "${t%%:*} (${t#*:})" "$log" "${PIPESTATUS[0]}"
done

rm -f "$log" "$log.sum"
# run-tests.sh prints the list and the summary at its end, after
# pg_virtualenv's messages; run alone, this script prints them
if [ -n "${SEGPIPE_SUMMARY:-}" ]; then
	echo "$passed passed, $failed failed" >"$SEGPIPE_SUMMARY"
else
	echo
	if [ -s "$failures" ]; then
		echo "== what failed"
		cat "$failures"
	fi
	rm -f "$failures"
	echo "$passed passed, $failed failed"
fi
[ $status = 0 ] && [ "$failed" = 0 ]
