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

# what of src/ runs outside the server: everything but the SQL glue that
# needs the executor (segment_agg.c and the like) and the key I/O that
# shim_state.c stands in for
sources=("$ROOT"/src/sp_json.c "$ROOT"/src/sp_sort.c "$ROOT"/src/sp_spec.c "$ROOT"/src/sp_spec_write.c
	"$ROOT"/src/sp_engine.c "$ROOT"/src/sp_ring.c "$ROOT"/src/sp_registry.c "$ROOT"/src/ops_*.c
	"$ROOT"/src/sp_codec.c "$ROOT"/src/sp_jscan.c "$ROOT"/src/sp_state.c "$ROOT"/src/sp_resume.c
	"$ROOT"/src/sp_key.c "$ROOT"/src/sp_rowvalue.c "$ROOT"/src/pipeline_type.c "$ROOT"/src/pipeline_agg.c
	"$HERE"/shim.c "$HERE"/shim_state.c)
includes=(-I "$("$PG_CONFIG" --includedir-server)" -I "$ROOT/src" -I "$HERE")
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
