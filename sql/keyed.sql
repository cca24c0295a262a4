-- FusedExpressionVector (the FusedExpression bytecode over one vector's
-- lanes) and KeyedPipeline (rows routed by key to per-key instances of a
-- prototype): the original's scenarios, oracles, states.  Expected values by
-- hand.
\pset format unaligned
\pset null 'null'

-- ktrace(spec, rows): per prefix of the rows (one vector each), what the
-- pipeline's output holds after it, in one segment; '-' while nothing was
-- produced.
CREATE FUNCTION ktrace(spec pipeline, rows float8[]) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(coalesce(e::text, '-'), ' ' ORDER BY n)
  FROM (SELECT n, i, segment_agg(ARRAY(SELECT unnest(rows[i:i][:])), 1, spec, true)
                       OVER (PARTITION BY n ORDER BY i) AS e
        FROM generate_series(1, array_length(rows, 1)) AS n, generate_series(1, n) AS i) AS q
  WHERE i = n
$$;
-- try_text(query): 'ok', or the error's SQLSTATE, message and detail.
CREATE FUNCTION try_text(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    detail text;
BEGIN
    EXECUTE q;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' (' || nullif(detail, '') || ')', '');
END $$;

-- ==== FusedExpressionVector ====

-- The original's example over a vector: lane 0, and lane 1 times lane 2.
-- [42, 150, 200] gives [42, 30000]; [42, 155, 100] gives [42, 15500].
SELECT ktrace('{"type": "FusedExpressionVector", "numOutputs": 2, "bytecode": [0, 0, 20, 0, 1, 0, 2, 4, 20]}',
              '{{42, 150, 200}, {42, 155, 100}}');
-- Its canonical text: one vector_number port in and out; "constants"
-- explicit, "coefficients" shown only when given.
SELECT '{"type": "FusedExpressionVector", "numOutputs": 1, "bytecode": [0, 0, 0, 1, 4, 20]}'::pipeline;
-- Running state, reset at a boundary: CUMSUM(lane 1) / COUNT, the mean of
-- lane 1.  Segment 1 ([1, 2], [1, 4]), closed by row 3: 3; segment 2
-- ([2, 10], [2, 20]), closed at the end: 15, not (2 + 4 + 10 + 20) / 4.
SELECT i, segment_agg(v, v[1], '{"type": "FusedExpressionVector", "numOutputs": 1,
                                 "bytecode": [0, 1, 21, 0, 22, 2, 5, 20]}', true) OVER (ORDER BY i)
FROM (VALUES (1, '{1, 2}'::float8[]), (2, '{1, 4}'), (3, '{2, 10}'), (4, '{2, 20}')) AS t(i, v);
-- A window not full yet is absent: MA_UPDATE 2 of lane 0 gives nothing on
-- the first row, then (3 + 5) / 2 = 4, (5 + 9) / 2 = 7.
SELECT ktrace('{"type": "FusedExpressionVector", "numOutputs": 1, "bytecode": [0, 0, 35, 2, 20]}',
              '{{3}, {5}, {9}}');
-- Constants and coefficients as FusedExpression's: lane 0 + 100; the FIR
-- filter [0.5, 0.5] of lane 0: nothing, then (4 + 6) / 2 = 5.
SELECT ktrace('{"type": "FusedExpressionVector", "numOutputs": 2, "constants": [100], "coefficients": [0.5, 0.5],
                "bytecode": [0, 0, 1, 0, 2, 20, 0, 0, 42, 0, 2, 20]}', '{{4}, {6}}');
-- A GATE on lane 1 > 0: the row [7, 0] emits nothing (the buffer keeps
-- [5]), [8, 1] emits [8].
SELECT ktrace('{"type": "FusedExpressionVector", "numOutputs": 1, "constants": [0],
                "bytecode": [0, 1, 1, 0, 26, 44, 0, 0, 20]}', '{{5, 1}, {7, 0}, {8, 1}}');
-- Read time: INPUT may name lanes 0 to 1023 (a vector's most lanes); the
-- lanes a row's vector has are known only when it comes.
SELECT try_text($$SELECT '{"type": "FusedExpressionVector", "numOutputs": 1, "bytecode": [0, 1023, 20]}'::pipeline$$);
SELECT try_text($$SELECT '{"type": "FusedExpressionVector", "numOutputs": 1, "bytecode": [0, 1024, 20]}'::pipeline$$);
SELECT try_text($$SELECT '{"type": "FusedExpressionVector", "numOutputs": 2, "bytecode": [0, 0, 20]}'::pipeline$$);
SELECT try_text($$SELECT '{"type": "FusedExpressionVector", "numOutputs": 1, "numPorts": 1, "bytecode": [0, 0, 20]}'::pipeline$$);
-- Run time: a vector without the highest lane read stops the run (2202E),
-- as VectorExtract does.
SELECT try_text($$SELECT segment_agg('{1, 2}'::float8[], 1, '{"type": "FusedExpressionVector", "numOutputs": 1,
                   "bytecode": [0, 0, 0, 2, 2, 20]}') OVER () FROM generate_series(1, 1)$$);

-- Oracle: FusedExpressionVector's INPUT k is FusedExpression's port k fed
-- by VectorExtract k, row by row, across segments, for bytecodes with
-- stateful opcodes, windows that leave values absent, and a GATE.  Rows:
-- 60, in segments of 7 rows (8 boundaries and the end), lanes with NaN,
-- infinities and -0.
CREATE TABLE fv_rows AS
SELECT i, i / 7 AS k,
       ARRAY[(ARRAY[1, 'NaN', 3, -2.5, 'Infinity', 0, 4, -0.0, 2]::float8[])[1 + i % 9],
             (ARRAY[0.5, 2, -1, 8, 3, 'NaN', 1]::float8[])[1 + (i * 5) % 7]] AS v
FROM generate_series(1, 60) AS i;
CREATE TABLE fv_code (code text);
INSERT INTO fv_code VALUES
  ('[0, 0, 21, 0, 22, 2, 5, 20]'),
  ('[0, 0, 0, 1, 2, 23, 0, 0, 1, 24, 1, 3, 20]'),
  ('[0, 0, 38, 0, 0, 1, 39, 2, 4, 20]'),
  ('[0, 1, 35, 3, 21, 0, 20]'),
  ('[0, 0, 37, 2, 0, 1, 41, 3, 2, 20]'),
  ('[0, 0, 42, 0, 2, 0, 1, 43, 1, 1, 1, 3, 20]'),
  ('[0, 1, 1, 0, 26, 44, 0, 0, 36, 2, 22, 5, 2, 20]'),
  ('[0, 1, 40, 2, 0, 0, 38, 0, 25, 1, 4, 2, 20]');
CREATE FUNCTION fv_pair(code text, OUT fv pipeline, OUT fx pipeline) LANGUAGE sql AS $$
  SELECT format('{"type": "Pipeline", "input_port_types": ["vector_number"],
     "operators": [{"type": "FusedExpressionVector", "id": "f", "numOutputs": 1, "bytecode": %s,
                    "constants": [0.5], "coefficients": [0.5, 0.25, -0.5]},
                   {"type": "VectorExtract", "id": "x", "index": 0}],
     "connections": [{"from": "f", "to": "x"}], "entryOperator": "f", "outputMappings": {"x": {"o1": "o1"}}}', code)::pipeline,
         format('{"type": "Pipeline", "input_port_types": ["vector_number"],
     "operators": [{"type": "VectorProject", "id": "p", "indices": [0, 1]},
                   {"type": "VectorExtract", "id": "a", "index": 0}, {"type": "VectorExtract", "id": "b", "index": 1},
                   {"type": "FusedExpression", "id": "f", "numPorts": 2, "numOutputs": 1, "bytecode": %s,
                    "constants": [0.5], "coefficients": [0.5, 0.25, -0.5]}],
     "connections": [{"from": "p", "to": "a"}, {"from": "p", "to": "b"},
                     {"from": "a", "to": "f", "toPort": "i1"}, {"from": "b", "to": "f", "toPort": "i2"}],
     "entryOperator": "p", "outputMappings": {"f": {"o1": "o1"}}}', code)::pipeline
$$;
-- per bytecode: the rows, the results that are not NULL (at most one per
-- segment), and the rows whose results differ (none).
SELECT code, count(*) AS rows, count(a) AS results, count(*) FILTER (WHERE a IS DISTINCT FROM b) AS differ
FROM (SELECT c.code, segment_agg(r.v, r.k, p.fv, true) OVER w AS a, segment_agg(r.v, r.k, p.fx, true) OVER w AS b
      FROM fv_code AS c, fv_pair(c.code) AS p, fv_rows AS r
      WINDOW w AS (PARTITION BY c.code ORDER BY r.i)) AS q
GROUP BY code ORDER BY code;

-- Its state: the cells as FusedExpression names them.  Rows 1 to 5
-- (segment 0 is rows 1 to 6): lane 0 is NaN, 3, -2.5, Infinity, 0 (sum
-- NaN), 5 of them.
CREATE TABLE fv_spec AS SELECT fv AS spec FROM fv_pair('[0, 0, 21, 0, 22, 2, 5, 20]');
SELECT p::jsonb -> 'state' -> 'operators' AS operators
FROM (SELECT pipeline_agg(to_timestamp(i), v, k, spec ORDER BY i) AS p FROM fv_rows, fv_spec WHERE i <= 5 GROUP BY spec) AS q;
-- Resumed from the text of its state after row 23, the rows give the
-- emissions and the state one run gives.
CREATE TABLE fv_whole AS SELECT pipeline_agg(to_timestamp(i), v, k, spec ORDER BY i) AS p FROM fv_rows, fv_spec GROUP BY spec;
CREATE TABLE fv_part1 AS SELECT pipeline_agg(to_timestamp(i), v, k, spec ORDER BY i) AS p FROM fv_rows, fv_spec WHERE i <= 23 GROUP BY spec;
CREATE TABLE fv_part2 AS SELECT pipeline_agg(to_timestamp(i), v, k, p::text::pipeline ORDER BY i) AS p FROM fv_rows, fv_part1 WHERE i > 23 GROUP BY p::text;
SELECT (SELECT count(*) FROM fv_whole, emissions(p)) AS emissions,
       (SELECT array_agg(e ORDER BY e.ts) FROM fv_whole, emissions(p) AS e) =
       (SELECT array_agg(e ORDER BY e.ts) FROM (SELECT e.* FROM fv_part1, emissions(p) AS e UNION ALL
                                                 SELECT e.* FROM fv_part2, emissions(p) AS e) AS e) AS same_emissions,
       (SELECT p::jsonb #- '{state,emissions}' FROM fv_whole) = (SELECT p::jsonb #- '{state,emissions}' FROM fv_part2) AS same_state;

-- ==== KeyedPipeline ====

-- The original's first scenario: key in lane 0, the prototype sums lane 1;
-- the output is the key, then the sum.  [1, 100] -> [1, 100]; [2, 200] ->
-- [2, 200]; [1, 150] -> [1, 250]; [2, 250] -> [2, 450].
CREATE TABLE kp_sum AS SELECT '{"type": "KeyedPipeline", "key_index": 0, "prototype": {
  "operators": [{"type": "VectorExtract", "id": "ext", "index": 1}, {"type": "CumulativeSum", "id": "sum"}],
  "connections": [{"from": "ext", "to": "sum"}], "entry": {"operator": "ext"}, "output": {"operator": "sum"}}}'::pipeline AS spec;
SELECT ktrace(spec, '{{1, 100}, {2, 200}, {1, 150}, {2, 250}}') FROM kp_sum;
-- Its canonical text: the prototype inline, its output's port explicit;
-- "maxKeys" by default 1024.
SELECT spec FROM kp_sum;
-- A vector from the prototype: VectorProject [1, 2] of [1, 10.5, 3] is
-- [10.5, 3], after the key: [1, 10.5, 3].
SELECT ktrace('{"type": "KeyedPipeline", "key_index": 0, "prototype": {"operators": [{"type": "VectorProject", "id": "proj", "indices": [1, 2]}],
               "entry": {"operator": "proj"}, "output": {"operator": "proj"}}}', '{{1, 10.5, 3}}');
-- Serialization: four rows stored, then [1, 50] continues key 1 (100 +
-- 150 + 50 = 300) and [2, 50] key 2 (200 + 250 + 50 = 500).  The state
-- holds the instances in the order of their keys.
CREATE TABLE kp_rows AS SELECT * FROM (VALUES (1, '{1, 100}'::float8[]), (2, '{2, 200}'), (3, '{1, 150}'),
                                              (4, '{2, 250}'), (5, '{1, 50}'), (6, '{2, 50}')) AS t(i, v);
CREATE TABLE kp_four AS SELECT pipeline_agg(to_timestamp(i), v, 1, spec ORDER BY i) AS p FROM kp_rows, kp_sum WHERE i <= 4 GROUP BY spec;
SELECT p::jsonb -> 'state' -> 'operators' AS operators FROM kp_four;
SELECT (SELECT value FROM vector_pending((SELECT pipeline_agg(to_timestamp(i), v, 1, f.p::text::pipeline)
                                          FROM kp_rows WHERE i = 5))) AS after_5,
       (SELECT value FROM vector_pending((SELECT pipeline_agg(to_timestamp(i), v, 1, f.p::text::pipeline ORDER BY i)
                                          FROM kp_rows WHERE i >= 5))) AS after_6
FROM kp_four AS f;
-- Keys seen as 1, 2, 1, 3, 2: three instances, ascending.
SELECT p::jsonb -> 'state' -> 'operators' -> 'op1' ->> 'keys' AS keys,
       ARRAY[p::jsonb #> '{state,operators,op1,1/key}', p::jsonb #> '{state,operators,op1,2/key}',
             p::jsonb #> '{state,operators,op1,3/key}'] AS in_order
FROM (SELECT pipeline_agg(to_timestamp(i), ARRAY[k, 10 * i], 1, spec ORDER BY i) AS p
      FROM kp_sum, unnest('{1, 2, 1, 3, 2}'::float8[]) WITH ORDINALITY AS t(k, i) GROUP BY spec) AS q;
-- Keys compare as float8: NaN equals NaN, -0 equals 0 (the key shown is
-- the row's own, as the original prepends it).  [NaN, 1], [NaN, 2]: 3;
-- [-0, 5], [0, 6]: 11.
SELECT ktrace(spec, '{{NaN, 1}, {NaN, 2}, {-0, 5}, {0, 6}}') FROM kp_sum;
-- Many keys (the original's: 100 keys, 10 rounds of 10, 20, ... 100): the
-- last row, key 99 in round 10, gives 10 + 20 + ... + 100 = 550; a sum of
-- every row's output (a CumulativeSum over lane 1) is 100 times the sum of
-- the rounds' running sums, 100 * (10 + 30 + ... + 550) = 100 * 2200; the
-- state holds 100 keys.
CREATE TABLE kp_many AS
SELECT pipeline_agg(to_timestamp(r * 100 + k), ARRAY[k, 10 * r], 1, '{"type": "Pipeline", "input_port_types": ["vector_number"],
         "output_port_types": ["vector_number", "number"],
         "operators": [{"type": "KeyedPipeline", "id": "kp", "key_index": 0, "prototype": {
                          "operators": [{"type": "VectorExtract", "id": "ext", "index": 1}, {"type": "CumulativeSum", "id": "sum"}],
                          "connections": [{"from": "ext", "to": "sum"}], "entry": {"operator": "ext"}, "output": {"operator": "sum"}}},
                       {"type": "VectorExtract", "id": "x", "index": 1}, {"type": "CumulativeSum", "id": "all"}],
         "connections": [{"from": "kp", "to": "x"}, {"from": "x", "to": "all"}],
         "entryOperator": "kp", "outputMappings": {"kp": {"o1": "o1"}, "all": {"o1": "o2"}}}' ORDER BY r, k) AS p
FROM generate_series(1, 10) AS r, generate_series(0, 99) AS k;
SELECT (SELECT value FROM vector_pending(p)) AS last, (SELECT value FROM pending(p) WHERE port = 2) AS all_outputs,
       p::jsonb #>> '{state,operators,kp,keys}' AS keys
FROM kp_many;
-- Validation: a negative key_index is refused when read; a lane the vector
-- does not have stops the run (2202E).
SELECT try_text($$SELECT '{"type": "KeyedPipeline", "key_index": -1, "prototype": {"operators": [{"type": "VectorExtract", "id": "e", "index": 0}],
                   "entry": {"operator": "e"}, "output": {"operator": "e"}}}'::pipeline$$);
SELECT try_text($$SELECT segment_agg('{1, 2}'::float8[], 1, '{"type": "KeyedPipeline", "key_index": 5, "prototype": {"operators": [{"type": "VectorExtract", "id": "e", "index": 0}],
                   "entry": {"operator": "e"}, "output": {"operator": "e"}}}') OVER () FROM generate_series(1, 1)$$);

-- Computed keys: the lanes keyColumnIndices names.  The prototype's output
-- is the output, no key before it: [1, 10, 100] -> [1, 10, 100], [2, 20,
-- 200] -> [2, 20, 200].
SELECT ktrace('{"type": "KeyedPipeline", "keyColumnIndices": [0, 1], "prototype": {"operators": [{"type": "VectorProject", "id": "proj", "indices": [0, 1, 2]}],
               "entry": {"operator": "proj"}, "output": {"operator": "proj"}}}', '{{1, 10, 100}, {2, 20, 200}}');
-- Per-key state: lane 2 summed per (lane 0, lane 1); a number from the
-- prototype is a vector of one lane.  100, 200, 100 + 150 = 250,
-- 200 + 250 = 450.
CREATE TABLE kp_cols AS SELECT '{"type": "KeyedPipeline", "keyColumnIndices": [0, 1], "prototype": {
  "operators": [{"type": "VectorExtract", "id": "ext", "index": 2}, {"type": "CumulativeSum", "id": "sum"}],
  "connections": [{"from": "ext", "to": "sum"}], "entry": {"operator": "ext"}, "output": {"operator": "sum"}}}'::pipeline AS spec;
SELECT ktrace(spec, '{{1, 10, 100}, {2, 20, 200}, {1, 10, 150}, {2, 20, 250}}') FROM kp_cols;
-- Keys are the lanes themselves, never a hash of them: the original's key
-- for (a, b) is 1000003 * a + b, so that (0, 1000003) and (1, 0) would
-- share an instance (sums 5, then 12); here they are two: 5, then 7.
SELECT ktrace(spec, '{{0, 1000003, 5}, {1, 0, 7}}') FROM kp_cols;
-- One lane: [5, 99] -> [5, 99].
SELECT ktrace('{"type": "KeyedPipeline", "keyColumnIndices": [0], "prototype": {"operators": [{"type": "VectorProject", "id": "proj", "indices": [0, 1]}],
               "entry": {"operator": "proj"}, "output": {"operator": "proj"}}}', '{{5, 99}}');
-- Validation: keyColumnIndices empty, negative, or a lane the vector does
-- not have (at run time, 2202E); key_index and keyColumnIndices together,
-- or neither.
SELECT try_text(format($$SELECT '{"type": "KeyedPipeline", %s "prototype": {"operators": [{"type": "VectorExtract", "id": "e", "index": 0}],
                   "entry": {"operator": "e"}, "output": {"operator": "e"}}}'::pipeline$$, m))
FROM (VALUES ('"keyColumnIndices": [],'), ('"keyColumnIndices": [0, -1],'), ('"keyColumnIndices": [0.5],'),
             ('"key_index": 0, "keyColumnIndices": [1],'), ('')) AS t(m);
SELECT try_text($$SELECT segment_agg('{1, 2}'::float8[], 1, '{"type": "KeyedPipeline", "keyColumnIndices": [5], "prototype": {"operators": [{"type": "VectorExtract", "id": "e", "index": 0}],
                   "entry": {"operator": "e"}, "output": {"operator": "e"}}}') OVER () FROM generate_series(1, 1)$$);
-- Serialization of computed keys: two keys stored, then [1, 10, 300] goes
-- to the first: its sum 100 + 300 = 400.
SELECT (SELECT value FROM vector_pending(pipeline_agg(to_timestamp(3), '{1, 10, 300}'::float8[], 1, p::text::pipeline))) AS after
FROM (SELECT pipeline_agg(to_timestamp(i), v, 1, spec ORDER BY i) AS p
      FROM kp_cols, (VALUES (1, '{1, 10, 100}'::float8[]), (2, '{2, 20, 200}')) AS t(i, v) GROUP BY spec) AS q;
-- Equality: the same configuration is the same value; other lanes, or the
-- classic mode on the same lane, are not.
SELECT a::pipeline = b::pipeline AS same
FROM (VALUES ('{"type": "KeyedPipeline", "keyColumnIndices": [0, 1], "prototype": {"operators": [{"type": "VectorProject", "id": "p", "indices": [0, 1]}], "entry": {"operator": "p"}, "output": {"operator": "p"}}}',
              '{"type": "KeyedPipeline", "keyColumnIndices": [0, 1], "prototype": {"operators": [{"type": "VectorProject", "id": "p", "indices": [0, 1]}], "entry": {"operator": "p"}, "output": {"operator": "p", "port": "o1"}}, "maxKeys": 1024}'),
             ('{"type": "KeyedPipeline", "keyColumnIndices": [0, 1], "prototype": {"operators": [{"type": "VectorProject", "id": "p", "indices": [0, 1]}], "entry": {"operator": "p"}, "output": {"operator": "p"}}}',
              '{"type": "KeyedPipeline", "keyColumnIndices": [0, 2], "prototype": {"operators": [{"type": "VectorProject", "id": "p", "indices": [0, 1]}], "entry": {"operator": "p"}, "output": {"operator": "p"}}}'),
             ('{"type": "KeyedPipeline", "key_index": 0, "prototype": {"operators": [{"type": "VectorProject", "id": "p", "indices": [0, 1]}], "entry": {"operator": "p"}, "output": {"operator": "p"}}}',
              '{"type": "KeyedPipeline", "keyColumnIndices": [0], "prototype": {"operators": [{"type": "VectorProject", "id": "p", "indices": [0, 1]}], "entry": {"operator": "p"}, "output": {"operator": "p"}}}')) AS t(a, b);
-- The canonical text names keyColumnIndices alone, or key_index alone.
SELECT p::jsonb -> 'operators' -> 0 ? 'key_index' AS has_key_index, p::jsonb -> 'operators' -> 0 ? 'keyColumnIndices' AS has_columns
FROM (VALUES ('{"type": "KeyedPipeline", "keyColumnIndices": [2, 3], "prototype": {"operators": [{"type": "VectorProject", "id": "p", "indices": [0]}], "entry": {"operator": "p"}, "output": {"operator": "p"}}}'::pipeline),
             ('{"type": "KeyedPipeline", "key_index": 0, "prototype": {"operators": [{"type": "VectorProject", "id": "p", "indices": [0]}], "entry": {"operator": "p"}, "output": {"operator": "p"}}}')) AS t(p);

-- A boundary drops every instance (segpipe's reset; the original keeps
-- them): segment 1 sums key 1 to 150 (emitted on row 3, which closes it);
-- segment 2's [1, 7], [1, 3] start again: 10, emitted at the end.
SELECT i, segment_agg(v, s, spec, true) OVER (ORDER BY i)
FROM kp_sum, (VALUES (1, 1, '{1, 100}'::float8[]), (2, 1, '{1, 50}'), (3, 2, '{1, 7}'), (4, 2, '{1, 3}')) AS t(i, s, v);

-- Oracle: per key, the KeyedPipeline's output on a row is the prototype's
-- run over that key's rows so far: a moving average of 3 of lane 1 per key
-- in lane 0, against segment_agg of the same operators partitioned by the
-- key.  Rows where the key has fewer than 3 rows produce nothing and are
-- left out; 40 rows over keys 1, 2, NaN and 4 (17, 12, 6 and 5 rows; 32
-- count).
CREATE TABLE kp_orows AS
SELECT i, (ARRAY[1, 2, 'NaN', 1, 4, 2, 1]::float8[])[1 + (i * 3) % 7] AS key,
       (ARRAY[5, -1, 2.5, 'Infinity', 0, 7]::float8[])[1 + i % 6] AS x
FROM generate_series(1, 40) AS i;
WITH kp AS (
  SELECT n, e FROM (SELECT n, o.i, segment_agg(ARRAY[o.key, o.x], 1, '{"type": "KeyedPipeline", "key_index": 0, "prototype": {
           "operators": [{"type": "VectorExtract", "id": "ext", "index": 1}, {"type": "MovingAverage", "id": "ma", "window_size": 3}],
           "connections": [{"from": "ext", "to": "ma"}], "entry": {"operator": "ext"}, "output": {"operator": "ma"}}}', true)
           OVER (PARTITION BY n ORDER BY o.i) AS e
         FROM generate_series(1, 40) AS n, kp_orows AS o WHERE o.i <= n) AS q WHERE i = n),
by_key AS (
  SELECT n, e FROM (SELECT n, o.i, segment_agg(ARRAY[o.key, o.x], 1, '{"type": "Pipeline", "input_port_types": ["vector_number"],
           "operators": [{"type": "VectorExtract", "id": "ext", "index": 1}, {"type": "MovingAverage", "id": "ma", "window_size": 3}],
           "connections": [{"from": "ext", "to": "ma"}], "entryOperator": "ext", "outputMappings": {"ma": {"o1": "o1"}}}', true)
           OVER (PARTITION BY n ORDER BY o.i) AS e
         FROM kp_orows AS me, generate_series(1, 40) AS n, kp_orows AS o
         WHERE me.i = n AND o.key IS NOT DISTINCT FROM me.key AND o.i <= n) AS q WHERE i = n),
counted AS (
  SELECT i, key, count(*) OVER (PARTITION BY key ORDER BY i) AS seen FROM kp_orows)
SELECT count(*) AS compared, count(*) FILTER (WHERE kp.e[2] IS DISTINCT FROM by_key.e[1]) AS differ,
       count(*) FILTER (WHERE kp.e[1] IS DISTINCT FROM c.key) AS wrong_key
FROM counted AS c JOIN kp ON kp.n = c.i JOIN by_key ON by_key.n = c.i
WHERE c.seen >= 3;

-- Prototypes: by name from the spec's "prototypes", its parameters bound
-- from the KeyedPipeline's "parameters" (else their defaults); the
-- canonical text holds the prototype itself.  MovingSum 2 of lane 1 per
-- (lane 0, lane 2): [1, 4, 0] -> nothing, [1, 6, 0] -> 10.
CREATE TABLE kp_named AS SELECT '{"type": "Pipeline", "prototypes": {"sums": {
    "parameters": [{"name": "w", "type": "number", "default": 3}],
    "operators": [{"type": "VectorExtract", "id": "ext", "index": 1}, {"type": "MovingSum", "id": "ms", "window_size": "${w}"}],
    "connections": [{"from": "ext", "to": "ms"}], "entry": {"operator": "ext"}, "output": {"operator": "ms"}}},
  "operators": [{"type": "KeyedPipeline", "id": "kp", "keyColumnIndices": [0, 2], "prototype": "sums", "parameters": {"w": 2}}],
  "entryOperator": "kp", "outputMappings": {"kp": {"o1": "o1"}}}'::pipeline AS spec;
SELECT spec FROM kp_named;
SELECT ktrace(spec, '{{1, 4, 0}, {1, 6, 0}}') FROM kp_named;
-- A KeyedPipeline spec alone may carry the prototypes; a prototype's
-- instance inside the prototype expands in it (ids "m::...").
SELECT '{"type": "KeyedPipeline", "key_index": 0, "prototype": "outer",
  "prototypes": {"inner": {"operators": [{"type": "Scale", "id": "s", "value": 2}], "entry": {"operator": "s"}, "output": {"operator": "s"}},
                 "outer": {"operators": [{"type": "VectorExtract", "id": "e", "index": 1}, {"id": "m", "prototype": "inner"}],
                           "connections": [{"from": "e", "to": "m"}], "entry": {"operator": "e"}, "output": {"operator": "m"}}}}'::pipeline;
SELECT try_text(format($$SELECT '%s'::pipeline$$, s))
FROM (VALUES
  ('{"type": "KeyedPipeline", "key_index": 0, "prototype": "nowhere"}'),
  ('{"type": "KeyedPipeline", "key_index": 0, "prototype": "p", "parameters": {"x": 1}, "prototypes": {"p": {"operators": [{"type": "VectorExtract", "id": "e", "index": 0}], "entry": {"operator": "e"}, "output": {"operator": "e"}}}}'),
  ('{"type": "KeyedPipeline", "key_index": 0, "prototype": "p", "prototypes": {"p": {"operators": [{"type": "KeyedPipeline", "id": "k", "key_index": 0, "prototype": "p"}], "entry": {"operator": "k"}, "output": {"operator": "k"}}}}'),
  ('{"type": "KeyedPipeline", "key_index": 0}'),
  ('{"type": "KeyedPipeline", "key_index": 0, "prototype": {"operators": [{"type": "MovingAverage", "id": "m", "window_size": 2}], "entry": {"operator": "m"}, "output": {"operator": "m"}}}'),
  ('{"type": "KeyedPipeline", "key_index": 0, "prototype": {"operators": [{"type": "VectorExtract", "id": "e", "index": 0}, {"type": "CompareGT", "id": "c", "value": 0}], "connections": [{"from": "e", "to": "c"}], "entry": {"operator": "e"}, "output": {"operator": "c"}}}'),
  ('{"type": "KeyedPipeline", "key_index": 0, "prototype": {"operators": [{"type": "VectorExtract", "id": "e", "index": 0}], "entry": {"operator": "e"}, "outptu": {"operator": "e"}}}'),
  ('{"type": "KeyedPipeline", "key_index": 0, "prototype": {"operators": [{"type": "VectorExtract", "id": "e", "index": 0}], "entry": {"operator": "e", "port": "i2"}, "output": {"operator": "e"}}}'),
  ('{"type": "KeyedPipeline", "key_index": 0, "prototype": {"operators": [{"type": "VectorExtract", "id": "e", "index": 0}], "entry": {"operator": "x"}, "output": {"operator": "e"}}}'),
  ('{"type": "KeyedPipeline", "key_index": 0, "prototype": {"operators": [{"type": "VectorExtract", "id": "e", "index": 0}, {"type": "Addition", "id": "a"}], "connections": [{"from": "e", "to": "a"}], "entry": {"operator": "e"}, "output": {"operator": "a"}}}')) AS t(s);

-- Bounds: at most maxKeys keys in a segment (54000 past it); every
-- instance counts toward the state cap as if full, so a large maxKeys of a
-- large window is refused when read (54000).
SELECT try_text($$SELECT segment_agg(ARRAY[i, i]::float8[], 1, '{"type": "KeyedPipeline", "key_index": 0, "maxKeys": 3, "prototype": {"operators": [{"type": "VectorExtract", "id": "e", "index": 1}],
                   "entry": {"operator": "e"}, "output": {"operator": "e"}}}') OVER (ORDER BY i) FROM generate_series(1, 4) AS i$$);
SELECT try_text($$SELECT segment_agg(ARRAY[i % 3, i]::float8[], 1, '{"type": "KeyedPipeline", "key_index": 0, "maxKeys": 3, "prototype": {"operators": [{"type": "VectorExtract", "id": "e", "index": 1}],
                   "entry": {"operator": "e"}, "output": {"operator": "e"}}}') OVER (ORDER BY i) FROM generate_series(1, 40) AS i$$);
SELECT try_text($$SELECT '{"type": "KeyedPipeline", "key_index": 0, "maxKeys": 65536, "prototype": {"operators": [{"type": "VectorExtract", "id": "e", "index": 1},
                   {"type": "MovingAverage", "id": "m", "window_size": 1000}], "connections": [{"from": "e", "to": "m"}], "entry": {"operator": "e"}, "output": {"operator": "m"}}}'::pipeline$$);
SELECT try_text($$SELECT '{"type": "KeyedPipeline", "key_index": 0, "maxKeys": 65537, "prototype": {"operators": [{"type": "VectorExtract", "id": "e", "index": 1}],
                   "entry": {"operator": "e"}, "output": {"operator": "e"}}}'::pipeline$$);

-- Resume equivalence: the oracle's rows in one run, and split in three
-- with each part resumed from the text of the previous one's state.
CREATE TABLE kp_ma AS SELECT '{"type": "KeyedPipeline", "key_index": 0, "prototype": {
  "operators": [{"type": "VectorExtract", "id": "ext", "index": 1}, {"type": "MovingAverage", "id": "ma", "window_size": 3}],
  "connections": [{"from": "ext", "to": "ma"}], "entry": {"operator": "ext"}, "output": {"operator": "ma"}}}'::pipeline AS spec;
CREATE TABLE kp_whole AS SELECT pipeline_agg(to_timestamp(i), ARRAY[key, x], i / 6, spec ORDER BY i) AS p FROM kp_orows, kp_ma GROUP BY spec;
CREATE TABLE kp_part1 AS SELECT pipeline_agg(to_timestamp(i), ARRAY[key, x], i / 6, spec ORDER BY i) AS p FROM kp_orows, kp_ma WHERE i <= 11 GROUP BY spec;
CREATE TABLE kp_part2 AS SELECT pipeline_agg(to_timestamp(i), ARRAY[key, x], i / 6, p::text::pipeline ORDER BY i) AS p FROM kp_orows, kp_part1 WHERE i > 11 AND i <= 29 GROUP BY p::text;
CREATE TABLE kp_part3 AS SELECT pipeline_agg(to_timestamp(i), ARRAY[key, x], i / 6, p::text::pipeline ORDER BY i) AS p FROM kp_orows, kp_part2 WHERE i > 29 GROUP BY p::text;
SELECT (SELECT count(*) FROM kp_whole, vector_emissions(p)) AS emissions,
       (SELECT array_agg(e ORDER BY e.ts) FROM kp_whole, vector_emissions(p) AS e) =
       (SELECT array_agg(e ORDER BY e.ts) FROM (SELECT e.* FROM kp_part1, vector_emissions(p) AS e UNION ALL
                                                 SELECT e.* FROM kp_part2, vector_emissions(p) AS e UNION ALL
                                                 SELECT e.* FROM kp_part3, vector_emissions(p) AS e) AS e) AS same_emissions,
       (SELECT p::jsonb #- '{state,emissions}' FROM kp_whole) = (SELECT p::jsonb #- '{state,emissions}' FROM kp_part3) AS same_state;

-- Hostile states, refused with 22P02: the two instances' keys made equal,
-- or out of order; "keys" past maxKeys, negative, or not the instances
-- there are; a key of two lanes; an instance's moving average holding
-- more than its window; the text cut short.
SELECT m AS state, try_text(format($$SELECT %L::pipeline$$, replace(p::text, f, t)))
FROM kp_four, (VALUES ('"2/key": [2]', '"2/key": [1]', 'equal keys'), ('"1/key": [1]', '"1/key": [3]', 'out of order'),
                      ('"keys": 2', '"keys": 1025', 'past maxKeys'), ('"keys": 2', '"keys": -1', 'negative'),
                      ('"keys": 2', '"keys": 1', 'fewer'), ('"keys": 2', '"keys": 3', 'more'),
                      ('"1/key": [1]', '"1/key": [1, 5]', 'two lanes'),
                      ('"1/sum/sum": 250', '"1/sum/sum": "x"', 'not a number')) AS t(f, t, m);
SELECT try_text(format($$SELECT %L::pipeline$$, left(p::text, length(p::text) - 60))) FROM kp_four;
SELECT try_text(format($$SELECT %L::pipeline$$, replace(p::text, '"1/ma/values": [', '"1/ma/values": [1, 2, 3, ')))
FROM (SELECT pipeline_agg(to_timestamp(i), ARRAY[key, x], 1, spec ORDER BY i) AS p FROM kp_orows, kp_ma WHERE i <= 3 GROUP BY spec) AS q;

-- A KeyedPipeline in a KeyedPipeline's prototype: per lane 0, per lane 1,
-- the sum of lane 2; the inner one's output [lane 1, sum] after lane 0.
-- [1, 1, 10], [1, 2, 20], [2, 1, 30], then [1, 1, 5]: 10 + 5 = 15, and
-- [2, 1, 1]: 30 + 1 = 31.
SELECT ktrace('{"type": "KeyedPipeline", "key_index": 0, "maxKeys": 4, "prototype": {"operators": [
  {"type": "KeyedPipeline", "id": "inner", "key_index": 1, "maxKeys": 4, "prototype": {
     "operators": [{"type": "VectorExtract", "id": "e", "index": 2}, {"type": "CumulativeSum", "id": "s"}],
     "connections": [{"from": "e", "to": "s"}], "entry": {"operator": "e"}, "output": {"operator": "s"}}}],
  "entry": {"operator": "inner"}, "output": {"operator": "inner"}}}', '{{1, 1, 10}, {1, 2, 20}, {2, 1, 30}, {1, 1, 5}, {2, 1, 1}}');
