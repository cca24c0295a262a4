-- The original's operators that fit a segment, new in 0.5.0: constants,
-- logic, comparisons and filters across ports, MovingKeyCount and
-- ResamplerConstant.  Expected values by hand.
\pset format unaligned
\pset null 'null'

-- once(spec, v): what a one-row segment holding v emits when a punctuation
-- row closes it (NULL when it buffered nothing).
CREATE FUNCTION once(spec pipeline, v float8[]) RETURNS float8[] LANGUAGE sql AS $$
  SELECT e FROM (SELECT i, segment_agg(x, k, spec) OVER (ORDER BY i) AS e
                 FROM (VALUES (1, v, 0), (2, NULL, 1)) AS r(i, x, k)) AS s
  WHERE i = 2
$$;
-- trace_at(spec, secs, vals): trace() with timestamps, at(secs[i]) for row i.
CREATE FUNCTION trace_at(spec pipeline, secs int[], vals float8[]) RETURNS text
LANGUAGE sql AS $$
  SELECT string_agg(coalesce(e::text, '-'), ' ' ORDER BY n)
  FROM (SELECT n, i, segment_agg(at(t), v, k, spec) OVER (PARTITION BY n ORDER BY i) AS e
        FROM generate_series(1, cardinality(vals)) AS n,
             LATERAL (SELECT i, secs[i] AS t, vals[i] AS v, 0 AS k FROM generate_series(1, n) AS i
                      UNION ALL
                      SELECT n + 1, secs[n], NULL, 1) AS r) AS s
  WHERE i = n + 1
$$;

-- Constants: the value on every row, whatever the input.
SELECT trace('{"type": "ConstantNumber", "value": 7}', '{1, NaN, -3}') AS constant_number,
       trace('{"type": "ConstantBooleanToNumber", "value": 2.5}', '{0, 5}') AS boolean_to_number,
       trace('{"type": "ConstantNumberToBoolean", "value": true}', '{0, 5}') AS number_to_boolean,
       trace('{"type": "ConstantBoolean", "value": false}', '{1, 1}') AS constant_boolean;
SELECT '{"type": "ConstantBoolean", "value": true}'::pipeline;

-- Logic over boolean ports, two ports: the truth tables.  Any non-zero
-- value on a boolean pipeline port is true (here 5).
SELECT a, b,
  (once('{"type": "LogicalAnd"}', ARRAY[a, b]))[1] AS "and",
  (once('{"type": "LogicalOr"}', ARRAY[a, b]))[1] AS "or",
  (once('{"type": "LogicalXor"}', ARRAY[a, b]))[1] AS xor,
  (once('{"type": "LogicalNand"}', ARRAY[a, b]))[1] AS nand,
  (once('{"type": "LogicalNor"}', ARRAY[a, b]))[1] AS nor,
  (once('{"type": "LogicalXnor"}', ARRAY[a, b]))[1] AS xnor,
  (once('{"type": "LogicalImplication"}', ARRAY[a, b]))[1] AS implies
FROM (VALUES (0, 0), (0, 5), (1, 0), (1, 1)) AS t(a, b) ORDER BY a, b;
-- Three ports: And, Or, Nand and Nor over all of them, Xor the parity,
-- Xnor and Implication folded from the left: ((a == b) == c), ((a -> b) -> c).
-- (0, 0, 0): xnor (1 == 0) = 0, implies (1 -> 0) = 0.
-- (1, 1, 0): xnor (1 == 0) = 0, implies (1 -> 0) = 0.
-- (1, 1, 1): every one 1 but nand and nor.
-- (0, 1, 1): xnor (0 == 1) = 0, implies (1 -> 1) = 1, xor 0.
SELECT a, b, c,
  (once('{"type": "LogicalAnd", "numPorts": 3}', ARRAY[a, b, c]))[1] AS "and",
  (once('{"type": "LogicalOr", "numPorts": 3}', ARRAY[a, b, c]))[1] AS "or",
  (once('{"type": "LogicalXor", "numPorts": 3}', ARRAY[a, b, c]))[1] AS xor,
  (once('{"type": "LogicalNand", "numPorts": 3}', ARRAY[a, b, c]))[1] AS nand,
  (once('{"type": "LogicalNor", "numPorts": 3}', ARRAY[a, b, c]))[1] AS nor,
  (once('{"type": "LogicalXnor", "numPorts": 3}', ARRAY[a, b, c]))[1] AS xnor,
  (once('{"type": "LogicalImplication", "numPorts": 3}', ARRAY[a, b, c]))[1] AS implies
FROM (VALUES (0, 0, 0), (1, 1, 0), (1, 1, 1), (0, 1, 1)) AS t(a, b, c) ORDER BY a, b, c;

-- Comparisons of i1 with i2, a boolean on every row; NaN equals NaN and
-- sorts above every number; a tolerance is never met by NaN.
SELECT x, y,
  (once('{"type": "CompareSyncGT"}', ARRAY[x, y]))[1] AS gt,
  (once('{"type": "CompareSyncLT"}', ARRAY[x, y]))[1] AS lt,
  (once('{"type": "CompareSyncGTE"}', ARRAY[x, y]))[1] AS gte,
  (once('{"type": "CompareSyncLTE"}', ARRAY[x, y]))[1] AS lte,
  (once('{"type": "CompareSyncEQ"}', ARRAY[x, y]))[1] AS eq,
  (once('{"type": "CompareSyncNEQ"}', ARRAY[x, y]))[1] AS neq,
  (once('{"type": "CompareSyncEQ", "tolerance": 0.5}', ARRAY[x, y]))[1] AS eq_half
FROM (VALUES (1, 1::float8, 2::float8), (2, 2, 2), (3, 3, 2), (4, 2.4, 2), (5, 'NaN', 2), (6, 'NaN', 'NaN'))
  AS t(n, x, y) ORDER BY n;

-- Filters across ports: i1's value passes when it meets the test against
-- every other port, else the row gives nothing.  NaN is greater than any
-- number and never within epsilon of one, so SyncNotEqual passes it.
SELECT v,
  once('{"type": "SyncGreaterThan", "numPorts": 3}', v) AS greater,
  once('{"type": "SyncLessThan", "numPorts": 3}', v) AS less,
  once('{"type": "SyncEqual", "numPorts": 3}', v) AS equal,
  once('{"type": "SyncNotEqual", "numPorts": 3}', v) AS not_equal
FROM (VALUES (1, '{5, 1, 2}'::float8[]), (2, '{5, 6, 2}'), (3, '{NaN, 1, 2}'), (4, '{1, 2, 3}'),
             (5, '{1, 1, 1}'), (6, '{1, 1.0000001, 1}'), (7, '{1, 1, 3}'))
  AS t(n, v) ORDER BY n;
-- epsilon is the original's strict bound: 0.5 apart is not within 0.5.
SELECT once('{"type": "SyncEqual", "epsilon": 0.5}', '{1, 1.5}') AS at_epsilon,
       once('{"type": "SyncEqual", "epsilon": 0.5}', '{1, 1.25}') AS within;

-- Multiplexer: numbers on i1 and i2, booleans on the control ports c1 and
-- c2; the value of i_k when c_k alone is true, else nothing.
SELECT c1, c2, once('{"type": "Multiplexer"}', ARRAY[10, 20, c1, c2]) AS chosen
FROM (VALUES (1, 0), (0, 1), (1, 1), (0, 0)) AS t(c1, c2) ORDER BY c1, c2;
-- In a mesh, its control ports are wired as "c1", "c2" (and written so):
-- positive values doubled, the others made positive.  3 -> 6, -4 -> 4, 0 -> 0.
CREATE TABLE mux AS SELECT '{"type": "Pipeline",
  "operators": [{"type": "Identity", "id": "in"}, {"type": "CompareGT", "id": "pos", "value": 0},
                {"type": "CompareLTE", "id": "neg", "value": 0}, {"type": "Scale", "id": "twice", "value": 2},
                {"type": "Abs", "id": "abs"}, {"type": "Multiplexer", "id": "mux"}],
  "connections": [{"from": "in", "to": "pos"}, {"from": "in", "to": "neg"}, {"from": "in", "to": "twice"},
                  {"from": "in", "to": "abs"}, {"from": "twice", "to": "mux", "toPort": "i1"},
                  {"from": "abs", "to": "mux", "toPort": "i2"}, {"from": "pos", "to": "mux", "toPort": "c1"},
                  {"from": "neg", "to": "mux", "toPort": "c2"}],
  "entryOperator": "in", "outputMappings": {"mux": {"o1": "o1"}}}'::text AS spec;
SELECT spec::pipeline FROM mux;
SELECT trace(spec::pipeline, '{3, -4, 0}') FROM mux;
SELECT try_spec(replace(spec, '"from": "pos", "to": "mux", "toPort": "c1"', '"from": "abs", "to": "mux", "toPort": "c1"')) FROM mux;
SELECT try_spec(replace(spec, '"toPort": "c2"', '"toPort": "c3"')) FROM mux;
SELECT try_spec(regexp_replace(spec, ',\s*\{"from": "neg", "to": "mux", "toPort": "c2"\}', '')) FROM mux;
SELECT try_spec(replace(spec, '"toPort": "c2"', '"toPort": "c1"')) FROM mux;

-- Demultiplexer: a value on i1, boolean controls c1..c3 and three output
-- ports; the value goes out on every port whose control is true (the
-- original's example).  A row whose controls are all false gives nothing.
CREATE TABLE demux AS SELECT '{"type": "Pipeline", "output_port_types": ["number", "number", "number"],
  "operators": [{"type": "Demultiplexer", "id": "d", "numPorts": 3}], "entryOperator": "d",
  "outputMappings": {"d": {"o1": "o1", "o2": "o2", "o3": "o3"}}}'::text AS spec;
SELECT spec::pipeline FROM demux;
SELECT v, once((SELECT spec FROM demux)::pipeline, v) AS routed
FROM (VALUES (1, '{42, 1, 0, 0}'::float8[]), (2, '{24, 0, 1, 1}'), (3, '{36, 1, 1, 1}'), (4, '{48, 0, 0, 0}')) AS t(n, v)
ORDER BY n;
-- Its ports in a mesh, "fromPort": "o2" included: positive values summed
-- apart from the others.  3, -1, 4, -2 in one segment: 7 and -3.
CREATE TABLE split AS SELECT '{"type": "Pipeline", "output_port_types": ["number", "number"],
  "operators": [{"type": "Identity", "id": "in"}, {"type": "CompareGT", "id": "pos", "value": 0},
                {"type": "CompareLTE", "id": "neg", "value": 0}, {"type": "Demultiplexer", "id": "d", "numPorts": 2},
                {"type": "CumulativeSum", "id": "up"}, {"type": "CumulativeSum", "id": "down"}],
  "connections": [{"from": "in", "to": "d"}, {"from": "in", "to": "pos"}, {"from": "in", "to": "neg"},
                  {"from": "pos", "to": "d", "toPort": "c1"}, {"from": "neg", "to": "d", "toPort": "c2"},
                  {"from": "d", "fromPort": "o1", "to": "up"}, {"from": "d", "fromPort": "o2", "to": "down"}],
  "entryOperator": "in", "outputMappings": {"up": {"o1": "o1"}, "down": {"o1": "o2"}}}'::text AS spec;
SELECT spec::pipeline FROM split;
SELECT i, segment_agg(ARRAY[v], k, (SELECT spec FROM split)::pipeline) OVER (ORDER BY i)
FROM (VALUES (1, 3, 0), (2, -1, 0), (3, 4, 0), (4, -2, 0), (5, NULL, 1)) AS t(i, v, k);
-- Mappings of one operator keep their order in the written text; a boolean
-- Demultiplexer; a port that is not there.
SELECT '{"type": "Pipeline", "output_port_types": ["number", "number"],
  "operators": [{"type": "Demultiplexer", "id": "d", "numPorts": 2}], "entryOperator": "d",
  "outputMappings": {"d": {"o2": "o1", "o1": "o2"}}}'::pipeline;
SELECT once('{"type": "Pipeline", "input_port_types": ["boolean", "boolean"], "output_port_types": ["boolean"],
  "operators": [{"type": "Demultiplexer", "id": "d", "portType": "boolean"}], "entryOperator": "d"}', '{7, 1}') AS boolean_routed;
SELECT try_spec(replace(spec, '"fromPort": "o2"', '"fromPort": "o3"')) FROM split;
SELECT try_spec('{"type": "Pipeline", "output_port_types": ["number", "number"],
  "operators": [{"type": "Demultiplexer", "id": "d", "numPorts": 2}], "entryOperator": "d",
  "outputMappings": {"d": {"o1": "o1", "o3": "o2"}}}');
SELECT try_spec('{"type": "Pipeline", "output_port_types": ["number", "boolean"],
  "operators": [{"type": "Demultiplexer", "id": "d", "numPorts": 2}], "entryOperator": "d",
  "outputMappings": {"d": {"o1": "o1", "o2": "o2"}}}');

-- MovingKeyCount over 3: how many of the last 3 values equal this one.
-- 1 -> [1]: 1; 2 -> [1 2]: 1; 1 -> [1 2 1]: 2; 1 -> [2 1 1]: 2;
-- 3 -> [1 1 3]: 1; NaN -> [1 3 NaN]: 1; NaN -> [3 NaN NaN]: 2;
-- 0 -> [NaN NaN 0]: 1; -0 and 0 are one key: -0 -> [NaN 0 -0]: 2.
SELECT trace('{"type": "MovingKeyCount", "window_size": 3}', '{1, 2, 1, 1, 3, NaN, NaN, 0, -0}');
-- A boundary empties the window (the original keeps it across segments):
-- segment 1 holds 1, 1, 1 (count 3), segment 2 one 1, counted 1 and not 4.
SELECT i, segment_agg(v, k, '{"type": "MovingKeyCount", "window_size": 5}') OVER (ORDER BY i)
FROM (VALUES (1, 1, 'a'), (2, 1, 'a'), (3, 1, 'a'), (4, 1, 'b'), (5, NULL, 'c')) AS t(i, v, k);

-- ResamplerConstant, interval 10 s, no t0: the grid starts one interval
-- after the first row (at 10 s).  Rows at 0, 5, 10, 12, 35, 36 s with
-- values 1, 2, 3, 7, 4, 5: nothing until the row at 10 s, on the grid
-- point, which gives its own value 3; the row at 35 s passes the grid
-- points 20 and 30, whose value is the one held before it, 7, and the row
-- gives the latest of them, 7; the row at 36 s passes none.
SELECT trace_at('{"type": "ResamplerConstant", "interval": "10 s"}',
                '{0, 5, 10, 12, 35, 36}', '{1, 2, 3, 7, 4, 5}');
-- t0 3 s after the rows' midnight (2026-01-01 00:00:00 UTC is 1767225600
-- s after the Unix epoch): grid points at 3, 13, 23, 33 s.  The first row
-- (0 s) is before t0, so t0 is the first grid point; the row at 5 s passes
-- it with the value held, 1; the row at 35 s passes 13, 23, 33 with 7.
SELECT trace_at('{"type": "ResamplerConstant", "interval": "10 s", "t0": 1767225603}',
                '{0, 5, 10, 12, 35, 36}', '{1, 2, 3, 7, 4, 5}');
-- snapFirst, grid at 0, 10, 20 s: the first row (5 s) snaps to the grid
-- point at or before it, 0 s, and the value of a grid point passed is the
-- row's own (9, then 4 at 12 s for the point at 10 s); the row at 20 s is
-- on a grid point (6); the row at 21 s passes none.
SELECT trace_at('{"type": "ResamplerConstant", "interval": "10 s", "t0": 1767225600, "snapFirst": 1}',
                '{5, 12, 20, 21}', '{9, 4, 6, 1}');
SELECT '{"type": "ResamplerConstant", "interval": "00:00:10"}'::pipeline;
SELECT '{"type": "ResamplerConstant", "interval": "10 s", "t0": 1767225603.5}'::pipeline;
-- A boundary starts the grid again: segment a has rows at 0 s and 10 s
-- (the grid point at 10 s: 2), segment b one row at 25 s, whose grid starts
-- at 35 s: nothing, and the punctuation closing b emits nothing.
SELECT i, segment_agg(at(s), v, k, '{"type": "ResamplerConstant", "interval": "10 s"}') OVER (ORDER BY i)
FROM (VALUES (1, 0, 1, 'a'), (2, 10, 2, 'a'), (3, 25, 5, 'b'), (4, 26, NULL, 'c')) AS t(i, s, v, k);

-- Near the end of timestamptz (294276 AD), a grid point past the last
-- timestamp is no point: with an interval of 100000 days the first row's
-- next point is beyond, no row passes one, and the segment closed at the
-- partition's end emits nothing; with 10 days, the row of 11 December is on
-- the grid (2), that of 31 December passes the 21st (2 held) and is on the
-- 31st (3), whose next point, 10 January 294277, is beyond: 3.
SELECT i, segment_agg(ts, v, 1, '{"type": "ResamplerConstant", "interval": "100000 days"}', true) OVER (ORDER BY i)
FROM (VALUES (1, timestamptz '294276-12-01 00:00+00', 1), (2, '294276-12-30 00:00+00', 2),
             (3, '294276-12-31 00:00+00', 3)) AS t(i, ts, v);
SELECT i, segment_agg(ts, v, 1, '{"type": "ResamplerConstant", "interval": "10 days"}', true) OVER (ORDER BY i)
FROM (VALUES (1, timestamptz '294276-12-01 00:00+00', 1), (2, '294276-12-11 00:00+00', 2),
             (3, '294276-12-31 00:00+00', 3)) AS t(i, ts, v);

-- TimestampExtract: the row's timestamp in seconds since the Unix epoch
-- (2026-01-01 00:00:00 UTC is 1767225600).
SELECT trace_at('{"type": "TimestampExtract"}', '{0, 5, 7}', '{1, NaN, 3}');
-- It is extract(epoch from ts)::float8, the float8 nearest the exact
-- value: 2000 timestamps with microseconds, from 1700 to 2250, each in a
-- partition of its own closed at its end.
SELECT count(*) AS rows, count(*) FILTER (WHERE e = extract(epoch FROM ts)::float8) AS equal
FROM (SELECT ts, segment_agg(ts, 0, 1, '{"type": "TimestampExtract"}', true) OVER (PARTITION BY n) AS e
      FROM (SELECT n, '1700-01-01 00:00:00+00'::timestamptz
                      + make_interval(secs => (n * 8683317.123457) % (550 * 365.25 * 86400)) AS ts
            FROM generate_series(1, 2000) AS n) AS r) AS s;

-- States, stored and resumed: a run cut after any row and resumed from its
-- stored pipeline's text ends in the same state as the whole run, and the
-- two parts' emissions are the whole run's.
CREATE TABLE lang_rows AS
SELECT i, at(i * 3 + (i % 4)) AS ts, ((i * 7) % 5)::float8 AS v, i / 6 AS k FROM generate_series(1, 20) AS i;
CREATE TABLE lang_specs (name text, spec pipeline);
INSERT INTO lang_specs VALUES
  ('key_count', '{"type": "MovingKeyCount", "window_size": 4}'),
  ('resampler', '{"type": "ResamplerConstant", "interval": "7 s"}'),
  ('resampler_t0', '{"type": "ResamplerConstant", "interval": "5 s", "t0": 1767225601, "snapFirst": 1}'),
  ('mesh', '{"type": "Pipeline", "output_port_types": ["number", "boolean"],
    "operators": [{"type": "MovingKeyCount", "id": "n", "window_size": 3},
                  {"type": "ConstantNumber", "id": "c", "value": 2},
                  {"type": "CompareSyncGTE", "id": "ge"}],
    "connections": [{"from": "n", "to": "c"}, {"from": "n", "to": "ge"}, {"from": "c", "to": "ge", "toPort": "i2"}],
    "entryOperator": "n", "outputMappings": {"n": {"o1": "o1"}, "ge": {"o1": "o2"}}}');
CREATE FUNCTION em_list(p pipeline) RETURNS text[] LANGUAGE sql
  AS $$ SELECT ARRAY(SELECT e::text FROM emissions(p) AS e) $$;
SELECT name, count(*) AS cuts,
       bool_and((whole::text::jsonb #- '{state,emissions}') = (resumed::text::jsonb #- '{state,emissions}')) AS same_state,
       bool_and(em_list(first) || em_list(resumed) = em_list(whole)) AS same_emissions,
       max(cardinality(em_list(whole))) AS emissions
FROM lang_specs, generate_series(1, 19) AS cut,
  LATERAL (SELECT pipeline_agg(ts, v, k, spec ORDER BY i) AS whole FROM lang_rows) AS w,
  LATERAL (SELECT pipeline_agg(ts, v, k, spec ORDER BY i) AS first FROM lang_rows WHERE i <= cut) AS f,
  LATERAL (SELECT pipeline_agg(ts, v, k, first::text::pipeline ORDER BY i) AS resumed
           FROM lang_rows WHERE i > cut) AS r
GROUP BY name ORDER BY name;
-- The state as stored, after rows 1..8: segment 0 is rows 1..5 at 4, 8,
-- 12, 12 and 16 s, segment 1 rows 6..8 at 20, 24 and 24 s.  Interval 7 s:
-- the grid of segment 0 is 11, 18 s; the first row at 12 s passes 11 with
-- the value held, 4, which the row at 20 s emits, closing segment 0.
-- Segment 1's grid starts at 27 s, past its rows: the buffer is empty,
-- next is 27 s (820540827000000 microseconds since 2000-01-01 UTC), last
-- 24 s, and held the last row's value, 1.
SELECT i, extract(epoch FROM ts - at(0)) AS s, v, k FROM lang_rows WHERE i <= 8 ORDER BY i;
SELECT (SELECT pipeline_agg(ts, v, k, '{"type": "ResamplerConstant", "interval": "7 s"}' ORDER BY i)
        FROM lang_rows WHERE i <= 8)::text;

-- Hostile states of ResamplerConstant and MovingKeyCount are refused.
CREATE FUNCTION lang_try(t text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    detail text;
BEGIN
    PERFORM t::pipeline;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' (' || nullif(detail, '') || ')', '');
END $$;
CREATE TABLE lang_state AS SELECT '{"type": "ResamplerConstant", "interval": "10 s", "state": {"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:12+00", "rows": 2, "discarded": 0, "late": 0, "buffer": [null], "operators": {"op1": {"n": 1, "next": 820540820000000, "last": 820540812000000, "held": 7}}, "emissions": []}}'::text AS t;
SELECT label, lang_try(replace(t, old, new))
FROM lang_state, (VALUES
  ('as written', '', ''),
  ('next at last', '"next": 820540820000000', '"next": 820540812000000'),
  ('next too far', '"next": 820540820000000', '"next": 820540823000000'),
  ('n is 2', '"n": 1', '"n": 2'),
  ('n is 0 with a next', '"n": 1', '"n": 0'),
  ('last not a timestamp', '"last": 820540812000000', '"last": 9223372036854775807')) AS c(label, old, new);
SELECT lang_try('{"type": "MovingKeyCount", "window_size": 2, "state": {"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:03+00", "rows": 3, "discarded": 0, "late": 0, "buffer": [1], "operators": {"op1": {"keys": [1, 2, 1]}}, "emissions": []}}') AS too_many_keys,
       lang_try('{"type": "MovingKeyCount", "window_size": 2, "state": {"key_type": "integer", "key": "1", "progress": "2026-01-01 00:00:03+00", "rows": 3, "discarded": 0, "late": 0, "buffer": [1], "operators": {"op1": {"keys": [2, 1]}}, "emissions": []}}') AS two_keys;

-- MovingKeyCount's window counts towards the state cap (64 MB, 67108864
-- bytes): eight windows of 1000000 values fit (64000000 bytes), nine
-- (72000000 bytes) do not.
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "MovingKeyCount", "id": "k0", "window_size": 1000000}, {"type": "MovingKeyCount", "id": "k1", "window_size": 1000000}, {"type": "MovingKeyCount", "id": "k2", "window_size": 1000000}, {"type": "MovingKeyCount", "id": "k3", "window_size": 1000000}, {"type": "MovingKeyCount", "id": "k4", "window_size": 1000000}, {"type": "MovingKeyCount", "id": "k5", "window_size": 1000000}, {"type": "MovingKeyCount", "id": "k6", "window_size": 1000000}, {"type": "MovingKeyCount", "id": "k7", "window_size": 1000000}], "connections": [{"from": "k0", "to": "k1"}, {"from": "k1", "to": "k2"}, {"from": "k2", "to": "k3"}, {"from": "k3", "to": "k4"}, {"from": "k4", "to": "k5"}, {"from": "k5", "to": "k6"}, {"from": "k6", "to": "k7"}], "entryOperator": "k0", "outputMappings": {"k7": {"o1": "o1"}}}') IS NOT DISTINCT FROM 'ok' AS eight_fit;
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "MovingKeyCount", "id": "k0", "window_size": 1000000}, {"type": "MovingKeyCount", "id": "k1", "window_size": 1000000}, {"type": "MovingKeyCount", "id": "k2", "window_size": 1000000}, {"type": "MovingKeyCount", "id": "k3", "window_size": 1000000}, {"type": "MovingKeyCount", "id": "k4", "window_size": 1000000}, {"type": "MovingKeyCount", "id": "k5", "window_size": 1000000}, {"type": "MovingKeyCount", "id": "k6", "window_size": 1000000}, {"type": "MovingKeyCount", "id": "k7", "window_size": 1000000}, {"type": "MovingKeyCount", "id": "k8", "window_size": 1000000}], "connections": [{"from": "k0", "to": "k1"}, {"from": "k1", "to": "k2"}, {"from": "k2", "to": "k3"}, {"from": "k3", "to": "k4"}, {"from": "k4", "to": "k5"}, {"from": "k5", "to": "k6"}, {"from": "k6", "to": "k7"}, {"from": "k7", "to": "k8"}], "entryOperator": "k0", "outputMappings": {"k8": {"o1": "o1"}}}');

-- What is refused.
SELECT try_spec(s) FROM (VALUES
  ('{"type": "ResamplerConstant"}'),
  ('{"type": "ResamplerConstant", "interval": 10}'),
  ('{"type": "ResamplerConstant", "interval": "10 s", "t0": "2026-01-01"}'),
  ('{"type": "ResamplerConstant", "interval": "10 s", "t0": 1e12}'),
  ('{"type": "ResamplerConstant", "interval": "10 s", "snapFirst": 2}'),
  ('{"type": "ConstantBoolean", "value": 1}'),
  ('{"type": "SyncEqual", "epsilon": 0}'),
  ('{"type": "CompareSyncEQ", "tolerance": -1}'),
  ('{"type": "LogicalAnd", "numPorts": 1}'),
  ('{"type": "MovingKeyCount", "window_size": 0}'),
  ('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "x"}, {"type": "LogicalAnd", "id": "and"}],
    "connections": [{"from": "x", "to": "and"}], "entryOperator": "x", "outputMappings": {"and": {"o1": "o1"}}}')) AS t(s);
-- ResamplerConstant needs the rows' timestamps.
SELECT segment_agg(v, 1, '{"type": "ResamplerConstant", "interval": "10 s"}') OVER (ORDER BY v)
FROM (VALUES (1.0)) AS t(v);
