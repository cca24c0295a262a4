#!/usr/bin/env bash
# Coverage-guided fuzzing outside the server of the spec reader, the
# engine, and pipelines that carry state (their text and binary input, the
# state codec, resuming in pipeline_agg): test/fuzz/standalone/fuzz_spec.c and
# fuzz_state.c built with libFuzzer, AddressSanitizer and UBSan against the
# stand-ins of test/fuzz/standalone/shim.c and shim_state.c (by build.sh there).
#
#   test/fuzz/libfuzz.sh [seconds]     default 20; run by test/run-tests.sh
#
# The random seed is fixed (LIBFUZZ_SEED to change it, 0 for a new one each
# run) so that a failure in CI can be replayed.
# Seeds are the fuzzer's specs from test/fuzz/fuzz.py, and pipelines with state
# written by the server (when one is reachable), each followed by row bytes.
# A crash leaves the input in test/fuzz/out/ and makes this script fail.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-20}
work=$(mktemp -d)
out="$ROOT/test/fuzz/out"
# test/fuzz/out stays only when it holds a crash input
trap 'rm -rf "$work"; rmdir "$out" 2>/dev/null || true' EXIT
# LIBFUZZ_CORPUS keeps the corpus in a directory of one's own, for long runs
corpus=${LIBFUZZ_CORPUS:-$work/corpus}
mkdir -p "$out" "$corpus"

bash "$ROOT/test/fuzz/standalone/build.sh" fuzz_spec "$work/fuzz_spec"

python3 -B - "$ROOT/test/fuzz/fuzz.py" "$corpus" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("fz", sys.argv[1])
fz = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fz)
for i, s in enumerate(fz.SEEDS):
    with open(f"{sys.argv[2]}/seed{i}", "wb") as f:
        f.write(s.encode() + b"\0" + bytes(range(0, 200, 3)))
PY

# Seeds written by the server: pipelines that carry state, as text and as
# binary messages, for every operator with state and three key types.  Each
# must read back here exactly as the server wrote it (the stand-ins for
# timestamps and keys agree with the server's), before fuzzing starts.
passed=0
failed=0
if ! psql -X -q -c "select 1" postgres >/dev/null 2>&1; then
	echo "no server: fuzzing without the seeds it writes"
elif python3 - "$corpus" <<'PY'
import json, os, subprocess, sys

DB = "segpipe_libfuzz_%d" % os.getpid()
OPS = [{"type": "Identity"}, {"type": "CumulativeSum"}, {"type": "CountNumber"},
       {"type": "MovingAverage", "window_size": 3}, {"type": "MovingSum", "window_size": 2},
       {"type": "StandardDeviation", "window_size": 4}, {"type": "MaxTracker"}, {"type": "MinTracker"},
       {"type": "WindowMinMax", "window_size": 3, "mode": "max"}, {"type": "Difference"},
       {"type": "PeakDetector", "window_size": 3},
       {"type": "FiniteImpulseResponse", "coeff": [0.5, -0.25, 1]},
       {"type": "InfiniteImpulseResponse", "b_coeffs": [0.5, 0.25], "a_coeffs": [-0.5]},
       {"type": "Scale", "value": 0.5}, {"type": "StandardDeviation", "window": "2 s", "min_rows": 2},
       {"type": "TimeWeightedAverage", "method": "linear"}, {"type": "Integral"},
       {"type": "MovingKeyCount", "window_size": 3}, {"type": "ResamplerConstant", "interval": "2 s"},
       {"type": "ResamplerHermite", "interval": "2 s"}, {"type": "ResamplerHermite", "interval": "3 s", "t0": 0},
       {"type": "CountBoolean", "window": "3 s"},
       {"type": "TimeWeightedAverage", "method": "locf", "carry": "locf", "fill": True},
       {"type": "Integral", "carry": "linear"}, {"type": "CounterRate", "carry": "locf"},
       {"type": "Transitions", "count": "falling", "carry": "locf", "fill": True},
       {"type": "FusedExpression", "numPorts": 1, "numOutputs": 1,
        "bytecode": [0, 0, 21, 0, 22, 2, 5, 0, 0, 38, 3, 2, 0, 0, 37, 3, 0, 0, 42, 0, 2, 2, 2, 20],
        "coefficients": [0.5, -0.25]}]
SPECS = [(json.dumps(o), 1) for o in OPS] + [
    (json.dumps({"type": "Division", "numPorts": 2}), 2),
    ('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "in"}, {"type": "Sign", "id": "k"}, {"type": "Pipeline", "id": "p", "operators": [{"type": "MovingSum", "id": "s", "window_size": 2}]}], "connections": [{"from": "in", "to": "k"}, {"from": "k", "to": "p", "toPort": "c1"}, {"from": "in", "to": "p"}], "entryOperator": "in", "outputMappings": {"p": {"o1": "o1"}}}', 1),
    (json.dumps({"type": "Pipeline", "output_port_types": ["number", "number"], "late": "drop",
                 "operators": [{"type": "MovingAverage", "id": "a", "window_size": 2},
                               {"type": "StandardDeviation", "id": "b", "window_size": 3}],
                 "connections": [{"from": "a", "to": "b"}], "entryOperator": "a",
                 "outputMappings": {"a": {"o1": "o1"}, "b": {"o1": "o2"}}}), 1),
    # vectors (0: the value is a vector of three lanes)
    (json.dumps({"type": "TopK", "k": 2, "score_index": 1, "descending": "false"}), 0),
    (json.dumps({"type": "Pipeline", "input_port_types": ["vector_number"],
                 "output_port_types": ["vector_number", "number"],
                 "operators": [{"type": "VectorProject", "id": "p", "indices": [2, 0]},
                               {"type": "VectorExtract", "id": "e", "index": 1},
                               {"type": "MovingAverage", "id": "m", "window_size": 2}],
                 "connections": [{"from": "p", "to": "e"}, {"from": "e", "to": "m"}], "entryOperator": "p",
                 "outputMappings": {"p": {"o1": "o1"}, "m": {"o1": "o2"}}}), 0),
    (json.dumps({"type": "FusedExpressionVector", "numOutputs": 2,
                 "bytecode": [0, 0, 21, 0, 20, 0, 1, 35, 2, 20]}), 0),
    (json.dumps({"type": "BurstAggregate", "aggBytecode": [0, 0, 21, 0, 20, 0, 2, 35, 2, 20],
                 "segBytecode": [0, 1, 20], "keyColumns": [1], "numAggOutputs": 2, "numInputCols": 3}), 0),
    (json.dumps({"type": "KeyedPipeline", "key_index": 1, "maxKeys": 4, "prototype": {
        "operators": [{"type": "VectorExtract", "id": "e", "index": 0},
                      {"type": "MovingAverage", "id": "m", "window_size": 2}],
        "connections": [{"from": "e", "to": "m"}], "entry": {"operator": "e"}, "output": {"operator": "m"}}}), 0),
    # Variable (i1 updates, c1 asks), a KeyedVariable over [key, value, asked], a TriggerSet
    (json.dumps({"type": "Variable", "default_value": -1}), 2),
    (json.dumps({"type": "Pipeline", "input_port_types": ["vector_number"],
                 "operators": [{"type": "VectorProject", "id": "in", "indices": [1, 0, 1]},
                               {"type": "VectorExtract", "id": "q", "index": 2},
                               {"type": "KeyedVariable", "id": "kv", "mode": "lookup", "maxKeys": 4}],
                 "connections": [{"from": "in", "to": "kv"}, {"from": "in", "to": "q"},
                                 {"from": "q", "to": "kv", "toPort": "c1"}], "entryOperator": "in",
                 "outputMappings": {"kv": {"o1": "o1"}}}), 0),
    (json.dumps({"type": "TriggerSet", "input_port_type": "number", "output_port_type": "number",
                 "operators": [{"type": "MovingSum", "id": "s", "window_size": 3}],
                 "entryOperator": "s", "outputOperator": "s"}), 1)]
KEYS = ["CASE WHEN i % 13 = 0 THEN 'NaN'::float8 ELSE (i / 4)::float8 END",
        "(i / 4)::bigint * 1000000000000", "'k' || (i / 4) || '\"é'"]
BASES = ["2026-01-01 00:00:00+00", "0044-03-15 12:00:00.25+00 BC", "294276-12-31 23:00:00+00",
         "1999-12-31 23:59:59.999999+00", "4714-11-24 00:00:00+00 BC", "0001-01-01 00:00:00.5+00",
         "2000-02-28 23:59:58+00", "1600-02-29 00:00:00.000001+00", "0001-12-31 23:59:59+00 BC"]
ROWS = bytes(range(0, 200, 3))
parts = []
n = 0
for spec, n_in in SPECS:
    for key in KEYS:
        for rows in (5, 23):
            base = BASES[n % len(BASES)]
            n += 1
            value = ("sin(i) * 10" if n_in == 1 else "ARRAY[sin(i) * 10, 1 + i % 3]::float8[]" if n_in == 2
                     else "ARRAY[sin(i) * 10, i % 4, cos(i)]::float8[]")
            parts.append(f"""SELECT p::text, encode(pipeline_send(p), 'hex') FROM (
  SELECT pipeline_agg(ts, v, k, '{spec}'::pipeline ORDER BY ts) p FROM (
    SELECT '{base}'::timestamptz + i * interval '1.5 s' ts,
           CASE WHEN i % 7 = 3 THEN NULL ELSE {value} END v,
           CASE WHEN i % 11 = 5 THEN NULL ELSE {key} END k
    FROM generate_series(1, {rows}) i) r) q""")
subprocess.run(["dropdb", "--if-exists", DB], check=True, stderr=subprocess.DEVNULL)
subprocess.run(["createdb", DB], check=True)
try:
    r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-At", "-F", "\x1f", "-d", DB],
                       input="CREATE EXTENSION segpipe;\n" + "\nUNION ALL\n".join(parts) + ";",
                       capture_output=True, text=True)
finally:
    subprocess.run(["dropdb", DB], check=True)
if r.returncode != 0:
    sys.exit("seeds from the server: " + r.stderr[-2000:])
out = r.stdout
for i, line in enumerate(out.splitlines()):
    text, hexed = line.split("\x1f")
    with open(f"{sys.argv[1]}/server_text{i}", "wb") as f:
        f.write(text.encode() + b"\0" + ROWS)
    with open(f"{sys.argv[1]}/server_binary{i}", "wb") as f:
        f.write(bytes.fromhex(hexed) + b"\0" + ROWS)
PY
then
	if SEGPIPE_FUZZ_EXACT=1 "$work/fuzz_spec" "$corpus"/server_* >"$work/log" 2>&1; then
		echo "seeds written by the server: $(ls "$corpus"/server_* | wc -l), each read back exactly"
		passed=$((passed + 1))
	else
		tail -n 40 "$work/log"
		echo "FAILED: seeds written by the server do not read back exactly"
		failed=$((failed + 1))
	fi
else
	echo "FAILED: seeds written by the server (the server did not write them)"
	failed=$((failed + 1))
fi

status=0
"$work/fuzz_spec" -max_total_time="$seconds" -seed="${LIBFUZZ_SEED:-20261130}" \
	-rss_limit_mb=1024 -artifact_prefix="$out/" \
	"$corpus" >"$work/log" 2>&1 || status=$?
grep -E "^(Done|==[0-9]+==ERROR|SUMMARY)|^#[0-9]+\s+DONE|runtime error|deadly signal" "$work/log" || true
if [ $status = 0 ]; then
	passed=$((passed + 1))
else
	tail -n 40 "$work/log"
	echo "FAILED: libFuzzer ($seconds s; a crash input is kept in test/fuzz/out/)"
	failed=$((failed + 1))
fi
echo "libFuzzer: $passed passed, $failed failed"
[ "$failed" = 0 ]
