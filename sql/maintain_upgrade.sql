-- ALTER EXTENSION segpipe UPDATE moves results tables set up by 0.9.0, with
-- every option (a watermark with calendar and quiet heartbeats over
-- partitioned readings, a stage over that results table, horizons with
-- 'keep' and 'error' over other readings),
-- into the catalog: what each was given is read back, no generated function
-- is left, every table keeps its bytes, and those bytes are what
-- segpipe_rebuild makes.  Then inserts, late rows, updates, deletes, a
-- truncate of a partition and a close run on the new machinery, equal to a
-- recomputation after each.
\set regression_db :DBNAME
CREATE DATABASE segpipe_maintain_upgrade;
\c segpipe_maintain_upgrade
\pset format unaligned
\pset null 'null'
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
CREATE EXTENSION segpipe VERSION '0.9.0';
CREATE TABLE readings (sensor int NOT NULL, ts timestamptz NOT NULL, v float8) PARTITION BY RANGE (sensor);
CREATE TABLE readings_a PARTITION OF readings FOR VALUES FROM (0) TO (10);
CREATE TABLE readings_b PARTITION OF readings FOR VALUES FROM (10) TO (20);
-- six hours apart over five days, values from the sensor and the hour
INSERT INTO readings
SELECT s, timestamptz '2026-03-01 00:00+00' + h * interval '6 hours', (s * 7 + h * 3) % 11
FROM generate_series(1, 3) AS a(s), generate_series(0, 19) AS h
UNION ALL
SELECT s, timestamptz '2026-03-01 01:00+00' + h * interval '6 hours', (s + h) % 5
FROM generate_series(11, 12) AS a(s), generate_series(0, 19) AS h;
SELECT segpipe_maintain('readings', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'wm',
                        watermark => '2 hours', heartbeat_unit => 'day', heartbeat_zone => 'Europe/Berlin',
                        quiet => '30 hours');
CREATE TABLE r2 (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
INSERT INTO r2 SELECT sensor, ts, v FROM readings;
SELECT segpipe_maintain('r2', 'sensor', 'ts', 'v', $$date_trunc('day', ts, 'Europe/Berlin')$$,
                        '{"type": "CountNumber"}', 'keep2', horizon => '2 days', beyond_horizon => 'keep');
SELECT segpipe_maintain('r2', 'sensor', 'ts', 'v', 'ts::date', '{"type": "CumulativeSum"}', 'err1',
                        horizon => '1 day', beyond_horizon => 'error');
-- changes under 0.9.0 (within the horizons), run by the functions 0.9.0
-- generated, and heartbeats; this library refuses 0.9.0's insert
-- triggers, which carry SQL, so nothing here inserts into readings that
-- have one until the update
UPDATE readings SET v = 10 WHERE sensor = 2 AND ts = '2026-03-02 06:00+00';
DELETE FROM readings WHERE sensor = 11 AND ts = '2026-03-03 01:00+00';
UPDATE r2 SET v = 10 WHERE sensor = 2 AND ts = '2026-03-05 06:00+00';
DELETE FROM r2 WHERE sensor = 11 AND ts = '2026-03-05 13:00+00';
SELECT segpipe_close_silent('wm', '2026-03-07 12:00+00') AS heartbeats;
-- a stage: the daily maxima, maintained again by week
SELECT segpipe_maintain('wm', 'sensor', 'ts', 'value', $$date_trunc('week', key)$$, '{"type": "MaxTracker"}', 'weekly');

-- What every table holds, as bytes: the results, states, checkpoints and
-- heartbeats of each results table, in order.
CREATE FUNCTION pg_temp.bytes(results text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r text; s text; c text; h text := '';
	part text := 'sensor';
BEGIN
	EXECUTE format('SELECT md5(coalesce(string_agg(format(''%%s|%%s|%%s|%%s|%%s'', %1$I, ts, key, port, float8send(value)), '','' ORDER BY %1$I, ts, port, key), ''''))
	                FROM %2$I', part, results) INTO r;
	EXECUTE format('SELECT md5(coalesce(string_agg(format(''%%s|%%s'', %1$I, pipeline_send(state)), '','' ORDER BY %1$I), ''''))
	                FROM %2$I', part, results || '_state') INTO s;
	EXECUTE format('SELECT md5(coalesce(string_agg(format(''%%s|%%s|%%s'', %1$I, ts, pipeline_send(state)), '','' ORDER BY %1$I, ts), ''''))
	                FROM %2$I', part, results || '_checkpoint') INTO c;
	IF to_regclass(results || '_heartbeat') IS NOT NULL THEN
		EXECUTE format('SELECT md5(coalesce(string_agg(format(''%%s|%%s|%%s'', %1$I, ts, key), '','' ORDER BY %1$I, ts), ''''))
		                FROM %2$I', part, results || '_heartbeat') INTO h;
	END IF;
	RETURN left(md5(r || s || c || h), 12);
END
$$;
CREATE TABLE before AS SELECT n, pg_temp.bytes(n) AS bytes FROM unnest(ARRAY['wm', 'keep2', 'err1', 'weekly']) AS n;
SELECT n, (SELECT count(*) FROM pg_class WHERE relname = n) AS tables FROM before ORDER BY 1;

ALTER EXTENSION segpipe UPDATE;

-- Each is in the catalog, with what it was given; no generated function is
-- left; every table keeps its bytes.
SELECT results, readings, key, key_type, spec, late, horizon, beyond_horizon, watermark, heartbeat_unit, heartbeat_zone,
       quiet, heartbeat_table, checkpoint_table, realtime_view
FROM segpipe_catalog ORDER BY results::text;
SELECT count(*) AS generated_functions FROM pg_proc
WHERE proname ~ '^(wm|keep2|err1|weekly)_(maintain|correct|close)$';
SELECT c.relname, t.tgname, t.tgfoid::regproc, t.tgnargs FROM pg_trigger AS t JOIN pg_class AS c ON c.oid = t.tgrelid
WHERE NOT t.tgisinternal ORDER BY 1, 2;
SELECT b.n, pg_temp.bytes(b.n) = b.bytes AS same_bytes FROM before AS b ORDER BY 1;
-- ... and those bytes are what a rebuild from the readings makes
SELECT segpipe_rebuild('wm') AS wm, segpipe_rebuild('keep2') AS keep2, segpipe_rebuild('err1') AS err1,
       segpipe_rebuild('weekly') AS weekly;
SELECT b.n, pg_temp.bytes(b.n) = b.bytes AS rebuilt_same FROM before AS b ORDER BY 1;

-- On the new machinery: an insert in order, a late row within the
-- horizons, an update, a delete, a truncate of a partition, a close.
CREATE FUNCTION pg_temp.differences(results text, readings text, spec text, key text, heartbeats boolean) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
	src text := CASE WHEN results = 'weekly' THEN 'SELECT sensor, ts, value AS v, key AS rkey FROM wm'
	                 ELSE format('SELECT sensor, ts, v, NULL::date AS rkey FROM %I', readings) END
	            || CASE WHEN heartbeats THEN format(' UNION ALL SELECT sensor, ts, NULL, NULL FROM %I_heartbeat', results) ELSE '' END;
	k text := CASE WHEN results = 'weekly' THEN $k$date_trunc('week', rkey)$k$ ELSE key END;
BEGIN
	EXECUTE format($q$SELECT count(*) FROM (
	  (SELECT q.sensor, e.ts, e.key, e.port, e.value
	   FROM (SELECT sensor, pipeline_agg(ts, v, %1$s, %2$L::pipeline ORDER BY ts, v, %1$s) AS p FROM (%3$s) AS r GROUP BY sensor) AS q,
	        emissions(q.p) AS e
	   EXCEPT ALL SELECT sensor, ts, key::text, port, value FROM %4$I)
	  UNION ALL
	  (SELECT sensor, ts, key::text, port, value FROM %4$I
	   EXCEPT ALL
	   SELECT q.sensor, e.ts, e.key, e.port, e.value
	   FROM (SELECT sensor, pipeline_agg(ts, v, %1$s, %2$L::pipeline ORDER BY ts, v, %1$s) AS p FROM (%3$s) AS r GROUP BY sensor) AS q,
	        emissions(q.p) AS e)) AS d$q$, k, spec, src, results) INTO n;
	RETURN n;
END
$$;
CREATE FUNCTION pg_temp.all_differences() RETURNS text LANGUAGE sql AS $$
	SELECT format('wm %s, keep2 %s, err1 %s, weekly %s',
	              pg_temp.differences('wm', 'readings', '{"type": "MaxTracker"}', 'ts::date', true),
	              pg_temp.differences('keep2', 'r2', '{"type": "CountNumber"}', $k$date_trunc('day', ts, 'Europe/Berlin')$k$, false),
	              pg_temp.differences('err1', 'r2', '{"type": "CumulativeSum"}', 'ts::date', false),
	              pg_temp.differences('weekly', 'wm', '{"type": "MaxTracker"}', NULL, false))
$$;
SELECT pg_temp.all_differences() AS after_update;
CREATE FUNCTION pg_temp.both(statement text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format(statement, 'readings');
	EXECUTE format(statement, 'r2');
END
$$;
SELECT pg_temp.both($$INSERT INTO %I VALUES (1, '2026-03-06 02:00+00', 4), (11, '2026-03-06 03:00+00', 2)$$);
SELECT pg_temp.all_differences() AS after_insert;
SELECT pg_temp.both($$INSERT INTO %I VALUES (3, '2026-03-05 09:00+00', 9)$$);
SELECT pg_temp.all_differences() AS after_late_row;
SELECT pg_temp.both($$UPDATE %I SET v = v + 1 WHERE sensor = 12 AND ts >= '2026-03-05 00:00+00'$$);
SELECT pg_temp.all_differences() AS after_update;
SELECT pg_temp.both($$DELETE FROM %I WHERE sensor = 1 AND ts = '2026-03-05 18:00+00'$$);
SELECT pg_temp.all_differences() AS after_delete;
-- a change older than err1's horizon is refused
UPDATE r2 SET v = 0 WHERE sensor = 2 AND ts = '2026-03-01 06:00+00';
TRUNCATE readings_b;
SELECT pg_temp.all_differences() AS after_truncate, (SELECT count(*) FROM wm WHERE sensor >= 10) AS wm_of_b;
SELECT segpipe_close_silent('wm', '2026-03-09 12:00+00') AS heartbeats;
SELECT pg_temp.all_differences() AS after_close;
SELECT results, sensors, rows FROM segpipe_maintained ORDER BY 1;
SELECT segpipe_unmaintain('weekly', true), segpipe_unmaintain('err1', true), segpipe_unmaintain('keep2', true),
       segpipe_unmaintain('wm', true);
SELECT count(*) AS left_behind FROM pg_class WHERE relname ~ '^(wm|keep2|err1|weekly)';

\c :regression_db
DROP DATABASE segpipe_maintain_upgrade;
