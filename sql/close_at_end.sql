-- close_at_end => true: the partition's last row also closes the open
-- segment, and reports it as a boundary would (docs/tour.md, "At the end of
-- the partition").  A row reports one closing at most: when the last row is
-- itself a boundary, it reports the segment it closes, and the one-row
-- segment it opens is not reported.  segment_key follows the same rule.
-- Expected values worked out by hand.
\pset format unaligned
\pset null 'null'

-- With PARTITION BY, each partition's last row closes its open segment:
-- a (1 + 2 closed by row 3, then 3 + 4 = 7 at the end), b (10 + 20), c (a
-- single row, closed by itself).
SELECT m, ts, k, segment_agg(v, k, '{"type": "CumulativeSum"}', true) OVER w AS sum,
       segment_key(v, k, true) OVER w AS closed
FROM (VALUES ('a', 1, 1, 1), ('a', 2, 2, 1), ('a', 3, 3, 2), ('a', 4, 4, 2),
             ('b', 1, 10, 5), ('b', 2, 20, 5), ('c', 1, 7, 9)) AS t(m, ts, v, k)
WINDOW w AS (PARTITION BY m ORDER BY ts)
ORDER BY m, ts;

-- The last row is itself a boundary: it reports the segment it closes.  In
-- a the one-row segment (key 2, value 3) is not reported; in b the last row
-- is punctuation with a new key, the usual way to close the last segment
-- by hand, and the option changes nothing.
SELECT m, ts, k, segment_agg(v, k, '{"type": "CumulativeSum"}', true) OVER w AS sum,
       segment_key(v, k, true) OVER w AS closed
FROM (VALUES ('a', 1, 1, 1), ('a', 2, 2, 1), ('a', 3, 3, 2),
             ('b', 1, 5, 1), ('b', 2, 6, 1), ('b', 3, NULL, 99)) AS t(m, ts, v, k)
WINDOW w AS (PARTITION BY m ORDER BY ts)
ORDER BY m, ts;

-- A last row with a NULL key closes the open segment too: c's last row is
-- unpaired (its 2 is discarded, so the sum is 1); d has no key at all, so
-- nothing closes; e's only segment fed nothing, so segment_agg emits
-- nothing while segment_key still reports the closed key; f's moving
-- average is never full, the same.
SELECT m, ts, segment_agg(v, k, '{"type": "CumulativeSum"}', true) OVER w AS sum,
       segment_agg(v, k, '{"type": "MovingAverage", "window_size": 3}', true) OVER w AS avg3,
       segment_key(v, k, true) OVER w AS closed
FROM (VALUES ('c', 1, 1, 7), ('c', 2, 2, NULL), ('d', 1, NULL, NULL), ('d', 2, 3, NULL),
             ('e', 1, NULL, 4), ('f', 1, 1, 6), ('f', 2, 2, 6)) AS t(m, ts, v, k)
WINDOW w AS (PARTITION BY m ORDER BY ts)
ORDER BY m, ts;

-- The array form, and false (the segment rule of docs/tour.md: the last
-- segment stays open).
SELECT ts, segment_agg(ARRAY[v], k, '{"type": "CumulativeSum"}', true) OVER w AS closing,
       segment_agg(ARRAY[v], k, '{"type": "CumulativeSum"}', false) OVER w AS not_closing,
       segment_key(ARRAY[v], k, true) OVER w AS closed,
       segment_key(ARRAY[v], k, false) OVER w AS not_closed
FROM (VALUES (1, 1, 'x'), (2, 2, 'x')) AS t(ts, v, k)
WINDOW w AS (ORDER BY ts);

-- Named notation reads as the option it is.
SELECT ts, segment_agg(v, k, '{"type": "CumulativeSum"}', close_at_end => true) OVER w AS sum,
       segment_agg(value => v, key => k, spec => '{"type": "CumulativeSum"}',
                   close_at_end => false) OVER w AS open_sum,
       segment_key(v, k, close_at_end => true) OVER w AS closed
FROM (VALUES (1, 1, 'x'), (2, 2, 'x'), (3, 3, 'y')) AS t(ts, v, k)
WINDOW w AS (ORDER BY ts);

-- The option is read once, on the partition's first row: here true for a
-- (its first row has ts 1), false for b.
SELECT m, ts, segment_agg(v, k, '{"type": "CumulativeSum"}', ts = 1) OVER w AS sum
FROM (VALUES ('a', 1, 1, 1), ('a', 2, 2, 1), ('b', 2, 5, 1), ('b', 3, 6, 1)) AS t(m, ts, v, k)
WINDOW w AS (PARTITION BY m ORDER BY ts)
ORDER BY m, ts;

-- NULL is not an option (22004).
SELECT segment_agg(v, k, '{"type": "Identity"}', NULL) OVER ()
FROM (VALUES (1, 1)) AS t(v, k);
SELECT segment_key(v, k, NULL) OVER () FROM (VALUES (1, 1)) AS t(v, k);

-- Looking one row ahead keeps nothing: the mark still advances (every 16
-- rows), so one partition far larger than work_mem writes no temporary file,
-- while count(*) OVER (), which keeps the partition, does.
SET work_mem = '64kB';
CREATE FUNCTION temp_blocks(query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    plan json;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, COSTS OFF, FORMAT JSON) ' || query INTO plan;
    RETURN (plan -> 0 -> 'Plan' ->> 'Temp Written Blocks')::bigint;
END $$;
SELECT temp_blocks($$SELECT count(x) FROM (SELECT segment_agg(i::float8, i / 1000,
         '{"type": "MovingAverage", "window_size": 10}', true) OVER () AS x
         FROM (SELECT generate_series(1, 200000) AS i) AS g) AS s$$) AS segment_agg_blocks,
       temp_blocks($$SELECT count(x) FROM (SELECT segment_key(i::float8, i / 1000, true) OVER () AS x
         FROM (SELECT generate_series(1, 200000) AS i) AS g) AS s$$) AS segment_key_blocks,
       temp_blocks($$SELECT count(x) FROM (SELECT count(*) OVER () AS x
         FROM (SELECT generate_series(1, 200000) AS i) AS g) AS s$$) > 0 AS count_over_spills;
RESET work_mem;
