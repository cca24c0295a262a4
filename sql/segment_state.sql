-- segment_agg with a spec that carries state (docs/reference.md, "Window
-- functions"): each partition starts from that state as pipeline_agg resumes
-- from it, so pipeline_agg over rows A, then segment_agg over rows B, emits
-- on B's rows what segment_agg over A then B in one partition emits there.
\pset format unaligned
\pset null 'null'
SET TimeZone = 'UTC';

-- MovingAverage over 2 (it outputs once its window is full), text keys.
-- A leaves key b open with one value, 4, in the window; the state's own
-- emission (1.5, for key a) is not reported again.  Over A then B:
--   4: b 8    same key, not a boundary; window 4, 8: 6 buffered
--   5: c 16   boundary: 6
--   6: c 32   window 16, 32: 24 buffered
--   7: d      punctuation, boundary: 24
CREATE TABLE a1 (s int, v float8, k text);
INSERT INTO a1 VALUES (1, 1, 'a'), (2, 2, 'a'), (3, 4, 'b');
CREATE TABLE b1 (s int, v float8, k text);
INSERT INTO b1 VALUES (4, 8, 'b'), (5, 16, 'c'), (6, 32, 'c'), (7, NULL, 'd');
CREATE TABLE st1 AS
SELECT pipeline_agg(at(s), v, k, '{"type": "MovingAverage", "window_size": 2}' ORDER BY s) AS p
FROM a1;
SELECT pipeline_key(p), (SELECT count(*) FROM emissions(p)) AS emitted FROM st1;
SELECT s, whole, resumed
FROM (SELECT s, segment_agg(v, k, '{"type": "MovingAverage", "window_size": 2}')
                  OVER (ORDER BY s) AS whole
      FROM (SELECT * FROM a1 UNION ALL SELECT * FROM b1) AS t) AS w
JOIN (SELECT s, segment_agg(v, k, p) OVER (ORDER BY s) AS resumed FROM b1, st1) AS r
USING (s) ORDER BY s;

-- A key open across the split (integer, by value), CumulativeSum, the
-- four-argument form.  A sums 5 for key 1; over A then B:
--   2: 1 7    same key, not a boundary (which would emit 5): sum 12
--   3: 2 1    boundary: 12
--   4: punctuation without a key: nothing
CREATE TABLE a2 (s int, v float8, k int);
INSERT INTO a2 VALUES (1, 5, 1);
CREATE TABLE b2 (s int, v float8, k int);
INSERT INTO b2 VALUES (2, 7, 1), (3, 1, 2), (4, NULL, NULL);
CREATE TABLE st2 AS
SELECT pipeline_agg(at(s), v, k, '{"type": "CumulativeSum"}' ORDER BY s) AS p FROM a2;
SELECT s, whole, resumed
FROM (SELECT s, segment_agg(v, k, '{"type": "CumulativeSum"}', false)
                  OVER (ORDER BY s) AS whole
      FROM (SELECT * FROM a2 UNION ALL SELECT * FROM b2) AS t) AS w
JOIN (SELECT s, segment_agg(v, k, p, false) OVER (ORDER BY s) AS resumed FROM b2, st2) AS r
USING (s) ORDER BY s;

-- PARTITION BY: each partition starts from the same state (key b, window
-- holding 4), not from where the previous partition ended.  The array form.
--   partition 1: 4: b 8 gives 6 buffered; 5: c closes it: {6}
--   partition 2: 4: b 2 gives 3 buffered; 5: d closes it: {3}
-- (Partition 2 started from partition 1's end, key c, would emit nothing.)
CREATE TABLE b3 (p int, s int, v float8, k text);
INSERT INTO b3 VALUES (1, 4, 8, 'b'), (1, 5, 16, 'c'), (2, 4, 2, 'b'), (2, 5, NULL, 'd');
SELECT p, s, whole, resumed
FROM (SELECT p, s, segment_agg(ARRAY[v], k, '{"type": "MovingAverage", "window_size": 2}')
                     OVER (PARTITION BY p ORDER BY s) AS whole
      FROM (SELECT p, a1.* FROM a1, (VALUES (1), (2)) AS parts(p)
            UNION ALL SELECT * FROM b3) AS t) AS w
JOIN (SELECT b3.p, s, segment_agg(ARRAY[v], k, st1.p) OVER (PARTITION BY b3.p ORDER BY s) AS resumed
      FROM b3, st1) AS r
USING (p, s) ORDER BY p, s;

-- The array form with close_at_end: key b stays open to the end; the last
-- row closes it.  4: window 4, 8: 6 buffered; 5: window 8, 16: {12}.
CREATE TABLE b4 (s int, v float8, k text);
INSERT INTO b4 VALUES (4, 8, 'b'), (5, 16, 'b');
SELECT s, whole, resumed
FROM (SELECT s, segment_agg(ARRAY[v], k, '{"type": "MovingAverage", "window_size": 2}', true)
                  OVER (ORDER BY s) AS whole
      FROM (SELECT * FROM a1 UNION ALL SELECT * FROM b4) AS t) AS w
JOIN (SELECT s, segment_agg(ARRAY[v], k, p, true) OVER (ORDER BY s) AS resumed FROM b4, st1) AS r
USING (s) ORDER BY s;

-- A state without a key (flushed) starts the partition empty, as the bare
-- spec does: 4: b 8, one value; 5: c closes it, nothing buffered; 6: 24
-- buffered; 7: d closes it: 24.
SELECT s, segment_agg(v, k, flush(p)) OVER (ORDER BY s) FROM b1, st1 ORDER BY s;

-- The call's key type must be the state's, as in pipeline_agg.
SELECT segment_agg(v, s, p) OVER (ORDER BY s) FROM b1, st1;
SELECT segment_agg(ARRAY[v], k::varchar, p) OVER (ORDER BY s) FROM b1, st1;

DROP TABLE a1, b1, st1, a2, b2, st2, b3, b4;
