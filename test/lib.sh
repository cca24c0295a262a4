# Shared by test/demo.sh and test/run-tests.sh: install what is missing,
# build (warnings are errors) and install the extension.

PG_MAJOR=${PG_MAJOR:-15}
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/$PG_MAJOR/bin/pg_config}
export PG_CONFIG

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# The server headers (postgresql-server-dev-NN) and pg_cron are not on a fresh machine.
ensure_deps() {
	local need=()
	[ -f "/usr/include/postgresql/$PG_MAJOR/server/postgres.h" ] || need+=("postgresql-server-dev-$PG_MAJOR")
	command -v pg_virtualenv >/dev/null || need+=(postgresql-common)
	command -v make >/dev/null || need+=(make)
	command -v gcc >/dev/null || need+=(gcc)
	command -v python3 >/dev/null || need+=(python3)
	# test/recipe.py schedules the README's refresh with pg_cron
	[ -f "/usr/lib/postgresql/$PG_MAJOR/lib/pg_cron.so" ] || need+=("postgresql-$PG_MAJOR-cron")
	# test/clients.sh runs the README's client snippets: psycopg 3 with the
	# system's python3, node-postgres (from npm) with node
	/usr/bin/python3 -c 'import psycopg' 2>/dev/null || need+=(python3-psycopg)
	command -v node >/dev/null || need+=(nodejs)
	command -v npm >/dev/null || need+=(npm)
	command -v cppcheck >/dev/null || need+=(cppcheck)
	command -v clang >/dev/null || need+=(clang)
	compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null ||
		need+=(libclang-rt-14-dev)
	if [ ${#need[@]} -gt 0 ]; then
		echo "== installing: ${need[*]}"
		as_root apt-get update -qq
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
	fi
}

build_install() {
	echo "== building segpipe"
	make -s -C "$ROOT" PG_CONFIG="$PG_CONFIG" clean >/dev/null
	make -s -C "$ROOT" PG_CONFIG="$PG_CONFIG"
	as_root make -s -C "$ROOT" PG_CONFIG="$PG_CONFIG" install >/dev/null
}
