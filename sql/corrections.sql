-- Maintained results corrected on every change (late => 'correct', the
-- default): after each statement the results table equals a run over the
-- readings as they are, each sensor's rows in the order ts, value, key.
-- The pipeline keeps each UTC day's maximum; a day's maximum is written
-- when the sensor's first reading of a later day arrives.
\pset format unaligned
\pset null 'null'
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
\set SHOW_CONTEXT never
CREATE TABLE readings (sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8, note text);
INSERT INTO readings (sensor_id, ts, v) VALUES
  (1, '2026-03-01 08:00+00', 10), (1, '2026-03-01 16:00+00', 14), (1, '2026-03-02 08:00+00', 12),
  (2, '2026-03-01 09:00+00', 3), (2, '2026-03-02 09:00+00', 5), (2, '2026-03-03 09:00+00', 1);
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'daily');

-- The rule, recomputed: segment_agg over every sensor's readings; the
-- number of rows that differ either way, and the state's row counts.
CREATE FUNCTION differences() RETURNS TABLE (differ bigint, rows_ok boolean) LANGUAGE sql AS $$
  WITH whole AS (
    SELECT sensor_id, ts, k AS key, 1 AS port, m AS value
    FROM (SELECT sensor_id, ts,
                 segment_key(v, ts::date) OVER w AS k,
                 segment_agg(v, ts::date, '{"type": "MaxTracker"}') OVER w AS m
          FROM readings WINDOW w AS (PARTITION BY sensor_id ORDER BY ts, v)) AS x
    WHERE m IS NOT NULL),
  got AS (SELECT sensor_id, ts, key, port, value FROM daily)
  SELECT (SELECT count(*) FROM ((SELECT * FROM whole EXCEPT ALL SELECT * FROM got)
                               UNION ALL (SELECT * FROM got EXCEPT ALL SELECT * FROM whole)) AS d),
         coalesce((SELECT bool_and(pipeline_rows(s.state) = (SELECT count(*) FROM readings AS r WHERE r.sensor_id = s.sensor_id))
                   FROM daily_state AS s), true)
         AND NOT EXISTS (SELECT 1 FROM readings AS r WHERE NOT EXISTS (SELECT 1 FROM daily_state AS s WHERE s.sensor_id = r.sensor_id))
$$;
SELECT * FROM daily ORDER BY sensor_id, ts;
SELECT * FROM differences();
-- a checkpoint before each day but a sensor's first: the state after the
-- readings up to its time
SELECT sensor_id, ts, pipeline_key(state) AS day, pipeline_rows(state) AS rows FROM daily_checkpoint ORDER BY 1, 2;

-- A late row raises sensor 1's first day; sensor 2 is not touched (its
-- rows keep their transaction ids).
CREATE TEMP TABLE before AS
  SELECT 'state' AS t, xmin::text AS x FROM daily_state WHERE sensor_id = 2
  UNION ALL SELECT 'result', xmin::text FROM daily WHERE sensor_id = 2
  UNION ALL SELECT 'checkpoint', xmin::text FROM daily_checkpoint WHERE sensor_id = 2;
INSERT INTO readings (sensor_id, ts, v) VALUES (1, '2026-03-01 20:00+00', 99);
SELECT * FROM daily WHERE sensor_id = 1 ORDER BY ts;
SELECT * FROM differences();
SELECT count(*) AS sensor_2_rows, count(*) FILTER (WHERE (t, x) IN (SELECT * FROM before)) AS untouched
FROM (SELECT 'state' AS t, xmin::text AS x FROM daily_state WHERE sensor_id = 2
      UNION ALL SELECT 'result', xmin::text FROM daily WHERE sensor_id = 2
      UNION ALL SELECT 'checkpoint', xmin::text FROM daily_checkpoint WHERE sensor_id = 2) AS now;

-- UPDATE of a value, of a timestamp (the reading moves to the next day),
-- of the sensor (it moves to another sensor), of another column only.
UPDATE readings SET v = 50 WHERE sensor_id = 2 AND ts = '2026-03-02 09:00+00';
SELECT * FROM daily WHERE sensor_id = 2 ORDER BY ts;
UPDATE readings SET ts = '2026-03-02 07:00+00' WHERE sensor_id = 1 AND v = 99;
SELECT * FROM daily WHERE sensor_id = 1 ORDER BY ts;
UPDATE readings SET sensor_id = 3 WHERE sensor_id = 2 AND ts = '2026-03-01 09:00+00';
SELECT * FROM daily ORDER BY sensor_id, ts;
UPDATE readings SET note = 'checked';
SELECT * FROM differences();

-- DELETE: sensor 3 loses its only reading and with it its state.
DELETE FROM readings WHERE sensor_id = 3;
DELETE FROM readings WHERE sensor_id = 1 AND ts = '2026-03-01 16:00+00';
SELECT * FROM daily ORDER BY sensor_id, ts;
SELECT sensor_id, pipeline_rows(state) AS rows, pipeline_key(state) AS day FROM daily_state ORDER BY 1;
SELECT * FROM differences();

-- Equal timestamps: run in the order of their values, however they arrive.
INSERT INTO readings (sensor_id, ts, v) VALUES (4, '2026-03-01 10:00+00', 7);
INSERT INTO readings (sensor_id, ts, v) VALUES (4, '2026-03-01 10:00+00', 2);
INSERT INTO readings (sensor_id, ts, v) VALUES (4, '2026-03-02 10:00+00', 1);
SELECT * FROM differences();

-- INSERT ... ON CONFLICT DO UPDATE, MERGE and COPY.
DELETE FROM readings WHERE sensor_id = 4;
CREATE UNIQUE INDEX ON readings (sensor_id, ts);
INSERT INTO readings (sensor_id, ts, v) VALUES (1, '2026-03-01 08:00+00', 70), (5, '2026-03-01 08:00+00', 6)
ON CONFLICT (sensor_id, ts) DO UPDATE SET v = excluded.v;
SELECT * FROM daily WHERE sensor_id = 1 ORDER BY ts;
MERGE INTO readings AS r
USING (VALUES (1, '2026-03-02 08:00+00'::timestamptz, 80::float8), (5, '2026-03-02 08:00+00', 8),
              (2, '2026-03-03 09:00+00', NULL)) AS n(sensor_id, ts, v)
ON r.sensor_id = n.sensor_id AND r.ts = n.ts
WHEN MATCHED AND n.v IS NULL THEN DELETE
WHEN MATCHED THEN UPDATE SET v = n.v
WHEN NOT MATCHED THEN INSERT (sensor_id, ts, v) VALUES (n.sensor_id, n.ts, n.v);
SELECT * FROM daily ORDER BY sensor_id, ts;
SELECT * FROM differences();
COPY readings (sensor_id, ts, v) FROM stdin;
5	2026-03-01 12:00:00+00	9
5	2026-03-03 12:00:00+00	1
\.
SELECT * FROM daily WHERE sensor_id = 5 ORDER BY ts;
SELECT * FROM differences();

-- The real-time view: the results, then each open day so far.
SELECT * FROM daily_realtime ORDER BY sensor_id, ts, provisional;

-- A rolled-back correction leaves nothing behind.
BEGIN;
DELETE FROM readings WHERE sensor_id = 1;
SELECT count(*) AS sensor_1_inside FROM daily WHERE sensor_id = 1;
ROLLBACK;
SELECT count(*) AS sensor_1_after FROM daily WHERE sensor_id = 1;
SELECT * FROM differences();

-- TRUNCATE clears results, states and checkpoints; the same readings
-- inserted again are not late.
TRUNCATE readings;
SELECT (SELECT count(*) FROM daily) AS results, (SELECT count(*) FROM daily_state) AS states,
       (SELECT count(*) FROM daily_checkpoint) AS checkpoints;
INSERT INTO readings (sensor_id, ts, v) VALUES (1, '2026-03-01 08:00+00', 10), (1, '2026-03-02 08:00+00', 12);
SELECT * FROM daily ORDER BY sensor_id, ts;
SELECT * FROM differences();

-- Set-up refuses to run outside READ COMMITTED, and refuses bad arguments.
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'other');
ROLLBACK;
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'other',
    beyond_horizon => 'refuse');
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'other',
    horizon => '1 month');
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'other',
    horizon => '-1 day');

-- A horizon: checkpoints older than two days behind their sensor's
-- progress go, but for the latest of them; with beyond_horizon => 'error'
-- a change older than the horizon is refused, and one inside it is not.
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'short',
    horizon => '2 days', beyond_horizon => 'error');
INSERT INTO readings (sensor_id, ts, v)
SELECT 1, '2026-03-02 08:00+00'::timestamptz + d * interval '1 day', d FROM generate_series(1, 5) AS d;
SELECT sensor_id, ts FROM short_checkpoint ORDER BY 1, 2;
INSERT INTO readings (sensor_id, ts, v) VALUES (1, '2026-03-04 09:00+00', 1);
UPDATE readings SET v = 100 WHERE sensor_id = 1 AND ts = '2026-03-06 08:00+00';
SELECT * FROM short WHERE sensor_id = 1 ORDER BY ts;
SELECT segpipe_unmaintain('short', true);

-- Partitions: a partitioned table's rows are maintained whichever table a
-- statement names; partitions created or attached later are too, detached
-- ones stop counting, and a truncated partition's sensors are run again
-- without its rows.
CREATE TABLE pr (sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8) PARTITION BY LIST (sensor_id);
CREATE TABLE pr_a PARTITION OF pr FOR VALUES IN (1, 2);
CREATE TABLE pr_b PARTITION OF pr FOR VALUES IN (3);
INSERT INTO pr VALUES (1, '2026-03-01 08:00+00', 1), (1, '2026-03-02 08:00+00', 2),
                      (3, '2026-03-01 08:00+00', 30), (3, '2026-03-02 08:00+00', 31);
SELECT segpipe_maintain('pr', 'sensor_id', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'pr_daily');
INSERT INTO pr_a VALUES (1, '2026-03-01 09:00+00', 5), (2, '2026-03-01 09:00+00', 20), (2, '2026-03-02 09:00+00', 21);
CREATE TABLE pr_c PARTITION OF pr FOR VALUES IN (4);
INSERT INTO pr_c VALUES (4, '2026-03-01 09:00+00', 40), (4, '2026-03-02 09:00+00', 41);
CREATE TABLE pr_d (LIKE pr);
INSERT INTO pr_d VALUES (5, '2026-03-01 09:00+00', 50), (5, '2026-03-02 09:00+00', 51);
ALTER TABLE pr ATTACH PARTITION pr_d FOR VALUES IN (5);
SELECT * FROM pr_daily ORDER BY sensor_id, ts;
SELECT c.relname, count(t.tgname) AS triggers FROM pg_class AS c LEFT JOIN pg_trigger AS t ON t.tgrelid = c.oid
WHERE c.relname LIKE 'pr\_%' AND c.relkind IN ('r', 'p') GROUP BY 1 ORDER BY 1;
ALTER TABLE pr DETACH PARTITION pr_b;
TRUNCATE pr_c;
SELECT * FROM pr_daily ORDER BY sensor_id, ts;
SELECT sensor_id FROM pr_daily_state ORDER BY 1;
SELECT c.relname, count(t.tgname) AS triggers FROM pg_class AS c LEFT JOIN pg_trigger AS t ON t.tgrelid = c.oid
WHERE c.relname LIKE 'pr\_%' AND c.relkind IN ('r', 'p') GROUP BY 1 ORDER BY 1;
-- an update through the parent that moves a reading to another partition
UPDATE pr SET sensor_id = 5 WHERE sensor_id = 1 AND ts = '2026-03-01 09:00+00';
SELECT * FROM pr_daily ORDER BY sensor_id, ts;
-- dropping a partition would leave its rows in the results: refused, as is
-- dropping one of its triggers; a detached table is an ordinary one again
DROP TABLE pr_c;
DROP TRIGGER pr_daily_update ON pr_a;
DROP TABLE pr_b;
CREATE TABLE pr_b (LIKE pr);
TRUNCATE pr;
SELECT (SELECT count(*) FROM pr_daily) AS results, (SELECT count(*) FROM pr_daily_state) AS states;

-- Tear-down: every trigger, on every partition, and both functions go.
SELECT segpipe_unmaintain('pr_daily', true);
SELECT segpipe_unmaintain('daily', true);
SELECT count(*) AS triggers FROM pg_trigger WHERE NOT tgisinternal;
SELECT count(*) AS left_over FROM pg_proc
WHERE (proname LIKE '%\_maintain' OR proname LIKE '%\_correct') AND proname NOT LIKE 'segpipe%';
DROP TABLE pr, pr_b, readings;
-- with the results gone, a partition drops as any table
CREATE TABLE pr2 (x int) PARTITION BY LIST (x);
CREATE TABLE pr2_a PARTITION OF pr2 FOR VALUES IN (1);
DROP TABLE pr2_a, pr2;
DROP FUNCTION differences();
