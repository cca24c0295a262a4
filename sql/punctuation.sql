-- Punctuation rows (docs/tour.md, "Punctuation"): a NULL value says "time has
-- reached ts".  It never reaches an operator; a non-NULL key that differs
-- from the current one closes the segment on that row.
\pset format unaligned
\pset null 'null'

-- Punctuation without a key changes nothing.  CountNumber counts only the
-- three data rows of key 1.
SELECT ts, segment_agg(v, k, '{"type": "CountNumber"}') OVER (ORDER BY ts)
FROM (VALUES (1, 1, 1), (2, NULL, NULL), (3, 1, 1), (4, NULL, NULL), (5, 1, 1),
             (6, 1, 2)) AS t(ts, v, k);

-- Punctuation with the same key is not a boundary and feeds nothing.
SELECT ts, segment_agg(v, k, '{"type": "CountNumber"}') OVER (ORDER BY ts)
FROM (VALUES (1, 1, 1), (2, NULL, 1), (3, 1, 1), (4, 1, 2)) AS t(ts, v, k);

-- Punctuation with a different key closes the segment on its own row, and
-- its key becomes the current key: the data row at ts 4 with that key is not
-- another boundary.
SELECT ts, segment_agg(v, k, '{"type": "CumulativeSum"}') OVER (ORDER BY ts)
FROM (VALUES (1, 1, 1), (2, 2, 1), (3, NULL, 2), (4, 10, 2), (5, 20, 2), (6, NULL, 3))
     AS t(ts, v, k);

-- The last segment is not emitted at end of input; a trailing punctuation
-- row with key 'Infinity' emits it.
SELECT ts, segment_agg(v, k) OVER (ORDER BY ts)
FROM (VALUES (1, 5, 0), (2, 6, 0), (3, NULL, 'Infinity'::float8)) AS t(ts, v, k);

-- Punctuation first: its key is the first key, so the data row with a
-- different key is a boundary, which has nothing to emit.
SELECT ts, segment_agg(v, k) OVER (ORDER BY ts)
FROM (VALUES (1, NULL, 0), (2, 7, 1), (3, 8, 2)) AS t(ts, v, k);

-- Two punctuation rows in a row with new keys: the second finds an empty
-- buffer and emits nothing.
SELECT ts, segment_agg(v, k) OVER (ORDER BY ts)
FROM (VALUES (1, 3, 0), (2, NULL, 1), (3, NULL, 2), (4, 4, 2), (5, 5, 3)) AS t(ts, v, k);

-- The array form: a NULL array, or an array whose elements are all NULL, is
-- punctuation.
SELECT ts, segment_agg(v, k, '{"type": "CumulativeSum"}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[1]::float8[], 1), (2, NULL, 1), (3, ARRAY[NULL]::float8[], 2),
             (4, ARRAY[5]::float8[], 2), (5, ARRAY[NULL]::float8[], 3))
     AS t(ts, v, k);

-- An array with the wrong number of elements is an error, as is one with
-- more than one dimension.  (Partly NULL arrays need a pipeline with
-- several data ports: see the arithmetic tests.)
SELECT segment_agg(v, k, '{"type": "Identity"}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[1, 2]::float8[], 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Identity"}') OVER (ORDER BY ts)
FROM (VALUES (1, '{}'::float8[], 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Identity"}') OVER (ORDER BY ts)
FROM (VALUES (1, '{{1}}'::float8[], 1)) AS t(ts, v, k);
-- The length is checked on punctuation rows too.
SELECT segment_agg(v, k, '{"type": "Identity"}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[NULL, NULL]::float8[], 1)) AS t(ts, v, k);
