-- A fixed set of results, written as bytes: test/majors/run.sh runs this on
-- every PostgreSQL major it tests (psql -At, in a new UTF8 database)
-- and compares the outputs byte for byte.  Every float is float8send's hex,
-- every pipeline its stored text and pipeline_send's hex, every timestamp
-- microseconds from the Unix epoch; the session's settings are set to odd
-- values so that nothing here may depend on them.
--
-- Sections: window form (scalar, array, close_at_end, segment_key), aggregate
-- form (pipeline_agg, emissions, pending, accessors), stored text of pipelines
-- with keys of many types and with special values in their state, casts
-- (json, jsonb), binary send and receive, flush, punctuate, heartbeats,
-- resuming from stored states, carried values.
\set ON_ERROR_STOP 1
CREATE EXTENSION segpipe;
SET TimeZone = 'Asia/Kathmandu';
SET DateStyle = 'German, DMY';
SET IntervalStyle = 'iso_8601';
SET extra_float_digits = -15;
SET bytea_output = 'hex';

CREATE FUNCTION hx(float8) RETURNS text LANGUAGE sql IMMUTABLE
  AS $$ SELECT coalesce(encode(float8send($1), 'hex'), 'null') $$;
CREATE FUNCTION hxa(float8[]) RETURNS text LANGUAGE sql IMMUTABLE
  AS $$ SELECT CASE WHEN $1 IS NULL THEN 'null' ELSE
          (SELECT string_agg(hx(x), ',' ORDER BY o) FROM unnest($1) WITH ORDINALITY AS u(x, o)) END $$;
CREATE FUNCTION us(timestamptz) RETURNS text LANGUAGE sql IMMUTABLE
  AS $$ SELECT coalesce(((extract(epoch FROM $1) * 1000000)::bigint)::text, 'null') $$;
CREATE FUNCTION sent(pipeline) RETURNS text LANGUAGE sql STABLE
  AS $$ SELECT encode(pipeline_send($1), 'hex') $$;

-- Readings: exact float8 arithmetic only (integers, division by powers of
-- two), so the inputs are the same bits everywhere; some NaN, -0, infinite,
-- subnormal values and punctuation (NULL) among them.
CREATE TABLE r AS
SELECT i,
       timestamptz '2026-03-01 00:00+00' + make_interval(secs => i * 1800 + (i % 7) * 0.125) AS ts,
       CASE WHEN i % 53 = 0 THEN 'NaN'::float8
            WHEN i % 59 = 0 THEN '-0'::float8
            WHEN i % 61 = 0 THEN 'Infinity'::float8
            WHEN i % 67 = 0 THEN 4.9e-322::float8
            WHEN i % 71 = 0 THEN NULL
            ELSE ((i * 7919) % 2003 - 1000) / 64.0::float8 * (1 + (i % 5) * 0.25::float8) END AS v,
       0.5::float8 + ((i * 37) % 101) / 16.0::float8 AS w,
       i / 17 AS k
FROM generate_series(1, 400) AS i;

-- One spec per operator (and meshes); 'pos' specs read w, which is positive
-- and small enough for Exp, Log and Power.
CREATE TABLE specs (n int PRIMARY KEY, input text, spec pipeline);
INSERT INTO specs VALUES
  (1, 'v', '{"type": "Identity"}'),
  (2, 'v', '{"type": "CumulativeSum"}'),
  (3, 'v', '{"type": "CountNumber"}'),
  (4, 'v', '{"type": "MaxTracker"}'),
  (5, 'v', '{"type": "MinTracker"}'),
  (6, 'v', '{"type": "MovingAverage", "window_size": 5}'),
  (7, 'v', '{"type": "MovingSum", "window_size": 3}'),
  (8, 'v', '{"type": "StandardDeviation", "window_size": 6}'),
  (9, 'v', '{"type": "WindowMinMax", "window_size": 4, "mode": "min"}'),
  (10, 'v', '{"type": "PeakDetector", "window_size": 3}'),
  (11, 'v', '{"type": "Difference"}'),
  (12, 'v', '{"type": "FiniteImpulseResponse", "coeff": [0.5, 0.25, -0.125, 3]}'),
  (13, 'v', '{"type": "InfiniteImpulseResponse", "b_coeffs": [0.2, 0.3], "a_coeffs": [-0.5, 0.1]}'),
  (14, 'v', '{"type": "Scale", "value": -0.1}'),
  (15, 'v', '{"type": "Add", "value": 1e-3}'),
  (16, 'pos', '{"type": "Power", "value": 1.7}'),
  (17, 'v', '{"type": "Abs"}'),
  (18, 'v', '{"type": "Sign"}'),
  (19, 'v', '{"type": "Floor"}'),
  (20, 'v', '{"type": "Ceil"}'),
  (21, 'v', '{"type": "Round"}'),
  (22, 'pos', '{"type": "Sin"}'),
  (23, 'pos', '{"type": "Cos"}'),
  (24, 'pos', '{"type": "Tan"}'),
  (25, 'pos', '{"type": "Exp"}'),
  (26, 'pos', '{"type": "Log"}'),
  (27, 'pos', '{"type": "Log10"}'),
  (28, 'v', '{"type": "LessThanOrEqualToReplace", "value": 0, "replaceBy": -1}'),
  (29, 'v', '{"type": "GreaterThan", "value": 2.5}'),
  (30, 'v', '{"type": "LessThan", "value": -2.5}'),
  (31, 'v', '{"type": "EqualTo", "value": 0, "epsilon": 5}'),
  (32, 'v', '{"type": "NotEqualTo", "value": 0, "epsilon": 5}'),
  (33, 'v', '{"type": "Pipeline", "id": "cmp", "operators": [{"type": "CompareGT", "id": "c", "value": 1},
              {"type": "BooleanToNumber", "id": "b"}, {"type": "CumulativeSum", "id": "s"}],
              "connections": [{"from": "c", "to": "b"}, {"from": "b", "to": "s"}],
              "entryOperator": "c", "outputMappings": {"s": {"o1": "o1"}}}'),
  (34, 'v', '{"type": "Pipeline", "id": "day", "output_port_types": ["number", "number", "number"],
              "operators": [{"type": "Identity", "id": "in"},
                            {"type": "MovingAverage", "id": "ma", "window_size": 12},
                            {"type": "StandardDeviation", "id": "sd", "window_size": 12},
                            {"type": "MaxTracker", "id": "max"}],
              "connections": [{"from": "in", "to": "ma"}, {"from": "in", "to": "sd"}, {"from": "in", "to": "max"}],
              "entryOperator": "in",
              "outputMappings": {"ma": {"o1": "o1"}, "sd": {"o1": "o2"}, "max": {"o1": "o3"}},
              "late": "drop"}'),
  (35, 'pos', '{"type": "Pipeline", "id": "trig", "output_port_types": ["number", "number"],
              "operators": [{"type": "Identity", "id": "in"}, {"type": "Sin", "id": "s"},
                            {"type": "Exp", "id": "e"}, {"type": "MovingAverage", "id": "m", "window_size": 3}],
              "connections": [{"from": "in", "to": "s"}, {"from": "in", "to": "e"}, {"from": "s", "to": "m"}],
              "entryOperator": "in", "outputMappings": {"m": {"o1": "o1"}, "e": {"o1": "o2"}}}');

-- multi-port operators, fed through the float8[] form
CREATE TABLE aspecs (n int PRIMARY KEY, spec pipeline);
INSERT INTO aspecs VALUES
  (1, '{"type": "Addition", "numPorts": 3}'),
  (2, '{"type": "Subtraction"}'),
  (3, '{"type": "Multiplication"}'),
  (4, '{"type": "Division"}'),
  (5, '{"type": "Linear", "coefficients": [0.5, -2, 1e-3]}'),
  (6, '{"type": "CompareEQ", "value": 0, "tolerance": 3}'),
  (7, '{"type": "CompareNEQ", "value": 0}'),
  (8, '{"type": "CompareGTE", "value": 0}'),
  (9, '{"type": "CompareLTE", "value": 0}'),
  (10, '{"type": "CompareLT", "value": 0}');

CREATE FUNCTION input(which text, v float8, w float8) RETURNS float8 LANGUAGE sql IMMUTABLE
  AS $$ SELECT CASE which WHEN 'pos' THEN w ELSE v END $$;
CREATE FUNCTION vec(n int, v float8, w float8) RETURNS float8[] LANGUAGE sql IMMUTABLE
  AS $$ SELECT CASE WHEN n = 1 OR n = 5 THEN ARRAY[v, w, -w] WHEN n <= 4 THEN ARRAY[v, w] ELSE ARRAY[v] END $$;

\echo == window form, one port
SELECT s.n, q.i, hx(q.x)
FROM specs AS s, LATERAL (
  SELECT r.i, segment_agg(input(s.input, r.v, r.w), r.k, s.spec, close_at_end => true)
              OVER (ORDER BY r.ts) AS x
  FROM r) AS q
WHERE q.x IS NOT NULL AND s.n <> 34 AND s.n <> 35
ORDER BY 1, 2;

\echo == window form, arrays (several outputs, several inputs)
SELECT s.n, q.i, hxa(q.x)
FROM specs AS s, LATERAL (
  SELECT r.i, segment_agg(ARRAY[input(s.input, r.v, r.w)], r.k, s.spec, close_at_end => true)
              OVER (ORDER BY r.ts) AS x
  FROM r) AS q
WHERE q.x IS NOT NULL AND s.n IN (34, 35)
ORDER BY 1, 2;
SELECT a.n, q.i, hxa(q.x)
FROM aspecs AS a, LATERAL (
  SELECT r.i, segment_agg(vec(a.n, coalesce(r.v, 1), r.w), r.k % 3, a.spec) OVER (ORDER BY r.ts) AS x
  FROM r WHERE r.v IS DISTINCT FROM 'NaN' AND r.v <> 'Infinity') AS q
WHERE q.x IS NOT NULL
ORDER BY 1, 2;

\echo == segment_key and the two-argument form
SELECT i, segment_key(v, k % 4, true) OVER w, hx(segment_agg(v, k % 4) OVER w)
FROM r WINDOW w AS (ORDER BY ts)
ORDER BY i;

\echo == aggregate form: pipeline text, binary, emissions, pending, accessors
CREATE TABLE agg AS
SELECT s.n, pipeline_agg(r.ts, input(s.input, r.v, r.w), r.k, s.spec ORDER BY r.ts) AS p
FROM specs AS s, r WHERE s.n <> 34 AND s.n <> 35 GROUP BY s.n;
INSERT INTO agg
SELECT s.n, pipeline_agg(r.ts, ARRAY[input(s.input, r.v, r.w)], r.k, s.spec ORDER BY r.ts)
FROM specs AS s, r WHERE s.n IN (34, 35) GROUP BY s.n;
INSERT INTO agg
SELECT 100 + a.n, pipeline_agg(r.ts, vec(a.n, coalesce(r.v, 1), r.w), r.k % 3, a.spec ORDER BY r.ts)
FROM aspecs AS a, r WHERE r.v IS DISTINCT FROM 'NaN' AND r.v <> 'Infinity' GROUP BY a.n;
SELECT n, p::text FROM agg ORDER BY n;
SELECT n, sent(p) FROM agg ORDER BY n;
SELECT a.n, us(e.ts), e.key, e.port, hx(e.value) FROM agg AS a, emissions(a.p) AS e ORDER BY 1, 2, 4;
SELECT a.n, q.key, q.port, hx(q.value) FROM agg AS a, pending(a.p) AS q ORDER BY 1, 3;
SELECT n, pipeline_key(p), us(pipeline_progress(p)), pipeline_rows(p), pipeline_discarded(p), pipeline_late(p)
FROM agg ORDER BY n;

\echo == keys of many types, stored as text
CREATE TYPE mood AS ENUM ('calm', 'busy', 'x y');
CREATE DOMAIN posint AS int CHECK (VALUE > 0);
CREATE TABLE keyed (name text, p pipeline);
INSERT INTO keyed SELECT 'int2', pipeline_agg(ts, v, (k % 3)::int2, '{"type": "MovingAverage", "window_size": 2}' ORDER BY ts) FROM r;
INSERT INTO keyed SELECT 'int4', pipeline_agg(ts, v, k, '{"type": "CountNumber"}' ORDER BY ts) FROM r;
INSERT INTO keyed SELECT 'int8', pipeline_agg(ts, v, (k::int8 - 9) * 1000000000000, '{"type": "CountNumber"}' ORDER BY ts) FROM r;
INSERT INTO keyed SELECT 'numeric', pipeline_agg(ts, v, (k / 4.0)::numeric(10, 3), '{"type": "MaxTracker"}' ORDER BY ts) FROM r;
INSERT INTO keyed SELECT 'float8', pipeline_agg(ts, v, k / 3.0::float8, '{"type": "MaxTracker"}' ORDER BY ts) FROM r;
INSERT INTO keyed SELECT 'float4', pipeline_agg(ts, v, (k / 7.0)::float4, '{"type": "MaxTracker"}' ORDER BY ts) FROM r;
INSERT INTO keyed SELECT 'text', pipeline_agg(ts, v, E'k\u00e9y "' || (k % 5) || E'"\\\t', '{"type": "MinTracker"}' ORDER BY ts) FROM r;
INSERT INTO keyed SELECT 'varchar', pipeline_agg(ts, v, ('v' || k)::varchar(5), '{"type": "MinTracker"}' ORDER BY ts) FROM r;
INSERT INTO keyed SELECT 'bool', pipeline_agg(ts, v, k % 2 = 0, '{"type": "CumulativeSum"}' ORDER BY ts) FROM r;
INSERT INTO keyed SELECT 'date', pipeline_agg(ts, v, (ts AT TIME ZONE 'UTC')::date, '{"type": "CumulativeSum"}' ORDER BY ts) FROM r;
INSERT INTO keyed SELECT 'timestamptz', pipeline_agg(ts, v, date_trunc('hour', ts, 'Europe/Berlin') + interval '0.000001 s', '{"type": "CumulativeSum"}' ORDER BY ts) FROM r;
INSERT INTO keyed SELECT 'timestamp', pipeline_agg(ts, v, date_trunc('day', ts AT TIME ZONE 'America/St_Johns'), '{"type": "CumulativeSum"}' ORDER BY ts) FROM r;
INSERT INTO keyed SELECT 'interval', pipeline_agg(ts, v, make_interval(days => k % 3, secs => k * 0.5), '{"type": "Identity"}' ORDER BY ts) FROM r;
INSERT INTO keyed SELECT 'uuid', pipeline_agg(ts, v, md5(k::text)::uuid, '{"type": "Identity"}' ORDER BY ts) FROM r;
INSERT INTO keyed SELECT 'enum', pipeline_agg(ts, v, (enum_range(NULL::mood))[1 + k % 3], '{"type": "Identity"}' ORDER BY ts) FROM r;
INSERT INTO keyed SELECT 'domain', pipeline_agg(ts, v, (1 + k)::posint, '{"type": "Identity"}' ORDER BY ts) FROM r;
INSERT INTO keyed SELECT 'int4[]', pipeline_agg(ts, v, ARRAY[k % 2, k % 3], '{"type": "Identity"}' ORDER BY ts) FROM r;
INSERT INTO keyed SELECT 'date infinity', pipeline_agg(ts, v, CASE WHEN k < 10 THEN date '-infinity' ELSE date 'infinity' END, '{"type": "Identity"}' ORDER BY ts) FROM r;
SELECT name, p::text, sent(p), pipeline_key(p) FROM keyed ORDER BY name COLLATE "C";

\echo == casts
SELECT name, p::json::text, md5(p::jsonb::text), (p::json::pipeline = p) FROM keyed ORDER BY name COLLATE "C";
SELECT n, spec::jsonb::text, (spec::jsonb::pipeline)::text FROM specs ORDER BY n;
SELECT ('{"type": "Scale", "value": -0}'::json::pipeline)::text,
       ('{"type": "Scale", "value": -0}'::jsonb::pipeline)::text,
       ('{"type": "FiniteImpulseResponse", "coeff": [5e-324, 1.7976931348623157e308, 0.1]}'::pipeline)::text;

\echo == binary send in another client encoding
SET client_encoding = 'LATIN1';
SELECT name, sent(p) FROM keyed WHERE name = 'text';
RESET client_encoding;

\echo == flush and punctuate
SELECT a.n, f.p::text, sent(f.p)
FROM agg AS a, LATERAL (SELECT flush(a.p, timestamptz '2026-03-10 00:00+00') AS p) AS f
WHERE a.n IN (2, 6, 8, 13, 34) ORDER BY 1;
SELECT a.n, us(e.ts), e.key, e.port, hx(e.value)
FROM agg AS a, emissions(flush(a.p)) AS e WHERE a.n IN (2, 6, 8, 13, 34) ORDER BY 1, 2, 4;
SELECT a.n, sent(punctuate(a.p, timestamptz '2026-03-10 00:00+00', 999)),
       (SELECT string_agg(us(e.ts) || '/' || e.key || '/' || hx(e.value), ' ')
        FROM emissions(punctuate(a.p, timestamptz '2026-03-10 00:00+00', 999)) AS e)
FROM agg AS a WHERE a.n IN (2, 6, 8, 13) ORDER BY 1;

\echo == heartbeats
SELECT us(h) FROM heartbeats('day', '2026-03-25 00:00+00', '2026-04-02 00:00+00', 'Europe/Berlin') AS h;
SELECT us(h) FROM heartbeats('hour', '2026-10-24 22:00+00', '2026-10-25 03:00+00', 'Europe/Berlin') AS h;
SELECT us(h) FROM quiet_heartbeats('2026-03-01 18:00+00', '2026-03-02 08:00+00', '3 hours 7.5 seconds') AS h;

\echo == resuming from a stored state: pipeline and emissions of the second batch
CREATE TABLE half AS
SELECT s.n, pipeline_agg(r.ts, input(s.input, r.v, r.w), r.k, s.spec ORDER BY r.ts) AS p
FROM specs AS s, r WHERE r.i <= 200 AND s.n <> 34 AND s.n <> 35 GROUP BY s.n;
CREATE TABLE rest AS
SELECT s.n, pipeline_agg(r.ts, input(s.input, r.v, r.w), r.k, h.p ORDER BY r.ts) AS p
FROM specs AS s JOIN half AS h USING (n), r WHERE r.i > 200 GROUP BY s.n;
SELECT n, sent(p) FROM rest ORDER BY n;
SELECT x.n, us(e.ts), e.key, e.port, hx(e.value) FROM rest AS x, emissions(x.p) AS e ORDER BY 1, 2, 4;

\echo == carried values: results, stored states, and a resumed run
CREATE TABLE carried (n int PRIMARY KEY, spec pipeline);
INSERT INTO carried VALUES
  (1, '{"type": "TimeWeightedAverage", "method": "locf", "carry": "locf", "fill": true}'),
  (2, '{"type": "TimeWeightedAverage", "method": "linear", "carry": "linear"}'),
  (3, '{"type": "Integral", "unit": "1 hour", "carry": "linear", "fill": true}'),
  (4, '{"type": "CounterIncrease", "carry": "locf", "fill": true}'),
  (5, '{"type": "CounterRate", "carry": "locf"}'),
  (6, '{"type": "Transitions", "count": "rising", "carry": "locf", "fill": true}'),
  (7, '{"type": "Pipeline", "operators": [{"id": "g", "type": "CompareGT", "value": 0}, {"id": "d", "type": "DurationTrue", "carry": "locf", "fill": true}], "connections": [{"from": "g", "to": "d"}], "entryOperator": "g", "outputMappings": {"d": {"o1": "o1"}}}');
-- w (finite) keyed by day, a heartbeat at every midnight; the readings end on the 9th, so the
-- 10th to the 12th are days without readings
CREATE TABLE rc AS
SELECT i, ts, w AS v, (ts AT TIME ZONE 'UTC')::date AS d FROM r
UNION ALL SELECT 0, h, NULL, (h AT TIME ZONE 'UTC')::date
FROM heartbeats('day', '2026-03-01 00:00+00', '2026-03-10 00:00+00', 'UTC') AS h
UNION ALL SELECT 0, h, NULL, (h AT TIME ZONE 'UTC')::date
FROM heartbeats('day', '2026-03-11 00:00+00', '2026-03-10 00:00+00'::timestamptz + interval '3 days', 'UTC') AS h;
CREATE TABLE carried_run AS
SELECT c.n, pipeline_agg(rc.ts, rc.v, rc.d, c.spec ORDER BY rc.ts, rc.i) AS p FROM carried AS c, rc GROUP BY c.n;
SELECT x.n, us(e.ts), e.key, hx(e.value) FROM carried_run AS x, emissions(x.p) AS e ORDER BY 1, 2;
SELECT n, without_emissions(p)::text, sent(without_emissions(p)) FROM carried_run ORDER BY n;
SELECT c.n, sent(pipeline_agg(rc.ts, rc.v, rc.d, h.p ORDER BY rc.ts, rc.i))
FROM carried AS c,
     LATERAL (SELECT pipeline_agg(ts, v, d, c.spec ORDER BY ts, i) AS p FROM rc WHERE ts < '2026-03-05') AS h,
     rc WHERE rc.ts >= '2026-03-05' GROUP BY c.n ORDER BY 1;
