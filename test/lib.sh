# Shared by the scripts of test/ that build: the server to build for, running
# as root, the throwaway clusters' locale, building and installing the
# extension.  What has to be installed first is test/setup.sh's.

PG_MAJOR=${PG_MAJOR:-15}
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/$PG_MAJOR/bin/pg_config}
export PG_CONFIG

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# node-postgres for test/clients/clients.sh: Debian's node-pg, installed by
# test/setup.sh --tests into /usr/share/nodejs, or where the machine's nodejs
# is not Debian's (NodeSource's, which node-pg cannot depend on), unpacked
# from Debian's archive into this cache.
NODE_PG_CACHE=${NODE_PG_CACHE:-/var/cache/segpipe-node-pg}
NODE_PG_PATH=/usr/share/nodejs:$NODE_PG_CACHE/usr/share/nodejs

# The throwaway clusters' encoding and locale, whatever the caller's: without
# LANG (su -, a minimal container) initdb would make a SQL_ASCII cluster.
# pg_createcluster options (pg_virtualenv -c); test/pgcluster.py and
# test/valgrind.sh give initdb the same, test/packaging/deb.sh's pg_buildext
# gets them from LC_ALL.
CLUSTER_OPTS="--encoding=UTF8 --locale=C.UTF-8"

# A TCP port no server listens on, for a throwaway cluster: pg_virtualenv
# would take 5432, which the machine's own cluster (15/main, started when
# postgresql-15 is installed) may hold.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Removes the extension's installed SQL scripts: a script left by another
# tree (an install script since replaced by the upgrade chain, say) would
# change the path CREATE EXTENSION takes, so what is tested is this tree's
# scripts only.
remove_installed_scripts() {
	as_root rm -f "$("$PG_CONFIG" --sharedir)"/extension/segpipe--*.sql
}

# build_install [make arguments...]: a clean build and make install; the
# tests pass COPT=-Werror (warnings are errors in our own run only).
# Each step stops it (set -e does not hold in a caller's "build_install ||").
build_install() {
	echo "== building segpipe${*:+ ($*)}"
	make -s -C "$ROOT" PG_CONFIG="$PG_CONFIG" clean >/dev/null || return
	make -s -C "$ROOT" PG_CONFIG="$PG_CONFIG" "$@" || return
	remove_installed_scripts || return
	as_root make -s -C "$ROOT" PG_CONFIG="$PG_CONFIG" install >/dev/null || return
	# the released versions' scripts, for the suites that update from them
	as_root make -s -C "$ROOT" PG_CONFIG="$PG_CONFIG" install-released >/dev/null
}

# pg_virtualenv ... 2>&1 | server_log_excerpt: passes the output through,
# line by line as it comes, but of the server logs pg_virtualenv prints when
# its command failed ("*** FILE (last 100 lines) ***", mostly the ERRORs the
# suites provoke on purpose) only the lines that tell of a crash or a lost
# connection, with the lines after them that name the statement, and says
# how many it left out.  (Bash, not awk: mawk reads its input in blocks.)
server_log_excerpt() {
	local line file= hidden=0 detail=0
	local heading='^\*\*\* (.*) \(last [0-9]+ lines\) \*\*\*$'
	local crash='PANIC:|TRAP:|FATAL:|terminated by signal|exited with exit code|was terminated|core dumped|leaked|still referenced'
	local follows='^[[:space:]]|DETAIL:|CONTEXT:|STATEMENT:'
	while IFS= read -r line || [ -n "$line" ]; do
		if [[ $line =~ $heading ]] || { [ -n "$file" ] && [[ $line == '*** '* ]]; }; then
			[ -z "$file" ] || echo "   ($hidden more lines of $file not shown: its start and stop, and the ERRORs the suites provoke on purpose with their statements)"
			file= hidden=0 detail=0
			if [[ $line =~ $heading ]]; then
				file=${BASH_REMATCH[1]}
				echo "*** the server log $file: its lines that tell of a crash or a lost connection ***"
				continue
			fi
		fi
		if [ -z "$file" ]; then
			printf '%s\n' "$line"
		elif [[ $line =~ $crash ]]; then
			printf '%s\n' "$line"
			detail=1
		elif [ $detail = 1 ] && [[ $line =~ $follows ]] && [[ ! $line =~ ERROR: ]]; then
			printf '%s\n' "$line"
		else
			hidden=$((hidden + 1))
			detail=0
		fi
	done
	[ -z "$file" ] || echo "   ($hidden more lines of $file not shown: its start and stop, and the ERRORs the suites provoke on purpose with their statements)"
}
