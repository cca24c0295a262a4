-- Running operators ("trackers", SPEC section 5), each traced row by row
-- with trace() from setup.sql: after prefix n, the value the output buffer
-- holds, or '-'.  Every expected value was computed by hand.
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

