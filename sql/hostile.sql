-- Stored pipelines run no one's code, and maintained triggers cannot be
-- diverted.  Mallory owns types whose input functions, domain checks and
-- operators record a row in trap_log whenever they run; every path that
-- reads, copies, compares or prints a pipeline value naming those types, as
-- the superuser, must leave trap_log empty.  Then the maintained trigger is
-- run by the superuser while functions and operators that would be a closer
-- match than segpipe's are planted in the extension's schema.
\set regression_db :DBNAME
CREATE DATABASE segpipe_hostile;
\c segpipe_hostile
\pset format unaligned
\pset null 'null'
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
\set SHOW_CONTEXT never
CREATE ROLE regress_segpipe_mallory;
GRANT CREATE ON DATABASE segpipe_hostile TO regress_segpipe_mallory;
GRANT CREATE ON SCHEMA public TO regress_segpipe_mallory;
CREATE EXTENSION segpipe;
CREATE EXTENSION citext;
CREATE EXTENSION ltree;

SET ROLE regress_segpipe_mallory;
CREATE SCHEMA mal;
CREATE TABLE mal.trap_log (trap text, by_role name);
GRANT INSERT, SELECT ON mal.trap_log TO PUBLIC;
GRANT USAGE ON SCHEMA mal TO PUBLIC;
CREATE FUNCTION mal.trap(name text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO mal.trap_log VALUES (name, current_user);
    RETURN true;
END $$;
-- a domain whose CHECK runs the trap, and types built on it
CREATE DOMAIN mal.dom AS text CHECK (mal.trap('domain check'));
CREATE TYPE mal.comp AS (a int, d mal.dom);
CREATE TYPE mal.rng AS RANGE (subtype = mal.dom);
RESET ROLE;

-- Values written by hand that name them, in each shape a key can take.
CREATE TABLE stored (name text PRIMARY KEY, p pipeline);
INSERT INTO stored SELECT name,
  format('{"type": "MaxTracker", "state": {"key_type": %s, "key": %s, "progress": "2026-01-01 00:00:00+00", '
         '"rows": 2, "discarded": 0, "late": 0, "buffer": [1], "operators": {"op1": {"count": 1, "extreme": 1}}, '
         '"emissions": [["2026-01-01 00:00:00+00", %s, 1, 1]]}}',
         to_json(key_type), to_json(key), to_json(key))::pipeline
FROM (VALUES ('domain', 'mal.dom', 'x'),
             ('composite', 'mal.comp', '(1,x)'),
             ('array', 'mal.dom[]', '{x,y}'),
             ('range', 'mal.rng', '[a,b)'),
             ('composite array', 'mal.comp[]', '{"(1,x)"}')) AS v(name, key_type, key);
SELECT name, pipeline_key(p), (SELECT key FROM emissions(p)) AS emission_key FROM stored ORDER BY name;
SELECT count(*) AS traps FROM mal.trap_log;

-- Every path that reads, copies, compares or prints them.
SELECT count(*) AS text_round_trip FROM stored WHERE p::text::pipeline = p;
SELECT count(*) AS json_round_trip FROM stored WHERE p::json::pipeline = p;
SELECT count(*) AS jsonb_out FROM stored WHERE p::jsonb IS NOT NULL;
SELECT count(*) AS binary_out FROM stored WHERE pipeline_send(p) IS NOT NULL;
CREATE TEMP TABLE copied (LIKE stored);
\set dir `d=$(mktemp -d) && chmod 777 "$d" && echo "$d"`
\set textfile :dir '/stored.txt'
\set binfile :dir '/stored.bin'
COPY stored TO :'textfile';
COPY copied FROM :'textfile';
COPY stored TO :'binfile' (FORMAT binary);
COPY copied FROM :'binfile' (FORMAT binary);
SELECT count(*) AS copies, count(DISTINCT c.p) AS distinct_values, bool_and(c.p = s.p) AS equal
FROM copied c JOIN stored s USING (name);
SELECT count(*) AS sorted FROM (SELECT p FROM stored ORDER BY p) AS x;
SELECT count(*) AS hashed FROM (SELECT p FROM stored GROUP BY p) AS x;
SELECT count(*) AS traps FROM mal.trap_log;

-- A run continues from a stored key only with its own key type: another
-- type is refused before the key is looked at.
SELECT pipeline_agg('2026-01-02', 1.0, 'x'::text, p) FROM stored WHERE name = 'domain';
SELECT punctuate(p, '2026-01-02', 'x'::text) FROM stored WHERE name = 'domain';
SELECT count(*) AS traps FROM mal.trap_log;
-- The caller who uses the domain itself runs its check, as any cast of a
-- literal to it would: that is the caller's own query.
SELECT pipeline_key(pipeline_agg('2026-01-02', 1.0, 'x'::mal.dom, p)) FROM stored WHERE name = 'domain';
-- The role is compared, not printed: the test's superuser is whoever runs
-- the suites (postgres, a login name, another superuser).
SELECT trap, CASE by_role WHEN session_user THEN 'the caller (session_user)'
                          WHEN 'regress_segpipe_mallory' THEN 'mallory'
                          ELSE 'another role: ' || by_role END AS by_role
FROM mal.trap_log;
TRUNCATE mal.trap_log;

-- A key type's own input error, whatever its SQLSTATE, is 22P02 naming the
-- stored key and the type; errors that are not about the key pass as they
-- are.
\set VERBOSITY default
SELECT pipeline_agg('2026-01-02', 1.0, 'pg_class'::regclass,
  '{"type": "Identity", "state": {"key_type": "pg_catalog.regclass", "key": "no_such_table", "progress": "2026-01-01 00:00:00+00", "rows": 1, "discarded": 0, "late": 0, "buffer": [1], "operators": {}, "emissions": []}}');
SELECT pipeline_agg('2026-01-02', 1.0, 'pg_catalog'::regnamespace,
  '{"type": "Identity", "state": {"key_type": "pg_catalog.regnamespace", "key": "no_such_schema", "progress": "2026-01-01 00:00:00+00", "rows": 1, "discarded": 0, "late": 0, "buffer": [1], "operators": {}, "emissions": []}}');
CREATE FUNCTION sqlstate_of(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE q;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END $$;
SELECT sqlstate_of($q$SELECT pipeline_agg('2026-01-02', 1.0, 'pg_class'::regclass,
  '{"type": "Identity", "state": {"key_type": "pg_catalog.regclass", "key": "no_such_table", "progress": "2026-01-01 00:00:00+00", "rows": 1, "discarded": 0, "late": 0, "buffer": [1], "operators": {}, "emissions": []}}')$q$) AS regclass_key;
SELECT sqlstate_of($q$SELECT 'no_such_table'::regclass$q$) AS the_type_itself_raises;
-- an anonymous record is written, reads back, and cannot be resumed
SELECT pipeline_agg('2026-01-01', 1.0, row(1, 'a'), '{"type": "Identity"}') AS p \gset
SELECT :'p'::pipeline::text = :'p' AS reads_back, pipeline_key(:'p');
SELECT pipeline_agg('2026-01-02', 1.0, row(1, 'a'), :'p');

-- Types change under stored values.
CREATE TYPE mood AS ENUM ('idle', 'run');
CREATE TYPE pair AS (a int, b text);
CREATE TABLE states (name text PRIMARY KEY, p pipeline);
INSERT INTO states
SELECT 'enum', pipeline_agg(ts, v, k, '{"type": "MaxTracker"}' ORDER BY ts)
FROM (VALUES ('2026-01-01 00:00'::timestamptz, 1.0, 'idle'::mood), ('2026-01-01 01:00', 5, 'run')) AS r(ts, v, k)
UNION ALL
SELECT 'composite', pipeline_agg(ts, v, k, '{"type": "MaxTracker"}' ORDER BY ts)
FROM (VALUES ('2026-01-01 00:00'::timestamptz, 1.0, (1, 'a')::pair), ('2026-01-01 01:00', 5, (2, 'b')::pair)) AS r(ts, v, k)
UNION ALL
SELECT 'array with NULL', pipeline_agg(ts, v, k, '{"type": "MaxTracker"}' ORDER BY ts)
FROM (VALUES ('2026-01-01 00:00'::timestamptz, 1.0, ARRAY['NULL', 'x']), ('2026-01-01 01:00', 5, ARRAY[NULL, 'x'])) AS r(ts, v, k);
SELECT name, pipeline_key(p), (SELECT string_agg(key, '; ') FROM emissions(p)) AS closed FROM states ORDER BY name;
ALTER TYPE mood RENAME VALUE 'run' TO 'running';
ALTER TYPE pair ADD ATTRIBUTE c int;
SET array_nulls = off;
-- every value still reads, as text, as json, through COPY
SELECT name, p::text::pipeline = p AS reads_back, p::json::pipeline = p AS json_reads_back FROM states ORDER BY name;
CREATE TEMP TABLE states_copy (LIKE states);
\set statesfile :dir '/states.bin'
COPY states TO :'statesfile' (FORMAT binary);
COPY states_copy FROM :'statesfile' (FORMAT binary);
SELECT count(*) AS copied FROM states_copy c JOIN states s USING (name) WHERE c.p = s.p;
-- Resuming: the renamed label and the changed composite are refused,
-- naming the key; the array's NULL is still NULL (the stored key is read
-- with array_nulls on, as it was written), so the same key continues its
-- segment and nothing is emitted.
SELECT pipeline_agg('2026-01-01 02:00', 7.0, 'running'::mood, p) FROM states WHERE name = 'enum';
SELECT pipeline_agg('2026-01-01 02:00', 7.0, (2, 'b', 3)::pair, p) FROM states WHERE name = 'composite';
SELECT pipeline_key(q), (SELECT count(*) FROM emissions(q)) AS emitted, (SELECT value FROM pending(q)) AS max
FROM (SELECT pipeline_agg('2026-01-01 02:00', 7.0, ARRAY[NULL, 'x'], p) AS q FROM states WHERE name = 'array with NULL') AS r;
RESET array_nulls;
-- dropped and made again: the value reads, and resumes with the new type
-- of the same name
DROP TABLE states_copy;
CREATE TABLE enum_only AS SELECT p FROM states WHERE name = 'enum';
ALTER TABLE states DROP COLUMN p;
DROP TYPE mood;
CREATE TYPE mood AS ENUM ('idle', 'run');
SELECT p::text::pipeline = p AS reads_back, pipeline_key(p) FROM enum_only;
SELECT (SELECT string_agg(key || ':' || value, ', ') FROM emissions(q)) AS emitted
FROM (SELECT pipeline_agg('2026-01-01 02:00', 7.0, 'idle'::mood, p) AS q FROM enum_only) AS r;
DROP TABLE enum_only, states;
DROP TYPE mood, pair;

-- pipeline_agg_row, which the trigger calls, is pipeline_agg with the key
-- passed as ROW(key): the same pipeline comes out, the column's collation
-- compares the keys, and a row of another shape or key type is refused.
SELECT pipeline_agg_row(ts, v, ROW(k), '{"type": "MaxTracker"}' ORDER BY ts)
       = pipeline_agg(ts, v, k, '{"type": "MaxTracker"}' ORDER BY ts) AS same_as_pipeline_agg
FROM (VALUES ('2026-01-01'::timestamptz, 1.0, 'a'::text), ('2026-01-02', 2, 'b'), ('2026-01-03', 3, NULL),
             ('2026-01-04', 4, 'b')) AS r(ts, v, k);
CREATE COLLATION case_blind (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT (SELECT count(*) FROM emissions(q)) AS boundaries, pipeline_key(q)
FROM (SELECT pipeline_agg_row(ts, v, ROW(k COLLATE case_blind), '{"type": "MaxTracker"}' ORDER BY ts) AS q
      FROM (VALUES ('2026-01-01'::timestamptz, 1.0, 'a'::text), ('2026-01-02', 2, 'A'), ('2026-01-03', 3, 'b'))
           AS r(ts, v, k)) AS x;
SELECT pipeline_agg_row('2026-01-01', 1.0, ROW(1, 2), '{"type": "Identity"}');
SELECT pipeline_agg_row('2026-01-01', 1.0, NULL::record, '{"type": "Identity"}');
SELECT pipeline_agg_row(ts, 1.0, k, '{"type": "Identity"}' ORDER BY ts)
FROM (SELECT '2026-01-01'::timestamptz AS ts, ROW(1) AS k
      UNION ALL SELECT '2026-01-02', ROW('x'::text)) AS r;
DROP COLLATION case_blind;

-- The maintained trigger.  Mallory plants, in the extension's schema
-- (public here), an aggregate pipeline_agg for date keys (a closer match
-- than segpipe's anyelement one), an "=" for integers, and functions named
-- like the others the trigger calls.  segpipe's own pipeline_agg_row cannot
-- be shadowed: its signature is taken.
SET ROLE regress_segpipe_mallory;
CREATE FUNCTION public.trap_step(pipeline, timestamptz, float8, date, pipeline) RETURNS pipeline
    LANGUAGE sql AS $$ SELECT CASE WHEN mal.trap('pipeline_agg') THEN $5 END $$;
CREATE AGGREGATE public.pipeline_agg(timestamptz, float8, date, pipeline) (SFUNC = public.trap_step, STYPE = pipeline);
CREATE FUNCTION public.trap_eq(int, int) RETURNS boolean LANGUAGE sql AS $$ SELECT mal.trap('=') AND $1 = $2 $$;
CREATE OPERATOR public.= (LEFTARG = int, RIGHTARG = int, FUNCTION = public.trap_eq);
CREATE FUNCTION public.trap_eq_ci(citext, text) RETURNS boolean LANGUAGE sql AS $$ SELECT mal.trap('citext =') $$;
CREATE OPERATOR public.= (LEFTARG = citext, RIGHTARG = text, FUNCTION = public.trap_eq_ci);
CREATE FUNCTION public.emissions(anyelement) RETURNS TABLE (ts timestamptz, key text, port int, value float8)
    LANGUAGE sql AS $$ SELECT NULL::timestamptz, NULL, NULL, NULL::float8 WHERE mal.trap('emissions') $$;
CREATE FUNCTION public.trap_step_row(pipeline, timestamptz, float8, record, pipeline) RETURNS pipeline
    LANGUAGE plpgsql AS $$ BEGIN PERFORM mal.trap('pipeline_agg_row'); RETURN $5; END $$;
CREATE AGGREGATE public.pipeline_agg_row(timestamptz, float8, record, pipeline) (SFUNC = public.trap_step_row, STYPE = pipeline);
CREATE FUNCTION public.trap_step_ckpt(pipeline[], timestamptz, float8, record, anyelement) RETURNS pipeline[]
    LANGUAGE plpgsql AS $$ BEGIN PERFORM mal.trap('pipeline_agg_checkpoints'); RETURN $1; END $$;
CREATE AGGREGATE public.pipeline_agg_checkpoints(timestamptz, float8, record, anyelement) (SFUNC = public.trap_step_ckpt, STYPE = pipeline[]);
CREATE FUNCTION public.pipeline_progress(anyelement) RETURNS timestamptz
    LANGUAGE sql AS $$ SELECT NULL::timestamptz WHERE mal.trap('pipeline_progress') $$;
RESET ROLE;

CREATE TABLE readings (sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8);
INSERT INTO readings VALUES (1, '2026-03-01 08:00+00', 10), (1, '2026-03-01 16:00+00', 14);
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'daily');
INSERT INTO readings VALUES (1, '2026-03-02 08:00+00', 12), (2, '2026-03-01 09:00+00', 3), (2, '2026-03-02 09:00+00', 4);
INSERT INTO readings VALUES (1, '2026-03-03 08:00+00', 1);
SELECT * FROM daily ORDER BY sensor_id, ts;
SELECT count(*) AS traps FROM mal.trap_log;
-- No code is generated for the results table: its triggers carry only the
-- id of its catalog row, and what they run is built by segpipe from that
-- row, with the partition column's own equality and segpipe's functions by
-- their exact argument types (the trap log above stayed empty).
SELECT count(*) AS generated_functions FROM pg_proc WHERE proname LIKE 'daily\_%';
SELECT tgname, tgnargs FROM pg_trigger WHERE tgrelid = 'readings'::regclass ORDER BY 1;
SELECT segpipe_unmaintain('daily', true);

-- A citext partition column joins with citext's own equality: 'a' and 'A'
-- are one sensor, as the state table's primary key says.
CREATE TABLE ci_readings (sensor citext NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('ci_readings', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'ci_daily');
INSERT INTO ci_readings VALUES ('a', '2026-03-01 08:00+00', 10);
INSERT INTO ci_readings VALUES ('A', '2026-03-01 09:00+00', 20), ('b', '2026-03-01 08:00+00', 5);
INSERT INTO ci_readings VALUES ('A', '2026-03-02 08:00+00', 1);
INSERT INTO ci_readings VALUES ('a', '2026-03-03 08:00+00', 30);
SELECT sensor, pipeline_rows(state), pipeline_late(state) FROM ci_daily_state ORDER BY sensor;
SELECT * FROM ci_daily ORDER BY sensor, ts;
SELECT count(*) AS generated_functions FROM pg_proc WHERE proname LIKE 'ci\_daily\_%';
SELECT count(*) AS traps FROM mal.trap_log;
SELECT segpipe_unmaintain('ci_daily', true);

-- An ltree partition column: its "=" lives in the extension's schema, and
-- the trigger names it there.
CREATE TABLE tree_readings (node ltree NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('tree_readings', 'node', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'tree_daily');
INSERT INTO tree_readings VALUES ('plant.a', '2026-03-01 08:00+00', 10), ('plant.b', '2026-03-01 08:00+00', 2);
INSERT INTO tree_readings VALUES ('plant.a', '2026-03-02 08:00+00', 1), ('plant.b', '2026-03-01 09:00+00', 3);
SELECT * FROM tree_daily ORDER BY node, ts;
SELECT node, pipeline_rows(state) FROM tree_daily_state ORDER BY node;
SELECT count(*) AS generated_functions FROM pg_proc WHERE proname LIKE 'tree\_daily\_%';
SELECT segpipe_unmaintain('tree_daily', true);
DROP TABLE tree_readings;

-- Refused at set-up, before anything is created: a key of an anonymous row
-- type, a key type without equality, a partition column that cannot key
-- the state table, a spec the value column cannot feed.
CREATE TABLE odd (id int NOT NULL, pt point NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('odd', 'id', 'ts', 'v', 'row(id, 1)', '{"type": "MaxTracker"}', 'odd_r');
SELECT segpipe_maintain('odd', 'id', 'ts', 'v', 'pt', '{"type": "MaxTracker"}', 'odd_r');
SELECT segpipe_maintain('odd', 'pt', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'odd_r');
SELECT segpipe_maintain('odd', 'id', 'ts', 'v', 'ts::date', '{"type": "Addition"}', 'odd_r');
SELECT count(*) AS created FROM pg_class WHERE relname LIKE 'odd_r%';
DROP TABLE odd, ci_readings, readings, stored;
DROP FUNCTION sqlstate_of(text);

-- The same plants against what 0.3.0 generated: its trigger called
-- pipeline_agg and "=" as the search path found them, and the superuser's
-- insert ran Mallory's aggregate.  ALTER EXTENSION UPDATE moves the
-- results table into segpipe's catalog and drops the generated function;
-- the next insert runs segpipe's own machine.
CREATE DATABASE segpipe_hostile_old;
\c segpipe_hostile_old
\set SHOW_CONTEXT never
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
GRANT CREATE ON SCHEMA public TO regress_segpipe_mallory;
CREATE EXTENSION segpipe VERSION '0.3.0';
CREATE TABLE trap_log (trap text, by_role name);
GRANT INSERT ON trap_log TO PUBLIC;
CREATE TABLE readings (sensor_id int NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('readings', 'sensor_id', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'daily');
SET ROLE regress_segpipe_mallory;
CREATE FUNCTION public.trap_step(pipeline, timestamptz, float8, date, pipeline) RETURNS pipeline
    LANGUAGE sql AS $$ INSERT INTO public.trap_log VALUES ('pipeline_agg', current_user); SELECT $5 $$;
CREATE AGGREGATE public.pipeline_agg(timestamptz, float8, date, pipeline) (SFUNC = public.trap_step, STYPE = pipeline);
RESET ROLE;
INSERT INTO readings VALUES (1, '2026-03-01 08:00+00', 10), (1, '2026-03-02 08:00+00', 12);
SELECT trap, CASE by_role WHEN session_user THEN 'the caller (session_user)'
                          WHEN 'regress_segpipe_mallory' THEN 'mallory'
                          ELSE 'another role: ' || by_role END AS by_role, count(*)
FROM trap_log GROUP BY 1, 2;
SELECT count(*) AS results FROM daily;
TRUNCATE trap_log;
ALTER EXTENSION segpipe UPDATE;
SELECT count(*) AS generated_functions FROM pg_proc WHERE proname LIKE 'daily\_%';
SELECT results, readings, key, late, checkpoint_table FROM segpipe_catalog;
-- (the two diverted readings never reached sensor 1's state: it starts
-- again at the next reading)
INSERT INTO readings VALUES (1, '2026-03-03 08:00+00', 7), (2, '2026-03-01 08:00+00', 3);
INSERT INTO readings VALUES (1, '2026-03-04 08:00+00', 1), (2, '2026-03-02 08:00+00', 1);
SELECT count(*) AS traps FROM trap_log;
SELECT * FROM daily ORDER BY sensor_id, ts;
\c segpipe_hostile

\setenv SEGPIPE_TEST_DIR :dir
\! rm -rf "$SEGPIPE_TEST_DIR"
\c :regression_db
DROP DATABASE segpipe_hostile;
DROP DATABASE segpipe_hostile_old;
DROP ROLE regress_segpipe_mallory;
