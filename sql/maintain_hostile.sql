-- Maintained results against hostile roles (docs/security.md): every way
-- 0.9.0's machinery could be made to run another role's code, to crash
-- the server, or to keep a wrong result.  Planted code writes to a trap
-- table with the role it ran as; after each attack the trap is empty and
-- the results equal a run over the readings.
\set regression_db :DBNAME
CREATE DATABASE segpipe_maintain_hostile;
\c segpipe_maintain_hostile
\pset format unaligned
\pset null 'null'
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
CREATE ROLE regress_segpipe_eve LOGIN;
CREATE ROLE regress_segpipe_temp_only LOGIN;
GRANT CREATE ON DATABASE segpipe_maintain_hostile TO regress_segpipe_eve;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
-- Eve installs segpipe (a trusted extension) in a schema of her own.
SET ROLE regress_segpipe_eve;
CREATE SCHEMA eve_ext;
CREATE EXTENSION segpipe SCHEMA eve_ext;
GRANT USAGE ON SCHEMA eve_ext TO PUBLIC;
RESET ROLE;
CREATE TABLE trap_log (trap text, by_role name);
GRANT INSERT ON trap_log TO PUBLIC;
-- (the differences from a run over the readings and the heartbeats applied)
CREATE FUNCTION pg_temp.differences(results text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	EXECUTE format($q$SELECT count(*) FROM (
	  (SELECT q.sensor, e.ts, e.key::date, e.port, e.value
	   FROM (SELECT sensor, eve_ext.pipeline_agg(ts, v, ts::date, '{"type": "MaxTracker"}'::eve_ext.pipeline ORDER BY ts, v) AS p
	         FROM (SELECT sensor, ts, v FROM readings UNION ALL SELECT sensor, ts, NULL FROM %1$s_heartbeat) AS r
	         GROUP BY sensor) AS q, eve_ext.emissions(q.p) AS e
	   EXCEPT ALL SELECT sensor, ts, key, port, value FROM %1$s)
	  UNION ALL
	  (SELECT sensor, ts, key, port, value FROM %1$s
	   EXCEPT ALL
	   SELECT q.sensor, e.ts, e.key::date, e.port, e.value
	   FROM (SELECT sensor, eve_ext.pipeline_agg(ts, v, ts::date, '{"type": "MaxTracker"}'::eve_ext.pipeline ORDER BY ts, v) AS p
	         FROM (SELECT sensor, ts, v FROM readings UNION ALL SELECT sensor, ts, NULL FROM %1$s_heartbeat) AS r
	         GROUP BY sensor) AS q, eve_ext.emissions(q.p) AS e)) AS d$q$, results) INTO n;
	RETURN n;
END
$$;

-- The superuser's readings, maintained, partitioned by sensor.
CREATE TABLE readings (sensor int NOT NULL, ts timestamptz NOT NULL, v float8) PARTITION BY RANGE (sensor);
CREATE TABLE readings_a PARTITION OF readings FOR VALUES FROM (0) TO (10);
CREATE TABLE readings_b PARTITION OF readings FOR VALUES FROM (10) TO (20);
INSERT INTO readings VALUES (1, '2026-03-01 08:00+00', 5), (1, '2026-03-01 12:00+00', 9), (11, '2026-03-01 09:00+00', 4);
SELECT eve_ext.segpipe_maintain('readings', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'daily',
                                watermark => '1 hour', heartbeat_unit => 'day', heartbeat_zone => 'UTC');

-- 1. Eve plants, beside a partitioned table of her own, a function with
-- segpipe's comment and a <name>_correct that would record who ran it,
-- then the superuser alters her table (as pg_restore or partition
-- maintenance would).  The event triggers consult the catalog only.
SET ROLE regress_segpipe_eve;
CREATE SCHEMA m;
CREATE TABLE m.p (sensor int NOT NULL, ts timestamptz NOT NULL, v float8) PARTITION BY RANGE (sensor);
CREATE TABLE m.p1 PARTITION OF m.p FOR VALUES FROM (0) TO (10);
CREATE TABLE m.x (sensor int, ts timestamptz, key date, port int, value float8);
CREATE FUNCTION m.x_maintain() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
COMMENT ON FUNCTION m.x_maintain() IS 'segpipe: maintains m.x from m.p, corrected on every change';
CREATE FUNCTION m.x_correct(rel regclass, leave_out boolean) RETURNS void LANGUAGE sql AS
	$$ INSERT INTO public.trap_log VALUES ('x_correct', current_user) $$;
CREATE TRIGGER x_update AFTER UPDATE ON m.p FOR EACH STATEMENT EXECUTE FUNCTION m.x_maintain();
-- 2. ... and a "state table" that is a view calling her function, for the
-- status view to read.
CREATE FUNCTION m.peek() RETURNS boolean LANGUAGE sql AS
	$$ INSERT INTO public.trap_log VALUES ('peek', current_user) RETURNING true $$;
CREATE VIEW m.x_state AS SELECT 1 AS sensor, NULL::eve_ext.pipeline AS state WHERE m.peek();
RESET ROLE;
CREATE TABLE m.p2 (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
ALTER TABLE m.p2 OWNER TO regress_segpipe_eve;
ALTER TABLE m.p ATTACH PARTITION m.p2 FOR VALUES FROM (10) TO (20);
ALTER TABLE m.p ADD COLUMN note text;
SELECT results, readings FROM eve_ext.segpipe_maintained ORDER BY 1;
SELECT count(*) AS traps FROM trap_log;

-- 3. A role with only LOGIN and TEMP writes triggers on a temporary table
-- of its own with arguments of every layout ever shipped, and the id of
-- the superuser's row: each insert is refused before anything runs, and
-- the server keeps running (its start time is the same).
SELECT pg_postmaster_start_time() AS started \gset
SET ROLE regress_segpipe_temp_only;
CREATE TEMP TABLE t (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
CREATE FUNCTION pg_temp.try(args text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TRIGGER tt AFTER INSERT ON t REFERENCING NEW TABLE AS segpipe_new '
	               'FOR EACH STATEMENT EXECUTE FUNCTION eve_ext.segpipe_insert_trigger(%s)', args);
	BEGIN
		INSERT INTO t VALUES (1, '2026-03-01 08:00+00', 1);
		RETURN 'inserted';
	EXCEPTION WHEN OTHERS THEN
		RETURN SQLSTATE;
	END;
	-- (the trigger goes in the caller's next statement)
END
$$;
-- layout 1 (12 arguments), 2 and 3 (13), with a read that returns text as
-- the state, an ordinal twice and an on-disk TOAST pointer's shape
SELECT pg_temp.try(format('%L, ''sensor'', ''SELECT 1'', %L, ''SELECT 1, now(), 1::float8, 1'', '''', '''', '''', '''', '''', '''', ''correct''',
                          'segpipe insert 1', 'SELECT 1::int8, ''x''::text, 1'));
DROP TRIGGER tt ON t;
SELECT pg_temp.try(format('%L, ''sensor'', ''SELECT 1'', %L, ''SELECT 1, now(), 1::float8, 1'', '''', '''', '''', '''', '''', '''', ''correct'', %L',
                          'segpipe insert 2', 'SELECT 1::int8, ''\x0112''::bytea, 1', 'SELECT u, NULL, 1 FROM (VALUES (1::int8), (1)) AS v(u)'));
DROP TRIGGER tt ON t;
SELECT pg_temp.try(format('%L, ''sensor'', ''SELECT 1'', %L, ''SELECT 1, now(), 1::float8, 1'', '''', '''', '''', '''', '''', '''', ''correct'', %L',
                          'segpipe insert 3', 'SELECT 1::int8, ''x'', 1, ''(0,1)''::tid, ''pg_authid''::regclass::oid', 'SELECT 1'));
DROP TRIGGER tt ON t;
SELECT pg_temp.try(quote_literal((SELECT c.id FROM eve_ext.segpipe_catalog AS c WHERE c.results = 'daily'::regclass)));
DROP TRIGGER tt ON t;
SELECT pg_temp.try(quote_literal((SELECT c.id FROM eve_ext.segpipe_catalog AS c WHERE c.results = 'daily'::regclass)) || ', ''partition''');
RESET ROLE;
SELECT pg_postmaster_start_time() = :'started' AS same_server;
-- the catalog is read by all and written by no role
SET ROLE regress_segpipe_temp_only;
SELECT count(*) AS rows_seen FROM eve_ext.segpipe_catalog;
SELECT count(*) AS status_rows FROM eve_ext.segpipe_maintained;
INSERT INTO eve_ext.segpipe_catalog (id, results, readings, state_table, checkpoint_table, partition_column, ts_column,
                                     value_column, key, key_type, spec, late, beyond_horizon)
VALUES (99, 't', 't', 't', 't', 'sensor', 'ts', 'v', '1', 'int4', '{"type": "MaxTracker"}', 'correct', 'replay');
UPDATE eve_ext.segpipe_catalog SET key = 'pg_sleep(1)';
SELECT eve_ext.segpipe_catalog_register('daily', 'readings', 'daily_state', 'daily_checkpoint', NULL, NULL, NULL,
                                        'sensor', 'ts', 'v', 'pg_sleep(1)', 'date', '{"type": "MaxTracker"}', 'correct',
                                        NULL, 'replay', NULL, NULL, NULL, NULL, NULL, NULL);
SELECT eve_ext.segpipe_unmaintain('daily');
-- Citus's functions: a shard group's row for another role's tables, and
-- work on a set-up not on Citus, are refused
-- (names as the coordinator sends them, schema-qualified: an unqualified one
-- is looked up in pg_catalog and pg_temp only)
SELECT eve_ext.segpipe_shard('attach', 1, ARRAY['daily', 'readings', 'daily_state', 'daily_checkpoint', NULL], NULL,
                             'sensor', 'ts', 'v', 'pg_sleep(1)', 'date', '{"type": "MaxTracker"}', 'correct', NULL,
                             'replay', NULL, NULL, NULL, NULL);
SELECT eve_ext.segpipe_shard('attach', 1, ARRAY['public.trap_log', 'public.readings', 'public.daily_state',
                                                'public.daily_checkpoint', NULL], NULL,
                             'sensor', 'ts', 'v', 'pg_sleep(1)', 'date', '{"type": "MaxTracker"}', 'correct', NULL,
                             'replay', NULL, NULL, NULL, NULL);
SELECT eve_ext.segpipe_shard('detach', 1, ARRAY['public.daily', 'public.readings', 'public.daily_state',
                                                'public.daily_checkpoint', NULL], NULL,
                             NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) AS detached;
SELECT eve_ext.segpipe_shard('attach', 1, ARRAY['daily', NULL, 'daily_state', 'daily_checkpoint', NULL], NULL,
                             NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
SELECT eve_ext.segpipe_attach_shards('daily');
SELECT eve_ext.segpipe_shards('daily', 'close', 'infinity');
-- the set-ups Citus copies to every node: read by all, written by none;
-- a node's attach from it finds no Citus metadata here and makes nothing
INSERT INTO eve_ext.segpipe_citus_setup (id, results, readings, state_table, checkpoint_table, partition_column,
                                         ts_column, value_column, key, key_type, spec, late, beyond_horizon)
VALUES (1, 'public.daily', 'public.readings', 'public.daily_state', 'public.daily_checkpoint', 'sensor', 'ts', 'v',
        'pg_sleep(1)', 'date', '{"type": "MaxTracker"}', 'correct', 'replay');
SELECT count(*) AS setups_seen FROM eve_ext.segpipe_citus_setup;
SELECT eve_ext.segpipe_shard_adopt(1, 'readings', 'eve_ext.segpipe_citus_setup') AS adopted;
RESET ROLE;
SELECT count(*) AS rows_left FROM eve_ext.segpipe_catalog WHERE results = 'daily'::regclass;

-- 4. Eve renames the extension's schema and makes one of the old name
-- with look-alikes of what 0.9.0's generated code called by name; the
-- superuser then changes the readings, inserts a late row and closes the
-- silent sensors.  Everything runs segpipe's own objects.
SET ROLE regress_segpipe_eve;
ALTER SCHEMA eve_ext RENAME TO eve_old;
CREATE SCHEMA eve_ext;
GRANT USAGE ON SCHEMA eve_ext TO PUBLIC;
CREATE FUNCTION eve_ext.noted() RETURNS boolean LANGUAGE sql AS
	$$ INSERT INTO public.trap_log VALUES ('look-alike', current_user) RETURNING true $$;
CREATE DOMAIN eve_ext.pipeline AS eve_old.pipeline CHECK (eve_ext.noted());
CREATE FUNCTION eve_ext.trap_step(eve_old.pipeline, timestamptz, float8, record, eve_old.pipeline) RETURNS eve_old.pipeline
	LANGUAGE plpgsql AS $$ BEGIN PERFORM eve_ext.noted(); RETURN $5; END $$;
CREATE AGGREGATE eve_ext.pipeline_agg_checkpoints(timestamptz, float8, record, eve_old.pipeline)
	(SFUNC = eve_ext.trap_step, STYPE = eve_old.pipeline);
CREATE FUNCTION eve_ext.emissions(p eve_old.pipeline, OUT ts timestamptz, OUT key text, OUT port integer, OUT value float8)
	RETURNS SETOF record LANGUAGE sql AS $$ SELECT now(), 'x', 1, 1::float8 WHERE eve_ext.noted() $$;
CREATE FUNCTION eve_ext.without_emissions(p eve_old.pipeline) RETURNS eve_old.pipeline LANGUAGE sql
	AS $$ SELECT CASE WHEN eve_ext.noted() THEN p END $$;
CREATE FUNCTION eve_ext.pipeline_progress(p eve_old.pipeline) RETURNS timestamptz LANGUAGE sql
	AS $$ SELECT CASE WHEN eve_ext.noted() THEN now() END $$;
CREATE FUNCTION eve_ext.segpipe_close_silent(results regclass, at timestamptz DEFAULT now()) RETURNS bigint LANGUAGE sql
	AS $$ SELECT CASE WHEN eve_ext.noted() THEN 0::bigint END $$;
RESET ROLE;
UPDATE readings SET v = 7 WHERE sensor = 1 AND ts = '2026-03-01 08:00+00';
INSERT INTO readings VALUES (1, '2026-03-02 08:00+00', 2), (11, '2026-03-02 08:00+00', 3);
INSERT INTO readings VALUES (1, '2026-03-01 13:00+00', 11);
DELETE FROM readings WHERE sensor = 11 AND ts = '2026-03-01 09:00+00';
SELECT eve_old.segpipe_close_silent('daily', '2026-03-04 12:00+00') AS heartbeats;
SELECT count(*) AS traps FROM trap_log;
SELECT * FROM daily ORDER BY sensor, ts;
-- (heartbeats are punctuation: the recomputation runs over the readings
-- and the heartbeats applied)
SELECT count(*) AS differences FROM (
  (SELECT q.sensor, e.ts, e.key::date, e.port, e.value
   FROM (SELECT sensor, eve_old.pipeline_agg(ts, v, ts::date, '{"type": "MaxTracker"}'::eve_old.pipeline ORDER BY ts, v) AS p
         FROM (SELECT sensor, ts, v FROM readings UNION ALL SELECT sensor, ts, NULL FROM daily_heartbeat) AS r
         GROUP BY sensor) AS q, eve_old.emissions(q.p) AS e
   EXCEPT ALL SELECT sensor, ts, key, port, value FROM daily)
  UNION ALL
  (SELECT sensor, ts, key, port, value FROM daily
   EXCEPT ALL
   SELECT q.sensor, e.ts, e.key::date, e.port, e.value
   FROM (SELECT sensor, eve_old.pipeline_agg(ts, v, ts::date, '{"type": "MaxTracker"}'::eve_old.pipeline ORDER BY ts, v) AS p
         FROM (SELECT sensor, ts, v FROM readings UNION ALL SELECT sensor, ts, NULL FROM daily_heartbeat) AS r
         GROUP BY sensor) AS q, eve_old.emissions(q.p) AS e)) AS d;
-- Eve cannot drop the extension while it maintains the superuser's
-- results (its type's columns in the superuser's tables would go), CASCADE
-- or not.
SET ROLE regress_segpipe_eve;
DROP SCHEMA eve_ext CASCADE;
ALTER SCHEMA eve_old RENAME TO eve_ext;
DROP EXTENSION segpipe;
DROP EXTENSION segpipe CASCADE;
-- (nor by dropping its schema, or everything she owns, which drop it too)
DROP SCHEMA eve_ext CASCADE;
DROP OWNED BY regress_segpipe_eve;
RESET ROLE;
SELECT count(*) AS state_columns FROM pg_attribute WHERE attrelid = 'daily_state'::regclass AND attname = 'state';

-- 5. Row-level security on maintained readings is refused, at set-up and
-- later: a correction would see only the changing role's rows.
ALTER TABLE readings_a ENABLE ROW LEVEL SECURITY;
CREATE TABLE rls_readings (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
ALTER TABLE rls_readings ENABLE ROW LEVEL SECURITY;
SELECT eve_ext.segpipe_maintain('rls_readings', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'rls_daily');
SELECT count(*) AS made FROM pg_class WHERE relname LIKE 'rls_daily%';

-- 6. The truncate trigger's note of what a TRUNCATE covered is not a
-- setting: a role that sets what 0.9.0 read still gets the partition's
-- rows out of the results.
SELECT set_config('segpipe.truncated_' || md5('daily_truncate'), txid_current()::text || ' ' || statement_timestamp()::text || ':,' || 'readings_b'::regclass::oid::text || ',', false) IS NOT NULL AS planted;
TRUNCATE readings_b;
SELECT count(*) FILTER (WHERE sensor >= 10) AS results_of_b, pg_temp.differences('daily') AS differences FROM daily;

-- A second trigger with the id of a row, on its readings and for the same
-- event, would run every change twice: both refuse (39P01) until it goes.
SELECT id AS daily_id FROM eve_ext.segpipe_catalog WHERE results = 'daily'::regclass \gset
CREATE TRIGGER daily_again AFTER INSERT ON readings REFERENCING NEW TABLE AS segpipe_new
    FOR EACH STATEMENT EXECUTE FUNCTION eve_ext.segpipe_insert_trigger(:'daily_id');
\set VERBOSITY sqlstate
INSERT INTO readings VALUES (3, '2026-03-09 10:00+00', 7);
\set VERBOSITY default
DROP TRIGGER daily_again ON readings;
INSERT INTO readings VALUES (3, '2026-03-09 10:00+00', 7);
SELECT pg_temp.differences('daily') AS differences;

-- 7. An unrelated table's trigger of the same name as one of segpipe's
-- drops; a partition of the maintained readings does not.
SET ROLE regress_segpipe_eve;
CREATE TABLE m.other (a int);
CREATE TRIGGER daily_insert AFTER INSERT ON m.other FOR EACH STATEMENT EXECUTE FUNCTION m.x_maintain();
DROP TRIGGER daily_insert ON m.other;
DROP TABLE m.other;
RESET ROLE;
DROP TABLE readings_b;
DROP TRIGGER daily_update ON readings_a;
SELECT eve_ext.segpipe_unmaintain('daily', drop_tables => true);
SELECT relname AS left_behind FROM pg_class WHERE relname LIKE 'daily%' OR relname LIKE 'readings%idx' ORDER BY 1;
SELECT count(*) AS rows_left FROM eve_ext.segpipe_catalog;
SELECT count(*) AS traps FROM trap_log;
DROP SCHEMA m CASCADE;
DROP EXTENSION segpipe;

\c :regression_db
DROP DATABASE segpipe_maintain_hostile;
DROP ROLE regress_segpipe_eve;
DROP ROLE regress_segpipe_temp_only;
