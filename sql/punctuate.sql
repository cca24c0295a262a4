-- punctuate(p, ts, key): a punctuation row applied to a stored pipeline,
-- exactly as pipeline_agg would apply it.
\pset format unaligned
\pset null 'null'
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';

-- What a pipeline says about itself: key, progress, counters, buffer and
-- the emissions of the run (or punctuation) that produced it.
CREATE FUNCTION show(p pipeline) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT concat_ws(' ', 'key=' || coalesce(pipeline_key(p), '-'),
                   'progress=' || coalesce(to_char(pipeline_progress(p) AT TIME ZONE 'UTC', 'SS'), '-'),
                   'rows=' || pipeline_rows(p), 'late=' || pipeline_late(p),
                   'pending=' || coalesce((SELECT string_agg(q.port || ':' || q.value, ',') FROM pending(p) AS q), '-'),
                   'emitted=' || coalesce((SELECT string_agg(to_char(e.ts AT TIME ZONE 'UTC', 'SS') || '/' || e.key || '/' || e.port || ':' || e.value, ',')
                                           FROM emissions(p) AS e), '-'))
$$;

-- CumulativeSum over (1, 10, key 1), (2, 20, key 1): the segment of key 1
-- is open and holds 30.
CREATE TABLE base AS
SELECT pipeline_agg(at(s), v, k, '{"type": "CumulativeSum"}' ORDER BY s) AS p
FROM (VALUES (1, 10.0, 1), (2, 20, 1)) AS r(s, v, k);
SELECT show(p) FROM base;

-- A new key closes the open segment: 30 is emitted for key 1, stamped 3;
-- key 2 is current, with nothing buffered.
SELECT show(punctuate(p, at(3), 2)) FROM base;
-- The same key closes nothing; time moves.
SELECT show(punctuate(p, at(3), 1)) FROM base;
-- An equal timestamp is not late.
SELECT show(punctuate(p, at(2), 2)) FROM base;
-- A NULL key: time only.
SELECT show(punctuate(p, at(3), NULL::int)) FROM base;
-- Twice: the second punctuation closes the empty segment of key 2, which
-- emits nothing.
SELECT show(punctuate(punctuate(p, at(3), 2), at(4), 3)) FROM base;

-- No segment yet: a bare spec takes the key; nothing is emitted.
SELECT show(punctuate('{"type": "CumulativeSum"}', at(1), 5));
SELECT show(punctuate('{"type": "CumulativeSum"}', at(1), NULL::int));
-- After flush(): the key was forgotten, so the punctuation opens a segment.
SELECT show(flush(p)), show(punctuate(flush(p), at(3), 2)) FROM base;

-- Late punctuation: an error by default, naming both timestamps ...
SELECT punctuate(p, at(1), 2) FROM base;
-- (printed in the session's time zone, as pipeline_agg prints it) ...
SET TimeZone = 'America/New_York';
SELECT punctuate(p, at(1), 2) FROM base;
SET TimeZone = 'UTC';
-- ... dropped and counted under "late": "drop": nothing closes, the
-- progress stays, the emissions are empty.
SELECT show(punctuate(pipeline_agg(at(s), v, k,
                                   '{"type": "Pipeline", "operators": [{"type": "CumulativeSum"}], "late": "drop"}'
                                   ORDER BY s), at(1), 2))
FROM (VALUES (1, 10.0, 1), (2, 20, 1)) AS r(s, v, k);

-- NULL arguments: a NULL ts is an error, a NULL pipeline gives NULL.
SELECT punctuate(p, NULL, 2) FROM base;
SELECT punctuate(NULL, at(3), 2) IS NULL AS null_pipeline;
-- The key's type must be the pipeline's.
SELECT punctuate(p, at(3), 'x'::text) FROM base;
SELECT punctuate(p, at(3), NULL) FROM base;

-- Several output ports: both emit, in port order.
SELECT show(punctuate(pipeline_agg(at(s), v, k, '{
        "type": "Pipeline", "output_port_types": ["number", "number"],
        "operators": [{"type": "Identity", "id": "in"},
                      {"type": "CumulativeSum", "id": "sum"},
                      {"type": "CountNumber", "id": "n"}],
        "connections": [{"from": "in", "to": "sum"}, {"from": "in", "to": "n"}],
        "entryOperator": "in",
        "outputMappings": {"sum": {"o1": "o1"}, "n": {"o1": "o2"}}}' ORDER BY s), at(9), 'next'::text))
FROM (VALUES (1, 1.5, 'day'), (2, 2.5, 'day')) AS r(s, v, k);

-- Bit for bit.  For three specs, every prefix of a stream with data,
-- punctuation and unpaired rows, and punctuation earlier than, equal to and
-- later than the progress (earlier only where it may be dropped) with every
-- kind of key: punctuate(p, ts, key) is byte for byte
-- pipeline_agg(ts, NULL, key, p) (resuming from p), and one run of
-- pipeline_agg over the prefix and the punctuation ends in the same state,
-- with the emissions of p followed by those of the punctuation.
CREATE TABLE stream (s int, v float8, k text);
INSERT INTO stream VALUES (1, 1, 'a'), (2, 2, 'a'), (3, NULL, NULL), (4, 3, 'b'),
                          (5, 4, NULL), (6, 5, 'b');
CREATE TABLE specs (name text, spec pipeline);
INSERT INTO specs VALUES
  ('sum', '{"type": "CumulativeSum"}'),
  ('ma2 drop', '{"type": "Pipeline", "operators": [{"type": "MovingAverage", "id": "ma", "window_size": 2}],
                 "late": "drop"}'),
  ('mesh', '{"type": "Pipeline", "output_port_types": ["number", "number"],
             "operators": [{"type": "Identity", "id": "in"}, {"type": "CumulativeSum", "id": "sum"},
                           {"type": "CountNumber", "id": "n"}],
             "connections": [{"from": "in", "to": "sum"}, {"from": "in", "to": "n"}],
             "entryOperator": "in", "outputMappings": {"sum": {"o1": "o1"}, "n": {"o1": "o2"}}}');
CREATE TABLE cases AS
SELECT c.*, punctuate(c.p, c.pts, c.pk) AS a,
       (SELECT pipeline_agg(t.ts, NULL::float8, t.k, c.p) FROM (VALUES (c.pts, c.pk)) AS t(ts, k)) AS b,
       (SELECT pipeline_agg(x.ts, x.v, x.k, c.spec ORDER BY x.o)
        FROM (SELECT at(s) AS ts, v, k, s AS o FROM stream WHERE s <= c.n
              UNION ALL SELECT c.pts, NULL, c.pk, 100) AS x) AS one_run
FROM (SELECT sp.name, sp.spec, n, d, pk, at(n + d) AS pts,
             coalesce((SELECT pipeline_agg(at(s), v, k, sp.spec ORDER BY s) FROM stream WHERE s <= n),
                      sp.spec) AS p
      FROM specs AS sp, generate_series(0, 6) AS n, (VALUES (-1), (0), (1)) AS d(d),
           (VALUES (NULL), ('a'), ('b'), ('c')) AS pk(pk)
      WHERE d >= 0 OR n = 0 OR sp.name LIKE '%drop') AS c;
SELECT count(*) AS cases,
       count(*) FILTER (WHERE a = b AND a::text = b::text) AS same_bytes,
       count(*) FILTER (WHERE a::text::jsonb #- '{state,emissions}'
                              = one_run::text::jsonb #- '{state,emissions}') AS same_state,
       count(*) FILTER (WHERE coalesce(p::text::jsonb #> '{state,emissions}', '[]') ||
                              (a::text::jsonb #> '{state,emissions}')
                              = one_run::text::jsonb #> '{state,emissions}') AS same_emissions,
       count(*) FILTER (WHERE jsonb_array_length(a::text::jsonb #> '{state,emissions}') > 0) AS emitting,
       count(*) FILTER (WHERE pipeline_late(a) > coalesce(pipeline_late(p), 0)) AS dropped_late
FROM cases;

-- A watermark closes the open day of every sensor, silent ones included.
-- Sensor 1 reported until the 2nd at 16:00, sensor 2 has been silent since
-- the 1st at 18:00; neither day is closed yet.
CREATE TABLE sensor_readings (sensor_id int, ts timestamptz, v float8);
INSERT INTO sensor_readings VALUES
  (1, '2026-03-01 08:00+00', 10), (1, '2026-03-01 16:00+00', 14), (1, '2026-03-02 08:00+00', 12),
  (1, '2026-03-02 16:00+00', 17), (2, '2026-03-01 09:00+00', 3), (2, '2026-03-01 18:00+00', 5);
CREATE TABLE sensor_state AS
SELECT sensor_id, pipeline_agg(ts, v, (ts AT TIME ZONE 'UTC')::date, '{"type": "MaxTracker"}' ORDER BY ts) AS state
FROM sensor_readings GROUP BY sensor_id;
CREATE TABLE daily_results (sensor_id int, ts timestamptz, day date, max float8);
INSERT INTO daily_results
SELECT s.sensor_id, e.ts, e.key::date, e.value FROM sensor_state AS s, emissions(s.state) AS e;
-- midnight of the 3rd: every open day before it is closed, stamped midnight
WITH w AS (SELECT timestamptz '2026-03-03 00:00+00' AS watermark),
     closed AS (UPDATE sensor_state SET state = punctuate(state, w.watermark, (w.watermark AT TIME ZONE 'UTC')::date)
                FROM w RETURNING sensor_id, state)
INSERT INTO daily_results
SELECT c.sensor_id, e.ts, e.key::date, e.value FROM closed AS c, emissions(c.state) AS e;
SELECT * FROM daily_results ORDER BY sensor_id, day;
-- the same watermark again closes nothing more
SELECT sensor_id, show(punctuate(state, '2026-03-03 00:00+00', date '2026-03-03'))
FROM sensor_state ORDER BY sensor_id;
-- and a reading before the watermark is late: the watermark is a promise
SELECT pipeline_agg(timestamptz '2026-03-02 20:00+00', 9, date '2026-03-02', state)
FROM sensor_state WHERE sensor_id = 2;
-- The stored result depends on no session setting.
CREATE TABLE iso AS
SELECT sensor_id, punctuate(state, '2026-03-05 00:00+00', date '2026-03-05') AS p FROM sensor_state;
SET DateStyle = 'SQL, DMY';
SET TimeZone = 'Asia/Tokyo';
SELECT count(*) FILTER (WHERE i.p = punctuate(s.state, '2026-03-05 00:00+00', date '2026-03-05')) AS same
FROM iso AS i JOIN sensor_state AS s USING (sensor_id);
-- leave nothing behind for the suites that follow
DROP TABLE base, stream, specs, cases, sensor_readings, sensor_state, daily_results, iso;
DROP FUNCTION show(pipeline);
