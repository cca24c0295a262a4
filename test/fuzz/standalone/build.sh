#!/usr/bin/env bash
# Builds segpipe's code outside the server, against the stand-ins of
# shim.c and shim_state.c:
#
#   test/fuzz/standalone/build.sh fuzz_spec OUTPUT    the libFuzzer target
#       (fuzz_spec.c, fuzz_state.c) with AddressSanitizer and UBSan, by clang
#       (test/fuzz/libfuzz.sh)
#   test/fuzz/standalone/build.sh work OUTPUT    work.c, plain (gcc -O2),
#       whose instructions test/integration/work.py counts
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
[ $# = 2 ] || { echo "usage: $0 fuzz_spec|work OUTPUT" >&2; exit 2; }

# what of src/ runs outside the server: the engine and codec layers whole,
# and of the server layer the type's I/O, pipeline_agg and what they use
# (not the SQL glue that needs the executor, segment_agg.c and the like, nor
# the key I/O that shim_state.c stands in for)
sources=("$ROOT"/src/engine/*.c "$ROOT"/src/codec/*.c
	"$ROOT"/src/server/sp_resume.c "$ROOT"/src/server/sp_key.c "$ROOT"/src/server/sp_rowvalue.c
	"$ROOT"/src/server/pipeline_type.c "$ROOT"/src/server/pipeline_agg.c "$ROOT"/src/server/sp_config_cache.c
	"$HERE"/shim.c "$HERE"/shim_state.c)
includes=(-I "$("$PG_CONFIG" --includedir-server)" -I "$ROOT/src" -I "$ROOT/src/engine" -I "$ROOT/src/codec"
	-I "$ROOT/src/server" -I "$HERE")
libs=("$("$PG_CONFIG" --pkglibdir)/libpgcommon.a" "$("$PG_CONFIG" --pkglibdir)/libpgport.a" -lm)

case $1 in
fuzz_spec)
	clang -g -O1 -Wno-ignored-attributes -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined "${includes[@]}" \
		"${sources[@]}" "$HERE"/fuzz_spec.c "$HERE"/fuzz_state.c "${libs[@]}" -o "$2"
	;;
work)
	gcc -O2 -Wall -Wmissing-prototypes -Wno-unused-parameter -Werror "${includes[@]}" \
		"${sources[@]}" "$HERE"/work.c "${libs[@]}" -o "$2"
	;;
*)
	echo "usage: $0 fuzz_spec|work OUTPUT" >&2
	exit 2
	;;
esac
