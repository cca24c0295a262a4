-- Corrections of a few sensors run in C (maintain_rerun.c): their readings
-- in ts order from the index, no sort; a sensor with two readings of one ts
-- is run by the statement that sorts by (ts, value, key).  After each
-- change, the results equal segment_agg over the readings, and the states
-- and checkpoints equal, byte for byte, those a rebuild of every sensor
-- writes (more than 16 sensors: the rebuild runs them by the statement).
\pset format unaligned
\pset null 'null'
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
CREATE TABLE rr (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
-- 20 sensors, 3 days, a reading every 8 hours; the key is the day and
-- whether the value is above 10, so the order of readings of one ts
-- (by value) decides where segments end
INSERT INTO rr SELECT s, timestamptz '2026-03-01 00:00+00' + h * interval '8 hours', (s * 7 + h * 5) % 23
FROM generate_series(1, 20) AS s, generate_series(0, 8) AS h;
SELECT segpipe_maintain('rr', 'sensor', 'ts', 'v', $k$ts::date::text || (v > 10)::text$k$,
                        '{"type": "MaxTracker"}', 'rr_max');

CREATE FUNCTION differences() RETURNS TABLE (results_differ bigint, states_differ bigint, checkpoints_differ bigint)
LANGUAGE plpgsql AS $$
BEGIN
  CREATE TEMP TABLE got_state AS SELECT sensor, pipeline_send(state) AS b FROM rr_max_state;
  CREATE TEMP TABLE got_ckpt AS SELECT sensor, ts, pipeline_send(state) AS b FROM rr_max_checkpoint;
  results_differ := (WITH whole AS (
      SELECT sensor, ts, k AS key, 1 AS port, m AS value
      FROM (SELECT sensor, ts, segment_key(v, ts::date::text || (v > 10)::text) OVER w AS k,
                   segment_agg(v, ts::date::text || (v > 10)::text, '{"type": "MaxTracker"}') OVER w AS m
            FROM rr WINDOW w AS (PARTITION BY sensor ORDER BY ts, v)) AS x
      WHERE m IS NOT NULL),
    got AS (SELECT sensor, ts, key, port, value FROM rr_max)
    SELECT count(*) FROM ((SELECT * FROM whole EXCEPT ALL SELECT * FROM got)
                          UNION ALL (SELECT * FROM got EXCEPT ALL SELECT * FROM whole)) AS d);
  PERFORM segpipe_rebuild('rr_max');
  states_differ := (SELECT count(*) FROM ((SELECT sensor, pipeline_send(state) FROM rr_max_state EXCEPT ALL TABLE got_state)
                    UNION ALL (TABLE got_state EXCEPT ALL SELECT sensor, pipeline_send(state) FROM rr_max_state)) AS d);
  checkpoints_differ := (SELECT count(*) FROM ((SELECT sensor, ts, pipeline_send(state) FROM rr_max_checkpoint EXCEPT ALL TABLE got_ckpt)
                         UNION ALL (TABLE got_ckpt EXCEPT ALL SELECT sensor, ts, pipeline_send(state) FROM rr_max_checkpoint)) AS d);
  DROP TABLE got_state, got_ckpt;
  RETURN NEXT;
END $$;
SELECT * FROM differences();

-- a value changed on the first day, then on the last reading
UPDATE rr SET v = 30 WHERE sensor = 3 AND ts = '2026-03-01 08:00+00';
SELECT * FROM differences();
UPDATE rr SET v = v + 1 WHERE sensor = 4 AND ts = '2026-03-03 16:00+00';
SELECT * FROM differences();
-- the last day of a sensor deleted: its run from the checkpoint before that
-- day has no reading left, and that checkpoint goes (no segment begins after it)
SELECT count(*) AS checkpoints_of_5 FROM rr_max_checkpoint WHERE sensor = 5;
DELETE FROM rr WHERE sensor = 5 AND ts >= '2026-03-03';
SELECT count(*) AS checkpoints_of_5 FROM rr_max_checkpoint WHERE sensor = 5;
SELECT * FROM differences();
-- two readings of one ts, in both orders of value: sensor 6's first one is
-- above 10, sensor 7's below, each arriving first
INSERT INTO rr VALUES (6, '2026-03-02 08:00+00', 1);
UPDATE rr SET v = 22 WHERE sensor = 6 AND ts = '2026-03-02 08:00+00' AND v <> 1;
INSERT INTO rr VALUES (7, '2026-03-02 08:00+00', 20);
UPDATE rr SET v = 2 WHERE sensor = 7 AND ts = '2026-03-02 08:00+00' AND v <> 20;
SELECT sensor, ts, key, value FROM rr_max WHERE sensor IN (6, 7) AND ts = '2026-03-02 08:00+00' ORDER BY 1, 2, 3;
SELECT * FROM differences();
-- several sensors in one statement, one of them with a tie
UPDATE rr SET v = v + 3 WHERE sensor IN (6, 8, 9) AND ts = '2026-03-02 08:00+00';
SELECT * FROM differences();
-- a sensor's every reading deleted: its state goes
DELETE FROM rr WHERE sensor = 10;
SELECT count(*) AS states_of_10 FROM rr_max_state WHERE sensor = 10;
SELECT * FROM differences();
-- The run's state is written in place of the row the correction locked
-- when the state table is as set-up made it, else by the UPDATE statement,
-- which runs what is on the table: a trigger on it sees the sensor.  The
-- scans of the state table in the change's transaction tell the two
-- apart: the UPDATE finds the row again by the key (a scan more).
CREATE TABLE rr_seen (sensor int);
CREATE FUNCTION rr_seen() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO public.rr_seen VALUES (NEW.sensor);
	RETURN NULL;
END
$$;
CREATE FUNCTION rr_change_scans(s int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	before bigint := pg_stat_get_xact_numscans('rr_max_state'::regclass) + pg_stat_get_xact_numscans('rr_max_state_pkey'::regclass);
BEGIN
	UPDATE rr SET v = v + 2 WHERE sensor = s AND ts = '2026-03-02 08:00+00';
	RETURN pg_stat_get_xact_numscans('rr_max_state'::regclass) + pg_stat_get_xact_numscans('rr_max_state_pkey'::regclass) - before;
END
$$;
CREATE TRIGGER rr_seen AFTER UPDATE ON rr_max_state FOR EACH ROW EXECUTE FUNCTION rr_seen();
SELECT rr_change_scans(16) AS with_trigger \gset
SELECT sensor, count(*) FROM rr_seen GROUP BY 1 ORDER BY 1;
DROP TRIGGER rr_seen ON rr_max_state;
SELECT :with_trigger > rr_change_scans(17) AS in_place_scans_less;
SELECT * FROM differences();
-- a CHECK constraint on the state table is checked (every state has 9
-- rows): the change is refused, and nothing of it is kept
ALTER TABLE rr_max_state ADD CONSTRAINT rr_few CHECK (pipeline_rows(state) < 5) NOT VALID;
UPDATE rr SET v = v + 2 WHERE sensor = 18 AND ts = '2026-03-02 08:00+00';
ALTER TABLE rr_max_state DROP CONSTRAINT rr_few;
SELECT v AS v_of_18 FROM rr WHERE sensor = 18 AND ts = '2026-03-02 08:00+00';
SELECT * FROM differences();
DROP TABLE rr_seen;
DROP FUNCTION rr_seen(), rr_change_scans(int);
-- A change keeps the results before it where they are: the run gives
-- them again from the same readings.  Sensor 19's segments end at 8:00 on
-- the 1st, at the day's turns, at 8:00 on the 2nd and at 16:00 on the 3rd;
-- a change at 8:00 on the 3rd keeps the result of midnight (its row stays,
-- at the same address) and writes the one of 16:00 again.
SELECT ctid AS midnight, (SELECT ctid FROM rr_max WHERE sensor = 19 AND ts = '2026-03-03 16:00+00') AS late
FROM rr_max WHERE sensor = 19 AND ts = '2026-03-03 00:00+00' \gset
UPDATE rr SET v = v + 1 WHERE sensor = 19 AND ts = '2026-03-03 08:00+00';
SELECT ctid = :'midnight' AS midnight_kept,
       (SELECT ctid FROM rr_max WHERE sensor = 19 AND ts = '2026-03-03 16:00+00') = :'late' AS late_kept
FROM rr_max WHERE sensor = 19 AND ts = '2026-03-03 00:00+00';
-- a change of the reading a result is stamped with writes that one again
UPDATE rr SET v = 19 WHERE sensor = 19 AND ts = '2026-03-03 00:00+00';
SELECT ts, key, value FROM rr_max WHERE sensor = 19 AND ts >= '2026-03-03' ORDER BY ts;
SELECT * FROM differences();
-- the sensors a change touched, read from its transition tables
-- (maintain_changed.c): a reading moved to another sensor and an earlier
-- time corrects both, the new one from that time
UPDATE rr SET sensor = 12, ts = '2026-03-01 12:00+00' WHERE sensor = 11 AND ts = '2026-03-02 16:00+00';
SELECT count(*) AS readings_of_11_12 FROM rr WHERE sensor IN (11, 12);
SELECT * FROM differences();
-- two readings of each of three sensors, one statement
DELETE FROM rr WHERE sensor IN (13, 14, 15) AND ts IN ('2026-03-01 16:00+00', '2026-03-02 16:00+00');
SELECT * FROM differences();
-- a change that matches no reading corrects nothing
DELETE FROM rr WHERE sensor = 99;
SELECT * FROM differences();
SELECT segpipe_unmaintain('rr_max', drop_tables => true);
DROP TABLE rr;
DROP FUNCTION differences();

-- smallint, bigint and text sensors (text through the statement): after an
-- UPDATE that moves a reading to another sensor and a DELETE of two
-- sensors' readings, each equals segment_agg over its readings
CREATE TABLE r2 (sensor smallint NOT NULL, ts timestamptz NOT NULL, v float8);
CREATE TABLE r8 (sensor bigint NOT NULL, ts timestamptz NOT NULL, v float8);
CREATE TABLE rt (sensor text NOT NULL, ts timestamptz NOT NULL, v float8);
INSERT INTO r2 SELECT s, timestamptz '2026-03-01 00:00+00' + h * interval '8 hours', (s * 7 + h * 5) % 23
FROM generate_series(1, 4) AS s, generate_series(0, 8) AS h;
INSERT INTO r8 SELECT sensor::bigint * 10000000000, ts, v FROM r2;
INSERT INTO rt SELECT 'm' || sensor, ts, v FROM r2;
SELECT segpipe_maintain('r2', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'r2_max');
SELECT segpipe_maintain('r8', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'r8_max');
SELECT segpipe_maintain('rt', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'rt_max');
UPDATE r2 SET sensor = 2, ts = '2026-03-01 04:00+00' WHERE sensor = 1 AND ts = '2026-03-02 08:00+00';
UPDATE r8 SET sensor = 20000000000, ts = '2026-03-01 04:00+00' WHERE sensor = 10000000000 AND ts = '2026-03-02 08:00+00';
UPDATE rt SET sensor = 'm2', ts = '2026-03-01 04:00+00' WHERE sensor = 'm1' AND ts = '2026-03-02 08:00+00';
DELETE FROM r2 WHERE sensor IN (3, 4) AND ts = '2026-03-02 16:00+00';
DELETE FROM r8 WHERE sensor IN (30000000000, 40000000000) AND ts = '2026-03-02 16:00+00';
DELETE FROM rt WHERE sensor IN ('m3', 'm4') AND ts = '2026-03-02 16:00+00';
CREATE VIEW want AS
SELECT 'r2' AS t, sensor::text AS sensor, ts, m FROM (SELECT sensor, ts, segment_agg(v, ts::date, '{"type": "MaxTracker"}') OVER w AS m
                                                 FROM r2 WINDOW w AS (PARTITION BY sensor ORDER BY ts, v)) AS x WHERE m IS NOT NULL
UNION ALL
SELECT 'r8', sensor::text, ts, m FROM (SELECT sensor, ts, segment_agg(v, ts::date, '{"type": "MaxTracker"}') OVER w AS m
                                       FROM r8 WINDOW w AS (PARTITION BY sensor ORDER BY ts, v)) AS x WHERE m IS NOT NULL
UNION ALL
SELECT 'rt', sensor, ts, m FROM (SELECT sensor, ts, segment_agg(v, ts::date, '{"type": "MaxTracker"}') OVER w AS m
                                 FROM rt WINDOW w AS (PARTITION BY sensor ORDER BY ts, v)) AS x WHERE m IS NOT NULL;
CREATE VIEW got AS
SELECT 'r2' AS t, sensor::text AS sensor, ts, value AS m FROM r2_max
UNION ALL SELECT 'r8', sensor::text, ts, value FROM r8_max
UNION ALL SELECT 'rt', sensor, ts, value FROM rt_max;
SELECT n.t, (SELECT count(*) FROM got WHERE got.t = n.t) AS results,
       (SELECT count(*) FROM ((SELECT * FROM want WHERE want.t = n.t EXCEPT ALL SELECT * FROM got WHERE got.t = n.t)
                              UNION ALL (SELECT * FROM got WHERE got.t = n.t EXCEPT ALL SELECT * FROM want WHERE want.t = n.t)) AS d) AS differ
FROM (VALUES ('r2'), ('r8'), ('rt')) AS n(t) ORDER BY 1;
DROP VIEW want, got;
SELECT segpipe_unmaintain('r2_max', drop_tables => true);
SELECT segpipe_unmaintain('r8_max', drop_tables => true);
SELECT segpipe_unmaintain('rt_max', drop_tables => true);
DROP TABLE r2, r8, rt;
