-- Vector ports and the operators on vectors, new in 0.6.0: a pipeline
-- whose data port is a vector takes each row's array as the vector;
-- VectorExtract, VectorProject, VectorCompose, TopK; TimestampExtract on a
-- vector; vector outputs as arrays; their state stored and resumed.
\pset null 'null'

-- vec_try(q) runs q and returns 'ok', or SQLSTATE, message and detail.
CREATE FUNCTION vec_try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    detail text;
BEGIN
    EXECUTE q;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM || coalesce(nullif(' (' || detail || ')', ' ()'), '');
END $$;

-- ---- specs ----

-- The port types are read and written back; an operator's defaults show.
SELECT '{"type": "VectorExtract", "index": 2}'::pipeline;
SELECT '{"type": "VectorProject", "indices": [2, 0, 2]}'::pipeline;
SELECT '{"type": "VectorCompose", "numPorts": 3}'::pipeline;
SELECT '{"type": "TopK", "k": 3, "score_index": 1}'::pipeline;
SELECT '{"type": "Pipeline", "input_port_types": ["vector_boolean"], "output_port_types": ["number"],
         "operators": [{"type": "TimestampExtract", "id": "t"}], "entryOperator": "t",
         "outputMappings": {"t": {"o1": "o1"}}}'::pipeline;
-- TimestampExtract alone still takes a number, as before.
SELECT '{"type": "TimestampExtract"}'::pipeline;

-- Refused: parameters out of range, a vector among other data ports, a
-- vector to a number port, a nested Pipeline with vectors whose control port
-- is not connected (sql/nested_vectors.sql has them), an unknown type.
SELECT try_spec('{"type": "VectorExtract", "index": -1}');
SELECT try_spec('{"type": "VectorExtract", "index": 1024}');
SELECT try_spec('{"type": "VectorProject", "indices": []}');
SELECT try_spec('{"type": "VectorProject", "indices": [0, 1.5]}');
SELECT try_spec('{"type": "VectorCompose", "numPorts": 0}');
SELECT try_spec('{"type": "TopK", "k": 0, "score_index": 0}');
SELECT try_spec('{"type": "TopK", "k": 2, "score_index": 0, "descending": true}');
SELECT try_spec('{"type": "Pipeline", "input_port_types": ["vector_number", "number"],
                  "operators": [{"type": "VectorCompose", "id": "c", "numPorts": 2}],
                  "outputMappings": {"c": {"o1": "o1"}}, "output_port_types": ["vector_number"]}');
SELECT try_spec('{"type": "Pipeline", "input_port_types": ["vector_number"],
                  "operators": [{"type": "VectorProject", "id": "p", "indices": [0]},
                                {"type": "MovingAverage", "id": "m", "window_size": 2}],
                  "entryOperator": "p", "connections": [{"from": "p", "to": "m"}],
                  "outputMappings": {"m": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "input_port_types": ["number", "number"],
                  "operators": [{"type": "VectorCompose", "id": "c", "numPorts": 2},
                                {"type": "Pipeline", "id": "n", "input_port_types": ["vector_number"],
                                 "operators": [{"type": "VectorExtract", "id": "e", "index": 0}],
                                 "outputMappings": {"e": {"o1": "o1"}}},
                                {"type": "ConstantNumber", "id": "k", "value": 1}],
                  "entryOperator": "c", "connections": [{"from": "c", "to": "n"}],
                  "outputMappings": {"n": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "input_port_types": ["vector_string"],
                  "operators": [{"type": "VectorExtract", "id": "e", "index": 0}]}');

-- The state cap counts TopK's entries: k vectors of up to 1024 lanes.
SELECT try_spec('{"type": "TopK", "k": 100000, "score_index": 0}');

-- ---- the original's scenarios, values worked out by hand ----

CREATE TABLE vrows (i int, k int, v float8[]);
INSERT INTO vrows VALUES
  (1, 1, '{10, 20, 30}'), (2, 1, '{40, 50, 60}'), (3, 1, '{5, 90, 1}'),
  (4, 2, '{7, 8, 9}'),    (5, 2, '{1, 2, 3}'),    (6, 2, '{6, 2, 4}');

-- VectorExtract of lane 1 (20, 50, 90 | 8, 2, 2) through CumulativeSum:
-- segment 1 closes with 160, segment 2 with 12.
SELECT i, segment_agg(v, k, '{"type": "Pipeline", "input_port_types": ["vector_number"],
         "operators": [{"type": "VectorExtract", "id": "e", "index": 1}, {"type": "CumulativeSum", "id": "s"}],
         "entryOperator": "e", "connections": [{"from": "e", "to": "s"}],
         "outputMappings": {"s": {"o1": "o1"}}}', true) OVER (ORDER BY i)
FROM vrows ORDER BY i;

-- VectorProject [2, 0]: the segment's last row, lanes 2 then 0.
SELECT i, segment_agg(v, k, '{"type": "VectorProject", "indices": [2, 0]}', true) OVER (ORDER BY i)
FROM vrows ORDER BY i;

-- VectorCompose of two numbers per row (one per data port): the last row's.
SELECT i, segment_agg(ARRAY[v[1], v[3]], k, '{"type": "VectorCompose", "numPorts": 2}', true) OVER (ORDER BY i)
FROM vrows ORDER BY i;

-- TopK, k = 2 by lane 1, highest first.  Segment 1: [5,90,1] and
-- [40,50,60].  Segment 2 (reset at the boundary): [7,8,9], then the two
-- scores 2 tie: the later [6,2,4] ranks before [1,2,3].
SELECT i, segment_agg(v, k, '{"type": "TopK", "k": 2, "score_index": 1}', true) OVER (ORDER BY i)
FROM vrows ORDER BY i;
-- Lowest first: segment 1 [10,20,30], [40,50,60]; segment 2 [6,2,4], [1,2,3].
SELECT i, segment_agg(v, k, '{"type": "TopK", "k": 2, "score_index": 1, "descending": "false"}', true) OVER (ORDER BY i)
FROM vrows ORDER BY i;
-- NaN ranks above every number, as in PostgreSQL's float8 order.
SELECT segment_agg(v, 1, '{"type": "TopK", "k": 1, "score_index": 0}', true) OVER (ORDER BY n)
FROM (VALUES (1, '{3}'::float8[]), (2, '{NaN}'), (3, '{Infinity}')) AS t(n, v) ORDER BY n DESC LIMIT 1;

-- A mesh: lanes 0 and 2 of a vector added, composed with lane 1 into a new
-- vector, whose lane 0 goes through a moving average of 2.  Segment 1:
-- sums 40, 100, 6 -> average of the last two 53; segment 2: 16, 4, 10 -> 7.
-- segment_agg returns a vector output only when it is the pipeline's one output.
SELECT vec_try($q$SELECT segment_agg(v, k, '{"type": "Pipeline", "input_port_types": ["vector_number"],
         "output_port_types": ["number", "vector_number"],
         "operators": [{"type": "VectorProject", "id": "p", "indices": [1, 0]}, {"type": "VectorExtract", "id": "a", "index": 0}],
         "entryOperator": "p", "connections": [{"from": "p", "to": "a"}],
         "outputMappings": {"a": {"o1": "o1"}, "p": {"o1": "o2"}}}') OVER (ORDER BY i) FROM vrows$q$);
CREATE TABLE mesh_spec AS SELECT '{"type": "Pipeline", "input_port_types": ["vector_number"],
         "output_port_types": ["number", "vector_number"],
         "operators": [{"type": "VectorProject", "id": "p", "indices": [0, 2, 1]},
                       {"type": "VectorExtract", "id": "a", "index": 0},
                       {"type": "VectorExtract", "id": "b", "index": 1},
                       {"type": "VectorExtract", "id": "c", "index": 2},
                       {"type": "Addition", "id": "s"},
                       {"type": "VectorCompose", "id": "m", "numPorts": 2},
                       {"type": "VectorExtract", "id": "x", "index": 0},
                       {"type": "MovingAverage", "id": "avg", "window_size": 2}],
         "entryOperator": "p",
         "connections": [{"from": "p", "to": "a"}, {"from": "p", "to": "b"}, {"from": "p", "to": "c"},
                         {"from": "a", "to": "s", "toPort": "i1"}, {"from": "b", "to": "s", "toPort": "i2"},
                         {"from": "s", "to": "m", "toPort": "i1"}, {"from": "c", "to": "m", "toPort": "i2"},
                         {"from": "m", "to": "x"}, {"from": "x", "to": "avg"}],
         "outputMappings": {"avg": {"o1": "o1"}, "m": {"o1": "o2"}}}'::pipeline AS spec;
-- Through pipeline_agg: port 1 emits 53 and 7; port 2 the last composed
-- vector of each segment, [6, 90] and [10, 2] (emissions() shows it NULL).
CREATE TABLE mesh_state AS
SELECT pipeline_agg(to_timestamp(i), v, k, spec ORDER BY i) AS p FROM vrows, mesh_spec GROUP BY spec;
SELECT key, port, value FROM mesh_state, emissions(p) ORDER BY ts, port;
SELECT key, port, value FROM mesh_state, vector_emissions(p) ORDER BY ts, port;
SELECT key, port, value FROM mesh_state, pending(p);
SELECT key, port, value FROM mesh_state, vector_pending(p);
-- flush() emits the buffered vector.
SELECT key, port, value FROM mesh_state, vector_emissions(flush(p));

-- TimestampExtract on a vector: the row's time in seconds since 1970.
SELECT segment_agg(to_timestamp(1700000000 + i), v, k, '{"type": "Pipeline", "input_port_types": ["vector_number"],
         "operators": [{"type": "TimestampExtract", "id": "t"}], "outputMappings": {"t": {"o1": "o1"}}}', true)
       OVER (ORDER BY i)
FROM vrows ORDER BY i;

-- boolean[] values: one per boolean port, or a vector_boolean's lanes.
SELECT segment_agg(b, 1, '{"type": "LogicalAnd"}', true) OVER (ORDER BY n)
FROM (VALUES (1, '{true, false}'::boolean[]), (2, '{true, true}')) AS t(n, b) ORDER BY n;
SELECT segment_agg(to_timestamp(n), b, 1, '{"type": "Pipeline", "input_port_types": ["vector_boolean"],
         "operators": [{"type": "TimestampExtract", "id": "t"}], "outputMappings": {"t": {"o1": "o1"}}}', true)
       OVER (ORDER BY n)
FROM (VALUES (1, '{true, false, true}'::boolean[]), (2, '{false}')) AS t(n, b) ORDER BY n;

-- ---- the oracle: VectorExtract of lane i is the scalar pipeline over column i ----

CREATE TABLE wide AS
SELECT n, (n / 17) % 4 AS k,
       ARRAY[sin(n), (n * 7919) % 101 - 50.5, n % 13, cos(n) * 1e6]::float8[] AS v
FROM generate_series(1, 600) AS n;
CREATE TABLE oracle_ops (spec text);
INSERT INTO oracle_ops VALUES
  ('{"type": "MovingAverage", "window_size": 5, "id": "o"}'),
  ('{"type": "StandardDeviation", "window_size": 7, "id": "o"}'),
  ('{"type": "MaxTracker", "id": "o"}'),
  ('{"type": "CumulativeSum", "id": "o"}');
CREATE TABLE oracle AS
SELECT lane, o.spec, n,
       segment_agg(v[lane + 1], k, o.spec::pipeline, true) OVER w AS scalar,
       (segment_agg(v, k, format('{"type": "Pipeline", "input_port_types": ["vector_number"],
            "operators": [{"type": "VectorExtract", "id": "e", "index": %s}, %s],
            "entryOperator": "e", "connections": [{"from": "e", "to": "o"}],
            "outputMappings": {"o": {"o1": "o1"}}}', lane, o.spec)::pipeline, true) OVER w)[1] AS vector
FROM wide, generate_series(0, 3) AS lane, oracle_ops AS o
WINDOW w AS (PARTITION BY lane, o.spec ORDER BY n);
-- Every lane and operator: as many results, none different (bit for bit).
SELECT count(*) FILTER (WHERE scalar IS NOT NULL) AS results,
       count(*) FILTER (WHERE scalar IS DISTINCT FROM vector) AS different
FROM oracle;

-- ---- stored state: two runs emit what one run emits ----

CREATE TABLE topk_spec AS SELECT '{"type": "TopK", "k": 3, "score_index": 2}'::pipeline AS spec;
CREATE TABLE one_run AS
SELECT pipeline_agg(to_timestamp(n), v, k, spec ORDER BY n) AS p FROM wide, topk_spec GROUP BY spec;
CREATE TABLE first_half AS
SELECT pipeline_agg(to_timestamp(n), v, k, spec ORDER BY n) AS p FROM wide, topk_spec WHERE n <= 290 GROUP BY spec;
CREATE TABLE second_half AS
SELECT pipeline_agg(to_timestamp(n), v, k, f.p ORDER BY n) AS p FROM wide, first_half AS f WHERE n > 290 GROUP BY f.p;
SELECT (SELECT count(*) FROM one_run, vector_emissions(p)) AS emissions,
       (SELECT array_agg(e ORDER BY e.ts) FROM one_run, vector_emissions(p) AS e) =
       (SELECT array_agg(e ORDER BY e.ts) FROM (SELECT e.* FROM first_half, vector_emissions(p) AS e
                                                UNION ALL
                                                SELECT e.* FROM second_half, vector_emissions(p) AS e) AS e) AS same_emissions,
       (SELECT (p::jsonb -> 'state') - 'emissions'::text FROM one_run) =
       (SELECT (p::jsonb -> 'state') - 'emissions'::text FROM second_half) AS same_state;
-- The stored text reads back to the same value, and the state's text.
SELECT p::text::pipeline = p AS round_trip FROM one_run;
SELECT p::jsonb -> 'state' -> 'buffer' AS buffer, p::jsonb -> 'state' -> 'operators' AS operators FROM second_half;

-- ---- rows that cannot be a vector ----

SELECT vec_try($q$SELECT segment_agg(v, 1, '{"type": "VectorExtract", "index": 3}') OVER (ORDER BY n)
                  FROM (VALUES (1, '{1, 2}'::float8[])) AS t(n, v)$q$);
SELECT vec_try($q$SELECT segment_agg(v, 1, '{"type": "TopK", "k": 2, "score_index": 2}') OVER (ORDER BY n)
                  FROM (VALUES (1, '{1, 2}'::float8[])) AS t(n, v)$q$);
SELECT vec_try($q$SELECT segment_agg(array_fill(1.0::float8, ARRAY[1025]), 1, '{"type": "VectorExtract", "index": 0}') OVER ()$q$);
SELECT vec_try($q$SELECT segment_agg('{1, NULL}'::float8[], 1, '{"type": "VectorExtract", "index": 0}') OVER ()$q$);
SELECT vec_try($q$SELECT segment_agg('{}'::float8[], 1, '{"type": "VectorExtract", "index": 0}') OVER ()$q$);
SELECT vec_try($q$SELECT segment_agg('{{1, 2}}'::float8[], 1, '{"type": "VectorExtract", "index": 0}') OVER ()$q$);
SELECT vec_try($q$SELECT segment_agg(1.0::float8, 1, '{"type": "VectorExtract", "index": 0}') OVER ()$q$);
SELECT vec_try($q$SELECT segment_agg(1.0::float8, 1, '{"type": "VectorCompose", "numPorts": 1}') OVER ()$q$);
-- Every element NULL: punctuation, as for one value per port.
SELECT segment_agg(v, k, '{"type": "VectorExtract", "index": 0}', true) OVER (ORDER BY n)
FROM (VALUES (1, '{4, 5}'::float8[], 1), (2, '{NULL, NULL}', 2)) AS t(n, v, k) ORDER BY n;
-- TopK's concatenation may not pass 1024 lanes.
SELECT vec_try($q$SELECT segment_agg(array_fill(n::float8, ARRAY[600]), 1, '{"type": "TopK", "k": 2, "score_index": 0}') OVER (ORDER BY n)
                  FROM generate_series(1, 2) AS n$q$);

-- ---- hostile states: malformed stored vectors are refused with 22P02 ----

CREATE FUNCTION with_state(spec text, state text) RETURNS text LANGUAGE sql AS $$
  SELECT vec_try(format('SELECT %L::pipeline', regexp_replace(spec, '}\s*$', '') || ', "state": ' || state || '}'))
$$;
CREATE TABLE topk3 AS SELECT '{"type": "TopK", "k": 2, "score_index": 1}'::text AS spec;
-- well formed
SELECT with_state(spec, '{"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:00+00", "rows": 2, "discarded": 0, "late": 0, "buffer": [[1, 9, 2, 5]], "operators": {"op1": {"n": 2, "entries": [2, 1, 9, 2, 2, 5]}}, "emissions": []}') FROM topk3;
-- n above k; records fewer than n; an entry cut short; a length not an
-- integer; a length without the score lane; out of order; more than n
SELECT with_state(spec, '{"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:00+00", "rows": 2, "discarded": 0, "late": 0, "buffer": [null], "operators": {"op1": {"n": 3, "entries": [2, 1, 9, 2, 2, 5]}}, "emissions": []}') FROM topk3;
SELECT with_state(spec, '{"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:00+00", "rows": 2, "discarded": 0, "late": 0, "buffer": [null], "operators": {"op1": {"n": 2, "entries": [2, 1, 9]}}, "emissions": []}') FROM topk3;
SELECT with_state(spec, '{"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:00+00", "rows": 2, "discarded": 0, "late": 0, "buffer": [null], "operators": {"op1": {"n": 1, "entries": [5, 1, 9]}}, "emissions": []}') FROM topk3;
SELECT with_state(spec, '{"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:00+00", "rows": 2, "discarded": 0, "late": 0, "buffer": [null], "operators": {"op1": {"n": 1, "entries": ["NaN", 1, 9]}}, "emissions": []}') FROM topk3;
SELECT with_state(spec, '{"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:00+00", "rows": 2, "discarded": 0, "late": 0, "buffer": [null], "operators": {"op1": {"n": 1, "entries": [1, 9]}}, "emissions": []}') FROM topk3;
SELECT with_state(spec, '{"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:00+00", "rows": 2, "discarded": 0, "late": 0, "buffer": [null], "operators": {"op1": {"n": 2, "entries": [2, 1, 2, 2, 2, 5]}}, "emissions": []}') FROM topk3;
SELECT with_state(spec, '{"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:00+00", "rows": 2, "discarded": 0, "late": 0, "buffer": [null], "operators": {"op1": {"n": 1, "entries": [2, 1, 9, 2, 2, 5]}}, "emissions": []}') FROM topk3;
-- a buffered vector that is not an array; longer than 1024 lanes; an
-- emitted vector that is a number
SELECT with_state(spec, '{"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:00+00", "rows": 2, "discarded": 0, "late": 0, "buffer": [5], "operators": {"op1": {"n": 0, "entries": []}}, "emissions": []}') FROM topk3;
SELECT with_state(spec, format('{"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:00+00", "rows": 2, "discarded": 0, "late": 0, "buffer": [%s], "operators": {"op1": {"n": 0, "entries": []}}, "emissions": []}',
                               array_to_json(array_fill(0, ARRAY[1025])))) FROM topk3;
SELECT with_state(spec, '{"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:00+00", "rows": 2, "discarded": 0, "late": 0, "buffer": [null], "operators": {"op1": {"n": 0, "entries": []}}, "emissions": [["2026-01-01 00:00:00+00", "0", 1, 7]]}') FROM topk3;
-- more entries than k records of 1024 lanes can hold
SELECT left(with_state(spec, format('{"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:00+00", "rows": 2, "discarded": 0, "late": 0, "buffer": [null], "operators": {"op1": {"n": 0, "entries": %s}}, "emissions": []}',
                                    array_to_json(array_fill(0, ARRAY[3076])))), 80) FROM topk3;
-- a buffered vector's lanes may be any float8, NaN and Infinity too
SELECT with_state('{"type": "Pipeline", "input_port_types": ["vector_number"], "output_port_types": ["vector_number"], "operators": [{"type": "VectorProject", "id": "p", "indices": [0]}], "outputMappings": {"p": {"o1": "o1"}}}',
                  '{"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:00+00", "rows": 1, "discarded": 0, "late": 0, "buffer": [["NaN", "Infinity"]], "operators": {}, "emissions": []}');

DROP TABLE vrows, mesh_spec, mesh_state, wide, oracle_ops, oracle, topk_spec, one_run, first_half, second_half, topk3;
DROP FUNCTION vec_try(text), with_state(text, text);
