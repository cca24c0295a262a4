#!/usr/bin/env bash
# Citus for the tests: installs it into the server of PG_CONFIG from the
# source archive of Citus when it can be found, built once and cached (else
# uses an installed Citus); then runs test/citus/citus.py (a coordinator and two
# workers, three clusters of their own on 127.0.0.1: the window and aggregate
# forms) and test/citus/maintain.py (maintained results shard by shard).
#
#   test/citus/citus.sh           install when needed, then the tests
#   test/citus/citus.sh install   install only (exit status 0 done, 2 skipped)
#
# Which Citus: 13.2.2 for PostgreSQL 15, 14.0.1 for 16, 17 and 18 (the newest
# release that builds against each); with its archive at hand, that release
# is installed over any other.  The archives citus-X.Y.Z.tar.gz (`git
# archive --prefix=citus-X.Y.Z/ vX.Y.Z` of Citus's tags, with a SHA256SUMS
# beside them) are looked for in SEGPIPE_CITUS_SOURCES, else in ../shared/vendor
# beside the repository.  Neither an installed Citus nor the archive: the tests
# are skipped, saying why ("Citus: 0 passed, 0 failed"); in CI (CI=true) that
# is a failure.
#
# The build (configure, make -j2, make install into a staging directory) is
# cached in SEGPIPE_CITUS_CACHE (default /var/cache/segpipe-citus), one
# directory per version, major and archive checksum; installing copies the
# staged files into PG_CONFIG's directories (as root where those are the
# system's).  Ends with "Citus: N passed, M failed".
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/test/lib.sh"
LABEL=Citus
CACHE=${SEGPIPE_CITUS_CACHE:-/var/cache/segpipe-citus}
MAJOR=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
case $MAJOR in
15) VERSION=13.2.2 ;;
16 | 17 | 18) VERSION=14.0.1 ;;
*) VERSION= ;;
esac
# what Citus's configure and build need (Debian's names)
BUILD_PACKAGES="liblz4-dev libzstd-dev libkrb5-dev libicu-dev libxslt1-dev libpam0g-dev libssl-dev libreadline-dev zlib1g-dev"
CONFIGURE_FLAGS=--without-libcurl
# no LLVM bitcode for JIT (PGXS compiles every file a second time with clang
# for it, where the server was built --with-llvm): the tests run with jit off,
# and it halves the build
MAKE_FLAGS=with_llvm=no
# 18's pg_config.h says HAVE_LIBCURL, so Citus compiles its calls of libcurl
# even --without-libcurl, and then does not link it (citus.so does not load):
# there it is built with libcurl (and run with citus.enable_statistics_collection
# off, as everywhere here)
if [ "$MAJOR" -ge 18 ] 2>/dev/null; then
	BUILD_PACKAGES="$BUILD_PACKAGES libcurl4-openssl-dev"
	CONFIGURE_FLAGS=
fi

say() { echo "   $*"; }

skip() {
	echo "$LABEL: skipped: $*"
	if [ "${CI:-}" = true ]; then
		echo "FAILED: Citus tests skipped in CI: $*"
		echo "$LABEL: 0 passed, 1 failed"
		exit 1
	fi
	echo "$LABEL: 0 passed, 0 failed"
	exit "$SKIPPED"
}

installed() { [ -f "$("$PG_CONFIG" --sharedir)/extension/citus.control" ] && [ -f "$("$PG_CONFIG" --pkglibdir)/citus.so" ]; }

# the archive of VERSION and its checksum (from SHA256SUMS when it is there,
# else of the file itself); empty when not found
find_archive() {
	local d
	for d in ${SEGPIPE_CITUS_SOURCES:-} "$ROOT/../shared/vendor"; do
		if [ -f "$d/citus-$VERSION.tar.gz" ]; then
			echo "$(cd "$d" && pwd)/citus-$VERSION.tar.gz"
			return
		fi
	done
}

# build VERSION against PG_CONFIG's major into $CACHE/$VERSION-pg$MAJOR-<sum>,
# unless done already; prints that directory
build() {
	local archive=$1 sum dir work log start recipe
	sum=$(sha256sum "$archive" | cut -c1-16)
	if [ -f "$(dirname "$archive")/SHA256SUMS" ] &&
		! (cd "$(dirname "$archive")" && grep " citus-$VERSION.tar.gz\$" SHA256SUMS | sha256sum -c --quiet -) >&2; then
		echo "citus-$VERSION.tar.gz does not match its SHA256SUMS" >&2
		return 1
	fi
	dir="$CACHE/$VERSION-pg$MAJOR-$sum"
	# the stamp names how it was built: another recipe builds again
	recipe="citus $VERSION for PostgreSQL $MAJOR, configure $CONFIGURE_FLAGS, make $MAKE_FLAGS"
	if [ -f "$dir/ok" ] && [ "$(cat "$dir/ok")" = "$recipe" ]; then
		echo "$dir"
		return
	fi
	local missing="" p
	for p in $BUILD_PACKAGES; do
		dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		say "installing what Citus's build needs:$missing" >&2
		# shellcheck disable=SC2086
		{ as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing; } >&2 || return 1
	fi
	as_root mkdir -p "$CACHE" && as_root chmod 1777 "$CACHE" 2>/dev/null
	work=$(mktemp -d "$CACHE/build-XXXXXX") || return 1
	log="$work.log"
	start=$(date +%s)
	say "building Citus $VERSION for PostgreSQL $MAJOR in $work (log $log)" >&2
	# shellcheck disable=SC2086
	(
		set -e
		cd "$work"
		tar xzf "$archive"
		cd "citus-$VERSION"
		# 13.2.2 re-declares, static, have_createdb_privilege() for 15.x
		# releases before 15.20's; where the server's headers declare it,
		# that shim must go
		if grep -q 'have_createdb_privilege' "$("$PG_CONFIG" --includedir-server)/commands/dbcommands.h" &&
			grep -q '^have_createdb_privilege(void)' src/include/pg_version_compat.h; then
			perl -0pi -e 's/static inline bool\nhave_createdb_privilege\(void\)\n\{.*?\n\}\n//s' src/include/pg_version_compat.h
			echo "removed the have_createdb_privilege shim of src/include/pg_version_compat.h"
		fi
		./configure PG_CONFIG="$PG_CONFIG" $CONFIGURE_FLAGS
		nice -n 10 make -j2 $MAKE_FLAGS
		make install DESTDIR="$work/stage" $MAKE_FLAGS
	) >"$log" 2>&1 || {
		tail -n 30 "$log" >&2
		rm -rf "$work"
		return 1
	}
	# only the staged files stay, with where they were meant to go
	{
		echo "pkglibdir=$("$PG_CONFIG" --pkglibdir)"
		echo "sharedir=$("$PG_CONFIG" --sharedir)"
		echo "built in $(($(date +%s) - start)) s"
	} >"$work/stage/paths"
	rm -rf "$dir"
	mkdir -p "$dir"
	mv "$work/stage" "$dir/stage"
	mv "$log" "$dir/build.log"
	rm -rf "$work"
	echo "$recipe" >"$dir/ok"
	say "built Citus $VERSION for PostgreSQL $MAJOR in $(($(date +%s) - start)) s, cached in $dir" >&2
	echo "$dir"
}

# copies the staged build into PG_CONFIG's directories (each file written
# beside its place and renamed into it: a running server that loaded an
# older copy keeps its own)
install_staged() {
	local dir=$1 from_lib from_share to_lib to_share f rel
	from_lib=$(sed -n 's/^pkglibdir=//p' "$dir/stage/paths")
	from_share=$(sed -n 's/^sharedir=//p' "$dir/stage/paths")
	to_lib=$("$PG_CONFIG" --pkglibdir)
	to_share=$("$PG_CONFIG" --sharedir)
	# no bitcode in this build: none of an older one may stay beside it
	[ -d "$dir/stage$from_lib/bitcode" ] || as_root rm -rf "$to_lib/bitcode/citus" "$to_lib/bitcode/citus.index.bc"
	for pair in "$dir/stage$from_lib:$to_lib" "$dir/stage$from_share:$to_share"; do
		(cd "${pair%%:*}" && find . -type f) | while read -r rel; do
			f=${pair#*:}/${rel#./}
			as_root mkdir -p "$(dirname "$f")" &&
				as_root cp "${pair%%:*}/$rel" "$f.segpipe-new" &&
				as_root mv -f "$f.segpipe-new" "$f" || exit 1
		done || return 1
	done
}

# the archive's build when the archive is there (an installed Citus is
# replaced by it: what is tested is the release named above), else the
# installed Citus, else a skip
ensure() {
	local archive="" dir
	[ -n "$VERSION" ] && archive=$(find_archive)
	if [ -z "$archive" ]; then
		if installed; then
			say "Citus is installed in $("$PG_CONFIG" --pkglibdir) ($(sed -n "s/^default_version = '\(.*\)'/\1/p" "$("$PG_CONFIG" --sharedir)/extension/citus.control")), no archive to build"
			return 0
		fi
		[ -n "$VERSION" ] || skip "Citus is not installed in $("$PG_CONFIG" --pkglibdir) and no Citus release here builds for PostgreSQL $MAJOR"
		skip "Citus is not installed in $("$PG_CONFIG" --pkglibdir) and citus-$VERSION.tar.gz is" \
			"in neither SEGPIPE_CITUS_SOURCES (${SEGPIPE_CITUS_SOURCES:-unset}) nor ../shared/vendor"
	fi
	# one build and install at a time (another run may be filling the cache)
	as_root mkdir -p "$CACHE" && as_root chmod 1777 "$CACHE" 2>/dev/null
	exec {lockfd}>"$CACHE/.lock"
	flock "$lockfd"
	dir=$(build "$archive") || {
		echo "FAILED: building Citus $VERSION for PostgreSQL $MAJOR (the reason is above)"
		echo "$LABEL: 0 passed, 1 failed"
		exit 1
	}
	install_staged "$dir" || {
		echo "FAILED: installing Citus $VERSION from $dir"
		echo "$LABEL: 0 passed, 1 failed"
		exit 1
	}
	exec {lockfd}>&-
	say "installed Citus $VERSION into $("$PG_CONFIG" --pkglibdir) from $dir ($(sed -n 's/^built/built/p' "$dir/stage/paths"))"
}

t0=$(date +%s)
# a skip is a success of the tests' run, and exit status 2 of "install"
SKIPPED=0
[ "${1:-}" = install ] && SKIPPED=2
ensure
if [ "${1:-}" = install ]; then exit 0; fi
log=$(mktemp)
python3 "$ROOT/test/citus/citus.py" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
python3 "$ROOT/test/citus/maintain.py" 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
# one line for both: the forms, and the maintained results
p=0 f=0
while read -r line; do
	p=$((p + $(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")))
	f=$((f + $(sed -E 's/.*passed, ([0-9]+) failed.*/\1/' <<<"$line")))
done < <(grep -E '^Citus( maintained results)?: [0-9]+ passed, [0-9]+ failed$' "$log")
[ "$(grep -cE '^Citus( maintained results)?: [0-9]+ passed' "$log")" = 2 ] || { f=$((f + 1)); rc=1; }
rm -f "$log"
echo "$LABEL: $p passed, $f failed"
say "Citus: install and tests took $(($(date +%s) - t0)) s"
exit "$rc"
