-- Carried values (docs/reference.md, "Carried values"): with "carry" the
-- time operators begin a segment at the instant the one before ended, with
-- the signal's value there, and end it at the closing row's timestamp.
-- Each result is shown beside the value worked out by hand from the rule
-- (the column "hand"); "same" compares them exactly.
\pset format unaligned
\pset null null
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET extra_float_digits = 0;

-- Readings in hours of the 1st to the 3rd of January (UTC): 2 at 06:00 and
-- 4 at 12:00 on the 1st, none on the 2nd, 1 at 06:00 on the 3rd; and a
-- counter: 10 and 15 on the 1st, 3 (a reset) and 5 on the 3rd, at the same
-- times.  Heartbeats (punctuation rows) at each midnight, keyed by the day
-- they open.
CREATE TABLE rd (h int, v float8, c float8);
INSERT INTO rd VALUES (6, 2, 10), (12, 4, 15), (54, 1, 3), (60, NULL, 5);
CREATE FUNCTION at_h(h int) RETURNS timestamptz IMMUTABLE LANGUAGE sql
  AS $$ SELECT timestamptz '2026-01-01 00:00+00' + h * interval '1 hour' $$;
CREATE VIEW rows_hb AS
  SELECT at_h(h) AS ts, v, c, (h / 24) + 1 AS day, 1 AS o FROM rd
  UNION ALL SELECT at_h(d * 24), NULL, NULL, d + 1, 0 FROM generate_series(0, 3) AS d;
CREATE FUNCTION daily(spec pipeline, counter bool DEFAULT false)
  RETURNS TABLE (day text, value float8) LANGUAGE sql AS $$
  SELECT e.key, e.value
  FROM (SELECT pipeline_agg(ts, CASE WHEN counter THEN c ELSE v END, day, spec ORDER BY ts, o) AS p
        FROM rows_hb WHERE o = 0 OR (CASE WHEN counter THEN c ELSE v END) IS NOT NULL) AS r,
       emissions(r.p) AS e
$$;

-- TimeWeightedAverage locf.  Without carry (as always): the 1st spans 06:00
-- to 12:00, (2 x 6) / 6 = 2; the 3rd's one reading spans no time.  With
-- carry: the 1st still starts at its first reading (nothing to carry in)
-- and ends at midnight: (2 x 6 + 4 x 12) / 18 = 10/3; the 2nd is empty,
-- and with fill it is 4 all day; the 3rd begins with the 4 carried in:
-- (4 x 6 + 1 x 18) / 24 = 1.75.
SELECT d.day, d.value, h.hand, d.value = h.hand AS same
FROM daily('{"type": "TimeWeightedAverage", "method": "locf"}') AS d
     NATURAL FULL JOIN (VALUES ('1', 2.0::float8)) AS h(day, hand) ORDER BY 1;
SELECT d.day, d.value, h.hand, d.value = h.hand AS same
FROM daily('{"type": "TimeWeightedAverage", "method": "locf", "carry": "locf"}') AS d
     NATURAL FULL JOIN (VALUES ('1', 10 / 3.0::float8), ('3', 1.75)) AS h(day, hand) ORDER BY 1;
SELECT d.day, d.value, h.hand, d.value = h.hand AS same
FROM daily('{"type": "TimeWeightedAverage", "method": "locf", "carry": "locf", "fill": true}') AS d
     NATURAL FULL JOIN (VALUES ('1', 10 / 3.0::float8), ('2', 4), ('3', 1.75)) AS h(day, hand) ORDER BY 1;

-- linear, carried linearly.  A heartbeat brings no reading, so the value
-- is held flat from the last reading to the edge: the 1st is the trapezoid
-- (2 + 4) / 2 x 6 = 18 and 4 x 12 = 48, 66 / 18 = 11/3; the 2nd 4; the 3rd
-- begins at 4 and runs linearly to 1 at 06:00, (4 + 1) / 2 x 6 = 15, then 1
-- x 18: 33 / 24 = 1.375.  Integral per hour: 66, 96, 33 (195 in all).
SELECT d.day, d.value, h.hand, d.value = h.hand AS same
FROM daily('{"type": "TimeWeightedAverage", "method": "linear", "carry": "linear", "fill": true}') AS d
     NATURAL FULL JOIN (VALUES ('1', 11 / 3.0::float8), ('2', 4), ('3', 1.375)) AS h(day, hand) ORDER BY 1;
SELECT d.day, d.value, h.hand, d.value = h.hand AS same
FROM daily('{"type": "Integral", "unit": "1 hour", "carry": "linear", "fill": true}') AS d
     NATURAL FULL JOIN (VALUES ('1', 66.0::float8), ('2', 96), ('3', 33)) AS h(day, hand) ORDER BY 1;
-- locf carried into a linear average: the 3rd begins at 4, the edge's
-- value being the last reading: the same numbers here
SELECT d.day, d.value, h.hand, d.value = h.hand AS same
FROM daily('{"type": "TimeWeightedAverage", "method": "linear", "carry": "locf"}') AS d
     NATURAL FULL JOIN (VALUES ('1', 11 / 3.0::float8), ('3', 1.375)) AS h(day, hand) ORDER BY 1;

-- DurationTrue of v > 3, in hours: on the 1st true from 12:00 to midnight
-- (12), all of the 2nd (24, with fill), on the 3rd until 06:00 (6).
SELECT d.day, d.value, h.hand, d.value = h.hand AS same
FROM daily('{"type": "Pipeline", "operators": [{"id": "gt", "type": "CompareGT", "value": 3}, {"id": "on", "type": "DurationTrue", "unit": "1 hour", "carry": "locf", "fill": true}], "connections": [{"from": "gt", "to": "on"}], "entryOperator": "gt", "outputMappings": {"on": {"o1": "o1"}}}') AS d
     NATURAL FULL JOIN (VALUES ('1', 12.0::float8), ('2', 24), ('3', 6)) AS h(day, hand) ORDER BY 1;

-- Counters.  Without carry the 3rd counts from its own first reading: 5 -
-- 3 = 2.  Carried, it counts from the 1st's last reading, 15: 3 is a reset
-- (+3), then +2: 5; the 2nd, with fill, 0.  CounterRate per hour over the
-- segment's span to its end: 5 / 18, 0 / 24, 5 / 24.
SELECT d.day, d.value, h.hand, d.value = h.hand AS same
FROM daily('{"type": "CounterIncrease"}', true) AS d
     NATURAL FULL JOIN (VALUES ('1', 5.0::float8), ('3', 2)) AS h(day, hand) ORDER BY 1;
SELECT d.day, d.value, h.hand, d.value = h.hand AS same
FROM daily('{"type": "CounterIncrease", "carry": "locf", "fill": true}', true) AS d
     NATURAL FULL JOIN (VALUES ('1', 5.0::float8), ('2', 0), ('3', 5)) AS h(day, hand) ORDER BY 1;
SELECT d.day, d.value, h.hand, d.value = h.hand AS same
FROM daily('{"type": "CounterRate", "unit": "1 hour", "carry": "locf", "fill": true}', true) AS d
     NATURAL FULL JOIN (VALUES ('1', 5 / 18.0::float8), ('2', 0), ('3', 5 / 24.0)) AS h(day, hand) ORDER BY 1;

-- The window form, edges from the rows: without heartbeats a day is closed
-- by the next day's first reading, and ends there.  Readings 2 at 06:00, 4
-- at 12:00 on the 1st, 1 at 06:00 and 3 at 18:00 on the 2nd; the last row
-- closes the 2nd (close_at_end: at its own timestamp).  linear, carried:
-- the 1st runs from 06:00 to the 2nd's 06:00, where the line reaches the
-- closing reading 1: 18 + (4 + 1) / 2 x 18 = 63, / 24 = 2.625; the 2nd
-- from 06:00 to 18:00: (1 + 3) / 2 x 12 / 12 = 2.  Without carry the 1st
-- is 18 / 6 = 3.  locf, carried: the 1st (2 x 6 + 4 x 18) / 24 = 3.5.
-- With a punctuation row (a NULL value) at each midnight instead, the
-- days are the days: the 1st (2 x 6 + 4 x 12) / 18 = 10/3, the 2nd
-- (4 x 6 + 1 x 12 + 3 x 6) / 24 = 2.25 (closed by the heartbeat at the 3rd's
-- midnight, the last row).
CREATE TABLE w (h int, v float8);
INSERT INTO w VALUES (6, 2), (12, 4), (30, 1), (42, 3);
SELECT h, v,
       segment_agg(at_h(h), v, h / 24, '{"type": "TimeWeightedAverage", "method": "linear"}', true) OVER o AS plain,
       segment_agg(at_h(h), v, h / 24, '{"type": "TimeWeightedAverage", "method": "linear", "carry": "linear"}', true) OVER o AS linear,
       segment_agg(at_h(h), v, h / 24, '{"type": "TimeWeightedAverage", "method": "locf", "carry": "locf"}', true) OVER o AS locf
FROM w WINDOW o AS (ORDER BY h) ORDER BY h;
SELECT h, v, segment_agg(at_h(h), v, h / 24, '{"type": "TimeWeightedAverage", "method": "locf", "carry": "locf"}', true)
               OVER (ORDER BY h, v NULLS FIRST) AS locf
FROM (SELECT h, v FROM w UNION ALL SELECT d * 24, NULL FROM generate_series(0, 2) AS d) AS x
ORDER BY h, v NULLS FIRST;

-- A Berlin day of 23 hours: the 29th of March 2026 runs from 23:00 UTC on
-- the 28th to 22:00 UTC on the 29th.  Readings 1 at 12:00 UTC on the 28th
-- and 3 at 08:00 UTC on the 29th (10:00 in Berlin), heartbeats at the
-- local midnights.  Integral per hour, linear: the 28th (from its first
-- reading) 1 x 11 = 11; the 29th begins at 1 and reaches 3 after 9 hours,
-- (1 + 3) / 2 x 9 = 18, then 3 x 14 = 42: 60 (of 23 hours); its average
-- 60 / 23.
CREATE TABLE spring (ts timestamptz, v float8);
INSERT INTO spring VALUES ('2026-03-28 12:00+00', 1), ('2026-03-29 08:00+00', 3);
SELECT e.key, e.value, e.ts
FROM (SELECT pipeline_agg(ts, v, (ts AT TIME ZONE 'Europe/Berlin')::date, '{"type": "Integral", "unit": "1 hour", "carry": "linear"}' ORDER BY ts, v NULLS FIRST) AS p
      FROM (SELECT * FROM spring UNION ALL
            SELECT h, NULL FROM heartbeats('day', '2026-03-28 00:00+00', '2026-03-30 00:00+00', 'Europe/Berlin') AS h) AS x) AS r,
     emissions(r.p) AS e;
SELECT e.key, e.value, e.value = 60 / 23.0::float8 AS same
FROM (SELECT pipeline_agg(ts, v, (ts AT TIME ZONE 'Europe/Berlin')::date, '{"type": "TimeWeightedAverage", "method": "linear", "carry": "linear"}' ORDER BY ts, v NULLS FIRST) AS p
      FROM (SELECT * FROM spring UNION ALL
            SELECT h, NULL FROM heartbeats('day', '2026-03-28 00:00+00', '2026-03-30 00:00+00', 'Europe/Berlin') AS h) AS x) AS r,
     emissions(r.p) AS e WHERE e.key = '2026-03-29';

-- The carried value is state: after the heartbeat that opens the 2nd, the
-- state holds the 1st's last value (4) at the 2nd's midnight, "carried" 1.
-- The canonical text shows "carry" and "fill" only when given.
SELECT (pipeline_agg(ts, v, day, '{"type": "TimeWeightedAverage", "method": "locf", "carry": "locf", "fill": true}' ORDER BY ts, o))::text
FROM rows_hb WHERE ts <= at_h(24) AND (o = 0 OR v IS NOT NULL);
SELECT '{"type": "TimeWeightedAverage", "method": "locf", "carry": "none", "fill": false}'::pipeline::text;
-- Resumed from that state, the 2nd and 3rd come out as in one run.
SELECT e.key, e.value
FROM (SELECT pipeline_agg(ts, v, day, '{"type": "TimeWeightedAverage", "method": "locf", "carry": "locf", "fill": true}' ORDER BY ts, o) AS p
      FROM rows_hb WHERE ts <= at_h(24) AND (o = 0 OR v IS NOT NULL)) AS a,
     LATERAL (SELECT pipeline_agg(ts, v, day, a.p ORDER BY ts, o) AS p
              FROM rows_hb WHERE ts > at_h(24) AND (o = 0 OR v IS NOT NULL)) AS b,
     emissions(b.p) AS e;
-- flush(p, ts) ends the open segment at ts: the 3rd to 12:00 is
-- (4 x 6 + 1 x 6) / 12 = 2.5; a flush carries nothing (no key after it).
SELECT e.key, e.value, e.value = 2.5 AS same, pipeline_key(f)
FROM (SELECT flush(pipeline_agg(ts, v, day, '{"type": "TimeWeightedAverage", "method": "locf", "carry": "locf"}' ORDER BY ts, o), at_h(60)) AS f
      FROM rows_hb WHERE ts <= at_h(54) AND (o = 0 OR v IS NOT NULL)) AS r,
     emissions(r.f) AS e;

-- Refused: fill without carry; a boolean or a counter carried linearly; an
-- unknown word.  A stored state whose "carried" is not 0 or 1.
SELECT '{"type": "TimeWeightedAverage", "method": "locf", "fill": true}'::pipeline;
SELECT '{"type": "DurationTrue", "carry": "linear"}'::pipeline;
SELECT '{"type": "CounterIncrease", "carry": "linear"}'::pipeline;
SELECT '{"type": "CounterRate", "carry": "linear"}'::pipeline;
SELECT '{"type": "Integral", "carry": "nocb"}'::pipeline;
SELECT replace((pipeline_agg(ts, v, day, '{"type": "TimeWeightedAverage", "method": "locf", "carry": "locf"}' ORDER BY ts, o))::text,
               '"carried": 1', '"carried": 2')::pipeline
FROM rows_hb WHERE ts <= at_h(24) AND (o = 0 OR v IS NOT NULL);
SELECT replace((pipeline_agg(ts, c, day, '{"type": "CounterIncrease", "carry": "locf"}' ORDER BY ts, o))::text,
               '"carried": 1', '"carried": -1')::pipeline
FROM rows_hb WHERE ts <= at_h(24) AND (o = 0 OR c IS NOT NULL);

-- Maintained results with a watermark: the edges are the heartbeats it
-- applies (UTC midnights here).  A daily TimeWeightedAverage, carried and
-- filled.  Sensor 1: 2 at 06:00 on the 1st, 4 at 12:00 on the 1st, then
-- silent; at 03:00 on the 4th the watermark (1 hour) makes the midnights of
-- the 2nd, 3rd and 4th due: the 1st (2 x 6 + 4 x 12) / 18 = 10/3, the 2nd
-- and 3rd 4.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
CREATE TABLE mr (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('mr', 'sensor', 'ts', 'v', $$(ts AT TIME ZONE 'UTC')::date$$,
                        '{"type": "TimeWeightedAverage", "method": "locf", "carry": "locf", "fill": true}', 'mr_daily',
                        watermark => '1 hour', heartbeat_unit => 'day', heartbeat_zone => 'UTC');
INSERT INTO mr VALUES (1, at_h(6), 2), (1, at_h(12), 4);
SELECT segpipe_close_silent('mr_daily', at_h(75)) AS applied;
SELECT sensor, ts, key, value FROM mr_daily ORDER BY sensor, ts;
-- rows in results or in a run over readings and heartbeats but not both,
-- and states that differ from that run's (as text: the bytes)
CREATE FUNCTION mr_differences() RETURNS TABLE (results bigint, states bigint) LANGUAGE sql AS $$
	WITH run AS (
		SELECT x.sensor, pipeline_agg(x.ts, x.v, x.k, '{"type": "TimeWeightedAverage", "method": "locf", "carry": "locf", "fill": true}' ORDER BY x.ts, x.v, x.k) AS p
		FROM (SELECT sensor, ts, v, (ts AT TIME ZONE 'UTC')::date AS k FROM mr
		      UNION ALL SELECT sensor, ts, NULL, key FROM mr_daily_heartbeat) AS x
		GROUP BY x.sensor),
	expected AS (SELECT run.sensor, e.ts, e.key::date AS key, e.port, e.value FROM run, emissions(run.p) AS e),
	got AS (SELECT sensor, ts, key, port, value FROM mr_daily)
	SELECT (SELECT count(*) FROM ((SELECT * FROM expected EXCEPT ALL SELECT * FROM got)
	                              UNION ALL (SELECT * FROM got EXCEPT ALL SELECT * FROM expected)) AS d),
	       (SELECT count(*) FROM mr_daily_state AS s FULL JOIN run USING (sensor)
	        WHERE s.state::text IS DISTINCT FROM without_emissions(run.p)::text)
$$;
SELECT * FROM mr_differences();
-- A late reading, 1 at 18:00 on the 2nd, is corrected from the checkpoint
-- before the 2nd: the 2nd becomes (4 x 18 + 1 x 6) / 24 = 3.25 and the
-- carried 1 makes the 3rd 1.
INSERT INTO mr VALUES (1, at_h(42), 1);
SELECT sensor, ts, key, value FROM mr_daily ORDER BY sensor, ts;
SELECT * FROM mr_differences();
-- a rebuild leaves the same bytes
CREATE TABLE kept_state AS SELECT sensor, state::text AS state FROM mr_daily_state;
CREATE TABLE kept_checkpoint AS SELECT sensor, ts, state::text AS state FROM mr_daily_checkpoint;
SELECT segpipe_rebuild('mr_daily') AS sensors_rebuilt;
SELECT (SELECT count(*) FROM ((SELECT sensor, state::text FROM mr_daily_state EXCEPT SELECT * FROM kept_state)
                              UNION ALL (SELECT * FROM kept_state EXCEPT SELECT sensor, state::text FROM mr_daily_state)) AS d) AS states,
       (SELECT count(*) FROM ((SELECT sensor, ts, state::text FROM mr_daily_checkpoint EXCEPT SELECT * FROM kept_checkpoint)
                              UNION ALL (SELECT * FROM kept_checkpoint EXCEPT SELECT sensor, ts, state::text FROM mr_daily_checkpoint)) AS d) AS checkpoints,
       (SELECT count(*) FROM kept_checkpoint) AS checkpoints_kept;

-- Transitions: the edges of v > 3 by day (2 at 06:00 and 4 at 12:00 on the
-- 1st, 1 at 06:00 on the 3rd).  Carried, the 3rd begins true, and its
-- reading is a falling edge; the 2nd, filled, has none.  Without carry the
-- 3rd's one row only sets the state.
SELECT d.day, d.value, h.hand, d.value = h.hand AS same
FROM daily('{"type": "Pipeline", "operators": [{"id": "gt", "type": "CompareGT", "value": 3}, {"id": "n", "type": "Transitions", "portType": "boolean", "count": "falling", "carry": "locf", "fill": true}], "connections": [{"from": "gt", "to": "n"}], "entryOperator": "gt", "outputMappings": {"n": {"o1": "o1"}}}') AS d
     NATURAL FULL JOIN (VALUES ('1', 0.0::float8), ('2', 0), ('3', 1)) AS h(day, hand) ORDER BY 1;
SELECT d.day, d.value, h.hand, d.value = h.hand AS same
FROM daily('{"type": "Pipeline", "operators": [{"id": "gt", "type": "CompareGT", "value": 3}, {"id": "n", "type": "Transitions", "portType": "boolean", "count": "rising", "carry": "locf"}], "connections": [{"from": "gt", "to": "n"}], "entryOperator": "gt", "outputMappings": {"n": {"o1": "o1"}}}') AS d
     NATURAL FULL JOIN (VALUES ('1', 1.0::float8), ('3', 0)) AS h(day, hand) ORDER BY 1;
SELECT d.day, d.value, h.hand, d.value = h.hand AS same
FROM daily('{"type": "Pipeline", "operators": [{"id": "gt", "type": "CompareGT", "value": 3}, {"id": "n", "type": "Transitions", "portType": "boolean"}], "connections": [{"from": "gt", "to": "n"}], "entryOperator": "gt", "outputMappings": {"n": {"o1": "o1"}}}') AS d
     NATURAL FULL JOIN (VALUES ('1', 1.0::float8), ('3', 0)) AS h(day, hand) ORDER BY 1;
-- A state code by day, in the window form: 1 (A) at 06:00, 2 (B) at 09:00
-- and 15:00 on the 1st; 1 (A) at 03:00 and 3 (C) at 08:00 on the 2nd, then
-- NaN twice and 3 on the 3rd.  Changes: the 1st 1 (A to B); the 2nd,
-- carried, 2 (B to A at its first row, A to C), without carry 1; the 3rd,
-- carried, 2 (C to NaN, NaN to 3; NaN after NaN is no change), without 1.
-- Rising, carried: 1, 1 (A to C), 0 (NaN neither rises nor falls).
CREATE TABLE codes (h int, v float8);
INSERT INTO codes VALUES (6, 1), (9, 2), (15, 2), (27, 1), (32, 3), (50, 'NaN'), (51, 'NaN'), (52, 3);
SELECT h, v,
       segment_agg(v, h / 24, '{"type": "Transitions"}', true) OVER o AS plain,
       segment_agg(v, h / 24, '{"type": "Transitions", "carry": "locf"}', true) OVER o AS changes,
       segment_agg(v, h / 24, '{"type": "Transitions", "count": "rising", "carry": "locf"}', true) OVER o AS rising
FROM codes WINDOW o AS (ORDER BY h) ORDER BY h;
-- refused: carried linearly; a stored count above the rows seen
SELECT '{"type": "Transitions", "carry": "linear"}'::pipeline;
SELECT replace((pipeline_agg(ts, v, day, '{"type": "Transitions", "carry": "locf"}' ORDER BY ts, o))::text,
               '"transitions": 0', '"transitions": 1')::pipeline
FROM rows_hb WHERE ts <= at_h(24) AND (o = 0 OR v IS NOT NULL);

-- Inside a nested Pipeline the edges are the nested segments', here keyed
-- by the sign of the value: 1 at 00:00, 3 at 01:00 (+), -2 at 03:00 (-), 5
-- at 04:00 (+).  The outer pipeline's one segment emits, at the end, the
-- nested pipeline's latest emission: that of the (-) segment closed at
-- 04:00.  locf, carried: it runs from 03:00 to 04:00 at -2: -2 (the (+)
-- segment before it, 00:00 to 03:00, was (1 + 3 x 2) / 3).  linear,
-- carried: the line from -2 to the closing reading 5: 1.5.  Without carry
-- the (-) segment's one row spans no time, and the latest is the first
-- segment's (1 x 1) / 1 = 1.
SELECT segment_agg(at_h(h), v, 1, replace('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "in"}, {"type": "Sign", "id": "k"}, {"type": "Pipeline", "id": "p", "operators": [{"type": "TimeWeightedAverage", "id": "t", "method": "locf" CARRY}]}], "connections": [{"from": "in", "to": "k"}, {"from": "k", "to": "p", "toPort": "c1"}, {"from": "in", "to": "p"}], "entryOperator": "in", "outputMappings": {"p": {"o1": "o1"}}}', 'CARRY', c)::pipeline, true)
         OVER (PARTITION BY c ORDER BY h) AS twa, c
FROM (VALUES (0, 1.0::float8), (1, 3), (3, -2), (4, 5)) AS r(h, v),
     (VALUES (''), (', "carry": "locf"')) AS o(c)
ORDER BY c, h;
SELECT segment_agg(at_h(h), v, 1, '{"type": "Pipeline", "operators": [{"type": "Identity", "id": "in"}, {"type": "Sign", "id": "k"}, {"type": "Pipeline", "id": "p", "operators": [{"type": "TimeWeightedAverage", "id": "t", "method": "linear", "carry": "linear"}]}], "connections": [{"from": "in", "to": "k"}, {"from": "k", "to": "p", "toPort": "c1"}, {"from": "in", "to": "p"}], "entryOperator": "in", "outputMappings": {"p": {"o1": "o1"}}}', true)
         OVER (ORDER BY h) AS twa
FROM (VALUES (0, 1.0::float8), (1, 3), (3, -2), (4, 5)) AS r(h, v) ORDER BY h;

-- A closing row earlier than the segment's last row is an edge before its
-- end: refused as a row out of time order is (without carry a punctuation
-- row reaches no operator and this passes).
SELECT segment_agg(at_h(h), v, k, '{"type": "TimeWeightedAverage", "method": "locf", "carry": "locf"}') OVER (ORDER BY o)
FROM (VALUES (1, 5, 1.0::float8, 1), (2, 6, 2, 1), (3, 2, NULL, 2)) AS t(o, h, v, k);
SELECT segment_agg(at_h(h), v, k, '{"type": "TimeWeightedAverage", "method": "locf"}') OVER (ORDER BY o)
FROM (VALUES (1, 5, 1.0::float8, 1), (2, 6, 2, 1), (3, 2, NULL, 2)) AS t(o, h, v, k);

-- Resumed at every cut point: for each spec, the rows (readings and
-- heartbeats, in order) run whole, and split after each row, the second
-- part continuing from the first's stored state (through its text); the
-- emissions of the two parts together are the whole run's, and the final
-- states are the same text.  cuts: the cut points tried; bad: those that
-- differ.
CREATE TABLE cut_specs (n int, spec pipeline);
INSERT INTO cut_specs VALUES
  (1, '{"type": "TimeWeightedAverage", "method": "locf", "carry": "locf", "fill": true}'),
  (2, '{"type": "TimeWeightedAverage", "method": "linear", "carry": "linear", "fill": true}'),
  (3, '{"type": "Integral", "carry": "linear"}'),
  (4, '{"type": "CounterRate", "carry": "locf", "fill": true}'),
  (5, '{"type": "Transitions", "count": "falling", "carry": "locf", "fill": true}'),
  (6, '{"type": "Pipeline", "operators": [{"id": "gt", "type": "CompareGT", "value": 3}, {"id": "on", "type": "DurationTrue", "carry": "locf", "fill": true}], "connections": [{"from": "gt", "to": "on"}], "entryOperator": "gt", "outputMappings": {"on": {"o1": "o1"}}}');
CREATE TABLE cut_rows AS
SELECT row_number() OVER (ORDER BY ts, o) AS i, ts, v, day FROM rows_hb WHERE o = 0 OR v IS NOT NULL;
CREATE FUNCTION em(p pipeline) RETURNS text LANGUAGE sql AS $$
  SELECT coalesce(string_agg(e.ts || '/' || e.key || '/' || e.value, ' '), '') FROM emissions(p) AS e $$;
WITH whole AS (
  SELECT s.n, pipeline_agg(r.ts, r.v, r.day, s.spec ORDER BY r.i) AS p FROM cut_specs AS s, cut_rows AS r GROUP BY s.n),
parts AS (
  SELECT s.n, c.c,
         (SELECT pipeline_agg(r.ts, r.v, r.day, s.spec ORDER BY r.i) FROM cut_rows AS r WHERE r.i <= c.c)::text::pipeline AS p1
  FROM cut_specs AS s, generate_series(1, (SELECT count(*) - 1 FROM cut_rows)::int) AS c(c)),
resumed AS (
  SELECT x.n, x.c, x.p1,
         (SELECT pipeline_agg(r.ts, r.v, r.day, x.p1 ORDER BY r.i) FROM cut_rows AS r WHERE r.i > x.c) AS p2
  FROM parts AS x)
SELECT y.n, count(*) AS cuts,
       count(*) FILTER (WHERE trim(em(y.p1) || ' ' || em(y.p2)) IS DISTINCT FROM em(w.p)
                           OR without_emissions(y.p2)::text IS DISTINCT FROM without_emissions(w.p)::text) AS bad
FROM resumed AS y JOIN whole AS w USING (n) GROUP BY y.n ORDER BY y.n;
