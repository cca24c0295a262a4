-- pipeline_agg(spec) WITHIN GROUP (ORDER BY ts, value, key): the ordered-set
-- form (docs/reference.md, "Sorting in the call").  It sorts the rows as the
-- WITHIN GROUP clause says and runs them as pipeline_agg does, so it gives
-- what pipeline_agg gives over the rows in that order: by hand below, then
-- equal to pipeline_agg(ts, value, key, spec ORDER BY <the same>) and to
-- pipeline_agg over rows sorted by a subquery.
\pset format unaligned
\pset null 'null'
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';

-- Ties in ts, punctuation (NULL value), unpaired rows (NULL key).
-- Identity: a segment emits its last value when the next key closes it.
CREATE TABLE r (i int, s int, v float8, k text);
INSERT INTO r VALUES
  (1, 1, 10, 'a'), (2, 2, 20, 'a'), (3, 2, 5, 'a'), (4, 3, NULL, 'b'), (5, 3, 7, 'b'),
  (6, 4, 1, NULL), (7, 5, 8, 'c'), (8, 5, 9, NULL), (9, 6, NULL, NULL);

-- ORDER BY ts, v, k (ascending, NULLS LAST), so the rows run as
--   (1, 10, a) (2, 5, a) (2, 20, a)      segment a, last value 20
--   (3, 7, b)                            key b closes a: (3, a, 20)
--   (3, NULL, b)                         punctuation, same key
--   (4, 1, NULL)                         unpaired: discarded
--   (5, 8, c)                            key c closes b: (5, b, 7)
--   (5, 9, NULL)                         unpaired: discarded
--   (6, NULL, NULL)                      punctuation without key: time only
-- and c stays open with 8 pending; 9 rows, 2 discarded, progress 6.
CREATE TABLE asc_run AS
SELECT pipeline_agg('{"type": "Identity"}') WITHIN GROUP (ORDER BY at(s), v, k) AS p FROM r;
SELECT e.* FROM asc_run, emissions(p) AS e;
SELECT q.* FROM asc_run, pending(p) AS q;
SELECT pipeline_key(p), pipeline_progress(p), pipeline_rows(p),
       pipeline_discarded(p), pipeline_late(p) FROM asc_run;

-- ORDER BY ts, v DESC (NULLS FIRST), k: at 2 the 20 comes first, so a
-- ends with 5; at 3 the punctuation of b closes a: (3, a, 5); at 5 the
-- unpaired 9 comes before c's 8: (5, b, 7).
SELECT e.* FROM (SELECT pipeline_agg('{"type": "Identity"}') WITHIN GROUP (ORDER BY at(s), v DESC, k) AS p
                 FROM r) AS x, emissions(p) AS e;

-- The same pipelines as pipeline_agg with that ORDER BY in the call, and as
-- pipeline_agg over rows sorted before it, for each order.
SELECT (SELECT pipeline_agg('{"type": "Identity"}') WITHIN GROUP (ORDER BY at(s), v, k) FROM r)
     = (SELECT pipeline_agg(at(s), v, k, '{"type": "Identity"}' ORDER BY at(s), v, k) FROM r) AS asc_call,
       (SELECT pipeline_agg('{"type": "Identity"}') WITHIN GROUP (ORDER BY at(s), v, k) FROM r)
     = (SELECT pipeline_agg(ts, v, k, '{"type": "Identity"}')
        FROM (SELECT at(s) AS ts, v, k FROM r ORDER BY 1, 2, 3 OFFSET 0) AS o) AS asc_sorted,
       (SELECT pipeline_agg('{"type": "Identity"}') WITHIN GROUP (ORDER BY at(s), v DESC, k) FROM r)
     = (SELECT pipeline_agg(at(s), v, k, '{"type": "Identity"}' ORDER BY at(s), v DESC, k) FROM r) AS desc_call,
       (SELECT pipeline_agg('{"type": "Identity"}') WITHIN GROUP (ORDER BY at(s), v NULLS FIRST, k DESC) FROM r)
     = (SELECT pipeline_agg(at(s), v, k, '{"type": "Identity"}' ORDER BY at(s), v NULLS FIRST, k DESC) FROM r) AS nulls_first_call,
       (SELECT pipeline_agg('{"type": "Identity"}') WITHIN GROUP (ORDER BY at(s), v, k) FROM r)
     = (SELECT pipeline_agg('{"type": "Identity"}') WITHIN GROUP (ORDER BY at(s), v DESC, k) FROM r) AS asc_equals_desc;

-- float8[] values, one per data port: Subtraction, x1 - x2.  At 2 the
-- rows {1,1} and {3,1} tie; ascending, {3,1} runs last, so key 1 closes
-- with 3 - 1 = 2 at 3; descending, with 1 - 1 = 0.
CREATE TABLE arr AS
SELECT * FROM (VALUES (1, ARRAY[5, 1]::float8[], 1), (2, ARRAY[3, 1], 1), (2, ARRAY[1, 1], 1),
                      (3, NULL, 2)) AS x(s, v, k);
SELECT e.* FROM (SELECT pipeline_agg('{"type": "Subtraction"}') WITHIN GROUP (ORDER BY at(s), v, k) AS p
                 FROM arr) AS x, emissions(p) AS e;
SELECT e.* FROM (SELECT pipeline_agg('{"type": "Subtraction"}') WITHIN GROUP (ORDER BY at(s), v DESC, k) AS p
                 FROM arr) AS x, emissions(p) AS e;
SELECT (SELECT pipeline_agg('{"type": "Subtraction"}') WITHIN GROUP (ORDER BY at(s), v DESC, k) FROM arr)
     = (SELECT pipeline_agg(at(s), v, k, '{"type": "Subtraction"}' ORDER BY at(s), v DESC, k) FROM arr) AS same;
-- The scalar form's spec must have one data port; an array of the wrong
-- length is an error, as in pipeline_agg.
SELECT pipeline_agg('{"type": "Subtraction"}') WITHIN GROUP (ORDER BY at(1), 1.0, 1);
SELECT pipeline_agg('{"type": "Subtraction"}') WITHIN GROUP (ORDER BY at(1), ARRAY[1.0], 1);

-- No rows: no pipeline, whatever the spec (it is not read); FILTER too.
SELECT pipeline_agg('{"type": "Identity"}') WITHIN GROUP (ORDER BY at(s), v, k) IS NULL AS no_rows,
       pipeline_agg(NULL) WITHIN GROUP (ORDER BY at(s), v, k) IS NULL AS no_rows_null_spec
FROM r WHERE false;
SELECT pipeline_agg('{"type": "Identity"}') WITHIN GROUP (ORDER BY at(s), v, k) FILTER (WHERE i > 100) IS NULL AS filtered,
       pipeline_rows(pipeline_agg('{"type": "Identity"}') WITHIN GROUP (ORDER BY at(s), v, k) FILTER (WHERE i > 4)) AS rows_after_4
FROM r;
-- With rows, the spec must not be NULL; a NULL timestamp is an error.
SELECT pipeline_agg(NULL) WITHIN GROUP (ORDER BY at(s), v, k) FROM r;
SELECT pipeline_agg('{"type": "Identity"}') WITHIN GROUP (ORDER BY ts, 1.0, 1)
FROM (VALUES (at(1)), (NULL)) AS x(ts);

-- Time runs as the order says: descending timestamps are late, an error by
-- default and dropped with "late": "drop": the rows at 2 run (5, then
-- 20), the row at 1 is late.
SELECT pipeline_agg('{"type": "Identity"}') WITHIN GROUP (ORDER BY at(s) DESC, v, k) FROM r WHERE i <= 3;
SELECT pipeline_rows(p), pipeline_late(p), pipeline_progress(p)
FROM (SELECT pipeline_agg('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "x"}], "late": "drop"}')
             WITHIN GROUP (ORDER BY at(s) DESC, v, k) AS p
      FROM r WHERE i <= 3) AS x;

-- Keys of other types, compared as pipeline_agg compares them: float8
-- (-0 = 0, so one segment), int, and text under the key column's own
-- collation: case-insensitive, x and X are one segment of 2 rows, closed by
-- y at 3; under "C" they are two, and x closes at 2.
SELECT e.* FROM (SELECT pipeline_agg('{"type": "CountNumber"}') WITHIN GROUP (ORDER BY at(s), 1.0, k) AS p
                 FROM (VALUES (1, '-0'::float8), (2, '0'), (3, '1')) AS x(s, k)) AS x,
                emissions(p) AS e;
SELECT e.* FROM (SELECT pipeline_agg('{"type": "CountNumber"}') WITHIN GROUP (ORDER BY at(s), 1.0, k) AS p
                 FROM (VALUES (1, 7), (2, 7), (3, 8)) AS x(s, k)) AS x,
                emissions(p) AS e;
CREATE COLLATION ordered_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT e.* FROM (SELECT pipeline_agg('{"type": "CountNumber"}') WITHIN GROUP (ORDER BY at(s), 1.0, k COLLATE ordered_ci) AS p
                 FROM (VALUES (1, 'x'), (2, 'X'), (3, 'y')) AS x(s, k)) AS x,
                emissions(p) AS e;
SELECT e.* FROM (SELECT pipeline_agg('{"type": "CountNumber"}') WITHIN GROUP (ORDER BY at(s), 1.0, k COLLATE "C") AS p
                 FROM (VALUES (1, 'x'), (2, 'X'), (3, 'y')) AS x(s, k)) AS x,
                emissions(p) AS e;
SELECT (SELECT pipeline_agg('{"type": "CountNumber"}') WITHIN GROUP (ORDER BY at(s), 1.0, k COLLATE ordered_ci)
        FROM (VALUES (1, 'x'), (2, 'X'), (3, 'y'), (4, 'Y'), (5, 'x')) AS x(s, k))
     = (SELECT pipeline_agg(at(s), 1.0, k COLLATE ordered_ci, '{"type": "CountNumber"}' ORDER BY s)
        FROM (VALUES (1, 'x'), (2, 'X'), (3, 'y'), (4, 'Y'), (5, 'x')) AS x(s, k)) AS same_as_pipeline_agg;
-- A key type without an ordering cannot be sorted: the parser says so.
SELECT pipeline_agg('{"type": "Identity"}') WITHIN GROUP (ORDER BY at(1), 1.0, '{}'::json);

-- The spec may carry state: the run continues from it, and reports only
-- its own emissions.  The rows up to 3, then the rest from that result:
-- the second run emits (5, b, 7) and ends as the whole run ended (key c
-- with 8 pending, progress 6, 9 rows, 2 discarded).
CREATE TABLE resumed AS
SELECT pipeline_agg(h.p) WITHIN GROUP (ORDER BY at(s), v, k) AS p
FROM r, (SELECT pipeline_agg('{"type": "Identity"}') WITHIN GROUP (ORDER BY at(s), v, k) AS p
         FROM r WHERE s <= 3) AS h
WHERE s > 3 GROUP BY h.p;
SELECT e.* FROM resumed, emissions(p) AS e;
SELECT q.* FROM resumed, pending(p) AS q;
SELECT pipeline_key(p), pipeline_progress(p), pipeline_rows(p),
       pipeline_discarded(p), pipeline_late(p) FROM resumed;

-- GROUP BY many groups, each with ties, punctuation and unpaired rows, and
-- a spec per group (a direct argument may use the grouped columns): every
-- group's pipeline equals pipeline_agg's with the same order in the call,
-- and over sorted rows; each ran its 40 rows.
CREATE TABLE many AS
SELECT g, at(i / 3) AS ts, CASE WHEN (i + g) % 11 = 0 THEN NULL ELSE (i * 7919 + g) % 13 END::float8 AS v,
       CASE WHEN (i + g) % 17 = 0 THEN NULL ELSE ((i + g) / 9) % 4 END AS k
FROM generate_series(1, 500) AS g, generate_series(1, 40) AS i;
CREATE FUNCTION spec_of(g int) RETURNS pipeline LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN g % 2 = 0 THEN '{"type": "Identity"}'::pipeline
              ELSE '{"type": "MovingAverage", "window_size": 3}' END $$;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE w = o) AS equal_to_order_by,
       count(*) FILTER (WHERE w = s) AS equal_to_sorted,
       sum(pipeline_rows(w)) AS rows
FROM (SELECT g, pipeline_agg(spec_of(g)) WITHIN GROUP (ORDER BY ts, v, k) AS w,
             pipeline_agg(ts, v, k, spec_of(g) ORDER BY ts, v, k) AS o
      FROM many GROUP BY g) AS a
JOIN (SELECT g, pipeline_agg(ts, v, k, spec_of(g)) AS s
      FROM (SELECT * FROM many ORDER BY g, ts, v, k OFFSET 0) AS x GROUP BY g) AS b USING (g);

-- ROLLUP keeps a group of each level open at once, each with its sort: the
-- three groups and the total equal pipeline_agg's.
SELECT g, w = o AS equal, pipeline_rows(w) AS rows
FROM (SELECT g, pipeline_agg('{"type": "Identity"}') WITHIN GROUP (ORDER BY ts, v, k) AS w,
             pipeline_agg(ts, v, k, '{"type": "Identity"}' ORDER BY ts, v, k) AS o
      FROM many WHERE g <= 3 GROUP BY ROLLUP (g)) AS x
ORDER BY g NULLS LAST;

-- Two calls over the same rows with other specs may share one sort (the
-- final function reads it twice): each equals its own pipeline_agg.
SELECT w1 = o1 AS first, w2 = o2 AS second, w1 <> w2 AS differ
FROM (SELECT pipeline_agg('{"type": "Identity"}') WITHIN GROUP (ORDER BY ts, v, k) AS w1,
             pipeline_agg('{"type": "CountNumber"}') WITHIN GROUP (ORDER BY ts, v, k) AS w2,
             pipeline_agg(ts, v, k, '{"type": "Identity"}' ORDER BY ts, v, k) AS o1,
             pipeline_agg(ts, v, k, '{"type": "CountNumber"}' ORDER BY ts, v, k) AS o2
      FROM many WHERE g <= 3) AS x;

-- Past work_mem the sort spills to temporary files (temp blocks written,
-- from EXPLAIN ANALYZE), and the results are the same: 60,000 rows in one
-- group, the shared sort read twice from its files.
CREATE FUNCTION temp_written(q text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) ' || q INTO plan;
  RETURN (plan -> 0 -> 'Plan' ->> 'Temp Written Blocks')::bigint > 0;
END $$;
CREATE TABLE big AS
SELECT at(i / 4) AS ts, ((i * 7919) % 101)::float8 AS v, (i / 1000) % 5 AS k
FROM generate_series(1, 60000) AS i;
SET work_mem = '64kB';
SELECT temp_written($$SELECT pipeline_agg('{"type": "Identity"}') WITHIN GROUP (ORDER BY ts, v, k) FROM big$$) AS spills;
SELECT w1 = o1 AS first, w2 = o2 AS second, w1 = s1 AS first_sorted, pipeline_rows(w1) AS rows
FROM (SELECT pipeline_agg('{"type": "Identity"}') WITHIN GROUP (ORDER BY ts, v DESC, k) AS w1,
             pipeline_agg('{"type": "MovingAverage", "window_size": 3}') WITHIN GROUP (ORDER BY ts, v DESC, k) AS w2,
             pipeline_agg(ts, v, k, '{"type": "Identity"}' ORDER BY ts, v DESC, k) AS o1,
             pipeline_agg(ts, v, k, '{"type": "MovingAverage", "window_size": 3}' ORDER BY ts, v DESC, k) AS o2
      FROM big) AS x,
     (SELECT pipeline_agg(ts, v, k, '{"type": "Identity"}') AS s1
      FROM (SELECT * FROM big ORDER BY ts, v DESC, k OFFSET 0) AS o) AS y;
RESET work_mem;

-- The support functions outside an ordered-set aggregate are errors.
-- (SQL cannot pass them a value of type internal, not even NULL.)
SELECT pipeline_agg_ordered_step(NULL, at(1), 1.0, 1);
CREATE AGGREGATE not_ordered(timestamptz, float8, int) (SFUNC = pipeline_agg_ordered_step, STYPE = internal,
  FINALFUNC = pipeline_agg_final);
SELECT not_ordered(at(1), 1.0, 1);
DROP AGGREGATE not_ordered(timestamptz, float8, int);

DROP TABLE r, asc_run, arr, resumed, many, big;
DROP FUNCTION spec_of(int), temp_written(text);
DROP COLLATION ordered_ci;
