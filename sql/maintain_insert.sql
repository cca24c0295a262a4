-- The maintained insert trigger, segpipe_insert_trigger(): a statement's
-- rows stream into their sensors' runs when they come in order after each
-- sensor's progress (the fast path); a sensor whose rows are out of order
-- within the statement is run again over them sorted; one with a row at or
-- before its progress is corrected from its checkpoints.  Whichever path a
-- sensor takes, the results equal a run over its readings in the order
-- ts, value, key: every step below checks that against pipeline_agg.
\pset null null
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
CREATE TABLE readings (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('readings', 'sensor', 'ts', 'v', 'ts::date',
                        '{"type": "Pipeline", "id": "daily_max", "operators": [{"type": "MaxTracker", "id": "max"}]}',
                        'daily');

-- rows in results or recomputation but not both, and states whose row
-- count or progress differs from the readings'
CREATE FUNCTION differences(spec pipeline) RETURNS TABLE (results bigint, states bigint) LANGUAGE sql AS $$
	WITH expected AS (
		SELECT q.sensor, e.ts, e.key::date, e.port, e.value
		FROM (SELECT r.sensor, pipeline_agg(r.ts, r.v, r.ts::date, spec ORDER BY r.ts, r.v, r.ts::date) AS p
		      FROM readings AS r GROUP BY r.sensor) AS q, emissions(q.p) AS e),
	got AS (SELECT sensor, ts, key, port, value FROM daily)
	SELECT (SELECT count(*) FROM ((SELECT * FROM expected EXCEPT ALL SELECT * FROM got)
	                              UNION ALL (SELECT * FROM got EXCEPT ALL SELECT * FROM expected)) AS d),
	       (SELECT count(*) FROM daily_state AS s
	        FULL JOIN (SELECT sensor, count(*) AS n, max(ts) AS last FROM readings GROUP BY sensor) AS r USING (sensor)
	        WHERE pipeline_rows(s.state) IS DISTINCT FROM r.n OR pipeline_progress(s.state) IS DISTINCT FROM r.last)
$$;
CREATE VIEW check_daily AS
SELECT * FROM differences('{"type": "Pipeline", "id": "daily_max", "operators": [{"type": "MaxTracker", "id": "max"}]}');

-- the insert trigger is segpipe's C function; the others the generated one
SELECT tgname, tgfoid::regproc, tgnargs FROM pg_trigger WHERE tgrelid = 'readings'::regclass ORDER BY 1;

-- in order, three sensors, one of them new in the second statement
INSERT INTO readings VALUES (1, '2026-03-01 08:00+00', 5), (2, '2026-03-01 08:00+00', 1), (1, '2026-03-01 09:00+00', 7);
INSERT INTO readings VALUES (1, '2026-03-02 08:00+00', 3), (2, '2026-03-02 08:00+00', 2), (3, '2026-03-01 10:00+00', 9);
SELECT * FROM daily ORDER BY sensor, ts;
SELECT sensor, pipeline_rows(state), pipeline_progress(state), pipeline_key(state) FROM daily_state ORDER BY sensor;
SELECT sensor, ts FROM daily_checkpoint ORDER BY sensor, ts;
SELECT * FROM check_daily;

-- out of order within the statement (sensor 1), after its progress: run
-- sorted; sensor 2 in order alongside
INSERT INTO readings VALUES (1, '2026-03-03 12:00+00', 1), (2, '2026-03-03 08:00+00', 4),
                            (1, '2026-03-03 10:00+00', 8), (1, '2026-03-04 10:00+00', 6);
SELECT * FROM daily WHERE ts >= '2026-03-03' ORDER BY sensor, ts;
SELECT * FROM check_daily;

-- equal timestamps: ascending values stream, descending ones are sorted;
-- both runs give the day's maximum from the same order
INSERT INTO readings VALUES (2, '2026-03-04 08:00+00', 1), (2, '2026-03-04 08:00+00', 2);
INSERT INTO readings VALUES (3, '2026-03-04 08:00+00', 2), (3, '2026-03-04 08:00+00', 1);
SELECT sensor, pipeline_rows(state), pending FROM daily_state, LATERAL (SELECT array_agg(value) AS pending FROM pending(state)) AS p
WHERE sensor IN (2, 3) ORDER BY sensor;
SELECT * FROM check_daily;

-- late: at or before a sensor's progress, it is corrected; in the same
-- statement sensor 2 streams and sensor 3 is sorted
INSERT INTO readings VALUES (1, '2026-03-01 12:00+00', 100), (2, '2026-03-05 08:00+00', 0),
                            (3, '2026-03-05 09:00+00', 5), (3, '2026-03-05 08:00+00', 4);
SELECT * FROM daily WHERE sensor = 1 ORDER BY ts;
SELECT * FROM check_daily;
-- a tie with the progress itself is late too (its order among equal rows counts)
INSERT INTO readings VALUES (2, '2026-03-05 08:00+00', -1);
SELECT sensor, pipeline_rows(state), pipeline_progress(state) FROM daily_state WHERE sensor = 2;
SELECT * FROM check_daily;

-- punctuation (a NULL value) closes a day; an empty insert changes nothing
INSERT INTO readings VALUES (3, '2026-03-06 00:00+00', NULL);
SELECT * FROM daily WHERE sensor = 3 ORDER BY ts;
INSERT INTO readings SELECT * FROM readings WHERE false;
SELECT * FROM check_daily;

-- what the session sets does not change what is stored: the key ts::date
-- is evaluated in UTC, whatever the session's zone and styles
SET TimeZone = 'Pacific/Kiritimati';
SET DateStyle = 'German, DMY';
SET IntervalStyle = 'sql_standard';
INSERT INTO readings VALUES (2, '2026-03-05 23:30+00', 7), (2, '2026-03-06 00:30+00', 1);
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
RESET IntervalStyle;
SELECT * FROM daily WHERE sensor = 2 AND ts >= '2026-03-06' ORDER BY ts;
SELECT * FROM check_daily;

-- many rows, many sensors, shuffled within each statement now and then
INSERT INTO readings
SELECT 10 + i % 20, '2026-03-01'::timestamptz + (i / 20) * interval '7 minutes', (i * 7919) % 101
FROM generate_series(0, 39999) AS i;
INSERT INTO readings
SELECT 10 + i % 20, '2026-03-01'::timestamptz + (i / 20) * interval '7 minutes', (i::bigint * 104729) % 97
FROM generate_series(40000, 59999) AS i ORDER BY (i * 7) % 1000;
SELECT count(*) AS results, count(DISTINCT sensor) AS sensors FROM daily WHERE sensor >= 10;
SELECT * FROM check_daily;
-- States are kept without emissions: the same readings leave the same
-- bytes however they arrived.  segpipe_rebuild() runs sensors again from
-- their first reading, and finds what maintenance left, byte for byte:
-- after streamed, sorted and corrected inserts, an update and a delete.
UPDATE readings SET v = v + 1 WHERE sensor = 1 AND ts < '2026-03-02';
DELETE FROM readings WHERE sensor = 12 AND ts BETWEEN '2026-03-05' AND '2026-03-06';
SELECT count(*) AS states_with_emissions FROM daily_state AS s WHERE EXISTS (SELECT 1 FROM emissions(s.state));
CREATE TABLE kept_state AS SELECT sensor, state::text AS state FROM daily_state;
CREATE TABLE kept_checkpoint AS SELECT sensor, ts, state::text AS state FROM daily_checkpoint;
CREATE TABLE kept_results AS SELECT * FROM daily;
SELECT segpipe_rebuild('daily') AS sensors_rebuilt;
SELECT (SELECT count(*) FROM ((SELECT sensor, state::text FROM daily_state EXCEPT SELECT * FROM kept_state)
                              UNION ALL (SELECT * FROM kept_state EXCEPT SELECT sensor, state::text FROM daily_state)) AS d) AS states,
       (SELECT count(*) FROM ((SELECT sensor, ts, state::text FROM daily_checkpoint EXCEPT SELECT * FROM kept_checkpoint)
                              UNION ALL (SELECT * FROM kept_checkpoint EXCEPT SELECT sensor, ts, state::text FROM daily_checkpoint)) AS d) AS checkpoints,
       (SELECT count(*) FROM ((SELECT * FROM daily EXCEPT ALL SELECT * FROM kept_results)
                              UNION ALL (SELECT * FROM kept_results EXCEPT ALL SELECT * FROM daily)) AS d) AS results;
-- some sensors, given as an array of the partition column's type (a
-- sensor without readings has nothing to rebuild)
DELETE FROM daily WHERE sensor = 3;
SELECT segpipe_rebuild('daily', ARRAY[3, 99]) AS sensors_rebuilt;
SELECT * FROM daily WHERE sensor = 3 ORDER BY ts;
SELECT * FROM check_daily;
SELECT segpipe_rebuild('readings');
SELECT segpipe_rebuild('daily', ARRAY['x']);
DROP TABLE kept_state, kept_checkpoint, kept_results;

-- segpipe_maintained: one row per results table; its figures are sums over
-- the state table
SELECT results, readings, spec::text = '{"type": "Pipeline", "id": "daily_max", "input_port_types": ["number"], "output_port_types": ["number"], "operators": [{"type": "MaxTracker", "id": "max"}], "connections": [], "entryOperator": "max", "outputMappings": {"max": {"o1": "o1"}}, "late": "error"}' AS spec_is_the_setup_spec,
       insert_trigger, sensors, rows, late, discarded, open_segments, oldest_progress, newest_progress,
       lag = now() - oldest_progress AS lag_is_now_minus_oldest, last_emission
FROM segpipe_maintained;
SELECT m.sensors = s.n AND m.rows = s.rows AND m.late = s.late AND m.discarded = s.discarded
       AND m.open_segments = s.open AND m.oldest_progress = s.oldest AND m.newest_progress = s.newest
       AND m.last_emission = (SELECT max(ts) FROM daily) AS figures_are_the_state_tables
FROM segpipe_maintained AS m,
     (SELECT count(*) AS n, sum(pipeline_rows(state)) AS rows, sum(pipeline_late(state)) AS late,
             sum(pipeline_discarded(state)) AS discarded, count(pipeline_key(state)) AS open,
             min(pipeline_progress(state)) AS oldest, max(pipeline_progress(state)) AS newest
      FROM daily_state) AS s
WHERE m.results = 'daily'::regclass;
SELECT segpipe_unmaintain('daily', true);
DROP VIEW check_daily;
DROP FUNCTION differences(pipeline);

-- Policies "drop" and "error": the pipeline meets late rows itself, in
-- the order ts, value, key within each statement.
TRUNCATE readings;
SELECT segpipe_maintain('readings', 'sensor', 'ts', 'v', 'ts::date',
                        '{"type": "Pipeline", "id": "daily_max", "operators": [{"type": "MaxTracker", "id": "max"}], "late": "drop"}',
                        'dropped', late => 'drop');
INSERT INTO readings VALUES (1, '2026-03-01 10:00+00', 1);
-- 09:00 is late and dropped; 12:00 and 11:00 come out of order within
-- the statement and are sorted first
INSERT INTO readings VALUES (1, '2026-03-01 12:00+00', 4), (1, '2026-03-01 09:00+00', 50), (1, '2026-03-01 11:00+00', 3);
SELECT pipeline_rows(state), pipeline_late(state), (SELECT array_agg(value) FROM pending(state)) AS pending FROM dropped_state;
SELECT segpipe_unmaintain('dropped', true);
TRUNCATE readings;
SELECT segpipe_maintain('readings', 'sensor', 'ts', 'v', 'ts::date',
                        '{"type": "Pipeline", "id": "daily_max", "operators": [{"type": "MaxTracker", "id": "max"}]}',
                        'strict', late => 'error');
INSERT INTO readings VALUES (1, '2026-03-01 10:00+00', 1);
INSERT INTO readings VALUES (1, '2026-03-01 12:00+00', 4), (1, '2026-03-01 11:00+00', 3);
INSERT INTO readings VALUES (1, '2026-03-01 11:30+00', 4);
SELECT pipeline_rows(state), pipeline_progress(state) FROM strict_state;
SELECT count(*) AS readings FROM readings;
SELECT segpipe_unmaintain('strict', true);

-- Two values a row (float8[]): the day's maximum of their difference and
-- how many rows it has, keyed by text under a collation.
CREATE TABLE pairs (sensor text NOT NULL, ts timestamptz NOT NULL, v float8[], shift text COLLATE "C");
SELECT segpipe_maintain('pairs', 'sensor', 'ts', 'v', 'shift',
                        '{"type": "Pipeline", "id": "p", "input_port_types": ["number", "number"],
                          "output_port_types": ["number", "number"],
                          "operators": [{"type": "Linear", "id": "lin", "coefficients": [1, -1]},
                                        {"type": "MaxTracker", "id": "max"}, {"type": "CountNumber", "id": "cnt"}],
                          "connections": [{"from": "lin", "to": "max"}, {"from": "lin", "to": "cnt"}],
                          "entryOperator": "lin", "outputMappings": {"max": {"o1": "o1"}, "cnt": {"o1": "o2"}}}',
                        'pair_results');
INSERT INTO pairs VALUES ('x', '2026-03-01 08:00+00', '{1,10}', 'A'), ('x', '2026-03-01 09:00+00', '{30,20}', 'A'),
                         ('y', '2026-03-01 08:00+00', '{5,5}', 'B'), ('x', '2026-03-01 10:00+00', '{2,2}', 'B');
-- out of order: sorted, then 'B' continues and 'a' (after 'B' under "C") opens a segment
INSERT INTO pairs VALUES ('x', '2026-03-01 12:00+00', '{0,7}', 'a'), ('x', '2026-03-01 11:00+00', '{9,1}', 'B');
SELECT * FROM pair_results ORDER BY sensor, ts, port;
SELECT sensor, key, port, value FROM pair_results_realtime WHERE provisional ORDER BY 1, 3;
SELECT segpipe_unmaintain('pair_results', true);
DROP TABLE pairs;

-- Partitions: each has the insert trigger, with the id of the root's catalog
-- row (and 'partition' after it), also one created after set-up; rows
-- through the parent or naming a partition
CREATE TABLE parted (sensor int NOT NULL, ts timestamptz NOT NULL, v float8) PARTITION BY RANGE (sensor);
CREATE TABLE parted_a PARTITION OF parted FOR VALUES FROM (0) TO (10);
SELECT segpipe_maintain('parted', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'parted_daily');
CREATE TABLE parted_b PARTITION OF parted FOR VALUES FROM (10) TO (20);
SELECT c.relname, t.tgname, t.tgfoid::regproc,
       split_part(encode(t.tgargs, 'escape'), '\000', 1) = (SELECT g.id::text FROM segpipe_catalog AS g WHERE g.results = 'parted_daily'::regclass) AS root_id,
       split_part(encode(t.tgargs, 'escape'), '\000', 2) AS second
FROM pg_trigger AS t JOIN pg_class AS c ON c.oid = t.tgrelid
WHERE t.tgname = 'parted_daily_insert' ORDER BY 1;
INSERT INTO parted VALUES (1, '2026-03-01 08:00+00', 1), (11, '2026-03-01 08:00+00', 2);
INSERT INTO parted_b VALUES (11, '2026-03-02 08:00+00', 3);
INSERT INTO parted_a VALUES (1, '2026-03-02 08:00+00', 4), (1, '2026-03-01 09:00+00', 5);
SELECT * FROM parted_daily ORDER BY sensor, ts;
SELECT sensor, pipeline_rows(state) FROM parted_daily_state ORDER BY sensor;
SELECT segpipe_unmaintain('parted_daily', true);
SELECT count(*) AS triggers_left FROM pg_trigger WHERE tgname LIKE 'parted_daily%';
DROP TABLE parted;

-- Sensors with and without a state in one statement: those that have one
-- are locked and read, in the state table's order, up to the first that
-- has none; from it on, states are inserted when new, locked and read.  A
-- new sensor first, between others and last gives what pipeline_agg gives.
CREATE TABLE gaps (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('gaps', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'gaps_daily');
-- 2 and 4 new
INSERT INTO gaps VALUES (2, '2026-03-01 08:00+00', 1), (4, '2026-03-01 08:00+00', 2);
-- 3 new between 2 and 4, 6 new after them
INSERT INTO gaps VALUES (2, '2026-03-01 09:00+00', 5), (3, '2026-03-01 09:00+00', 6), (4, '2026-03-01 09:00+00', 1),
                        (6, '2026-03-01 09:00+00', 7);
-- 8 new after four that have a state
INSERT INTO gaps VALUES (2, '2026-03-01 10:00+00', 3), (3, '2026-03-01 10:00+00', 9), (4, '2026-03-01 10:00+00', 8),
                        (6, '2026-03-01 10:00+00', 2), (8, '2026-03-01 10:00+00', 4);
-- 1 new before five that have one
INSERT INTO gaps VALUES (1, '2026-03-01 11:00+00', 11), (2, '2026-03-01 11:00+00', 0), (3, '2026-03-01 11:00+00', 0),
                        (4, '2026-03-01 11:00+00', 0), (6, '2026-03-01 11:00+00', 0), (8, '2026-03-01 11:00+00', 12);
-- all have one: the next day closes the 1st of each
INSERT INTO gaps SELECT s, '2026-03-02 08:00+00', 100 FROM unnest('{1,2,3,4,6,8}'::int[]) AS s;
SELECT * FROM gaps_daily ORDER BY sensor, ts;
SELECT sensor, pipeline_rows(state), pipeline_progress(state) FROM gaps_daily_state ORDER BY sensor;
SELECT count(*) AS differences
FROM ((SELECT sensor, ts, key, port, value FROM gaps_daily
       EXCEPT ALL
       SELECT q.sensor, e.ts, e.key::date, e.port, e.value
       FROM (SELECT sensor, pipeline_agg(ts, v, ts::date, '{"type": "MaxTracker"}' ORDER BY ts, v) AS p
             FROM gaps GROUP BY sensor) AS q, emissions(q.p) AS e)
      UNION ALL
      (SELECT q.sensor, e.ts, e.key::date, e.port, e.value
       FROM (SELECT sensor, pipeline_agg(ts, v, ts::date, '{"type": "MaxTracker"}' ORDER BY ts, v) AS p
             FROM gaps GROUP BY sensor) AS q, emissions(q.p) AS e
       EXCEPT ALL
       SELECT sensor, ts, key, port, value FROM gaps_daily)) AS d;
SELECT segpipe_unmaintain('gaps_daily', true);
DROP TABLE gaps;

-- Two schemas with results of the same name: dropping one schema's
-- readings goes; a partition of the other's living readings is still
-- refused, also one in a third schema.
CREATE SCHEMA s1;
CREATE SCHEMA s2;
CREATE TABLE s1.r (sensor int NOT NULL, ts timestamptz NOT NULL, v float8) PARTITION BY RANGE (sensor);
CREATE TABLE s1.r1 PARTITION OF s1.r FOR VALUES FROM (0) TO (10);
CREATE TABLE s2.r (sensor int NOT NULL, ts timestamptz NOT NULL, v float8) PARTITION BY RANGE (sensor);
CREATE TABLE s2.r1 PARTITION OF s2.r FOR VALUES FROM (0) TO (10);
CREATE TABLE public.s2_r2 PARTITION OF s2.r FOR VALUES FROM (10) TO (20);
SELECT segpipe_maintain('s1.r', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'd');
SELECT segpipe_maintain('s2.r', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'd');
\set VERBOSITY terse
DROP TABLE s2.r1;
DROP TABLE public.s2_r2;
DROP SCHEMA s1 CASCADE;
DROP TABLE s2.r1;
\set VERBOSITY default
SELECT segpipe_unmaintain('s2.d', true);
DROP SCHEMA s2 CASCADE;

-- The states are written in place of the state rows the trigger locked (a
-- heap update each, src/server/maintain_state.h) when the state table is
-- as segpipe_maintain made it and the role may update its state column;
-- otherwise by an UPDATE statement, which runs the table's triggers and
-- checks and the role's rights.  Statement k inserts, for sensor s of 1 to
-- 3, s rows at minutes 10k + 1 .. 10k + s of 1 March: after k statements
-- sensor s has processed k * s rows.
CREATE TABLE ip (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('ip', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'ip_d');
CREATE FUNCTION ip_insert(k int) RETURNS void LANGUAGE sql AS $$
	INSERT INTO ip SELECT s, timestamptz '2026-03-01 00:00+00' + (k * 10 + i) * interval '1 min', s * 10 + i
	FROM generate_series(1, 3) AS s, generate_series(1, s) AS i
$$;
-- An index on what every write changes: no new version is a heap-only
-- one, and each needs its index entry (an index scan finds the new ones).
CREATE INDEX ip_rows ON ip_d_state (pipeline_rows(state));
SELECT ip_insert(1);
SELECT ip_insert(2);
SELECT ip_insert(3);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT sensor FROM ip_d_state WHERE pipeline_rows(state) IN (3, 6, 9);
SELECT sensor, pipeline_rows(state) FROM ip_d_state WHERE pipeline_rows(state) IN (3, 6, 9) ORDER BY 1;
RESET enable_bitmapscan;
-- A BRIN index: from PostgreSQL 16 on a heap-only version still adds its
-- value to the range's summary, which a scan for the new value needs.
DROP INDEX ip_rows;
CREATE INDEX ip_brin ON ip_d_state USING brin (pipeline_rows(state));
SELECT ip_insert(4);
SELECT sensor, pipeline_rows(state) FROM ip_d_state WHERE pipeline_rows(state) IN (4, 8, 12) ORDER BY 1;
RESET enable_seqscan;
DROP INDEX ip_brin;
-- A trigger on the state table: the UPDATE statement writes the states
-- (the trigger sees the three), and without it they are written in place.
-- The scans of the state table in the statement's transaction tell the
-- two apart: the statement that locks and reads the states finds each by
-- the key (3 scans, of the table or its key's index, in a nested loop),
-- and the UPDATE finds them again (at least one scan more).
CREATE TABLE ip_seen (sensor int);
CREATE FUNCTION ip_seen() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO public.ip_seen VALUES (NEW.sensor);
	RETURN NULL;
END
$$;
CREATE TRIGGER ip_seen AFTER UPDATE ON ip_d_state FOR EACH ROW EXECUTE FUNCTION ip_seen();
CREATE FUNCTION ip_insert_scanned(k int, OUT found_again boolean, OUT state_updates bigint)
LANGUAGE plpgsql AS $$
DECLARE
	scans bigint := pg_stat_get_xact_numscans('ip_d_state'::regclass) + pg_stat_get_xact_numscans('ip_d_state_pkey'::regclass);
	updates bigint := pg_stat_get_xact_tuples_updated('ip_d_state'::regclass);
BEGIN
	PERFORM ip_insert(k);
	found_again := pg_stat_get_xact_numscans('ip_d_state'::regclass) + pg_stat_get_xact_numscans('ip_d_state_pkey'::regclass)
		- scans > 3;
	state_updates := pg_stat_get_xact_tuples_updated('ip_d_state'::regclass) - updates;
END
$$;
SELECT * FROM ip_insert_scanned(5);
SELECT sensor, count(*) FROM ip_seen GROUP BY 1 ORDER BY 1;
DROP TRIGGER ip_seen ON ip_d_state;
SELECT * FROM ip_insert_scanned(6);
SELECT count(*) AS seen FROM ip_seen;
-- A CHECK constraint is checked: sensor 3 would reach 21 rows, and the
-- statement is undone.
ALTER TABLE ip_d_state ADD CONSTRAINT ip_few CHECK (pipeline_rows(state) < 20);
SELECT ip_insert(7);
ALTER TABLE ip_d_state DROP CONSTRAINT ip_few;
-- A role that may update the sensor column but not the state column
-- passes the lock (FOR UPDATE wants the right to update some column), and
-- is refused by the UPDATE; allowed to update the state column, it writes
-- in place.
CREATE ROLE regress_segpipe_inplace;
GRANT INSERT ON ip TO regress_segpipe_inplace;
GRANT SELECT, INSERT, UPDATE, DELETE ON ip_d, ip_d_checkpoint TO regress_segpipe_inplace;
GRANT SELECT, INSERT, UPDATE (sensor) ON ip_d_state TO regress_segpipe_inplace;
SET ROLE regress_segpipe_inplace;
SELECT ip_insert(8);
RESET ROLE;
GRANT UPDATE (state) ON ip_d_state TO regress_segpipe_inplace;
SET ROLE regress_segpipe_inplace;
SELECT ip_insert(8);
RESET ROLE;
-- A state table published for updates without a replica identity is
-- refused, as an UPDATE of it is.
SET client_min_messages = error;
CREATE PUBLICATION ip_pub FOR TABLE ip_d_state;
SET client_min_messages = warning;
ALTER TABLE ip_d_state REPLICA IDENTITY NOTHING;
SELECT ip_insert(9);
DROP PUBLICATION ip_pub;
ALTER TABLE ip_d_state REPLICA IDENTITY DEFAULT;
SELECT ip_insert(9);
-- The trigger's one argument is the id of a row of segpipe's catalog, and
-- the trigger runs only on that row's readings: a role with the right to
-- create triggers on a table of its own gets nothing from naming ip_d's
-- row, a row that does not exist, other arguments, or the statements that
-- the triggers of 0.9.0 and before carried.  Each is refused before any
-- statement runs, and ip_d's tables are as they were.
CREATE TABLE ev (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
CREATE FUNCTION ev_insert(args text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	detail text;
BEGIN
	EXECUTE format('CREATE TRIGGER ev_t AFTER INSERT ON ev REFERENCING NEW TABLE AS segpipe_new '
	               'FOR EACH STATEMENT EXECUTE FUNCTION segpipe_insert_trigger(%s)', args);
	BEGIN
		INSERT INTO ev VALUES (1, '2026-03-02 00:00+00', 1);
		RETURN 'inserted';
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
		RETURN SQLSTATE || ': ' || SQLERRM || ' / ' || regexp_replace(detail, 'Row \d+ ', 'Row N ');
	END;
END
$$;
SELECT count(*) AS ip_d_rows, (SELECT count(*) FROM ip_d_state) AS states, (SELECT count(*) FROM ip_d_checkpoint) AS checkpoints
FROM ip_d \gset before_
SELECT ev_insert(quote_literal((SELECT id FROM segpipe_catalog WHERE results = 'ip_d'::regclass)));
DROP TRIGGER ev_t ON ev;
SELECT ev_insert(quote_literal((SELECT id FROM segpipe_catalog WHERE results = 'ip_d'::regclass)) || ', ''partition''');
DROP TRIGGER ev_t ON ev;
SELECT ev_insert($$'999999'$$);
DROP TRIGGER ev_t ON ev;
SELECT ev_insert($$'1x'$$);
DROP TRIGGER ev_t ON ev;
SELECT ev_insert($$'1', 'x'$$);
DROP TRIGGER ev_t ON ev;
SELECT ev_insert($$'segpipe insert 3', 'sensor', 'SELECT 1'$$);
DROP TRIGGER ev_t ON ev;
SELECT count(*) = :before_ip_d_rows AS results_unchanged, (SELECT count(*) FROM ip_d_state) = :before_states AS states_unchanged,
       (SELECT count(*) FROM ip_d_checkpoint) = :before_checkpoints AS checkpoints_unchanged
FROM ip_d;
DROP TABLE ev;
DROP FUNCTION ev_insert(text);
-- Everything equals a run over the readings: statements 1 to 6, 8 and 9
-- stayed, so sensor s has 8 * s rows.
SELECT count(*) AS differences
FROM ((SELECT q.sensor, e.ts, e.key::date, e.port, e.value
       FROM (SELECT sensor, pipeline_agg(ts, v, ts::date, '{"type": "MaxTracker"}' ORDER BY ts, v) AS p
             FROM ip GROUP BY sensor) AS q, emissions(q.p) AS e
       EXCEPT ALL SELECT sensor, ts, key, port, value FROM ip_d)
      UNION ALL
      (SELECT sensor, ts, key, port, value FROM ip_d
       EXCEPT ALL
       SELECT q.sensor, e.ts, e.key::date, e.port, e.value
       FROM (SELECT sensor, pipeline_agg(ts, v, ts::date, '{"type": "MaxTracker"}' ORDER BY ts, v) AS p
             FROM ip GROUP BY sensor) AS q, emissions(q.p) AS e)) AS d;
SELECT s.sensor, pipeline_rows(s.state), r.n, pipeline_progress(s.state) = r.last AS progress_is_last
FROM ip_d_state AS s JOIN (SELECT sensor, count(*) AS n, max(ts) AS last FROM ip GROUP BY 1) AS r USING (sensor)
ORDER BY 1;
SELECT segpipe_unmaintain('ip_d', true);
DROP TABLE ip, ip_seen;
DROP FUNCTION ip_insert(int);
DROP FUNCTION ip_seen();
DROP FUNCTION ip_insert_scanned(int);
DROP ROLE regress_segpipe_inplace;

-- The runs a backend's trigger wrote last stay with it, and the next
-- statement continues them in memory only when each stored state is
-- exactly what was written (src/server/maintain_cache.h).  A statement
-- rolled back, whole or to a savepoint, leaves the state of the one before
-- it, which is read again: the 100s never count.  Daily maxima: 7 for
-- 1 March, closed by the row of 2 March, and 8 for 2 March, closed by the
-- row of 3 March.
CREATE TABLE rb (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('rb', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'rb_d');
INSERT INTO rb VALUES (1, '2026-03-01 08:00+00', 5), (2, '2026-03-01 08:00+00', 5);
INSERT INTO rb VALUES (1, '2026-03-01 08:30+00', 6), (2, '2026-03-01 08:30+00', 6);
BEGIN;
INSERT INTO rb VALUES (1, '2026-03-01 09:00+00', 100), (2, '2026-03-01 09:00+00', 100);
ROLLBACK;
INSERT INTO rb VALUES (1, '2026-03-01 10:00+00', 7), (2, '2026-03-01 10:00+00', 7);
BEGIN;
INSERT INTO rb VALUES (1, '2026-03-02 08:00+00', 1), (2, '2026-03-02 08:00+00', 1);
SAVEPOINT s;
INSERT INTO rb VALUES (1, '2026-03-02 09:00+00', 100), (2, '2026-03-02 09:00+00', 100);
ROLLBACK TO SAVEPOINT s;
INSERT INTO rb VALUES (1, '2026-03-02 10:00+00', 8), (2, '2026-03-02 10:00+00', 8);
COMMIT;
INSERT INTO rb VALUES (1, '2026-03-03 08:00+00', 0), (2, '2026-03-03 08:00+00', 0);
SELECT sensor, ts, key, port, value FROM rb_d ORDER BY 1, 2;
SELECT sensor, pipeline_rows(state) FROM rb_d_state ORDER BY 1;
SELECT segpipe_unmaintain('rb_d', true);
DROP TABLE rb;

-- The states a backend's trigger wrote in place last are locked at their
-- addresses in its next statement, without a statement
-- (src/server/maintain_state.h): no scan of the state table (by_address).
-- A row that is no longer there as written (replaced by another writer,
-- moved by VACUUM FULL, or another sensor's row at that address) is found
-- by the statements instead, and the results stay those of a run over the
-- readings.  Readings every 6 hours, v = (7 h + 3 s) % 10 for sensor s at
-- step h: daily maxima 7, 7, 9 for 1 March (closed at step 4) and 8, 8, 8
-- for 2 March (closed at step 8).
CREATE TABLE lk (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('lk', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'lk_d');
CREATE FUNCTION lk_insert(h int, OUT by_address boolean) LANGUAGE plpgsql AS $$
DECLARE
	scans bigint := pg_stat_get_xact_numscans('lk_d_state'::regclass) + pg_stat_get_xact_numscans('lk_d_state_pkey'::regclass);
BEGIN
	INSERT INTO lk SELECT s, timestamptz '2026-03-01 00:00+00' + h * interval '6 hours', (7 * h + 3 * s) % 10
	FROM generate_series(1, 3) AS s;
	by_address := pg_stat_get_xact_numscans('lk_d_state'::regclass) + pg_stat_get_xact_numscans('lk_d_state_pkey'::regclass) = scans;
END
$$;
SELECT h, lk_insert(h) FROM generate_series(0, 2) AS h ORDER BY h;
-- another writer replaces sensor 2's row (with the same bytes)
UPDATE lk_d_state SET state = state WHERE sensor = 2;
SELECT lk_insert(3);
SELECT lk_insert(4);
VACUUM FULL lk_d_state;
SELECT lk_insert(5);
SELECT lk_insert(6);
-- every address the trigger keeps now holds another sensor's row
CREATE TABLE lk_saved AS SELECT sensor, state, ctid AS tid FROM lk_d_state;
TRUNCATE lk_d_state;
INSERT INTO lk_d_state (sensor, state)
SELECT 1000 + g, '{"type": "MaxTracker"}' FROM generate_series(1, (SELECT max((tid::text::point)[1])::int FROM lk_saved)) AS g;
INSERT INTO lk_d_state (sensor, state) SELECT sensor, state FROM lk_saved ORDER BY sensor;
SELECT count(*) AS taken_by_others FROM lk_saved AS s JOIN lk_d_state AS d ON d.ctid = s.tid AND d.sensor <> s.sensor;
SELECT lk_insert(7);
DELETE FROM lk_d_state WHERE sensor > 1000;
SELECT lk_insert(8);
SELECT sensor, ts, key, port, value FROM lk_d ORDER BY 1, 2;
WITH q AS (SELECT sensor, pipeline_agg(ts, v, ts::date, '{"type": "MaxTracker"}' ORDER BY ts) AS p
           FROM lk GROUP BY sensor),
     expected AS (SELECT q.sensor, e.ts, e.key::date AS key, e.port, e.value FROM q, emissions(q.p) AS e),
     got AS (SELECT sensor, ts, key, port, value FROM lk_d)
SELECT count(*) AS differences
FROM ((SELECT * FROM expected EXCEPT ALL SELECT * FROM got) UNION ALL (SELECT * FROM got EXCEPT ALL SELECT * FROM expected)) AS d;
-- a state table emptied: no address is read past its end, and the states
-- start again
TRUNCATE lk_d_state;
SELECT lk_insert(9);
SELECT sensor, pipeline_rows(state) FROM lk_d_state ORDER BY 1;
-- Rows locked at their addresses are not reached by index scans, which
-- prune a page as they pass; the trigger prunes the page itself, so that
-- the dead versions go and the updates stay heap-only ones: 300 statements
-- of 10 sensors, each committed, leave the table within 16 pages (without
-- the pruning, 500 such statements grew it to 95).
CREATE PROCEDURE lk_many() LANGUAGE plpgsql AS $$
BEGIN
	FOR h IN 10 .. 309 LOOP
		INSERT INTO lk SELECT s, timestamptz '2026-03-01 00:00+00' + h * interval '6 hours', (7 * h + 3 * s) % 10
		FROM generate_series(1, 10) AS s;
		COMMIT;
	END LOOP;
END
$$;
CALL lk_many();
SELECT pg_relation_size('lk_d_state') <= 16 * 8192 AS within_16_pages;
SELECT segpipe_unmaintain('lk_d', true);
DROP TABLE lk, lk_saved;
DROP FUNCTION lk_insert(int);
DROP PROCEDURE lk_many();

-- The runs of sensors a statement does not touch stay kept: sensors 1 to
-- 3, then 4 to 6, then each group again; the third and fourth statements
-- lock every row at its address and continue the runs kept two statements
-- before.  Maxima per day over v = 10 h + s at step h (every 6 hours):
-- steps 0 .. 3 are 1 March, closed by step 4: 30 + s, for s = 1 .. 6.
CREATE TABLE lk2 (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('lk2', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'lk2_d');
CREATE FUNCTION lk2_insert(h int, first int, OUT by_address boolean) LANGUAGE plpgsql AS $$
DECLARE
	scans bigint := pg_stat_get_xact_numscans('lk2_d_state'::regclass) + pg_stat_get_xact_numscans('lk2_d_state_pkey'::regclass);
BEGIN
	INSERT INTO lk2 SELECT s, timestamptz '2026-03-01 00:00+00' + h * interval '6 hours', 10 * h + s
	FROM generate_series(first, first + 2) AS s;
	by_address := pg_stat_get_xact_numscans('lk2_d_state'::regclass) + pg_stat_get_xact_numscans('lk2_d_state_pkey'::regclass) = scans;
END
$$;
SELECT h, first, lk2_insert(h, first)
FROM (VALUES (0, 1), (0, 4), (1, 1), (1, 4), (2, 1), (2, 4), (3, 1), (3, 4), (4, 1), (4, 4)) AS t(h, first);
SELECT sensor, ts, key, value FROM lk2_d ORDER BY 1;
SELECT sensor, pipeline_rows(state) FROM lk2_d_state ORDER BY 1;
SELECT segpipe_unmaintain('lk2_d', true);
DROP TABLE lk2;
DROP FUNCTION lk2_insert(int, int);
-- At the cap (8 MB of runs per trigger) the runs kept longest ago go
-- first: after 3000 sensors, then 3000 others (about 2 kB a run here),
-- more runs stay than the 3000 of the last statement, and fewer than all
-- 6000; the first 3000 again are read from their states where their runs
-- went, and every result is right.  Values: v = s % 7 + d for day d.
CREATE TABLE lk3 (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('lk3', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'lk3_d');
CREATE FUNCTION lk3_insert(d int, first int) RETURNS void LANGUAGE sql AS $$
	INSERT INTO lk3 SELECT s, timestamptz '2026-03-01 00:00+00' + d * interval '1 day', s % 7 + d
	FROM generate_series(first, first + 2999) AS s
$$;
SELECT lk3_insert(0, 1);
SELECT lk3_insert(0, 3001);
SELECT count(*) BETWEEN 3001 AND 5999 AS the_new_and_some_old
FROM pg_backend_memory_contexts WHERE name = 'segpipe insert sensor';
SELECT lk3_insert(1, 1);
SELECT lk3_insert(1, 3001);
-- each sensor's day 0 closed by its day-1 row: 6000 results, each s % 7
SELECT count(*) AS results, count(*) FILTER (WHERE value = sensor % 7) AS right_values FROM lk3_d;
SELECT segpipe_unmaintain('lk3_d', true);
DROP TABLE lk3;
DROP FUNCTION lk3_insert(int, int);

-- The trigger function checks how it is called and what it is given.
CREATE TABLE other (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
CREATE TRIGGER bad_row AFTER INSERT ON other FOR EACH ROW EXECUTE FUNCTION segpipe_insert_trigger();
INSERT INTO other VALUES (1, now(), 1);
DROP TRIGGER bad_row ON other;
CREATE TRIGGER bad_args AFTER INSERT ON other REFERENCING NEW TABLE AS segpipe_new
	FOR EACH STATEMENT EXECUTE FUNCTION segpipe_insert_trigger('segpipe insert 0', 'x');
INSERT INTO other VALUES (1, now(), 1);
DROP TABLE other;
DROP TABLE readings;

-- A results table set up by 0.5.0 (its insert trigger a generated PL/pgSQL
-- function) is moved by the update into the catalog and onto
-- segpipe_insert_trigger(), its partitions too; a partition made later gets
-- the same triggers; set up again, the results are the same.
\set regression_db :DBNAME
CREATE DATABASE segpipe_maintain_update;
\c segpipe_maintain_update
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
CREATE EXTENSION segpipe VERSION '0.5.0';
CREATE TABLE r (sensor int NOT NULL, ts timestamptz NOT NULL, v float8) PARTITION BY RANGE (sensor);
CREATE TABLE r1 PARTITION OF r FOR VALUES FROM (0) TO (10);
SELECT segpipe_maintain('r', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'd');
INSERT INTO r VALUES (1, '2026-03-01 08:00+00', 1);
ALTER EXTENSION segpipe UPDATE;
INSERT INTO r VALUES (1, '2026-03-02 08:00+00', 2), (1, '2026-03-01 09:00+00', 5);
CREATE TABLE r2 PARTITION OF r FOR VALUES FROM (10) TO (20);
INSERT INTO r2 VALUES (11, '2026-03-01 08:00+00', 3), (11, '2026-03-02 08:00+00', 4);
SELECT c.relname, t.tgfoid::regproc FROM pg_trigger AS t JOIN pg_class AS c ON c.oid = t.tgrelid
WHERE t.tgname = 'd_insert' ORDER BY 1;
SELECT sensor, ts, key, value FROM d ORDER BY 1, 2;
SELECT segpipe_unmaintain('d', true);
SELECT segpipe_maintain('r', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'd');
SELECT c.relname, t.tgfoid::regproc FROM pg_trigger AS t JOIN pg_class AS c ON c.oid = t.tgrelid
WHERE t.tgname = 'd_insert' ORDER BY 1;
INSERT INTO r VALUES (1, '2026-03-03 08:00+00', 6), (11, '2026-03-03 08:00+00', 7);
SELECT sensor, ts, key, value FROM d ORDER BY 1, 2;
\c :regression_db
DROP DATABASE segpipe_maintain_update;

-- Results tables set up by 0.7.0 and 0.8.0 carry SQL in their insert
-- triggers' arguments (layouts 1 and 2).  This version's library refuses
-- those triggers until ALTER EXTENSION segpipe UPDATE, which moves both
-- tables into the catalog: then their triggers carry the catalog row's id,
-- and the same rows give the same results as a set-up of this version.
-- d1 was set up by 0.7.0, d2 by 0.8.0; both take the same rows.
CREATE DATABASE segpipe_maintain_update;
\c segpipe_maintain_update
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
CREATE EXTENSION segpipe VERSION '0.7.0';
CREATE TABLE r1 (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
CREATE TABLE r2 (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('r1', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'd1');
ALTER EXTENSION segpipe UPDATE TO '0.8.0';
SELECT segpipe_maintain('r2', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'd2');
CREATE FUNCTION both_insert(rows text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE 'INSERT INTO r1 VALUES ' || rows;
	EXECUTE 'INSERT INTO r2 VALUES ' || rows;
END
$$;
SELECT both_insert($$(2, '2026-03-01 08:00+00', 1)$$);
ALTER EXTENSION segpipe UPDATE;
-- (the row refused above, now taken)
SELECT both_insert($$(2, '2026-03-01 08:00+00', 1)$$);
SELECT tgname, tgnargs, split_part(encode(tgargs, 'escape'), '\000', 1) = (SELECT c.id::text FROM segpipe_catalog AS c WHERE c.results = left(tgname, 2)::regclass) AS the_row_id FROM pg_trigger
WHERE tgname IN ('d1_insert', 'd2_insert') ORDER BY 1;
-- 1 new before 2, 3 new after it
SELECT both_insert($$(1, '2026-03-01 09:00+00', 4), (2, '2026-03-01 09:00+00', 5), (3, '2026-03-01 09:00+00', 6)$$);
SELECT both_insert($$(1, '2026-03-02 08:00+00', 0), (2, '2026-03-02 08:00+00', 0), (3, '2026-03-02 08:00+00', 0)$$);
SELECT 'd1' AS results, sensor, ts, key, value FROM d1 UNION ALL SELECT 'd2', sensor, ts, key, value FROM d2 ORDER BY 1, 2, 3;
SELECT segpipe_unmaintain('d1', true);
SELECT segpipe_unmaintain('d2', true);
SELECT segpipe_maintain('r1', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'd1');
SELECT segpipe_maintain('r2', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'd2');
SELECT tgname, tgnargs, split_part(encode(tgargs, 'escape'), '\000', 1) = (SELECT c.id::text FROM segpipe_catalog AS c WHERE c.results = left(tgname, 2)::regclass) AS the_row_id FROM pg_trigger
WHERE tgname IN ('d1_insert', 'd2_insert') ORDER BY 1;
SELECT both_insert($$(0, '2026-03-03 08:00+00', 7), (2, '2026-03-03 08:00+00', 8), (4, '2026-03-03 08:00+00', 9)$$);
SELECT 'd1' AS results, sensor, ts, key, value FROM d1 UNION ALL SELECT 'd2', sensor, ts, key, value FROM d2 ORDER BY 1, 2, 3;
\c :regression_db
DROP DATABASE segpipe_maintain_update;

-- The key computed over the statement's rows: a key of expressions only is
-- evaluated by the trigger itself over the transition table; one with a
-- subquery runs as a statement.  Both give what the key gives in a query,
-- as the role whose statement fires the trigger, seeing what that
-- statement's transaction wrote before it.
SET TimeZone = 'UTC';
CREATE TABLE kzones (id int PRIMARY KEY, zone text NOT NULL);
INSERT INTO kzones VALUES (1, 'a'), (2, 'b');
-- (PL/pgSQL: not inlined into a subquery)
CREATE FUNCTION kzone(s int) RETURNS text LANGUAGE plpgsql STABLE AS $$ BEGIN RETURN (SELECT zone FROM public.kzones WHERE id = s); END $$;
CREATE TABLE kr (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
-- by a function that reads a table, and by a subquery
SELECT segpipe_maintain('kr', 'sensor', 'ts', 'v', 'public.kzone(sensor)', '{"type": "MaxTracker"}', 'kf');
SELECT segpipe_maintain('kr', 'sensor', 'ts', 'v', '(SELECT z.zone FROM public.kzones AS z WHERE z.id = sensor)',
                        '{"type": "MaxTracker"}', 'ks');
INSERT INTO kr VALUES (1, '2026-03-01 08:00+00', 5), (2, '2026-03-01 08:00+00', 1), (1, '2026-03-01 09:00+00', 7);
-- the zone changed in the inserting transaction: the next row's key is 'c'
BEGIN;
UPDATE kzones SET zone = 'c' WHERE id = 1;
INSERT INTO kr VALUES (1, '2026-03-01 10:00+00', 2), (2, '2026-03-01 10:00+00', 3);
COMMIT;
SELECT 'kf' AS results, * FROM kf UNION ALL SELECT 'ks', * FROM ks ORDER BY 1, 2, 3;
SELECT 'kf' AS results, sensor, pipeline_key(state) FROM kf_state UNION ALL
SELECT 'ks', sensor, pipeline_key(state) FROM ks_state ORDER BY 1, 2;
-- a role that may insert but not execute the key's function: refused,
-- nothing written
CREATE ROLE regress_segpipe_keyrole;
SELECT segpipe_unmaintain('ks', true);
GRANT INSERT ON kr TO regress_segpipe_keyrole;
GRANT SELECT, INSERT, UPDATE, DELETE ON kf, kf_state, kf_checkpoint TO regress_segpipe_keyrole;
REVOKE EXECUTE ON FUNCTION kzone(int) FROM PUBLIC;
SET ROLE regress_segpipe_keyrole;
INSERT INTO kr VALUES (2, '2026-03-01 11:00+00', 4);
RESET ROLE;
SELECT count(*) AS readings, (SELECT sum(pipeline_rows(state)) FROM kf_state) AS rows_in_states FROM kr;
SELECT segpipe_unmaintain('kf', true);
DROP TABLE kr;
DROP FUNCTION kzone(int);
DROP TABLE kzones;
DROP ROLE regress_segpipe_keyrole;
