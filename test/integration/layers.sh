#!/usr/bin/env bash
# The layers of src/ (see the Makefile): engine/ includes only engine/
# headers, codec/ only engine/ and codec/ ones, server/ any; a header at the
# top of src/ (the compatibility header) may be included by all.  One check
# per file of src/; a file that includes a header of a layer above its own
# fails, naming the include.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT/src"
passed=0
failed=0
allowed() {
	case $1 in
	engine) echo "engine" ;;
	codec) echo "engine codec" ;;
	server) echo "engine codec server" ;;
	esac
}
for f in engine/*.[ch] codec/*.[ch] server/*.[ch]; do
	layer=${f%%/*}
	ok=1
	while read -r inc; do
		[ -e "$inc" ] && continue # a header at the top of src/
		where=$(cd "$ROOT/src" && ls -d */"$inc" 2>/dev/null | head -n 1)
		[ -n "$where" ] || continue # the server's or the system's
		if ! grep -qw "${where%%/*}" <<<"$(allowed "$layer")"; then
			echo "FAILED: $f (layer $layer) includes $where"
			ok=0
		fi
	done < <(sed -nE 's/^#include "([^"]+)".*/\1/p' "$f")
	if [ $ok = 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "layers: $passed passed, $failed failed"
[ $failed = 0 ]
