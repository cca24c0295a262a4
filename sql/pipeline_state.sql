-- The state a pipeline carries: its text and binary forms, read back as
-- hostile input (docs/design.md, "The state's text").
\pset format unaligned
\pset null 'null'
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';

-- try_state(text): 'ok' and the canonical text, or the SQLSTATE, message
-- and detail (without the character position) of the refusal.
CREATE FUNCTION try_state(t text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    detail text;
    got text;
BEGIN
    got := t::pipeline::text;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM ||
           coalesce(' (' || nullif(regexp_replace(detail, ' at character \d+ of the (state|text)', ''), '') || ')', '');
END $$;

-- A valid state, written by hand: MovingAverage over 2 holding 20 and 30
-- for key 1.  The spec may be a shorthand; the text comes back canonical.
CREATE TABLE base (t text);
INSERT INTO base VALUES ('{"type": "MovingAverage", "window_size": 2, "state": {"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:03+00", "rows": 3, "discarded": 0, "late": 0, "buffer": [25], "operators": {"op1": {"nan": 0, "pinf": 0, "ninf": 0, "sum": 50, "sum_err": 0, "values": [20, 30]}}, "emissions": []}}');
SELECT t::pipeline FROM base;
-- Keys are kept as they are written: reading a value never parses them
-- (the key type's input function is not the value's to call).  Integers
-- may be written as strings; floats in any JSON form.
SELECT pipeline_key(replace(t, '"key": "1"', '"key": " +01"')::pipeline),
       pipeline_rows(replace(t, '"rows": 3', '"rows": "3"')::pipeline),
       (SELECT value FROM pending(replace(t, '[25]', '[2.5e1]')::pipeline))
FROM base;
-- A run that continues from " +01" reads it with its own key type: the
-- integer 1, so key 1 continues the segment, and the emission carries the
-- key as integer prints it.
SELECT e.* FROM base,
  emissions((SELECT pipeline_agg(ts, v, k, replace(t, '"key": "1"', '"key": " +01"')::pipeline ORDER BY ts)
             FROM (VALUES ('2026-01-01 00:00:04+00'::timestamptz, 40.0, 1),
                          ('2026-01-01 00:00:05+00', 0, 2)) AS r(ts, v, k))) AS e;
-- It continues as the run it describes: 40 makes the average 35, and a
-- new key emits it.
SELECT e.* FROM base,
  emissions((SELECT pipeline_agg(ts, v, k, t::pipeline ORDER BY ts)
             FROM (VALUES ('2026-01-01 00:00:04+00'::timestamptz, 40.0, 1),
                          ('2026-01-01 00:00:05+00', 0, 2)) AS r(ts, v, k))) AS e;

-- Corrupt states, each refused with 22P02 and the reason.
SELECT label, try_state(replace(t, old, new))
FROM base, (VALUES
  ('ring longer than its window', '"values": [20, 30]', '"values": [10, 20, 30]'),
  ('buffer too long', '"buffer": [25]', '"buffer": [25, 1]'),
  ('buffer too short', '"buffer": [25]', '"buffer": []'),
  ('unknown operator id', '"op1": {', '"zz": {'),
  ('operator state missing', '"operators": {"op1": {"nan": 0, "pinf": 0, "ninf": 0, "sum": 50, "sum_err": 0, "values": [20, 30]}}', '"operators": {}'),
  ('operator field missing', '"sum_err": 0, ', ''),
  ('operator field unknown', '"sum_err": 0, ', '"sum_err": 0, "x": 1, '),
  ('operator state inconsistent', '"nan": 0', '"nan": 1'),
  ('empty key type', '"key_type": "integer"', '"key_type": ""'),
  ('key type name too long', '"key_type": "integer"', '"key_type": "' || repeat('t', 265) || '"'),
  ('NaN as a count', '"rows": 3', '"rows": "NaN"'),
  ('fraction as a count', '"rows": 3', '"rows": 2.5'),
  ('count beyond int64', '"rows": 3', '"rows": 99999999999999999999'),
  ('negative count', '"late": 0', '"late": -1'),
  ('discarded above rows', '"discarded": 0', '"discarded": 4'),
  ('count where a float belongs', '"sum": 50', '"sum": "fifty"'),
  ('float out of range', '"sum": 50', '"sum": 1e999'),
  ('member missing', '"late": 0, ', ''),
  ('member unknown', '"key_type"', '"extra": 1, "key_type"'),
  ('members out of order', '"rows": 3, "discarded": 0', '"discarded": 0, "rows": 3'),
  ('no key but a buffer', '"key": "1"', '"key": null'),
  ('no key but operator state', '"key": "1", "progress": "2026-01-01 00:00:03+00", "rows": 3, "discarded": 0, "late": 0, "buffer": [25]',
                                '"key": null, "progress": "2026-01-01 00:00:03+00", "rows": 3, "discarded": 0, "late": 0, "buffer": [null]'),
  ('key without progress', '"progress": "2026-01-01 00:00:03+00"', '"progress": null'),
  ('progress not in UTC ISO form', '"progress": "2026-01-01 00:00:03+00"', '"progress": "2026-01-01 01:00:03+01"'),
  ('progress not a timestamp', '"progress": "2026-01-01 00:00:03+00"', '"progress": "now"'),
  ('progress out of range', '"progress": "2026-01-01 00:00:03+00"', '"progress": "2026-13-01 00:00:03+00"'),
  ('emission on a port that does not exist', '"emissions": []', '"emissions": [["2026-01-01 00:00:02+00", "0", 2, 1]]'),
  ('emission after the progress', '"emissions": []', '"emissions": [["2026-01-01 00:00:04+00", "0", 1, 1]]'),
  ('emission too short', '"emissions": []', '"emissions": [["2026-01-01 00:00:02+00", "0", 1]]'),
  ('state cut short', '"emissions": []}}', '"emissions": ['),
  ('a \u escape beyond ASCII', '"key": "1"', '"key": "\u00e9"')
) AS c(label, old, new)
ORDER BY label COLLATE "C";

-- The key type is only a name when a value is read: one that names no
-- type, another spelling, one that is not a name, a key its type does not
-- read, all read back as written.  A run that continues from them compares
-- the name with its own key type's (integer here), and reads the key with
-- that type: each is refused then, naming what is wrong.
CREATE FUNCTION try_resume(p text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    detail text;
    got pipeline;
BEGIN
    SELECT pipeline_agg('2026-01-01 00:00:04+00', 1.0, 1, p::pipeline) INTO got;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' (' || nullif(detail, '') || ')', '');
END $$;
SELECT label, try_state(replace(t, old, new)) AS read, try_resume(replace(t, old, new)) AS resume
FROM base, (VALUES
  ('unknown key type', '"key_type": "integer"', '"key_type": "no_such_type"'),
  ('key type not canonical', '"key_type": "integer"', '"key_type": "int4"'),
  ('key type not a name', '"key_type": "integer"', '"key_type": "integer integer"'),
  ('key not of its type', '"key": "1"', '"key": "one"'),
  ('key out of its range', '"key": "1"', '"key": "99999999999"'),
  ('unchanged', '', '')
) AS c(label, old, new)
ORDER BY label COLLATE "C";

-- A state of a deque: WindowMinMax (max over 3) after 5, 1, 3 holds 5 and 3
-- with their indexes; a deque out of order is refused.
SELECT try_state('{"type": "WindowMinMax", "window_size": 3, "mode": "max", "state": {"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:03+00", "rows": 3, "discarded": 0, "late": 0, "buffer": [5], "operators": {"op1": {"seen": 3, "values": [5, 3], "indexes": [0, 2]}}, "emissions": []}}');
SELECT try_state('{"type": "WindowMinMax", "window_size": 3, "mode": "max", "state": {"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:03+00", "rows": 3, "discarded": 0, "late": 0, "buffer": [5], "operators": {"op1": {"seen": 3, "values": [3, 5], "indexes": [0, 2]}}, "emissions": []}}');
-- An operator without state has no member; naming it is refused.
SELECT try_state('{"type": "Identity", "state": {"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:03+00", "rows": 1, "discarded": 0, "late": 0, "buffer": [5], "operators": {}, "emissions": []}}');
SELECT try_state('{"type": "Identity", "state": {"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:03+00", "rows": 1, "discarded": 0, "late": 0, "buffer": [5], "operators": {"op1": {}}, "emissions": []}}');
-- A state that is not an object; a state for a spec that is not one.
SELECT try_state('{"type": "Identity", "state": 5}');
SELECT try_state('{"type": "Nope", "state": {}}');
-- The position of the fault is given.
SELECT replace(t, '"rows": 3', '"rows": true')::pipeline FROM base;

-- Every operator with state resumes exactly.  For each spec, the rows are
-- run whole and split after every row (the first part stored as text and
-- read back); the emissions of the two parts together, and what a final
-- flush emits, must equal the whole run's, bit for bit.
CREATE TABLE specs (name text, spec pipeline);
INSERT INTO specs VALUES
  ('cumsum', '{"type": "CumulativeSum"}'),
  ('count', '{"type": "CountNumber"}'),
  ('ma', '{"type": "MovingAverage", "window_size": 3}'),
  ('msum', '{"type": "MovingSum", "window_size": 2}'),
  ('sd', '{"type": "StandardDeviation", "window_size": 3}'),
  ('max', '{"type": "MaxTracker"}'),
  ('min', '{"type": "MinTracker"}'),
  ('wmin', '{"type": "WindowMinMax", "window_size": 3, "mode": "min"}'),
  ('diff', '{"type": "Difference"}'),
  ('peak', '{"type": "PeakDetector", "window_size": 3}'),
  ('fir', '{"type": "FiniteImpulseResponse", "coeff": [0.5, 0.25, 0.125]}'),
  ('iir', '{"type": "InfiniteImpulseResponse", "b_coeffs": [1, 0.5], "a_coeffs": [-0.5, 0.25]}'),
  ('mesh', '{"type": "Pipeline", "output_port_types": ["number", "number"],
    "operators": [{"type": "MovingSum", "id": "ms", "window_size": 2}, {"type": "StandardDeviation", "id": "sd", "window_size": 2}],
    "connections": [{"from": "ms", "to": "sd"}], "entryOperator": "ms",
    "outputMappings": {"ms": {"o1": "o1"}, "sd": {"o1": "o2"}}}');
CREATE TABLE stream (s int, v float8, k float8);
INSERT INTO stream VALUES (1, 0.1, 1), (2, 0.2, 1), (3, 'NaN', 1), (4, 3, 1), (5, -1e300, 'NaN'),
  (6, 1e300, 'NaN'), (7, NULL, NULL), (8, 7, NULL), (9, 'Infinity', 'NaN'), (10, 5, '-0'),
  (11, 2, 0), (12, 9, 0), (13, 1, 0), (14, 4, 0), (15, NULL, 2), (16, 6, 2), (16, 6, 2);
CREATE FUNCTION em(p pipeline) RETURNS text[] LANGUAGE sql IMMUTABLE
  AS $$ SELECT coalesce(array_agg(e.ts || ' ' || e.key || ' ' || e.port || ' ' || float8send(e.value)::text), '{}') FROM emissions(p) AS e $$;
SELECT name,
       count(*) AS splits,
       bool_and(em(a) || em(b) = em(whole)) AS same_emissions,
       bool_and(em(flush(b)) = em(flush(whole))) AS same_flush,
       bool_and(pipeline_rows(b) = pipeline_rows(whole)
                AND pipeline_discarded(b) = pipeline_discarded(whole)) AS same_counts,
       bool_and(pipeline_key(b) IS NOT DISTINCT FROM pipeline_key(whole)) AS same_key,
       bool_and(b::text::pipeline = b) AS reads_back
FROM specs,
     LATERAL (SELECT pipeline_agg(to_timestamp(s), v, k, spec ORDER BY s) AS whole FROM stream) AS w,
     LATERAL (SELECT n FROM generate_series(1, 15) AS n) AS g,
     LATERAL (SELECT pipeline_agg(to_timestamp(s), v, k, spec ORDER BY s) AS a FROM stream WHERE s <= n) AS pa,
     LATERAL (SELECT pipeline_agg(to_timestamp(s), v, k, a::text::pipeline ORDER BY s) AS b FROM stream WHERE s > n) AS pb
GROUP BY name ORDER BY name COLLATE "C";

-- Binary: send/recv through COPY (FORMAT binary), in a directory of its own.
\set dir `d=$(mktemp -d) && chmod 777 "$d" && echo "$d"`
\set copyfile :dir '/pipelines.bin'
\set rawfile :dir '/raw.bin'
CREATE TABLE stored (name text, p pipeline);
INSERT INTO stored SELECT name, pipeline_agg(to_timestamp(s), v, k, spec ORDER BY s)
FROM specs, stream WHERE s <= 12 GROUP BY name;
INSERT INTO stored SELECT 'config only', '{"type": "Identity"}';
INSERT INTO stored SELECT 'flushed', flush(p) FROM stored WHERE name = 'ma';
COPY stored TO :'copyfile' (FORMAT binary);
CREATE TABLE restored (LIKE stored);
COPY restored FROM :'copyfile' (FORMAT binary);
SELECT count(*) AS pipelines, bool_and(s.p = r.p) AS same,
       bool_and(s.p::text = r.p::text) AS same_text
FROM stored s JOIN restored r USING (name);
-- A value without state is sent as format 1, one with state as format 2:
-- the header, the configuration's length, its text, then the state's.
SELECT name, head,
       CASE WHEN state = '' THEN config = p::text
            ELSE left(config, -1) || ', "state": ' || state || '}' = p::text END AS parts_ok
FROM (SELECT name, p, substring(b FROM 1 FOR 4) AS head,
             convert_from(substring(b FROM 9 FOR len), 'UTF8') AS config,
             convert_from(substring(b FROM 9 + len), 'UTF8') AS state
      FROM (SELECT name, p, b, get_byte(b, 4) << 24 | get_byte(b, 5) << 16 |
                               get_byte(b, 6) << 8 | get_byte(b, 7) AS len
            FROM (SELECT name, p, pipeline_send(p) AS b FROM stored
                  WHERE name IN ('config only', 'ma')) AS s1) AS s2) AS s3
ORDER BY name COLLATE "C";

-- try_recv(bytes): one binary COPY field read back as a pipeline.
CREATE FUNCTION try_recv(bytes bytea, path text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    detail text;
    got text;
BEGIN
    CREATE TEMP TABLE raw_field (b bytea);
    CREATE TEMP TABLE recv_field (p pipeline);
    INSERT INTO raw_field VALUES (bytes);
    EXECUTE format('COPY raw_field TO %L (FORMAT binary)', path);
    EXECUTE format('COPY recv_field FROM %L (FORMAT binary)', path);
    SELECT p::text INTO got FROM recv_field;
    DROP TABLE raw_field, recv_field;
    RETURN 'ok: ' || got;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' (' || nullif(detail, '') || ')', '');
END $$;
CREATE FUNCTION wire(version int, config text, state text) RETURNS bytea LANGUAGE sql AS $$
  SELECT set_byte('\x00000000'::bytea, 0, version) || int4send(octet_length(convert_to(config, 'UTF8')))
         || convert_to(config, 'UTF8') || coalesce(convert_to(state, 'UTF8'), '')
$$;
-- Format 2 by hand: read, and stored canonical.
SELECT try_recv(wire(2, '{"type": "CumulativeSum"}',
  '{"key_type": "integer", "key": "7", "progress": "2026-01-01 00:00:01+00", "rows": 1, "discarded": 0, "late": 0, "buffer": [1.5], "operators": {"op1": {"sum": 1.5, "sum_err": 0}}, "emissions": []}'), :'rawfile');
-- Format 1 (0.1.0) still reads.
SELECT try_recv(wire(1, '{"type": "CumulativeSum"}', NULL), :'rawfile');
-- Malformed: no state after the configuration, a NUL in the state, a
-- state that is not valid, a state for another configuration.
SELECT try_recv(wire(2, '{"type": "CumulativeSum"}', NULL), :'rawfile');
SELECT try_recv(wire(2, '{"type": "CumulativeSum"}', '') || '\x00'::bytea, :'rawfile');
SELECT try_recv(wire(2, '{"type": "CumulativeSum"}', '{"key_type": "integer"}'), :'rawfile');
SELECT try_recv(wire(2, '{"type": "MovingSum", "window_size": 1}',
  '{"key_type": "integer", "key": "7", "progress": "2026-01-01 00:00:01+00", "rows": 1, "discarded": 0, "late": 0, "buffer": [1.5], "operators": {"op1": {"sum": 1.5, "sum_err": 0}}, "emissions": []}'), :'rawfile');
-- A key its type does not read is read (as in text), refused on resuming.
SELECT try_recv(wire(2, '{"type": "CumulativeSum"}',
  '{"key_type": "integer", "key": "x", "progress": "2026-01-01 00:00:01+00", "rows": 1, "discarded": 0, "late": 0, "buffer": [1.5], "operators": {"op1": {"sum": 1.5, "sum_err": 0}}, "emissions": []}'), :'rawfile');
SELECT try_recv(wire(2, '{"type": "CumulativeSum"}',
  '{"key_type": "integer", "key": "7", "progress": "2026-01-01 00:00:01+00", "rows": 1, "discarded": 0, "late": 0, "buffer": [1.5], "operators": {"op1": {"sum": 1.5, "sum_err": 0}}, "emissions": []} 1'), :'rawfile');
\setenv SEGPIPE_TEST_DIR :dir
\! rm -rf "$SEGPIPE_TEST_DIR"

DROP FUNCTION try_state(text), try_resume(text), try_recv(bytea, text), wire(int, text, text), em(pipeline);
DROP TABLE base, specs, stream, stored, restored;
