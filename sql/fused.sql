-- FusedExpression: the original's RPN bytecode over number ports, one
-- output port per expression; and the original's Pipeline scenarios that
-- the other suites do not have.  Expected values by hand.
\pset format unaligned
\pset null 'null'

-- fused(ports, outputs, bytecode, constants, coefficients): a pipeline of
-- one FusedExpression whose output ports are the pipeline's, in order.
CREATE FUNCTION fused(ports int, outs int, code text, consts text DEFAULT '[]',
                      coeffs text DEFAULT '[]') RETURNS pipeline LANGUAGE sql AS $$
  SELECT format('{"type": "Pipeline", "output_port_types": %s, "operators": [{"type": "FusedExpression", "id": "f", "numPorts": %s, "numOutputs": %s, "bytecode": %s, "constants": %s, "coefficients": %s}], "entryOperator": "f", "outputMappings": {"f": {%s}}}',
                (SELECT json_agg('number'::text) FROM generate_series(1, outs)), ports, outs, code,
                consts, coeffs,
                (SELECT string_agg(format('"o%s": "o%s"', k, k), ', ') FROM generate_series(1, outs) AS k))::pipeline
$$;
-- fx_trace(spec, rows): per prefix of the rows (one array of port values
-- each), what the output ports hold after it, in one segment; '-' while
-- nothing was emitted.
CREATE FUNCTION fx_trace(spec pipeline, rows float8[]) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(coalesce(e::text, '-'), ' ' ORDER BY n)
  FROM (SELECT n, i, segment_agg(ARRAY(SELECT unnest(rows[i:i][:])), 1, spec, true)
                       OVER (PARTITION BY n ORDER BY i) AS e
        FROM generate_series(1, array_length(rows, 1)) AS n, generate_series(1, n) AS i) AS q
  WHERE i = n
$$;
CREATE FUNCTION fx_try(ports int, outs int, code text, consts text DEFAULT '[]',
                       coeffs text DEFAULT '[]') RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    detail text;
BEGIN
    PERFORM fused(ports, outs, code, consts, coeffs);
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' (' || nullif(detail, '') || ')', '');
END $$;

-- The original's example: three ports, two expressions, input 0 and input
-- 1 times input 2.  (42, 150, 200) gives 42 and 30000, (42, 155, 100) 42
-- and 15500.
SELECT fx_trace(fused(3, 2, '[0, 0, 20, 0, 1, 0, 2, 4, 20]'), '{{42, 150, 200}, {42, 155, 100}}');
-- Its canonical text; a spec without "constants" reads as one with none.
SELECT '{"type": "FusedExpression", "numPorts": 2, "numOutputs": 1, "bytecode": [0, 0, 0, 1, 4, 20]}'::pipeline;
SELECT '{"type": "FusedExpression", "numPorts": 2, "numOutputs": 1, "bytecode": [0, 0, 0, 1, 4, 20]}'::pipeline
     = '{"type": "FusedExpression", "numPorts": 2, "numOutputs": 1, "bytecode": [0, 0, 0, 1, 4, 20], "constants": []}'::pipeline AS same;

-- Arithmetic: a + b, a - b, a * b, a / b, a ^ b.  (7, 2): 9, 5, 14, 3.5,
-- 49; (2, -1): 1, 3, -2, -2, 0.5.  Every row emits: one segment's buffer
-- shows the last row's.
SELECT fx_trace(fused(2, 5, '[0, 0, 0, 1, 2, 20, 0, 0, 0, 1, 3, 20, 0, 0, 0, 1, 4, 20,
                              0, 0, 0, 1, 5, 20, 0, 0, 0, 1, 6, 20]'),
                '{{7, 2}, {2, -1}}');
-- ABS, SIGN, FLOOR, CEIL, ROUND, NEG of -2.5 and of 100: 2.5, -1, -3, -2,
-- -2 (half to even, as round(float8)), 2.5; then 100, 1, 100, 100, 100, -100.
SELECT fx_trace(fused(1, 6, '[0, 0, 7, 20, 0, 0, 15, 20, 0, 0, 16, 20, 0, 0, 17, 20,
                              0, 0, 18, 20, 0, 0, 19, 20]'),
                '{{-2.5}, {100}}');
-- SQRT of 16, LOG of 1, LOG10 of 100, EXP, SIN, COS, TAN of 0, from
-- constants [16, 1, 100, 0]: 4, 0, 2, 1, 0, 1, 0.
SELECT fx_trace(fused(1, 7, '[1, 0, 8, 20, 1, 1, 9, 20, 1, 2, 10, 20, 1, 3, 11, 20,
                              1, 3, 12, 20, 1, 3, 13, 20, 1, 3, 14, 20]', '[16, 1, 100, 0]'),
                '{{5}}');
-- Constants: a + 100 and a * 2 + 10; a = 5 gives 105 and 20.
SELECT fx_trace(fused(1, 2, '[0, 0, 1, 0, 2, 20, 0, 0, 1, 1, 4, 1, 2, 2, 20]', '[100, 2, 10]'),
                '{{5}}');
-- (a + b) * (a - b), SQRT(ABS(a)), ABS(a - b) + SQRT(c): (5, 3, 16) gives
-- 16, 2.23606797749979 (the square root of 5), 6.
SELECT fx_trace(fused(3, 3, '[0, 0, 0, 1, 2, 0, 0, 0, 1, 3, 4, 20, 0, 0, 7, 8, 20,
                              0, 0, 0, 1, 3, 7, 0, 2, 8, 2, 20]'),
                '{{5, 3, 16}}');
-- Comparisons GT, GTE, LT, LTE, EQ, NEQ of a and b, a AND b, a OR b, NOT a,
-- ordered as PostgreSQL orders float8 (NaN above every number, equal to
-- NaN); AND, OR and NOT take any non-zero value, NaN included, as true.
-- (1, 2): 0 0 1 1 0 1 1 1 0; (2, 2): 0 1 0 1 1 0 1 1 0; (NaN, 1): 1 1 0 0
-- 0 1 1 1 0; (NaN, NaN): 0 1 0 1 1 0 1 1 0; (0, 2): 0 0 1 1 0 1 0 1 1.
SELECT v AS "a, b", fx_trace(fused(2, 9, '[0, 0, 0, 1, 26, 20, 0, 0, 0, 1, 27, 20, 0, 0, 0, 1, 28, 20,
                                          0, 0, 0, 1, 29, 20, 0, 0, 0, 1, 30, 20, 0, 0, 0, 1, 31, 20,
                                          0, 0, 0, 1, 32, 20, 0, 0, 0, 1, 33, 20, 0, 0, 34, 20]'),
                             ARRAY[v]) AS "gt gte lt lte eq neq and or not"
FROM (VALUES ('{1, 2}'::float8[]), ('{2, 2}'), ('{NaN, 1}'), ('{NaN, NaN}'), ('{0, 2}')) AS t(v);
-- The original's checks that an argument is not taken for an opcode: CONST
-- 20 and INPUT 20 (the code of END) with numOutputs 1.
SELECT fx_trace(fused(1, 1, '[1, 20, 20]', (SELECT json_agg(k)::text FROM generate_series(0, 20) AS k)),
                '{{7}}') AS const_20,
       fx_trace(fused(21, 1, '[0, 20, 20]'),
                ARRAY[(SELECT array_agg(k) FROM generate_series(1, 21) AS k)]::float8[]) AS input_20;

-- Stateful opcodes: CUMSUM over 10, 20, 5 gives 10, 30, 35; COUNT 1, 2, 3;
-- MAX_AGG over 5, 3, 8 gives 5, 5, 8; MIN_AGG over 5, 8, 2 gives 5, 5, 2.
SELECT fx_trace(fused(1, 1, '[0, 0, 21, 0, 20]'), '{{10}, {20}, {5}}') AS cumsum,
       fx_trace(fused(1, 1, '[22, 0, 20]'), '{{10}, {20}, {5}}') AS count,
       fx_trace(fused(1, 1, '[0, 0, 23, 0, 20]'), '{{5}, {3}, {8}}') AS max_agg,
       fx_trace(fused(1, 1, '[0, 0, 24, 0, 20]'), '{{5}, {8}, {2}}') AS min_agg;
-- MAX_AGG starts from -Infinity and MIN_AGG from Infinity, in PostgreSQL's
-- order: MAX_AGG of NaN is NaN; MIN_AGG keeps Infinity until a number
-- comes.  STATE_LOAD reads a slot as the opcodes before it in the row left
-- it: on the first row the start, on the second what the first left.
SELECT fx_trace(fused(1, 4, '[25, 0, 20, 25, 1, 20, 0, 0, 23, 0, 20, 0, 0, 24, 1, 20]'),
                '{{NaN}, {3}}') AS "start max, start min, max, min";
-- A running mean, CUMSUM / COUNT: 10, 20, 30 give 10, 15, 20.  Two means
-- sharing one COUNT through STATE_LOAD, x and 2x: CUMSUM takes slots 0 and
-- 1, COUNT slot 2, the second CUMSUM slots 3 and 4: 10, 15, 20 and 20, 30,
-- 40.
SELECT fx_trace(fused(1, 1, '[0, 0, 21, 0, 22, 2, 5, 20]'), '{{10}, {20}, {30}}') AS mean,
       fx_trace(fused(1, 2, '[0, 0, 21, 0, 22, 2, 5, 20, 0, 0, 1, 0, 4, 21, 3, 25, 2, 5, 20]', '[2]'),
                '{{10}, {20}, {30}}') AS "mean, mean of 2x";
-- Mean, maximum and count of 10, 20, 5: (10, 10, 1), (15, 20, 2),
-- (11.666666666666666, 20, 3).
-- COUNT runs in the first expression, STATE_LOAD reads it in the third.
SELECT fx_trace(fused(1, 3, '[0, 0, 21, 0, 22, 4, 5, 20, 0, 0, 23, 2, 20, 25, 4, 20]'),
                '{{10}, {20}, {5}}') AS "mean, max, count";

-- The windowed opcodes are the operators of the same names: MA_UPDATE 2
-- over 1, 2, 3 gives nothing, then 1.5 and 2.5; DIFF over 5, 7, 4 gives
-- nothing, then 2 and -3; SIGN_CHANGE over 5, 7, 4, 4: nothing, 1, -1, 0.
SELECT fx_trace(fused(1, 1, '[0, 0, 35, 2, 20]'), '{{1}, {2}, {3}}') AS ma,
       fx_trace(fused(1, 1, '[0, 0, 38, 0, 20]'), '{{5}, {7}, {4}}') AS diff,
       fx_trace(fused(1, 1, '[0, 0, 39, 0, 20]'), '{{5}, {7}, {4}, {4}}') AS sign_change;
-- The oracle: MA_UPDATE, MSUM_UPDATE, STD_UPDATE, WIN_MIN, WIN_MAX of 4,
-- FIR_UPDATE over coefficients 1..3 of [9, 0.5, 0.25, 0.25] and
-- IIR_UPDATE over coefficients 1..2, b = [0.5] and a = [0.25], against MovingAverage, MovingSum, StandardDeviation, WindowMinMax,
-- the FIR and the IIR: equal on every prefix of 60 rows where the
-- FusedExpression emits (from the 4th row, when every window is full).
CREATE TABLE series AS SELECT i, round((100 * sin(i * 1.7) + i)::numeric, 3)::float8 AS v
FROM generate_series(1, 60) AS i;
CREATE TABLE oracle AS SELECT
  fused(1, 7, '[0, 0, 35, 4, 20, 0, 0, 36, 4, 20, 0, 0, 37, 4, 20, 0, 0, 40, 4, 20, 0, 0, 41, 4, 20,
                0, 0, 42, 1, 3, 20, 0, 0, 43, 1, 1, 1, 20]', '[]', '[9, 0.5, 0.25, 0.25]') AS f,
  '{"type": "Pipeline", "output_port_types": ["number", "number", "number", "number", "number", "number", "number"],
    "operators": [{"type": "Identity", "id": "in"},
                  {"type": "MovingAverage", "id": "ma", "window_size": 4},
                  {"type": "MovingSum", "id": "ms", "window_size": 4},
                  {"type": "StandardDeviation", "id": "sd", "window_size": 4},
                  {"type": "WindowMinMax", "id": "lo", "window_size": 4, "mode": "min"},
                  {"type": "WindowMinMax", "id": "hi", "window_size": 4, "mode": "max"},
                  {"type": "FiniteImpulseResponse", "id": "fir", "coeff": [0.5, 0.25, 0.25]},
                  {"type": "InfiniteImpulseResponse", "id": "iir", "b_coeffs": [0.5], "a_coeffs": [0.25]}],
    "connections": [{"from": "in", "to": "ma"}, {"from": "in", "to": "ms"}, {"from": "in", "to": "sd"},
                    {"from": "in", "to": "lo"}, {"from": "in", "to": "hi"}, {"from": "in", "to": "fir"},
                    {"from": "in", "to": "iir"}],
    "entryOperator": "in",
    "outputMappings": {"ma": {"o1": "o1"}, "ms": {"o1": "o2"}, "sd": {"o1": "o3"}, "lo": {"o1": "o4"},
                       "hi": {"o1": "o5"}, "fir": {"o1": "o6"}, "iir": {"o1": "o7"}}}'::pipeline AS ops;
SELECT count(*) AS prefixes, count(f) AS emitted, bool_and(f = o) AS same
FROM (SELECT n, i, segment_agg(ARRAY[v], 1, oracle.f, true) OVER w AS f,
             segment_agg(ARRAY[v], 1, oracle.ops, true) OVER w AS o
      FROM series, oracle, generate_series(1, 60) AS n WHERE i <= n
      WINDOW w AS (PARTITION BY n ORDER BY i)) AS q
WHERE i = n;
-- The IIR with a = [-0.5] is y = 0.5 x + 0.5 y': over 2, 4, 6 it gives 1,
-- 2.5, 4.25 (the a coefficients are the second of "coefficients" here).
SELECT fx_trace(fused(1, 1, '[0, 0, 43, 1, 1, 0, 20]', '[]', '[0.5, -0.5]'), '{{2}, {4}, {6}}') AS iir;

-- A value a window has not produced yet is absent: what is computed from
-- it is absent, a stateful opcode given it does not advance (as an
-- operator after a MovingAverage does not run), and the row emits nothing.
-- CUMSUM of MA_UPDATE 3 over 3, 6, 9, 12 sums the averages 6 and 9 only:
-- nothing, nothing, 6, 15.
SELECT fx_trace(fused(1, 1, '[0, 0, 35, 3, 21, 0, 20]'), '{{3}, {6}, {9}, {12}}') AS cumsum_of_ma;
-- Two expressions, one absent on the first row: the row emits neither.
-- x and DIFF x over 5, 7: nothing, then (7, 2).
SELECT fx_trace(fused(1, 2, '[0, 0, 20, 0, 0, 38, 0, 20]'), '{{5}, {7}}') AS "x, diff";
-- An absent value is not computed with: DIFF x / 0 is no error on the
-- first row, where DIFF produces nothing; on the second it is.
SELECT fx_trace(fused(1, 1, '[0, 0, 38, 0, 1, 0, 5, 20]', '[0]'), '{{5}}') AS first_row;
SELECT fx_trace(fused(1, 1, '[0, 0, 38, 0, 1, 0, 5, 20]', '[0]'), '{{5}, {7}}') AS second_row;

-- GATE: a row whose predicate is 0 emits nothing; the state advances all
-- the same, as the original's does.  x > 0 gates the running sum of 5, -1,
-- 3: 5, then nothing (the ports keep 5; the sum is 4), then 7.
SELECT fx_trace(fused(1, 1, '[0, 0, 1, 0, 26, 44, 0, 0, 21, 0, 20]', '[0]'), '{{5}, {-1}, {3}}') AS gated;

-- Numbers follow PostgreSQL's float8: the errors of SQL's operators.
SELECT fx_trace(fused(2, 1, '[0, 0, 0, 1, 5, 20]'), '{{1, 0}}');
SELECT fx_trace(fused(2, 1, '[0, 0, 0, 1, 5, 20]'), '{{NaN, 0}}') AS "NaN / 0";
SELECT fx_trace(fused(1, 1, '[0, 0, 8, 20]'), '{{-1}}');
SELECT fx_trace(fused(1, 1, '[0, 0, 0, 0, 2, 20]'), '{{1e308}}');
SELECT fx_trace(fused(1, 1, '[0, 0, 9, 20]'), '{{0}}');

-- Segments: the state resets at every boundary.  A running sum and count
-- over keys 1, 1, 1, 2, 2 (10, 20, 30, then 5, 7): row 4 emits (60, 3),
-- the end of the partition (12, 2).
SELECT i, segment_agg(ARRAY[v], k, fused(1, 2, '[0, 0, 21, 0, 20, 22, 2, 20]'), true) OVER (ORDER BY i)
FROM (VALUES (1, 10, 1), (2, 20, 1), (3, 30, 1), (4, 5, 2), (5, 7, 2)) AS t(i, v, k);

-- The state: each stateful opcode's, as its operator's, named
-- "<opcode>@<element>/<field>".  After 3, 6, 9: the sum 18 (CUMSUM at
-- element 3), the count 3, the maximum 9, DIFF's previous 9, MA_UPDATE 2's
-- window (6, 9) with its sum 15.
CREATE TABLE fx_spec AS SELECT fused(1, 5, '[0, 0, 21, 0, 20, 22, 2, 20, 0, 0, 23, 3, 20, 0, 0, 38, 4, 20,
                                            0, 0, 35, 2, 20]') AS spec;
SELECT pipeline_agg(at(i), ARRAY[v], 1, spec ORDER BY i)::text::jsonb -> 'state' -> 'operators' AS state
FROM fx_spec, (VALUES (1, 3), (2, 6), (3, 9)) AS t(i, v);
-- Resumed after any row through the text form: the same state and
-- emissions as the whole run, over 40 rows in segments of 1 to 9.
CREATE TABLE fx_rows AS SELECT i, (i * 37 % 23)::float8 - 11 AS v, (i * i) % 7 / 3 + i / 9 AS k
FROM generate_series(1, 40) AS i;
CREATE FUNCTION fx_em(p pipeline) RETURNS text[] LANGUAGE sql
  AS $$ SELECT ARRAY(SELECT e::text FROM emissions(p) AS e) $$;
SELECT count(*) AS cuts,
       bool_and((whole::text::jsonb #- '{state,emissions}') = (resumed::text::jsonb #- '{state,emissions}')) AS same_state,
       bool_and(fx_em(first) || fx_em(resumed) = fx_em(whole)) AS same_emissions,
       max(cardinality(fx_em(whole))) AS emissions
FROM fx_spec, generate_series(2, 40) AS cut,
  LATERAL (SELECT pipeline_agg(at(i), ARRAY[v], k, spec ORDER BY i) AS whole FROM fx_rows) AS w,
  LATERAL (SELECT pipeline_agg(at(i), ARRAY[v], k, spec ORDER BY i) AS first FROM fx_rows WHERE i < cut) AS f,
  LATERAL (SELECT pipeline_agg(at(i), ARRAY[v], k, first::text::pipeline ORDER BY i) AS resumed
           FROM fx_rows WHERE i >= cut) AS r;
-- Through the binary form (COPY binary), mid-segment: the same value back.
-- psql's \copy writes and reads the file (COPY TO STDOUT and FROM STDIN, the
-- same send and receive functions), in a directory of the client's own that
-- is removed again; \copy takes no variables, so it runs in that directory.
\set cwd `pwd`
\set dir `mktemp -d`
\cd :dir
CREATE TABLE fx_stored AS SELECT cut, pipeline_agg(at(i), ARRAY[v], k, spec ORDER BY i) AS p
FROM fx_spec, fx_rows, generate_series(5, 40, 5) AS cut WHERE i < cut GROUP BY cut;
\copy fx_stored TO 'fused.bin' (FORMAT binary)
CREATE TABLE fx_restored (LIKE fx_stored);
\copy fx_restored FROM 'fused.bin' (FORMAT binary)
\cd :cwd
\setenv SEGPIPE_TEST_DIR :dir
\! rm -rf "$SEGPIPE_TEST_DIR"
SELECT count(*) AS pipelines, bool_and(s.p = r.p AND s.p::text = r.p::text) AS same
FROM fx_stored s JOIN fx_restored r USING (cut);

-- A state that cannot be is refused, naming the opcode and its field.
CREATE FUNCTION fx_state_try(t text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    detail text;
BEGIN
    PERFORM t::pipeline;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' (' || nullif(detail, '') || ')', '');
END $$;
CREATE TABLE fx_state AS
SELECT pipeline_agg(at(i), ARRAY[v], 1, spec ORDER BY i)::text AS t
FROM fx_spec, (VALUES (1, 3), (2, 6), (3, 9)) AS t(i, v);
SELECT label, fx_state_try(replace(t, old, new))
FROM fx_state, (VALUES
  ('as written', '', ''),
  ('a count below 0', '"COUNT@6/n": 3', '"COUNT@6/n": -1'),
  ('a maximum not started, holding a value', '"MAX_AGG@11/n": 1', '"MAX_AGG@11/n": 0'),
  ('a maximum started twice', '"MAX_AGG@11/n": 1', '"MAX_AGG@11/n": 2'),
  ('DIFF seen 2', '"DIFF@16/seen": 1', '"DIFF@16/seen": 2'),
  ('DIFF not started, holding a value', '"DIFF@16/seen": 1', '"DIFF@16/seen": 0'),
  ('a sum not in its form', '"CUMSUM@3/sum_err": 0', '"CUMSUM@3/sum_err": 1'),
  ('a window of 3 values for MA_UPDATE 2', '"MA_UPDATE@21/values": [6, 9]', '"MA_UPDATE@21/values": [3, 6, 9]'),
  ('a NaN count the window does not hold', '"MA_UPDATE@21/nan": 0', '"MA_UPDATE@21/nan": 1'),
  ('a field renamed', '"COUNT@6/n"', '"COUNT@6/count"')) AS c(label, old, new);

-- What a bytecode may get wrong: every error names the element at fault.
SELECT code, fx_try(ports, outs, code, consts, coeffs) FROM (VALUES
  (2, 1, '[0, 0, 0, 1, 4, 20]', '[]', '[]'),             -- ok
  (1, 1, '[45, 20]', '[]', '[]'),                        -- not an opcode
  (1, 1, '[0, 0, 2.5, 20]', '[]', '[]'),                 -- nor is 2.5
  (1, 1, '[0]', '[]', '[]'),                             -- INPUT without its index
  (2, 1, '[0, 2, 20]', '[]', '[]'),                      -- past numPorts
  (1, 1, '[0, -1, 20]', '[]', '[]'),
  (1, 1, '[1, 0, 20]', '[]', '[]'),                      -- no constants
  (1, 1, '[1, 2, 20]', '[1, 2]', '[]'),                  -- past the constants
  (1, 1, '[0, 0, 2, 20]', '[]', '[]'),                   -- ADD on one value
  (1, 1, '[20]', '[]', '[]'),                            -- END on none
  (1, 1, '[0, 0, 0, 0, 20]', '[]', '[]'),                -- END on two
  (1, 1, '[0, 0, 20, 0, 0]', '[]', '[]'),                -- a last expression without END
  (1, 2, '[0, 0, 20]', '[]', '[]'),                      -- fewer ENDs than numOutputs
  (1, 1, '[0, 0, 20, 0, 0, 20]', '[]', '[]'),            -- more
  (1, 1, '[0, 0, 44, 0, 0, 20]', '[]', '[]'),            -- GATE then an expression: ok
  (1, 1, '[0, 0, 0, 0, 44, 0, 0, 20]', '[]', '[]'),      -- GATE on two values
  (1, 2, '[0, 0, 21, 0, 20, 0, 0, 23, 1, 20]', '[]', '[]'), -- slot 1 is CUMSUM's
  (1, 1, '[22, 65535, 20]', '[]', '[]'),                 -- the last slot: ok
  (1, 1, '[0, 0, 21, 65535, 20]', '[]', '[]'),           -- CUMSUM takes two
  (1, 1, '[25, 3, 20]', '[]', '[]'),                     -- nobody's slot
  (1, 1, '[0, 0, 21, 0, 25, 1, 2, 20]', '[]', '[]'),     -- CUMSUM's compensation
  (1, 1, '[0, 0, 38, 0, 25, 1, 2, 20]', '[]', '[]'),     -- DIFF's second slot: ok
  (1, 1, '[0, 0, 35, 0, 20]', '[]', '[]'),               -- a window of 0
  (1, 1, '[0, 0, 40, 1000001, 20]', '[]', '[]'),         -- too long
  (1, 1, '[0, 0, 42, 1, 3, 20]', '[]', '[1, 2, 3]'),     -- past the coefficients
  (1, 1, '[0, 0, 42, 0, 0, 20]', '[]', '[1]'),           -- FIR of none
  (1, 1, '[0, 0, 43, 1, 2, 0, 20]', '[]', '[1, 2]'),     -- IIR past them
  (1, 1, '[0, 0, 43, 1, 0, 0, 20]', '[]', '[1, 2]')      -- IIR without a: ok
) AS t(ports, outs, code, consts, coeffs);
-- 65 values on the stack; 64 are allowed.
SELECT fx_try(1, 1, '[' || repeat('0, 0, ', 64) || repeat('2, ', 63) || '20]') AS "64",
       fx_try(1, 1, '[' || repeat('0, 0, ', 65) || repeat('2, ', 64) || '20]') AS "65";
-- The operator's own parameters.
SELECT try_spec(s) FROM (VALUES
  ('{"type": "FusedExpression", "numPorts": 1, "numOutputs": 0, "bytecode": [0, 0, 20]}'),
  ('{"type": "FusedExpression", "numPorts": 0, "numOutputs": 1, "bytecode": [1, 0, 20], "constants": [1]}'),
  ('{"type": "FusedExpression", "numPorts": 1, "numOutputs": 1}'),
  ('{"type": "FusedExpression", "numPorts": 1, "numOutputs": 1, "bytecode": []}'),
  ('{"type": "FusedExpression", "numPorts": 1, "numOutputs": 1, "bytecode": [0, "0", 20]}')) AS t(s);
-- A FusedExpression's windows count towards the state cap: three of
-- 1000000 values are 24 MB, within it; nine are not.
SELECT fx_try(1, 1, '[0, 0, 35, 1000000, 35, 1000000, 35, 1000000, 20]') AS three,
       fx_try(1, 1, '[0, 0' || repeat(', 35, 1000000', 9) || ', 20]') AS nine;

-- Inside a nested Pipeline and from a prototype: the running mean per
-- shift of the hundreds (FLOOR(x / 100), as in the nested suite), rows
-- 101, 103, 205, 207, 109: shift 1's mean 102 emitted on row 3, shift 2's
-- 206 on row 5.
SELECT trace('{"type": "Pipeline",
  "prototypes": {"mean": {"parameters": [],
     "operators": [{"type": "FusedExpression", "id": "f", "numPorts": 1, "numOutputs": 1,
                    "bytecode": [0, 0, 21, 0, 22, 2, 5, 20]}],
     "connections": [], "entry": {"operator": "f"}, "output": {"operator": "f"}}},
  "operators": [{"type": "Identity", "id": "in"},
                {"type": "FusedExpression", "id": "shift", "numPorts": 1, "numOutputs": 1,
                 "bytecode": [0, 0, 1, 0, 5, 16, 20], "constants": [100]},
                {"type": "Pipeline", "id": "per_shift",
                 "operators": [{"id": "m", "prototype": "mean", "parameters": {}}],
                 "entryOperator": "m", "outputMappings": {"m": {"o1": "o1"}}}],
  "connections": [{"from": "in", "to": "shift"}, {"from": "shift", "to": "per_shift", "toPort": "c1"},
                  {"from": "in", "to": "per_shift"}],
  "entryOperator": "in", "outputMappings": {"per_shift": {"o1": "o1"}}}', '{101, 103, 205, 207, 109}');

-- ---- The original's Pipeline scenarios (its std and api tests), ported:
-- a key change closes the segment and emits what the ports hold, stamped
-- with the row that changes the key; that row is the next segment's first.

-- at_emissions(spec, rows of (t, v, k)): each emission as "t:value".
CREATE FUNCTION at_emissions(spec pipeline, rows float8[]) RETURNS text LANGUAGE sql AS $$
  SELECT coalesce(string_agg(format('%s:%s', (extract(epoch FROM e.ts) - 1767225600)::int, e.value), ' '
                             ORDER BY e.ts, e.port), 'none')
  FROM (SELECT pipeline_agg(at(rows[i][1]::int), rows[i][2], rows[i][3], spec ORDER BY i) AS p
        FROM generate_series(1, array_length(rows, 1)) AS i) AS a, emissions(a.p) AS e
$$;
-- A long sequence: sums 1 + 2 + 3 emitted at t = 4, 10 + 20 at t = 6,
-- 100 + 200 at t = 8 (the last segment, key 0, stays open).
SELECT at_emissions('{"type": "CumulativeSum"}',
  '{{1, 1, 1}, {2, 2, 1}, {3, 3, 1}, {4, 10, 0}, {5, 20, 0}, {6, 100, 1}, {7, 200, 1}, {8, 1, 0}}') AS long_sequence;
-- MaxTracker and MinTracker per segment (the original's RB-491): 90 then
-- 30; 10 then 60.
SELECT at_emissions('{"type": "MaxTracker"}', '{{1, 10, 1}, {2, 20, 1}, {3, 90, 1}, {4, 30, 0}, {5, 20, 0}, {6, 0, 1}}') AS max,
       at_emissions('{"type": "MinTracker"}', '{{1, 50, 1}, {2, 10, 1}, {3, 30, 1}, {4, 60, 0}, {5, 75, 0}, {6, 0, 1}}') AS min;
-- A mesh, CumulativeSum into CountNumber: the count, 3 at t = 4; over two
-- segments 2 at t = 3 and 3 at t = 6.
CREATE TABLE sum_count AS SELECT '{"type": "Pipeline", "operators": [{"type": "CumulativeSum", "id": "cumsum"}, {"type": "CountNumber", "id": "count"}], "connections": [{"from": "cumsum", "to": "count"}], "entryOperator": "cumsum", "outputMappings": {"count": {"o1": "o1"}}}'::pipeline AS spec;
SELECT at_emissions(spec, '{{1, 10, 1}, {2, 20, 1}, {3, 30, 1}, {4, 5, 0}}') AS one,
       at_emissions(spec, '{{1, 10, 1}, {2, 20, 1}, {3, 5, 0}, {4, 15, 0}, {5, 25, 0}, {6, 1, 1}}') AS two
FROM sum_count;
-- Keys that are not integers (1.5, 2.7, 3.14159): 30 at t = 3, 5 + 100 at
-- t = 5; day numbers as keys: 20 at t = 3000.
SELECT at_emissions('{"type": "CumulativeSum"}', '{{1, 10, 1.5}, {2, 20, 1.5}, {3, 5, 2.7}, {4, 100, 2.7}, {5, 200, 3.14159}}') AS fractional,
       at_emissions('{"type": "CumulativeSum"}', '{{1000, 5, 19814}, {2000, 15, 19814}, {3000, 1, 19815}}') AS day_numbers;
-- A key change while nothing is buffered emits nothing: MovingAverage(3)
-- of 10, 20 (key 1) emits nothing at t = 3; the next segment, 30, 40, 50,
-- emits their mean 40 at t = 6; keys changing on every row emit nothing.
SELECT at_emissions('{"type": "MovingAverage", "window_size": 3}', '{{1, 10, 1}, {2, 20, 1}, {3, 30, 0}, {4, 40, 0}, {5, 50, 0}, {6, 60, 1}}') AS empty_then_40,
       at_emissions('{"type": "MovingAverage", "window_size": 3}', '{{1, 10, 1}, {2, 20, 2}, {3, 30, 3}}') AS every_row;
-- A reset mid-segment (flush, which also emits what the ports hold, 30,
-- where the original's reset drops it): what follows counts from nothing,
-- 100 emitted at t = 4.
SELECT (SELECT string_agg(e.value::text, ' ') FROM emissions(flush(p)) AS e) AS flushed,
       (SELECT string_agg(e.value::text, ' ')
        FROM emissions(pipeline_agg(at(t), v, k, flush(p) ORDER BY t)) AS e) AS after
FROM (SELECT pipeline_agg(at(t), v, 1, '{"type": "CumulativeSum"}' ORDER BY t) AS p
      FROM (VALUES (1, 10), (2, 20)) AS r(t, v)) AS a,
     (VALUES (3, 100, 1), (4, 200, 0)) AS r(t, v, k)
GROUP BY p;
-- Serialized mid-segment and restored, the run continues as if never
-- stopped: CumulativeSum of 10, 20 restored, a key change at t = 3 emits 30.
SELECT at_emissions('{"type": "CumulativeSum"}', '{{1, 10, 1}, {2, 20, 1}, {3, 100, 0}}') AS whole,
       (SELECT string_agg(format('%s:%s', (extract(epoch FROM e.ts) - 1767225600)::int, e.value), ' ')
        FROM emissions((SELECT pipeline_agg(at(3), 100, 0, p::text::pipeline)
                        FROM (SELECT pipeline_agg(at(t), v, 1, '{"type": "CumulativeSum"}' ORDER BY t) AS p
                              FROM (VALUES (1, 10), (2, 20)) AS r(t, v)) AS a)) AS e) AS restored;
-- The original's program with a Pipeline of MovingAverage(3) into
-- MovingAverage(2), the key on the Input's second port, serialized at its
-- critical points: 10, 20, 30, 40 (key 1) buffer 25, emitted at t = 5; 50,
-- 60, 70, 80 (key 2) 65 at t = 9; 90, 100, 110, 120 (key 3) 105 at t = 13.
-- Restored after any row (as text), the emissions are the same.
CREATE TABLE ma_program AS SELECT '{"operators": [
    {"type": "Input", "id": "input1", "portTypes": ["number", "number"]},
    {"type": "Pipeline", "id": "pipeline1", "input_port_types": ["number"], "output_port_types": ["number"],
     "operators": [{"type": "MovingAverage", "id": "ma1", "window_size": 3},
                   {"type": "MovingAverage", "id": "ma2", "window_size": 2}],
     "connections": [{"from": "ma1", "to": "ma2", "fromPort": "o1", "toPort": "i1"}],
     "entryOperator": "ma1", "outputMappings": {"ma2": {"o1": "o1"}}},
    {"type": "Output", "id": "output1", "portTypes": ["number"]}],
  "connections": [{"from": "input1", "to": "pipeline1", "fromPort": "o1", "toPort": "i1"},
                  {"from": "input1", "to": "pipeline1", "fromPort": "o2", "toPort": "c1"},
                  {"from": "pipeline1", "to": "output1", "fromPort": "o1", "toPort": "i1"}],
  "entryOperator": "input1", "output": {"output1": ["o1"]}}'::pipeline AS spec;
CREATE TABLE ma_rows AS SELECT t, 10.0 * t AS v, (t - 1) / 4 + 1 AS k FROM generate_series(1, 13) AS t;
SELECT at_emissions(spec, (SELECT array_agg(ARRAY[t, v, k] ORDER BY t) FROM ma_rows)) FROM ma_program;
SELECT count(*) AS cuts, bool_and(em = whole) AS same
FROM ma_program, LATERAL (SELECT fx_em(pipeline_agg(at(t), v, k, spec ORDER BY t)) AS whole FROM ma_rows) AS w,
     generate_series(2, 13) AS cut,
     LATERAL (SELECT pipeline_agg(at(t), v, k, spec ORDER BY t) AS first FROM ma_rows WHERE t < cut) AS f,
     LATERAL (SELECT fx_em(first) || fx_em(pipeline_agg(at(t), v, k, first::text::pipeline ORDER BY t)) AS em
              FROM ma_rows WHERE t >= cut) AS r;

-- TimeShift is built (the timeshift suite): the rise over 5 s is accepted.
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "x"}, {"type": "TimeShift", "id": "lag", "shift": "5 s"}, {"type": "Subtraction", "id": "d"}], "connections": [{"from": "x", "to": "lag"}, {"from": "x", "to": "d", "toPort": "i1"}, {"from": "lag", "to": "d", "toPort": "i2"}], "entryOperator": "x", "outputMappings": {"d": {"o1": "o1"}}}');
-- The same in SQL: the value five minutes earlier joined in SQL, fed as
-- the second data port.  Readings every minute, 1 to 10 squared: the
-- differences over five minutes, from minute 6 on, are 35, 45, 55, 65, 75;
-- their running maximum at the end, 75.
SELECT segment_agg(ARRAY[a.v, b.v], 1, '{"type": "Pipeline", "operators": [{"type": "Subtraction", "id": "d"}, {"type": "MaxTracker", "id": "m"}], "connections": [{"from": "d", "to": "m"}], "entryOperator": "d", "outputMappings": {"m": {"o1": "o1"}}}', true)
         OVER (ORDER BY a.ts) AS max_rise
FROM (SELECT at(60 * m) AS ts, (m * m)::float8 AS v FROM generate_series(1, 10) AS m) AS a
JOIN (SELECT at(60 * m) AS ts, (m * m)::float8 AS v FROM generate_series(1, 10) AS m) AS b
  ON b.ts = a.ts - interval '5 minutes'
ORDER BY a.ts DESC LIMIT 1;
-- The same inside the pipeline: TimeShift gives, on each row, the reading
-- five minutes earlier; 75 again.
SELECT segment_agg(ts, v, 1, '{"type": "Pipeline", "operators": [{"type": "Identity", "id": "x"}, {"type": "TimeShift", "id": "lag", "shift": "5 minutes"}, {"type": "Subtraction", "id": "d"}, {"type": "MaxTracker", "id": "m"}], "connections": [{"from": "x", "to": "lag"}, {"from": "x", "to": "d", "toPort": "i1"}, {"from": "lag", "to": "d", "toPort": "i2"}, {"from": "d", "to": "m"}], "entryOperator": "x", "outputMappings": {"m": {"o1": "o1"}}}', true)
         OVER (ORDER BY ts) AS max_rise
FROM (SELECT at(60 * m) AS ts, (m * m)::float8 AS v FROM generate_series(1, 10) AS m) AS a
ORDER BY ts DESC LIMIT 1;
