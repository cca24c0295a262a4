-- Operators that know time (docs/reference.md, "Time").  Expected values
-- are worked out by hand from the rules stated there.
\pset format unaligned
\pset null 'null'

-- segment_agg with the rows' timestamps first: for a pipeline that does not
-- use them, exactly the form without them.  Rows (ts in minutes, v, k):
-- segments k=1 (1, 2), k=2 (3, 4) closed by the last row with close_at_end.
SELECT ts, k,
       segment_agg(v, k, '{"type": "CumulativeSum"}', true) OVER w AS without_ts,
       segment_agg(t, v, k, '{"type": "CumulativeSum"}', true) OVER w AS with_ts,
       segment_agg(t, v, k, '{"type": "CumulativeSum"}') OVER w AS not_closed,
       segment_agg(t, ARRAY[v, -v], k, '{"type": "Pipeline", "input_port_types": ["number", "number"], "operators": [{"id": "a", "type": "Addition"}, {"id": "s", "type": "CumulativeSum"}], "connections": [{"from": "a", "to": "s"}], "entryOperator": "a", "outputMappings": {"s": {"o1": "o1"}}}', true) OVER w AS arr
FROM (VALUES (1, 1.0::float8, 1), (2, 2.0, 1), (3, 3.0, 2), (4, 4.0, 2)) AS r(ts, v, k),
     LATERAL (SELECT timestamptz '2026-01-01 00:00+00' + ts * interval '1 minute' AS t) AS x
WINDOW w AS (ORDER BY ts)
ORDER BY ts;

-- The array form without the option.
SELECT ts, segment_agg(t, ARRAY[v], k, '{"type": "CumulativeSum"}') OVER (ORDER BY ts) AS arr
FROM (VALUES (1, 1.0::float8, 1), (2, 2.0, 1), (3, 3.0, 2)) AS r(ts, v, k),
     LATERAL (SELECT timestamptz '2026-01-01 00:00+00' + ts * interval '1 minute' AS t) AS x
ORDER BY ts;

-- A NULL timestamp is an error, as in pipeline_agg, whatever the key.
SELECT segment_agg(NULL::timestamptz, 1.0::float8, 1, '{"type": "CumulativeSum"}') OVER ();
SELECT segment_agg(NULL::timestamptz, 1.0::float8, NULL::int, '{"type": "CumulativeSum"}') OVER ();
SELECT segment_agg(NULL::timestamptz, ARRAY[1.0::float8], 1, '{"type": "CumulativeSum"}') OVER ();
