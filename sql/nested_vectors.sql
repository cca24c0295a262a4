-- Vectors in nested Pipelines: vector_number and vector_boolean ports on a
-- Pipeline among the operators, its vector outputs emitted as arrays; the
-- segment bytecode, a nested Pipeline that keys its segments by an
-- expression of its vector (the original's "segmentBytecode"), with the
-- original's scenarios; their states stored, resumed and refused when they
-- cannot be.  Expected values by hand, and an oracle: the same computation
-- as two chained segment_agg calls.
\pset format unaligned
\pset null 'null'

-- nv_try(q) runs q and returns 'ok', or SQLSTATE, message and detail.
CREATE FUNCTION nv_try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    detail text;
BEGIN
    EXECUTE q;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM || coalesce(nullif(' (' || detail || ')', ' ()'), '');
END $$;

-- vtrace(spec, rows) is trace() (sql/setup.sql) for a pipeline whose data
-- port is a vector: rows is an array of rows, each row its vector; prefix
-- n of the rows runs in a partition of its own, closed by a punctuation
-- row, and shows what the pipeline's buffer held, '-' when nothing.
CREATE FUNCTION vtrace(spec pipeline, vals float8[]) RETURNS text
LANGUAGE sql AS $$
  SELECT string_agg(coalesce(e::text, '-'), ' ' ORDER BY n)
  FROM (SELECT n, i, segment_agg(v, k, spec) OVER (PARTITION BY n ORDER BY i) AS e
        FROM generate_series(1, array_length(vals, 1)) AS n,
             LATERAL (SELECT i, ARRAY(SELECT unnest(vals[i:i][:])) AS v, 0 AS k
                      FROM generate_series(1, n) AS i
                      UNION ALL
                      SELECT n + 1, NULL, 1) AS r) AS s
  WHERE i = n + 1
$$;

-- ---- vector ports, the key on the control port ----

-- Each row is [shift, x, y]; the nested Pipeline's key is lane 0, its
-- output the vector [y, x] of its segment's last row.  Rows of day a:
-- [1, 10, 100], [1, 20, 200], [2, 30, 300] (shift 2: the nested pipeline
-- emits [200, 20], which the outer one buffers), [2, 40, 400]; day b:
-- [3, 50, 500] (the outer boundary emits [200, 20] and resets the nested
-- pipeline, its open shift 2 with it), [4, 60, 600] (shift 4: emits
-- [500, 50]), [4, 70, 700]; the punctuation row closes day b: [500, 50].
CREATE TABLE nv_shifts AS SELECT '{"type": "Pipeline", "id": "day",
  "input_port_types": ["vector_number"], "output_port_types": ["vector_number"],
  "operators": [{"type": "VectorProject", "id": "in", "indices": [0, 1, 2]},
                {"type": "VectorExtract", "id": "shift", "index": 0},
                {"type": "Pipeline", "id": "per_shift",
                 "input_port_types": ["vector_number"], "output_port_types": ["vector_number"],
                 "operators": [{"type": "VectorProject", "id": "yx", "indices": [2, 1]}]}],
  "connections": [{"from": "in", "to": "shift"},
                  {"from": "shift", "to": "per_shift", "toPort": "c1"},
                  {"from": "in", "to": "per_shift", "toPort": "i1"}],
  "entryOperator": "in", "outputMappings": {"per_shift": {"o1": "o1"}}}'::text AS spec;
SELECT spec::pipeline FROM nv_shifts;
SELECT spec::pipeline::text::pipeline = spec::pipeline AS reads_back FROM nv_shifts;
SELECT i, segment_agg(v, d, (SELECT spec FROM nv_shifts)::pipeline) OVER (ORDER BY i)
FROM (VALUES (1, 'a', '{1, 10, 100}'::float8[]), (2, 'a', '{1, 20, 200}'), (3, 'a', '{2, 30, 300}'),
             (4, 'a', '{2, 40, 400}'), (5, 'b', '{3, 50, 500}'), (6, 'b', '{4, 60, 600}'),
             (7, 'b', '{4, 70, 700}'), (8, 'c', NULL)) AS t(i, d, v);

-- Vector and number outputs together (pipeline_agg's): per shift, [y, x]
-- and the sum of x.  Rows 1 to 3 of day a: the nested pipeline emits
-- [200, 20] and 30 on row 3 and buffers row 3's [300, 30] and 30; the outer
-- one buffers what it emitted.  Its state: the vector buffered on o1 is
-- "buffer_o1", and "buffer" holds its number of lanes.
CREATE TABLE nv_both_outs AS SELECT '{"type": "Pipeline",
  "input_port_types": ["vector_number"], "output_port_types": ["vector_number", "number"],
  "operators": [{"type": "VectorProject", "id": "in", "indices": [0, 1, 2]},
                {"type": "VectorExtract", "id": "shift", "index": 0},
                {"type": "Pipeline", "id": "per_shift",
                 "input_port_types": ["vector_number"], "output_port_types": ["vector_number", "number"],
                 "operators": [{"type": "VectorProject", "id": "yx", "indices": [2, 1]},
                               {"type": "VectorExtract", "id": "x", "index": 1},
                               {"type": "CumulativeSum", "id": "sum"}],
                 "connections": [{"from": "yx", "to": "x"}, {"from": "x", "to": "sum"}],
                 "entryOperator": "yx", "outputMappings": {"yx": {"o1": "o1"}, "sum": {"o1": "o2"}}}],
  "connections": [{"from": "in", "to": "shift"},
                  {"from": "shift", "to": "per_shift", "toPort": "c1"},
                  {"from": "in", "to": "per_shift", "toPort": "i1"}],
  "entryOperator": "in", "outputMappings": {"per_shift": {"o1": "o1", "o2": "o2"}}}'::text AS spec;
CREATE TABLE nv_both_state AS
SELECT pipeline_agg(at(i), v, 'a'::text, (SELECT spec FROM nv_both_outs)::pipeline ORDER BY i) AS p
FROM (VALUES (1, '{1, 10, 100}'::float8[]), (2, '{1, 20, 200}'), (3, '{2, 30, 300}')) AS t(i, v);
SELECT p::json -> 'state' -> 'buffer' AS buffer,
       p::json -> 'state' -> 'operators' -> 'per_shift' AS nested
FROM nv_both_state;
-- The outer segment closed: the vector on port 1, the number on port 2
-- (emissions() shows the vector port's row with a NULL value).
SELECT key, port, value FROM nv_both_state, vector_emissions(flush(p));
SELECT key, port, value FROM nv_both_state, emissions(flush(p)) ORDER BY port;
-- segment_agg refuses a vector among other outputs, as at the top level.
SELECT nv_try($$SELECT segment_agg('{1, 2, 3}'::float8[], 1, (SELECT spec FROM nv_both_outs)::pipeline) OVER ()$$);

-- Numbers in, a vector out: VectorCompose inside the nested pipeline, of
-- the value x and its tens k, the key.  Rows 15, 16, 27 (keys 1, 1, 2):
-- the nested pipeline emits [16, 1] on row 3, which the partition's end
-- closes.
SELECT i, segment_agg(ARRAY[x], 0, '{"type": "Pipeline", "output_port_types": ["vector_number"],
  "operators": [{"type": "Identity", "id": "x"}, {"type": "Scale", "id": "tenth", "value": 0.1},
                {"type": "Floor", "id": "k"},
                {"type": "Pipeline", "id": "n", "input_port_types": ["number", "number"],
                 "output_port_types": ["vector_number"],
                 "operators": [{"type": "VectorCompose", "id": "c", "numPorts": 2}]}],
  "connections": [{"from": "x", "to": "tenth"}, {"from": "tenth", "to": "k"},
                  {"from": "k", "to": "n", "toPort": "c1"}, {"from": "x", "to": "n", "toPort": "i1"},
                  {"from": "k", "to": "n", "toPort": "i2"}],
  "entryOperator": "x", "outputMappings": {"n": {"o1": "o1"}}}', true) OVER (ORDER BY i)
FROM (VALUES (1, 15.0), (2, 16), (3, 27)) AS t(i, x);

-- The state cap counts a nested pipeline's vector output twice, 1024
-- lanes of 8 bytes each time: the vector it buffers, and the outer
-- pipeline's buffer, which may hold it.  Two pipelines over the cap (a
-- TopK of 9000 entries), the same but for the nested pipeline's output, a
-- vector or a number: the first can hold 16384 bytes more.
CREATE FUNCTION nv_cap(out_type text, op text) RETURNS bigint LANGUAGE sql AS $$
  SELECT (regexp_match(try_spec(format('{"type": "Pipeline", "input_port_types": ["vector_number"],
    "output_port_types": ["%1$s"],
    "operators": [{"type": "VectorProject", "id": "in", "indices": [0, 1]},
                  {"type": "VectorExtract", "id": "k", "index": 0},
                  {"type": "TopK", "id": "top", "k": 9000, "score_index": 0},
                  {"type": "Pipeline", "id": "n", "input_port_types": ["vector_number"],
                   "output_port_types": ["%1$s"], "operators": [%2$s]}],
    "connections": [{"from": "in", "to": "k"}, {"from": "in", "to": "top"},
                    {"from": "k", "to": "n", "toPort": "c1"}, {"from": "in", "to": "n"}],
    "entryOperator": "in", "outputMappings": {"n": {"o1": "o1"}}}', out_type, op)),
    'can hold up to (\d+) bytes'))[1]::bigint
$$;
SELECT nv_cap('vector_number', '{"type": "VectorProject", "id": "p", "indices": [1]}')
     - nv_cap('number', '{"type": "VectorExtract", "id": "p", "index": 1}') AS vector_bytes;

-- ---- the segment bytecode: the original's scenarios ----

-- The original's helper: VectorExtract of lane 0 through CumulativeSum,
-- keyed by INPUT 2, ABS, CONST 0, GT, END: |lane 2| > 0, 1 or 0.  As an
-- operator of an outer pipeline whose vector port feeds its "i1"; it has
-- no control port.
CREATE TABLE nv_seg AS SELECT '{"type": "Pipeline", "input_port_types": ["vector_number"],
  "operators": [{"type": "Pipeline", "id": "seg_bc", "input_port_types": ["vector_number"],
                 "operators": [{"type": "VectorExtract", "id": "extract", "index": 0},
                               {"type": "CumulativeSum", "id": "cumsum"}],
                 "connections": [{"from": "extract", "to": "cumsum"}],
                 "entryOperator": "extract", "outputMappings": {"cumsum": {"o1": "o1"}},
                 "segmentBytecode": [0, 2, 7, 1, 0, 26, 20], "segmentConstants": [0]}],
  "entryOperator": "seg_bc", "outputMappings": {"seg_bc": {"o1": "o1"}}}'::text AS spec;
SELECT spec::pipeline::jsonb -> 'operators' -> 0 FROM nv_seg;
SELECT spec::pipeline::text::pipeline = spec::pipeline AS reads_back FROM nv_seg;
-- Segment boundary triggers emission: lane 2 is 5, 5, 5 (key 1), then 0
-- (key 0): the row of the new key emits the sum of lane 0 over the first
-- segment, 10 + 20 + 30 = 60.
SELECT vtrace(spec::pipeline, '{{10, 0, 5}, {20, 0, 5}, {30, 0, 5}, {5, 0, 0}}') FROM nv_seg;
-- Multiple transitions: keys 1, 1, 0, 0, 1; row 3 emits 10 + 20 = 30, row
-- 5 emits 100 + 200 = 300 (the sum restarted at the boundary).
SELECT vtrace(spec::pipeline, '{{10, 0, 5}, {20, 0, 5}, {100, 0, 0}, {200, 0, 0}, {50, 0, 7}}') FROM nv_seg;
-- A numeric segment expression: INPUT 0, CONST 0, DIV, FLOOR, END, the
-- tens of lane 0: keys 0, 0, 1; row 3 emits 3 + 7 = 10.
SELECT vtrace(replace(spec, '"segmentBytecode": [0, 2, 7, 1, 0, 26, 20], "segmentConstants": [0]',
                            '"segmentBytecode": [0, 0, 1, 0, 5, 16, 20], "segmentConstants": [10]')::pipeline,
              '{{3, 0, 0}, {7, 0, 0}, {10, 0, 0}}') FROM nv_seg;
-- Keys compare as float8: -0 equals 0, NaN equals NaN.  INPUT 1, END keys
-- by lane 1: 0, -0 (same segment), NaN, NaN (same), 1; the sums of lane 0
-- are emitted on rows 3 (1 + 2) and 5 (4 + 8).
SELECT vtrace(replace(spec, '"segmentBytecode": [0, 2, 7, 1, 0, 26, 20], "segmentConstants": [0]',
                            '"segmentBytecode": [0, 1, 20]')::pipeline,
              '{{1, 0}, {2, -0}, {4, NaN}, {8, NaN}, {16, 1}}') FROM nv_seg;
-- An empty bytecode is the control port's mode, as in the original: the
-- same configuration as without one, "c1" required.
SELECT '{"type": "Pipeline", "operators": [{"type": "Identity", "id": "in"},
          {"type": "Pipeline", "id": "p", "operators": [{"type": "CumulativeSum", "id": "s"}], "segmentBytecode": []}],
         "connections": [{"from": "in", "to": "p"}, {"from": "in", "to": "p", "toPort": "c1"}],
         "entryOperator": "in", "outputMappings": {"p": {"o1": "o1"}}}'::pipeline
     = '{"type": "Pipeline", "operators": [{"type": "Identity", "id": "in"},
          {"type": "Pipeline", "id": "p", "operators": [{"type": "CumulativeSum", "id": "s"}]}],
         "connections": [{"from": "in", "to": "p"}, {"from": "in", "to": "p", "toPort": "c1"}],
         "entryOperator": "in", "outputMappings": {"p": {"o1": "o1"}}}'::pipeline AS same;
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "in"},
          {"type": "Pipeline", "id": "p", "operators": [{"type": "CumulativeSum", "id": "s"}], "segmentBytecode": []}],
         "connections": [{"from": "in", "to": "p"}],
         "entryOperator": "in", "outputMappings": {"p": {"o1": "o1"}}}');

-- The bytecode is checked when the spec is read: at the stack's limit (64
-- INPUTs, 63 ADDs, END) it is read; one INPUT more overflows it; ADD on
-- an empty stack, no END, an unknown opcode, as in the original; and what
-- segpipe checks beyond: an opcode with state (CUMSUM, GATE), two
-- expressions, a lane no vector has, a constant that is not there, a
-- number that is not an opcode.
CREATE FUNCTION nv_seg_with(code text, consts text DEFAULT '[]') RETURNS text LANGUAGE sql AS $$
  SELECT replace(spec, '"segmentBytecode": [0, 2, 7, 1, 0, 26, 20], "segmentConstants": [0]',
                 format('"segmentBytecode": %s, "segmentConstants": %s', code, consts)) FROM nv_seg
$$;
SELECT try_spec(nv_seg_with('[' || repeat('0, 0, ', 64) || repeat('2, ', 63) || '20]')) AS at_the_limit;
SELECT try_spec(nv_seg_with('[' || repeat('0, 0, ', 65) || repeat('2, ', 64) || '20]'));
SELECT try_spec(nv_seg_with(code, consts)) FROM (VALUES
  ('[2, 20]', '[]'),
  ('[0, 0, 1, 0, 2]', '[1]'),
  ('[0, 0, 99, 20]', '[]'),
  ('[0, 0, 21, 0, 20]', '[]'),
  ('[0, 0, 44, 0, 0, 20]', '[]'),
  ('[0, 0, 20, 0, 1, 20]', '[]'),
  ('[0, 1024, 20]', '[]'),
  ('[1, 0, 20]', '[]'),
  ('[1, 2, 20]', '[1, 2]'),
  ('[0, 0.5, 20]', '[]'),
  ('[2.5, 20]', '[]'),
  ('[0, 0]', '[]'),
  ('{"a": 1}', '[]'),
  ('[0, "1", 20]', '[]')) AS t(code, consts);
-- A lane the row's vector does not have stops the run, as VectorExtract's.
SELECT nv_try(format($$SELECT segment_agg('{1, 2}'::float8[], 1, %L) OVER ()$$, nv_seg_with('[0, 2, 20]')));
-- Where a segment bytecode cannot be: constants without a bytecode, a
-- bytecode on a pipeline whose input port 1 is not a vector of numbers, a
-- connection to "c1" of a pipeline that has none.
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "in"},
          {"type": "Pipeline", "id": "p", "operators": [{"type": "CumulativeSum", "id": "s"}], "segmentConstants": [1]}],
         "connections": [{"from": "in", "to": "p"}, {"from": "in", "to": "p", "toPort": "c1"}],
         "entryOperator": "in", "outputMappings": {"p": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "in"},
          {"type": "Pipeline", "id": "p", "operators": [{"type": "CumulativeSum", "id": "s"}], "segmentBytecode": [0, 0, 20]}],
         "connections": [{"from": "in", "to": "p"}],
         "entryOperator": "in", "outputMappings": {"p": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "input_port_types": ["vector_number"],
  "operators": [{"type": "VectorProject", "id": "in", "indices": [0]}, {"type": "VectorExtract", "id": "k", "index": 0},
                {"type": "Pipeline", "id": "seg_bc", "input_port_types": ["vector_number"],
                 "operators": [{"type": "VectorExtract", "id": "extract", "index": 0}],
                 "segmentBytecode": [0, 0, 20]}],
  "connections": [{"from": "in", "to": "k"}, {"from": "in", "to": "seg_bc"}, {"from": "k", "to": "seg_bc", "toPort": "c1"}],
  "entryOperator": "in", "outputMappings": {"seg_bc": {"o1": "o1"}}}');

-- In the outermost pipeline a segment bytecode is refused: the SQL call's
-- key argument keys its segments (docs/reference.md, "Segment bytecode").
-- So is a program whose Pipeline has one.
SELECT try_spec('{"type": "Pipeline", "input_port_types": ["vector_number"],
  "operators": [{"type": "VectorExtract", "id": "extract", "index": 0}],
  "segmentBytecode": [0, 2, 20]}');
SELECT try_spec('{"operators": [
    {"type": "Input", "id": "input1", "portTypes": ["vector_number"]},
    {"type": "Pipeline", "id": "seg_bc", "input_port_types": ["vector_number"], "output_port_types": ["number"],
     "operators": [{"type": "VectorExtract", "id": "extract", "index": 0}],
     "entryOperator": "extract", "outputMappings": {"extract": {"o1": "o1"}},
     "segmentBytecode": [0, 2, 20]}],
  "connections": [{"from": "input1", "to": "seg_bc", "fromPort": "o1", "toPort": "i1"}],
  "entryOperator": "input1", "output": {"seg_bc": ["o1"]}}');
SELECT try_spec('{"type": "VectorExtract", "index": 0, "segmentBytecode": [0, 2, 20]}');

-- ---- the oracle ----

-- Days of 20 rows, rows [shift, x, y] with three shifts a day; the nested
-- pipeline emits a shift's [y, x] on the row where the shift changes within
-- a day, which the first of two chained segment_agg calls gives keyed by
-- (day, shift), kept on rows that do not start a day; the second, keyed by
-- day, keeps the last of them (VectorProject of both lanes) and emits it
-- when the day changes.  The same with the shift computed by a segment
-- bytecode (INPUT 0, END) in place of the control port.
CREATE TABLE nv_rows AS
SELECT i, i / 20 AS d, ARRAY[(i % 20) / 7, (i * 13) % 37, (i * 7) % 11]::float8[] AS v
FROM generate_series(0, 399) AS i;
CREATE TABLE nv_seg_shifts AS SELECT '{"type": "Pipeline", "input_port_types": ["vector_number"],
  "output_port_types": ["vector_number"],
  "operators": [{"type": "Pipeline", "id": "per_shift",
                 "input_port_types": ["vector_number"], "output_port_types": ["vector_number"],
                 "operators": [{"type": "VectorProject", "id": "yx", "indices": [2, 1]}],
                 "segmentBytecode": [0, 0, 20]}],
  "entryOperator": "per_shift", "outputMappings": {"per_shift": {"o1": "o1"}}}'::text AS spec;
CREATE TABLE nv_both_ways AS
SELECT i, nested, by_bytecode, chained FROM (
  SELECT i, segment_agg(v, d, (SELECT spec FROM nv_shifts)::pipeline) OVER (ORDER BY i) AS nested,
         segment_agg(v, d, (SELECT spec FROM nv_seg_shifts)::pipeline) OVER (ORDER BY i) AS by_bytecode,
         segment_agg(CASE WHEN d = prev_d THEN e1 END, d,
                     '{"type": "VectorProject", "indices": [0, 1]}') OVER (ORDER BY i) AS chained
  FROM (SELECT i, d, v, lag(d) OVER (ORDER BY i) AS prev_d,
               segment_agg(v, ROW(d, v[1]), '{"type": "VectorProject", "indices": [2, 1]}') OVER (ORDER BY i) AS e1
        FROM nv_rows) AS r) AS s;
SELECT count(*) AS rows, count(nested) AS emitted,
       bool_and(nested IS NOT DISTINCT FROM chained) AS same,
       bool_and(by_bytecode IS NOT DISTINCT FROM chained) AS same_by_bytecode
FROM nv_both_ways;
-- Day 0's last shift change is at row 14 (shift 2 starts): the emission on
-- row 20 is row 13's [y, x], [13 * 7 % 11, 13 * 13 % 37] = [3, 21]; day
-- 1's, on row 40, row 33's, [231 % 11, 429 % 37] = [0, 22].
SELECT i, nested FROM nv_both_ways WHERE nested IS NOT NULL ORDER BY i LIMIT 2;

-- ---- state ----

-- Resumed after any row, through the text form: the same state and
-- emissions as the whole run, the vector buffers included.
CREATE FUNCTION nv_em_of(p pipeline) RETURNS text[] LANGUAGE sql
  AS $$ SELECT ARRAY(SELECT e::text FROM vector_emissions(p) AS e) $$;
SELECT name, count(*) AS cuts,
       bool_and((whole::text::jsonb #- '{state,emissions}') = (resumed::text::jsonb #- '{state,emissions}')) AS same_state,
       bool_and(nv_em_of(first) || nv_em_of(resumed) = nv_em_of(whole)) AS same_emissions,
       max(cardinality(nv_em_of(whole))) AS emissions
FROM (SELECT 'control port' AS name, spec::pipeline AS spec FROM nv_shifts
      UNION ALL SELECT 'bytecode', spec::pipeline FROM nv_seg_shifts) AS s,
  generate_series(1, 59) AS cut,
  LATERAL (SELECT pipeline_agg(at(i), v, d, spec ORDER BY i) AS whole FROM nv_rows WHERE i < 60) AS w,
  LATERAL (SELECT pipeline_agg(at(i), v, d, spec ORDER BY i) AS first FROM nv_rows WHERE i < cut) AS f,
  LATERAL (SELECT pipeline_agg(at(i), v, d, first::text::pipeline ORDER BY i) AS resumed
           FROM nv_rows WHERE i >= cut AND i < 60) AS r
GROUP BY name ORDER BY name;

-- The original's serialization round trip: after [10, 0, 5], [20, 0, 5]
-- the state holds key 1 and the sum 30, reads back as the same value, and
-- the restored pipeline closes the segment with 30 on [5, 0, 0].
CREATE TABLE nv_seg_state AS
SELECT pipeline_agg(at(i), v, 1, (SELECT spec FROM nv_seg)::pipeline ORDER BY i) AS p
FROM (VALUES (1, '{10, 0, 5}'::float8[]), (2, '{20, 0, 5}')) AS t(i, v);
SELECT p::json -> 'state' -> 'operators' AS operators FROM nv_seg_state;
SELECT p::text::pipeline = p AS reads_back, p::json::pipeline = p AS json_reads_back FROM nv_seg_state;
SELECT key, port, value
FROM pending((SELECT pipeline_agg(at(3), '{5, 0, 0}'::float8[], 1, p) FROM nv_seg_state));

-- A state that cannot be is refused with the reason, never run: the
-- number of lanes in "buffer" is not the vector's, "buffer_o1" with more
-- lanes than a vector has, a vector buffered where nothing is, no
-- "buffer_o1" (truncated) or not an array, a nested pipeline without a key
-- that holds a vector; a key that is not a number.  A NaN key is a key
-- like any other (NaN equals NaN) and reads back.
CREATE TABLE nv_state AS
SELECT pipeline_agg(at(i), v, 'a'::text, (SELECT spec FROM nv_shifts)::pipeline ORDER BY i)::text AS t
FROM (VALUES (1, '{1, 10, 100}'::float8[]), (2, '{1, 20, 200}'), (3, '{2, 30, 300}')) AS t(i, v);
SELECT (t::json) -> 'state' -> 'operators' -> 'per_shift' AS nested FROM nv_state;
SELECT label, nv_try(format('SELECT %L::pipeline', replace(t, old, new)))
FROM nv_state, (VALUES
  ('as written', '', ''),
  ('lane count 3', '"buffer": [2]', '"buffer": [3]'),
  ('1025 lanes', '"buffer_o1": [300, 30]',
   '"buffer_o1": [' || (SELECT string_agg('1', ', ') FROM generate_series(1, 1025)) || ']'),
  ('nothing buffered', '"buffered": [1], "buffer": [2]', '"buffered": [0], "buffer": [0]'),
  ('no buffer_o1', ', "buffer_o1": [300, 30]', ''),
  ('buffer_o1 a number', '"buffer_o1": [300, 30]', '"buffer_o1": 300'),
  ('no key, a vector', '"has_key": 1, "key": 2', '"has_key": 0, "key": 0'),
  ('key a string', '"key": 2', '"key": "two"'),
  ('key NaN', '"key": 2', '"key": "NaN"')) AS c(label, old, new);
SELECT nv_try(format('SELECT %L::pipeline', left(t, strpos(t, '"buffer_o1"') + 17))) AS truncated
FROM nv_state;
-- The NaN key resumed (the vector and the sum per shift of nv_both_outs,
-- after rows 1 to 3): a row whose shift is NaN continues the segment, so
-- the sum goes on from 30 to 70; one whose shift is 3 closes it, and the
-- outer pipeline buffers what it emits, [400, 40] and 70.
SELECT port, value FROM pending((SELECT pipeline_agg(at(i), v, 'a'::text,
    (SELECT replace(p::text, '"key": 2', '"key": "NaN"') FROM nv_both_state)::pipeline ORDER BY i)
  FROM (VALUES (4, '{NaN, 40, 400}'::float8[]), (5, '{3, 50, 500}')) AS r(i, v))) ORDER BY port;
SELECT port, value FROM vector_pending((SELECT pipeline_agg(at(i), v, 'a'::text,
    (SELECT replace(p::text, '"key": 2', '"key": "NaN"') FROM nv_both_state)::pipeline ORDER BY i)
  FROM (VALUES (4, '{NaN, 40, 400}'::float8[]), (5, '{3, 50, 500}')) AS r(i, v)));
