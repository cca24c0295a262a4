-- State that follows what a query holds: the cap on a pipeline's total
-- state, windows that grow with their values and reset cheaply, ties in the
-- extrema, and a standard deviation that neither overflows nor underflows.
\pset format unaligned
\pset null 'null'

-- A chain of n copies of one operator: op1 -> op2 -> ... -> opn.
CREATE FUNCTION chain(op text, n int) RETURNS text LANGUAGE sql AS $$
  SELECT format('{"operators": [%s], "connections": [%s], "entryOperator": "op1", '
                '"outputMappings": {"op%s": {"o1": "o1"}}}',
                string_agg(format('{"id": "op%s", %s}', i, op), ', ' ORDER BY i),
                coalesce(string_agg(format('{"from": "op%s", "to": "op%s"}', i - 1, i), ', '
                                    ORDER BY i) FILTER (WHERE i > 1), ''),
                n)
  FROM generate_series(1, n) AS i
$$;

-- The cap: 67108864 bytes (64 MiB) of state per pipeline, counted with
-- every window full, checked when the spec is read (54000).
-- WindowMinMax(1000000) holds a value and an index per slot, 16000000
-- bytes, plus 8 bytes of fixed state: 4 of them take 64000032 bytes.
SELECT try_spec(chain('"type": "WindowMinMax", "window_size": 1000000, "mode": "max"', 4));
-- 5 take 80000040 bytes; 67 take 1072000536 bytes.
SELECT try_spec(chain('"type": "WindowMinMax", "window_size": 1000000, "mode": "max"', 5));
SELECT try_spec(chain('"type": "WindowMinMax", "window_size": 1000000, "mode": "max"', 67));
-- MovingAverage(1000000): 8000000 bytes of values and 648 of sums and
-- counts (the exact sum takes 560): 8 take 64005184 bytes, 9 take 72005832.
SELECT try_spec(chain('"type": "MovingAverage", "window_size": 1000000', 8));
SELECT try_spec(chain('"type": "MovingAverage", "window_size": 1000000', 9));
-- The largest spec otherwise valid, 256 filters of 4096 taps, holds 8388608
-- bytes of state: accepted.
SELECT try_spec(chain('"type": "FiniteImpulseResponse", "coeff": [' ||
                      rtrim(repeat('0.5, ', 4096), ', ') || ']', 256));

-- Windows grow as values arrive and keep their room across a reset: a
-- segment of 250 rows through windows of 100, then one of 150 rows, then
-- punctuation with a new key.  Sums of the last 100: 151..250 = 20050,
-- 51..150 = 10050; extremes 250 and 151, 150 and 51; the deviation of 100
-- consecutive integers is sqrt(100 * 101 / 12).
SELECT ts, sum, max, min, sd
FROM (SELECT ts,
             segment_agg(v, k, '{"type": "MovingSum", "window_size": 100}') OVER w AS sum,
             segment_agg(v, k, '{"type": "WindowMinMax", "window_size": 100, "mode": "max"}') OVER w AS max,
             segment_agg(v, k, '{"type": "WindowMinMax", "window_size": 100, "mode": "min"}') OVER w AS min,
             segment_agg(v, k, '{"type": "StandardDeviation", "window_size": 100}') OVER w AS sd
      FROM (SELECT i AS ts, i::float8 AS v, 1 AS k FROM generate_series(1, 250) AS i
            UNION ALL SELECT 250 + i, i, 2 FROM generate_series(1, 150) AS i
            UNION ALL SELECT 401, NULL, 3) AS t
      WINDOW w AS (ORDER BY ts)) AS s
WHERE sum IS NOT NULL OR max IS NOT NULL OR min IS NOT NULL OR sd IS NOT NULL
ORDER BY ts;
-- A peak detector over 101 values, the ring wrapping many times: the
-- triangle 1..150..1 has one peak, 150.
SELECT count(e), max(e)
FROM (SELECT segment_agg(v, k, '{"type": "PeakDetector", "window_size": 101}') OVER (ORDER BY ts) AS e
      FROM (SELECT i AS ts, (150 - abs(150 - i))::float8 AS v, 0 AS k FROM generate_series(1, 299) AS i
            UNION ALL SELECT 300, NULL, 1) AS t) AS s;
-- Segments far shorter than their windows cost what they hold: 20000
-- one-row segments and 10000 two-row partitions through windows of a
-- million emit nothing (no window fills).
SELECT count(e)
FROM (SELECT segment_agg(i::float8, i, '{"type": "MovingAverage", "window_size": 1000000}')
               OVER (ORDER BY i) AS e
      FROM generate_series(1, 20000) AS i) AS s;
SELECT count(e)
FROM (SELECT segment_agg(i::float8, i % 2, '{"type": "WindowMinMax", "window_size": 1000000, "mode": "min"}')
               OVER (PARTITION BY i / 2 ORDER BY i) AS e
      FROM generate_series(1, 20000) AS i) AS s;

-- Ties keep the value seen first (-0 and 0 are equal), as the trackers do.
SELECT trace('{"type": "WindowMinMax", "window_size": 2, "mode": "max"}', '{0, -0}');
SELECT trace('{"type": "WindowMinMax", "window_size": 2, "mode": "max"}', '{-0, 0}');
SELECT trace('{"type": "WindowMinMax", "window_size": 3, "mode": "min"}', '{0, -0, 1}');
SELECT trace('{"type": "WindowMinMax", "window_size": 3, "mode": "min"}', '{-0, 0, 1}');
SELECT trace('{"type": "MaxTracker"}', '{0, -0}');
SELECT trace('{"type": "MinTracker"}', '{-0, 0}');
-- When the first seen leaves the window, the earliest equal value still
-- in it is reported: windows [0, -0] then [-0, -1].
SELECT trace('{"type": "WindowMinMax", "window_size": 2, "mode": "max"}', '{0, -0, -1}');
SELECT trace('{"type": "WindowMinMax", "window_size": 2, "mode": "min"}', '{-0, 0, 1}');
-- A centre equal to another value of its window is no peak.
SELECT trace('{"type": "PeakDetector", "window_size": 3}', '{1, 2, 1}');
SELECT trace('{"type": "PeakDetector", "window_size": 3}', '{1, 2, 2, 1}');
SELECT trace('{"type": "PeakDetector", "window_size": 3}', '{-1, 0, -0}');
SELECT trace('{"type": "PeakDetector", "window_size": 5}', '{0, 1, 3, 2, 3}');
SELECT trace('{"type": "PeakDetector", "window_size": 5}', '{3, 1, 3, 2, 0}');

-- StandardDeviation of one value is 0 (as the original design has it);
-- a NaN still gives NaN.
SELECT trace('{"type": "StandardDeviation", "window_size": 1}', '{5, -3, NaN, 2}');
-- Equal huge values: 0, where the sum of squares would overflow.
SELECT trace('{"type": "StandardDeviation", "window_size": 2}', '{1e200, 1e200, 1e200}');

-- sd_error(w, vals): for every full window of vals, the relative error of
-- the operator's result (the window run as its own segment) against the
-- formula computed exactly in numeric; 0 when both are 0.
CREATE FUNCTION sd_error(w int, vals float8[]) RETURNS numeric LANGUAGE sql AS $$
  WITH got AS (
    SELECT n, e
    FROM (SELECT n, i, segment_agg(v, k, format('{"type": "StandardDeviation", "window_size": %s}', w)::pipeline)
                         OVER (PARTITION BY n ORDER BY i) AS e
          FROM generate_series(w, cardinality(vals)) AS n,
               LATERAL (SELECT i, vals[i] AS v, 0 AS k FROM generate_series(1, n) AS i
                        UNION ALL SELECT n + 1, NULL, 1) AS r) AS s
    WHERE i = n + 1),
  ref AS (
    SELECT n, (SELECT sqrt(sum((x - m) * (x - m)) / greatest(w - 1, 1))
               FROM (SELECT vals[j]::numeric AS x,
                            avg(vals[j]::numeric) OVER () AS m
                     FROM generate_series(n - w + 1, n) AS j) AS win) AS sd
    FROM generate_series(w, cardinality(vals)) AS n)
  SELECT max(CASE WHEN ref.sd = 0 THEN abs(got.e::numeric)
                  ELSE abs(got.e::numeric - ref.sd) / ref.sd END)
  FROM got JOIN ref USING (n)
$$;
-- Every magnitude from 1e-300 to 1e307, both signs: within 1e-12.
SELECT s, sd_error(3, ARRAY[s * 1, s * 1.5, s * -0.25, s * 0.75, s, -s]) < 1e-12 AS ok
FROM unnest('{1e-300, 1e-200, 1e-150, 1, 1e150, 1e200, 1e250, 1e300, 1e307, -1e307}'::float8[]) AS s;
-- Close values around a huge mean, 2^512 and 2^512 + 2^470 (exact in
-- float8): the deviation is 2^470 / sqrt(2), and stddev_samp() agrees.
SELECT abs(e / power(2::float8, 469.5) - 1) < 1e-12 AS exact,
       abs(e / (SELECT stddev_samp(x) FROM unnest(ARRAY[power(2::float8, 512),
                                                        power(2::float8, 512) + power(2::float8, 470)]) AS x)
           - 1) < 1e-12 AS agrees
FROM (SELECT ts, segment_agg(v, k, '{"type": "StandardDeviation", "window_size": 2}') OVER (ORDER BY ts) AS e
      FROM (VALUES (1, power(2::float8, 512), 0), (2, power(2::float8, 512) + power(2::float8, 470), 0),
                   (3, NULL, 1)) AS t(ts, v, k)) AS s
WHERE ts = 3;
-- Windows that slide from huge to tiny values and back: the scale follows.
SELECT sd_error(2, '{1e300, 1e-300, 2e-300, 3e-300, 1e300, 5, 6, 1e-300, 4e-300}') < 1e-12 AS ok;
SELECT sd_error(4, '{1e-300, 1e300, 1e-300, 2e-300, 3e-300, 4e-300, 5e-300, 1e200, 2e200, 1e-100}') < 1e-12 AS ok;
-- A window of many values at the top of the range, and of tiny ones.
SELECT sd_error(50, array_agg(1e306 * (1 + (i % 7)))) < 1e-12 AS ok FROM generate_series(1, 120) AS i;
SELECT sd_error(50, array_agg(1e-306 * (1 + (i % 7)))) < 1e-12 AS ok FROM generate_series(1, 120) AS i;

-- Counters and positions at their caps.  step(p, v) resumes pipeline p (a
-- text) for one more row of value v with its key, and shows its operators'
-- state, buffer and row count afterwards, or the error.
-- ops(p): the "operators" member of the state of pipeline p (a text),
-- read and written back.
CREATE FUNCTION ops(p text) RETURNS text LANGUAGE sql AS $$
  SELECT substring(p::pipeline::text from '"state": .*"operators": (.*), "emissions"')
$$;
CREATE FUNCTION step(p text, v float8) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    r pipeline;
    detail text;
BEGIN
    SELECT pipeline_agg(timestamptz '2026-01-02 00:00+00', v, 1, p::pipeline) INTO r;
    RETURN ops(r::text) || ' buffer ' || substring(r::text from '"buffer": (\[[^]]*\])') ||
           ' rows ' || pipeline_rows(r);
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM || coalesce(E'\nDETAIL:  ' || nullif(detail, ''), '');
END $$;
-- state(spec, op1, buffer[, rows, late]): a pipeline text with key 1 and
-- that state (op1 the state of operator op1, NULL for an operator without).
CREATE FUNCTION state(spec text, op1 text, buffer text, rows text DEFAULT '3', late text DEFAULT '0')
RETURNS text LANGUAGE sql AS $$
  SELECT rtrim(spec, '}') || format(', "state": {"key_type": "integer", "key": "1", '
    '"progress": "2026-01-01 00:00:00+00", "rows": %s, "discarded": 0, "late": %s, '
    '"buffer": [%s], "operators": {%s}, "emissions": []}}', rows, late, buffer,
    coalesce('"op1": ' || op1, ''))
$$;
-- WindowMinMax and PeakDetector keep positions as float8, exact up to 2^53
-- = 9007199254740992: they count at most that many values between resets.
-- One value short of it, max over 3 holding 100 and 2 at the last two
-- positions: 1 arrives, the maximum is still 100, and the state written
-- (seen 2^53) reads back.
\set wmm '{"type": "WindowMinMax", "window_size": 3, "mode": "max"}'
SELECT step(state(:'wmm', '{"seen": 9007199254740991, "values": [100, 2], "indexes": [9007199254740989, 9007199254740990]}', '100'), 1);
SELECT step(step_text, 1) FROM (SELECT pipeline_agg(timestamptz '2026-01-02 00:00+00', 1, 1,
  state(:'wmm', '{"seen": 9007199254740991, "values": [100, 2], "indexes": [9007199254740989, 9007199254740990]}', '100')::pipeline)::text AS step_text) AS s;
-- Past the cap, a state is refused; at the cap, the next row is an error.
SELECT try_spec(state(:'wmm', '{"seen": 9007199254740993, "values": [100], "indexes": [9007199254740992]}', '100'));
SELECT try_spec(state(:'wmm', '{"seen": "4611686018427387904", "values": [100, 2], "indexes": [4611686018427387901, 4611686018427387902]}', '100'));
\set peak '{"type": "PeakDetector", "window_size": 3}'
SELECT step(state(:'peak', '{"seen": 9007199254740991, "values": [5], "indexes": [9007199254740990], "recent": [1, 5], "recent_maxima": [1, 5]}', 'null'), 2);
SELECT step(state(:'peak', '{"seen": 9007199254740992, "values": [5], "indexes": [9007199254740991], "recent": [1, 5], "recent_maxima": [1, 5]}', 'null'), 2);
SELECT try_spec(state(:'peak', '{"seen": 9007199254740993, "values": [5], "indexes": [9007199254740992], "recent": [1, 5], "recent_maxima": [1, 5]}', 'null'));
-- Other counters stop at 2^62 = 4611686018427387904 rows, the most a state
-- may hold: one short of it they count on, at it the next row is an error.
SELECT step(state('{"type": "CountNumber"}', '{"count": "4611686018427387903"}', '4.611686018427388e+18'), 1);
SELECT step(state('{"type": "CountNumber"}', '{"count": "4611686018427387904"}', '4.611686018427388e+18'), 1);
SELECT step(state('{"type": "MaxTracker"}', '{"count": "4611686018427387904", "extreme": 7}', '7'), 1);
SELECT step(state('{"type": "Identity"}', NULL, '7', '"4611686018427387903"'), 1);
SELECT step(state('{"type": "Identity"}', NULL, '7', '"4611686018427387904"'), 1);
SELECT try_spec(state('{"type": "Identity"}', NULL, '7', '"4611686018427387905"'));
-- A late row dropped counts in "late", which stops at the cap too.
\set drop '{"type": "Pipeline", "operators": [{"type": "Identity", "id": "op1"}], "entryOperator": "op1", "outputMappings": {"op1": {"o1": "o1"}}, "late": "drop"}'
SELECT pipeline_late(pipeline_agg(timestamptz '2025-12-31 00:00+00', 1, 1,
  state(:'drop', NULL, '7', '3', '"4611686018427387903"')::pipeline));
SELECT pipeline_late(pipeline_agg(timestamptz '2025-12-31 00:00+00', 1, 1,
  state(:'drop', NULL, '7', '3', '"4611686018427387904"')::pipeline));

-- Stored sums against their ring.  The windowed sums are exact: a state
-- holds the exact sum of its window's finite values rounded to a pair
-- ("sum" the nearest float8, "sum_err" the nearest to the rest), and
-- reading a state rebuilds the sums from its ring, so a stored pair has no
-- effect on results.  Every pair must be finite with sum_err at most half of
-- sum's last digit, as every version wrote it; StandardDeviation's must
-- also lie near the exact sums (below).  MovingSum over 2 holding 20 and
-- 30 (half of 50's last digit is 2^-48, about 3.55e-15):
\set ms '{"type": "MovingSum", "window_size": 2}'
SELECT s AS stored, try_spec(state(:'ms', format('{"nan": 0, "pinf": 0, "ninf": 0, %s, "values": [20, 30]}', s), '50')) AS read
FROM unnest(ARRAY['"sum": 50, "sum_err": 0', '"sum": 50, "sum_err": 3e-15', '"sum": 50, "sum_err": 4e-15',
                  '"sum": 51, "sum_err": -1', '"sum": "NaN", "sum_err": 0', '"sum": "Infinity", "sum_err": 0',
                  '"sum": 50, "sum_err": "Infinity"'])
     WITH ORDINALITY AS x(s, i) ORDER BY i;
-- The pair of an exact sum can fall on a tie: 1e16 + 713 + 1e-308 rounds to
-- 1e16 + 714 (float8s are 2 apart there) and leaves -1 (plus 1e-308), and
-- 1e16 + 714 - 1 would round to even, 1e16 + 712.  Written and read back.
SELECT ops(pipeline_agg(to_timestamp(i), v, 1, '{"type": "MovingSum", "window_size": 4}'::pipeline ORDER BY i)::text)
FROM unnest('{1e16, 3, 710, 1e-308}'::float8[]) WITH ORDINALITY AS t(v, i);
-- A MovingSum or MovingAverage pair is not compared with its ring: the
-- sliding sums of 0.2.0 and 0.3.0 could drift arbitrarily far from it.
-- 0.3.0 wrote this state of MovingSum over 4 after 1e300, 1e100, 1, -1e300,
-- 0, 1e300: its sum (and its last result) 0, where the ring sums to 1.  It
-- is read, written back with the exact sum, and continues from it: with 2
-- more, 1 leaves and 2 arrives.
\set old_ms '{"type": "Pipeline", "id": "pipeline", "input_port_types": ["number"], "output_port_types": ["number"], "operators": [{"type": "MovingSum", "id": "op1", "window_size": 4}], "connections": [], "entryOperator": "op1", "outputMappings": {"op1": {"o1": "o1"}}, "late": "error", "state": {"key_type": "integer", "key": "1", "progress": "1970-01-01 00:00:06+00", "rows": 6, "discarded": 0, "late": 0, "buffer": [0], "operators": {"op1": {"nan": 0, "pinf": 0, "ninf": 0, "sum": 0, "sum_err": 0, "values": [1, -1e+300, 0, 1e+300]}}, "emissions": []}}'
SELECT ops(:'old_ms');
SELECT step(:'old_ms', 2);
-- A pair accepted is written back as the exact sum, even when it was far
-- from it.
SELECT ops(state(:'ms', '{"nan": 0, "pinf": 0, "ninf": 0, "sum": 1e+300, "sum_err": 0, "values": [20, 30]}', '50'));
-- Non-finite values are counted, not summed: the window [Infinity, 5]
-- holds 5 in its sum.
SELECT ops(state(:'ms', '{"nan": 0, "pinf": 1, "ninf": 0, "sum": 5, "sum_err": 0, "values": ["Infinity", 5]}', '"Infinity"'));
-- StandardDeviation's sums are of the values and of their squares (each as
-- its exact pair), scaled by 2^-scale, and were recounted every window_size
-- rows in 0.2.0 and 0.3.0 too.  Values that left the window since the last
-- recount were below 2^(scale + 1), so the sums those versions wrote stay
-- within 2^-20 of the exact sums, measured against the scaled magnitudes
-- held plus 2 x window_size for the sum and 4 x window_size for the sum of
-- squares (the most those values weigh).  Here scale 4, window 2: 20 and 30
-- are 1.25 and 1.875, sums 3.125 and 5.078125, room (3.125 + 4) * 2^-20 =
-- 6.79e-06 and (5.078125 + 8) * 2^-20 = 1.247e-05.
SELECT s AS stored, try_spec(state('{"type": "StandardDeviation", "window_size": 2}',
         format('{"nan": 0, "pinf": 0, "ninf": 0, "scale": 4, "fresh": 1, "nonzero": 2, "near_top": 2, %s, "values": [20, 30]}', s),
         '7.0710678118654755')) AS read
FROM unnest(ARRAY['"sum": 3.125, "sum_err": 0, "sumsq": 5.078125, "sumsq_err": 0',
                  '"sum": 3.125006, "sum_err": 0, "sumsq": 5.078137, "sumsq_err": 0',
                  '"sum": 3.125, "sum_err": 0, "sumsq": 5.07814, "sumsq_err": 0',
                  '"sum": 3.125007, "sum_err": 0, "sumsq": 5.078125, "sumsq_err": 0',
                  '"sum": 3.2, "sum_err": 0, "sumsq": 5.078125, "sumsq_err": 0'])
     WITH ORDINALITY AS x(s, i) ORDER BY i;
-- 0.3.0 wrote this state of StandardDeviation over 5 just after 9.96921e36
-- left the window: beside the square of that value its sum of squares lost
-- those of the others (its last result, 9.77, was wrong).  Within the room,
-- it is read and continues from the exact sums: with -4.5 more, the sample
-- standard deviation of -19.17848549326277, -5.588309963978517,
-- 13.139731974375781, 19.787164932467636, -4.5 is 15.66 (numeric).
\set old_sd '{"type": "Pipeline", "id": "pipeline", "input_port_types": ["number"], "output_port_types": ["number"], "operators": [{"type": "StandardDeviation", "id": "op1", "window_size": 5}], "connections": [], "entryOperator": "op1", "outputMappings": {"op1": {"o1": "o1"}}, "late": "error", "state": {"key_type": "integer", "key": "1", "progress": "1970-01-01 00:00:08+00", "rows": 8, "discarded": 0, "late": 0, "buffer": [9.769840386246985], "operators": {"op1": {"nan": 0, "pinf": 0, "ninf": 0, "scale": 122, "fresh": 3, "nonzero": 5, "near_top": 5, "sum": -1.3120300803695277e-36, "sum_err": 0, "sumsq": 1.3849949999555664e-71, "sumsq_err": -6.196536973906958e-88, "values": [-15.136049906158565, -19.17848549326277, -5.588309963978517, 13.139731974375781, 19.787164932467636]}}, "emissions": []}}'
SELECT round(value::numeric, 2) AS continued,
       (SELECT round(stddev_samp(x)::numeric, 2)
        FROM unnest('{-19.17848549326277, -5.588309963978517, 13.139731974375781, 19.787164932467636, -4.5}'::numeric[]) AS x) AS numeric
FROM pending((SELECT pipeline_agg(timestamptz '2026-01-02 00:00+00', -4.5, 1, :'old_sd'::pipeline)));
-- CumulativeSum has no ring; its pair must be one the engine can hold:
-- sum_err at most half of sum's last digit.
SELECT try_spec(state('{"type": "CumulativeSum"}', '{"sum": 1, "sum_err": 1e-17}', '1')),
       try_spec(state('{"type": "CumulativeSum"}', '{"sum": 1, "sum_err": 1}', '1'));
-- Exact sums return exactly to earlier values however far apart the
-- magnitudes: over 4, [1, -1e300, 0, 1e300] sums to 1 after 1e300 and 1e100
-- have passed through (a double-double sum would have lost the 1 while
-- 1e100 was held beside 1e300).
SELECT trace('{"type": "MovingSum", "window_size": 4}', '{1e300, 1e100, 1, -1e300, 0, 1e300}');
SELECT trace('{"type": "MovingAverage", "window_size": 4}', '{1e300, 1e100, 1, -1e300, 0, 1e300}');
-- A finite window sum beyond float8 is an overflow error when it is needed.
SELECT trace('{"type": "MovingSum", "window_size": 2}', '{1e308, 1e308, -1e308}');
