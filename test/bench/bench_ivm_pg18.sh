#!/usr/bin/env bash
# test/bench/bench_ivm.py on PostgreSQL 18 beside pg_ivm: in the Debian sid
# chroot of the version matrix (test/majors/chroot.sh, made when missing),
# with postgresql-18-pg-ivm installed there from Debian's archive, segpipe
# built from a copy of this tree (warnings as errors) and installed there,
# in a throwaway cluster.  Arguments go to bench_ivm.py.
#
#   test/bench/bench_ivm_pg18.sh [rounds] [scale]    as root (else through sudo)
#
# SEGPIPE_CHROOT_CACHE moves the chroots' cache (default /var/cache/segpipe-majors).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SUITE=sid
MAJOR=18

if [ "${1:-}" = --inside ]; then
	# in the chroot, in the copy of the tree
	shift
	cd "$ROOT"
	export PG_CONFIG=/usr/lib/postgresql/$MAJOR/bin/pg_config
	echo "== bench_ivm.py on PostgreSQL $MAJOR ($("$PG_CONFIG" --version), $(. /etc/os-release && echo "$PRETTY_NAME")," \
		"$(dpkg-query -W -f '${Package} ${Version}' "postgresql-$MAJOR-pg-ivm"))"
	. test/lib.sh
	make -s clean >/dev/null
	# another tree's scripts must not change the path CREATE EXTENSION takes
	remove_installed_scripts
	make -s COPT=-Werror >/dev/null
	make -s install >/dev/null
	exec pg_virtualenv -t -v "$MAJOR" -c "$CLUSTER_OPTS" -o work_mem=4MB -o max_parallel_workers_per_gather=0 \
		python3 test/bench/bench_ivm.py "$@"
fi

if [ "$(id -u)" != 0 ]; then
	# debootstrap, chroot and mount need root
	exec sudo --preserve-env=SEGPIPE_CHROOT_CACHE,SEGPIPE_CHROOT_MIRROR bash "$0" "$@"
fi
. "$ROOT/test/majors/chroot.sh"
chroot_bench_begin "$SUITE" "$MAJOR" "$ROOT"
# the archive may have moved on since the chroot was made: apt-get update
# first (chroot.sh lets apt read Release files past their Valid-Until)
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
	sh -c "dpkg -s postgresql-$MAJOR-pg-ivm >/dev/null 2>&1 ||
		{ apt-get update -qq && apt-get install -y -qq postgresql-$MAJOR-pg-ivm >/dev/null; }"
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 HOME=/root \
	bash "/build/segpipe-bench-$$/test/bench/bench_ivm_pg18.sh" --inside "$@"
