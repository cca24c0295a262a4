-- Windowed operators (docs/reference.md, "Operators"), each traced row by row
-- with trace() from setup.sql: after prefix n, the value the output buffer
-- holds, or '-'.  Every expected value was computed by hand.
\pset format unaligned
\pset null 'null'

-- MovingSum emits once the window is full.
SELECT trace('{"type": "MovingSum", "window_size": 3}', '{1, 2, 3, 4, 10}');
SELECT trace('{"type": "MovingSum", "window_size": 1}', '{4, -2, 7}');
-- Compensated while sliding: [1e16, 1] rounds to 1e16, and once 1e16 has
-- left, [1, 1] is exactly 2.
SELECT trace('{"type": "MovingSum", "window_size": 2}', '{1e16, 1, 1, 1}');
-- A non-finite value counts only while it is in the window.
SELECT trace('{"type": "MovingSum", "window_size": 2}', '{1, NaN, 3, 5}');
SELECT trace('{"type": "MovingSum", "window_size": 2}', '{1, Infinity, 3, -Infinity, -Infinity, 2, 2}');
SELECT trace('{"type": "MovingSum", "window_size": 2}', '{Infinity, -Infinity, 1, 1}');

-- A sum read only on a segment's last row: after half a window of rows
-- unread, the window stops updating its sum and rebuilds it from the values
-- it holds when the result is read.  Segment k (k = 1 .. 30) has k rows; a
-- segment of at least W rows closes with the exact sum of its last W
-- values, rounded once, which is what summing them as numeric and casting
-- the sum to float8 gives (the values, multiples of 1/8 and 1e16 or
-- -1e16, convert to numeric exactly; numeric sums Infinity and NaN as
-- float8 does).  Non-finite values enter and leave while the sum is not
-- updated.  Segments 1 .. 29 close (the first row of the next closes one);
-- those that hold W values emit, and every one agrees: 29 for W = 1, 28 for
-- W = 2, 27 for 3, 22 for 8; no other row emits.
CREATE TEMP TABLE unread AS
SELECT row_number() OVER (ORDER BY k, j) AS ts, k, j,
       CASE WHEN k = 9 AND j = 2 THEN 'Infinity'::float8
            WHEN k = 9 AND j = 5 THEN 'NaN'
            WHEN k = 20 AND j = 11 THEN '-Infinity'
            WHEN k = 20 AND j = 13 THEN 'Infinity'
            WHEN (k + j) % 13 = 0 THEN 1e16
            WHEN (k + j) % 13 = 6 THEN -1e16
            ELSE ((k * j) % 17) / 8.0 END AS v
FROM generate_series(1, 30) AS k, generate_series(1, k) AS j;
WITH emitted AS (
  SELECT w, k, x FROM (
    SELECT w.w, t.k, segment_agg(t.v, t.k, format('{"type": "MovingSum", "window_size": %s}', w.w)::pipeline)
             OVER (PARTITION BY w.w ORDER BY t.ts) AS x
    FROM (VALUES (1), (2), (3), (8)) AS w(w), unread AS t) AS e
  WHERE x IS NOT NULL),
oracle AS (
  SELECT w.w, t.k, sum(t.v::numeric)::float8 AS x
  FROM (VALUES (1), (2), (3), (8)) AS w(w), unread AS t
  WHERE t.k >= w.w AND t.j > t.k - w.w
  GROUP BY w.w, t.k)
SELECT o.w, count(*) AS segments, count(e.x) FILTER (WHERE e.x IS NOT DISTINCT FROM o.x) AS agree,
       (SELECT count(*) FROM emitted AS e2 WHERE e2.w = o.w) AS emitted
FROM oracle AS o LEFT JOIN emitted AS e ON e.w = o.w AND e.k = o.k + 1
WHERE o.k < 30
GROUP BY o.w ORDER BY o.w;
DROP TABLE unread;

-- MovingAverage: the mean of the last N.
SELECT trace('{"type": "MovingAverage", "window_size": 3}', '{1, 2, 3, 4, 10}');
SELECT trace('{"type": "MovingAverage", "window_size": 1}', '{2.5, -1}');
SELECT trace('{"type": "MovingAverage", "window_size": 2}', '{1, NaN, 3, 5}');
SELECT trace('{"type": "MovingAverage", "window_size": 2}', '{1, Infinity, 3, 5}');

-- StandardDeviation: sample standard deviation (n - 1), like stddev_samp().
-- Windows of 3 over 1 2 3 7 5 3: variances 2/2, 14/2, 8/2, 8/2.
SELECT trace('{"type": "StandardDeviation", "window_size": 3}', '{1, 2, 3, 7, 5, 3}');
SELECT trace('{"type": "StandardDeviation", "window_size": 2}', '{1, 3, 3, 7}');
-- No cancellation around a large mean: every window of three consecutive
-- integers has standard deviation exactly 1.
SELECT trace('{"type": "StandardDeviation", "window_size": 3}',
             '{1000000001, 1000000002, 1000000003, 1000000004, 1000000005}');
-- Any Infinity or NaN in the window gives NaN, as stddev_samp() does, and
-- only while it is there.
SELECT trace('{"type": "StandardDeviation", "window_size": 2}', '{1, NaN, 3, 5}');
SELECT trace('{"type": "StandardDeviation", "window_size": 2}', '{Infinity, 1, 1}');
-- Agrees with stddev_samp() over the same window.
SELECT abs(segment_agg(v, k, '{"type": "StandardDeviation", "window_size": 4}') OVER (ORDER BY ts)
           / (SELECT stddev_samp(x) FROM unnest('{0.5, 2.25, -3, 10.125}'::float8[]) AS x) - 1) < 1e-15
       AS agrees
FROM (VALUES (1, 0.5::float8, 0), (2, 2.25, 0), (3, -3, 0), (4, 10.125, 0), (5, 0, 1)) AS t(ts, v, k)
ORDER BY ts DESC LIMIT 1;

-- Reset is exact: a second segment shorter than the window emits nothing,
-- whatever the first segment left (with a leak, ts 4 would emit
-- 200+1, (200+1)/2 and the deviation of 200 and 1).
SELECT ts,
       segment_agg(v, k, '{"type": "MovingSum", "window_size": 2}') OVER w AS sum,
       segment_agg(v, k, '{"type": "MovingAverage", "window_size": 2}') OVER w AS avg,
       segment_agg(v, k, '{"type": "StandardDeviation", "window_size": 2}') OVER w AS sd,
       segment_agg(v, k, '{"type": "CumulativeSum"}') OVER w AS cum,
       segment_agg(v, k, '{"type": "CountNumber"}') OVER w AS count
FROM (VALUES (1, 100, 1), (2, 200, 1), (3, 1, 2), (4, 0, 3)) AS t(ts, v, k)
WINDOW w AS (ORDER BY ts);
-- ... and a NaN in one segment does not reach the next.
SELECT ts,
       segment_agg(v, k, '{"type": "MovingSum", "window_size": 2}') OVER w AS sum,
       segment_agg(v, k, '{"type": "CumulativeSum"}') OVER w AS cum
FROM (VALUES (1, 'NaN'::float8, 1), (2, 'Infinity', 1), (3, 1, 2), (4, 2, 2), (5, 0, 3))
     AS t(ts, v, k)
WINDOW w AS (ORDER BY ts);

-- WindowMinMax: the max or min of the last N values, once full.  The
-- extreme counts only while it is in the window.
SELECT trace('{"type": "WindowMinMax", "window_size": 3, "mode": "max"}', '{5, 1, 2, 3, 0, 0, 0}');
SELECT trace('{"type": "WindowMinMax", "window_size": 3, "mode": "min"}', '{1, 5, 4, 3, 6, 7, 8}');
SELECT trace('{"type": "WindowMinMax", "window_size": 1, "mode": "max"}', '{4, -2, 7}');
SELECT trace('{"type": "WindowMinMax", "window_size": 1, "mode": "min"}', '{4, -2, NaN}');
-- NaN is greater than every number: the max is NaN while a NaN is in the
-- window, the min ignores it unless the window holds nothing else.
SELECT trace('{"type": "WindowMinMax", "window_size": 2, "mode": "max"}', '{1, NaN, 3, 5}');
SELECT trace('{"type": "WindowMinMax", "window_size": 2, "mode": "min"}', '{1, NaN, 3, 5}');
SELECT trace('{"type": "WindowMinMax", "window_size": 3, "mode": "max"}', '{NaN, 1, 2, 3}');
SELECT trace('{"type": "WindowMinMax", "window_size": 3, "mode": "min"}', '{1, NaN, NaN, NaN, 2}');
SELECT trace('{"type": "WindowMinMax", "window_size": 2, "mode": "max"}', '{-Infinity, -Infinity, 1, Infinity, 0, 0}');
SELECT trace('{"type": "WindowMinMax", "window_size": 2, "mode": "min"}', '{Infinity, Infinity, -1, -Infinity, 0, 0}');
-- Long monotonic runs, down then up and up then down, and repeated values.
SELECT trace('{"type": "WindowMinMax", "window_size": 3, "mode": "max"}', '{9, 8, 7, 6, 5, 4, 3, 4, 5, 6, 7, 8, 9}');
SELECT trace('{"type": "WindowMinMax", "window_size": 3, "mode": "min"}', '{9, 8, 7, 6, 5, 4, 3, 4, 5, 6, 7, 8, 9}');
SELECT trace('{"type": "WindowMinMax", "window_size": 5, "mode": "max"}', '{1, 2, 3, 4, 5, 6, 7, 6, 5, 4, 3, 2, 1}');
SELECT trace('{"type": "WindowMinMax", "window_size": 5, "mode": "min"}', '{1, 2, 3, 4, 5, 6, 7, 6, 5, 4, 3, 2, 1}');
SELECT trace('{"type": "WindowMinMax", "window_size": 3, "mode": "max"}', '{2, 2, 2, 1, 1, 1}');
SELECT trace('{"type": "WindowMinMax", "window_size": 3, "mode": "min"}', '{1, 1, 1, 2, 2, 2}');

-- PeakDetector: when full and the centre value is strictly greater than
-- every other value in the window, it emits the centre value.  trace()
-- shows the last peak found so far.  Window 3: peaks 3, 5 and 6; the
-- centre 4 of (4, 4, 6) is not strictly greater than its neighbour.
SELECT trace('{"type": "PeakDetector", "window_size": 3}', '{1, 3, 2, 5, 4, 4, 6, 1}');
-- A plateau is no peak, nor is the largest value at a window's edge.
SELECT trace('{"type": "PeakDetector", "window_size": 3}', '{1, 3, 3, 1}');
SELECT trace('{"type": "PeakDetector", "window_size": 3}', '{5, 1, 0, 2, 9}');
-- The same series with windows 3 and 5: 5 and 4 are peaks within one
-- neighbour on each side, only 6 within two.
SELECT trace('{"type": "PeakDetector", "window_size": 3}', '{1, 5, 2, 6, 3, 4, 0}');
SELECT trace('{"type": "PeakDetector", "window_size": 5}', '{1, 5, 2, 6, 3, 4, 0}');
-- Window 5: the centre 8 of (8, 1, 8, 2, 3) equals the first value, so it
-- is no peak; 9 of (2, 3, 9, 5, 1) is.
SELECT trace('{"type": "PeakDetector", "window_size": 5}', '{8, 1, 8, 2, 3, 9, 5, 1, 0}');
-- NaN is greater than every number: a NaN centre among numbers is a peak,
-- two NaNs are equal, and a NaN elsewhere in the window hides a peak.
SELECT trace('{"type": "PeakDetector", "window_size": 3}', '{3, NaN, 2, 5, 1}');
SELECT trace('{"type": "PeakDetector", "window_size": 3}', '{1, NaN, NaN, 2}');
SELECT trace('{"type": "PeakDetector", "window_size": 3}', '{NaN, 5, 1, 0}');
SELECT trace('{"type": "PeakDetector", "window_size": 3}', '{1, Infinity, NaN, 1}');
SELECT trace('{"type": "PeakDetector", "window_size": 3}', '{-Infinity, -1e308, -Infinity}');

-- Reset is exact for WindowMinMax: segment 2 (one row) does not fill a
-- window of 2, segment 3 (3, 4) has max 4 and min 3, and a window of 3 is
-- never full.  With a leak, ts 4 would emit max(1, 5) = 5 and min 1 and the
-- window of 3 would emit 9 at ts 4 and 5 at ts 6.
SELECT ts,
       segment_agg(v, k, '{"type": "WindowMinMax", "window_size": 2, "mode": "max"}') OVER w AS max2,
       segment_agg(v, k, '{"type": "WindowMinMax", "window_size": 2, "mode": "min"}') OVER w AS min2,
       segment_agg(v, k, '{"type": "WindowMinMax", "window_size": 3, "mode": "max"}') OVER w AS max3
FROM (VALUES (1, 9, 1), (2, 1, 1), (3, 5, 2), (4, 3, 3), (5, 4, 3), (6, 0, 4)) AS t(ts, v, k)
WINDOW w AS (ORDER BY ts);
-- ... and for PeakDetector: segments (1, 2, 9), (3, 4, 5) have no peak, and
-- (1, 6, 2) has 6; a window of 5 is never full.  With a leak, the windows
-- (2, 9, 3) and (1, 2, 9, 3, 4) would make ts 7 emit 9 in both columns.
SELECT ts,
       segment_agg(v, k, '{"type": "PeakDetector", "window_size": 3}') OVER w AS peak3,
       segment_agg(v, k, '{"type": "PeakDetector", "window_size": 5}') OVER w AS peak5
FROM (VALUES (1, 1, 1), (2, 2, 1), (3, 9, 1), (4, 3, 2), (5, 4, 2), (6, 5, 2), (7, 1, 3),
             (8, 6, 3), (9, 2, 3), (10, 0, 4)) AS t(ts, v, k)
WINDOW w AS (ORDER BY ts);

-- Parameters.
SELECT try_spec('{"type": "WindowMinMax", "window_size": 3}');
SELECT try_spec('{"type": "WindowMinMax", "mode": "max"}');
SELECT try_spec('{"type": "WindowMinMax", "id": "w", "window_size": 3, "mode": "median"}');
SELECT try_spec('{"type": "WindowMinMax", "id": "w", "window_size": 3, "mode": 1}');
SELECT try_spec('{"type": "WindowMinMax", "id": "w", "window_size": 0, "mode": "min"}');
SELECT try_spec('{"type": "WindowMinMax", "id": "w", "window_size": 1000000, "mode": "min"}');
SELECT try_spec('{"type": "PeakDetector"}');
SELECT try_spec('{"type": "PeakDetector", "id": "p", "window_size": 4}');
SELECT try_spec('{"type": "PeakDetector", "id": "p", "window_size": 1}');
SELECT try_spec('{"type": "PeakDetector", "id": "p", "window_size": 1000001}');
SELECT try_spec('{"type": "PeakDetector", "id": "p", "window_size": 999999}');
SELECT try_spec('{"type": "PeakDetector", "id": "p", "window_size": 3, "mode": "max"}');
SELECT '{"type": "WindowMinMax", "mode": "min", "window_size": 3}'::pipeline;
SELECT '{"type": "PeakDetector", "id": "pk", "window_size": 5}'::pipeline;
