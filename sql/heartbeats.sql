-- heartbeats(unit, start, stop, zone): the instants at which
-- date_trunc(unit, ts, zone) changes; quiet_heartbeats(since, until, quiet):
-- since + quiet, since + 2 quiet, ... before until.
\pset format unaligned
\pset null 'null'
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';

-- day_lengths(start, stop, zone): the day heartbeats from start to stop,
-- each with its local time in zone and the hours until the next one.
CREATE FUNCTION day_lengths(start timestamptz, stop timestamptz, zone text)
RETURNS TABLE (h timestamptz, local timestamp, hours int) LANGUAGE sql AS $$
  SELECT h, h AT TIME ZONE zone, (extract(epoch FROM lead(h) OVER (ORDER BY h) - h) / 3600)::int
  FROM heartbeats('day', start, stop, zone) AS h
  ORDER BY h
$$;

-- Berlin, 2026: 29 March has 23 hours, 25 October 25.  Bounds are
-- inclusive; both bounds here are Berlin midnights.
SELECT * FROM day_lengths('2026-03-28 00:00+01', '2026-03-30 00:00+02', 'Europe/Berlin');
SELECT * FROM day_lengths('2026-10-24 00:00+02', '2026-10-26 00:00+01', 'Europe/Berlin');
-- New York, 2026: 8 March has 23 hours, 1 November 25.
SELECT * FROM day_lengths('2026-03-07 00:00-05', '2026-03-09 00:00-04', 'America/New_York');
SELECT * FROM day_lengths('2026-10-31 00:00-04', '2026-11-02 00:00-05', 'America/New_York');
-- UTC: every day 24 hours; a start inside a day begins at the next one.
SELECT h, hours FROM day_lengths('2026-03-28 12:00+00', '2026-03-31 00:00+00', 'UTC');

-- Hours in Berlin when the clocks go back: 02:00 to 03:00 is lived twice.
-- Below a day, date_trunc keeps the offset of ts, so the two passes are two
-- keys (00:00 and 01:00 UTC): a heartbeat at every UTC hour, two of them at
-- local 02:00.
SELECT h, h AT TIME ZONE 'Europe/Berlin' AS local, date_trunc('hour', h, 'Europe/Berlin') AS key,
       date_trunc('hour', h - interval '1 microsecond', 'Europe/Berlin') AS key_before
FROM heartbeats('hour', '2026-10-24 23:00+00', '2026-10-25 03:00+00', 'Europe/Berlin') AS h;
-- Minutes go on through both passes: 121 boundaries in two hours.
SELECT count(*) FROM heartbeats('minute', '2026-10-25 00:00+00', '2026-10-25 02:00+00', 'Europe/Berlin');

-- Against date_trunc itself, minute by minute, around the changes of 2026
-- (Havana changes its clocks at midnight: in March local midnight is
-- skipped, in November the hour after it is lived twice): the heartbeats
-- are exactly the minutes at which date_trunc(unit, ts, zone) changes.
CREATE TABLE ranges (lo timestamptz, hi timestamptz);
INSERT INTO ranges VALUES ('2026-03-07 00:00+00', '2026-03-10 00:00+00'),
  ('2026-03-28 00:00+00', '2026-04-02 00:00+00'), ('2026-10-24 00:00+00', '2026-10-27 00:00+00'),
  ('2026-10-31 00:00+00', '2026-11-03 00:00+00');
SELECT z AS zone, u AS unit, hb IS NOT DISTINCT FROM bf AS same, cardinality(hb) > 0 AS some
FROM unnest(ARRAY['Europe/Berlin', 'America/New_York', 'UTC', 'Asia/Kolkata', 'America/Havana']) AS z,
     unnest(ARRAY['minute', 'hour', 'day', 'week', 'month']) AS u,
     LATERAL (SELECT array_agg(h ORDER BY h) AS hb
              FROM ranges, heartbeats(u, lo, hi, z) AS h) AS a,
     LATERAL (SELECT array_agg(t ORDER BY t) AS bf
              FROM ranges, generate_series(lo, hi, '1 minute') AS t
              WHERE date_trunc(u, t, z) <> date_trunc(u, t - interval '1 minute', z)) AS b
ORDER BY z, u;

-- The session's TimeZone plays no part (bounds written with offsets).
CREATE TABLE hb_utc AS
SELECT z, h FROM unnest(ARRAY['Europe/Berlin', 'America/New_York', 'UTC']) AS z,
     heartbeats('hour', '2026-03-07 00:00+00', '2026-11-02 00:00+00', z) AS h;
SET TimeZone = 'Pacific/Chatham';
SELECT count(*) AS rows,
       count(*) = (SELECT count(*) FROM hb_utc) AND NOT EXISTS (
         SELECT z, h FROM unnest(ARRAY['Europe/Berlin', 'America/New_York', 'UTC']) AS z,
                heartbeats('hour', '2026-03-07 00:00+00', '2026-11-02 00:00+00', z) AS h
         EXCEPT SELECT z, h FROM hb_utc) AS same
FROM hb_utc;
SET TimeZone = 'UTC';

-- Bounds: start is included when it is a boundary, stop too; an empty range
-- gives nothing; unit names are read as date_trunc reads them.
SELECT h FROM heartbeats('day', '2026-03-29 12:00+00', '2026-03-29 22:00+00', 'Europe/Berlin') AS h;
SELECT count(*) FROM heartbeats('day', '2026-03-29 12:00+00', '2026-03-29 21:59:59.999999+00', 'Europe/Berlin');
SELECT count(*) FROM heartbeats('day', '2026-03-30 00:00+00', '2026-03-29 00:00+00', 'UTC');
SELECT array_agg(h) FROM heartbeats('Days', '2026-03-28 00:00+00', '2026-03-30 00:00+00', 'UTC') AS h;
SELECT h FROM heartbeats('month', '2025-12-15 00:00+00', '2026-03-01 00:00+00', 'UTC') AS h;
SELECT h AT TIME ZONE 'Europe/Berlin' FROM heartbeats('week', '2026-03-20 00:00+00', '2026-04-07 00:00+00', 'Europe/Berlin') AS h;
-- One row per call: a range of 2.3 billion seconds stops at the LIMIT.
SELECT heartbeats('second', '2026-01-01 00:00+00', '2100-01-01 00:00+00', 'UTC') LIMIT 3;
-- NULL arguments give no rows (STRICT); errors name what is wrong.
SELECT count(*) FROM heartbeats('day', NULL, '2026-01-01 00:00+00', 'UTC');
SELECT heartbeats('fortnight', '2026-01-01 00:00+00', '2026-02-01 00:00+00', 'UTC');
SELECT heartbeats('day', '2026-01-01 00:00+00', '2026-02-01 00:00+00', 'Mars/Olympus_Mons');
SELECT heartbeats('day', '2026-01-01 00:00+00', '2026-02-01 00:00+00', 'CEST');
SELECT heartbeats('day', '2026-01-01 00:00+00', 'infinity', 'UTC');

-- The ends of the range (4714-11-24 00:00 BC to 294276-12-31 23:59:59.999999
-- UTC): every heartbeat up to stop, the last instant included.  Local time
-- may lie outside the range there: in Tokyo the last day, month and year
-- end at 15:00 UTC on 294276-12-31 (local 294277-01-01 00:00); a millennium
-- runs from 294001 to 295000, so none ends within the range.
SELECT h FROM heartbeats('day', '294276-12-29 00:00+00', '294276-12-31 00:00+00', 'UTC') AS h;
SELECT h FROM heartbeats('hour', '294276-12-31 21:00+00', '294276-12-31 23:59:59.999999+00', 'UTC') AS h;
SELECT h FROM heartbeats('microseconds', '294276-12-31 23:59:59.999998+00', '294276-12-31 23:59:59.999999+00', 'UTC') AS h;
SELECT u AS unit, (SELECT array_agg(h ORDER BY h)
                   FROM heartbeats(u, '294276-12-30 12:00+00', '294276-12-31 23:59:59.999999+00', 'Asia/Tokyo') AS h) AS hb
FROM unnest(ARRAY['day', 'month', 'year', 'millennium']) WITH ORDINALITY AS x(u, i) ORDER BY i;
-- At the start of the range, midnights in local mean time: New York
-- (-04:56:02) at 04:56:02 UTC, Berlin (+00:53:28) at 23:06:32 UTC the day
-- before.  The range begins at a UTC midnight that has no instant before
-- it, so it is no heartbeat.
SELECT z AS zone, (SELECT array_agg(h ORDER BY h)
                   FROM heartbeats('day', '4714-11-24 00:00+00 BC', '4714-11-26 00:00+00 BC', z) AS h) AS hb
FROM unnest(ARRAY['UTC', 'America/New_York', 'Europe/Berlin']) WITH ORDINALITY AS x(z, i) ORDER BY i;
SELECT h FROM heartbeats('microseconds', '4714-11-24 00:00+00 BC', '4714-11-24 00:00:00.000002+00 BC', 'UTC') AS h;
-- Millennia begin in years ending in 001 AD, and in 1000 BC, 2000 BC, ...:
-- the first one of the range began in 5000 BC, before it.
SELECT h FROM heartbeats('millennium', '4714-11-24 00:00+00 BC', '2000-01-01 00:00+00', 'UTC') AS h;
-- Against date_trunc, minute by minute, over the last five days of the
-- range and the first eleven (in UTC, where date_trunc reaches a unit's
-- start there; generate_series would step past the end, hence the integers).
SELECT z AS zone, u AS unit, hb IS NOT DISTINCT FROM bf AS same, cardinality(hb) AS n
FROM unnest(ARRAY['UTC', 'Asia/Tokyo', 'Asia/Kolkata', 'America/New_York', 'Europe/Berlin']) AS z,
     unnest(ARRAY['minute', 'hour', 'day', 'week', 'month', 'year']) AS u,
     LATERAL (SELECT array_agg(h ORDER BY h) AS hb
              FROM heartbeats(u, '294276-12-27 00:00+00', '294276-12-31 23:59:59.999999+00', z) AS h) AS a,
     LATERAL (SELECT array_agg(t ORDER BY t) AS bf
              FROM (SELECT timestamptz '294276-12-27 00:00+00' + i * interval '1 minute' AS t
                    FROM generate_series(0, 5 * 1440 - 1) AS i) AS g
              WHERE date_trunc(u, t, z) <> date_trunc(u, t - interval '1 minute', z)) AS b
ORDER BY z, u;
SELECT u AS unit, hb IS NOT DISTINCT FROM bf AS same, cardinality(hb) AS n
FROM unnest(ARRAY['minute', 'hour', 'day', 'week']) AS u,
     LATERAL (SELECT array_agg(h ORDER BY h) AS hb
              FROM heartbeats(u, '4714-11-24 00:00+00 BC', '4714-12-05 00:00+00 BC', 'UTC') AS h) AS a,
     LATERAL (SELECT array_agg(t ORDER BY t) AS bf
              FROM (SELECT timestamptz '4714-11-24 00:00+00 BC' + i * interval '1 minute' AS t
                    FROM generate_series(1, 11 * 1440) AS i) AS g
              WHERE date_trunc(u, t, 'UTC') <> date_trunc(u, t - interval '1 minute', 'UTC')) AS b
ORDER BY u;
-- quiet_heartbeats stops before until, at the end of the range too.
SELECT * FROM quiet_heartbeats('294276-12-31 12:00+00', '294276-12-31 23:59:59.999999+00', '4 hours');

-- Quiet periods: every 4 hours of silence between 18:00 and 08:00.
SELECT * FROM quiet_heartbeats('2026-03-01 18:00+00', '2026-03-02 08:00+00', '4 hours');
-- strictly before until; nothing when the silence is not long enough
SELECT * FROM quiet_heartbeats('2026-03-01 18:00+00', '2026-03-01 22:00+00', '2 hours');
SELECT count(*) FROM quiet_heartbeats('2026-03-01 18:00+00', '2026-03-01 20:00+00', '2 hours');
SELECT count(*) FROM quiet_heartbeats('2026-03-01 18:00+00', NULL, '2 hours');
-- A quiet period is elapsed time: a day is 24 hours, across a change of the
-- clocks too, whatever the session's TimeZone.
SET TimeZone = 'Europe/Berlin';
SELECT * FROM quiet_heartbeats('2026-03-28 12:00+01', '2026-03-31 00:00+02', '1 day');
SET TimeZone = 'UTC';
SELECT * FROM quiet_heartbeats('2026-03-01 18:00+00', '2026-03-02 08:00+00', '1 mon');
SELECT * FROM quiet_heartbeats('2026-03-01 18:00+00', '2026-03-02 08:00+00', '0 seconds');
SELECT * FROM quiet_heartbeats('2026-03-01 18:00+00', '2026-03-02 08:00+00', '1 day -25 hours');
SELECT * FROM quiet_heartbeats('-infinity', '2026-03-02 08:00+00', '1 hour');

-- In a segment_agg input: hourly readings in Berlin until 18:00 on the
-- 29th (a 23-hour day), then silence.  Calendar heartbeats close every day
-- at its midnight: the 28th with 24 readings, the 29th with 18, and the
-- silent 30th, which fed nothing, as a closed segment without a value.
CREATE TABLE berlin_readings AS
SELECT ts, 1.0::float8 AS v
FROM generate_series(timestamptz '2026-03-28 00:00+01', '2026-03-29 18:00+02', '1 hour') AS ts;
SELECT ts, (day AT TIME ZONE 'Europe/Berlin')::date AS day, n
FROM (SELECT ts, segment_key(v, date_trunc('day', ts, 'Europe/Berlin')) OVER w AS day,
             segment_agg(v, date_trunc('day', ts, 'Europe/Berlin'), '{"type": "CountNumber"}') OVER w AS n
      FROM (SELECT ts, v FROM berlin_readings
            UNION ALL
            SELECT h, NULL FROM heartbeats('day', '2026-03-28 00:00+01', '2026-03-31 00:00+02', 'Europe/Berlin') AS h) AS r
      WINDOW w AS (ORDER BY ts, v NULLS LAST)) AS s
WHERE day IS NOT NULL;

-- Quiet heartbeats between a sensor's readings: after 6 hours of silence,
-- and every 6 hours after that, the day key of the heartbeat moves time on,
-- so the 1st closes at 04:00 on the 2nd instead of at the next reading on
-- the 3rd; the silent 2nd closes (without a value) at 04:00 on the 3rd.
CREATE TABLE gappy (ts timestamptz, v float8);
INSERT INTO gappy VALUES ('2026-03-01 08:00+00', 10), ('2026-03-01 16:00+00', 14), ('2026-03-03 09:00+00', 12);
SELECT ts, closed_day, max
FROM (SELECT ts, segment_key(v, (ts AT TIME ZONE 'UTC')::date) OVER w AS closed_day,
             segment_agg(v, (ts AT TIME ZONE 'UTC')::date, '{"type": "MaxTracker"}') OVER w AS max
      FROM (SELECT ts, v FROM gappy
            UNION ALL
            SELECT q, NULL
            FROM (SELECT ts, lead(ts) OVER (ORDER BY ts) AS next FROM gappy) AS g,
                 quiet_heartbeats(g.ts, g.next, '6 hours') AS q) AS r
      WINDOW w AS (ORDER BY ts)) AS s
WHERE closed_day IS NOT NULL;
-- leave nothing behind for the suites that follow
DROP TABLE ranges, hb_utc, berlin_readings, gappy;
DROP FUNCTION day_lengths(timestamptz, timestamptz, text);
