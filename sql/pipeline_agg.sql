-- pipeline_agg and the accessors of its result (docs/reference.md, "Stored
-- pipelines").
\pset format unaligned
\pset null 'null'
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';

-- The worked example of section 2: one emission, (4, 60), for key 1; the
-- segment of key 0 stays pending.
CREATE TABLE example AS
SELECT pipeline_agg(at(s), v, k, '{"type": "CumulativeSum"}' ORDER BY s) AS p
FROM (VALUES (1, 10.0, 1), (2, 20, 1), (3, 30, 1), (4, 5, 0)) AS r(s, v, k);
SELECT p FROM example;
SELECT e.* FROM example, emissions(p) AS e;
SELECT q.* FROM example, pending(p) AS q;
SELECT pipeline_key(p), pipeline_progress(p), pipeline_rows(p),
       pipeline_discarded(p), pipeline_late(p) FROM example;

-- No rows: no pipeline.
SELECT pipeline_agg(at(1), 1.0, 1, '{"type": "Identity"}') IS NULL AS no_rows
FROM generate_series(1, 0);

-- Punctuation and unpaired rows.  MovingSum over 2:
--   1: a 1      key a
--   2: NULL key, no value: punctuation without key, time only
--   3: value 2 without key: unpaired, discarded, time does not move
--   4: a 3      sum 1 + 3 = 4 buffered
--   5: b, no value: punctuation, a boundary: (5, a, 4)
--   6: c, no value: a boundary with nothing buffered: nothing emitted
--   7: c 7      one value: nothing buffered yet
--   8: d, no value: boundary, nothing buffered
--  10: value 5 without key: discarded; the progress stays at 8
CREATE TABLE punct AS
SELECT pipeline_agg(at(s), v, k, '{"type": "MovingSum", "window_size": 2}' ORDER BY s) AS p
FROM (VALUES (1, 1.0, 'a'), (2, NULL, NULL), (3, 2, NULL), (4, 3, 'a'), (5, NULL, 'b'),
             (6, NULL, 'c'), (7, 7, 'c'), (8, NULL, 'd'), (10, 5, NULL)) AS r(s, v, k);
SELECT e.* FROM punct, emissions(p) AS e;
SELECT count(*) AS pending FROM punct, pending(p);
SELECT pipeline_key(p), pipeline_progress(p), pipeline_rows(p),
       pipeline_discarded(p), pipeline_late(p) FROM punct;

-- Time.  A NULL ts is an error.
SELECT pipeline_agg(ts, 1.0, 1, '{"type": "Identity"}')
FROM (VALUES (at(1)), (NULL)) AS r(ts);
-- Late rows are an error by default, naming both timestamps; equal
-- timestamps are not late.  Rows are fed in the order of i.
SELECT pipeline_agg(at(s), v, 1, '{"type": "CumulativeSum"}' ORDER BY i)
FROM (VALUES (1, 1, 1.0), (2, 3, 2), (3, 2, 3)) AS r(i, s, v);
SELECT e.* FROM (SELECT pipeline_agg(at(1), v, k, '{"type": "CumulativeSum"}' ORDER BY i) AS p
                 FROM (VALUES (1, 1.0, 1), (2, 2, 1), (3, 3, 2)) AS r(i, v, k)) AS s,
                emissions(p) AS e;
-- "late": "drop" skips them and counts them: the row at 2 (value 100) and
-- the punctuation at 2 are late, the second row at 3 is not.  Key 1 sums
-- 1 + 2 + 4 = 7, emitted at 4.
CREATE TABLE dropped AS
SELECT pipeline_agg(at(s), v, k, '{"type": "Pipeline", "operators": [{"type": "CumulativeSum", "id": "s"}], "late": "drop"}' ORDER BY i) AS p
FROM (VALUES (1, 1, 1.0, 1), (2, 3, 2, 1), (3, 2, 100, 1), (4, 3, 4, 1),
             (5, 2, NULL, NULL), (6, 4, 0, 2)) AS r(i, s, v, k);
SELECT e.* FROM dropped, emissions(p) AS e;
SELECT pipeline_rows(p), pipeline_late(p), pipeline_progress(p) FROM dropped;

-- flush(): the open segment's buffer, stamped with the latest ts or the
-- given one; the key is forgotten and the operators reset.
SELECT e.* FROM example, emissions(flush(p)) AS e;
SELECT e.* FROM example, emissions(flush(p, at(9))) AS e;
SELECT pipeline_key(flush(p)), pipeline_progress(flush(p)),
       pipeline_progress(flush(p, at(9))), pipeline_rows(flush(p)) FROM example;
SELECT count(*) AS pending FROM example, pending(flush(p));
-- A second flush emits nothing; a flush before the progress is an error.
SELECT count(*) AS emitted FROM example, emissions(flush(flush(p)));
SELECT flush(p, at(2)) FROM example;
-- After a flush the operators start afresh: 1 is the first value of the
-- new segment of key 0, and nothing is emitted (there was no key).
SELECT q.*, (SELECT count(*) FROM emissions(r.p2)) AS emitted
FROM (SELECT pipeline_agg(at(5), 1.0, 0, (SELECT flush(p) FROM example)) AS p2) AS r,
     pending(r.p2) AS q;
-- Nothing processed: flush returns the pipeline as it is; NULL gives NULL.
SELECT flush('{"type": "Identity"}') = '{"type": "Identity"}'::pipeline AS unchanged,
       flush(NULL) IS NULL AS null_in;
SELECT pipeline_key(p), pipeline_progress(p), pipeline_rows(p), pipeline_discarded(p),
       pipeline_late(p), (SELECT count(*) FROM emissions(p)) AS emissions,
       (SELECT count(*) FROM pending(p)) AS pending
FROM (SELECT '{"type": "Identity"}'::pipeline AS p) AS s;

-- Resume.  MovingAverage over 2, rows A = 1..3 then B = 4..7:
--   x: 10 20 30 40, averages 15 25 35; y at 5 emits (5, x, 35);
--   y: 50 60, average 55; z at 7 emits (7, y, 55).
CREATE TABLE rows_ab (s int, v float8, k text);
INSERT INTO rows_ab VALUES (1, 10, 'x'), (2, 20, 'x'), (3, 30, 'x'), (4, 40, 'x'),
  (5, 50, 'y'), (6, 60, 'y'), (7, NULL, 'z');
CREATE TABLE spec_ma (p pipeline);
INSERT INTO spec_ma VALUES ('{"type": "MovingAverage", "window_size": 2}');
CREATE TABLE one_run AS
SELECT pipeline_agg(at(s), v, k, (SELECT p FROM spec_ma) ORDER BY s) AS p FROM rows_ab;
SELECT e.* FROM one_run, emissions(p) AS e;
-- A stored, then B from it: the same result, as a whole value.
CREATE TABLE part_a AS
SELECT pipeline_agg(at(s), v, k, (SELECT p FROM spec_ma) ORDER BY s) AS p
FROM rows_ab WHERE s <= 3;
SELECT q.* FROM part_a, pending(p) AS q;
SELECT pipeline_agg(at(s), v, k, (SELECT p FROM part_a) ORDER BY s) = (SELECT p FROM one_run)
  AS same_value
FROM rows_ab WHERE s > 3;
-- The same through the text form.
SELECT pipeline_agg(at(s), v, k, (SELECT p::text::pipeline FROM part_a) ORDER BY s)
  = (SELECT p FROM one_run) AS same_through_text
FROM rows_ab WHERE s > 3;
-- Split after 5: the first part emits (5, x, 35), the second only (7, y, 55).
CREATE TABLE part_c AS
SELECT pipeline_agg(at(s), v, k, (SELECT p FROM spec_ma) ORDER BY s) AS p
FROM rows_ab WHERE s <= 5;
SELECT e.* FROM part_c, emissions(p) AS e;
SELECT e.* FROM (SELECT pipeline_agg(at(s), v, k, (SELECT p FROM part_c) ORDER BY s) AS p
                 FROM rows_ab WHERE s > 5) AS r, emissions(p) AS e;
-- A resumed run checks time against the stored progress.
SELECT pipeline_agg(at(2), 1.0, 'x'::text, p) FROM part_a;
-- and the key's type against the stored one.
SELECT pipeline_agg(at(9), 1.0, 1, p) FROM part_a;

-- One pipeline per group, each from the spec of its first row.
SELECT g, e.*
FROM (SELECT g, pipeline_agg(at(s), v, k, '{"type": "MaxTracker"}' ORDER BY s) AS p
      FROM (VALUES ('s1', 1, 5.0, 1), ('s1', 2, 7, 1), ('s1', 3, 1, 2),
                   ('s2', 1, -1, 10), ('s2', 2, -3, 11), ('s2', 3, 0, 11), ('s2', 4, 0, 12)) AS r(g, s, v, k)
      GROUP BY g) AS per, emissions(p) AS e
ORDER BY g, e.ts;

-- Several output ports emit in port order; several data ports take a
-- float8[] (all NULL: punctuation; some NULL: an error).
CREATE TABLE two_out (p pipeline);
INSERT INTO two_out VALUES ('{"type": "Pipeline", "output_port_types": ["number", "number"],
  "operators": [{"type": "Identity", "id": "in"}, {"type": "CountNumber", "id": "n"}],
  "connections": [{"from": "in", "to": "n"}], "entryOperator": "in",
  "outputMappings": {"n": {"o1": "o2"}, "in": {"o1": "o1"}}}');
SELECT e.* FROM (SELECT pipeline_agg(at(s), v, k, (SELECT p FROM two_out) ORDER BY s) AS p
                 FROM (VALUES (1, 5.0, 1), (2, 6, 1), (3, 0, 2)) AS r(s, v, k)) AS r,
                emissions(p) AS e;
SELECT e.* FROM (SELECT pipeline_agg(at(s), v, k, '{"type": "Addition"}' ORDER BY s) AS p
                 FROM (VALUES (1, ARRAY[1, 2]::float8[], 1), (2, ARRAY[NULL, NULL]::float8[], 2)) AS r(s, v, k)) AS r,
                emissions(p) AS e;
SELECT pipeline_agg(at(1), ARRAY[1.0, NULL], 1, '{"type": "Addition"}');
SELECT pipeline_agg(at(1), ARRAY[1.0], 1, '{"type": "Addition"}');
SELECT pipeline_agg(at(1), 1.0, 1, '{"type": "Addition"}');
SELECT pipeline_agg(at(1), 1.0, 1, NULL::pipeline);

-- Keys of other types.  float8: NaN = NaN, -0 = 0; keys print as the type
-- prints them.
SELECT e.* FROM (SELECT pipeline_agg(at(s), v, k, '{"type": "CountNumber"}' ORDER BY s) AS p
                 FROM (VALUES (1, 1.0, 'NaN'::float8), (2, 1, 'NaN'), (3, 1, '-0'), (4, 1, '0'),
                              (5, 1, '1e300'), (6, NULL, '0.1')) AS r(s, v, k)) AS r,
                emissions(p) AS e;
-- Enums, named with their schema.
CREATE TYPE mood AS ENUM ('sad', 'happy');
SELECT p FROM (SELECT pipeline_agg(at(s), v, k, '{"type": "Identity"}' ORDER BY s) AS p
               FROM (VALUES (1, 1.0, 'sad'::mood), (2, 2, 'happy')) AS r(s, v, k)) AS r;
-- A type without an equality cannot be a key.
SELECT pipeline_agg(at(1), 1.0, point(1, 2), '{"type": "Identity"}');

-- What is stored does not depend on the session: timestamps in keys, in
-- the progress and in emissions, and floats.
CREATE TABLE settings_run AS
SELECT pipeline_agg(at(s), v, k, '{"type": "Identity"}' ORDER BY s) AS p
FROM (VALUES (1, 0.1::float8 + 0.2::float8, at(100)), (2, 1.7976931348623157e308, at(200)),
             (3, 5e-324, at(200))) AS r(s, v, k);
SELECT p FROM settings_run;
SET TimeZone = 'America/New_York';
SET DateStyle = 'SQL, DMY';
SET IntervalStyle = 'sql_standard';
SET extra_float_digits = -15;
SELECT pipeline_agg(at(s), v, k, '{"type": "Identity"}' ORDER BY s) = (SELECT p FROM settings_run)
  AS same_bytes
FROM (VALUES (1, 0.1::float8 + 0.2::float8, at(100)), (2, 1.7976931348623157e308, at(200)),
             (3, 5e-324, at(200))) AS r(s, v, k);
SELECT p::text::pipeline = p AS reads_back FROM settings_run;
-- Accessors show timestamps under the session's settings, keys as stored.
SELECT e.* FROM settings_run, emissions(p) AS e;
RESET extra_float_digits;
RESET IntervalStyle;
SET DateStyle = 'ISO, YMD';
SET TimeZone = 'UTC';

-- Equality and order: DISTINCT, GROUP BY, UNION, and an index.
CREATE TABLE many (i int, p pipeline);
INSERT INTO many SELECT 1, p FROM example;
INSERT INTO many SELECT 2, p FROM example;
INSERT INTO many SELECT 3, flush(p) FROM example;
INSERT INTO many VALUES (4, '{"type": "CumulativeSum"}');
SELECT a.i, b.i, a.p = b.p AS eq, a.p <> b.p AS ne FROM many a, many b WHERE a.i < b.i ORDER BY 1, 2;
SELECT count(DISTINCT p) FROM many;
SELECT count(*) FROM (SELECT p FROM many GROUP BY p) AS g;
SELECT count(*) FROM (SELECT p FROM many UNION SELECT p FROM many) AS u;
SET enable_hashagg = off;
SELECT count(*) FROM (SELECT p FROM many GROUP BY p) AS g;
RESET enable_hashagg;
CREATE INDEX ON many (p);
CREATE INDEX ON many USING hash (p);
SELECT array_agg(i ORDER BY i) FROM many WHERE p = (SELECT p FROM example);

DROP TABLE example, punct, dropped, rows_ab, spec_ma, one_run, part_a, part_c, two_out,
  settings_run, many;
DROP TYPE mood;
