#!/usr/bin/env python3
"""Feed malformed specs and malformed binary values to a live server.

Text: valid specs mutated at random (characters replaced, inserted,
deleted, pieces spliced from other specs, numbers pushed to extremes) are
cast to pipeline; the ones that are accepted also run through segment_agg
over rows with NaN, Infinity and NULLs.  Binary: wire forms of valid specs
with bytes flipped, lengths changed or cut short, and random bytes, go
through pipeline_recv by binary COPY.

Specs at the limits (the largest windows, 4096 filter coefficients, 256
operators, an id of 100 kB, objects with 64 and 4095 members, operators that
could hold more state than a pipeline may, refused with 54000) run as they
are, and one mutant in five starts from one of them.

Passing means: the server never crashes or loses the connection, and every
refusal carries an expected SQLSTATE (22P02, 22P03, 22023, 0A000, 2202E,
22004, 54000, and while running PostgreSQL's arithmetic errors 22003, 22012,
2201E, 2201F), never an internal error.  The seed is fixed (FUZZ_SEED to
change it); FUZZ_CASES sets the number of text cases (binary: half as many).
The binary values pass through a file in a private directory that is removed
at the end.
"""
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

DB = "segpipe_fuzz"
SEED = int(os.environ.get("FUZZ_SEED", "20261130"))
CASES = int(os.environ.get("FUZZ_CASES", "3000"))
ALLOWED = {"ok", "22P02", "22P03", "22023", "0A000", "2202E", "22004", "54000"}

KEYED_MA = ('{"type": "KeyedPipeline", "key_index": 0, "maxKeys": 2, "prototype": {"operators": [{"type": "VectorExtract", "id": "e", '
            '"index": 1}, {"type": "MovingAverage", "id": "ma", "window_size": 2}], "connections": [{"from": "e", "to": "ma"}], '
            '"entry": {"operator": "e"}, "output": {"operator": "ma"}}}')
KV_MAP = ('{"type": "Pipeline", "input_port_types": ["vector_number"], "operators": [{"type": "VectorProject", "id": "in", '
          '"indices": [0, 1, 2]}, {"type": "VectorExtract", "id": "q", "index": 2}, {"type": "KeyedVariable", "id": "kv", '
          '"mode": "lookup", "maxKeys": 3}], "connections": [{"from": "in", "to": "kv"}, {"from": "in", "to": "q"}, '
          '{"from": "q", "to": "kv", "toPort": "c1"}], "entryOperator": "in", "outputMappings": {"kv": {"o1": "o1"}}}')
TRIGGER_MS = ('{"type": "TriggerSet", "input_port_type": "number", "output_port_type": "number", "operators": '
              '[{"type": "MovingSum", "id": "s", "window_size": 3}], "entryOperator": "s", "outputOperator": "s"}')
PROGRAM_MESH = ('{"operators": [{"type": "Input", "id": "in", "portTypes": ["number", "number", "number"]}, '
                '{"type": "CumulativeSum", "id": "run"}, {"type": "Addition", "id": "add"}, '
                '{"type": "Pipeline", "id": "p", "operators": [{"type": "MovingAverage", "id": "ma", "window_size": 2}]}, '
                '{"type": "CountNumber", "id": "n"}, {"type": "Output", "id": "out", "portTypes": ["number", "number"]}], '
                '"connections": [{"from": "in", "to": "run", "fromPort": "o1"}, {"from": "run", "to": "add"}, '
                '{"from": "in", "to": "add", "fromPort": "o3", "toPort": "i2"}, {"from": "add", "to": "p"}, '
                '{"from": "in", "to": "p", "fromPort": "o2", "toPort": "c1"}, {"from": "p", "to": "n"}, '
                '{"from": "p", "to": "out"}, {"from": "n", "to": "out", "toPort": "i2"}], '
                '"entryOperator": "in", "output": {"out": ["o1", "o2"]}}')
SEEDS = [
    '{"type": "Identity"}',
    '{"type": "MovingAverage", "window_size": 3}',
    '{"type": "StandardDeviation", "id": "sd", "window_size": 2}',
    '{"type": "WindowMinMax", "window_size": 3, "mode": "min"}',
    '{"type": "PeakDetector", "window_size": 5}',
    '{"type": "FiniteImpulseResponse", "coeff": [0.5, 0.25, 0.25]}',
    '{"type": "InfiniteImpulseResponse", "b_coeffs": [1, 0.5], "a_coeffs": [-0.5, 0.25]}',
    '{"type": "Linear", "coefficients": [2, -1]}',
    '{"type": "Division", "numPorts": 2}',
    '{"type": "Power", "value": -0.5}',
    '{"type": "MovingAverage", "window": "2 seconds", "min_rows": 2}',
    '{"type": "Pipeline", "operators": [{"type": "TimeWeightedAverage", "id": "t", "method": "locf"}, {"type": "CompareGT", "id": "c", "value": 0}, {"type": "DurationTrue", "id": "d", "unit": "1 min"}], "connections": [{"from": "t", "to": "c"}, {"from": "c", "to": "d"}], "entryOperator": "t", "outputMappings": {"d": {"o1": "o1"}}}',
    '{"type": "EqualTo", "value": 1, "epsilon": 0.5}',
    '{"type": "MovingKeyCount", "window_size": 3}',
    '{"type": "Pipeline", "output_port_types": ["number", "number"], "operators": [{"type": "Identity", "id": "in"}, {"type": "CompareGT", "id": "pos", "value": 0}, {"type": "CompareLTE", "id": "neg", "value": 0}, {"type": "Demultiplexer", "id": "d", "numPorts": 2}, {"type": "Multiplexer", "id": "m"}, {"type": "CumulativeSum", "id": "up"}], "connections": [{"from": "in", "to": "d"}, {"from": "in", "to": "pos"}, {"from": "in", "to": "neg"}, {"from": "pos", "to": "d", "toPort": "c1"}, {"from": "neg", "to": "d", "toPort": "c2"}, {"from": "d", "fromPort": "o1", "to": "up"}, {"from": "d", "fromPort": "o2", "to": "m", "toPort": "i1"}, {"from": "in", "to": "m", "toPort": "i2"}, {"from": "neg", "to": "m", "toPort": "c1"}, {"from": "pos", "to": "m", "toPort": "c2"}], "entryOperator": "in", "outputMappings": {"up": {"o1": "o1"}, "m": {"o1": "o2"}}}',
    '{"type": "Pipeline", "operators": [{"type": "Identity", "id": "in"}, {"type": "Floor", "id": "k"}, {"type": "Pipeline", "id": "p", "operators": [{"type": "MovingSum", "id": "s", "window_size": 2}]}], "connections": [{"from": "in", "to": "k"}, {"from": "k", "to": "p", "toPort": "c1"}, {"from": "in", "to": "p"}], "entryOperator": "in", "outputMappings": {"p": {"o1": "o1"}}}',
    '{"operators": [{"type": "Input", "id": "in", "portTypes": ["number", "number"]}, {"type": "Pipeline", "id": "p", "input_port_types": ["number"], "output_port_types": ["number"], "operators": [{"type": "MovingAverage", "id": "ma", "window_size": 2}], "connections": [], "entryOperator": "ma", "outputMappings": {"ma": {"o1": "o1"}}}, {"type": "Output", "id": "out", "portTypes": ["number"]}], "connections": [{"from": "in", "to": "p", "fromPort": "o1", "toPort": "i1"}, {"from": "in", "to": "p", "fromPort": "o2", "toPort": "c1"}, {"from": "p", "to": "out", "fromPort": "o1", "toPort": "i1"}], "entryOperator": "in", "output": {"out": ["o1"]}}',
    '{"type": "ResamplerConstant", "interval": "2 s", "t0": 1767225601, "snapFirst": 1}',
    '{"type": "Pipeline", "operators": [{"type": "Identity", "id": "x"}, {"type": "TimeShift", "id": "ago", "shift": "2 s"}, {"type": "Subtraction", "id": "d"}], "connections": [{"from": "x", "to": "ago"}, {"from": "x", "to": "d", "toPort": "i1"}, {"from": "ago", "to": "d", "toPort": "i2"}], "entryOperator": "x", "outputMappings": {"d": {"o1": "o1"}}}',
    '{"type": "Pipeline", "output_port_types": ["number", "number", "number"], "operators": [{"type": "FusedExpression", "id": "f", "numPorts": 2, "numOutputs": 3, "bytecode": [0, 0, 0, 1, 5, 21, 0, 22, 2, 5, 20, 0, 1, 35, 3, 0, 0, 38, 4, 2, 20, 0, 0, 1, 0, 26, 44, 0, 0, 42, 0, 2, 0, 1, 43, 1, 1, 2, 6, 25, 5, 3, 20], "constants": [0.5], "coefficients": [0.5, 0.25, -0.5, 0.125]}], "entryOperator": "f", "outputMappings": {"f": {"o1": "o1", "o2": "o2", "o3": "o3"}}}',
    '{"type": "FusedExpression", "numPorts": 1, "numOutputs": 2, "bytecode": [0, 0, 23, 0, 0, 0, 24, 1, 3, 20, 0, 0, 37, 2, 0, 0, 40, 2, 0, 0, 41, 2, 2, 2, 39, 3, 20]}',
    '{"type": "Pipeline", "input_port_types": ["boolean", "boolean"], "operators": [{"type": "LogicalXnor", "id": "x"}, {"type": "ConstantBooleanToNumber", "id": "c", "value": 3}], "connections": [{"from": "x", "to": "c"}], "entryOperator": "x", "outputMappings": {"c": {"o1": "o1"}}}',
    '{"type": "Pipeline", "operators": [{"type": "CompareGT", "id": "c", "value": 0}, '
    '{"type": "BooleanToNumber", "id": "b"}, {"type": "MaxTracker", "id": "m"}], '
    '"connections": [{"from": "c", "to": "b"}, {"from": "b", "to": "m"}], '
    '"entryOperator": "c", "outputMappings": {"m": {"o1": "o1"}}}',
    '{"type": "Pipeline", "id": "p", "input_port_types": ["number"], '
    '"output_port_types": ["number", "number"], '
    '"operators": [{"type": "Identity", "id": "in"}, {"type": "MovingSum", "id": "ms", "window_size": 2}, '
    '{"type": "CountNumber", "id": "n"}], '
    '"connections": [{"from": "in", "to": "ms", "fromPort": "o1", "toPort": "i1"}, {"from": "ms", "to": "n"}], '
    '"entryOperator": "in", "outputMappings": {"ms": {"o1": "o1"}, "n": {"o1": "o2"}}, "late": "drop"}',
    '{"type": "Pipeline", "operators": [{"type": "CumulativeSum", "id": "a"}, {"type": "MovingAverage", "id": "b", "window_size": 1}], '
    '"connections": [{"from": "a", "to": "b"}], "entryOperator": "a", "outputMappings": {"b": {"o1": "o1"}}}',
    # vectors: a number composed into a vector, the best two, a lane of them
    '{"type": "Pipeline", "output_port_types": ["number", "vector_number"], "operators": [{"type": "VectorCompose", "id": "c", "numPorts": 1}, '
    '{"type": "TopK", "id": "t", "k": 2, "score_index": 0, "descending": "false"}, {"type": "VectorProject", "id": "p", "indices": [0, 0]}, '
    '{"type": "VectorExtract", "id": "e", "index": 1}, {"type": "TimestampExtract", "id": "ts"}], '
    '"connections": [{"from": "c", "to": "t"}, {"from": "t", "to": "p"}, {"from": "p", "to": "e"}, {"from": "p", "to": "ts"}], '
    '"entryOperator": "c", "outputMappings": {"e": {"o1": "o1"}, "t": {"o1": "o2"}}}',
    '{"type": "Pipeline", "input_port_types": ["vector_number"], "operators": [{"type": "VectorExtract", "id": "e", "index": 0}], '
    '"outputMappings": {"e": {"o1": "o1"}}}',
    # nested Pipelines on vectors: keyed by a segment bytecode, a vector out; keyed on "c1", a number out
    '{"type": "Pipeline", "input_port_types": ["vector_number"], "output_port_types": ["vector_number"], '
    '"operators": [{"type": "Pipeline", "id": "n", "input_port_types": ["vector_number"], "output_port_types": ["vector_number"], '
    '"operators": [{"type": "TopK", "id": "t", "k": 2, "score_index": 0}], '
    '"segmentBytecode": [0, 0, 1, 0, 5, 16, 20], "segmentConstants": [100]}], '
    '"entryOperator": "n", "outputMappings": {"n": {"o1": "o1"}}}',
    '{"type": "Pipeline", "output_port_types": ["number"], "operators": [{"type": "VectorCompose", "id": "c", "numPorts": 1}, '
    '{"type": "VectorExtract", "id": "e", "index": 0}, {"type": "Sign", "id": "k"}, '
    '{"type": "Pipeline", "id": "n", "input_port_types": ["vector_number"], '
    '"operators": [{"type": "VectorExtract", "id": "x", "index": 0}, {"type": "CumulativeSum", "id": "s"}], '
    '"connections": [{"from": "x", "to": "s"}], "entryOperator": "x", "outputMappings": {"s": {"o1": "o1"}}}], '
    '"connections": [{"from": "c", "to": "e"}, {"from": "e", "to": "k"}, {"from": "k", "to": "n", "toPort": "c1"}, '
    '{"from": "c", "to": "n"}], "entryOperator": "c", "outputMappings": {"n": {"o1": "o1"}}}',
    # the bytecode over a vector's lanes; rows routed by key to instances of a prototype
    '{"type": "FusedExpressionVector", "numOutputs": 2, "bytecode": [0, 1, 0, 0, 3, 20, 0, 0, 35, 2, 20]}',
    # the original's others: a count of booleans, a function of points, a spline on a grid, bursts
    '{"type": "Pipeline", "output_port_types": ["number", "number", "number"], "operators": [{"type": "Function", "id": "f", '
    '"points": [[0, 1], [2, -1], [5, 3]]}, {"type": "CompareGT", "id": "c", "value": 0}, {"type": "CountBoolean", "id": "n", '
    '"window": "3 s"}, {"type": "ResamplerHermite", "id": "h", "interval": "2 s", "t0": 1}], '
    '"connections": [{"from": "f", "to": "c"}, {"from": "c", "to": "n"}, {"from": "f", "to": "h"}], '
    '"entryOperator": "f", "outputMappings": {"f": {"o1": "o1"}, "n": {"o1": "o2"}, "h": {"o1": "o3"}}}',
    '{"type": "BurstAggregate", "aggBytecode": [0, 1, 21, 0, 22, 2, 5, 20, 0, 1, 35, 2, 20], "aggConstants": [], '
    '"segBytecode": [0, 0, 1, 0, 26, 20], "segConstants": [0], "keyColumns": [0], "numAggOutputs": 2, "numInputCols": 2}',
    KEYED_MA,
    '{"type": "KeyedPipeline", "keyColumnIndices": [1, 0], "prototype": {"operators": [{"type": "FusedExpressionVector", "id": "f", '
    '"numOutputs": 1, "bytecode": [0, 0, 21, 0, 20]}], "entry": {"operator": "f"}, "output": {"operator": "f"}}}',
    '{"type": "Pipeline", "prototypes": {"p": {"parameters": [{"name": "w", "type": "number", "default": 2}], '
    '"operators": [{"type": "VectorExtract", "id": "e", "index": 0}, {"type": "CumulativeSum", "id": "s"}], '
    '"connections": [{"from": "e", "to": "s"}], "entry": {"operator": "e"}, "output": {"operator": "s"}}}, '
    '"operators": [{"type": "KeyedPipeline", "id": "k", "key_index": 1, "maxKeys": 3, "prototype": "p", "parameters": {"w": 3}}], '
    '"entryOperator": "k", "outputMappings": {"k": {"o1": "o1"}}}',
    # Join, Variable, KeyedVariable and TriggerSet
    '{"type": "Join", "portTypes": ["number", "boolean"]}',
    '{"type": "Variable", "default_value": 1}',
    KV_MAP,
    TRIGGER_MS,
    # an Input as a Pipeline's entry (the original's way)
    '{"type": "Pipeline", "operators": [{"type": "Input", "id": "in", "portTypes": ["number", "number"]}, '
    '{"type": "Subtraction", "id": "d"}, {"type": "MovingSum", "id": "s", "window_size": 2}], '
    '"connections": [{"from": "in", "to": "d", "fromPort": "o1", "toPort": "i1"}, '
    '{"from": "in", "to": "d", "fromPort": "o2", "toPort": "i2"}, {"from": "d", "to": "s"}], '
    '"entryOperator": "in", "outputMappings": {"s": {"o1": "o1"}}}',
    # a program with operators before and after its Pipeline; two Pipelines of one key
    PROGRAM_MESH,
    '{"operators": [{"type": "Input", "id": "in", "portTypes": ["number", "number"]}, '
    '{"type": "Pipeline", "id": "p", "operators": [{"type": "MaxTracker", "id": "m"}]}, '
    '{"type": "Pipeline", "id": "q", "operators": [{"type": "CountNumber", "id": "n"}]}, {"type": "Addition", "id": "a"}], '
    '"connections": [{"from": "in", "to": "p"}, {"from": "in", "to": "q"}, {"from": "in", "to": "p", "fromPort": "o2", "toPort": "c1"}, '
    '{"from": "in", "to": "q", "fromPort": "o2", "toPort": "c1"}, {"from": "p", "to": "a"}, {"from": "q", "to": "a", "toPort": "i2"}], '
    '"entryOperator": "in", "output": {"a": ["o1"]}}',
]


def chain(ops):
    ids = ["w%d" % (i + 1) for i in range(len(ops))]
    return json.dumps({"type": "Pipeline", "operators": [dict(op, id=i) for op, i in zip(ops, ids)],
                       "connections": [{"from": a, "to": b} for a, b in zip(ids, ids[1:])],
                       "entryOperator": ids[0], "outputMappings": {ids[-1]: {"o1": "o1"}}})


def fan_out(n):
    """An Identity feeding n others, each mapped to its own output port."""
    ids = ["o%d" % (i + 1) for i in range(n)]
    return json.dumps({"type": "Pipeline", "output_port_types": ["number"] * n,
                       "operators": [{"type": "Identity", "id": "in"}] + [{"type": "Identity", "id": i} for i in ids],
                       "connections": [{"from": "in", "to": i} for i in ids], "entryOperator": "in",
                       "outputMappings": {i: {"o1": "o%d" % (k + 1)} for k, i in enumerate(ids)}})


WMM = {"type": "WindowMinMax", "window_size": 1000000, "mode": "max"}
# Specs at the limits, valid or just past them.  5 x WindowMinMax(1000000)
# could hold about 80 MB, over the 64 MiB a pipeline may hold: refused with
# 54000 when read.
LIMIT_SEEDS = [
    '{"type": "MovingAverage", "window_size": 1000000}',
    '{"type": "StandardDeviation", "window_size": 1000000}',
    '{"type": "WindowMinMax", "window_size": 1000000, "mode": "min"}',
    '{"type": "PeakDetector", "window_size": 999999}',
    json.dumps({"type": "FiniteImpulseResponse", "coeff": [round(1 / (i + 1), 6) for i in range(4096)]}),
    json.dumps({"type": "InfiniteImpulseResponse", "b_coeffs": [0.5] * 4096, "a_coeffs": [1e-9] * 4096}),
    chain([WMM] * 3),
    chain([WMM] * 5),
    chain([{"type": "Identity"}] * 256),
    chain([{"type": "CumulativeSum"}] * 257),
    json.dumps({"type": "Identity", "id": "i" * 100000}),
    json.dumps({"type": "Pipeline", "id": "p" * 100000, "operators": [{"type": "Identity", "id": "x" * 1000}]}),
    fan_out(64),
    json.dumps({"type": "FusedExpression", "numPorts": 1, "numOutputs": 1,
                "bytecode": [0, 0] * 64 + [2] * 63 + [20]}),
    json.dumps({"type": "FusedExpression", "numPorts": 1, "numOutputs": 1,
                "bytecode": [0, 0] + [0, 0, 2] * 5460 + [20]}),
    json.dumps({"type": "FusedExpression", "numPorts": 1, "numOutputs": 1,
                "bytecode": [22, 0] + [x for k in range(1, 5461) for x in (22, k, 2)] + [20]}),
    json.dumps({"type": "FusedExpression", "numPorts": 1, "numOutputs": 1,
                "bytecode": [0, 0] + [35, 1000000] * 8 + [20]}),
    json.dumps(dict({"type": "Identity"}, **{"m%d" % i: i for i in range(4094)})),
]
# Pipelines carrying state (configuration, state): text seeds, and format 2
# wire seeds.  Keys are float8 like the rows' keys; the progress is before
# the rows, so that the accepted ones can continue over them.
STATE_SEEDS = [
    ('{"type": "MovingAverage", "window_size": 3}',
     '{"key_type": "double precision", "key": "1", "progress": "1970-01-01 00:00:00+00", "rows": 4, '
     '"discarded": 1, "late": 0, "buffer": [2], "operators": {"op1": {"nan": 0, "pinf": 0, "ninf": 0, '
     '"sum": 6, "sum_err": 0, "values": [1, 2, 3]}}, "emissions": [["1970-01-01 00:00:00+00", "NaN", 1, 0.5]]}'),
    ('{"type": "WindowMinMax", "window_size": 3, "mode": "max"}',
     '{"key_type": "double precision", "key": "-0", "progress": "1970-01-01 00:00:00+00", "rows": 3, '
     '"discarded": 0, "late": 0, "buffer": [5], "operators": {"op1": {"seen": 3, "values": [5, 3], '
     '"indexes": [0, 2]}}, "emissions": []}'),
    ('{"type": "StandardDeviation", "window_size": 3}',
     '{"key_type": "double precision", "key": "2", "progress": "1970-01-01 00:00:00+00", "rows": 2, '
     '"discarded": 0, "late": 0, "buffer": [null], "operators": {"op1": {"nan": 0, "pinf": 0, "ninf": 0, '
     '"scale": 1, "fresh": 2, "nonzero": 2, "near_top": 2, "sum": 1.5, "sum_err": 0, "sumsq": 1.25, '
     '"sumsq_err": 0, "values": [1, 2]}}, "emissions": []}'),
    ('{"type": "Pipeline", "operators": [{"type": "CumulativeSum", "id": "a"}, {"type": "Difference", "id": "d"}], '
     '"connections": [{"from": "a", "to": "d"}], "entryOperator": "a", "outputMappings": {"d": {"o1": "o1"}}, '
     '"late": "drop"}',
     '{"key_type": "double precision", "key": null, "progress": "1970-01-01 00:00:00+00", "rows": 9, '
     '"discarded": 2, "late": 3, "buffer": [null], "operators": {"a": {"sum": 0, "sum_err": 0}, '
     '"d": {"seen": 0, "previous": 0}}, "emissions": [["1970-01-01 00:00:00+00", "Infinity", 1, "-Infinity"]]}'),
]
STATE_SEEDS.append(('{"type": "StandardDeviation", "window": "00:00:05"}', '{"key_type": "double precision", "key": "1", "progress": "1970-01-01 00:00:00+00", "rows": 2, "discarded": 0, "late": 0, "buffer": [0.7071067811865476], "operators": {"op1": {"nan": 0, "pinf": 0, "ninf": 0, "scale": 2, "fresh": 1, "nonzero": 2, "near_top": 2, "sum": 2.75, "sum_err": 0, "sumsq": 3.8125, "sumsq_err": 0, "values": [5, 6], "first": -946684800000000, "last": -946684799500000, "gaps": [0, 500000]}}, "emissions": []}'))
STATE_SEEDS.append(('{"type": "TopK", "k": 2, "score_index": 1}', '{"key_type": "double precision", "key": "1", "progress": "1970-01-01 00:00:00+00", "rows": 2, "discarded": 0, "late": 0, "buffer": [[1, 9, 2, 5]], "operators": {"op1": {"n": 2, "entries": [2, 1, 9, 2, 2, 5]}}, "emissions": [["1970-01-01 00:00:00+00", "0", 1, [3, "NaN"]]]}'))
STATE_SEEDS.append(('{"type": "FusedExpression", "numPorts": 1, "numOutputs": 2, "bytecode": [0, 0, 21, 0, 22, 2, 5, 20, 0, 0, 38, 3, 0, 0, 35, 2, 2, 20]}', '{"key_type": "double precision", "key": "1", "progress": "1970-01-01 00:00:00+00", "rows": 2, "discarded": 0, "late": 0, "buffer": [4.5], "operators": {"op1": {"CUMSUM@3/sum": 9, "CUMSUM@3/sum_err": 0, "COUNT@5/n": 2, "DIFF@11/seen": 1, "DIFF@11/previous": 6, "MA_UPDATE@15/nan": 0, "MA_UPDATE@15/pinf": 0, "MA_UPDATE@15/ninf": 0, "MA_UPDATE@15/sum": 9, "MA_UPDATE@15/sum_err": 0, "MA_UPDATE@15/values": [3, 6]}}, "emissions": []}'))
STATE_SEEDS.append(('{"type": "Pipeline", "input_port_types": ["vector_number"], "output_port_types": ["vector_number"], "operators": [{"type": "Pipeline", "id": "seg", "input_port_types": ["vector_number"], "output_port_types": ["vector_number"], "operators": [{"type": "VectorProject", "id": "p", "indices": [1, 0]}], "segmentBytecode": [0, 2, 20]}], "entryOperator": "seg", "outputMappings": {"seg": {"o1": "o1"}}}', '{"key_type": "integer", "key": "1", "progress": "2026-01-02 00:00:00+00", "rows": 2, "discarded": 0, "late": 0, "buffer": [null], "operators": {"seg": {"has_key": 1, "key": 5, "buffered": [1], "buffer": [2], "buffer_o1": [1, 20]}}, "emissions": []}'))
# carried across a boundary (ops_time.c): the value carried in is state
STATE_SEEDS.append(('{"type": "TimeWeightedAverage", "method": "locf", "carry": "locf", "fill": true}', '{"key_type": "integer", "key": "2", "progress": "2026-01-02 00:00:00+00", "rows": 4, "discarded": 0, "late": 0, "buffer": [null], "operators": {"op1": {"seen": 1, "first": 820627200000000, "last": 820627200000000, "previous": 4, "area": 0, "area_err": 0, "nan": 0, "pinf": 0, "ninf": 0, "carried": 1}}, "emissions": []}'))
STATE_SEEDS.append(('{"type": "Transitions", "count": "rising", "carry": "locf"}', '{"key_type": "integer", "key": "2", "progress": "2026-01-02 00:00:00+00", "rows": 4, "discarded": 0, "late": 0, "buffer": [null], "operators": {"op1": {"seen": 1, "previous": 4, "transitions": 0, "carried": 1}}, "emissions": []}'))
STATE_SEEDS.append(('{"type": "FusedExpressionVector", "numOutputs": 1, "bytecode": [0, 0, 21, 0, 20]}', '{"key_type": "double precision", "key": "1", "progress": "1970-01-01 00:00:00+00", "rows": 2, "discarded": 0, "late": 0, "buffer": [[4]], "operators": {"op1": {"CUMSUM@3/sum": 4, "CUMSUM@3/sum_err": 0}}, "emissions": []}'))
STATE_SEEDS.append((KEYED_MA, '{"key_type": "double precision", "key": "1", "progress": "1970-01-01 00:00:00+00", "rows": 3, "discarded": 0, "late": 0, "buffer": [[1, 2]], "operators": {"op1": {"keys": 2, "1/key": [1], "1/ma/nan": 0, "1/ma/pinf": 0, "1/ma/ninf": 0, "1/ma/sum": 4, "1/ma/sum_err": 0, "1/ma/values": [1, 3], "2/key": ["NaN"], "2/ma/nan": 0, "2/ma/pinf": 0, "2/ma/ninf": 0, "2/ma/sum": 5, "2/ma/sum_err": 0, "2/ma/values": [5]}}, "emissions": []}'))
STATE_SEEDS.append(('{"type": "ResamplerHermite", "interval": "6 s"}', '{"key_type": "double precision", "key": "1", "progress": "1970-01-01 00:00:00+00", "rows": 5, "discarded": 0, "late": 0, "buffer": [3.0625], "operators": {"op1": {"n": 4, "next": -946684804000000, "time0": -946684824000000, "time1": -946684816000000, "time2": -946684808000000, "time3": -946684800000000, "values": [0, 1, 4, 9]}}, "emissions": []}'))
STATE_SEEDS.append(('{"type": "BurstAggregate", "aggBytecode": [0, 0, 21, 0, 22, 2, 5, 20], "segBytecode": [0, 0, 7, 1, 0, 26, 20], "segConstants": [0], "numAggOutputs": 1, "numInputCols": 1}', '{"key_type": "double precision", "key": "1", "progress": "1970-01-01 00:00:00+00", "rows": 3, "discarded": 0, "late": 0, "buffer": [[2]], "operators": {"op1": {"seen": 1, "predicate": 0, "valid": 1, "aggregates": [0], "agg/CUMSUM@3/sum": 0, "agg/CUMSUM@3/sum_err": 0, "agg/COUNT@5/n": 1}}, "emissions": []}'))
STATE_SEEDS.append(('{"type": "Variable", "default_value": 1}', '{"key_type": "double precision", "key": "1", "progress": "1970-01-01 00:00:00+00", "rows": 2, "discarded": 0, "late": 0, "buffer": [3], "operators": {"op1": {"set": 1, "value": 3}}, "emissions": []}'))
STATE_SEEDS.append((KV_MAP, '{"key_type": "double precision", "key": "1", "progress": "1970-01-01 00:00:00+00", "rows": 2, "discarded": 0, "late": 0, "buffer": [10], "operators": {"kv": {"map": [1, 10, "NaN", 2]}}, "emissions": []}'))
STATE_SEEDS.append((TRIGGER_MS, '{"key_type": "double precision", "key": "1", "progress": "1970-01-01 00:00:00+00", "rows": 2, "discarded": 0, "late": 0, "buffer": [null], "operators": {"op1": {"s/nan": 0, "s/pinf": 0, "s/ninf": 0, "s/sum": 3, "s/sum_err": 0, "s/values": [1, 2]}}, "emissions": []}'))
STATE_SEEDS.append((PROGRAM_MESH, '{"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:04+00", "rows": 4, "discarded": 0, "late": 0, "buffer": [null, null], "operators": {"run": {"sum": 10, "sum_err": 0}, "p": {"has_key": 1, "key": 0, "buffered": [1], "buffer": [15], "ma/nan": 0, "ma/pinf": 0, "ma/ninf": 0, "ma/sum": 30, "ma/sum_err": 0, "ma/values": [12, 18]}, "n": {"count": 1}}, "emissions": [["2026-01-01 00:00:03+00", "0", 1, 5], ["2026-01-01 00:00:03+00", "0", 2, 1]]}'))
SEEDS += [c[:-1] + ', "state": ' + st + '}' for c, st in STATE_SEEDS]
TOKENS = ['{', '}', '[', ']', ',', ':', '"', '\\', '\\u', '\\ud800', 'null', 'true', '-0', '1e308',
          '1e999', '0.5', '-1', '2147483648', '1000001', '"o0"', '"o99"', '"i2"', '"Pipeline"',
          '"key_type"', '"integer"', '"NaN"', '"2262-01-01 00:00:00+00"', '"infinity"',
          '"boolean"', '"vector_number"', '"vector_boolean"', '"segmentBytecode"', '"buffer_o1"', '"entries"', '"keys"', '"1/key"', '"prototype"', '[[', '1025', '"window_size"', '"operators"', '"connections"', '\u00e9',
          '\u2028', '[' * 70, ']' * 70, '44', '65535', '"bytecode"', '"numOutputs"', '"points"', '"aggBytecode"', '"segBytecode"', '"numInputCols"', '"keyColumns"']


def pick(rng):
    """A seed; one in five at the limits (they are large and slower to run)."""
    return rng.choice(LIMIT_SEEDS if rng.random() < 0.2 else SEEDS)


def mutate(rng, s):
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(6)
        pos = rng.randint(0, len(s))
        if op == 0 and s:
            s = s[:pos] + s[pos + 1:]
        elif op == 1:
            s = s[:pos] + rng.choice(TOKENS) + s[pos:]
        elif op == 2:
            s = s[:pos] + chr(rng.randint(1, 0x7f)) + s[pos + 1:]
        elif op == 3:
            other = rng.choice(SEEDS + LIMIT_SEEDS)
            a = rng.randint(0, len(other))
            s = s[:pos] + other[a:a + rng.randint(1, 40)] + s[pos:]
        elif op == 4:
            s = s[:pos]
        else:
            s = s.replace(str(rng.randint(0, 9)), rng.choice(['0', '-5', '1e6', '999999999', '3.5']), 1)
    return s


def wire(spec_text, state_text=None):
    b = spec_text.encode()
    if state_text is None:
        return bytes([1, 0, 0, 0]) + struct.pack(">I", len(b)) + b
    return bytes([2, 0, 0, 0]) + struct.pack(">I", len(b)) + b + state_text.encode()


def mutate_bytes(rng, b):
    b = bytearray(b)
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(4)
        if op == 0 and b:
            b[rng.randrange(len(b))] = rng.randrange(256)
        elif op == 1:
            b = b[:rng.randint(0, len(b))]
        elif op == 2:
            b[4:8] = struct.pack(">I", rng.choice([0, 1, len(b), max(len(b) - 8, 0), 0x7fffffff, 0xffffffff]))
        else:
            b += bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    return bytes(b)


def quote(s):
    return "'" + s.replace("'", "''") + "'"


PRELUDE = r"""
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
CREATE EXTENSION segpipe;
CREATE TABLE rows AS
  SELECT i AS ts, ('{1, NaN, Infinity, -Infinity, NULL, 0, -2.5, 1e300}'::float8[])[1 + i % 8] AS v,
         ('{1, 1, NULL, 2, NaN, NaN, 3, 3}'::float8[])[1 + (i * 3) % 8] AS k
  FROM generate_series(1, 40) AS i;
CREATE FUNCTION fuzz_spec(spec text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    p pipeline;
BEGIN
    BEGIN
        p := spec::pipeline;
    EXCEPTION WHEN OTHERS THEN
        RETURN SQLSTATE;
    END;
    BEGIN
        PERFORM count(e) FROM (SELECT segment_agg(v, k, p) OVER (ORDER BY ts) AS e FROM rows) s;
    EXCEPTION WHEN OTHERS THEN
        -- (0A000: a vector output that segment_agg cannot return; 2202E: a
        -- vector lane out of range; 54000: a vector too long)
        IF SQLSTATE NOT IN ('22023', '42804', '22P02', '22003', '22012', '2201E', '2201F',
                            '0A000', '2202E', '54000') THEN
            RETURN 'run ' || SQLSTATE;
        END IF;
    END;
    BEGIN
        -- with the rows' timestamps, as operators that know time need them
        -- (22000: a stored state's rows are later than these)
        PERFORM count(e) FROM (SELECT segment_agg(to_timestamp(ts), CASE WHEN v IS NULL THEN NULL ELSE ARRAY[v, v] END, k, p)
                                      OVER (ORDER BY ts) AS e FROM rows) s;
    EXCEPTION WHEN OTHERS THEN
        IF SQLSTATE NOT IN ('2202E', '22000', '42804', '22P02', '22003', '22012', '2201E', '2201F',
                            '0A000', '54000', '22023') THEN
            RETURN 'run[] ' || SQLSTATE;
        END IF;
    END;
    -- (segment_agg starts each partition from the state: a key type other
    -- than the rows' is 42804, a key the type does not read 22P02)
    -- a pipeline with state continues over the rows (its key read with the
    -- rows' key type: 22P02 when it does not read), and its accessors and
    -- casts read it
    BEGIN
        PERFORM pipeline_rows(pipeline_agg(to_timestamp(ts), v, k, p ORDER BY ts)),
                (SELECT count(*) FROM emissions(p)), (SELECT count(*) FROM pending(p)),
                (SELECT count(*) FROM vector_emissions(p)), (SELECT count(*) FROM vector_pending(p)),
                pipeline_key(flush(p)), pipeline_progress(p), pipeline_late(p)
        FROM rows;
    EXCEPTION WHEN OTHERS THEN
        IF SQLSTATE NOT IN ('22023', '22000', '42804', '22P02', '22003', '22012', '2201E', '2201F') THEN
            RETURN 'agg ' || SQLSTATE;
        END IF;
    END;
    BEGIN
        PERFORM pipeline_rows(pipeline_agg_row(to_timestamp(ts), v, ROW(k), p ORDER BY ts)) FROM rows;
    EXCEPTION WHEN OTHERS THEN
        IF SQLSTATE NOT IN ('22023', '22000', '42804', '22P02', '22003', '22012', '2201E', '2201F') THEN
            RETURN 'agg_row ' || SQLSTATE;
        END IF;
    END;
    BEGIN
        PERFORM pipeline_rows(punctuate(p, to_timestamp(ts), k)) FROM rows;
    EXCEPTION WHEN OTHERS THEN
        IF SQLSTATE NOT IN ('22000', '42804', '22P02', '22003') THEN
            RETURN 'punctuate ' || SQLSTATE;
        END IF;
    END;
    IF p::json::pipeline <> p OR p::text::pipeline <> p OR p::jsonb IS NULL THEN
        RETURN 'casts do not read back';
    END IF;
    RETURN 'ok';
END $$;
CREATE FUNCTION fuzz_recv(bytes bytea) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    CREATE TEMP TABLE raw_field (b bytea);
    CREATE TEMP TABLE recv_field (p pipeline);
    INSERT INTO raw_field VALUES (bytes);
    COPY raw_field TO @RAW@ (FORMAT binary);
    COPY recv_field FROM @RAW@ (FORMAT binary);
    PERFORM p::text FROM recv_field;
    DROP TABLE raw_field, recv_field;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END $$;
"""


def main():
    rng = random.Random(SEED)
    # the specs at the limits as they are, then the mutants
    texts = LIMIT_SEEDS + [mutate(rng, pick(rng)) for _ in range(CASES)]
    texts = [t.replace("\x00", "") for t in texts]
    blobs = [mutate_bytes(rng, wire(pick(rng))) for _ in range(CASES // 4)]
    blobs += [mutate_bytes(rng, wire(*rng.choice(STATE_SEEDS))) for _ in range(CASES // 8)]
    blobs += [bytes(rng.randrange(256) for _ in range(rng.randint(0, 24))) for _ in range(CASES // 4)]

    subprocess.run(["dropdb", "--if-exists", DB], check=True, stderr=subprocess.DEVNULL)
    subprocess.run(["createdb", "-E", "UTF8", "-T", "template0", DB], check=True)
    # The server writes and reads the binary values in a directory of our
    # own; it runs as another user, who needs to create files there.
    tmp = tempfile.mkdtemp(prefix="segpipe_fuzz.")
    try:
        os.chmod(tmp, 0o733)
        script = [PRELUDE.replace("@RAW@", quote(os.path.join(tmp, "raw.bin")))]
        script += ["SELECT fuzz_spec(%s);" % quote(t) for t in texts]
        script += ["SELECT fuzz_recv('\\x%s');" % b.hex() for b in blobs]
        script.append("SELECT 'fuzz-done';")
        r = subprocess.run(["psql", "-X", "-q", "-d", DB], input="\n".join(script),
                           capture_output=True, text=True)
    finally:
        shutil.rmtree(tmp)
    lines = r.stdout.strip().split("\n")
    failed = 0
    if r.returncode != 0 or not lines or lines[-1] != "fuzz-done":
        print("fuzz: the session ended early (server crash?)", file=sys.stderr)
        print(r.stderr[-2000:], file=sys.stderr)
        failed += 1
    results = lines[:-1]
    cases = texts + blobs
    bad = [(cases[i], res) for i, res in enumerate(results) if res not in ALLOWED]
    for case, res in bad[:20]:
        shown = case[:300]
        if len(case) > 300:
            shown += b"..." if isinstance(case, bytes) else "..."
        print(f"fuzz: unexpected result {res!r} for {shown!r}", file=sys.stderr)
    failed += len(bad)
    accepted = sum(1 for x in results[:len(texts)] if x == "ok")
    recv_ok = sum(1 for x in results[len(texts):] if x == "ok")
    print(f"fuzz: {len(texts)} specs ({accepted} accepted and run), {len(blobs)} binary values "
          f"({recv_ok} accepted), {len(results)} answered of {len(cases)}")
    subprocess.run(["dropdb", DB], check=True)
    passed = len(results) - len(bad)
    failed += len(cases) - len(results)
    print(f"fuzz: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
