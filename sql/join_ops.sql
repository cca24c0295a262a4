-- The original's Join, Variable, KeyedVariable and TriggerSet, new in
-- 0.7.0: the original's scenarios mapped onto rows, resets, resume at every
-- cut, hostile states.  Expected values by hand.
\pset format unaligned
\pset null 'null'

-- jtrace(spec, rows, keys): per prefix of the rows (each row an array: one
-- value per data port, or a vector port's lanes), what the pipeline holds
-- after it: a punctuation row (no value, a key of its own) closes the
-- segment open then, and shows its latest output, '-' when that segment
-- produced nothing.  keys[i] is row i's key.
CREATE FUNCTION jtrace(spec pipeline, rows float8[], keys int[]) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(coalesce(e::text, '-'), ' ' ORDER BY n)
  FROM (SELECT n, i, segment_agg(v, k, spec) OVER (PARTITION BY n ORDER BY i) AS e
        FROM generate_series(1, array_length(rows, 1)) AS n,
             LATERAL (SELECT i, ARRAY(SELECT unnest(rows[i:i][:])) AS v, keys[i] AS k
                      FROM generate_series(1, n) AS i
                      UNION ALL
                      SELECT n + 1, NULL, -1) AS r) AS q
  WHERE i = n + 1
$$;
CREATE FUNCTION jtrace(spec pipeline, rows float8[]) RETURNS text LANGUAGE sql AS $$
  SELECT jtrace(spec, rows, array_fill(1, ARRAY[array_length(rows, 1)]))
$$;
-- jtry(query): 'ok', or the error's SQLSTATE, message and detail.
CREATE FUNCTION jtry(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    detail text;
BEGIN
    EXECUTE q;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' (' || nullif(detail, '') || ')', '');
END $$;
-- jstate(spec, rows, keys): the pipeline_agg of the rows (row i at i
-- seconds after the epoch), its state as text.
CREATE FUNCTION jstate(spec pipeline, rows float8[], keys int[]) RETURNS pipeline LANGUAGE sql AS $$
  SELECT pipeline_agg(to_timestamp(i), ARRAY(SELECT unnest(rows[i:i][:])), keys[i], spec ORDER BY i)
  FROM generate_series(1, array_length(rows, 1)) AS i
$$;
-- jresume(spec, rows, keys): for every cut c (1 .. n - 1), rows 1 .. c run
-- by pipeline_agg, rows c + 1 .. n resumed from the text of its result;
-- the cuts whose emissions (the state's "emissions", both parts') and
-- final state are the single run's, out of how many.
CREATE FUNCTION jresume(spec pipeline, rows float8[], keys int[]) RETURNS text LANGUAGE sql AS $$
  WITH r AS (SELECT i, ARRAY(SELECT unnest(rows[i:i][:])) AS v, keys[i] AS k
             FROM generate_series(1, array_length(rows, 1)) AS i),
  whole AS (SELECT pipeline_agg(to_timestamp(i), v, k, spec ORDER BY i) AS p FROM r),
  cuts AS (SELECT c, (SELECT pipeline_agg(to_timestamp(i), v, k, spec ORDER BY i) FROM r WHERE i <= c) AS p1
           FROM generate_series(1, array_length(rows, 1) - 1) AS c),
  resumed AS (SELECT c, p1, (SELECT pipeline_agg(to_timestamp(i), v, k, p1::text::pipeline ORDER BY i)
                             FROM r WHERE i > c) AS p2 FROM cuts)
  SELECT count(*) FILTER (
           WHERE (p1::jsonb #> '{state,emissions}') || (p2::jsonb #> '{state,emissions}') =
                 (SELECT p FROM whole)::jsonb #> '{state,emissions}'
             AND p2::jsonb #- '{state,emissions}' = (SELECT p FROM whole)::jsonb #- '{state,emissions}')
         || ' of ' || count(*)
  FROM resumed
$$;

-- ==== Join ====

-- Its canonical text: "portTypes" as given; as the one operator, its first
-- output is the pipeline's.
SELECT '{"type": "Join", "portTypes": ["number", "boolean"]}'::pipeline;

-- The original's synchronisation: values pass on together only where
-- every port has one.  Two filters (x > 0 on port 1, y > 0 on port 2) feed
-- a Join, whose o1 and o2 are the outputs: rows (1, 1) pass; (2, -1) and
-- (-3, 4) have one value each, and the Join passes nothing, so the outputs
-- keep {1, 1}; (5, 6) passes.  Without the Join the two filters' outputs
-- move apart: {2, 1} after row 2, {2, 4} after row 3.
CREATE TABLE j_sync AS SELECT '{"type": "Pipeline", "input_port_types": ["number", "number"],
  "output_port_types": ["number", "number"],
  "operators": [{"type": "Join", "id": "in", "portTypes": ["number", "number"]},
                {"type": "GreaterThan", "id": "px", "value": 0}, {"type": "GreaterThan", "id": "py", "value": 0},
                {"type": "Join", "id": "j", "portTypes": ["number", "number"]}],
  "connections": [{"from": "in", "to": "px"}, {"from": "in", "fromPort": "o2", "to": "py"},
                  {"from": "px", "to": "j"}, {"from": "py", "to": "j", "toPort": "i2"}],
  "entryOperator": "in", "outputMappings": {"j": {"o1": "o1", "o2": "o2"}}}'::text AS spec;
SELECT jtrace(spec::pipeline, '{{1, 1}, {2, -1}, {-3, 4}, {5, 6}}') AS joined,
       jtrace(replace(spec, '"outputMappings": {"j": {"o1": "o1", "o2": "o2"}}',
                      '"outputMappings": {"px": {"o1": "o1"}, "py": {"o1": "o2"}}')::pipeline,
              '{{1, 1}, {2, -1}, {-3, 4}, {5, 6}}') AS not_joined
FROM j_sync;
-- A boundary: Join keeps nothing, so rows (7, -1) then, in a new segment,
-- (-1, 8) pass nothing: the new segment's output is empty ('-').
SELECT jtrace(spec::pipeline, '{{7, -1}, {-1, 8}, {9, 9}}', '{1, 2, 2}') FROM j_sync;

-- Ports of several types, each value leaving on its own port with its
-- type: a number, a boolean (5 is true: 1) and a vector, from one row's
-- vector [x, flag, a, b]: the number x, the boolean flag > 0 and the
-- vector [a, b].  The first two outputs, then the vector one alone.
CREATE TABLE j_types AS SELECT '{"type": "Pipeline", "input_port_types": ["vector_number"],
  "output_port_types": ["number", "boolean"],
  "operators": [{"type": "VectorProject", "id": "in", "indices": [0, 1, 2, 3]},
                {"type": "VectorExtract", "id": "x", "index": 0}, {"type": "VectorExtract", "id": "f", "index": 1},
                {"type": "CompareGT", "id": "flag", "value": 0}, {"type": "VectorProject", "id": "ab", "indices": [2, 3]},
                {"type": "Join", "id": "j", "portTypes": ["number", "boolean", "vector_number"]}],
  "connections": [{"from": "in", "to": "x"}, {"from": "in", "to": "f"}, {"from": "f", "to": "flag"},
                  {"from": "in", "to": "ab"}, {"from": "x", "to": "j"}, {"from": "flag", "to": "j", "toPort": "i2"},
                  {"from": "ab", "to": "j", "toPort": "i3"}],
  "entryOperator": "in", "outputMappings": {"j": {"o1": "o1", "o2": "o2"}}}'::text AS spec;
SELECT jtrace(spec::pipeline, '{{42, 5, 1, 2}, {43, -1, 3, 4}}') AS number_and_boolean,
       jtrace(replace(replace(spec, '"output_port_types": ["number", "boolean"]', '"output_port_types": ["vector_number"]'),
                      '{"o1": "o1", "o2": "o2"}', '{"o3": "o1"}')::pipeline,
              '{{42, 5, 1, 2}, {43, -1, 3, 4}}') AS vector
FROM j_types;
-- A Join as the entry operator: the pipeline's ports are its ports, and a
-- boolean port takes any non-zero value as 1.
SELECT jtrace('{"type": "Pipeline", "input_port_types": ["number", "boolean"], "output_port_types": ["number", "boolean"],
  "operators": [{"type": "Join", "id": "j", "portTypes": ["number", "boolean"]}],
  "entryOperator": "j", "outputMappings": {"j": {"o1": "o1", "o2": "o2"}}}', '{{2.5, 7}, {-1, 0}}');
-- It has no state: a stored pipeline shows none for it.
SELECT jstate('{"type": "Join", "portTypes": ["number", "number"]}', '{{1, 2}}', '{1}')::jsonb -> 'state' -> 'operators' AS operators;

-- Refused specs: a port of the wrong type, fewer than two ports, an
-- unknown type, not an array, missing, more than 64.
SELECT jtry(format('SELECT %L::pipeline', s))
FROM (VALUES
  ('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "in"}, {"type": "CompareGT", "id": "c", "value": 0},
     {"type": "Join", "id": "j", "portTypes": ["number", "number"]}],
     "connections": [{"from": "in", "to": "c"}, {"from": "c", "to": "j"}, {"from": "in", "to": "j", "toPort": "i2"}],
     "entryOperator": "in", "outputMappings": {"j": {"o1": "o1"}}}'),
  ('{"type": "Join", "portTypes": ["number"]}'),
  ('{"type": "Join", "portTypes": ["number", "invalid_type"]}'),
  ('{"type": "Join", "portTypes": "number"}'),
  ('{"type": "Join"}'),
  ('{"type": "Join", "portTypes": []}')) AS t(s);
SELECT jtry(format('SELECT %L::pipeline', json_build_object('type', 'Join', 'portTypes', array_fill('number'::text, ARRAY[65]))));
SELECT jtry(format('SELECT %L::pipeline', json_build_object('type', 'Join', 'portTypes', array_fill('number'::text, ARRAY[64]))));

-- ==== Variable ====

SELECT '{"type": "Variable", "id": "v"}'::pipeline;

-- The original's basic scenario: data 100 at time 10 and 200 at time 20,
-- queries at 5, 10, 15, 20 and 25, default 42.  Each row is (update,
-- query): a positive update sets the value, a positive query asks (the
-- filters leave the others out).  Rows at 5 .. 25: (0, 1) -> 42, nothing
-- set yet; (100, 1) -> 100, the row's update first; (0, 1) -> 100;
-- (200, 1) -> 200; (0, 1) -> 200 (the original holds this last query until
-- data after 25 comes; segpipe answers on the row).
CREATE TABLE v_spec AS SELECT '{"type": "Pipeline", "input_port_types": ["number", "number"],
  "operators": [{"type": "Join", "id": "in", "portTypes": ["number", "number"]},
                {"type": "GreaterThan", "id": "update", "value": 0}, {"type": "GreaterThan", "id": "query", "value": 0},
                {"type": "Variable", "id": "var", "default_value": 42}],
  "connections": [{"from": "in", "to": "update"}, {"from": "in", "fromPort": "o2", "to": "query"},
                  {"from": "update", "to": "var"}, {"from": "query", "to": "var", "toPort": "c1"}],
  "entryOperator": "in", "outputMappings": {"var": {"o1": "o1"}}}'::pipeline AS spec;
SELECT jtrace(spec, '{{0, 1}, {100, 1}, {0, 1}, {200, 1}, {0, 1}}') FROM v_spec;
-- Updates alone produce nothing; a query before any update gets the
-- default; the latest of several updates is the value (the original's
-- "last value at a timestamp"); NaN is a value like any other (and passes
-- the filter: NaN is above every number).
SELECT jtrace(spec, '{{5, 0}, {6, 0}}') AS updates_only,
       jtrace(spec, '{{0, 1}, {0, 1}}') AS queries_only,
       jtrace(spec, '{{5, 0}, {6, 0}, {7, 0}, {0, 1}}') AS latest,
       jtrace(spec, '{{5, 0}, {NaN, 1}, {0, 1}}') AS nan
FROM v_spec;
-- The original's reset: a value set in one segment is gone in the next,
-- whose first query gets the default.  Segment 1: (100, 0) -> nothing,
-- (0, 1) -> 100; segment 2: (0, 1) -> 42, (200, 1) -> 200.
SELECT jtrace(spec, '{{100, 0}, {0, 1}, {0, 1}, {200, 1}}', '{1, 1, 2, 2}') FROM v_spec;
-- As the entry operator, the pipeline's two ports are its i1 and c1: every
-- row updates, then asks.
SELECT jtrace('{"type": "Variable"}', '{{3, 0}, {4, 0}}');
-- Its state: "set" and "value".
SELECT jstate(spec, '{{100, 0}, {0, 1}}', '{1, 1}')::jsonb -> 'state' -> 'operators' AS operators FROM v_spec;
-- Resume at every cut of 8 rows in two segments, NaN included.
SELECT jresume(spec, '{{0, 1}, {100, 0}, {0, 1}, {NaN, 1}, {0, 1}, {0, 1}, {-0.5, 3}, {7, 7}}', '{1, 1, 1, 1, 2, 2, 2, 2}') FROM v_spec;
-- Hostile states, refused with 22P02: "set" other than 0 or 1, a value
-- while not set (-0 too: only zero bytes mean unset), a value that is not
-- a number, a member missing.
CREATE TABLE v_held AS SELECT jstate(spec, '{{100, 0}, {0, 1}}', '{1, 1}')::text AS p FROM v_spec;
CREATE TABLE v_unset AS SELECT jstate(spec, '{{0, 1}}', '{1}')::text AS p FROM v_spec;
SELECT m AS state, jtry(format('SELECT %L::pipeline', replace(p, f, t)))
FROM v_held, (VALUES ('"set": 1', '"set": 2', 'set 2'), ('"set": 1', '"set": -1', 'set -1'),
                     ('"value": 100', '"value": "x"', 'not a number'),
                     ('"set": 1, "value": 100', '"set": 1', 'no value')) AS t(f, t, m)
UNION ALL
SELECT m, jtry(format('SELECT %L::pipeline', replace(p, f, t)))
FROM v_unset, (VALUES ('"value": 0', '"value": 5', 'unset, 5'), ('"value": 0', '"value": -0', 'unset, -0'),
                      ('"value": 0', '"value": 0', 'as written')) AS t(f, t, m);

-- ==== KeyedVariable ====

SELECT '{"type": "Pipeline", "input_port_types": ["vector_number"], "output_port_types": ["boolean"],
  "operators": [{"type": "VectorProject", "id": "in", "indices": [0, 1, 2]}, {"type": "VectorExtract", "id": "q", "index": 2},
                {"type": "KeyedVariable", "id": "kv"}],
  "connections": [{"from": "in", "to": "kv"}, {"from": "in", "to": "q"}, {"from": "q", "to": "kv", "toPort": "c1"}],
  "entryOperator": "in", "outputMappings": {"kv": {"o1": "o1"}}}'::pipeline::jsonb -> 'operators' -> 2 AS kv;

-- Each row is [kind, a, b]: kind 1 sets map[a] = b (a NaN b deletes a),
-- kind 2 asks for key a; Demultiplexers gate the lanes by kind (the
-- original's pattern), a VectorCompose makes the update [a, b].
CREATE TABLE kv_spec AS SELECT '{"type": "Pipeline", "input_port_types": ["vector_number"],
  "output_port_types": ["boolean"],
  "operators": [{"type": "VectorProject", "id": "in", "indices": [0, 1, 2]},
                {"type": "VectorExtract", "id": "kind", "index": 0}, {"type": "VectorExtract", "id": "a", "index": 1},
                {"type": "VectorExtract", "id": "b", "index": 2},
                {"type": "CompareEQ", "id": "is_update", "value": 1}, {"type": "CompareEQ", "id": "is_query", "value": 2},
                {"type": "Demultiplexer", "id": "key", "numPorts": 1}, {"type": "Demultiplexer", "id": "value", "numPorts": 1},
                {"type": "Demultiplexer", "id": "asked", "numPorts": 1},
                {"type": "VectorCompose", "id": "update", "numPorts": 2},
                {"type": "KeyedVariable", "id": "kv", "mode": "exists"}],
  "connections": [{"from": "in", "to": "kind"}, {"from": "in", "to": "a"}, {"from": "in", "to": "b"},
                  {"from": "kind", "to": "is_update"}, {"from": "kind", "to": "is_query"},
                  {"from": "a", "to": "key"}, {"from": "is_update", "to": "key", "toPort": "c1"},
                  {"from": "b", "to": "value"}, {"from": "is_update", "to": "value", "toPort": "c1"},
                  {"from": "a", "to": "asked"}, {"from": "is_query", "to": "asked", "toPort": "c1"},
                  {"from": "key", "to": "update"}, {"from": "value", "to": "update", "toPort": "i2"},
                  {"from": "update", "to": "kv"}, {"from": "asked", "to": "kv", "toPort": "c1"}],
  "entryOperator": "in", "outputMappings": {"kv": {"o1": "o1"}}}'::text AS spec;
-- The original's exists mode: 42 added, then asked: 1; 99 asked: 0; 42
-- deleted (NaN), asked: 0.
SELECT jtrace(spec::pipeline, '{{1, 42, 1}, {2, 42, 0}, {2, 99, 0}, {1, 42, NaN}, {2, 42, 0}}') AS exists_mode FROM kv_spec;
-- Lookup mode, default 0: 42 set to 100, asked: 100; 99 asked: 0 (the
-- default); 42 set to 150, asked: 150.  With default -1, 99 gives -1.
SELECT jtrace(replace(replace(spec, '"mode": "exists"', '"mode": "lookup"'), '["boolean"]', '["number"]')::pipeline,
              '{{1, 42, 100}, {2, 42, 0}, {2, 99, 0}, {1, 42, 150}, {2, 42, 0}}') AS lookup_mode,
       jtrace(replace(replace(spec, '"mode": "exists"', '"mode": "lookup", "default_value": -1'), '["boolean"]', '["number"]')::pipeline,
              '{{1, 42, 100}, {2, 99, 0}}') AS lookup_default
FROM kv_spec;
-- The original's watchlist: accounts 42 and 17 listed; trades of 42, 99,
-- 17 and 8 asked: 1 0 1 0 (its c2 heartbeat, which lets the original
-- answer a query it holds, has no part here: each is answered on its row).
SELECT jtrace(spec::pipeline, '{{1, 42, 1}, {1, 17, 1}, {2, 42, 500}, {2, 99, 200}, {2, 17, 300}, {2, 8, 400}}') AS watchlist
FROM kv_spec;
-- Keys compare as float8: NaN finds NaN, -0 finds 0; deleting a key that
-- is not there changes nothing.
SELECT jtrace(replace(replace(spec, '"mode": "exists"', '"mode": "lookup"'), '["boolean"]', '["number"]')::pipeline,
              '{{1, NaN, 5}, {2, NaN, 0}, {1, -0, 6}, {2, 0, 0}, {1, 3, NaN}, {2, 0, 0}}') AS float8_keys
FROM kv_spec;
-- The update and the query of one row: the query sees the update (the
-- original's order at one timestamp).  As here, rows [key, value, query
-- key] update on every row.
CREATE TABLE kv_row AS SELECT '{"type": "Pipeline", "input_port_types": ["vector_number"],
  "operators": [{"type": "VectorProject", "id": "in", "indices": [0, 1, 2]}, {"type": "VectorExtract", "id": "q", "index": 2},
                {"type": "KeyedVariable", "id": "kv", "mode": "lookup", "default_value": -1, "maxKeys": 2}],
  "connections": [{"from": "in", "to": "kv"}, {"from": "in", "to": "q"}, {"from": "q", "to": "kv", "toPort": "c1"}],
  "entryOperator": "in", "outputMappings": {"kv": {"o1": "o1"}}}'::pipeline AS spec;
SELECT jtrace(spec, '{{5, 50, 5}, {6, 60, 5}, {5, 55, 6}}') FROM kv_row;
-- A boundary empties the map: key 5, set in segment 1, is not there in
-- segment 2 (-1).
SELECT jtrace(spec, '{{5, 50, 5}, {6, 60, 5}}', '{1, 2}') FROM kv_row;
-- maxKeys (2 here) bounds the keys held: a third stops the run (54000); a
-- deleted key makes room.
SELECT jtry($$SELECT jtrace(spec, '{{1, 1, 1}, {2, 2, 1}, {3, 3, 1}}') FROM kv_row$$);
SELECT jtrace(spec, '{{1, 1, 1}, {2, 2, 1}, {1, NaN, 1}, {3, 3, 3}}') FROM kv_row;
-- An update of fewer than two lanes is an error (2202E); lanes past the
-- second are not read.
SELECT jtry($$SELECT segment_agg(ARRAY[1]::float8[], 1, '{"type": "Pipeline", "input_port_types": ["vector_number"], "output_port_types": ["boolean"],
  "operators": [{"type": "VectorProject", "id": "in", "indices": [0]}, {"type": "VectorExtract", "id": "q", "index": 0},
                {"type": "KeyedVariable", "id": "kv"}],
  "connections": [{"from": "in", "to": "kv"}, {"from": "in", "to": "q"}, {"from": "q", "to": "kv", "toPort": "c1"}],
  "entryOperator": "in", "outputMappings": {"kv": {"o1": "o1"}}}') OVER ()$$);
-- Refused specs: the original's heartbeat port c2, a mode that is not
-- "exists" or "lookup", maxKeys out of range, and as the one operator (its
-- vector port and its number port cannot both be the pipeline's).
SELECT jtry(format('SELECT %L::pipeline', s))
FROM (VALUES
  ('{"type": "Pipeline", "input_port_types": ["vector_number"],
     "operators": [{"type": "VectorProject", "id": "in", "indices": [0, 1]}, {"type": "VectorExtract", "id": "q", "index": 0},
                   {"type": "KeyedVariable", "id": "kv"}],
     "connections": [{"from": "in", "to": "kv"}, {"from": "q", "to": "kv", "toPort": "c1"}, {"from": "in", "to": "q"},
                     {"from": "q", "to": "kv", "toPort": "c2"}],
     "entryOperator": "in", "outputMappings": {"kv": {"o1": "o1"}}}'),
  ('{"type": "KeyedVariable", "mode": "count"}'),
  ('{"type": "KeyedVariable", "maxKeys": 0}'),
  ('{"type": "KeyedVariable", "maxKeys": 65537}'),
  ('{"type": "KeyedVariable"}')) AS t(s);
-- Its state: "map", key, value pairs in ascending order of key (NaN
-- last); with maxKeys 3 here.
CREATE TABLE kv_held AS SELECT jstate(replace(spec::text, '"maxKeys": 2', '"maxKeys": 3')::pipeline,
                                      '{{7, 70, 7}, {-2, 20, 7}, {NaN, 1, 7}}', '{1, 1, 1}')::text AS p FROM kv_row;
SELECT p::jsonb -> 'state' -> 'operators' AS operators FROM kv_held;
-- Resume at every cut of 9 rows in two segments, and of 7 with the
-- update and the query of every row.
SELECT jresume(spec::pipeline, '{{1, 42, 1}, {2, 42, 0}, {1, NaN, 3}, {1, 42, NaN}, {2, NaN, 0}, {1, 5, 5}, {2, 5, 0}, {1, -0, 1}, {2, 0, 0}}',
               '{1, 1, 1, 1, 2, 2, 2, 2, 2}')
FROM kv_spec;
SELECT jresume(spec, '{{5, 50, 5}, {NaN, 1, 5}, {5, NaN, NaN}, {-0, 2, 0}, {7, 7, 7}, {7, NaN, 7}, {1, 1, 1}}',
               '{1, 1, 1, 2, 2, 2, 2}')
FROM kv_row;
-- Hostile states, refused with 22P02: keys out of order or equal (-0 and 0
-- too), an odd number of values, a NaN value, more pairs than maxKeys (3),
-- a value that is not a number (and the state as written, read back).
SELECT m AS state, jtry(format('SELECT %L::pipeline', replace(p, f, t)))
FROM kv_held, (VALUES ('[-2, 20, 7, 70, "NaN", 1]', '[7, 70, -2, 20]', 'out of order'),
                      ('[-2, 20, 7, 70, "NaN", 1]', '[0, 20, -0, 70]', 'equal keys'),
                      ('[-2, 20, 7, 70, "NaN", 1]', '[-2, 20, 7]', 'odd'),
                      ('[-2, 20, 7, 70, "NaN", 1]', '[-2, "NaN"]', 'NaN value'),
                      ('[-2, 20, 7, 70, "NaN", 1]', '[-2, 20, 7, 70, 8, 1, 9, 1]', 'too many'),
                      ('[-2, 20, 7, 70, "NaN", 1]', '[-2, "x"]', 'not a number'),
                      ('[-2, 20, 7, 70, "NaN", 1]', '[-2, 20, 7, 70, "NaN", 1]', 'as written')) AS t(f, t, m);

-- ==== TriggerSet ====

-- The original's scenario: an entry operator, a MovingSum of 3 as the
-- output.  It fires once the window is full (1 + 2 + 3 = 6) and re-arms:
-- every operator of its mesh starts again, so 4 and 5 give nothing, and
-- 4 + 5 + 6 = 15 fires next.
CREATE TABLE ts_spec AS SELECT '{"type": "TriggerSet", "id": "ts", "input_port_type": "number", "output_port_type": "number",
  "operators": [{"type": "Identity", "id": "in1"}, {"type": "MovingSum", "id": "sum1", "window_size": 3}],
  "connections": [{"from": "in1", "to": "sum1"}], "entryOperator": "in1", "outputOperator": {"id": "sum1", "port": "o1"}}'::pipeline AS spec;
SELECT spec FROM ts_spec;
SELECT jtrace(spec, '{{1}, {2}, {3}, {4}, {5}, {6}, {7}}') FROM ts_spec;
-- The original's reset scenario, one operator, "outputOperator" an id: a
-- MovingSum of 2 fires 1 + 2 = 3; 3 alone gives nothing; 3 + 4 = 7.
SELECT jtrace('{"type": "TriggerSet", "input_port_type": "number", "output_port_type": "number",
  "operators": [{"type": "MovingSum", "id": "sum1", "window_size": 2}], "entryOperator": "sum1", "outputOperator": "sum1"}',
  '{{1}, {2}, {3}, {4}}');
-- A boundary resets it too: 1, 2 in segment 1 (nothing fired), then 3, 4
-- and 5 in segment 2: 12.
SELECT jtrace(spec, '{{1}, {2}, {3}, {4}, {5}}', '{1, 1, 2, 2, 2}') FROM ts_spec;
-- Fire once the running count passes 2, then count again: a boolean out
-- of a number in, its firings counted after it (at rows 3 and 6); and a
-- vector in, its lane 1 summed until the sum is over 10 (the lanes [0, 4],
-- [0, 5], [0, 3] fire 12, then [0, 20] fires 20).
SELECT jtrace('{"type": "Pipeline", "operators": [
    {"type": "TriggerSet", "id": "third", "input_port_type": "number", "output_port_type": "boolean",
     "operators": [{"type": "CountNumber", "id": "n"}, {"type": "GreaterThan", "id": "over", "value": 2},
                   {"type": "CompareGT", "id": "yes", "value": 0}],
     "connections": [{"from": "n", "to": "over"}, {"from": "over", "to": "yes"}],
     "entryOperator": "n", "outputOperator": "yes"},
    {"type": "BooleanToNumber", "id": "b"}, {"type": "CumulativeSum", "id": "fired"}],
  "connections": [{"from": "third", "to": "b"}, {"from": "b", "to": "fired"}],
  "entryOperator": "third", "outputMappings": {"fired": {"o1": "o1"}}}', '{{9}, {9}, {9}, {9}, {9}, {9}, {9}}') AS every_third,
       jtrace('{"type": "TriggerSet", "input_port_type": "vector_number", "output_port_type": "number",
  "operators": [{"type": "VectorExtract", "id": "x", "index": 1}, {"type": "CumulativeSum", "id": "s"},
                {"type": "GreaterThan", "id": "over", "value": 10}],
  "connections": [{"from": "x", "to": "s"}, {"from": "s", "to": "over"}],
  "entryOperator": "x", "outputOperator": "over"}', '{{0, 4}, {0, 5}, {0, 3}, {0, 20}}') AS vector_in;
-- Inside a pipeline, and a prototype's instance inside its mesh (ids
-- "m::..."): a TriggerSet doubling a MovingAverage of 2 feeds a Scale.
SELECT jtrace('{"type": "Pipeline",
  "prototypes": {"ma2": {"operators": [{"type": "MovingAverage", "id": "ma", "window_size": 2},
                                       {"type": "Scale", "id": "k", "value": 2}],
                         "connections": [{"from": "ma", "to": "k"}], "entry": {"operator": "ma"}, "output": {"operator": "k"}}},
  "operators": [{"type": "TriggerSet", "id": "t", "input_port_type": "number", "output_port_type": "number",
                 "operators": [{"id": "m", "prototype": "ma2"}], "entryOperator": "m", "outputOperator": "m"},
                {"type": "Scale", "id": "s", "value": 10}],
  "connections": [{"from": "t", "to": "s"}], "entryOperator": "t", "outputMappings": {"s": {"o1": "o1"}}}',
  '{{1}, {3}, {5}, {6}, {7}}');
SELECT ('{"type": "Pipeline",
  "prototypes": {"ma2": {"operators": [{"type": "MovingAverage", "id": "ma", "window_size": 2}],
                         "entry": {"operator": "ma"}, "output": {"operator": "ma"}}},
  "operators": [{"type": "TriggerSet", "id": "t", "input_port_type": "number", "output_port_type": "number",
                 "operators": [{"id": "m", "prototype": "ma2"}], "entryOperator": "m", "outputOperator": "m"}]}'::pipeline::jsonb
  -> 'operators' -> 0) AS expanded;
-- Refused specs: an unknown port type, no entry or output, an unknown
-- operator as either, an output port it does not have, the entry's port of
-- another type, the output of another type, an unconnected port, an
-- unknown connection, a field of "outputOperator" misspelt, an
-- "outputOperator" neither an id nor an object, no operators, a pipeline's
-- field.
SELECT jtry(format('SELECT %L::pipeline', s))
FROM (VALUES
  ('{"type": "TriggerSet", "input_port_type": "invalid_type", "output_port_type": "number", "operators": [{"type": "Identity", "id": "i"}], "entryOperator": "i", "outputOperator": "i"}'),
  ('{"type": "TriggerSet", "input_port_type": "number", "operators": [{"type": "Identity", "id": "i"}], "entryOperator": "i", "outputOperator": "i"}'),
  ('{"type": "TriggerSet", "input_port_type": "number", "output_port_type": "number", "operators": [{"type": "Identity", "id": "i"}], "outputOperator": "i"}'),
  ('{"type": "TriggerSet", "input_port_type": "number", "output_port_type": "number", "operators": [{"type": "Identity", "id": "i"}], "entryOperator": "i"}'),
  ('{"type": "TriggerSet", "input_port_type": "number", "output_port_type": "number", "operators": [{"type": "Identity", "id": "i"}], "entryOperator": "x", "outputOperator": "i"}'),
  ('{"type": "TriggerSet", "input_port_type": "number", "output_port_type": "number", "operators": [{"type": "Identity", "id": "i"}], "entryOperator": "i", "outputOperator": "non_existent"}'),
  ('{"type": "TriggerSet", "input_port_type": "number", "output_port_type": "number", "operators": [{"type": "Identity", "id": "i"}], "entryOperator": "i", "outputOperator": {"id": "i", "port": "o999"}}'),
  ('{"type": "TriggerSet", "input_port_type": "boolean", "output_port_type": "number", "operators": [{"type": "Identity", "id": "i"}], "entryOperator": "i", "outputOperator": "i"}'),
  ('{"type": "TriggerSet", "input_port_type": "number", "output_port_type": "boolean", "operators": [{"type": "Identity", "id": "i"}], "entryOperator": "i", "outputOperator": "i"}'),
  ('{"type": "TriggerSet", "input_port_type": "number", "output_port_type": "number", "operators": [{"type": "Addition", "id": "a"}], "entryOperator": "a", "outputOperator": "a"}'),
  ('{"type": "TriggerSet", "input_port_type": "number", "output_port_type": "number", "operators": [{"type": "Identity", "id": "i"}], "connections": [{"from": "i", "to": "ghost"}], "entryOperator": "i", "outputOperator": "i"}'),
  ('{"type": "TriggerSet", "input_port_type": "number", "output_port_type": "number", "operators": [{"type": "Identity", "id": "i"}], "entryOperator": "i", "outputOperator": {"id": "i", "prot": "o1"}}'),
  ('{"type": "TriggerSet", "input_port_type": "number", "output_port_type": "number", "operators": [{"type": "Identity", "id": "i"}], "entryOperator": "i", "outputOperator": 1}'),
  ('{"type": "TriggerSet", "input_port_type": "number", "output_port_type": "number", "operators": [], "entryOperator": "i", "outputOperator": "i"}'),
  ('{"type": "TriggerSet", "input_port_type": "number", "output_port_type": "number", "operators": [{"type": "Identity", "id": "i"}], "entryOperator": "i", "outputOperator": "i", "outputMappings": {}}')) AS t(s);
-- The state cap (64 MiB, rings full): a TriggerSet's mesh counts as its
-- operators do, so nine moving averages of 1000000 values (8 MB each) are
-- refused (54000) and one is not; a KeyedVariable's map counts maxKeys
-- pairs, 1 MiB at most.
SELECT jtry(format('SELECT %L::pipeline', s))
FROM (VALUES ('{"type": "TriggerSet", "input_port_type": "number", "output_port_type": "number", "operators": [{"type": "MovingAverage", "id": "m1", "window_size": 1000000}, {"type": "MovingAverage", "id": "m2", "window_size": 1000000}, {"type": "MovingAverage", "id": "m3", "window_size": 1000000}, {"type": "MovingAverage", "id": "m4", "window_size": 1000000}, {"type": "MovingAverage", "id": "m5", "window_size": 1000000}, {"type": "MovingAverage", "id": "m6", "window_size": 1000000}, {"type": "MovingAverage", "id": "m7", "window_size": 1000000}, {"type": "MovingAverage", "id": "m8", "window_size": 1000000}, {"type": "MovingAverage", "id": "m9", "window_size": 1000000}], "connections": [{"from": "m1", "to": "m2"}, {"from": "m2", "to": "m3"}, {"from": "m3", "to": "m4"}, {"from": "m4", "to": "m5"}, {"from": "m5", "to": "m6"}, {"from": "m6", "to": "m7"}, {"from": "m7", "to": "m8"}, {"from": "m8", "to": "m9"}], "entryOperator": "m1", "outputOperator": "m9"}'), ('{"type": "TriggerSet", "input_port_type": "number", "output_port_type": "number", "operators": [{"type": "MovingAverage", "id": "m1", "window_size": 1000000}], "entryOperator": "m1", "outputOperator": "m1"}'), ('{"type": "Pipeline", "input_port_types": ["vector_number"], "output_port_types": ["boolean"],
   "operators": [{"type": "VectorProject", "id": "in", "indices": [0, 1]}, {"type": "VectorExtract", "id": "q", "index": 0},
                 {"type": "KeyedVariable", "id": "kv", "maxKeys": 65536}],
   "connections": [{"from": "in", "to": "kv"}, {"from": "in", "to": "q"}, {"from": "q", "to": "kv", "toPort": "c1"}],
   "entryOperator": "in", "outputMappings": {"kv": {"o1": "o1"}}}')) AS t(s);
-- Its state: its mesh's operators' fields, "<id>/<field>"; a fired
-- TriggerSet's is the initial one.
SELECT jstate(spec, '{{1}, {2}}', '{1, 1}')::jsonb -> 'state' -> 'operators' AS two_rows,
       jstate(spec, '{{1}, {2}, {3}}', '{1, 1, 1}')::jsonb -> 'state' -> 'operators' AS fired
FROM ts_spec;
-- Resume at every cut of 9 rows in two segments.
SELECT jresume(spec, '{{1}, {2}, {3}, {4}, {5}, {NaN}, {7}, {8}, {9}}', '{1, 1, 1, 1, 1, 1, 2, 2, 2}') FROM ts_spec;
-- Hostile states, refused with 22P02: its moving sum holding more than its
-- window, a count that does not match what it holds.
CREATE TABLE ts_held AS SELECT jstate(spec, '{{1}, {2}}', '{1, 1}')::text AS p FROM ts_spec;
SELECT m AS state, jtry(format('SELECT %L::pipeline', replace(p, f, t)))
FROM ts_held, (VALUES ('"sum1/values": [1, 2]', '"sum1/values": [1, 2, 3, 4]', 'past the window'),
                      ('"sum1/values": [1, 2]', '"sum1/values": "x"', 'not an array'),
                      ('"sum1/values": [1, 2]', '"sum1/values": [1, 2]', 'as written')) AS t(f, t, m);
SELECT p FROM ts_held;

-- A Join inside a TriggerSet's mesh or a KeyedPipeline's prototype: the
-- run over their state has the vector areas a Join's step writes (0.7.0
-- before this test crashed the server here).  Each row's value reaches
-- both of the Join's ports: v - v = 0 fires the TriggerSet on rows 1 and 2,
-- and the segment closed at the end emits the last, 0; key 8's instance
-- adds 5 + 5 = 10, emitted after its key.
SELECT i, segment_agg(v, 1, '{"type": "Pipeline", "operators": [{"type": "TriggerSet", "id": "t",
    "input_port_type": "number", "output_port_type": "number",
    "operators": [{"type": "Identity", "id": "a"}, {"type": "Join", "id": "j", "portTypes": ["number", "number"]},
                  {"type": "Subtraction", "id": "d"}],
    "connections": [{"from": "a", "to": "j", "toPort": "i1"}, {"from": "a", "to": "j", "toPort": "i2"},
                    {"from": "j", "to": "d", "toPort": "i1"}, {"from": "j", "fromPort": "o2", "to": "d", "toPort": "i2"}],
    "entryOperator": "a", "outputOperator": "d"}],
  "entryOperator": "t", "outputMappings": {"t": {"o1": "o1"}}}', true) OVER (ORDER BY i)
FROM (VALUES (1, 1.0), (2, 5.0)) AS t(i, v);
SELECT i, segment_agg(v, 1, '{"type": "KeyedPipeline", "key_index": 0, "prototype": {
    "operators": [{"type": "VectorExtract", "id": "e", "index": 1}, {"type": "Join", "id": "j", "portTypes": ["number", "number"]},
                  {"type": "Addition", "id": "s"}],
    "connections": [{"from": "e", "to": "j", "toPort": "i1"}, {"from": "e", "to": "j", "toPort": "i2"},
                    {"from": "j", "to": "s", "toPort": "i1"}, {"from": "j", "fromPort": "o2", "to": "s", "toPort": "i2"}],
    "entry": {"operator": "e"}, "output": {"operator": "s"}}}', true) OVER (ORDER BY i)
FROM (VALUES (1, '{7, 1}'::float8[]), (2, '{8, 5}')) AS t(i, v);
