-- Maintained on insert: segpipe_maintain() and segpipe_unmaintain(), with
-- the late-row policies that do not correct ("drop", "error"); corrections
-- (the default) are in corrections.sql.
-- The pipeline keeps each UTC day's maximum and drops late rows; a day's
-- maximum is written when its sensor's first reading of a later day arrives.
\pset format unaligned
\pset null 'null'
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
-- the CONTEXT lines of errors raised in PL/pgSQL name line numbers and
-- generated statements: left out
\set SHOW_CONTEXT never
CREATE TABLE readings (id bigserial PRIMARY KEY, sensor_id int NOT NULL,
                       ts timestamptz NOT NULL, v float8);
INSERT INTO readings (sensor_id, ts, v) VALUES
  (1, '2026-03-01 08:00+00', 10), (1, '2026-03-01 16:00+00', 14),
  (1, '2026-03-02 08:00+00', 12), (2, '2026-03-01 09:00+00', 3);

-- Refused set-ups: nothing is created.
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', 'ts::date', NULL, 'daily');
CREATE VIEW readings_view AS SELECT * FROM readings;
SELECT segpipe_maintain('readings_view', 'sensor_id', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'daily');
SELECT segpipe_maintain('no_such_table', 'sensor_id', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'daily');
SELECT segpipe_maintain('readings', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'daily');
SELECT segpipe_maintain('readings', 'sensor_id', 'time', 'v', 'ts::date', '{"type": "MaxTracker"}', 'daily');
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'value', 'ts::date', '{"type": "MaxTracker"}', 'daily');
SELECT segpipe_maintain('readings', 'sensor_id', 'id', 'v', 'ts::date', '{"type": "MaxTracker"}', 'daily');
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'id', 'ts::date', '{"type": "MaxTracker"}', 'daily');
SELECT segpipe_maintain('readings', 'v', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'daily');
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', 'no_such_column::date', '{"type": "MaxTracker"}', 'daily');
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', repeat('r', 55));
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', '');
CREATE TABLE daily (x int);
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'daily');
DROP TABLE daily;
DROP VIEW readings_view;
SELECT count(*) AS created FROM pg_class WHERE relname LIKE 'daily%';

-- late => 'drop' needs the spec to say so too: the pipeline drops them.
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'daily',
    late => 'drop');
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'daily',
    late => 'later');
SELECT count(*) AS created FROM pg_class WHERE relname LIKE 'daily%';

-- The set-up runs the readings already there, in ts order.  The key ts::date
-- is the UTC date: the trigger runs with TimeZone UTC.
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', 'ts::date',
    '{"operators": [{"type": "MaxTracker", "id": "max"}], "late": "drop"}', 'daily', late => 'drop');
SELECT c.relname, c.relkind, obj_description(c.oid, 'pg_class') AS comment
FROM pg_class AS c WHERE c.relname LIKE 'daily%' AND c.relkind IN ('r', 'v') ORDER BY 1;
SELECT tgname, tgrelid::regclass, tgfoid::regprocedure, tgtype, tgoldtable, tgnewtable
FROM pg_trigger WHERE tgrelid = 'readings'::regclass ORDER BY tgname;
-- No code is generated for a results table: segpipe's catalog holds a row
-- of what set-up was given and made (tables by OID), and each trigger
-- carries that row's id and nothing else.
SELECT count(*) AS generated_functions FROM pg_proc WHERE proname LIKE 'daily%';
SELECT results, readings, state_table, checkpoint_table, heartbeat_table, realtime_view, readings_index,
       partition_column, ts_column, value_column, key, key_type, spec = '{"operators": [{"type": "MaxTracker", "id": "max"}], "late": "drop"}' AS spec_as_given,
       late, horizon, beyond_horizon, watermark, schedule, cron_job
FROM segpipe_catalog;
SELECT t.tgname, t.tgnargs, t.tgargs = convert_to(c.id::text, 'UTF8') || '\x00'::bytea AS carries_the_id
FROM pg_trigger AS t, segpipe_catalog AS c WHERE t.tgrelid = 'readings'::regclass ORDER BY 1;
SELECT * FROM daily ORDER BY sensor_id, ts;

-- Inserts in several statements: one row; several sensors, out of order,
-- with a late row and the same reading again; a new sensor; a transaction
-- of two statements; COPY.
INSERT INTO readings (sensor_id, ts, v) VALUES (1, '2026-03-02 10:00+00', 15);
SELECT * FROM daily ORDER BY sensor_id, ts;
INSERT INTO readings (sensor_id, ts, v) VALUES
  (1, '2026-03-03 08:00+00', 11), (1, '2026-03-01 20:00+00', 99), (1, '2026-03-02 10:00+00', 15),
  (2, '2026-03-02 09:00+00', 5), (3, '2026-03-02 10:00+00', 7);
SELECT * FROM daily ORDER BY sensor_id, ts;
BEGIN;
INSERT INTO readings (sensor_id, ts, v) VALUES (3, '2026-03-02 23:00+00', 8);
INSERT INTO readings (sensor_id, ts, v) VALUES (3, '2026-03-03 01:00+00', 1), (2, '2026-03-03 00:00+00', 4);
COMMIT;
SELECT * FROM daily ORDER BY sensor_id, ts;
COPY readings (sensor_id, ts, v) FROM stdin;
2	2026-03-03 05:00:00+00	6
2	2026-03-04 05:00:00+00	2
\.
SELECT * FROM daily ORDER BY sensor_id, ts;
-- every reading is counted once: processed, or late and dropped
SELECT s.sensor_id, pipeline_key(state) AS day, pipeline_progress(state) AS progress,
       pipeline_rows(state) AS rows, pipeline_late(state) AS late,
       (SELECT count(*) FROM readings AS r WHERE r.sensor_id = s.sensor_id) AS readings
FROM daily_state AS s ORDER BY sensor_id;

-- A rolled-back insert leaves no trace in the state or the results.
BEGIN;
INSERT INTO readings (sensor_id, ts, v) VALUES (1, '2026-03-05 08:00+00', 50);
SELECT count(*) AS results_inside FROM daily;
ROLLBACK;
SELECT count(*) AS results_after, (SELECT pipeline_rows(state) FROM daily_state WHERE sensor_id = 1) AS rows_1
FROM daily;

-- The real-time view: the results, then each open day's running maximum,
-- provisional, stamped with the latest reading processed.
SELECT * FROM daily_realtime ORDER BY sensor_id, ts, provisional;

-- The session's settings and search_path do not change what is stored:
-- the key is computed in UTC whatever the session's time zone.
SET TimeZone = 'Asia/Tokyo';
SET DateStyle = 'SQL, DMY';
SET search_path = pg_catalog;
INSERT INTO public.readings (sensor_id, ts, v) VALUES (3, '2026-03-03 22:00+00', 9), (3, '2026-03-04 01:00+00', 2);
RESET search_path;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SELECT * FROM daily WHERE sensor_id = 3 ORDER BY ts;

-- With late => 'error' (and the spec's "late": "error", its default) a late
-- row fails the insert, naming it; nothing of the statement stays.  A second maintained table: each
-- Berlin day's sum of two ports and its count, in a schema of its own, with
-- names that need quoting.
CREATE SCHEMA "Out Put";
CREATE TABLE "Out Put"."Readings ""B""" ("Sensor" text NOT NULL, "At" timestamptz NOT NULL,
                                         "Power" float8[]);
INSERT INTO "Out Put"."Readings ""B""" VALUES ('m1', '2026-03-01 10:00+00', '{1, 10}');
SELECT segpipe_maintain('"Out Put"."Readings ""B"""', 'Sensor', 'At', 'Power',
    $$date_trunc('day', "At", 'Europe/Berlin')$$,
    '{"type": "Pipeline", "output_port_types": ["number", "number"],
      "operators": [{"type": "Addition", "id": "add"}, {"type": "CumulativeSum", "id": "sum"},
                    {"type": "CountNumber", "id": "n"}],
      "connections": [{"from": "add", "to": "sum"}, {"from": "add", "to": "n"}],
      "entryOperator": "add", "outputMappings": {"sum": {"o1": "o1"}, "n": {"o1": "o2"}}}',
    'Daily "sum"', late => 'error');
INSERT INTO "Out Put"."Readings ""B""" VALUES ('m1', '2026-03-01 22:00+00', '{2, 20}'),
                                             ('m1', '2026-03-01 23:30+00', '{3, 30}');
SELECT * FROM "Out Put"."Daily ""sum""" ORDER BY 1, 2, 4;
INSERT INTO "Out Put"."Readings ""B""" VALUES ('m2', '2026-03-02 10:00+00', '{0, 1}'),
                                             ('m1', '2026-03-01 23:00+00', '{4, 40}');
SELECT count(*) AS readings FROM "Out Put"."Readings ""B""";
SELECT "Sensor", pipeline_rows(state) AS rows FROM "Out Put"."Daily ""sum""_state" ORDER BY 1;
SELECT * FROM "Out Put"."Daily ""sum""_realtime" ORDER BY 1, 2, 4, 6;

-- The tables' shapes: one definition (segpipe_table_definition), which
-- set-up creates them from and the insert trigger checks a state table
-- against; a sensor column keeps its collation, and every type is named
-- by its schema.
CREATE TABLE shaped (s text COLLATE "C" NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT k, segpipe_table_definition(k, 'shaped', 's', 'date', '{"type": "MaxTracker"}') AS definition
FROM unnest(ARRAY['state', 'results', 'checkpoint', 'heartbeat']) AS k;
SELECT segpipe_table_definition('states', 'shaped', 's', NULL, NULL);
SELECT segpipe_table_definition('state', 'shaped', 'nope', NULL, '{"type": "MaxTracker"}');
SELECT segpipe_table_definition('results', 'shaped', 's', NULL, NULL);
SELECT segpipe_table_definition('state', 'shaped', 's', NULL, NULL);
DROP TABLE shaped;

-- Tear-down: the trigger and its function go; the tables stay unless asked.
SELECT segpipe_unmaintain('readings');
SELECT segpipe_unmaintain('"Out Put"."Daily ""sum"""');
INSERT INTO "Out Put"."Readings ""B""" VALUES ('m1', '2026-03-05 10:00+00', '{1, 1}');
SELECT count(*) AS results_unchanged FROM "Out Put"."Daily ""sum""";
SELECT segpipe_unmaintain('"Out Put"."Daily ""sum"""');
SELECT segpipe_unmaintain('daily', drop_tables => true);
SELECT count(*) AS left_over FROM pg_class WHERE relname LIKE 'daily%';
SELECT count(*) AS left_over FROM pg_proc WHERE proname LIKE '%maintain' AND proname NOT LIKE 'segpipe%';
SELECT count(*) AS triggers FROM pg_trigger WHERE NOT tgisinternal;
SET client_min_messages = warning;
DROP SCHEMA "Out Put" CASCADE;
DROP TABLE readings;
