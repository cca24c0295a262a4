-- Retention: beyond_horizon => 'keep' makes results final once they are
-- older than the horizon behind their sensor's progress.  A change of a
-- reading older than that (an insert, update or delete of it, a partition
-- detached, dropped or truncated) is not run: results, states and
-- checkpoints stay as they are, so old readings can be deleted, and old
-- partitions detached and dropped, without changing the results.  Changes
-- within the horizon are corrected as always.
\pset null null
\set SHOW_CONTEXT never
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
CREATE TABLE r (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
-- 'keep' needs a horizon; the values are checked
SELECT segpipe_maintain('r', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'rmax', beyond_horizon => 'keep');
SELECT segpipe_maintain('r', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'rmax', horizon => '2 days',
                        beyond_horizon => 'forget');
SELECT segpipe_maintain('r', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'rmax', horizon => '2 days',
                        beyond_horizon => 'keep');

-- two readings a day from 1 to 8 March, at 06:00 and 18:00: sensor 1's
-- are 10 times the day, plus 1 at 18:00; sensor 2's 100 more
INSERT INTO r SELECT s, d + h * interval '1 hour', (s - 1) * 100 + extract(day FROM d) * 10 + (h = 18)::int
FROM generate_series(1, 2) AS s, generate_series(timestamptz '2026-03-01', '2026-03-08', '1 day') AS d,
     (VALUES (6), (18)) AS hh(h);
-- each day closed on the next day's 06:00 reading; the 8th open.  The
-- progress is 8 March 18:00: the horizon reaches back to 6 March 18:00
SELECT sensor, count(*), min(key), max(key), sum(value) FROM rmax GROUP BY 1 ORDER BY 1;
CREATE TABLE before AS SELECT * FROM rmax;
CREATE TABLE states_before AS SELECT sensor, state::text AS state FROM rmax_state;
CREATE VIEW changed AS
SELECT (SELECT count(*) FROM ((TABLE before EXCEPT ALL TABLE rmax) UNION ALL (TABLE rmax EXCEPT ALL TABLE before)) AS d) AS results,
       (SELECT count(*) FROM states_before AS b FULL JOIN rmax_state AS s USING (sensor)
        WHERE b.state IS DISTINCT FROM s.state::text) AS states;

-- retention: the readings before 5 March go, and nothing else changes
DELETE FROM r WHERE ts < '2026-03-05';
SELECT count(*) AS readings_left FROM r;
TABLE changed;
-- an insert, an update and a delete older than the horizon are left out
INSERT INTO r VALUES (1, '2026-03-02 12:00+00', 999);
UPDATE r SET v = 999 WHERE sensor = 2 AND ts = '2026-03-05 18:00+00';
DELETE FROM r WHERE sensor = 2 AND ts = '2026-03-06 06:00+00';
TABLE changed;

-- changes within the horizon are corrected: sensor 1's 7th rises to 500,
-- then 600 with a late reading; sensor 2's 7th falls to 170 without its
-- 18:00 reading.  In one statement with a change older than the horizon,
-- the older one is left out and the other run (sensor 2's 8th, open,
-- rises to 777, its 5th stays 151).
UPDATE r SET v = 500 WHERE sensor = 1 AND ts = '2026-03-07 06:00+00';
INSERT INTO r VALUES (1, '2026-03-07 12:00+00', 600);
DELETE FROM r WHERE sensor = 2 AND ts = '2026-03-07 18:00+00';
INSERT INTO r VALUES (2, '2026-03-05 12:00+00', 999), (2, '2026-03-08 12:00+00', 777);
SELECT * FROM rmax WHERE key >= '2026-03-05' ORDER BY sensor, ts;
SELECT sensor, p.key, p.value FROM rmax_state, pending(state) AS p ORDER BY sensor;
-- an update moving a reading from before the horizon into it: its old
-- place is left out, its new place run
UPDATE r SET ts = '2026-03-08 20:00+00', v = 50 WHERE sensor = 1 AND ts = '2026-03-05 06:00+00';
SELECT sensor, p.key, p.value FROM rmax_state, pending(state) AS p ORDER BY sensor;
SELECT * FROM rmax WHERE key = '2026-03-05' ORDER BY sensor;
-- deleting readings within the horizon is a change like any other: all of
-- sensor 2's run it again from its checkpoint before 6 March 18:00, over
-- the readings as they are: none (its reading of 6 March 06:00, deleted
-- above, was left out then, but is gone now), so its results from that
-- checkpoint on go (the 5th's too, which that reading closed), and its
-- state: only 1 to 4 March stay.  Readings are kept for the horizon and a
-- segment more where retention must never change results (reference).
DELETE FROM r WHERE sensor = 2;
SELECT sensor, count(*) FROM rmax GROUP BY 1 ORDER BY 1;
SELECT sensor, pipeline_progress(state) FROM rmax_state ORDER BY sensor;

-- segpipe_rebuild() runs sensors from the readings as they are: here
-- without the days deleted (and with the late readings left out before)
SELECT segpipe_rebuild('rmax', ARRAY[1]);
SELECT * FROM rmax WHERE sensor = 1 ORDER BY ts;

-- Partitions: an old partition detached and dropped, another truncated,
-- leave the results as they were
CREATE TABLE pr (sensor int NOT NULL, ts timestamptz NOT NULL, v float8) PARTITION BY RANGE (ts);
CREATE TABLE pr_1 PARTITION OF pr FOR VALUES FROM ('2026-03-01') TO ('2026-03-03');
CREATE TABLE pr_2 PARTITION OF pr FOR VALUES FROM ('2026-03-03') TO ('2026-03-05');
CREATE TABLE pr_3 PARTITION OF pr FOR VALUES FROM ('2026-03-05') TO ('2026-03-10');
SELECT segpipe_maintain('pr', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'prmax', horizon => '2 days',
                        beyond_horizon => 'keep');
INSERT INTO pr SELECT r.sensor, r.ts, r.v FROM (SELECT s AS sensor, d + h * interval '1 hour' AS ts,
                                                       (s - 1) * 100 + extract(day FROM d) * 10 + (h = 18)::int AS v
                                                FROM generate_series(1, 2) AS s,
                                                     generate_series(timestamptz '2026-03-01', '2026-03-08', '1 day') AS d,
                                                     (VALUES (6), (18)) AS hh(h)) AS r;
CREATE TABLE pr_before AS SELECT * FROM prmax;
SELECT count(*) FROM prmax;
ALTER TABLE pr DETACH PARTITION pr_1;
DROP TABLE pr_1;
TRUNCATE pr_2;
SELECT count(*) AS readings_left FROM pr;
SELECT (SELECT count(*) FROM ((TABLE pr_before EXCEPT ALL TABLE prmax) UNION ALL (TABLE prmax EXCEPT ALL TABLE pr_before)) AS d)
       AS results_changed;
-- a partition within the horizon still corrects when it goes
ALTER TABLE pr DETACH PARTITION pr_3;
SELECT count(*) AS results_left FROM prmax;

-- under beyond_horizon => 'error', segpipe_rebuild() runs from the first
-- reading (it is no change older than the horizon)
CREATE TABLE e (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('e', 'sensor', 'ts', 'v', 'ts::date', '{"type": "MaxTracker"}', 'emax', horizon => '1 day',
                        beyond_horizon => 'error');
INSERT INTO e SELECT 1, d, extract(day FROM d) FROM generate_series(timestamptz '2026-03-01', '2026-03-06', '1 day') AS d;
SELECT segpipe_rebuild('emax');
SELECT count(*) FROM emax;
DELETE FROM e WHERE ts = '2026-03-01';

DROP VIEW changed;
SELECT segpipe_unmaintain('rmax', drop_tables => true);
SELECT segpipe_unmaintain('prmax', drop_tables => true);
SELECT segpipe_unmaintain('emax', drop_tables => true);
DROP TABLE r, before, states_before, pr, pr_2, pr_3, pr_before, e;
