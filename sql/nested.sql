-- Pipelines inside a pipeline: segments inside segments, the inner key
-- computed in the mesh and wired to the nested Pipeline's control port
-- "c1".  Expected values by hand, and an oracle: the same computation as
-- two chained segment_agg calls.
\pset format unaligned
\pset null 'null'

-- v encodes a shift and a reading: shift = floor(v / 100).  The nested
-- Pipeline sums v over each shift and emits the sum when the shift
-- changes; the outer pipeline's output is what it emits.  Rows 101, 102,
-- 203, 204, 105: shift 1 sums 203, emitted on row 3; shift 2 sums 407,
-- emitted on row 5; the last shift is still open.
CREATE TABLE shifts AS SELECT '{"type": "Pipeline", "id": "day",
  "operators": [{"type": "Identity", "id": "in"}, {"type": "Scale", "id": "k", "value": 0.01},
                {"type": "Floor", "id": "shift"},
                {"type": "Pipeline", "id": "per_shift",
                 "operators": [{"type": "CumulativeSum", "id": "sum"}]}],
  "connections": [{"from": "in", "to": "k"}, {"from": "k", "to": "shift"},
                  {"from": "shift", "to": "per_shift", "toPort": "c1"},
                  {"from": "in", "to": "per_shift", "toPort": "i1"}],
  "entryOperator": "in", "outputMappings": {"per_shift": {"o1": "o1"}}}'::text AS spec;
SELECT spec::pipeline FROM shifts;
SELECT spec::pipeline::text::pipeline = spec::pipeline AS reads_back FROM shifts;
SELECT trace(spec::pipeline, '{101, 102, 203, 204, 105}') FROM shifts;
-- The outer boundary resets the nested pipeline, open shift included, as
-- the original's Pipeline reset does: day a (101, 102, 203) emits what its
-- mesh produced last, 203 (shift 1); day b starts a fresh nested pipeline
-- (204 is its first row, nothing emitted) and closes with nothing.
SELECT i, segment_agg(v, d, (SELECT spec FROM shifts)::pipeline) OVER (ORDER BY i)
FROM (VALUES (1, 101, 'a'), (2, 102, 'a'), (3, 203, 'a'), (4, 204, 'b'), (5, NULL, 'c')) AS t(i, v, d);

-- The oracle.  Days of 20 rows, three shifts a day; the nested pipeline
-- emits a shift's sum on the row where the shift changes within a day,
-- which the first of two chained segment_agg calls gives keyed by (day,
-- shift), kept on rows that do not start a day; the second, keyed by day,
-- keeps the last of them (Identity) and emits it when the day changes.
CREATE TABLE shift_rows AS
SELECT i, i / 20 AS d, ((i % 20) / 7) * 100 + (i * 13) % 37 AS v FROM generate_series(0, 399) AS i;
CREATE TABLE both_ways AS
SELECT i, nested, chained FROM (
  SELECT i, segment_agg(v, d, (SELECT spec FROM shifts)::pipeline) OVER (ORDER BY i) AS nested,
         segment_agg(CASE WHEN d = prev_d THEN e1 END, d) OVER (ORDER BY i) AS chained
  FROM (SELECT i, d, v, lag(d) OVER (ORDER BY i) AS prev_d,
               segment_agg(v, ROW(d, floor(v * 0.01)), '{"type": "CumulativeSum"}') OVER (ORDER BY i) AS e1
        FROM shift_rows) AS r) AS s;
SELECT count(*) AS rows, count(nested) AS emitted, bool_and(nested IS NOT DISTINCT FROM chained) AS same
FROM both_ways;
SELECT i, nested FROM both_ways WHERE nested IS NOT NULL ORDER BY i LIMIT 3;
SELECT sum(v) FILTER (WHERE i BETWEEN 7 AND 13) AS day0_shift1 FROM shift_rows;

-- Nested twice: hours inside shifts inside the day (v encodes shift,
-- hour, reading as 100 s + 10 h + x); the innermost sums an hour, the
-- middle one keeps the largest hourly sum of a shift.  Hours are
-- floor(v / 10): rows 111, 112 (shift 1, hour 11), 123 (hour 12: the
-- innermost emits 223), 134 (hour 13: emits 123), 241 (shift 2: the middle
-- emits its max, 223; the open hour 13 of shift 1 is reset with it).
CREATE TABLE hours AS SELECT '{"type": "Pipeline",
  "operators": [{"type": "Identity", "id": "in"}, {"type": "Scale", "id": "s", "value": 0.01},
                {"type": "Floor", "id": "shift"},
                {"type": "Pipeline", "id": "per_shift", "input_port_types": ["number"],
                 "operators": [{"type": "Identity", "id": "in"}, {"type": "Scale", "id": "h", "value": 0.1},
                               {"type": "Floor", "id": "hour"},
                               {"type": "Pipeline", "id": "per_hour", "operators": [{"type": "CumulativeSum", "id": "sum"}]},
                               {"type": "MaxTracker", "id": "max"}],
                 "connections": [{"from": "in", "to": "h"}, {"from": "h", "to": "hour"},
                                 {"from": "hour", "to": "per_hour", "toPort": "c1"}, {"from": "in", "to": "per_hour"},
                                 {"from": "per_hour", "to": "max"}],
                 "entryOperator": "in", "outputMappings": {"max": {"o1": "o1"}}}],
  "connections": [{"from": "in", "to": "s"}, {"from": "s", "to": "shift"},
                  {"from": "shift", "to": "per_shift", "toPort": "c1"}, {"from": "in", "to": "per_shift"}],
  "entryOperator": "in", "outputMappings": {"per_shift": {"o1": "o1"}}}'::text AS spec;
SELECT trace(spec::pipeline, '{111, 112, 123, 134, 241}') FROM hours;

-- The state: the nested pipeline's key, buffer and its operators' fields
-- named "<id>/<field>".  After 101, 102, 203 the nested pipeline has key 2
-- (shift 2), buffers 203 (its CumulativeSum's running sum of the open shift)
-- and the outer buffer holds 203, emitted by the nested pipeline on row 3.
SELECT pipeline_agg(at(i), v, 1, (SELECT spec FROM shifts)::pipeline ORDER BY i)::text
FROM (VALUES (1, 101), (2, 102), (3, 203)) AS t(i, v);
-- Resumed after any row, through the text form: the same state and
-- emissions as the whole run.
CREATE FUNCTION em_of(p pipeline) RETURNS text[] LANGUAGE sql
  AS $$ SELECT ARRAY(SELECT e::text FROM emissions(p) AS e) $$;
SELECT name, count(*) AS cuts,
       bool_and((whole::text::jsonb #- '{state,emissions}') = (resumed::text::jsonb #- '{state,emissions}')) AS same_state,
       bool_and(em_of(first) || em_of(resumed) = em_of(whole)) AS same_emissions,
       max(cardinality(em_of(whole))) AS emissions
FROM (SELECT 'shifts' AS name, spec::pipeline AS spec FROM shifts
      UNION ALL SELECT 'hours', spec::pipeline FROM hours) AS s,
  generate_series(1, 59) AS cut,
  LATERAL (SELECT pipeline_agg(at(i), v + 10 * (i % 3), d, spec ORDER BY i) AS whole FROM shift_rows WHERE i < 60) AS w,
  LATERAL (SELECT pipeline_agg(at(i), v + 10 * (i % 3), d, spec ORDER BY i) AS first FROM shift_rows WHERE i < cut) AS f,
  LATERAL (SELECT pipeline_agg(at(i), v + 10 * (i % 3), d, first::text::pipeline ORDER BY i) AS resumed
           FROM shift_rows WHERE i >= cut AND i < 60) AS r
GROUP BY name ORDER BY name;

-- A state that cannot be is refused: a nested pipeline without a key
-- holding an operator's state, and a nested operator's state its own check
-- refuses.
CREATE FUNCTION nested_try(t text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    detail text;
BEGIN
    PERFORM t::pipeline;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' (' || nullif(detail, '') || ')', '');
END $$;
CREATE TABLE nested_state AS
SELECT pipeline_agg(at(i), v, 1, (SELECT spec FROM shifts)::pipeline ORDER BY i)::text AS t
FROM (VALUES (1, 101), (2, 102), (3, 203)) AS t(i, v);
SELECT label, nested_try(replace(t, old, new))
FROM nested_state, (VALUES
  ('as written', '', ''),
  ('no key, a sum', '"has_key": 1, "key": 2', '"has_key": 0, "key": 0'),
  ('has_key 2', '"has_key": 1', '"has_key": 2'),
  ('nothing buffered, a buffer', '"buffered": [1]', '"buffered": [0]'),
  ('buffered 2', '"buffered": [1]', '"buffered": [2]'),
  ('a field renamed', '"sum/', '"total/')) AS c(label, old, new);

-- A nested Pipeline of several output ports: its o1, o2, ... are the
-- operator's, in connections and output mappings.  Per shift, the sum and
-- the count, and whether the sum passed 300 (a boolean port); rows 101,
-- 102, 203, 204, 105 emit shift 1 (203, 2, false) on row 3 and shift 2
-- (407, 2, true) on row 5, closed with the outer segment by the
-- punctuation (whose buffer holds them).
CREATE TABLE multi AS SELECT '{"type": "Pipeline", "output_port_types": ["number", "number", "boolean"],
  "operators": [{"type": "Identity", "id": "in"}, {"type": "Scale", "id": "k", "value": 0.01},
                {"type": "Floor", "id": "shift"},
                {"type": "Pipeline", "id": "per_shift", "output_port_types": ["number", "number", "boolean"],
                 "operators": [{"type": "Identity", "id": "x"}, {"type": "CumulativeSum", "id": "sum"},
                               {"type": "CountNumber", "id": "n"}, {"type": "CompareGT", "id": "big", "value": 300}],
                 "connections": [{"from": "x", "to": "sum"}, {"from": "x", "to": "n"}, {"from": "sum", "to": "big"}],
                 "entryOperator": "x",
                 "outputMappings": {"sum": {"o1": "o1"}, "n": {"o1": "o2"}, "big": {"o1": "o3"}}}],
  "connections": [{"from": "in", "to": "k"}, {"from": "k", "to": "shift"},
                  {"from": "shift", "to": "per_shift", "toPort": "c1"}, {"from": "in", "to": "per_shift"}],
  "entryOperator": "in",
  "outputMappings": {"per_shift": {"o1": "o1", "o2": "o2", "o3": "o3"}}}'::text AS spec;
SELECT spec::pipeline::text::pipeline = spec::pipeline AS reads_back FROM multi;
SELECT i, segment_agg(ARRAY[v], k, (SELECT spec FROM multi)::pipeline) OVER (ORDER BY i)
FROM (VALUES (1, 101, 0), (2, 102, 0), (3, 203, 0), (4, 204, 0), (5, 105, 0), (6, NULL, 1)) AS t(i, v, k);
SELECT pipeline_agg(at(i), ARRAY[v], 1, (SELECT spec FROM multi)::pipeline ORDER BY i)::text::jsonb
         -> 'state' -> 'operators' -> 'per_shift' AS state
FROM (VALUES (1, 101), (2, 102), (3, 203)) AS t(i, v);

-- A nested pipeline's state counts towards the outer one's cap: four
-- windows of 1000000 values outside and five inside are nine, more than
-- 64 MB (the 136 bytes beyond 72000000 are the nested pipeline's key,
-- buffer and row scratch).
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "MovingKeyCount", "id": "k0", "window_size": 1000000}, {"type": "MovingKeyCount", "id": "k1", "window_size": 1000000}, {"type": "MovingKeyCount", "id": "k2", "window_size": 1000000}, {"type": "MovingKeyCount", "id": "k3", "window_size": 1000000}, {"type": "Pipeline", "operators": [{"type": "MovingKeyCount", "id": "k0", "window_size": 1000000}, {"type": "MovingKeyCount", "id": "k1", "window_size": 1000000}, {"type": "MovingKeyCount", "id": "k2", "window_size": 1000000}, {"type": "MovingKeyCount", "id": "k3", "window_size": 1000000}, {"type": "MovingKeyCount", "id": "k4", "window_size": 1000000}], "connections": [{"from": "k0", "to": "k1"}, {"from": "k1", "to": "k2"}, {"from": "k2", "to": "k3"}, {"from": "k3", "to": "k4"}], "entryOperator": "k0", "outputMappings": {"k4": {"o1": "o1"}}, "id": "p"}], "connections": [{"from": "k0", "to": "k1"}, {"from": "k1", "to": "k2"}, {"from": "k2", "to": "k3"}, {"from": "k3", "to": "p"}, {"from": "k3", "to": "p", "toPort": "c1"}], "entryOperator": "k0", "outputMappings": {"p": {"o1": "o1"}}}');

-- What is refused.
SELECT try_spec(s) FROM (VALUES
  ('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "in"},
     {"type": "Pipeline", "id": "p", "operators": [{"type": "Identity", "id": "x"}]}],
    "connections": [{"from": "in", "to": "p"}], "entryOperator": "in", "outputMappings": {"p": {"o1": "o1"}}}'),
  ('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "in"},
     {"type": "Pipeline", "id": "p", "operators": [{"type": "Identty", "id": "x"}]}],
    "connections": [{"from": "in", "to": "p"}, {"from": "in", "to": "p", "toPort": "c1"}],
    "entryOperator": "in", "outputMappings": {"p": {"o1": "o1"}}}'),
  ('{"type": "Pipeline", "operators": [{"type": "CompareGT", "id": "in", "value": 0},
     {"type": "Pipeline", "id": "p", "operators": [{"type": "Identity", "id": "x"}]}],
    "connections": [{"from": "in", "to": "p", "toPort": "c1"}, {"from": "in", "to": "p"}],
    "entryOperator": "in", "outputMappings": {"p": {"o1": "o1"}}}')) AS t(s);
