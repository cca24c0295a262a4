-- A watermark: segpipe_maintain(watermark => ..., heartbeat_unit,
-- heartbeat_zone and/or quiet) records the heartbeats it applies, and
-- segpipe_close_silent(results, at) applies to each sensor behind
-- at - watermark the heartbeats due since its progress.  The results are a
-- run over the readings and the heartbeats applied (punctuation rows, after
-- a reading of the same ts), through every change: each step below checks
-- that against pipeline_agg over both.
\pset null null
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
-- (the CONTEXT lines of errors raised in PL/pgSQL name line numbers)
\set SHOW_CONTEXT never

-- Berlin days: 2026-03-29 has 23 hours, 2026-10-25 has 25.  A daily sum.
CREATE TABLE spring (sensor int NOT NULL, ts timestamptz NOT NULL, v float8, site text);
INSERT INTO spring VALUES (1, '2026-03-28 10:00+00', 1, 'a'), (1, '2026-03-29 08:00+00', 2, 'a'),
                          (2, '2026-03-28 12:00+00', 3, 'b');
SELECT segpipe_maintain('spring', 'sensor', 'ts', 'v', $$date_trunc('day', ts, 'Europe/Berlin')$$,
                        '{"type": "CumulativeSum"}', 'spring_daily',
                        watermark => '1 hour', heartbeat_unit => 'day', heartbeat_zone => 'Europe/Berlin');

-- rows in results or in the run over readings and heartbeats but not both,
-- and states that differ from that run's pipeline (as text: the bytes)
CREATE FUNCTION spring_differences() RETURNS TABLE (results bigint, states bigint) LANGUAGE sql AS $$
	WITH run AS (
		SELECT x.sensor, pipeline_agg(x.ts, x.v, x.k, '{"type": "CumulativeSum"}' ORDER BY x.ts, x.v, x.k) AS p
		FROM (SELECT sensor, ts, v, date_trunc('day', ts, 'Europe/Berlin') AS k FROM spring
		      UNION ALL SELECT sensor, ts, NULL, key FROM spring_daily_heartbeat) AS x
		GROUP BY x.sensor),
	expected AS (SELECT run.sensor, e.ts, e.key::timestamptz AS key, e.port, e.value FROM run, emissions(run.p) AS e),
	got AS (SELECT sensor, ts, key, port, value FROM spring_daily)
	SELECT (SELECT count(*) FROM ((SELECT * FROM expected EXCEPT ALL SELECT * FROM got)
	                              UNION ALL (SELECT * FROM got EXCEPT ALL SELECT * FROM expected)) AS d),
	       (SELECT count(*) FROM spring_daily_state AS s FULL JOIN run USING (sensor)
	        WHERE s.state::text IS DISTINCT FROM without_emissions(run.p)::text)
$$;

-- the 28th of sensor 1 closed on its reading of the 29th; nothing else yet
SELECT * FROM spring_daily ORDER BY sensor, ts;
-- At 23:30 UTC on the 28th the watermark is 22:30: Berlin's midnight of
-- the 29th (23:00 UTC) is not due yet; at midnight UTC it is (sensor 1 is
-- past it already).  Again at the same time: nothing more.
SELECT segpipe_close_silent('spring_daily', '2026-03-28 23:30+00') AS applied;
SELECT segpipe_close_silent('spring_daily', '2026-03-29 00:00+00') AS applied;
SELECT segpipe_close_silent('spring_daily', '2026-03-29 00:00+00') AS applied;
-- Berlin's midnight of the 30th is 22:00 UTC (the 29th has 23 hours): due
-- at 23:00 UTC, not a minute before.  It closes sensor 1's 29th; sensor 2's
-- 29th fed nothing and emits nothing.
SELECT segpipe_close_silent('spring_daily', '2026-03-29 22:59+00') AS applied;
SELECT segpipe_close_silent('spring_daily', '2026-03-29 23:00+00') AS applied;
SELECT segpipe_close_silent('spring_daily', '2026-03-29 23:00+00') AS applied;
SELECT *, extract(epoch FROM ts - key)::int / 3600 AS hours FROM spring_daily ORDER BY sensor, ts;
SELECT sensor, ts, key, ts AT TIME ZONE 'Europe/Berlin' AS local FROM spring_daily_heartbeat ORDER BY sensor, ts;
SELECT sensor, pipeline_progress(state), pipeline_rows(state), pipeline_key(state) FROM spring_daily_state ORDER BY sensor;
SELECT sensor, ts FROM spring_daily_checkpoint ORDER BY sensor, ts;
SELECT * FROM spring_differences();

-- A reading before an applied heartbeat is late, and corrected: the 29th
-- of sensor 1 sums 12, still closed at the heartbeat.  One at the
-- heartbeat's instant runs before it.
INSERT INTO spring VALUES (1, '2026-03-29 21:00+00', 10, 'a');
INSERT INTO spring VALUES (2, '2026-03-29 22:00+00', 4, 'b');
SELECT * FROM spring_daily ORDER BY sensor, ts;
SELECT * FROM spring_daily_realtime WHERE provisional ORDER BY sensor;
SELECT * FROM spring_differences();
-- sensor 1's 30th now begins after 21:00: its checkpoint is taken there, and
-- the one at 08:00 (no segment begins after it any more) goes, as a run
-- from the first reading would have it
SELECT sensor, ts FROM spring_daily_checkpoint ORDER BY sensor, ts;
-- updates and deletes replay the heartbeats with the readings
UPDATE spring SET v = 20 WHERE sensor = 1 AND v = 10;
SELECT * FROM spring_daily WHERE sensor = 1 ORDER BY ts;
DELETE FROM spring WHERE sensor = 1 AND ts = '2026-03-28 10:00+00';
SELECT * FROM spring_daily WHERE sensor = 1 ORDER BY ts;
SELECT * FROM spring_differences();
-- a rebuild finds what maintenance left, byte for byte
CREATE TABLE kept_state AS SELECT sensor, state::text AS state FROM spring_daily_state;
CREATE TABLE kept_checkpoint AS SELECT sensor, ts, state::text AS state FROM spring_daily_checkpoint;
CREATE TABLE kept_results AS SELECT * FROM spring_daily;
SELECT segpipe_rebuild('spring_daily') AS sensors_rebuilt;
SELECT (SELECT count(*) FROM ((SELECT sensor, state::text FROM spring_daily_state EXCEPT SELECT * FROM kept_state)
                              UNION ALL (SELECT * FROM kept_state EXCEPT SELECT sensor, state::text FROM spring_daily_state)) AS d) AS states,
       (SELECT count(*) FROM ((SELECT sensor, ts, state::text FROM spring_daily_checkpoint EXCEPT SELECT * FROM kept_checkpoint)
                              UNION ALL (SELECT * FROM kept_checkpoint EXCEPT SELECT sensor, ts, state::text FROM spring_daily_checkpoint)) AS d) AS checkpoints,
       (SELECT count(*) FROM ((SELECT * FROM spring_daily EXCEPT ALL SELECT * FROM kept_results)
                              UNION ALL (SELECT * FROM kept_results EXCEPT ALL SELECT * FROM spring_daily)) AS d) AS results,
       (SELECT count(*) FROM kept_checkpoint) AS checkpoints_kept;
DROP TABLE kept_state, kept_checkpoint, kept_results;
-- a sensor whose readings are all gone loses its heartbeats with its state;
-- back, it is a new sensor
DELETE FROM spring WHERE sensor = 1;
SELECT sensor, count(*) FROM spring_daily_heartbeat GROUP BY sensor ORDER BY sensor;
SELECT sensor FROM spring_daily_state ORDER BY sensor;
INSERT INTO spring VALUES (1, '2026-03-29 09:00+00', 7, 'a');
SELECT * FROM spring_daily ORDER BY sensor, ts;
SELECT * FROM spring_differences();
-- TRUNCATE clears them
TRUNCATE spring;
SELECT (SELECT count(*) FROM spring_daily) AS results, (SELECT count(*) FROM spring_daily_state) AS states,
       (SELECT count(*) FROM spring_daily_heartbeat) AS heartbeats;

-- Berlin's 25th of October has 25 hours: its midnights are 22:00 UTC on
-- the 24th and 23:00 UTC on the 25th.  Two days due at once: the 25th
-- closes (sum 11), the 26th fed nothing.
CREATE TABLE autumn (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('autumn', 'sensor', 'ts', 'v', $$date_trunc('day', ts, 'Europe/Berlin')$$,
                        '{"type": "CumulativeSum"}', 'autumn_daily',
                        watermark => '1 hour', heartbeat_unit => 'day', heartbeat_zone => 'Europe/Berlin');
INSERT INTO autumn VALUES (3, '2026-10-24 22:30+00', 5), (3, '2026-10-25 22:30+00', 6);
SELECT segpipe_close_silent('autumn_daily', '2026-10-27 00:00+00') AS applied;
SELECT *, extract(epoch FROM ts - key)::int / 3600 AS hours FROM autumn_daily ORDER BY sensor, ts;
SELECT sensor, ts, key, ts AT TIME ZONE 'Europe/Berlin' AS local FROM autumn_daily_heartbeat ORDER BY ts;

-- Heartbeats after silence (quiet), every 6 hours from the sensor's latest
-- reading; the key's other columns are that reading's (the site).  A
-- watermark of 0: due at once, the watermark's instant included.
CREATE TABLE gappy (sensor int NOT NULL, ts timestamptz NOT NULL, v float8, site text);
INSERT INTO gappy VALUES (1, '2026-03-01 08:00+00', 10, 'north'), (1, '2026-03-01 16:00+00', 14, 'south');
SELECT segpipe_maintain('gappy', 'sensor', 'ts', 'v', $$site || ' ' || (ts AT TIME ZONE 'UTC')::date$$,
                        '{"type": "MaxTracker"}', 'gappy_daily', watermark => '0', quiet => '6 hours');
SELECT segpipe_close_silent('gappy_daily', '2026-03-02 10:00+00') AS applied;
SELECT segpipe_close_silent('gappy_daily', '2026-03-02 10:00+00') AS applied;
SELECT * FROM gappy_daily_heartbeat ORDER BY ts;
SELECT * FROM gappy_daily ORDER BY ts;
-- a new reading closes nothing (its 2nd fed nothing); the next quiet
-- heartbeat is 6 hours after it
INSERT INTO gappy VALUES (1, '2026-03-03 09:00+00', 12, 'south');
SELECT segpipe_close_silent('gappy_daily', '2026-03-03 20:00+00') AS applied;
SELECT ts, key FROM gappy_daily_heartbeat WHERE ts > '2026-03-03' ORDER BY ts;
-- both kinds: calendar ones at UTC midnights, and quiet ones counted from
-- the latest reading (09:00 on the 3rd), not from the heartbeats since
SELECT segpipe_unmaintain('gappy_daily', drop_tables => true);
SELECT segpipe_maintain('gappy', 'sensor', 'ts', 'v', $$site || ' ' || (ts AT TIME ZONE 'UTC')::date$$,
                        '{"type": "MaxTracker"}', 'gappy_daily', watermark => '0', quiet => '12 hours',
                        heartbeat_unit => 'day', heartbeat_zone => 'UTC');
SELECT segpipe_close_silent('gappy_daily', '2026-03-05 00:00+00') AS applied;
SELECT ts, key FROM gappy_daily_heartbeat ORDER BY ts;

-- Under late => 'drop' the pipeline meets a reading before an applied
-- heartbeat itself: skipped and counted; under 'error' the insert fails.
CREATE TABLE strict_r (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
INSERT INTO strict_r VALUES (1, '2026-03-01 10:00+00', 1);
SELECT segpipe_maintain('strict_r', 'sensor', 'ts', 'v', '(ts AT TIME ZONE ''UTC'')::date',
                        '{"operators": [{"type": "MaxTracker", "id": "max"}], "late": "drop"}', 'strict_daily',
                        late => 'drop', watermark => '0', heartbeat_unit => 'day', heartbeat_zone => 'UTC');
SELECT segpipe_close_silent('strict_daily', '2026-03-02 06:00+00') AS applied;
INSERT INTO strict_r VALUES (1, '2026-03-01 23:00+00', 50);
SELECT * FROM strict_daily ORDER BY ts;
SELECT pipeline_rows(state), pipeline_late(state), pipeline_progress(state) FROM strict_daily_state;
SELECT segpipe_unmaintain('strict_daily', drop_tables => true);
TRUNCATE strict_r;
INSERT INTO strict_r VALUES (1, '2026-03-01 10:00+00', 1);
SELECT segpipe_maintain('strict_r', 'sensor', 'ts', 'v', '(ts AT TIME ZONE ''UTC'')::date',
                        '{"operators": [{"type": "MaxTracker", "id": "max"}], "late": "error"}', 'strict_daily',
                        late => 'error', watermark => '0', heartbeat_unit => 'day', heartbeat_zone => 'UTC');
SELECT segpipe_close_silent('strict_daily', '2026-03-02 06:00+00') AS applied;
INSERT INTO strict_r VALUES (1, '2026-03-01 23:00+00', 50);
SELECT * FROM strict_daily ORDER BY ts;

-- misuse
SELECT segpipe_maintain('autumn', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'x', watermark => '1 hour');
SELECT segpipe_maintain('autumn', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'x', quiet => '1 hour');
SELECT segpipe_maintain('autumn', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'x',
                        watermark => '1 hour', heartbeat_unit => 'day');
SELECT segpipe_maintain('autumn', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'x',
                        watermark => '-1 hour', quiet => '1 hour');
SELECT segpipe_maintain('autumn', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'x',
                        watermark => '1 mon', quiet => '1 hour');
SELECT segpipe_maintain('autumn', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'x',
                        watermark => '1 hour', heartbeat_unit => 'fortnight', heartbeat_zone => 'UTC');
SELECT segpipe_maintain('autumn', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'x',
                        watermark => '1 hour', heartbeat_unit => 'day', heartbeat_zone => 'Mars/Olympus');
SELECT segpipe_maintain('autumn', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'x',
                        watermark => '1 hour', quiet => '0');
SELECT segpipe_maintain('autumn', 'sensor', 'ts', 'v', 'tableoid::int', '{"type": "MaxTracker"}', 'x',
                        watermark => '1 hour', quiet => '1 hour');
-- pg_cron is not installed in this database
SELECT segpipe_maintain('autumn', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'x',
                        watermark => '1 hour', quiet => '1 hour', schedule => '*/5 * * * *');
-- (nothing of the refused set-ups stays)
SELECT count(*) FROM pg_class WHERE relname LIKE 'x\_%' OR relname = 'x';
SELECT segpipe_close_silent('autumn_daily', NULL);
SELECT segpipe_close_silent('autumn_daily', 'infinity');
SELECT segpipe_close_silent(NULL);
SELECT segpipe_close_silent('autumn');
CREATE TABLE plain (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('plain', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'plain_daily');
SELECT segpipe_close_silent('plain_daily');
SELECT to_regclass('plain_daily_heartbeat') AS heartbeat_table;

-- segpipe_unmaintain(drop_tables) drops the heartbeat table and the function
SELECT segpipe_unmaintain('autumn_daily', drop_tables => true);
SELECT to_regclass('autumn_daily_heartbeat') AS heartbeat_table, to_regprocedure('autumn_daily_close(timestamptz)') AS close;
SELECT segpipe_unmaintain('spring_daily');
SELECT to_regclass('spring_daily_heartbeat') AS heartbeat_table, to_regprocedure('spring_daily_close(timestamptz)') AS close;
DROP TABLE spring_daily, spring_daily_state, spring_daily_checkpoint, spring_daily_heartbeat CASCADE;
SELECT segpipe_unmaintain('gappy_daily', drop_tables => true);
SELECT segpipe_unmaintain('strict_daily', drop_tables => true);
SELECT segpipe_unmaintain('plain_daily', drop_tables => true);
DROP FUNCTION spring_differences();
DROP TABLE spring, autumn, gappy, strict_r, plain;
