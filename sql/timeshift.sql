-- The original's TimeShift, new in 0.7.0: on the row at time T, the value
-- of the segment's row at exactly T - shift (the latest of them), nothing
-- when there is none.  The original's scenarios, the rise over 5 minutes
-- against a SQL self-join, equal timestamps, boundaries, the state cap,
-- resume at every cut, hostile states, spec errors.  Expected values by
-- hand, from that rule.
\pset format unaligned
\pset null 'null'

-- tsh_spec(shift): the row's value x and TimeShift's output, passed on
-- together by a Join on the rows where TimeShift gives a value, on o1
-- (x) and o2 (the value of T - shift).
CREATE FUNCTION tsh_spec(shift text) RETURNS pipeline LANGUAGE sql AS $$
  SELECT format('{"type": "Pipeline", "output_port_types": ["number", "number"],
   "operators": [{"type": "Identity", "id": "x"},
     {"type": "TimeShift", "id": "ago", "shift": %s},
     {"type": "Join", "id": "j", "portTypes": ["number", "number"]}],
   "connections": [{"from": "x", "to": "ago"}, {"from": "x", "to": "j", "toPort": "i1"},
                   {"from": "ago", "to": "j", "toPort": "i2"}],
   "entryOperator": "x", "outputMappings": {"j": {"o1": "o1", "o2": "o2"}}}', to_json(shift))::pipeline
$$;
-- tsh_rows(spec, secs, vals, keys): what each row n gave (at(secs[n]),
-- value vals[n], key keys[n]), space-separated: prefix n runs in a
-- partition of its own and a punctuation row (no value, key -1) closes it;
-- its o1 is row n's own value (the values are distinct) only when row n
-- gave something, and then o2 is what it gave; else '-'.
CREATE FUNCTION tsh_rows(spec pipeline, secs int[], vals float8[], keys int[]) RETURNS text
LANGUAGE sql AS $$
  SELECT string_agg(CASE WHEN e[1] = vals[n] THEN e[2]::text ELSE '-' END, ' ' ORDER BY n)
  FROM (SELECT n, i, segment_agg(at(t), v, k, spec) OVER (PARTITION BY n ORDER BY i) AS e
        FROM generate_series(1, cardinality(vals)) AS n,
             LATERAL (SELECT i, secs[i] AS t, ARRAY[vals[i]] AS v, keys[i] AS k FROM generate_series(1, n) AS i
                      UNION ALL
                      SELECT n + 1, secs[n], NULL, -1) AS r) AS s
  WHERE i = n + 1
$$;
CREATE FUNCTION tsh_rows(spec pipeline, secs int[], vals float8[]) RETURNS text LANGUAGE sql AS $$
  SELECT tsh_rows(spec, secs, vals, array_fill(0, ARRAY[cardinality(vals)]))
$$;
-- tsh_try(q): runs q; 'ok', or SQLSTATE, message and detail.
CREATE FUNCTION tsh_try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    detail text;
BEGIN
    EXECUTE q;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' (' || nullif(detail, '') || ')', '');
END $$;

-- The spec: shift is a duration, shown in its canonical text.
SELECT '{"type": "TimeShift", "shift": "90 s"}'::pipeline;
SELECT '{"type": "TimeShift", "shift": "1 day 00:00:00.25"}'::pipeline;

-- The original's first scenario: shift 5, a value 42 at time 1 comes out
-- at time 6.  Rows at 1 s (42) and 6 s (7): the row at 6 s gives 42.
SELECT tsh_rows(tsh_spec('5 s'), '{1, 6}', '{42, 7}') AS shift_5;
-- Its second: shift 10, values 1, 2, 4 at times 1, 2, 4 come out at 11,
-- 12, 14.  Rows at 1, 2, 4, 11, 12, 13, 14 s: 13 s has no row at 3 s.
SELECT tsh_rows(tsh_spec('10 s'), '{1, 2, 4, 11, 12, 13, 14}', '{1, 2, 4, 11, 12, 13, 14}') AS shift_10;
-- Its documentation's example, shift 5: 10, 20, 30, 40, 50 at 1, 3, 6, 7,
-- 10 come out at 6, 8, 11, 12, 15.  With rows also at 8, 11, 12 and 15 s
-- (60, 70, 80, 90): 6 s gives 10 (1 s), 7 s nothing (no row at 2 s), 8 s
-- 20, 10 s nothing (5 s), 11 s 30, 12 s 40, 15 s 50.  (Rows in order of
-- time: 8 s, 60, comes before 10 s, 50.)
SELECT tsh_rows(tsh_spec('5 s'), '{1, 3, 6, 7, 8, 10, 11, 12, 15}',
                '{10, 20, 30, 40, 60, 50, 70, 80, 90}') AS documented;
-- Its negative shift (values moved earlier) is refused: on a row it would
-- be the value of a later row.
SELECT try_spec('{"type": "TimeShift", "shift": -2}');
SELECT try_spec('{"type": "TimeShift", "shift": "-2 s"}');
-- The shift is exact to the microsecond: 1.5 s apart, shift 1.5 s and
-- 1.499999 s.
SELECT tsh_rows(tsh_spec('00:00:01.5'), '{0, 1, 2, 3}', '{1, 2, 3, 4}') AS whole_seconds,
       (SELECT string_agg(coalesce(e::text, '-'), ' ' ORDER BY i)
        FROM (SELECT i, segment_agg(ts, v, 0, tsh_spec('00:00:01.5'), close_at_end => true) OVER (ORDER BY i) AS e
              FROM (VALUES (1, at(0), '{1}'::float8[]), (2, at(0) + interval '1.5 s', '{2}')) AS r(i, ts, v)) AS q) AS half,
       (SELECT string_agg(coalesce(e::text, '-'), ' ' ORDER BY i)
        FROM (SELECT i, segment_agg(ts, v, 0, tsh_spec('00:00:01.499999'), close_at_end => true) OVER (ORDER BY i) AS e
              FROM (VALUES (1, at(0), '{1}'::float8[]), (2, at(0) + interval '1.5 s', '{2}')) AS r(i, ts, v)) AS q) AS a_microsecond_short;

-- Equal timestamps: of the rows at T - shift the latest is given, to each
-- row at T.  Rows at 0, 0, 0 s (1, 2, 3), 5, 5 s (4, 5), 10 s (6), shift
-- 5 s: the rows at 5 s give 3, the row at 10 s gives 5.
SELECT tsh_rows(tsh_spec('5 s'), '{0, 0, 0, 5, 5, 10}', '{1, 2, 3, 4, 5, 6}') AS equal_timestamps;
-- Values pass as they are: NaN and the infinities.
SELECT tsh_rows(tsh_spec('1 s'), '{0, 1, 2, 3}', '{NaN, Infinity, -Infinity, 0}') AS non_finite;
-- A row earlier than the one before it is refused.
SELECT segment_agg(at(s), v, 0, '{"type": "TimeShift", "shift": "5 s"}') OVER (ORDER BY i)
FROM (VALUES (1, 10, 1.0), (2, 9, 2.0)) AS t(i, s, v);
-- TimeShift needs the rows' timestamps.
SELECT segment_agg(v, 1, '{"type": "TimeShift", "shift": "5 s"}') OVER (ORDER BY v)
FROM (VALUES (1.0)) AS t(v);

-- Boundaries: each segment starts empty.  Shift 5 s; rows at 0, 5, 10, 15
-- s with keys 0, 1, 1, 2: the row at 5 s opens segment 1 and gives
-- nothing (the row at 0 s was segment 0's), 10 s gives 5 s's value, 15 s
-- opens segment 2 and gives nothing.
SELECT tsh_rows(tsh_spec('5 s'), '{0, 5, 10, 15}', '{1, 2, 3, 4}', '{0, 1, 1, 2}') AS boundaries;
-- The same rows in one segment: each gives the one before.
SELECT tsh_rows(tsh_spec('5 s'), '{0, 5, 10, 15}', '{1, 2, 3, 4}') AS one_segment;

-- The rise over 5 minutes inside a pipeline (TimeShift into Subtraction's
-- second port) against the SQL self-join: 400 minutes, of which the
-- minutes m with m % 7 = 3 or m % 11 = 5 have no reading (a gap: the
-- readings 5 minutes after them give nothing), two sensors as two keys.
CREATE TABLE tsh_readings AS
SELECT row_number() OVER (ORDER BY m, s) AS i, s, '2026-01-01 00:00+00'::timestamptz + m * interval '1 minute' AS ts,
       ((m * 37 + s * 11) % 101 + m / 8.0)::float8 AS v
FROM generate_series(1, 400) AS m, generate_series(1, 2) AS s
WHERE m % 7 <> 3 AND m % 11 <> 5;
CREATE TABLE tsh_oracle AS
SELECT a.i, a.s, a.v, a.v - b.v AS rise
FROM tsh_readings AS a LEFT JOIN tsh_readings AS b ON b.s = a.s AND b.ts = a.ts - interval '5 minutes';
-- Per sensor: 312 readings (400 minutes less 57 + 36 - 5 = 88 gaps, the
-- 5 minutes m = 38 (mod 77) counted twice), of which 232 have a reading 5
-- minutes earlier (counted apart from PostgreSQL, from the same rule): the
-- 80 others are minutes 1, 2 and 4 and the 77 readings 5 minutes after a
-- gap.  The pipeline must match the self-join row for row.
SELECT s, count(*) AS readings, count(rise) AS rises FROM tsh_oracle GROUP BY s ORDER BY s;
CREATE TABLE tsh_pipeline AS
SELECT n AS i, e
FROM (SELECT q.n, q.i, segment_agg(q.ts, q.v, q.k, '{"type": "Pipeline", "output_port_types": ["number", "number"], "operators": [{"type": "Identity", "id": "x"},
          {"type": "TimeShift", "id": "ago", "shift": "5 minutes"}, {"type": "Subtraction", "id": "rise"},
          {"type": "Join", "id": "j", "portTypes": ["number", "number"]}],
        "connections": [{"from": "x", "to": "ago"}, {"from": "x", "to": "rise", "toPort": "i1"},
                        {"from": "ago", "to": "rise", "toPort": "i2"}, {"from": "x", "to": "j", "toPort": "i1"},
                        {"from": "rise", "to": "j", "toPort": "i2"}],
        "entryOperator": "x", "outputMappings": {"j": {"o1": "o1", "o2": "o2"}}}') OVER (PARTITION BY q.n ORDER BY q.i) AS e
      FROM tsh_readings AS last,
           LATERAL (SELECT last.i AS n, r.i, r.ts, ARRAY[r.v] AS v, r.s AS k FROM tsh_readings AS r
                    WHERE r.s = last.s AND r.i <= last.i
                    UNION ALL
                    SELECT last.i, last.i + 100000, last.ts, NULL, -1) AS q) AS w
WHERE w.i = w.n + 100000;
-- Every row: the pipeline's rise is the self-join's, or both give nothing.
SELECT count(*) AS rows,
       count(*) FILTER (WHERE o.rise IS NOT DISTINCT FROM
                              CASE WHEN p.e[1] = o.v THEN p.e[2] END) AS agree,
       count(o.rise) AS rises
FROM tsh_oracle AS o JOIN tsh_pipeline AS p USING (i);

-- The state cap: eight windows of a million rows and one of 387777 leave
-- TimeShift's two rings (values and gaps) room for 50 rows each, where
-- the time suite's CountNumber (one ring) has room for 100; rows a second
-- apart, shift 1 day: 50 rows fit (TimeShift gives nothing: r is NULL on
-- every row, counted so that the window function runs), the 51st is
-- refused.
CREATE TABLE tsh_capped (p pipeline);
INSERT INTO tsh_capped SELECT ('{"type": "Pipeline", "output_port_types": ["number", "number"], "operators": [{"id": "in", "type": "Identity"}, '
  || string_agg(format('{"id": "%s", "type": "MovingSum", "window_size": %s}', c, CASE WHEN c = 'j' THEN 387777 ELSE 1000000 END), ', ')
  || ', {"id": "t", "type": "TimeShift", "shift": "1 day"}, {"type": "Join", "id": "jn", "portTypes": ["number", "number"]}], "connections": ['
  || string_agg(format('{"from": "in", "to": "%s"}', c), ', ')
  || ', {"from": "in", "to": "t"}, {"from": "in", "to": "jn", "toPort": "i1"}, {"from": "t", "to": "jn", "toPort": "i2"}],'
  || ' "entryOperator": "in", "outputMappings": {"jn": {"o1": "o1", "o2": "o2"}}}')::pipeline
FROM unnest(ARRAY['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'j']) AS c;
SELECT count(*) FILTER (WHERE r IS NULL) AS rows FROM (SELECT segment_agg(at(g), ARRAY[g::float8], 1, tsh_capped.p, true) OVER (ORDER BY g) AS r
                      FROM tsh_capped, generate_series(1, 50) AS g) AS q;
SELECT count(*) FILTER (WHERE r IS NULL) AS rows FROM (SELECT segment_agg(at(g), ARRAY[g::float8], 1, tsh_capped.p, true) OVER (ORDER BY g) AS r
                      FROM tsh_capped, generate_series(1, 50 + 1) AS g) AS q;
-- Rows that leave make room: after rows at 1 .. 50 s, a row at 1 day + 2
-- s lets the row at 1 s go and gives the value of 2 s (2); a row at 1 day
-- + 50 + 1 s lets every other go and finds nothing at 50 + 1 s; a row
-- at 2 days + 50 + 1 s gives that row's value.
SELECT tsh_rows(p, ARRAY(SELECT generate_series(1, 50)) || ARRAY[86400 + 2, 86400 + 50 + 1, 2 * 86400 + 50 + 1],
                ARRAY(SELECT generate_series(1, 50)::float8) || ARRAY[86400 + 2, 86400 + 50 + 1, 2 * 86400 + 50 + 1]::float8[]) AS after_a_day
FROM tsh_capped;
-- Resume: for every cut c, rows 1 .. c run by pipeline_agg, rows c + 1 ..
-- n resumed from the text of its result, give the whole run's emissions
-- and final state.  Rows of tsh_rows' scenarios with keys, equal
-- timestamps and gaps: 14 rows, 13 cuts.
CREATE TABLE tsh_resume_rows (i int, t int, v float8, k int);
INSERT INTO tsh_resume_rows VALUES
  (1, 0, 1, 0), (2, 0, 2, 0), (3, 3, 3, 0), (4, 5, 4, 0), (5, 5, 5, 0), (6, 8, 6, 0), (7, 10, 7, 0),
  (8, 12, 8, 1), (9, 13, 9, 1), (10, 17, 10, 1), (11, 18, 11, 1), (12, 18, 12, 1), (13, 22, 13, 1), (14, 23, 14, 1);
SELECT count(*) AS cuts,
       count(*) FILTER (WHERE (p1::jsonb #> '{state,emissions}') || (p2::jsonb #> '{state,emissions}') =
                              whole::jsonb #> '{state,emissions}'
                          AND p2::jsonb #- '{state,emissions}' = whole::jsonb #- '{state,emissions}') AS same,
       max(jsonb_array_length(whole::jsonb #> '{state,emissions}')) AS emissions
FROM (SELECT pipeline_agg(at(t), ARRAY[v], k, tsh_spec('5 s') ORDER BY i) AS whole FROM tsh_resume_rows) AS w,
     generate_series(1, 13) AS c,
     LATERAL (SELECT pipeline_agg(at(t), ARRAY[v], k, tsh_spec('5 s') ORDER BY i) AS p1 FROM tsh_resume_rows WHERE i <= c) AS f,
     LATERAL (SELECT pipeline_agg(at(t), ARRAY[v], k, p1::text::pipeline ORDER BY i) AS p2 FROM tsh_resume_rows WHERE i > c) AS r;
-- The emissions: segment 0 (rows 1..7) closes on row 8 (12 s) with its
-- last output, row 7's: o1 its value 7, o2 the latest row at 5 s, 5;
-- segment 1 has not closed.
SELECT emissions(pipeline_agg(at(t), ARRAY[v], k, tsh_spec('5 s') ORDER BY i)) FROM tsh_resume_rows;
-- The state as stored after rows 1..13, TimeShift alone: segment 1 is
-- rows 8..13 at 12, 13, 17, 18, 18 and 22 s (8 .. 13).  The row at 22 s
-- holds [17, 22] s: the rows at 17 s (10), 18 s (the latest, 12) and 22 s
-- (13), first 17 s and last 22 s (microseconds since 2000-01-01 UTC),
-- gaps 4 s (the oldest's as it entered, after 13 s), 1 s, 4 s; it gave
-- the value of 17 s, 10, which the buffer holds.  Segment 0 emitted its
-- last output on row 8: the row at 10 s gave 5.
SELECT (SELECT pipeline_agg(at(t), v, k, '{"type": "TimeShift", "shift": "5 s"}' ORDER BY i)
        FROM tsh_resume_rows WHERE i <= 13)::text;

-- Hostile states are refused (22P02), the state as written accepted.
CREATE TABLE tsh_state AS
SELECT (SELECT pipeline_agg(at(t), v, k, '{"type": "TimeShift", "shift": "5 s"}' ORDER BY i)
        FROM tsh_resume_rows WHERE i <= 13)::text AS t;
SELECT label, tsh_try(format('SELECT %L::pipeline', replace(t, old, new)))
FROM tsh_state, (VALUES
  ('as written', '', ''),
  ('a value more', '"values": [10, 12, 13]', '"values": [10, 12, 13, 14]'),
  ('a gap less', '"gaps": [4000000, 1000000, 4000000]', '"gaps": [0, 1000000]'),
  ('gaps short of last - first', '"gaps": [4000000, 1000000, 4000000]', '"gaps": [4000000, 1000000, 3000000]'),
  ('two values at one time', '"gaps": [4000000, 1000000, 4000000]', '"gaps": [4000000, 0, 5000000]'),
  ('a gap not whole', '"gaps": [4000000, 1000000, 4000000]', '"gaps": [4000000, 1000000.5, 3999999.5]'),
  ('a negative gap', '"gaps": [4000000, 1000000, 4000000]', '"gaps": [4000000, -1000000, 6000000]'),
  ('a value less', '"values": [10, 12, 13]', '"values": [10, 12]'),
  ('the oldest gap negative', '"gaps": [4000000, 1000000, 4000000]', '"gaps": [-1, 1000000, 4000000]'),
  ('the oldest gap 0, as after an empty window', '"gaps": [4000000, 1000000, 4000000]', '"gaps": [0, 1000000, 4000000]'),
  ('first beyond the shift', '"first": 820540817000000', '"first": 820540816000000'),
  ('last not a timestamp', '"last": 820540822000000', '"last": 9223372036854775807')) AS c(label, old, new);
-- With no row held, first and last must be 0; nothing held is accepted.
SELECT tsh_try(format('SELECT %L::pipeline', replace(replace(replace(t, '"values": [10, 12, 13]', '"values": []'),
                      '"gaps": [4000000, 1000000, 4000000]', '"gaps": []'), '"first": 820540817000000', '"first": 0'))) AS empty_with_last,
       tsh_try(format('SELECT %L::pipeline', replace(replace(replace(replace(t, '"values": [10, 12, 13]', '"values": []'),
                      '"gaps": [4000000, 1000000, 4000000]', '"gaps": []'), '"first": 820540817000000', '"first": 0'),
                      '"last": 820540822000000', '"last": 0'))) AS empty
FROM tsh_state;

-- Spec errors.
SELECT try_spec(s) FROM (VALUES
  ('{"type": "TimeShift"}'),
  ('{"type": "TimeShift", "shift": 5}'),
  ('{"type": "TimeShift", "shift": "0 s"}'),
  ('{"type": "TimeShift", "shift": " - 5 minutes"}'),
  ('{"type": "TimeShift", "shift": "1 month"}'),
  ('{"type": "TimeShift", "shift": "100001 days"}'),
  ('{"type": "TimeShift", "shift": "5 s", "window": "5 s"}'),
  ('{"type": "TimeShift", "shift": "5 s", "id": "x"}'),
  ('{"type": "TimeShft", "shift": "5 s"}')) AS t(s);
