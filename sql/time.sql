-- Operators that know time (docs/reference.md, "Time").  Expected values
-- are worked out by hand from the rules stated there.
\pset format unaligned
\pset null 'null'

-- segment_agg with the rows' timestamps first: for a pipeline that does not
-- use them, exactly the form without them.  Rows (ts in minutes, v, k):
-- segments k=1 (1, 2), k=2 (3, 4) closed by the last row with close_at_end.
SELECT ts, k,
       segment_agg(v, k, '{"type": "CumulativeSum"}', true) OVER w AS without_ts,
       segment_agg(t, v, k, '{"type": "CumulativeSum"}', true) OVER w AS with_ts,
       segment_agg(t, v, k, '{"type": "CumulativeSum"}') OVER w AS not_closed,
       segment_agg(t, ARRAY[v, -v], k, '{"type": "Pipeline", "input_port_types": ["number", "number"], "operators": [{"id": "a", "type": "Addition"}, {"id": "s", "type": "CumulativeSum"}], "connections": [{"from": "a", "to": "s"}], "entryOperator": "a", "outputMappings": {"s": {"o1": "o1"}}}', true) OVER w AS arr
FROM (VALUES (1, 1.0::float8, 1), (2, 2.0, 1), (3, 3.0, 2), (4, 4.0, 2)) AS r(ts, v, k),
     LATERAL (SELECT timestamptz '2026-01-01 00:00+00' + ts * interval '1 minute' AS t) AS x
WINDOW w AS (ORDER BY ts)
ORDER BY ts;

-- The array form without the option.
SELECT ts, segment_agg(t, ARRAY[v], k, '{"type": "CumulativeSum"}') OVER (ORDER BY ts) AS arr
FROM (VALUES (1, 1.0::float8, 1), (2, 2.0, 1), (3, 3.0, 2)) AS r(ts, v, k),
     LATERAL (SELECT timestamptz '2026-01-01 00:00+00' + ts * interval '1 minute' AS t) AS x
ORDER BY ts;

-- A NULL timestamp is an error, as in pipeline_agg, whatever the key.
SELECT segment_agg(NULL::timestamptz, 1.0::float8, 1, '{"type": "CumulativeSum"}') OVER ();
SELECT segment_agg(NULL::timestamptz, 1.0::float8, NULL::int, '{"type": "CumulativeSum"}') OVER ();
SELECT segment_agg(NULL::timestamptz, ARRAY[1.0::float8], 1, '{"type": "CumulativeSum"}') OVER ();

-- ---- Windows of time ----
-- The window at a row with timestamp t holds the rows with timestamps in
-- (t - w, t]; the operators emit on every row (min_rows 1).  Rows (i, s
-- seconds, v); with w = 5 seconds the windows are, by row:
--   1 (0 s): {1}          2 (1 s): {1, 2}        3 (1 s): {1, 2, 3}
--   4 (3 s): {1, 2, 3, 4} 5 (10 s): {5}          6 (10.5 s): {5, 6}
--   7 (15 s): {6, 8} (10 s is not in (10, 15])   8 (20 s): {7}
-- so sum, mean, sample standard deviation (0 for one value), min, max and
-- count are, by row:
--   1: 1, 1, 0, 1, 1, 1                 5: 5, 5, 0, 5, 5, 1
--   2: 3, 1.5, sqrt(1/2), 1, 2, 2       6: 11, 5.5, sqrt(1/2), 5, 6, 2
--   3: 6, 2, 1, 1, 3, 3                 7: 14, 7, sqrt(2), 6, 8, 2
--   4: 10, 2.5, sqrt(5/3), 1, 4, 4      8: 7, 7, 0, 7, 7, 1
-- Each prefix of the rows is a partition whose last row closes the
-- segment (close_at_end), so each shows the outputs at its last row.  The
-- durations are spelt in several ways.
CREATE TABLE tw (i int, s float8, v float8);
INSERT INTO tw VALUES (1, 0, 1), (2, 1, 2), (3, 1, 3), (4, 3, 4), (5, 10, 5),
  (6, 10.5, 6), (7, 15, 8), (8, 20, 7);
CREATE FUNCTION at(s float8) RETURNS timestamptz
  AS $$ SELECT timestamptz '2026-01-01 00:00+00' + s * interval '1 second' $$
  LANGUAGE sql IMMUTABLE;
CREATE TABLE six (p pipeline);
INSERT INTO six VALUES ('{"type": "Pipeline", "output_port_types": ["number", "number", "number", "number", "number", "number"], "operators": [{"id": "in", "type": "Identity"}, {"id": "sum", "type": "MovingSum", "window": "5 seconds"}, {"id": "avg", "type": "MovingAverage", "window": "5 s"}, {"id": "sd", "type": "StandardDeviation", "window": "00:00:05"}, {"id": "min", "type": "WindowMinMax", "window": "5000 ms", "mode": "min"}, {"id": "max", "type": "WindowMinMax", "window": "@ 5 secs", "mode": "max"}, {"id": "n", "type": "CountNumber", "window": "5000000 us"}], "connections": [{"from": "in", "to": "sum"}, {"from": "in", "to": "avg"}, {"from": "in", "to": "sd"}, {"from": "in", "to": "min"}, {"from": "in", "to": "max"}, {"from": "in", "to": "n"}], "entryOperator": "in", "outputMappings": {"sum": {"o1": "o1"}, "avg": {"o1": "o2"}, "sd": {"o1": "o3"}, "min": {"o1": "o4"}, "max": {"o1": "o5"}, "n": {"o1": "o6"}}}');
SELECT n, r FROM (
  SELECT n, segment_agg(at(s), ARRAY[v], 1, six.p, true) OVER (PARTITION BY n ORDER BY i) AS r
  FROM tw, six, generate_series(1, 8) AS n WHERE i <= n) AS q
WHERE r IS NOT NULL ORDER BY n;

-- The canonical text shows a window of time as HH:MM:SS (a day is 24
-- hours) with min_rows, and a window of rows exactly as before.
SELECT '{"type": "MovingAverage", "window": "1 day 2 hours 0.5 s", "min_rows": 3}'::pipeline;
SELECT '{"type": "MovingAverage", "window_size": 5}'::pipeline;
SELECT '{"type": "CountNumber"}'::pipeline;
SELECT '{"type": "WindowMinMax", "window": "1.5 hours", "mode": "max"}'::pipeline;

-- min_rows: WindowMinMax of the last 5 seconds, emitting from 2 rows on;
-- row 5 holds one row, so its segment (rows 1 to 5) keeps what row 4 gave
-- (min of {1, 2, 3, 4} = 1), and rows 1 to 6 give min {5, 6} = 5.
SELECT n, r FROM (
  SELECT n, segment_agg(at(s), v, 1, '{"type": "WindowMinMax", "window": "5 s", "mode": "min", "min_rows": 2}', true)
    OVER (PARTITION BY n ORDER BY i) AS r
  FROM tw, generate_series(1, 8) AS n WHERE i <= n) AS q
WHERE r IS NOT NULL ORDER BY n;
-- The same with MovingAverage, whose output is then computed on each row
-- that gives one: rows 1 to 5 keep row 4's 2.5; rows 1 to 8 keep row 7's 7.
SELECT n, r FROM (
  SELECT n, segment_agg(at(s), v, 1, '{"type": "MovingAverage", "window": "5 s", "min_rows": 2}', true)
    OVER (PARTITION BY n ORDER BY i) AS r
  FROM tw, generate_series(1, 8) AS n WHERE i <= n) AS q
WHERE r IS NOT NULL ORDER BY n;

-- A boundary resets the window: key 1 for rows 1 to 4, key 2 from row 5;
-- with a window of an hour, row 5 emits the sum of key 1's rows (10), and
-- the last row (8) closes key 2's window, which holds only its own rows:
-- 5 + 6 + 8 + 7 = 26 (36 without the reset).
SELECT i, segment_agg(at(s), v, CASE WHEN i <= 4 THEN 1 ELSE 2 END,
                      '{"type": "MovingSum", "window": "1 hour"}', true) OVER (ORDER BY i)
FROM tw ORDER BY i;
-- Non-finite values count as in the windows of rows: Infinity (1 s) and
-- NaN (2 s) make the sums, mean and standard deviation Infinity or NaN
-- while in the window, NaN is above every value for min and max; at 7 s
-- the window (2 s, 7 s] holds 2 and 3 only: 5, 2.5, sqrt(1/2), 2, 3, 2.
SELECT n, r FROM (
  SELECT n, segment_agg(at(s), ARRAY[v], 1, six.p, true) OVER (PARTITION BY n ORDER BY i) AS r
  FROM (VALUES (1, 0, 1), (2, 1, 'Infinity'::float8), (3, 2, 'NaN'), (4, 4, 2), (5, 7, 3)) AS t(i, s, v),
       six, generate_series(1, 5) AS n WHERE i <= n) AS q
WHERE r IS NOT NULL ORDER BY n;

-- pipeline_agg: the state holds the values, the timestamps of the oldest
-- and newest row held (microseconds since 2000-01-01 UTC: 2026-01-01
-- 00:00:10 is 820540810000000) and the gaps between the rows held.
SELECT pipeline_agg(at(s), v, 1, '{"type": "MovingSum", "window": "5 seconds"}' ORDER BY i) FROM tw WHERE i <= 6;
SELECT pipeline_agg(at(s), v, 1, '{"type": "WindowMinMax", "window": "5 seconds", "mode": "min", "min_rows": 2}' ORDER BY i) FROM tw WHERE i <= 6;
SELECT pipeline_agg(at(s), v, 1, '{"type": "CountNumber", "window": "5 seconds"}' ORDER BY i) FROM tw WHERE i <= 6;

-- Resume in the middle of a window, through the text form: rows 1 to 3
-- (two rows at 1 s held), then 4 to 8, equal the whole run for each of the
-- six outputs: the same text, state and all (no segment closed, so no
-- emissions), and the buffer holds row 8's outputs.
-- (test/integration/resume.py does the same through the binary forms.)
CREATE TABLE runs AS
SELECT (SELECT pipeline_agg(at(s), ARRAY[v], 1, six.p ORDER BY i) FROM tw) AS whole,
       (SELECT pipeline_agg(at(s), ARRAY[v], 1,
                            (SELECT pipeline_agg(at(s), ARRAY[v], 1, six.p ORDER BY i) FROM tw WHERE i <= 3)::text::pipeline
                            ORDER BY i)
        FROM tw WHERE i > 3) AS resumed
FROM six;
SELECT whole::text = resumed::text AS same_text, whole = resumed AS same_value,
       whole::text::jsonb -> 'state' -> 'buffer' AS buffer
FROM runs;
SELECT jsonb_pretty(whole::text::jsonb -> 'state' -> 'operators' -> 'sd') FROM runs;

-- ---- Errors ----
CREATE FUNCTION try_window(spec text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    msg text;
    det text;
    st text;
BEGIN
    PERFORM spec::pipeline;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL, st = RETURNED_SQLSTATE;
    RETURN st || ': ' || msg || coalesce(' / ' || nullif(det, ''), '');
END $$;
SELECT try_window('{"type": "MovingSum", "window_size": 3, "window": "5 s"}');
SELECT try_window('{"type": "MovingSum"}');
SELECT try_window('{"type": "StandardDeviation", "window_size": 3, "min_rows": 2}');
SELECT try_window('{"type": "CountNumber", "min_rows": 2}');
SELECT try_window('{"type": "MovingSum", "window": "5 s", "min_rows": 0}');
SELECT try_window('{"type": "MovingSum", "window": 5}');
SELECT try_window('{"type": "MovingSum", "window": "1 month"}');
SELECT try_window('{"type": "MovingSum", "window": "1 year 2 days"}');
SELECT try_window('{"type": "MovingSum", "window": "-5 minutes"}');
SELECT try_window('{"type": "MovingSum", "window": "5 minutes ago"}');
SELECT try_window('{"type": "MovingSum", "window": "0 s"}');
SELECT try_window('{"type": "MovingSum", "window": "5"}');
SELECT try_window('{"type": "MovingSum", "window": "5 fortnights"}');
SELECT try_window('{"type": "MovingSum", "window": ""}');
SELECT try_window('{"type": "MovingSum", "window": "00:61:00"}');
SELECT try_window('{"type": "MovingSum", "window": "100001 days"}');
SELECT try_window('{"type": "MovingSum", "window": "100000 days"}');
SELECT try_window('{"type": "MovingSum", "window": "99999999999999999999 s"}');
SELECT try_window('{"type": "MovingSum", "window": "5 s 01:00 02:00"}');
SELECT try_window('{"type": "MovingSum", "window": "01:"}');
SELECT try_window('{"type": "MovingSum", "window": "seconds"}');
-- a fraction is rounded to microseconds, as PostgreSQL rounds it
SELECT '{"type": "MovingSum", "window": "0.0000004 s"}'::pipeline;
SELECT '{"type": "MovingSum", "window": "0.0000015 s 1 w 1d 1h 1m 1s 1ms 1us"}'::pipeline;
-- a number before a time of day counts days: 2 days and 3 h 4 min 5.5 s
SELECT '{"type": "MovingSum", "window": "2 03:04:05.5"}'::pipeline;

-- The duration does not depend on IntervalStyle or DateStyle.
SET IntervalStyle = sql_standard;
SET DateStyle = 'SQL, DMY';
SELECT '{"type": "MovingSum", "window": "1 2:03:04"}'::pipeline::text =
       '{"type": "MovingSum", "window": "26:03:04"}'::pipeline::text AS same;
RESET IntervalStyle;
RESET DateStyle;

-- Without its timestamps, segment_agg refuses a pipeline that needs them.
SELECT segment_agg(v, 1, '{"type": "MovingSum", "window": "5 s"}') OVER (ORDER BY i) FROM tw;
SELECT segment_agg(ARRAY[v], 1, '{"type": "CountNumber", "window": "5 s"}') OVER (ORDER BY i) FROM tw;
-- ... and with them, rows must come in the order of their timestamps.
SELECT segment_agg(at(-s), v, 1, '{"type": "MovingSum", "window": "5 s"}') OVER (ORDER BY i) FROM tw;
-- Equal timestamps are in order; a row before the last is refused even
-- when the window has emptied.
SELECT segment_agg(at(s), v, 1, '{"type": "CountNumber", "window": "5 s"}') OVER (ORDER BY i)
FROM (VALUES (1, 0, 1), (2, 100, 1), (3, 99, 1)) AS t(i, s, v);

-- The state cap: eight windows of a million rows and one of 387777 leave
-- room for 100 rows in CountNumber's window of time; the 101st row within
-- the day is refused.
CREATE TABLE capped (p pipeline);
INSERT INTO capped SELECT ('{"type": "Pipeline", "operators": [{"id": "in", "type": "Identity"}, '
  || string_agg(format('{"id": "%s", "type": "MovingSum", "window_size": %s}', c, CASE WHEN c = 'j' THEN 387777 ELSE 1000000 END), ', ')
  || ', {"id": "n", "type": "CountNumber", "window": "1 day"}], "connections": ['
  || string_agg(format('{"from": "in", "to": "%s"}', c), ', ')
  || ', {"from": "in", "to": "n"}], "entryOperator": "in", "outputMappings": {"n": {"o1": "o1"}}}')::pipeline
FROM unnest(ARRAY['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'j']) AS c;
SELECT max(r) FROM (SELECT segment_agg(at(g), 1, 1, capped.p, true) OVER (ORDER BY g) AS r
                    FROM capped, generate_series(1, 100) AS g) AS q;
SELECT max(r) FROM (SELECT segment_agg(at(g), 1, 1, capped.p, true) OVER (ORDER BY g) AS r
                    FROM capped, generate_series(1, 101) AS g) AS q;
-- rows that leave make room: 200 rows a thousand seconds apart
SELECT max(r) FROM (SELECT segment_agg(at(g * 1000), 1, 1, capped.p, true) OVER (ORDER BY g) AS r
                    FROM capped, generate_series(1, 200) AS g) AS q;

-- Decoded states are checked: the gaps must add up to last - first, the
-- oldest row must be in the window of the newest, and the rings agree.
CREATE FUNCTION try_state(ops text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    msg text;
    det text;
    st text;
BEGIN
    PERFORM ('{"type": "MovingSum", "window": "5 seconds", "state": {"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:10.5+00", "rows": 6, "discarded": 0, "late": 0, "buffer": [11], "operators": {"op1": ' || ops || '}, "emissions": []}}')::pipeline;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL, st = RETURNED_SQLSTATE;
    RETURN st || ': ' || msg || ' / ' || coalesce(det, '');
END $$;
SELECT try_state('{"nan": 0, "pinf": 0, "ninf": 0, "sum": 11, "sum_err": 0, "values": [5, 6], "first": 820540810000000, "last": 820540810500000, "gaps": [0, 500000]}');
SELECT try_state('{"nan": 0, "pinf": 0, "ninf": 0, "sum": 11, "sum_err": 0, "values": [5, 6], "first": 820540810000000, "last": 820540810500000, "gaps": [0, 400000]}');
SELECT try_state('{"nan": 0, "pinf": 0, "ninf": 0, "sum": 11, "sum_err": 0, "values": [5, 6], "first": 820540805000000, "last": 820540810500000, "gaps": [0, 5500000]}');
SELECT try_state('{"nan": 0, "pinf": 0, "ninf": 0, "sum": 11, "sum_err": 0, "values": [5, 6], "first": 820540810000000, "last": 820540810500000, "gaps": [500000]}');
SELECT try_state('{"nan": 0, "pinf": 0, "ninf": 0, "sum": 11, "sum_err": 0, "values": [5, 6], "first": 820540810000000, "last": 820540810500000, "gaps": [0, 500000.5]}');
SELECT try_state('{"nan": 0, "pinf": 0, "ninf": 0, "sum": 11, "sum_err": 0, "values": [5, 6], "first": 820540810500000, "last": 820540810000000, "gaps": [0, -500000]}');
SELECT try_state('{"nan": 0, "pinf": 0, "ninf": 0, "sum": 0, "sum_err": 0, "values": [], "first": 1, "last": 1, "gaps": []}');
SELECT try_state('{"nan": 0, "pinf": 0, "ninf": 0, "sum": 11, "sum_err": 0, "values": [5, 6], "first": 820540810000000, "last": 820540810500000}');

-- ---- Operators over time ----
-- Rows at 0, 10, 10, 30, 60 s with values 1, 3, 5, 2, 4.  A value holds
-- from its row to the next row; rows at one timestamp count for no time
-- between them, and the last row's value for none yet.
--   locf: 1 x 10 + 3 x 0 + 5 x 20 + 2 x 30 = 170 over 60 s: 2.8333...
--   linear (trapezoids): (1+3)/2 x 10 + 0 + (5+2)/2 x 20 + (2+4)/2 x 30
--     = 20 + 70 + 90 = 180 over 60 s: 3
-- By row (prefixes): TimeWeightedAverage locf: none (no time spanned), 1,
-- 1, 110/30, 170/60; linear: none, 2, 2, 90/30 = 3, 3; Integral (seconds):
-- 0, 20, 20, 90, 180; Integral per minute: 0, 1/3, 1/3, 1.5, 3;
-- DurationTrue of v > 2 (false, true, true, false, true): the true at 10 s
-- holds 0 s, the next 20 s: 0, 0, 0, 20, 20.
CREATE TABLE area_spec (p pipeline);
INSERT INTO area_spec VALUES ('{"type": "Pipeline", "output_port_types": ["number", "number", "number", "number", "number"], "operators": [{"id": "in", "type": "Identity"}, {"id": "locf", "type": "TimeWeightedAverage", "method": "locf"}, {"id": "lin", "type": "TimeWeightedAverage", "method": "linear"}, {"id": "int", "type": "Integral"}, {"id": "intm", "type": "Integral", "unit": "1 minute"}, {"id": "gt", "type": "CompareGT", "value": 2}, {"id": "on", "type": "DurationTrue"}], "connections": [{"from": "in", "to": "locf"}, {"from": "in", "to": "lin"}, {"from": "in", "to": "int"}, {"from": "in", "to": "intm"}, {"from": "in", "to": "gt"}, {"from": "gt", "to": "on"}], "entryOperator": "in", "outputMappings": {"locf": {"o1": "o1"}, "lin": {"o1": "o2"}, "int": {"o1": "o3"}, "intm": {"o1": "o4"}, "on": {"o1": "o5"}}}');
CREATE TABLE ta (i int, s float8, v float8);
INSERT INTO ta VALUES (1, 0, 1), (2, 10, 3), (3, 10, 5), (4, 30, 2), (5, 60, 4);
SELECT n, r FROM (
  SELECT n, segment_agg(at(s), ARRAY[v], 1, area_spec.p, true) OVER (PARTITION BY n ORDER BY i) AS r
  FROM ta, area_spec, generate_series(1, 5) AS n WHERE i <= n) AS q
WHERE r IS NOT NULL ORDER BY n;
-- The canonical text: the unit is a second unless given.
SELECT '{"type": "Integral"}'::pipeline, '{"type": "DurationTrue", "unit": "1 h"}'::pipeline;
-- A boundary resets them: key 1 for rows 1 to 3, key 2 for rows 4 and 5.
-- Row 4 closes key 1 (locf 1, linear 2, 20, 1/3, 0); the last row closes
-- key 2: 2 held for 30 s (locf 2), trapezoid (2+4)/2 x 30 = 90 (linear 3,
-- 90, 1.5), false throughout (0).
SELECT i, segment_agg(at(s), ARRAY[v], CASE WHEN i <= 3 THEN 1 ELSE 2 END, area_spec.p, true) OVER (ORDER BY i)
FROM ta, area_spec ORDER BY i;
-- One row: no time spanned, so TimeWeightedAverage gives nothing; the
-- integral and the time true are 0.
SELECT segment_agg(at(0), ARRAY[5::float8], 1, area_spec.p, true) OVER () FROM area_spec;
-- Non-finite values count when they hold for some time: Infinity at 1 s
-- held 1 s (locf, linear and the integral Infinity); a NaN at 1 s replaced
-- at once holds for no time under locf ((1 + 2) / 2 s = 1.5) but is a
-- trapezoid's end under linear (NaN).
SELECT segment_agg(at(s), ARRAY[v], 1, area_spec.p, true) OVER (ORDER BY i)
FROM (VALUES (1, 0, 1), (2, 1, 'Infinity'::float8), (3, 2, 2)) AS t(i, s, v), area_spec ORDER BY i;
SELECT segment_agg(at(s), ARRAY[v], 1, area_spec.p, true) OVER (ORDER BY i)
FROM (VALUES (1, 0, 1), (2, 1, 'NaN'::float8), (3, 1, 2), (4, 2, 3)) AS t(i, s, v), area_spec ORDER BY i;
-- Rows in the order of their timestamps, a method given.
SELECT segment_agg(at(-s), v, 1, '{"type": "Integral"}') OVER (ORDER BY i) FROM ta;
SELECT try_window('{"type": "TimeWeightedAverage"}');
SELECT try_window('{"type": "TimeWeightedAverage", "method": "step"}');
SELECT try_window('{"type": "Integral", "unit": "1 month"}');
SELECT segment_agg(v, 1, '{"type": "Integral"}') OVER (ORDER BY i) FROM ta;
-- The state, and resume between the two rows at 10 s: the same text.
SELECT pipeline_agg(at(s), v, 1, '{"type": "TimeWeightedAverage", "method": "linear"}' ORDER BY i) FROM ta WHERE i <= 4;
SELECT pipeline_agg(at(s), (v > 2)::int, 1, '{"type": "DurationTrue"}' ORDER BY i) FROM ta WHERE i <= 4;
SELECT (SELECT pipeline_agg(at(s), ARRAY[v], 1, area_spec.p ORDER BY i) FROM ta)::text =
       (SELECT pipeline_agg(at(s), ARRAY[v], 1,
                            (SELECT pipeline_agg(at(s), ARRAY[v], 1, area_spec.p ORDER BY i) FROM ta WHERE i <= 2)::text::pipeline
                            ORDER BY i) FROM ta WHERE i > 2)::text AS same
FROM area_spec;

-- Against an exact computation in numeric: 40 series of 150 rows, gaps of
-- 0 to 12 units of 0.1 s (zeros make repeated timestamps), values of
-- several magnitudes (each a float8 that numeric holds exactly: few
-- digits, a power of two below).  TimeWeightedAverage (both methods) and
-- Integral per series, within 1e-15 relative of the exact value (all 40 of
-- each), and DurationTrue of v > 2 exactly; 37 series have all four
-- non-zero.
CREATE TABLE tx AS
SELECT sid, i, sum(((sid * 7 + i * i * 31) % 13) * 100000) OVER (PARTITION BY sid ORDER BY i) AS us,
       ((sid * 7717 + i * 5981) % 2003 - 1000)::float8 / (ARRAY[1024, 8, 1])[sid % 3 + 1] * 10 ^ (sid % 4) AS v
FROM generate_series(1, 40) AS sid, generate_series(1, 150) AS i;
CREATE TABLE tx_exact AS
SELECT sid, sum(v::numeric * d) / (max(us) - min(us)) AS locf,
       sum((v::numeric + nv::numeric) / 2 * d) / (max(us) - min(us)) AS linear,
       sum((v::numeric + nv::numeric) / 2 * d) / 1000000 AS integral,
       sum(CASE WHEN v > 2 THEN d ELSE 0 END) / 1000000.0 AS on_s
FROM (SELECT sid, us, v, lead(v) OVER w AS nv, coalesce(lead(us) OVER w - us, 0) AS d
      FROM tx WINDOW w AS (PARTITION BY sid ORDER BY i)) AS q
GROUP BY sid;
CREATE TABLE tx_got AS
SELECT sid, r[1] AS locf, r[2] AS linear, r[3] AS integral, r[5] AS on_s
FROM (SELECT sid, segment_agg(timestamptz '2026-01-01 00:00+00' + us * interval '1 microsecond', ARRAY[v], 1,
                              area_spec.p, true) OVER (PARTITION BY sid ORDER BY i) AS r
      FROM tx, area_spec) AS q
WHERE r IS NOT NULL;
-- (compared as float8: a float8 cast to numeric keeps 15 digits only; the
-- exact value cast to float8 is the nearest float8)
SELECT count(*) AS series,
       count(*) FILTER (WHERE abs(g.locf - e.locf::float8) <= 1e-15 * abs(e.locf::float8)) AS locf_ok,
       count(*) FILTER (WHERE abs(g.linear - e.linear::float8) <= 1e-15 * abs(e.linear::float8)) AS linear_ok,
       count(*) FILTER (WHERE abs(g.integral - e.integral::float8) <= 1e-15 * abs(e.integral::float8)) AS integral_ok,
       count(*) FILTER (WHERE g.on_s = e.on_s::float8) AS on_exact,
       count(*) FILTER (WHERE e.locf <> 0 AND e.linear <> 0 AND e.on_s > 0) AS nonzero,
       count(*) FILTER (WHERE v_exact) AS values_exact
FROM tx_got AS g JOIN tx_exact AS e USING (sid)
JOIN (SELECT sid, bool_and(v::numeric::float8 = v) AS v_exact FROM tx GROUP BY sid) AS x USING (sid);

-- ---- Counters ----
-- A hand-worked table (s, reading): a drop is a reset, after which the
-- reading itself is the increase since; no extrapolation.
--   s   reading  adds          increase  rate per second
--    0    10      (first)         0       (no time spanned)
--   10    15      15 - 10 = 5     5       5/10  = 0.5
--   20    15      0               5       5/20  = 0.25
--   30     3      reset: 3        8       8/30  = 0.2666...
--   40     8      8 - 3 = 5      13      13/40  = 0.325
--   40     2      reset: 2       15      15/40  = 0.375
--   60     7      7 - 2 = 5      20      20/60  = 0.3333...
-- and per minute at the end, 20.
CREATE TABLE tc (i int, s float8, v float8);
INSERT INTO tc VALUES (1, 0, 10), (2, 10, 15), (3, 20, 15), (4, 30, 3), (5, 40, 8), (6, 40, 2), (7, 60, 7);
CREATE TABLE counter_spec (p pipeline);
INSERT INTO counter_spec VALUES ('{"type": "Pipeline", "output_port_types": ["number", "number", "number"], "operators": [{"id": "in", "type": "Identity"}, {"id": "inc", "type": "CounterIncrease"}, {"id": "rate", "type": "CounterRate"}, {"id": "ratem", "type": "CounterRate", "unit": "1 min"}], "connections": [{"from": "in", "to": "inc"}, {"from": "in", "to": "rate"}, {"from": "in", "to": "ratem"}], "entryOperator": "in", "outputMappings": {"inc": {"o1": "o1"}, "rate": {"o1": "o2"}, "ratem": {"o1": "o3"}}}');
SELECT n, r FROM (
  SELECT n, segment_agg(at(s), ARRAY[v], 1, counter_spec.p, true) OVER (PARTITION BY n ORDER BY i) AS r
  FROM tc, counter_spec, generate_series(1, 7) AS n WHERE i <= n) AS q
WHERE r IS NOT NULL ORDER BY n;
-- CounterIncrease needs no timestamps; a boundary resets it: key 1 for rows
-- 1 to 4 (15 - 10 + 0 + 3 = 8), key 2 for rows 5 to 7 (reset to 2: 2, then
-- 7 - 2 = 5: 7).
SELECT i, segment_agg(v, CASE WHEN i <= 4 THEN 1 ELSE 2 END, '{"type": "CounterIncrease"}', true) OVER (ORDER BY i)
FROM tc ORDER BY i;
-- A NaN reading makes the increase NaN for the rest of the segment.
SELECT segment_agg(v, 1, '{"type": "CounterIncrease"}', true) OVER (ORDER BY i)
FROM (VALUES (1, 1), (2, 'NaN'::float8), (3, 5)) AS t(i, v) ORDER BY i;
-- State, and resume between the two rows at 40 s: the same text.
SELECT pipeline_agg(at(s), v, 1, '{"type": "CounterRate"}' ORDER BY i) FROM tc WHERE i <= 5;
SELECT (SELECT pipeline_agg(at(s), ARRAY[v], 1, counter_spec.p ORDER BY i) FROM tc)::text =
       (SELECT pipeline_agg(at(s), ARRAY[v], 1,
                            (SELECT pipeline_agg(at(s), ARRAY[v], 1, counter_spec.p ORDER BY i) FROM tc WHERE i <= 5)::text::pipeline
                            ORDER BY i) FROM tc WHERE i > 5)::text AS same
FROM counter_spec;

-- ---- Sessions ----
-- session_key(ts, gap): a new session where the time since the row before
-- is longer than gap (exactly gap keeps the session, as Flink's session
-- windows merge when they touch); the key is the session's first
-- timestamp.  Gap 10 minutes, rows at minutes 0, 5, 15 (10 after 5: same
-- session), 26 (11: new), 26, 40 (14: new), 40, and a NULL timestamp,
-- which has no session and changes nothing.
SELECT m, to_char(session_key(t, interval '10 minutes') OVER (ORDER BY i) AT TIME ZONE 'UTC', 'HH24:MI') AS session
FROM (VALUES (1, 0), (2, 5), (3, 15), (4, 26), (5, 26), (6, 40), (7, NULL), (8, 40)) AS r(i, m),
     LATERAL (SELECT timestamptz '2026-01-01 00:00+00' + m * interval '1 minute' AS t) AS x
ORDER BY i;
-- Per partition, and closing each session in an outer query: the
-- integral of each session of sensor a (0..5 min: values 1, 1; then 20..22
-- min: 2, 4, a trapezoid of 3 x 120 s = 360) and of sensor b (one
-- session: 5 at 0 min, 5 at 8 min, 480 s x 5 = 2400).
SELECT sensor, to_char(t AT TIME ZONE 'UTC', 'HH24:MI') AS at, area
FROM (SELECT sensor, t, segment_agg(t, v, s, '{"type": "Integral"}', true) OVER (PARTITION BY sensor ORDER BY t) AS area
      FROM (SELECT sensor, t, v, session_key(t, interval '10 minutes') OVER (PARTITION BY sensor ORDER BY t) AS s
            FROM (VALUES ('a', 0, 1), ('a', 5, 1), ('a', 20, 2), ('a', 22, 4), ('b', 0, 5), ('b', 8, 5)) AS r(sensor, m, v),
                 LATERAL (SELECT timestamptz '2026-01-01 00:00+00' + m * interval '1 minute' AS t) AS x) AS q) AS q2
WHERE area IS NOT NULL ORDER BY sensor, t;
-- Against plain SQL (lag and a running count of gaps longer than gap):
-- 3000 rows in 30 partitions, gaps of 0 to 12 minutes (gap: 10 minutes),
-- equal timestamps among them.  The same partition of the rows into
-- sessions, and each key the first timestamp of its session.
CREATE TABLE sess AS
SELECT p, i, timestamptz '2026-01-01 00:00+00'
             + sum(((p * 31 + i * i * 17) % 13) * interval '1 minute') OVER (PARTITION BY p ORDER BY i) AS t
FROM generate_series(1, 30) AS p, generate_series(1, 100) AS i;
CREATE TABLE sess_cmp AS
SELECT p, i, t, session_key(t, interval '10 minutes') OVER w AS k,
       sum(CASE WHEN lag IS NULL OR t - lag > interval '10 minutes' THEN 1 ELSE 0 END) OVER w AS n
FROM (SELECT p, i, t, lag(t) OVER (PARTITION BY p ORDER BY i) AS lag FROM sess) AS q
WINDOW w AS (PARTITION BY p ORDER BY i);
SELECT count(*) AS rows_, count(DISTINCT (p, n)) AS sessions, count(DISTINCT (p, k)) AS keys,
       count(*) FILTER (WHERE k = first_t) AS key_is_first
FROM (SELECT *, min(t) OVER (PARTITION BY p, n) AS first_t FROM sess_cmp) AS q;
SELECT count(*) AS pairs_in_both FROM (SELECT DISTINCT p, n, k FROM sess_cmp) AS q;
-- Errors.
SELECT session_key(t, interval '1 month') OVER () FROM (VALUES (now())) AS r(t);
SELECT session_key(t, interval '-1 minute') OVER () FROM (VALUES (now())) AS r(t);
SELECT session_key(t, NULL) OVER () FROM (VALUES (now())) AS r(t);
SELECT session_key(t, interval '1 minute') OVER (ORDER BY i)
FROM (VALUES (1, timestamptz '2026-01-01 00:10+00'), (2, timestamptz '2026-01-01 00:05+00')) AS r(i, t);

-- ---- Every form ----
-- A boundary resets every window of time: rows 1 and 2 under key 1, rows 3
-- and 4 under key 2.  Row 3 closes key 1 ({1, 2}: 3, 1.5, sqrt(1/2), 1, 2,
-- 2); the last row closes key 2, whose window at 3 s holds its own rows
-- only, {3, 4}: 7, 3.5, sqrt(1/2), 3, 4, 2 (one run would hold 1 to 4).
SELECT i, segment_agg(at(s), ARRAY[v], CASE WHEN i <= 2 THEN 1 ELSE 2 END, six.p, true) OVER (ORDER BY i)
FROM tw, six WHERE i <= 4 ORDER BY i;

-- Maintained on insert: the trigger runs pipeline_agg with the rows'
-- timestamps.  Sensor 1's hour 10:00 holds 1, 3, 5 at 10:00, 10:20 and
-- 10:40: TimeWeightedAverage linear (40 + 80) / 40 min = 3, emitted by the
-- reading at 11:05; the readings come in two statements, so the second
-- continues from the stored state, and the state then is what one run over
-- all the readings gives.
SET TimeZone = 'UTC';
CREATE TABLE readings (id bigserial PRIMARY KEY, sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', 'date_trunc(''hour'', ts)',
                        '{"type": "TimeWeightedAverage", "method": "linear"}', 'hourly');
INSERT INTO readings (sensor_id, ts, v) VALUES (1, '2026-03-01 10:00+00', 1), (1, '2026-03-01 10:20+00', 3);
INSERT INTO readings (sensor_id, ts, v) VALUES (1, '2026-03-01 10:40+00', 5), (1, '2026-03-01 11:05+00', 7);
SELECT * FROM hourly ORDER BY sensor_id, ts;
SELECT (SELECT split_part(state::text, ', "emissions": ', 1) FROM hourly_state WHERE sensor_id = 1) =
       (SELECT split_part(pipeline_agg(ts, v, date_trunc('hour', ts), '{"type": "TimeWeightedAverage", "method": "linear"}' ORDER BY ts)::text,
                          ', "emissions": ', 1)
        FROM readings) AS same_state_but_emissions;
SELECT segpipe_unmaintain('hourly', true);
RESET TimeZone;
