-- segment_key(value, key): on each row that closes a segment, the key of
-- the segment it closes, else NULL.  Rows are classified as segment_agg
-- classifies them: a row with a NULL key (unpaired, or punctuation without
-- a key) changes nothing; any other row whose key differs from the current
-- one closes the segment.  Expected values worked out by hand.
\pset format unaligned
\pset null 'null'
SET DateStyle = 'ISO, YMD';

-- Where lag(key) goes wrong: rows 3 and 6 are unpaired (value, NULL key),
-- row 8 is punctuation without a key; row 4 is punctuation that closes A
-- (its last value is 2: row 3 was discarded), row 7 closes B (last value
-- 5), row 10 closes C (last value 9).  lag(k) is NULL on rows 4 and 7 and
-- names a key on rows that close nothing.
SELECT ts, v, k, segment_agg(v, k) OVER w AS emitted, segment_key(v, k) OVER w AS closed,
       lag(k) OVER w AS lag_k
FROM (VALUES (1, 1, 'A'), (2, 2, 'A'), (3, 3, NULL), (4, NULL, 'B'), (5, 5, 'B'),
             (6, 6, NULL), (7, 7, 'C'), (8, NULL, NULL), (9, 9, 'C'), (10, NULL, 'D'))
     AS t(ts, v, k)
WINDOW w AS (ORDER BY ts);

-- The array form classifies as segment_agg's: an array whose elements are
-- all NULL, or a NULL array, is punctuation, and closes with a new key.
SELECT ts, segment_key(v, k) OVER (ORDER BY ts) AS closed
FROM (VALUES (1, ARRAY[1, 2]::float8[], 1), (2, ARRAY[NULL, NULL]::float8[], 2),
             (3, NULL, 3), (4, ARRAY[3, 4], 3), (5, ARRAY[5, 6], NULL), (6, ARRAY[7, 8], 4))
     AS t(ts, v, k);

-- ... and refuses what segment_agg refuses (without a spec, it cannot
-- check the number of elements against data ports).
SELECT segment_key(v, k) OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[1, NULL]::float8[], 1)) AS t(ts, v, k);
SELECT segment_key(v, k) OVER (ORDER BY ts)
FROM (VALUES (1, '{{1}}'::float8[], 1)) AS t(ts, v, k);
SELECT segment_key(v, k) OVER (ORDER BY ts)
FROM (VALUES (1, '{}'::float8[], 1)) AS t(ts, v, k);

-- Partitions are independent: each starts with no key.
SELECT m, ts, segment_key(v, k) OVER (PARTITION BY m ORDER BY ts) AS closed
FROM (VALUES ('a', 1, 1, 10), ('a', 2, 1, 20), ('b', 1, 1, 20), ('b', 2, 1, 30), ('b', 3, 1, 30))
     AS t(m, ts, v, k)
ORDER BY m, ts;

-- One row per closed segment, with its key and result, in one query: the
-- sum of each hour's values, for the hours that closed.
SELECT closed AS hour, total
FROM (SELECT segment_key(v, date_trunc('hour', ts)) OVER w AS closed,
             segment_agg(v, date_trunc('hour', ts), '{"type": "CumulativeSum"}') OVER w AS total
      FROM (VALUES (timestamp '2026-03-29 01:10', 1), ('2026-03-29 01:50', 2),
                   ('2026-03-29 02:05', 4), ('2026-03-29 04:00', 8), ('2026-03-29 04:30', 16))
           AS t(ts, v)
      WINDOW w AS (ORDER BY ts)) AS s
WHERE closed IS NOT NULL;
