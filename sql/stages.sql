-- Maintained results in stages, and keys in each sensor's own zone.
--
-- A results table of segpipe_maintain() is a table like any other: it can
-- be the readings of the next stage.  Its rows are the emissions of the
-- stage below, each stamped with the reading that closed its segment, and
-- its key column says which segment it stands for: the next stage keys on
-- that.  Every change reaches the next stage in the same statement: an
-- insert that closes an hour may close a day and a month; a correction
-- below deletes and inserts rows above, which corrects the stage above.
\pset null null
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
CREATE TABLE raw (sensor int NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('raw', 'sensor', 'ts', 'v', $$date_trunc('hour', ts)$$,
                        '{"type": "MaxTracker"}', 'hourly');
SELECT segpipe_maintain('hourly', 'sensor', 'ts', 'value', $$date_trunc('day', key, 'Europe/Berlin')$$,
                        '{"type": "MaxTracker"}', 'daily');
SELECT segpipe_maintain('daily', 'sensor', 'ts', 'value', $$date_trunc('month', key, 'Europe/Berlin')$$,
                        '{"type": "MaxTracker"}', 'monthly');

-- the same from the readings in plain SQL: each stage's closed segments
-- (an hour is closed once a later hour has a reading, a day once a later
-- day has a closed hour, a month once a later month has a closed day)
CREATE VIEW grouped AS
WITH h AS (SELECT sensor, date_trunc('hour', ts) AS k, max(v) AS m FROM raw GROUP BY 1, 2),
hc AS (SELECT * FROM h WHERE k < (SELECT max(k) FROM h AS h2 WHERE h2.sensor = h.sensor)),
d AS (SELECT sensor, date_trunc('day', k, 'Europe/Berlin') AS k, max(m) AS m FROM hc GROUP BY 1, 2),
dc AS (SELECT * FROM d WHERE k < (SELECT max(k) FROM d AS d2 WHERE d2.sensor = d.sensor)),
mo AS (SELECT sensor, date_trunc('month', k, 'Europe/Berlin') AS k, max(m) AS m FROM dc GROUP BY 1, 2),
mc AS (SELECT * FROM mo WHERE k < (SELECT max(k) FROM mo AS m2 WHERE m2.sensor = mo.sensor))
SELECT 'hourly' AS stage, sensor, k, m FROM hc UNION ALL SELECT 'daily', sensor, k, m FROM dc
UNION ALL SELECT 'monthly', sensor, k, m FROM mc;
CREATE VIEW kept AS
SELECT 'hourly' AS stage, sensor, key AS k, value AS m FROM hourly
UNION ALL SELECT 'daily', sensor, key, value FROM daily
UNION ALL SELECT 'monthly', sensor, key, value FROM monthly;
-- rows in one and not the other, per stage (no row: equal)
CREATE VIEW differing AS
SELECT stage, count(*) FROM ((TABLE grouped EXCEPT ALL TABLE kept) UNION ALL (TABLE kept EXCEPT ALL TABLE grouped)) AS x
GROUP BY 1 ORDER BY 1;
CREATE VIEW stages AS
SELECT stage, sensor, ts, key, value
FROM (SELECT 1 AS n, 'hourly' AS stage, sensor, ts, key, value FROM hourly
      UNION ALL SELECT 2, 'daily', sensor, ts, key, value FROM daily
      UNION ALL SELECT 3, 'monthly', sensor, ts, key, value FROM monthly) AS s
ORDER BY sensor, n, ts;

-- the last evening of March in Berlin (summer time, UTC+2): 22:00 local is
-- 20:00 UTC, and 22:05 UTC is 00:05 on 1 April
INSERT INTO raw VALUES (1, '2026-03-31 20:10+00', 5), (1, '2026-03-31 20:40+00', 7),
                       (1, '2026-03-31 21:15+00', 4), (1, '2026-03-31 22:05+00', 9),
                       (1, '2026-03-31 23:30+00', 2), (1, '2026-04-01 21:30+00', 1),
                       (1, '2026-04-01 22:10+00', 3);
SELECT * FROM stages;
TABLE differing;
-- 01:10 on 2 April (23:10 UTC): it closes the hour 22:00 UTC, the first
-- hour of 2 April in Berlin, which closes 1 April, the first day of April,
-- which closes March: one insert, three stages
INSERT INTO raw VALUES (1, '2026-04-01 23:10+00', 6);
SELECT * FROM stages;
TABLE differing;

-- corrections flow up: an update of a reading of 31 March raises its hour,
-- its day and March; a delete empties the hour 22:00 UTC (00:00 to 01:00
-- on 1 April), so the hour 21:00 UTC and 31 March close later, and
-- 1 April's maximum falls
UPDATE raw SET v = 8 WHERE ts = '2026-03-31 21:15+00';
SELECT * FROM stages WHERE stage <> 'hourly';
TABLE differing;
DELETE FROM raw WHERE ts = '2026-03-31 22:05+00';
SELECT * FROM stages;
TABLE differing;

-- many sensors, late rows and changes, against the plain SQL
INSERT INTO raw SELECT s, timestamptz '2026-02-20 00:00+00' + i * interval '47 min', (i * 7919 + s) % 1000
FROM generate_series(2, 6) AS s, generate_series(0, 1500) AS i;
INSERT INTO raw SELECT s, timestamptz '2026-03-02 00:01+00' + s * interval '1 day', 2000 + s FROM generate_series(2, 6) AS s;
UPDATE raw SET v = -v WHERE sensor = 3 AND ts > '2026-03-10' AND ts < '2026-03-12';
DELETE FROM raw WHERE sensor = 4 AND ts < '2026-03-01';
-- (sensors 2 to 6 from 20 February to 9 April: their Februaries and
-- Marches are closed, but sensor 4's February, whose readings are deleted;
-- and sensor 1's March: 10 months)
SELECT stage, count(*) > 0 AS kept, count(*) FILTER (WHERE stage = 'monthly') AS months
FROM kept GROUP BY 1 ORDER BY 1;
TABLE differing;
-- a truncate below empties every stage
TRUNCATE raw;
SELECT stage, count(*) FROM kept GROUP BY 1 ORDER BY 1;
SELECT count(*) AS states FROM (TABLE hourly_state UNION ALL TABLE daily_state UNION ALL TABLE monthly_state) AS s;

-- Keys in each sensor's own zone: a column of the readings names the zone,
-- and the key reads it.  A day is the sensor's local day, 23 hours long on
-- the day its zone moves to summer time: Berlin on 29 March 2026 (02:00
-- CET becomes 03:00 CEST), New York on 8 March (02:00 EST becomes 03:00
-- EDT).  The session's zone does not matter (the key names the zone).
CREATE TABLE zoned (sensor text NOT NULL, zone text NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('zoned', 'sensor', 'ts', 'v', $$date_trunc('day', ts, zone)$$,
                        '{"type": "CountNumber"}', 'local_days');
SET TimeZone = 'Asia/Tokyo';
INSERT INTO zoned VALUES
  ('b', 'Europe/Berlin', '2026-03-28 12:00+00', 1),    -- 13:00 CET, 28 March
  ('b', 'Europe/Berlin', '2026-03-28 22:30+00', 1),    -- 23:30 CET, 28 March
  ('b', 'Europe/Berlin', '2026-03-28 23:30+00', 1),    -- 00:30 CET, 29 March
  ('b', 'Europe/Berlin', '2026-03-29 21:30+00', 1),    -- 23:30 CEST, 29 March
  ('b', 'Europe/Berlin', '2026-03-29 22:30+00', 1),    -- 00:30 CEST, 30 March
  ('n', 'America/New_York', '2026-03-07 20:00+00', 1), -- 15:00 EST, 7 March
  ('n', 'America/New_York', '2026-03-08 04:30+00', 1), -- 23:30 EST, 7 March
  ('n', 'America/New_York', '2026-03-08 05:30+00', 1), -- 00:30 EST, 8 March
  ('n', 'America/New_York', '2026-03-09 03:30+00', 1), -- 23:30 EDT, 8 March
  ('n', 'America/New_York', '2026-03-09 04:30+00', 1); -- 00:30 EDT, 9 March
SET TimeZone = 'UTC';
SELECT * FROM local_days ORDER BY sensor, ts;
SELECT sensor, key, pending.value AS open_count FROM local_days_state, pending(state) ORDER BY sensor;

-- The zone in a table of sensors instead, looked up by the key (schema-
-- qualified: the key is code, run by every change of the readings).  The
-- key is then not a function of the reading's row alone: a sensor whose
-- zone changes keeps the results of its old zone until it is run again
-- with segpipe_rebuild().
CREATE TABLE sites (id text PRIMARY KEY, zone text NOT NULL);
INSERT INTO sites VALUES ('b', 'Europe/Berlin'), ('n', 'America/New_York');
CREATE TABLE plain_readings (sensor text NOT NULL, ts timestamptz NOT NULL, v float8);
SELECT segpipe_maintain('plain_readings', 'sensor', 'ts', 'v',
                        $$date_trunc('day', ts, (SELECT s.zone FROM public.sites AS s WHERE s.id = sensor))$$,
                        '{"type": "CountNumber"}', 'site_days');
INSERT INTO plain_readings SELECT sensor, ts, v FROM zoned;
SELECT (SELECT count(*) FROM ((SELECT sensor, ts, key, value FROM site_days EXCEPT ALL SELECT sensor, ts, key, value FROM local_days)
                              UNION ALL (SELECT sensor, ts, key, value FROM local_days EXCEPT ALL SELECT sensor, ts, key, value FROM site_days)) AS d)
       AS differing_from_the_column;
-- 'n' moves to UTC: its rows are keyed by UTC days once it is run again
UPDATE sites SET zone = 'UTC' WHERE id = 'n';
SELECT sensor, ts, key, value FROM site_days WHERE sensor = 'n' ORDER BY ts;
SELECT segpipe_rebuild('site_days', ARRAY['n']);
SELECT sensor, ts, key, value FROM site_days WHERE sensor = 'n' ORDER BY ts;

-- stages are taken down from the top
DROP VIEW grouped, differing, kept, stages;
SELECT segpipe_unmaintain('monthly', drop_tables => true);
SELECT segpipe_unmaintain('daily', drop_tables => true);
SELECT segpipe_unmaintain('hourly', drop_tables => true);
SELECT segpipe_unmaintain('local_days', drop_tables => true);
SELECT segpipe_unmaintain('site_days', drop_tables => true);
DROP TABLE raw, zoned, sites, plain_readings;
