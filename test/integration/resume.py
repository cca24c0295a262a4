#!/usr/bin/env python3
"""Resume equivalence: a pipeline continued from its stored state gives,
bit for bit, what one run over all the rows gives.

Random streams (runs of keys among NaN, -0, 0, huge and infinite values;
punctuation rows with and without a key; unpaired rows; equal timestamps;
late rows for specs that drop them), fed in arrival order run through random specs drawn from
every operator with state, and through short chains of them; a link of a
chain may also be a small mesh around an operator that needs more than
one number port: a Multiplexer or a Demultiplexer with comparisons on
their control ports, a DurationTrue behind a comparison, a nested Pipeline
keyed by the sign of its input, a FusedExpression of random stateful
opcodes (FUSED below) or a BurstAggregate of them per sign, a CountBoolean
behind a comparison, a stretch of vectors (VectorCompose, TopK,
VectorExtract; a FusedExpressionVector of the same bytecodes; a
KeyedPipeline of a random operator per sign of the value), or a nested
Pipeline on vectors, keyed on its control port or by a segment bytecode,
or a Variable set by a filter and asked through a Join, a KeyedVariable
keyed by the sign, or a TriggerSet around a random operator.
Each stream
is run whole, and split at random points into 2 to 10 batches, each batch
continuing from the stored result of the previous one, which goes through
the text form (p::text::pipeline) in one pass, through the binary form
(COPY ... (FORMAT binary) out and back in) in another, and in a third
through a client in libpq's binary mode (test/integration/resume_client.c, compiled
here: each state fetched as a binary result and sent back as a binary
parameter of type pipeline, the bytes checked against pipeline_send()).  Passing means: the
batches' emissions, concatenated, equal the whole run's (timestamps, keys,
ports and float8send of the values), and the final states are the same
text but for the emissions.

RESUME_STREAMS sets the number of streams (default 1000), RESUME_SEED the
seed.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

DB = "segpipe_resume"
STREAMS = int(os.environ.get("RESUME_STREAMS", "1000"))
SEED = int(os.environ.get("RESUME_SEED", "20261130"))
MODES = ("text", "binary", "client binary")
KEYS = ["'NaN'", "'-0'", "0", "1e308", "-1e308", "'Infinity'", "1", "2", "1.5"]


def operator(rng):
    w = rng.randint(1, 5)
    return rng.choice([
        {"type": "Identity"}, {"type": "CumulativeSum"}, {"type": "CountNumber"},
        {"type": "MovingAverage", "window_size": w}, {"type": "MovingSum", "window_size": w},
        {"type": "StandardDeviation", "window_size": w},
        {"type": "MaxTracker"}, {"type": "MinTracker"},
        {"type": "WindowMinMax", "window_size": w, "mode": rng.choice(["min", "max"])},
        {"type": "Difference"}, {"type": "PeakDetector", "window_size": rng.choice([3, 5])},
        {"type": "FiniteImpulseResponse", "coeff": [rng.choice([0.5, -0.25, 1, 0.125]) for _ in range(w)]},
        {"type": "InfiniteImpulseResponse", "b_coeffs": [0.5, 0.25][:rng.randint(1, 2)],
         "a_coeffs": [rng.choice([-0.5, 0.25, 0.125])]},
        {"type": "Scale", "value": 0.5},
        dict(rng.choice([{"type": "WindowMinMax", "mode": "max"}, {"type": "MovingAverage"}, {"type": "MovingSum"}, {"type": "StandardDeviation"}, {"type": "CountNumber"}]), window="%d s" % w, min_rows=rng.randint(1, 2)),
        {"type": "TimeWeightedAverage", "method": rng.choice(["locf", "linear"])}, {"type": "Integral", "unit": rng.choice(["1 s", "1 min"])}, {"type": rng.choice(["CounterIncrease", "CounterRate"])},
        # carried across boundaries (ops_time.c): the carried value is state
        {"type": "TimeWeightedAverage", "method": rng.choice(["locf", "linear"]), "carry": rng.choice(["locf", "linear"]), "fill": rng.random() < 0.5},
        {"type": "Integral", "carry": rng.choice(["locf", "linear"]), "fill": rng.random() < 0.5},
        {"type": rng.choice(["CounterIncrease", "CounterRate"]), "carry": "locf", "fill": rng.random() < 0.5},
        dict({"type": "Transitions", "count": rng.choice(["changes", "rising", "falling"])}, **rng.choice([{}, {"carry": "locf"}, {"carry": "locf", "fill": True}])),
        {"type": "MovingKeyCount", "window_size": w}, {"type": "ResamplerConstant", "interval": "%d s" % w, "snapFirst": rng.randint(0, 1)},
        dict({"type": "ResamplerHermite", "interval": "%d s" % w}, **rng.choice([{}, {"t0": 1}])),
        {"type": "Function", "points": [[-500, 3], [0, -1], [250, 7]]},
        {"type": "TimeShift", "shift": "%d s" % w},
    ])


# FusedExpression bytecodes over one port (x is INPUT 0): stateful opcodes,
# STATE_LOAD, windows that leave values absent, GATE; each one expression.
FUSED = [
    [0, 0, 21, 0, 22, 2, 5, 20],                        # CUMSUM(x) / COUNT
    [0, 0, 23, 0, 0, 0, 24, 1, 3, 25, 0, 2, 20],        # MAX_AGG - MIN_AGG + MAX_AGG
    [0, 0, 38, 0, 0, 0, 39, 2, 4, 20],                  # DIFF(x) * SIGN_CHANGE(x)
    [0, 0, 35, 3, 21, 0, 20],                           # CUMSUM(MA_UPDATE 3 (x))
    [0, 0, 37, 2, 0, 0, 41, 3, 2, 20],                  # STD_UPDATE 2 + WIN_MAX 3
    [0, 0, 42, 0, 2, 0, 0, 43, 1, 1, 1, 3, 20],         # FIR - IIR
    [0, 0, 1, 0, 26, 44, 0, 0, 36, 2, 22, 5, 2, 20],    # x > 0.5 gates MSUM_UPDATE 2 + COUNT
    [0, 0, 40, 2, 0, 0, 38, 0, 25, 1, 4, 2, 20],        # WIN_MIN 2 + DIFF(x) * DIFF's "seen"
]


def fused(rng):
    return {"type": "FusedExpression", "numPorts": 1, "numOutputs": 1, "bytecode": rng.choice(FUSED),
            "constants": [0.5], "coefficients": [0.5, 0.25, -0.5]}


def link(rng, p):
    """One link of a chain: (operators, connections, entry id, exit id), ids prefixed p."""
    r = rng.random()
    if r < 0.49:
        return [dict(operator(rng), id=p)], [], p, p
    if r < 0.55:    # the value as a one-lane vector, the best k of the segment so far, lane 0
        ops = [{"type": "VectorCompose", "id": p + "v", "numPorts": 1},
               {"type": "TopK", "id": p + "t", "k": rng.randint(1, 3), "score_index": 0,
                "descending": rng.choice(["true", "false"])},
               {"type": "VectorExtract", "id": p, "index": 0}]
        return ops, [{"from": p + "v", "to": p + "t"}, {"from": p + "t", "to": p}], p + "v", p
    if r < 0.58:
        return [dict(fused(rng), id=p)], [], p, p
    if r < 0.61:    # bursts of one sign of the value, one of FUSED (those without coefficients) over each
        b = {"type": "BurstAggregate", "id": p + "b", "aggBytecode": rng.choice([f for f in FUSED if 42 not in f]),
             "aggConstants": [0.5], "segBytecode": [0, 0, 15, 20], "numAggOutputs": 1, "numInputCols": 1}
        ops = [{"type": "VectorCompose", "id": p + "v", "numPorts": 1}, b,
               {"type": "VectorExtract", "id": p, "index": 0}]
        return ops, [{"from": p + "v", "to": p + "b"}, {"from": p + "b", "to": p}], p + "v", p
    v = p + "v"
    if r < 0.63:    # the same bytecode over lane 0 of a one-lane vector
        f = dict(fused(rng), type="FusedExpressionVector", id=p + "f")
        del f["numPorts"]
        ops = [{"type": "VectorCompose", "id": v, "numPorts": 1}, f,
               {"type": "VectorExtract", "id": p, "index": 0}]
        return ops, [{"from": v, "to": p + "f"}, {"from": p + "f", "to": p}], v, p
    if r < 0.65:    # [x, sign(x)] keyed by lane 1, a random operator over lane 0 per key
        x, classic = p + "x", rng.random() < 0.5
        kp = {"type": "KeyedPipeline", "id": p + "k", "maxKeys": 4,
              "prototype": {"operators": [{"type": "VectorExtract", "id": "e", "index": 0},
                                          dict(operator(rng), id="o")],
                            "connections": [{"from": "e", "to": "o"}],
                            "entry": {"operator": "e"}, "output": {"operator": "o"}}}
        kp.update({"key_index": 1} if classic else {"keyColumnIndices": [1]})
        ops = [{"type": "Identity", "id": x}, {"type": "Sign", "id": p + "s"},
               {"type": "VectorCompose", "id": v, "numPorts": 2}, kp,
               {"type": "VectorExtract", "id": p, "index": 1 if classic else 0}]
        cons = [{"from": x, "to": v, "toPort": "i1"}, {"from": x, "to": p + "s"},
                {"from": p + "s", "to": v, "toPort": "i2"}, {"from": v, "to": p + "k"},
                {"from": p + "k", "to": p}]
        return ops, cons, x, p
    x, a = p + "x", rng.choice([-100, 0, 100])
    if r < 0.72:    # the value, or half of it, as the comparisons choose
        ops = [{"type": "Identity", "id": x}, {"type": "Scale", "id": p + "h", "value": 0.5},
               {"type": "CompareGT", "id": p + "gt", "value": a},
               {"type": "CompareLTE", "id": p + "le", "value": a + rng.choice([0, 50])},
               {"type": "Multiplexer", "id": p}]
        cons = [{"from": x, "to": p + "h"}, {"from": x, "to": p + "gt"}, {"from": x, "to": p + "le"},
                {"from": x, "to": p, "toPort": "i1"}, {"from": p + "h", "to": p, "toPort": "i2"},
                {"from": p + "gt", "to": p, "toPort": "c1"}, {"from": p + "le", "to": p, "toPort": "c2"}]
        return ops, cons, x, p
    if r < 0.79:    # the values above a, through one of two ports
        ops = [{"type": "Identity", "id": x}, {"type": "CompareGT", "id": p + "gt", "value": a},
               {"type": "CompareLT", "id": p + "lt", "value": a},
               {"type": "Demultiplexer", "id": p + "d", "numPorts": 2},
               {"type": "CumulativeSum", "id": p}]
        cons = [{"from": x, "to": p + "d", "toPort": "i1"}, {"from": x, "to": p + "gt"},
                {"from": x, "to": p + "lt"}, {"from": p + "gt", "to": p + "d", "toPort": "c1"},
                {"from": p + "lt", "to": p + "d", "toPort": "c2"},
                {"from": p + "d", "fromPort": rng.choice(["o1", "o2"]), "to": p}]
        return ops, cons, x, p
    if r < 0.83:    # how many rows (of a window of time, or all) since the segment's start
        ops = [{"type": "CompareGT", "id": x, "value": a},
               dict({"type": "CountBoolean", "id": p}, **rng.choice([{}, {"window": "2 s"}]))]
        return ops, [{"from": x, "to": p}], x, p
    if r < 0.86:    # how long the value was above a
        ops = [{"type": "CompareGT", "id": x, "value": a},
               dict({"type": "DurationTrue", "id": p, "unit": rng.choice(["1 s", "2 s"])}, **rng.choice([{}, {"carry": "locf"}, {"carry": "locf", "fill": True}]))]
        return ops, [{"from": x, "to": p}], x, p
    if r < 0.88:    # the value set when above a, asked on every row (through a Join with half of it)
        ops = [{"type": "Identity", "id": x}, {"type": "GreaterThan", "id": p + "u", "value": a},
               {"type": "Scale", "id": p + "h", "value": 0.5},
               {"type": "Join", "id": p + "j", "portTypes": ["number", "number"]},
               {"type": "Variable", "id": p, "default_value": rng.choice([0, -1])}]
        cons = [{"from": x, "to": p + "u"}, {"from": x, "to": p + "h"}, {"from": x, "to": p + "j"},
                {"from": p + "h", "to": p + "j", "toPort": "i2"}, {"from": p + "u", "to": p},
                {"from": p + "j", "fromPort": "o2", "to": p, "toPort": "c1"}]
        return ops, cons, x, p
    if r < 0.90:    # map[sign(x)] = x when x is above a, asked for sign(x) on every row
        ops = [{"type": "Identity", "id": x}, {"type": "GreaterThan", "id": p + "u", "value": a},
               {"type": "Sign", "id": p + "su"}, {"type": "Sign", "id": p + "sx"},
               {"type": "VectorCompose", "id": v, "numPorts": 2},
               {"type": "KeyedVariable", "id": p, "mode": "lookup", "maxKeys": 4}]
        cons = [{"from": x, "to": p + "u"}, {"from": p + "u", "to": p + "su"}, {"from": x, "to": p + "sx"},
                {"from": p + "su", "to": v}, {"from": p + "u", "to": v, "toPort": "i2"},
                {"from": v, "to": p}, {"from": p + "sx", "to": p, "toPort": "c1"}]
        return ops, cons, x, p
    if r < 0.92:    # a random operator that starts again each time it produces
        ops = [{"type": "TriggerSet", "id": p, "input_port_type": "number", "output_port_type": "number",
                "operators": [dict(operator(rng), id="o")], "entryOperator": "o", "outputOperator": "o"}]
        return ops, [], p, p
    if r < 0.96:    # the value as a vector into a nested Pipeline, keyed by "c1" or its bytecode
        vec_out = rng.random() < 0.5
        if vec_out:     # the best k of its segment, lane 0 of them after it
            inner, icons = [{"type": "TopK", "id": "n0", "k": rng.randint(1, 2), "score_index": 0}], []
        else:
            inner = [{"type": "VectorExtract", "id": "n0", "index": 0}, dict(operator(rng), id="n1")]
            icons = [{"from": "n0", "to": "n1"}]
        nested = {"type": "Pipeline", "id": p + "n", "input_port_types": ["vector_number"],
                  "output_port_types": ["vector_number" if vec_out else "number"],
                  "operators": inner, "connections": icons, "entryOperator": "n0",
                  "outputMappings": {inner[-1]["id"]: {"o1": "o1"}}}
        ops = [{"type": "VectorCompose", "id": x, "numPorts": 1}, nested]
        cons = [{"from": x, "to": p + "n"}]
        if rng.random() < 0.5:  # SIGN of lane 0, or its hundreds (FLOOR of lane 0 / 100)
            nested["segmentBytecode"] = rng.choice([[0, 0, 15, 20], [0, 0, 1, 0, 5, 16, 20]])
            nested["segmentConstants"] = [100]
        else:
            ops += [{"type": "VectorExtract", "id": p + "e", "index": 0}, {"type": "Sign", "id": p + "k"}]
            cons += [{"from": x, "to": p + "e"}, {"from": p + "e", "to": p + "k"},
                     {"from": p + "k", "to": p + "n", "toPort": "c1"}]
        if vec_out:
            ops.append({"type": "VectorExtract", "id": p, "index": 0})
            cons.append({"from": p + "n", "to": p})
        else:
            nested["id"] = p
            cons = [dict(c, to=p) if c["to"] == p + "n" else c for c in cons]
        return ops, cons, x, p
    # a nested Pipeline of one or two operators, keyed by the value's sign
    inner = [dict(operator(rng), id="n%d" % i) for i in range(rng.randint(1, 2))]
    ops = [{"type": "Identity", "id": x}, {"type": "Sign", "id": p + "k"},
           {"type": "Pipeline", "id": p, "operators": inner,
            "connections": [{"from": a_, "to": b_} for a_, b_ in zip([o["id"] for o in inner], [o["id"] for o in inner][1:])],
            "entryOperator": "n0", "outputMappings": {inner[-1]["id"]: {"o1": "o1"}}}]
    cons = [{"from": x, "to": p + "k"}, {"from": p + "k", "to": p, "toPort": "c1"},
            {"from": x, "to": p, "toPort": "i1"}]
    return ops, cons, x, p


def spec(rng):
    links = [link(rng, "s%d" % i) for i in range(rng.choice([1, 1, 2, 3]))]
    late = rng.choice(["error", "drop"])
    # a chain of links, every link's exit mapped to a port of its own
    return json.dumps({"type": "Pipeline", "output_port_types": ["number"] * len(links),
                       "operators": [o for ln in links for o in ln[0]],
                       "connections": [c for ln in links for c in ln[1]] +
                                      [{"from": a[3], "to": b[2]} for a, b in zip(links, links[1:])],
                       "entryOperator": links[0][2],
                       "outputMappings": {ln[3]: {"o1": "o%d" % (n + 1)} for n, ln in enumerate(links)},
                       "late": late}), late


def value(rng):
    r = rng.random()
    if r < 0.03:
        return "'NaN'"
    if r < 0.05:
        return rng.choice(["'Infinity'", "'-Infinity'", "'-0'"])
    return repr(round(rng.uniform(-1000, 1000), rng.choice([0, 2, 6])))


def stream(rng, sid, late):
    rows = []
    ts = 0
    key = rng.choice(KEYS)
    for i in range(rng.randint(2, 60)):
        if rng.random() < 0.2:
            key = rng.choice(KEYS)
        ts += rng.choice([0, 1, 1, 2])
        t = ts
        if late == "drop" and i > 3 and rng.random() < 0.1:
            t = ts - rng.randint(1, 3)          # late: dropped and counted
        r = rng.random()
        if r < 0.08:
            v, k = "NULL", rng.choice(["NULL", key])   # punctuation
        elif r < 0.13:
            v, k = value(rng), "NULL"                   # unpaired
        else:
            v, k = value(rng), key
        rows.append((sid, i, t, v, k))
    n = len(rows)
    cuts = sorted(rng.sample(range(1, n), min(n - 1, rng.randint(1, 9))))
    batch = [sum(1 for c in cuts if i >= c) + 1 for i in range(n)]
    return [r + (b,) for r, b in zip(rows, batch)], len(cuts) + 1


def psql(sql):
    r = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", DB],
                       input=sql, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("resume: " + r.stderr[-3000:])
    return r.stdout


def build_client(tmp):
    """Compiles test/integration/resume_client.c against libpq into tmp."""
    pg_config = os.environ.get("PG_CONFIG", "pg_config")
    inc, lib = (subprocess.run([pg_config, flag], check=True, capture_output=True, text=True).stdout.strip()
                for flag in ("--includedir", "--libdir"))
    exe = os.path.join(tmp, "resume_client")
    subprocess.run(["cc", "-O1", "-Wall", "-Werror", "-I", inc,
                    os.path.join(os.path.dirname(os.path.abspath(__file__)), "resume_client.c"),
                    "-o", exe, "-L", lib, "-lpq"], check=True)
    return exe


def run(mode, tmp, max_batch, client):
    """Runs every stream batch by batch; the states go through mode between batches."""
    copy = os.path.join(tmp, "states.bin").replace("'", "''")
    steps = ["TRUNCATE st, em;", "INSERT INTO st SELECT stream, spec FROM specs;"]
    sent = [0, 0]
    for b in range(1, max_batch + 1):
        steps.append(f"""
WITH sub AS (SELECT r.stream, pipeline_agg(to_timestamp(r.ts), r.v, r.k, s.p ORDER BY r.i) AS p
             FROM rows AS r JOIN st AS s USING (stream) WHERE r.batch = {b} GROUP BY r.stream, s.p),
     upd AS (UPDATE st SET p = sub.p FROM sub WHERE st.stream = sub.stream RETURNING st.stream, st.p)
INSERT INTO em SELECT upd.stream, {b}, e.n, e.ts, e.key, e.port, float8send(e.value)
FROM upd, emissions(upd.p) WITH ORDINALITY AS e(ts, key, port, value, n);""")
        if mode == "text":
            steps.append("UPDATE st SET p = p::text::pipeline;")
        elif mode == "binary":
            steps.append(f"COPY st TO '{copy}' (FORMAT binary); TRUNCATE st; COPY st FROM '{copy}' (FORMAT binary);")
        else:
            psql("\n".join(steps))
            steps = []
            r = subprocess.run([client, "dbname=" + DB], capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(r.stderr.strip())
            values, _, nbytes, _ = r.stdout.split()
            sent = [sent[0] + int(values), sent[1] + int(nbytes)]
    steps.append("""
SELECT count(*) FILTER (WHERE w.em IS DISTINCT FROM c.em),
       count(*) FILTER (WHERE split_part(w.p::text, '"emissions": ', 1)
                              IS DISTINCT FROM split_part(st.p::text, '"emissions": ', 1)),
       min(w.stream) FILTER (WHERE w.em IS DISTINCT FROM c.em OR split_part(w.p::text, '"emissions": ', 1)
                              IS DISTINCT FROM split_part(st.p::text, '"emissions": ', 1))
FROM whole AS w JOIN st USING (stream)
LEFT JOIN (SELECT stream, array_agg(ts || ' ' || key || ' ' || port || ' ' || value::text ORDER BY batch, n) AS em
           FROM em GROUP BY stream) AS c USING (stream);""")
    return psql("\n".join(steps)).strip().split("|"), sent


def main():
    rng = random.Random(SEED)
    specs, rows, batches = [], [], 0
    for sid in range(STREAMS):
        text, late = spec(rng)
        specs.append((sid, text))
        r, nb = stream(rng, sid, late)
        rows += r
        batches += nb
    max_batch = max(r[5] for r in rows)
    subprocess.run(["dropdb", "--if-exists", DB], check=True, stderr=subprocess.DEVNULL)
    subprocess.run(["createdb", DB], check=True)
    setup = ["CREATE EXTENSION segpipe;",
             "CREATE TABLE specs (stream int, spec pipeline);",
             "CREATE TABLE rows (stream int, i int, ts int, v float8, k float8, batch int);",
             "CREATE TABLE st (stream int, p pipeline);",
             "CREATE INDEX ON st (stream);",
             "CREATE TABLE em (stream int, batch int, n bigint, ts timestamptz, key text, port int, value bytea);"]
    setup += ["INSERT INTO specs VALUES (%d, '%s');" % (s, t.replace("'", "''")) for s, t in specs]
    for k in range(0, len(rows), 500):
        setup.append("INSERT INTO rows VALUES " + ", ".join(
            "(%d, %d, %d, %s, %s, %d)" % r for r in rows[k:k + 500]) + ";")
    setup.append("""CREATE TABLE whole AS
SELECT s.stream, w.p, (SELECT array_agg(e.ts || ' ' || e.key || ' ' || e.port || ' ' || float8send(e.value)::text
                                        ORDER BY e.n)
                       FROM emissions(w.p) WITH ORDINALITY AS e(ts, key, port, value, n)) AS em
FROM specs AS s, LATERAL (SELECT pipeline_agg(to_timestamp(r.ts), r.v, r.k, s.spec ORDER BY r.i) AS p
                          FROM rows AS r WHERE r.stream = s.stream) AS w;""")
    psql("\n".join(setup))
    failed = 0
    tmp = tempfile.mkdtemp(prefix="segpipe_resume.")
    try:
        os.chmod(tmp, 0o733)    # the server, another user, writes the COPY file here
        client = build_client(tmp)
        for mode in MODES:
            (bad_em, bad_state, first), sent = run(mode, tmp, max_batch, client)
            print(f"resume ({mode}): {STREAMS} streams, {batches} batches: "
                  f"{bad_em} with other emissions, {bad_state} with another final state"
                  + (f" (first: stream {first}: {specs[int(first)][1]})" if first else "")
                  + (f"; {sent[0]} states, {sent[1]} bytes fetched and sent back in binary" if sent[0] else ""))
            failed += int(bad_em) + int(bad_state)
    finally:
        shutil.rmtree(tmp)
    subprocess.run(["dropdb", DB], check=True)
    print(f"resume: {len(MODES) * STREAMS - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
