#!/usr/bin/env bash
# COPY of 100,000 readings into a TimescaleDB hypertable (daily chunks, made
# by the COPY) with and without maintained results (segpipe_maintain: a daily
# moving average per sensor), and the same into a plain table for
# comparison: interleaved rounds (the four in a rotating order, each after a
# TRUNCATE), the medians, and the ratios maintained / bare.
#
# In the Debian chroot of the version matrix (test/majors/chroot.sh, made
# when missing; default trixie with PostgreSQL 17), with Debian's
# postgresql-NN-timescaledb installed there, segpipe built from a copy of
# this tree (warnings as errors) and installed there, in a throwaway cluster
# with shared_preload_libraries = 'timescaledb,segpipe'.
#
#   test/bench/bench_timescaledb.sh [rounds]    as root (else through sudo)
#
# SEGPIPE_CHROOT_CACHE moves the chroots' cache (default /var/cache/segpipe-majors);
# SEGPIPE_BENCH_SUITE=sid SEGPIPE_BENCH_MAJOR=18 runs it on 18.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SUITE=${SEGPIPE_BENCH_SUITE:-trixie}
MAJOR=${SEGPIPE_BENCH_MAJOR:-17}
ROUNDS=${1:-7}
SPEC='{"type": "Pipeline", "id": "day", "output_port_types": ["number"], "operators": [{"type": "MovingAverage", "id": "ma", "window_size": 4}], "connections": [], "entryOperator": "ma", "outputMappings": {"ma": {"o1": "o1"}}}'

if [ "${1:-}" = --cluster ]; then
	# in pg_virtualenv's cluster: the four tables, the rounds, the figures
	ROUNDS=$2
	data=$(mktemp /tmp/bench-timescaledb-XXXXXX.tsv)
	chmod 644 "$data"
	trap 'rm -f "$data"' EXIT
	# 20 sensors, a reading every 86.4 s each over 5 days, in time order
	psql -X -q -At -c "COPY (SELECT s, timestamptz '2026-03-01 00:00+00' + make_interval(secs => i * 86.4 + s),
		((i * 7919 + s) % 2003) / 32.0 FROM generate_series(1, 5000) AS i, generate_series(1, 20) AS s
		ORDER BY 2, 1) TO STDOUT" >"$data"
	psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<-SQL
		CREATE EXTENSION timescaledb;
		CREATE EXTENSION segpipe;
		CREATE TABLE hyper_bare (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
		SELECT create_hypertable('hyper_bare', by_range('ts', interval '1 day'));
		CREATE INDEX ON hyper_bare (sensor, ts);
		CREATE TABLE hyper_kept (LIKE hyper_bare);
		SELECT create_hypertable('hyper_kept', by_range('ts', interval '1 day'));
		SELECT segpipe_maintain('hyper_kept', 'sensor', 'ts', 'v', \$k\$date_trunc('day', ts, 'UTC')\$k\$, '$SPEC', 'hyper_daily');
		CREATE TABLE plain_bare (LIKE hyper_bare);
		CREATE INDEX ON plain_bare (sensor, ts);
		CREATE TABLE plain_kept (LIKE hyper_bare);
		SELECT segpipe_maintain('plain_kept', 'sensor', 'ts', 'v', \$k\$date_trunc('day', ts, 'UTC')\$k\$, '$SPEC', 'plain_daily');
	SQL
	tables=(hyper_bare hyper_kept plain_bare plain_kept)
	declare -A ms
	for r in $(seq 1 "$ROUNDS"); do
		for j in 0 1 2 3; do
			t=${tables[$(((j + r) % 4))]}
			out=$(psql -X -q -v ON_ERROR_STOP=1 <<-SQL
				TRUNCATE $t;
				CHECKPOINT;
				\\timing on
				\\copy $t FROM '$data'
			SQL
			)
			ms[$t]="${ms[$t]:-} $(sed -nE 's/^Time: ([0-9.]+) ms.*/\1/p' <<<"$out" | tail -n 1)"
		done
	done
	median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
	echo "rows: $(wc -l <"$data"), chunks of a COPY: $(psql -X -At -c "SELECT count(*) FROM show_chunks('hyper_kept')"), results: $(psql -X -At -c "SELECT count(*) FROM hyper_daily")"
	for t in "${tables[@]}"; do
		echo "$t: median $(median "${ms[$t]}") ms over $ROUNDS rounds (${ms[$t]# })"
	done
	hb=$(median "${ms[hyper_bare]}") hk=$(median "${ms[hyper_kept]}") pb=$(median "${ms[plain_bare]}") pk=$(median "${ms[plain_kept]}")
	awk -v hb="$hb" -v hk="$hk" -v pb="$pb" -v pk="$pk" 'BEGIN {
		printf "ratio hypertable maintained / bare: %.2f\n", hk / hb
		printf "ratio plain table maintained / bare: %.2f\n", pk / pb
		printf "ratio hypertable / plain table, bare: %.2f; maintained: %.2f\n", hb / pb, hk / pk }'
	exit 0
fi

if [ "${1:-}" = --inside ]; then
	# in the chroot, in the copy of the tree (its environment is empty: the major is an argument)
	MAJOR=$3
	cd "$ROOT"
	export PG_CONFIG=/usr/lib/postgresql/$MAJOR/bin/pg_config
	echo "== COPY into a hypertable on PostgreSQL $MAJOR ($("$PG_CONFIG" --version), $(. /etc/os-release && echo "$PRETTY_NAME")," \
		"$(dpkg-query -W -f '${Package} ${Version}' "postgresql-$MAJOR-timescaledb"))"
	. test/lib.sh
	make -s clean >/dev/null
	# another tree's scripts must not change the path CREATE EXTENSION takes
	remove_installed_scripts
	make -s COPT=-Werror >/dev/null
	make -s install >/dev/null
	exec pg_virtualenv -t -v "$MAJOR" -o shared_preload_libraries=timescaledb,segpipe -o timescaledb.telemetry_level=off \
		-o fsync=off -o max_parallel_workers_per_gather=0 bash "$0" --cluster "$2"
fi

if [ "$(id -u)" != 0 ]; then
	# debootstrap, chroot and mount need root
	exec sudo --preserve-env=SEGPIPE_CHROOT_CACHE,SEGPIPE_CHROOT_MIRROR,SEGPIPE_BENCH_SUITE,SEGPIPE_BENCH_MAJOR bash "$0" "$@"
fi
. "$ROOT/test/majors/chroot.sh"
chroot_bench_begin "$SUITE" "$MAJOR" "$ROOT"
# the archive may have moved on since the chroot was made: apt-get update
# when the install fails (chroot.sh lets apt read Release files past their Valid-Until)
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
	sh -c "dpkg -s postgresql-$MAJOR-timescaledb >/dev/null 2>&1 || apt-get install -y -qq postgresql-$MAJOR-timescaledb >/dev/null ||
		{ apt-get update -qq && apt-get install -y -qq postgresql-$MAJOR-timescaledb >/dev/null; }"
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 HOME=/root \
	bash "/build/segpipe-bench-$$/test/bench/bench_timescaledb.sh" --inside "$ROUNDS" "$MAJOR"
