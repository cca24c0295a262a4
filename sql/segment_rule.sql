-- The segment rule (docs/tour.md, "The segment rule"), case by case.  Every
-- expected value below was computed by hand from the rule: a row emits only
-- when its key differs from the current one, and then emits the segment that
-- closed.
\pset format unaligned
\pset null 'null'

-- The worked example of the spec: one emission, (4, 60).
SELECT ts, v, k, segment_agg(v, k, '{"type": "CumulativeSum"}') OVER (ORDER BY ts)
FROM (VALUES (1, 10, 1), (2, 20, 1), (3, 30, 1), (4, 5, 0)) AS t(ts, v, k);

-- Two-argument form: the inner pipeline is Identity, so the last value of
-- each closed segment comes out on the boundary row.  The first row never
-- emits; neither does the last segment (3 rows with key 3).
SELECT ts, v, k, segment_agg(v, k) OVER (ORDER BY ts)
FROM (VALUES (1, 1.5, 1), (2, 2.5, 1), (3, 7, 2), (4, 8, 3), (5, 9, 3), (6, 10, 3))
     AS t(ts, v, k);

-- Single-row segments: every row is a boundary and emits the previous row.
SELECT ts, segment_agg(v, k) OVER (ORDER BY ts)
FROM (VALUES (1, 10, 1), (2, 20, 2), (3, 30, 3), (4, 40, 4)) AS t(ts, v, k);

-- The boundary row belongs to the new segment: its value is not in the
-- emission, and it starts the next sum (2 + 3 = 5 is emitted at ts 5).
SELECT ts, segment_agg(v, k, '{"type": "CumulativeSum"}') OVER (ORDER BY ts)
FROM (VALUES (1, 1, 0), (2, 1, 0), (3, 2, 1), (4, 3, 1), (5, 100, 2)) AS t(ts, v, k);

-- Key flipping back is a new segment each time, never a reopened one.
SELECT ts, segment_agg(v, k, '{"type": "CountNumber"}') OVER (ORDER BY ts)
FROM (VALUES (1, 0, 1), (2, 0, 1), (3, 0, 2), (4, 0, 1), (5, 0, 1), (6, 0, 1), (7, 0, 2))
     AS t(ts, v, k);

-- Empty buffer: a segment whose operator never produced output emits
-- nothing, but its operator is still reset.  MovingAverage(3) is never full
-- in the first two segments (2 rows each), so ts 5 emits nothing; without
-- the reset the window would have been full since ts 3 and ts 5 would emit
-- (20+40+50)/3.  The third segment's average (60+70+80)/3 = 70 comes out at
-- ts 8.
SELECT ts, segment_agg(v, k, '{"type": "MovingAverage", "window_size": 3}') OVER (ORDER BY ts)
FROM (VALUES (1, 10, 1), (2, 20, 1), (3, 40, 2), (4, 50, 2), (5, 60, 3), (6, 70, 3),
             (7, 80, 3), (8, 0, 4)) AS t(ts, v, k);

-- The buffer holds the latest value produced in the segment: MovingSum(2)
-- produced 3, then 5; 5 is emitted.
SELECT ts, segment_agg(v, k, '{"type": "MovingSum", "window_size": 2}') OVER (ORDER BY ts)
FROM (VALUES (1, 1, 7), (2, 2, 7), (3, 3, 7), (4, 0, 8)) AS t(ts, v, k);

-- Keys compare as float8: fractional keys, huge keys, -0 = 0,
-- NaN = NaN and Infinity = Infinity.
SELECT ts, k, segment_agg(v, k) OVER (ORDER BY ts)
FROM (VALUES (1, 1, 0.5::float8), (2, 2, 0.5), (3, 3, 0.25), (4, 4, 0.25),
             (5, 5, 1e300), (6, 6, 1e301)) AS t(ts, v, k);

SELECT ts, k, segment_agg(v, k) OVER (ORDER BY ts)
FROM (VALUES (1, 1, '-0'::float8), (2, 2, '0'), (3, 3, 'NaN'), (4, 4, 'NaN'),
             (5, 5, 'Infinity'), (6, 6, 'Infinity'), (7, 7, '-Infinity'), (8, 8, 'NaN'))
     AS t(ts, v, k);

-- 2^53 and 2^53 + 1 are the same float8, hence the same key.
SELECT ts, segment_agg(v, k) OVER (ORDER BY ts)
FROM (VALUES (1, 1, 9007199254740992::float8), (2, 2, 9007199254740993::float8),
             (3, 3, 0)) AS t(ts, v, k);

-- Unpaired rows (a value with a NULL key) are discarded: they change no key
-- and reach no operator.  The count at ts 5 is 2, not 4.
SELECT ts, segment_agg(v, k, '{"type": "CountNumber"}') OVER (ORDER BY ts)
FROM (VALUES (1, 1, 1), (2, 1, NULL), (3, 1, NULL), (4, 1, 1), (5, 1, 2)) AS t(ts, v, k);

-- An unpaired first row does not establish a key.
SELECT ts, segment_agg(v, k) OVER (ORDER BY ts)
FROM (VALUES (1, 1, NULL), (2, 2, 5), (3, 3, 6)) AS t(ts, v, k);

-- PARTITION BY: each partition starts from the spec's state, and nothing
-- flows between partitions.
SELECT m, ts, segment_agg(v, k, '{"type": "CumulativeSum"}') OVER (PARTITION BY m ORDER BY ts)
FROM (VALUES ('a', 1, 1, 1), ('b', 1, 100, 1), ('a', 2, 2, 1), ('b', 2, 200, 2),
             ('a', 3, 4, 2), ('b', 3, 400, 2), ('a', 4, 8, 3), ('b', 4, 800, 3))
     AS t(m, ts, v, k)
ORDER BY m, ts;

-- Several window calls in one query keep separate state.
SELECT ts,
       segment_agg(v, k, '{"type": "CumulativeSum"}') OVER w AS sum,
       segment_agg(v, k, '{"type": "CountNumber"}') OVER w AS count,
       segment_agg(v, k) OVER w AS last
FROM (VALUES (1, 3, 1), (2, 4, 1), (3, 5, 2)) AS t(ts, v, k)
WINDOW w AS (ORDER BY ts);

-- The result does not depend on the frame: peers under the default RANGE
-- frame (equal ts) are still processed one row at a time, in order.
SELECT ts, v, segment_agg(v, k, '{"type": "CumulativeSum"}') OVER (ORDER BY ts)
FROM (VALUES (1, 1, 1, 1), (1, 2, 1, 2), (2, 4, 2, 3)) AS t(ts, v, k, ord)
ORDER BY ord;

-- The spec is required.
SELECT segment_agg(v, k, NULL) OVER (ORDER BY ts)
FROM (VALUES (1, 1, 1)) AS t(ts, v, k);
