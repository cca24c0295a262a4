#!/usr/bin/env bash
# Coverage-guided fuzzing of the spec reader and the engine outside the
# server: test/standalone/fuzz_spec.c built with libFuzzer, AddressSanitizer
# and UBSan against the stand-ins of test/standalone/shim.c.
#
#   test/libfuzz.sh [seconds]     default 20; run by test/run-tests.sh
#
# The random seed is fixed (LIBFUZZ_SEED to change it, 0 for a new one each
# run) so that a failure in CI can be replayed.
# Seeds are the fuzzer's specs from test/fuzz.py, each followed by row bytes.
# A crash leaves the input in test/out/ and makes this script fail.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-20}
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out="$ROOT/test/out"
mkdir -p "$out" "$work/corpus"

clang -g -O1 -Wno-ignored-attributes -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined \
	-I "$("$PG_CONFIG" --includedir-server)" -I "$ROOT/src" -I "$ROOT/test/standalone" \
	"$ROOT"/src/sp_json.c "$ROOT"/src/sp_sort.c "$ROOT"/src/sp_spec.c "$ROOT"/src/sp_spec_write.c "$ROOT"/src/sp_engine.c "$ROOT"/src/sp_ring.c \
	"$ROOT"/src/sp_registry.c "$ROOT"/src/ops_*.c \
	"$ROOT"/test/standalone/shim.c "$ROOT"/test/standalone/fuzz_spec.c \
	"$("$PG_CONFIG" --pkglibdir)/libpgcommon.a" "$("$PG_CONFIG" --pkglibdir)/libpgport.a" -lm \
	-o "$work/fuzz_spec"

python3 - "$ROOT/test/fuzz.py" "$work/corpus" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("fz", sys.argv[1])
fz = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fz)
for i, s in enumerate(fz.SEEDS):
    with open(f"{sys.argv[2]}/seed{i}", "wb") as f:
        f.write(s.encode() + b"\0" + bytes(range(0, 200, 3)))
PY

status=0
"$work/fuzz_spec" -max_total_time="$seconds" -seed="${LIBFUZZ_SEED:-20261130}" \
	-rss_limit_mb=1024 -artifact_prefix="$out/" \
	"$work/corpus" >"$work/log" 2>&1 || status=$?
grep -E "^(Done|==[0-9]+==ERROR|SUMMARY)|runtime error|deadly signal" "$work/log" || true
if [ $status = 0 ]; then
	echo "libFuzzer: 1 passed, 0 failed"
else
	tail -n 40 "$work/log"
	echo "libFuzzer: 0 passed, 1 failed"
fi
exit $status
