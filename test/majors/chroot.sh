# shellcheck shell=bash
# Sourced by test/majors/run.sh and test/bench's chroot benchmarks: Debian chroots with another PostgreSQL major,
# made with debootstrap from Debian's archive and cached between runs.
#
#   chroot_ensure SUITE MAJOR   the chroot of SUITE with postgresql-MAJOR and
#                               its server headers, made again when missing
#                               or incomplete; prints its directory
#   chroot_enter ROOT           mounts /proc, /dev/pts and /dev/shm in it
#   chroot_leave ROOT           ends what still runs in it, unmounts
#   chroot_copy_tree SRC DEST   the tree SRC (its files that git knows or
#                               does not ignore) into DEST, made empty first
#   chroot_bench_begin SUITE MAJOR SRC
#                               test/bench's scripts: the chroot locked, made,
#                               SRC copied in and entered (sets root, dest)
#
# The cache is SEGPIPE_CHROOT_CACHE (default /var/cache/segpipe-majors): one
# directory per suite, and SUITE.ok once the chroot is complete (it names the
# package list, so that a changed list makes the chroot again).  Needs root
# and debootstrap (installed with apt-get when missing).

CHROOT_CACHE=${SEGPIPE_CHROOT_CACHE:-/var/cache/segpipe-majors}
CHROOT_MIRROR=${SEGPIPE_CHROOT_MIRROR:-http://deb.debian.org/debian}

# what the tests need inside: the server and its headers (PGXS), a compiler
# and make, python3 for the test scripts, libpq-dev for resume.py's client;
# Debian's packaging tools and postgresql-all (the package's build
# dependencies) for test/packaging/deb.sh
chroot_packages() {
	echo "postgresql-$1 postgresql-server-dev-$1 postgresql-common build-essential python3 libpq-dev" \
		"dpkg-dev debhelper fakeroot postgresql-all"
}

chroot_log() { echo "   [chroot] $*" >&2; }

# chroot_ensure SUITE MAJOR: prints the chroot's directory; non-zero (with the
# reason on stderr) when it cannot be made
chroot_ensure() {
	local suite=$1 major=$2 root stamp want start log
	root="$CHROOT_CACHE/$suite"
	stamp="$CHROOT_CACHE/$suite.ok"
	want="$suite $major $(chroot_packages "$major")"
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
		[ -x "$root/usr/lib/postgresql/$major/bin/pg_config" ]; then
		echo "$root"
		return 0
	fi
	if ! command -v debootstrap >/dev/null; then
		chroot_log "installing debootstrap"
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap; } >&2 ||
			return 1
	fi
	mkdir -p "$CHROOT_CACHE"
	chroot_leave "$root"
	rm -rf "$root" "$stamp"
	start=$(date +%s)
	log="$CHROOT_CACHE/$suite.log"
	chroot_log "making $root (debootstrap $suite from $CHROOT_MIRROR; log in $log)"
	# minbase: apt and dpkg; the server comes afterwards, under a
	# policy-rc.d that keeps services from starting
	if ! debootstrap --variant=minbase "$suite" "$root" "$CHROOT_MIRROR" >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		chroot_log "debootstrap $suite failed"
		return 1
	fi
	# the archive's sid and trixie Release files may carry an expired
	# Valid-Until: apt reads them all the same
	echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99segpipe-valid-until"
	echo 'APT::Install-Recommends "false";' >"$root/etc/apt/apt.conf.d/99segpipe-no-recommends"
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	# no main cluster: the tests make throwaway ones (pg_virtualenv)
	mkdir -p "$root/etc/postgresql-common/createcluster.d"
	echo 'create_main_cluster = false' >"$root/etc/postgresql-common/createcluster.d/segpipe.conf"
	if ! chroot_enter "$root" ||
		! chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
			sh -c "apt-get update -qq && apt-get install -y -qq $(chroot_packages "$major")" >>"$log" 2>&1; then
		tail -n 30 "$log" >&2
		chroot_leave "$root"
		chroot_log "installing PostgreSQL $major in $suite failed"
		return 1
	fi
	chroot "$root" apt-get clean >/dev/null 2>&1
	chroot_leave "$root"
	echo "$want" >"$stamp"
	chroot_log "made $suite with PostgreSQL $major in $(($(date +%s) - start)) s"
	echo "$root"
}

chroot_enter() {
	local root=$1
	mountpoint -q "$root/proc" || mount -t proc proc "$root/proc" || return 1
	mkdir -p "$root/dev/pts" "$root/dev/shm"
	mountpoint -q "$root/dev/pts" || mount -t devpts -o newinstance,ptmxmode=0666 devpts "$root/dev/pts" || return 1
	# PostgreSQL's dynamic shared memory (posix) lives in /dev/shm
	mountpoint -q "$root/dev/shm" || mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm" || return 1
}

# chroot_leave ROOT: ends the processes whose root is ROOT (a server a failed
# test left running), then unmounts; safe to call when nothing is mounted
chroot_leave() {
	local root=$1 pid pids i
	[ -d "$root" ] || return 0
	root=$(cd "$root" && pwd -P)
	for i in 1 2 3 4 5 6 7 8 9 10; do
		pids=
		for pid in /proc/[0-9]*; do
			[ "$(readlink "$pid/root" 2>/dev/null)" = "$root" ] && pids="$pids ${pid#/proc/}"
		done
		[ -z "$pids" ] && break
		# shellcheck disable=SC2086
		if [ $i = 1 ]; then kill $pids 2>/dev/null; else kill -9 $pids 2>/dev/null; fi
		sleep 1
	done
	for m in dev/shm dev/pts proc; do
		if mountpoint -q "$root/$m"; then
			umount "$root/$m" 2>/dev/null || umount -l "$root/$m"
		fi
	done
}

chroot_copy_tree() {
	local src=$1 dest=$2
	rm -rf "$dest"
	mkdir -p "$dest"
	if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$src" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$dest")
	else
		cp -a "$src/." "$dest/"
	fi
}

# A benchmark's chroot, for test/bench's scripts: one user at a time per
# chroot (as test/majors/run.sh: a bench installs into its server), the
# chroot of SUITE made when missing, the tree SRC copied into it and the
# chroot entered; sets root (the chroot) and dest (the copy, under
# /build/segpipe-bench-PID inside it), and leaves both on exit.
chroot_bench_begin() {
	local suite=$1 major=$2 src=$3
	mkdir -p "$CHROOT_CACHE"
	exec {CHROOT_BENCH_LOCK}>"$CHROOT_CACHE/$suite.lock"
	flock "$CHROOT_BENCH_LOCK"
	root=$(chroot_ensure "$suite" "$major")
	dest="$root/build/segpipe-bench-$$"
	trap 'chroot_leave "$root"; rm -rf "$dest"' EXIT
	trap 'exit 130' INT TERM HUP
	chroot_copy_tree "$src" "$dest"
	chroot_enter "$root"
}
