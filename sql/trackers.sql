-- Running operators ("trackers", docs/reference.md, "Operators"), each traced
-- row by row with trace() from setup.sql: after prefix n, the value the
-- output buffer holds, or '-'.  Every expected value was computed by hand.
\pset format unaligned
\pset null 'null'

-- Identity and CountNumber emit on every row.
SELECT trace('{"type": "Identity"}', '{3, -1.5, 0}');
SELECT trace('{"type": "CountNumber"}', '{5, 5, 5}');

-- CumulativeSum is compensated: 1e16 + 1 + 1 - 1e16 is 2 (a plain float8
-- running sum gives 0).  Infinity and NaN follow float8 arithmetic, and a
-- sum of finite values that overflows is an error, as it is for sum().
SELECT trace('{"type": "CumulativeSum"}', '{1, 2, 3.5}');
SELECT ts, segment_agg(v, k, '{"type": "CumulativeSum"}') OVER (ORDER BY ts)
FROM (VALUES (1, 1e16::float8, 0), (2, 1, 0), (3, 1, 0), (4, -1e16, 0), (5, 0, 1))
     AS t(ts, v, k);
SELECT trace('{"type": "CumulativeSum"}', '{1, Infinity, 1, -Infinity}');
SELECT trace('{"type": "CumulativeSum"}', '{1e308, 1e308, -1e308}');


-- MaxTracker and MinTracker: the running max / min since the last reset,
-- emitted on every row.
SELECT trace('{"type": "MaxTracker"}', '{3, 1, 4, 1, 5, 9, 2}');
SELECT trace('{"type": "MinTracker"}', '{3, 1, 4, 1, 5, 0, 2}');
SELECT trace('{"type": "MaxTracker"}', '{-5, -2, -7, -2.5}');
SELECT trace('{"type": "MinTracker"}', '{-5, -2, -7, -2.5}');
-- Ordering is PostgreSQL's: NaN is greater than every number, Infinity
-- included.  MaxTracker becomes NaN and stays NaN; MinTracker keeps NaN
-- only while no number has come.
SELECT trace('{"type": "MaxTracker"}', '{1, NaN, 5, Infinity}');
SELECT trace('{"type": "MaxTracker"}', '{NaN, 1, -Infinity}');
SELECT trace('{"type": "MinTracker"}', '{NaN, 3, 1}');
SELECT trace('{"type": "MinTracker"}', '{2, NaN, 1, NaN}');
SELECT trace('{"type": "MinTracker"}', '{NaN, NaN}');
SELECT trace('{"type": "MaxTracker"}', '{-Infinity, -1e308, Infinity, 1}');
SELECT trace('{"type": "MinTracker"}', '{Infinity, 1e308, -Infinity, 0}');
-- -0 equals 0: a tracker keeps the first of two equal values.
SELECT trace('{"type": "MaxTracker"}', '{-0, 0, -0}');
SELECT trace('{"type": "MaxTracker"}', '{0, -0}');
SELECT trace('{"type": "MinTracker"}', '{-0, 0}');
SELECT trace('{"type": "MinTracker"}', '{0, -0}');

-- Reset is exact: the running max / min does not carry across a boundary.
-- Segment 2 (2, 7, 3) emits its own max 7 and min 2, segment 3 (4) emits 4
-- and 4; with a leak they would emit 100 and -50.
SELECT ts,
       segment_agg(v, k, '{"type": "MaxTracker"}') OVER w AS max,
       segment_agg(v, k, '{"type": "MinTracker"}') OVER w AS min
FROM (VALUES (1, 100, 1), (2, -50, 1), (3, 2, 2), (4, 7, 2), (5, 3, 2), (6, 4, 3), (7, 0, 4))
     AS t(ts, v, k)
WINDOW w AS (ORDER BY ts);
-- ... nor does a NaN: segment 2 (1, 2) has max 2 (a leak: NaN), segment 3
-- (NaN) has min NaN (a leak: 1).
SELECT ts,
       segment_agg(v, k, '{"type": "MaxTracker"}') OVER w AS max,
       segment_agg(v, k, '{"type": "MinTracker"}') OVER w AS min
FROM (VALUES (1, 'NaN'::float8, 1), (2, 1, 2), (3, 2, 2), (4, 'NaN', 3), (5, 0, 4))
     AS t(ts, v, k)
WINDOW w AS (ORDER BY ts);

-- The trackers take no parameters.
SELECT try_spec('{"type": "MaxTracker", "window_size": 3}');
SELECT '{"type": "MinTracker", "id": "lo"}'::pipeline;
