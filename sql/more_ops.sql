-- The original's operators new in 0.7.0: CountBoolean, Function,
-- ResamplerHermite and BurstAggregate, with the original's scenarios;
-- resets at a boundary, states stored, resumed and refused.  Expected
-- values by hand.
\pset format unaligned
\pset null 'null'

-- mo_trace_at(spec, secs, vals): trace() (sql/setup.sql) with timestamps,
-- at(secs[i]) for row i.
CREATE FUNCTION mo_trace_at(spec pipeline, secs int[], vals float8[]) RETURNS text
LANGUAGE sql AS $$
  SELECT string_agg(coalesce(e::text, '-'), ' ' ORDER BY n)
  FROM (SELECT n, i, segment_agg(at(t), v, k, spec) OVER (PARTITION BY n ORDER BY i) AS e
        FROM generate_series(1, cardinality(vals)) AS n,
             LATERAL (SELECT i, secs[i] AS t, vals[i] AS v, 0 AS k FROM generate_series(1, n) AS i
                      UNION ALL
                      SELECT n + 1, secs[n], NULL, 1) AS r) AS s
  WHERE i = n + 1
$$;
-- mo_vtrace(spec, rows): trace() for a vector port, each row its vector.
CREATE FUNCTION mo_vtrace(spec pipeline, vals float8[]) RETURNS text
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
-- mo_try(q): runs q; 'ok', or SQLSTATE, message and detail (a state's
-- character position left out: the pipeline_state suite checks those).
CREATE FUNCTION mo_try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    detail text;
BEGIN
    EXECUTE q;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM ||
           coalesce(' (' || regexp_replace(nullif(detail, ''), ' at character \d+ of the (state|text)', '') || ')', '');
END $$;

-- ---- CountBoolean: CountNumber over a boolean port ----

-- 1, 2, 3, ... whatever the values.
SELECT trace('{"type": "CountBoolean"}', '{1, 0, 5, 0}');
-- A window of 5 s: rows at 0, 1, 3, 10, 12 s; at 10 s the window
-- (5 s, 10 s] holds that row alone, at 12 s (7 s, 12 s] two.  With
-- min_rows 2 the first row and the row at 10 s give nothing (the port
-- keeps 3 from the row at 3 s).
SELECT mo_trace_at('{"type": "CountBoolean", "window": "5 s"}', '{0, 1, 3, 10, 12}', '{1, 0, 1, 1, 0}') AS windowed,
       mo_trace_at('{"type": "CountBoolean", "window": "5 s", "min_rows": 2}', '{0, 1, 3, 10, 12}', '{1, 0, 1, 1, 0}') AS min_rows;
-- Behind a comparison (booleans in a mesh): it counts rows, not trues.
SELECT trace('{"type": "Pipeline", "operators": [{"type": "CompareGT", "id": "gt", "value": 2},
  {"type": "CountBoolean", "id": "n"}], "connections": [{"from": "gt", "to": "n"}],
  "entryOperator": "gt", "outputMappings": {"n": {"o1": "o1"}}}', '{1, 5, 3}');
-- A boundary starts the count again: segment a counts 3, b 1.
SELECT i, segment_agg(v, k, '{"type": "CountBoolean"}') OVER (ORDER BY i)
FROM (VALUES (1, 1, 'a'), (2, 0, 'a'), (3, 1, 'a'), (4, 1, 'b'), (5, NULL, 'c')) AS t(i, v, k);
-- A number port cannot feed it.
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "in"}, {"type": "CountBoolean", "id": "n"}],
  "connections": [{"from": "in", "to": "n"}], "entryOperator": "in", "outputMappings": {"n": {"o1": "o1"}}}');

-- ---- Function: the piecewise-linear function of its points ----

-- The original's example, points (0, 0), (1, 2), (2, 0): 0.5 -> 1 and 1.5
-- -> 1 between points; 2.5 -> -1 past the last (the line through the last
-- two), -1 -> -2 before the first (the line through the first two); at a
-- point, its y: 1 -> 2, 2 -> 0, 0 -> 0.
SELECT trace('{"type": "Function", "points": [[0, 0], [1, 2], [2, 0]]}', '{0.5, 1.5, 2.5, -1, 1, 2, 0}');
-- NaN gives NaN; Infinity is past the last point: 2 + (-2)(Infinity - 1)
-- = -Infinity; -Infinity before the first: 0 + 2(-Infinity) = -Infinity.
SELECT trace('{"type": "Function", "points": [[0, 0], [1, 2], [2, 0]]}', '{NaN, Infinity, -Infinity}');
-- The original's tests: points (0, 0), (1, 1): 0.5, -1 and 2 are
-- themselves; points (0, 0), (1, 2), (2, 4): 0.5 -> 1, 1.5 -> 3, 1 -> 2.
SELECT trace('{"type": "Function", "points": [[0, 0], [1, 1]]}', '{0.5, -1, 2}') AS identity,
       trace('{"type": "Function", "points": [[0, 0], [1, 2], [2, 4]]}', '{0.5, 1.5, 1}') AS double;
-- Points are sorted by x, as the original sorts them: the canonical text
-- lists them sorted, and computes as the sorted ones.
SELECT '{"type": "Function", "points": [[2, 0], [0, 0], [1, 2]]}'::pipeline;
SELECT trace('{"type": "Function", "points": [[2, 0], [0, 0], [1, 2]]}', '{0.5, 1.5}');
-- Beyond float8 from finite inputs is float8's overflow error:
-- 1e308 * 10.
SELECT mo_try($$SELECT trace('{"type": "Function", "points": [[0, 0], [1, 1e308]]}', '{10}')$$);
-- What is refused.
SELECT try_spec(s) FROM (VALUES
  ('{"type": "Function"}'),
  ('{"type": "Function", "points": [[0, 0]]}'),
  ('{"type": "Function", "points": 5}'),
  ('{"type": "Function", "points": [[0, 0], [1]]}'),
  ('{"type": "Function", "points": [[0, 0], [1, "a"]]}'),
  ('{"type": "Function", "points": [[0, 0], [1, 2], [0, 1]]}')) AS t(s);

-- ---- ResamplerHermite: a cubic through the last four rows, read on a
-- grid of time ----

-- Interval 6 s, rows on y = (t / 8)^2 at 0, 8, 16, 24 s (0, 1, 4, 9).
-- The fourth row makes the span 8 s to 16 s readable; the grid starts at
-- its start, 8 s, and the latest grid point in it is 14 s: mu = 6/8 =
-- 0.75, tangents (4 - 0)/2 = 2 and (9 - 1)/2 = 4; h00 = 0.15625, h10 =
-- 0.046875, h01 = 0.84375, h11 = -0.140625: 0.15625 + 0.09375 + 3.375 -
-- 0.5625 = 3.0625 = (14/8)^2 (the spline is exact on a parabola of even
-- steps).  32 s (16): span 16..24 s, grid point 20 s, mu 0.5, tangents 4
-- and 6: 2 + 0.5 + 4.5 - 0.75 = 6.25 = (20/8)^2.  40 s (25): span 24..32
-- s, grid points 26 and 32 s; the latest, 32 s, is the row's value, 16.
-- 41 s (0): span 32..40 s, grid point 38 s, mu 0.75, values 9, 16, 25, 0,
-- tangents 8 and -8: 2.5 + 0.375 + 21.09375 + 1.125 = 25.09375.  A second
-- row at 41 s (7) replaces the first: no new span, the port keeps
-- 25.09375.
SELECT mo_trace_at('{"type": "ResamplerHermite", "interval": "6 s"}',
                   '{0, 8, 16, 24, 32, 40, 41, 41}', '{0, 1, 4, 9, 16, 25, 0, 7}');
-- The original's first scenario: interval 5 s, rows at 0, 2, 4, 6 s with
-- 0, 4, 8, 12: the span 2..4 s holds the grid point 2 s alone, mu 0: the
-- row's value there, 4.
SELECT mo_trace_at('{"type": "ResamplerHermite", "interval": "5 s"}', '{0, 2, 4, 6}', '{0, 4, 8, 12}');
-- With t0 10 s after the rows' midnight (1767225610 s after the Unix
-- epoch): rows at 8, 9, 11, 12 s with 16, 18, 22, 24; the span 9..11 s
-- starts before t0, so the grid starts at t0, 10 s: mu 0.5, tangents 3
-- and 3: 9 + 0.375 + 11 - 0.375 = 20.
SELECT mo_trace_at('{"type": "ResamplerHermite", "interval": "5 s", "t0": 1767225610}',
                   '{8, 9, 11, 12}', '{16, 18, 22, 24}');
-- t0 at midnight, rows at 1, 3, 7, 11, 12 s with their times as values:
-- the first span, 3..7 s, reads the first grid point at or after 3 s, 5 s
-- (the original starts at 0 s, before the span, and emits nothing ever):
-- mu 0.5, tangents (7 - 1)/2 = 3 and (11 - 3)/2 = 4: 1.5 + 0.375 + 3.5 -
-- 0.5 = 4.875 (the spline's tangents count per span, not per second: the
-- steps are uneven).  12 s: span 7..11 s, grid point 10 s, mu 0.75,
-- tangents 4 and 2.5: 1.09375 + 0.1875 + 9.28125 - 0.3515625 = 10.2109375.
SELECT mo_trace_at('{"type": "ResamplerHermite", "interval": "5 s", "t0": 1767225600}',
                   '{1, 3, 7, 11, 12}', '{1, 3, 7, 11, 12}');
SELECT '{"type": "ResamplerHermite", "interval": "1 min", "t0": 1767225600.5}'::pipeline;
-- A boundary empties its rows: segment a emits 3.0625 (as above), segment
-- b's three rows make no span, and the punctuation closing b emits
-- nothing.
SELECT i, segment_agg(at(s), v, k, '{"type": "ResamplerHermite", "interval": "6 s"}') OVER (ORDER BY i)
FROM (VALUES (1, 0, 0, 'a'), (2, 8, 1, 'a'), (3, 16, 4, 'a'), (4, 24, 9, 'a'),
             (5, 30, 1, 'b'), (6, 31, 2, 'b'), (7, 32, 3, 'b'), (8, 33, NULL, 'c')) AS t(i, s, v, k);
-- Rows must come in the order of their timestamps.
SELECT mo_try($$SELECT mo_trace_at('{"type": "ResamplerHermite", "interval": "6 s"}', '{0, 8, 4}', '{1, 2, 3}')$$);
-- It needs the rows' timestamps.
SELECT mo_try($$SELECT segment_agg(v, 1, '{"type": "ResamplerHermite", "interval": "10 s"}') OVER (ORDER BY v)
                FROM (VALUES (1.0)) AS t(v)$$);
SELECT try_spec(s) FROM (VALUES
  ('{"type": "ResamplerHermite"}'),
  ('{"type": "ResamplerHermite", "interval": 5}'),
  ('{"type": "ResamplerHermite", "interval": "5 s", "t0": "2026-01-01"}'),
  ('{"type": "ResamplerHermite", "interval": "5 s", "t0": -1e12}')) AS t(s);

-- ---- BurstAggregate: an aggregate per burst, runs of rows on which a
-- predicate keeps its value ----

-- The original's scenarios.  The aggregate is the running mean of lane 0
-- (INPUT 0, CUMSUM 0, COUNT 2, DIV, END), the predicate |lane 0| > 0
-- (INPUT 0, ABS, CONST 0, GT, END).  Rows 1, 2, 3, 4, 0: the 0 closes the
-- burst 1..4, whose mean 2.5 it emits.
CREATE TABLE mo_burst AS SELECT '{"type": "BurstAggregate", "aggBytecode": [0, 0, 21, 0, 22, 2, 5, 20],
  "segBytecode": [0, 0, 7, 1, 0, 26, 20], "segConstants": [0], "numAggOutputs": 1, "numInputCols": 1}'::pipeline AS spec;
SELECT mo_vtrace(spec, '{{1}, {2}, {3}, {4}, {0}}') FROM mo_burst;
SELECT spec FROM mo_burst;
-- Every change closes a burst: 1, 2, 3 (mean 2 on the row of 0), then 0
-- (mean 0 on the row of 10), then 10, 20 (mean 15 on the last row).
SELECT mo_vtrace(spec, '{{1}, {2}, {3}, {0}, {10}, {20}, {0}}') FROM mo_burst;
-- A burst of one row; no change, nothing emitted; two rows of 0 are one
-- burst: 3, 5 (mean 4), 0, 0 (mean 0), 10 (mean 10).
SELECT mo_vtrace(spec, '{{7.5}, {0}}') AS single,
       mo_vtrace(spec, '{{1}, {2}, {3}, {4}}') AS no_change,
       mo_vtrace(spec, '{{3}, {5}, {0}, {0}, {10}, {0}}') AS back_to_back
FROM mo_burst;
-- Key columns: rows [device, channel, amplitude], keys lanes 0 and 1,
-- amplitudes 2, 4, 6 (mean 4) closed by 0.
SELECT mo_vtrace('{"type": "BurstAggregate", "aggBytecode": [0, 2, 21, 0, 22, 2, 5, 20],
  "segBytecode": [0, 2, 7, 1, 0, 26, 20], "segConstants": [0], "keyColumns": [0, 1],
  "numAggOutputs": 1, "numInputCols": 3}', '{{7, 1, 2}, {7, 1, 4}, {7, 1, 6}, {7, 1, 0}}');
-- The keys are those of the row that closes the burst, as the original's:
-- [1, 5] then [2, 0] emits [2, 5].
SELECT mo_vtrace('{"type": "BurstAggregate", "aggBytecode": [0, 1, 20], "segBytecode": [0, 1, 20],
  "keyColumns": [0], "numAggOutputs": 1, "numInputCols": 2}', '{{1, 5}, {2, 0}}');
-- Without a predicate nothing closes a burst: nothing is emitted.
SELECT mo_vtrace('{"type": "BurstAggregate", "aggBytecode": [0, 0, 20], "numAggOutputs": 1, "numInputCols": 1}',
                 '{{1}, {0}, {2}}');
-- Two aggregates, the moving average of 2 rows (MA_UPDATE 2) and the
-- count: a row where the average has no value yet keeps the burst's
-- earlier aggregates, none here.  Rows 5 | 0 | 1, 3 | 0: the bursts 5 and
-- 0 close with no aggregate and emit nothing; 1, 3 gives [2, 2],
-- emitted by the last row.
SELECT mo_vtrace('{"type": "BurstAggregate", "aggBytecode": [0, 0, 35, 2, 20, 22, 0, 20],
  "segBytecode": [0, 0, 1, 0, 26, 20], "segConstants": [0], "numAggOutputs": 2, "numInputCols": 1}',
                 '{{5}, {0}, {1}, {3}, {0}}');
-- The predicate's values compare as float8: NaN equals NaN, so NaN, NaN
-- is one burst (count 2), closed by 1.
SELECT mo_vtrace('{"type": "BurstAggregate", "aggBytecode": [22, 0, 20], "segBytecode": [0, 0, 20],
  "numAggOutputs": 1, "numInputCols": 1}', '{{NaN}, {NaN}, {1}}');
-- A boundary drops the open burst: segment a's 1, 2 (open at its end) is
-- never emitted, and segment b's first row closes no burst; its 0 is
-- closed by 5 (mean 0), which b's end emits.
SELECT i, segment_agg(v, k, spec) OVER (ORDER BY i)
FROM mo_burst, (VALUES (1, '{1}'::float8[], 'a'), (2, '{2}', 'a'), (3, '{0}', 'b'), (4, '{5}', 'b'),
                       (5, NULL, 'c')) AS t(i, v, k);
-- A row shorter than numInputCols stops the run.
SELECT mo_try($$SELECT mo_vtrace('{"type": "BurstAggregate", "aggBytecode": [0, 0, 20],
  "numAggOutputs": 1, "numInputCols": 3}', '{{1, 2}}')$$);
-- The aggregate's windows count towards the state cap (64 MB): eight
-- MA_UPDATE windows of 1000000 values fit, nine do not.
SELECT n, r = 'ok' AS fits, r LIKE E'54000: pipeline state would be too large\n%' AS too_large
FROM (VALUES (8), (9)) AS t(n),
  LATERAL (SELECT try_spec(format('{"type": "BurstAggregate", "aggBytecode": %s, "numAggOutputs": %s, "numInputCols": 1}',
                                  (SELECT json_agg(x ORDER BY k, j) FROM generate_series(1, n) AS k,
                                          unnest(ARRAY[0, 0, 35, 1000000, 20]) WITH ORDINALITY AS u(x, j)), n)) AS r) AS c;
SELECT try_spec(s) FROM (VALUES
  ('{"type": "BurstAggregate", "numAggOutputs": 1, "numInputCols": 1}'),
  ('{"type": "BurstAggregate", "aggBytecode": [0, 0, 20], "numAggOutputs": 1, "numInputCols": 0}'),
  ('{"type": "BurstAggregate", "aggBytecode": [0, 0, 20], "numAggOutputs": 1, "numInputCols": 3, "keyColumns": [3]}'),
  ('{"type": "BurstAggregate", "aggBytecode": [0, 0, 20], "numAggOutputs": 1, "numInputCols": 3, "keyColumns": [0.5]}'),
  ('{"type": "BurstAggregate", "aggBytecode": [0, 0, 20], "numAggOutputs": 1024, "numInputCols": 3, "keyColumns": [0]}'),
  ('{"type": "BurstAggregate", "aggBytecode": [0, 3, 20], "numAggOutputs": 1, "numInputCols": 3}'),
  ('{"type": "BurstAggregate", "aggBytecode": [1, 0, 20], "numAggOutputs": 1, "numInputCols": 3}'),
  ('{"type": "BurstAggregate", "aggBytecode": [0, 0, 20], "segBytecode": [0, 0, 21, 0, 20], "numAggOutputs": 1, "numInputCols": 1}'),
  ('{"type": "BurstAggregate", "aggBytecode": [0, 0, 20], "segConstants": [1], "numAggOutputs": 1, "numInputCols": 1}'),
  ('{"type": "BurstAggregate", "aggBytecode": [0, 0, 20], "numAggOutputs": 2, "numInputCols": 1}')) AS t(s);

-- ---- States, stored and resumed ----

-- A run cut after any row and resumed from its stored pipeline's text ends
-- in the same state as the whole run, and the two parts' emissions are the
-- whole run's.  Rows 1..20 at 4, 8, 12, 12, 16, 20, 24, 24, 28, ... s
-- (i * 3 + i % 4), values (7i) mod 5, segments i / 6; the vector rows are
-- [value, i].
CREATE TABLE mo_rows AS
SELECT i, at(i * 3 + (i % 4)) AS ts, ((i * 7) % 5)::float8 AS v, ARRAY[((i * 7) % 5)::float8, i] AS vec,
       i / 6 AS k
FROM generate_series(1, 20) AS i;
CREATE TABLE mo_specs (name text, vector bool, spec pipeline);
INSERT INTO mo_specs VALUES
  ('hermite', false, '{"type": "ResamplerHermite", "interval": "4 s"}'),
  ('hermite_t0', false, '{"type": "ResamplerHermite", "interval": "5 s", "t0": 1767225601}'),
  ('function_count', false, '{"type": "Pipeline", "output_port_types": ["number", "number"],
    "operators": [{"type": "Function", "id": "f", "points": [[0, 1], [2, 5], [4, 3]]},
                  {"type": "CompareGT", "id": "gt", "value": 2},
                  {"type": "CountBoolean", "id": "n", "window": "7 s"}],
    "connections": [{"from": "f", "to": "gt"}, {"from": "gt", "to": "n"}],
    "entryOperator": "f", "outputMappings": {"f": {"o1": "o1"}, "n": {"o1": "o2"}}}'),
  ('burst_mean', true, '{"type": "BurstAggregate", "aggBytecode": [0, 0, 21, 0, 22, 2, 5, 20, 22, 3, 20],
    "segBytecode": [0, 0, 1, 0, 26, 20], "segConstants": [2], "keyColumns": [1], "numAggOutputs": 2, "numInputCols": 2}'),
  ('burst_window', true, '{"type": "BurstAggregate", "aggBytecode": [0, 0, 35, 2, 20, 22, 0, 20],
    "segBytecode": [0, 0, 1, 0, 26, 20], "segConstants": [2], "keyColumns": [1], "numAggOutputs": 2, "numInputCols": 2}');
-- mo_em(p), mo_vem(p): emissions(p) and vector_emissions(p) (a vector
-- port's values), as text.
CREATE FUNCTION mo_em(p pipeline) RETURNS text[] LANGUAGE sql
  AS $$ SELECT ARRAY(SELECT e::text FROM emissions(p) AS e) $$;
CREATE FUNCTION mo_vem(p pipeline) RETURNS text[] LANGUAGE sql
  AS $$ SELECT ARRAY(SELECT e::text FROM vector_emissions(p) AS e) $$;
-- mo_agg(spec, vector, lo, hi): pipeline_agg over rows lo..hi, of v or vec.
CREATE FUNCTION mo_agg(spec pipeline, vector bool, lo int, hi int) RETURNS pipeline LANGUAGE plpgsql AS $$
DECLARE
    r pipeline;
BEGIN
    IF vector THEN
        SELECT pipeline_agg(ts, vec, k, spec ORDER BY i) INTO r FROM mo_rows WHERE i BETWEEN lo AND hi;
    ELSE
        SELECT pipeline_agg(ts, v, k, spec ORDER BY i) INTO r FROM mo_rows WHERE i BETWEEN lo AND hi;
    END IF;
    RETURN r;
END $$;
-- emissions: the whole run's, one per output port holding a value at each
-- of the boundaries that close segments 0, 1 and 2: every spec emits at
-- each (function_count on both ports) but burst_window, whose segments 0
-- and 1 end in an open burst after bursts that had no moving average yet.
SELECT name, count(*) AS cuts,
       bool_and((whole::text::jsonb #- '{state,emissions}') = (resumed::text::jsonb #- '{state,emissions}')) AS same_state,
       bool_and(mo_em(first) || mo_em(resumed) = mo_em(whole) AND
                mo_vem(first) || mo_vem(resumed) = mo_vem(whole)) AS same_emissions,
       max((SELECT count(*) FROM emissions(whole))) AS emissions
FROM mo_specs, generate_series(1, 19) AS cut,
  LATERAL (SELECT mo_agg(spec, vector, 1, 20) AS whole, mo_agg(spec, vector, 1, cut) AS first) AS w,
  LATERAL (SELECT mo_agg(first::text::pipeline, vector, cut + 1, 20) AS resumed) AS r
GROUP BY name ORDER BY name;

-- The states as stored.  ResamplerHermite over the parabola's rows, as
-- traced above: the rows at 24, 32, 40 and 41 s (the later row at 41 s,
-- 7), next 44 s (the grid point after 38 s); microseconds since
-- 2000-01-01 UTC, at(0) being 820540800000000.
CREATE TABLE mo_state AS
SELECT (SELECT pipeline_agg(at(s), v, 1, '{"type": "ResamplerHermite", "interval": "6 s"}' ORDER BY i)
        FROM (VALUES (1, 0, 0), (2, 8, 1), (3, 16, 4), (4, 24, 9), (5, 32, 16), (6, 40, 25), (7, 41, 0),
                     (8, 41, 7)) AS t(i, s, v))::text AS hermite;
SELECT hermite::json -> 'state' -> 'operators' AS hermite_state, hermite::json -> 'state' -> 'buffer' AS buffer
FROM mo_state;
-- BurstAggregate after 1, 2, 3, 0, 10, 20, 0: the burst of the last 0 is
-- open (mean 0 of one row: CUMSUM's sum 0, COUNT 1), the port holds 15.
ALTER TABLE mo_state ADD burst text;
UPDATE mo_state SET burst = (SELECT pipeline_agg(at(i::int), ARRAY[x], 1, spec ORDER BY i)
  FROM mo_burst, unnest('{1, 2, 3, 0, 10, 20, 0}'::float8[]) WITH ORDINALITY AS t(x, i))::text;
SELECT burst::json -> 'state' -> 'operators' AS burst_state, burst::json -> 'state' -> 'buffer' AS buffer
FROM mo_state;

-- Hostile states are refused.
SELECT label, mo_try(format('SELECT %L::pipeline', replace(hermite, old, new)))
FROM mo_state, (VALUES
  ('as written', '', ''),
  ('n is 5', '"n": 4', '"n": 5'),
  ('n is 3', '"n": 4', '"n": 3'),
  ('times not increasing', '"time1": 820540832000000', '"time1": 820540824000000'),
  ('time not a timestamp', '"time3": 820540841000000', '"time3": 9223372036854775807'),
  ('next at t2', '"next": 820540844000000', '"next": 820540840000000'),
  ('next too far', '"next": 820540844000000', '"next": 820540847000000'),
  ('four values short', '[9, 16, 25, 7]', '[9, 16, 25]')) AS c(label, old, new);
-- With t0 at 10 s: after rows at 8, 9, 11, 12 s (as traced above) next
-- is 15 s; 14 s is not on t0's grid.
SELECT mo_try($$SELECT '{"type": "ResamplerHermite", "interval": "5 s", "t0": 1767225610, "state": {"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:12+00", "rows": 4, "discarded": 0, "late": 0, "buffer": [20], "operators": {"op1": {"n": 4, "next": 820540815000000, "time0": 820540808000000, "time1": 820540809000000, "time2": 820540811000000, "time3": 820540812000000, "values": [16, 18, 22, 24]}}, "emissions": []}}'::pipeline$$) AS on_grid,
       mo_try($$SELECT '{"type": "ResamplerHermite", "interval": "5 s", "t0": 1767225610, "state": {"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:12+00", "rows": 4, "discarded": 0, "late": 0, "buffer": [20], "operators": {"op1": {"n": 4, "next": 820540814000000, "time0": 820540808000000, "time1": 820540809000000, "time2": 820540811000000, "time3": 820540812000000, "values": [16, 18, 22, 24]}}, "emissions": []}}'::pipeline$$) AS off_grid;
SELECT label, mo_try(format('SELECT %L::pipeline', replace(burst, old, new)))
FROM mo_state, (VALUES
  ('as written', '', ''),
  ('seen is 2', '"seen": 1', '"seen": 2'),
  ('valid is 2', '"valid": 1', '"valid": 2'),
  ('a count below 0', '"agg/COUNT@5/n": 1', '"agg/COUNT@5/n": -1'),
  ('two aggregates', '"aggregates": [0]', '"aggregates": [0, 0]')) AS c(label, old, new);
SELECT mo_try(format('SELECT %L::pipeline', replace(replace(burst, '"valid": 1', '"valid": 0'), '"aggregates": [0]', '"aggregates": [3]'))) AS aggregates_without_valid,
       mo_try(format('SELECT %L::pipeline', replace(replace(burst, '"seen": 1', '"seen": 0'), '"predicate": 0', '"predicate": 1'))) AS predicate_before_a_row
FROM mo_state;
