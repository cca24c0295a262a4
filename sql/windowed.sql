-- Windowed operators (SPEC section 5), each traced row by row with trace()
-- from setup.sql: after prefix n, the value the output buffer holds, or
-- '-'.  Every expected value was computed by hand.
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
