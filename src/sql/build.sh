#!/bin/sh
# src/sql/build.sh VERSION [FROM]: the install script of segpipe VERSION, or
# the update script from FROM to it, on stdout.  The Makefile runs it; the
# scripts it writes are build products (make clean removes them).
#
# Every SQL object is defined once, in the topic files below, in the order
# they are read.  A definition that can be run again (CREATE OR REPLACE,
# COMMENT, GRANT) stands as it is: the install and every update run it.  One
# that cannot (a type, an operator, a cast, a table, an event trigger) stands
# between "-- @since V" and "-- @end", V the version that made it so: the
# install runs it, an update runs it only from a version before V.  An update
# from FROM also runs, in version order, the deltas updates/A--B.sql with A
# at FROM or later (what a definition cannot say: drops, changes in place)
# before the definitions, and updates/A--B-after.sql after them.
set -eu
dir=$(dirname "$0")
version=$1
from=${2:-}
topics="type segment aggregate access heartbeat catalog maintain citus maintain_events"

# the deltas from FROM on, in version order (A of A--B.sql, numerically)
deltas() { # $1: "" or "-after"
	for f in "$dir"/updates/*--*"$1".sql; do
		[ -e "$f" ] || continue
		b=$(basename "$f" .sql)
		a=${b%%--*}
		rest=${b#*--}
		case $1 in '') case $rest in *-after) continue ;; esac ;; esac
		echo "$a $f"
	done | awk -v from="$from" '
		function num(v,  p) { split(v, p, "."); return p[1] * 1000000 + p[2] * 1000 + p[3] }
		num($1) >= num(from) { print num($1), $2 }' | sort -n | cut -d' ' -f2
}

if [ -z "$from" ]; then
	echo "/* segpipe--$version.sql: built from src/sql/ by src/sql/build.sh; edit those */"
	echo
	printf '%s\n' '\echo Use "CREATE EXTENSION segpipe" to load this file. \quit'
else
	echo "/* segpipe--$from--$version.sql: built from src/sql/ by src/sql/build.sh; edit those */"
	echo
	printf '%s\n' "\\echo Use \"ALTER EXTENSION segpipe UPDATE TO '$version'\" to load this file. \\quit"
	for f in $(deltas ""); do
		printf '\n-- ==== %s ====\n' "${f#"$dir"/}"
		cat "$f"
	done
fi
for t in $topics; do
	printf '\n-- ==== %s ====\n' "sql/$t.sql"
	# an @since block is left out of an update from its version or later;
	# a CREATE that cannot be run twice outside a block is an error
	awk -v from="$from" -v file="src/sql/$t.sql" '
		function num(v,  p) { split(v, p, "."); return p[1] * 1000000 + p[2] * 1000 + p[3] }
		function fail(msg) { printf "%s:%d: %s\n", file, NR, msg > "/dev/stderr"; bad = 1; exit 1 }
		/^-- @since / {
			if (inblock) fail("@since inside an @since block")
			inblock = 1; skip = (from != "" && num($3) <= num(from)); next
		}
		/^-- @end/ {
			if (!inblock) fail("@end without @since")
			inblock = 0; skip = 0; next
		}
		!inblock && /^CREATE / && !/^CREATE OR REPLACE / { fail("a CREATE that cannot run twice, outside an @since block") }
		!skip { print }
		END { if (!bad && inblock) fail("@since without @end") }' "$dir/$t.sql"
done
if [ -n "$from" ]; then
	for f in $(deltas "-after"); do
		printf '\n-- ==== %s ====\n' "${f#"$dir"/}"
		cat "$f"
	done
fi
