-- Chaining: a daily stage feeds a weekly stage.  The rows on which the
-- daily segment_agg emits nothing come out NULL, so they enter the weekly
-- stage as punctuation: they move its time on and, with their key, close
-- its weeks.
\pset format unaligned
\pset null 'null'
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';

-- Readings every 6 hours of Berlin local time (00, 06, 12, 18) from Monday
-- 16 March to Sunday 5 April 2026, worth the day of the month plus 0 to 3,
-- so a day's maximum is its day of the month plus 3.  Silent: Wednesday
-- 25 March, and Thursday 2 April to the end.  Berlin goes to summer time on
-- Sunday 29 March.
CREATE TABLE readings AS
SELECT ts, extract(day FROM ts AT TIME ZONE 'Europe/Berlin')::float8
           + extract(hour FROM ts AT TIME ZONE 'Europe/Berlin')::float8 / 6 AS v
FROM (SELECT l AT TIME ZONE 'Europe/Berlin' AS ts
      FROM generate_series(timestamp '2026-03-16 00:00', '2026-04-05 18:00', '6 hours') AS l) AS g
WHERE (ts AT TIME ZONE 'Europe/Berlin')::date <> date '2026-03-25'
  AND (ts AT TIME ZONE 'Europe/Berlin')::date < date '2026-04-02';

-- The two stages.  Stage 1 keys by Berlin day and keeps the day's maximum;
-- segment_key names the day a row closes.  Stage 2 keys by Berlin week and
-- sums the daily maxima.  Its key is the week of the day the row's value
-- belongs to: the day it closes, if it closes one, else the day of its ts.
-- Heartbeats at every Berlin midnight close the days on time; those at
-- every Monday midnight come after them (src 2) and close the weeks: the
-- Sunday's maximum travels on the first row of Monday into the old week,
-- and the next row, a punctuation row for both stages, closes it.
CREATE VIEW chained AS
WITH input AS (
  SELECT ts, v, 0 AS src FROM readings
  UNION ALL
  SELECT h, NULL, 1 FROM heartbeats('day', '2026-03-16 00:00+01', '2026-04-06 00:00+02', 'Europe/Berlin') AS h
  UNION ALL
  SELECT h, NULL, 2 FROM heartbeats('week', '2026-03-16 00:00+01', '2026-04-06 00:00+02', 'Europe/Berlin') AS h
), daily AS (
  SELECT ts, src,
         segment_agg(v, date_trunc('day', ts, 'Europe/Berlin'), '{"type": "MaxTracker"}') OVER w AS day_max,
         segment_key(v, date_trunc('day', ts, 'Europe/Berlin')) OVER w AS day
  FROM input
  WINDOW w AS (ORDER BY ts, src)
)
SELECT ts, src, day_max,
       segment_key(day_max, date_trunc('week', coalesce(day, ts), 'Europe/Berlin')) OVER w AS week,
       segment_agg(day_max, date_trunc('week', coalesce(day, ts), 'Europe/Berlin'),
                   '{"type": "CumulativeSum"}') OVER w AS week_sum
FROM daily
WINDOW w AS (ORDER BY ts, src);

-- Each week closes at the Monday midnight after it: 16 to 22 March sums
-- (16 + ... + 22) + 7 * 3 = 154; the week of the silent Wednesday and the
-- 23-hour Sunday (23 + ... + 29 - 25) + 6 * 3 = 175; the last week, silent
-- from Thursday, (30 + 31 + 1) + 3 * 3 = 71.
SELECT ts, (week AT TIME ZONE 'Europe/Berlin')::date AS week, week_sum
FROM chained WHERE week IS NOT NULL ORDER BY ts;

-- What stage 2 received: 64 readings, 22 daily and 4 weekly heartbeats; 16
-- rows carried a day's maximum, the 74 others were punctuation.
SELECT count(*) AS rows, count(day_max) AS values, count(*) - count(day_max) AS punctuation
FROM chained;

-- The same results computed directly, and the stamps: every week closed at
-- the Berlin midnight that starts the next one.
WITH direct AS (
  SELECT date_trunc('week', day, 'Europe/Berlin') AS week, sum(day_max) AS week_sum
  FROM (SELECT date_trunc('day', ts, 'Europe/Berlin') AS day, max(v) AS day_max
        FROM readings GROUP BY 1) AS d
  GROUP BY 1
)
SELECT count(*) AS weeks,
       count(*) FILTER (WHERE c.week_sum = d.week_sum) AS same_sum,
       count(*) FILTER (WHERE c.ts = ((d.week AT TIME ZONE 'Europe/Berlin') + interval '7 days')
                                     AT TIME ZONE 'Europe/Berlin') AS closed_on_time
FROM direct AS d FULL JOIN (SELECT * FROM chained WHERE week IS NOT NULL) AS c ON c.week = d.week;

-- Without the weekly heartbeats, a week closes on the first row after its
-- Sunday's maximum that closes no day.  On the first two Mondays a reading
-- and a daily heartbeat share midnight, and the heartbeat does it; after
-- the silent end of the last week nothing comes until the next midnight's
-- heartbeat, a day late.  The sums are the same.
SELECT ts, (week AT TIME ZONE 'Europe/Berlin')::date AS week, week_sum
FROM (SELECT ts, segment_key(day_max, date_trunc('week', coalesce(day, ts), 'Europe/Berlin')) OVER w AS week,
             segment_agg(day_max, date_trunc('week', coalesce(day, ts), 'Europe/Berlin'),
                         '{"type": "CumulativeSum"}') OVER w AS week_sum
      FROM (SELECT ts, src,
                   segment_agg(v, date_trunc('day', ts, 'Europe/Berlin'), '{"type": "MaxTracker"}') OVER w AS day_max,
                   segment_key(v, date_trunc('day', ts, 'Europe/Berlin')) OVER w AS day
            FROM (SELECT ts, v, 0 AS src FROM readings
                  UNION ALL
                  SELECT h, NULL, 1
                  FROM heartbeats('day', '2026-03-16 00:00+01', '2026-04-07 00:00+02', 'Europe/Berlin') AS h) AS i
            WINDOW w AS (ORDER BY ts, src)) AS daily
      WINDOW w AS (ORDER BY ts, src)) AS s
WHERE week IS NOT NULL ORDER BY ts;
-- leave nothing behind for the suites that follow
DROP VIEW chained;
DROP TABLE readings;
