# Shared by test/demo.sh, test/run-tests.sh and test/deb.sh: install what is
# missing, build and install the extension.

PG_MAJOR=${PG_MAJOR:-15}
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/$PG_MAJOR/bin/pg_config}
export PG_CONFIG

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# apt-get install of the packages named, if any
apt_install() {
	[ $# -gt 0 ] || return 0
	echo "== installing: $*"
	as_root apt-get update -qq
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# What building segpipe and running it in a throwaway cluster need (the
# demo): the server headers (postgresql-server-dev-NN) are not on a fresh
# machine.
ensure_deps() {
	local need=()
	[ -f "/usr/include/postgresql/$PG_MAJOR/server/postgres.h" ] || need+=("postgresql-server-dev-$PG_MAJOR")
	command -v pg_virtualenv >/dev/null || need+=(postgresql-common)
	command -v make >/dev/null || need+=(make)
	command -v gcc >/dev/null || need+=(gcc)
	command -v python3 >/dev/null || need+=(python3)
	apt_install "${need[@]}"
}

# What the tests need on top: pg_cron (test/recipe.py), cppcheck, clang and
# libFuzzer (test/libfuzz.sh), and Debian's packaging tools (test/deb.sh).
ensure_test_deps() {
	local need=()
	[ -f "/usr/lib/postgresql/$PG_MAJOR/lib/pg_cron.so" ] || need+=("postgresql-$PG_MAJOR-cron")
	# test/clients.sh runs the client snippets of docs/reference.md: psycopg 3 with the
	# system's python3, node-postgres (from npm) with node
	/usr/bin/python3 -c 'import psycopg' 2>/dev/null || need+=(python3-psycopg)
	command -v node >/dev/null || need+=(nodejs)
	command -v npm >/dev/null || need+=(npm)
	command -v cppcheck >/dev/null || need+=(cppcheck)
	command -v clang >/dev/null || need+=(clang)
	# test/resume.py compiles a libpq client (test/resume_client.c)
	[ -f /usr/include/postgresql/libpq-fe.h ] || need+=(libpq-dev)
	compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null ||
		need+=(libclang-rt-14-dev)
	command -v dpkg-buildpackage >/dev/null || need+=(dpkg-dev)
	command -v dh >/dev/null || need+=(debhelper)
	command -v fakeroot >/dev/null || need+=(fakeroot)
	command -v pg_buildext >/dev/null && [ -f /usr/share/postgresql-common/pgxs_debian_control.mk ] ||
		need+=(postgresql-server-dev-all)
	# the package's test dependency (debian/control: every supported server)
	dpkg-query -W -f='${Status}' postgresql-all 2>/dev/null | grep -q ' installed$' || need+=(postgresql-all)
	apt_install "${need[@]}"
}

# build_install [make arguments...]: a clean build and make install; the
# tests pass COPT=-Werror (warnings are errors in our own run only).
build_install() {
	echo "== building segpipe${*:+ ($*)}"
	make -s -C "$ROOT" PG_CONFIG="$PG_CONFIG" clean >/dev/null
	make -s -C "$ROOT" PG_CONFIG="$PG_CONFIG" "$@"
	as_root make -s -C "$ROOT" PG_CONFIG="$PG_CONFIG" install >/dev/null
}
