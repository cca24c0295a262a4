-- Programs of the original library, ported row for row: an Input inside a
-- Pipeline as its entry, and (below) operators outside the Pipeline.
-- Expected values by hand, from the rules of docs/reference.md.
\pset format unaligned
\pset null 'null'

-- "Program handles Pipeline operators and resets": the Pipeline's entry is
-- an Input of one port passing its value on to MovingAverage(3).  Rows
-- t = 1..10 with values 1, 2, 3 (key 1), 4, 5, 6 (key 2), 0, 0, 0 (key 3),
-- 99 (key 4).  Each key's rows are a segment; its last average is emitted
-- on the first row of the next: avg(1,2,3) = 2 at t = 4, avg(4,5,6) = 5 at
-- t = 7, avg(0,0,0) = 0 at t = 10.  The last segment has one row, no full
-- window: nothing.
CREATE TEMP TABLE p3 AS SELECT $${
  "operators": [
    {"type": "Input", "id": "input", "portTypes": ["number", "number"]},
    {"type": "Pipeline", "id": "pipeline",
     "input_port_types": ["number"], "output_port_types": ["number"],
     "operators": [
       {"type": "Input", "id": "pinput", "portTypes": ["number"]},
       {"type": "MovingAverage", "id": "ma", "window_size": 3}],
     "connections": [{"from": "pinput", "to": "ma", "fromPort": "o1", "toPort": "i1"}],
     "entryOperator": "pinput",
     "outputMappings": {"ma": {"o1": "o1"}}},
    {"type": "Output", "id": "output", "portTypes": ["number"]}],
  "connections": [
    {"from": "input", "to": "pipeline", "fromPort": "o1", "toPort": "i1"},
    {"from": "input", "to": "pipeline", "fromPort": "o2", "toPort": "c1"},
    {"from": "pipeline", "to": "output", "fromPort": "o1", "toPort": "i1"}],
  "entryOperator": "input",
  "output": {"output": ["o1"]}}$$::pipeline AS p;
CREATE TEMP TABLE p3_rows AS
SELECT * FROM (VALUES (1, 1.0, 1), (2, 2, 1), (3, 3, 1), (4, 4, 2), (5, 5, 2), (6, 6, 2),
                      (7, 0, 3), (8, 0, 3), (9, 0, 3), (10, 99, 4)) AS r(t, v, k);
-- its canonical text keeps the Input, with its one parameter
SELECT p FROM p3;
SELECT t, segment_agg(v::float8, k, (SELECT p FROM p3)) OVER (ORDER BY t) FROM p3_rows ORDER BY t;
SELECT ts, key, port, value FROM emissions((SELECT pipeline_agg(at(t), v::float8, k, (SELECT p FROM p3) ORDER BY t)
                                            FROM p3_rows));

-- An Input of two ports at a plain spec's entry passes both on: Subtraction
-- of (5, 2) and (4, 1) gives 3 and 3, summed 6, emitted at the key change.
SELECT t, segment_agg(v, k, '{"type": "Pipeline", "id": "p",
    "operators": [{"type": "Input", "id": "in", "portTypes": ["number", "number"]},
                  {"type": "Subtraction", "id": "sub"}, {"type": "CumulativeSum", "id": "sum"}],
    "connections": [{"from": "in", "to": "sub", "fromPort": "o1", "toPort": "i1"},
                    {"from": "in", "to": "sub", "fromPort": "o2", "toPort": "i2"},
                    {"from": "sub", "to": "sum"}],
    "entryOperator": "in", "outputMappings": {"sum": {"o1": "o1"}}}') OVER (ORDER BY t)
FROM (VALUES (1, ARRAY[5, 2]::float8[], 1), (2, ARRAY[4, 1], 1), (3, ARRAY[0, 0], 2)) AS r(t, v, k);

-- An Input's "portTypes" are checked against the ports it feeds and the
-- pipeline's ports that feed it; it must be the entry; it takes no other
-- parameter.
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Input", "id": "in", "portTypes": ["boolean"]},
  {"type": "MovingAverage", "id": "ma", "window_size": 3}], "connections": [{"from": "in", "to": "ma"}],
  "entryOperator": "in", "outputMappings": {"ma": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "input_port_types": ["number"],
  "operators": [{"type": "Input", "id": "in", "portTypes": ["vector_number"]},
  {"type": "VectorExtract", "id": "x", "index": 0}], "connections": [{"from": "in", "to": "x"}],
  "entryOperator": "in", "outputMappings": {"x": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "MovingAverage", "id": "ma", "window_size": 3},
  {"type": "Input", "id": "in", "portTypes": ["number"]}], "connections": [{"from": "ma", "to": "in"}],
  "entryOperator": "ma", "outputMappings": {"in": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Input", "id": "in", "portTypes": []},
  {"type": "Identity", "id": "x"}], "connections": [{"from": "in", "to": "x"}],
  "entryOperator": "in", "outputMappings": {"x": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Input", "id": "in", "portTypes": ["number"], "value": 1},
  {"type": "Identity", "id": "x"}], "connections": [{"from": "in", "to": "x"}],
  "entryOperator": "in", "outputMappings": {"x": {"o1": "o1"}}}');

-- Operators outside the Pipeline, before it (fed by the Input's data
-- ports) and after it (fed by its outputs), in one mesh.  Only the
-- Pipeline's operators reset when the key changes; the others run on every
-- row (those after it on what the Pipeline emits) and never reset.  Here a
-- running sum "run" of the values feeds a Pipeline keeping each segment's
-- maximum, and "total" sums what the Pipeline emits.  Values 1..6, keys
-- 1, 1, 2, 2, 3, 3: run is 1, 3, 6, 10, 15, 21 (never reset); the segments'
-- maxima are 3 (rows 1-2), 10 (rows 3-4), 21 (rows 5-6), each emitted on
-- the row that changes the key, the last at the partition's end with
-- close_at_end; total is 3, 13, 34.  Program outputs: o1 the Pipeline's,
-- o2 total's.
CREATE TEMP TABLE runmax AS SELECT $${
  "operators": [
    {"type": "Input", "id": "in", "portTypes": ["number", "number"]},
    {"type": "CumulativeSum", "id": "run"},
    {"type": "Pipeline", "id": "p", "operators": [{"type": "MaxTracker", "id": "max"}]},
    {"type": "CumulativeSum", "id": "total"}],
  "connections": [
    {"from": "in", "to": "run", "fromPort": "o1"},
    {"from": "run", "to": "p"},
    {"from": "in", "to": "p", "fromPort": "o2", "toPort": "c1"},
    {"from": "p", "to": "total"}],
  "entryOperator": "in",
  "output": {"p": ["o1"], "total": ["o1"]}}$$::pipeline AS p;
CREATE TEMP TABLE runmax_rows AS
SELECT * FROM (VALUES (1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (6, 3)) AS r(i, k);
-- The canonical text is a program: the Input (data ports and the key's),
-- the operators, an Output of the program's outputs ("output", a fresh id,
-- where the program has none), the key's connection first.
SELECT p FROM runmax;
SELECT p::text::pipeline = p AS reads_back FROM runmax;
SELECT i, segment_agg(ARRAY[i]::float8[], k, (SELECT p FROM runmax), close_at_end => true) OVER (ORDER BY i)
FROM runmax_rows ORDER BY i;
-- Without close_at_end the open segment stays open: 21 is not emitted.
SELECT i, segment_agg(ARRAY[i]::float8[], k, (SELECT p FROM runmax)) OVER (ORDER BY i)
FROM runmax_rows ORDER BY i;
-- The stored state after 5 rows: run's sum 15 and total's 13 (never reset),
-- the Pipeline's key (its segments' own, not the SQL key) and buffer, and
-- its MaxTracker's maximum of the open segment, 15; the program's buffer
-- is empty (its outputs are emitted on the row that produces them).
SELECT pipeline_agg(at(i), ARRAY[i]::float8[], k, (SELECT p FROM runmax) ORDER BY i)::jsonb -> 'state'
FROM runmax_rows WHERE i <= 5;

-- The original's power monitor ("Program handles complex Pipeline
-- operators and resets"), as its test writes it but for the resamplers'
-- "interval": the original's 5000 counts its timestamps' units
-- (milliseconds there), segpipe's is a duration, "5 seconds".  Two
-- currents are cut off at 0.5, resampled every 5 s, scaled to watts (220)
-- and added before the hourly Pipeline, whose c1 is the Input's third
-- port, the key.  Rows every 5 s from t = 5 s, 15 per key h = 1..4 (odd h:
-- currents 30.23 and 10.5802; even h: 0.01 and 0.01), then one row of key 5.
-- By the rules: the resamplers never reset, so from the second row on each
-- row reaches a grid point at its own time and passes its value on (the
-- first row only sets the grid).  Odd h: 220 * 30.23 + 220 * 10.5802 =
-- 6650.6 + 2327.644 = 8978.244 W on every row; even h: 0.01 is cut to 0, so
-- 0 W.  In the Pipeline (reset per h): MovingAverage(2) of equal values is
-- the value, 8978.244 (or 0), times 0.00138888888 = 12.469783253526721 Wh,
-- and MovingSum(10) of ten of them 124.69783253526721 (the exact sum,
-- rounded).  Segment h = 1 has 14 values (its first row feeds nothing),
-- enough; h = 3 has 15.  Each is emitted on the first row of the next key:
-- 124.69783253526721 at 80 s (h = 1) and 230 s (h = 3), 0 at 155 s (h = 2)
-- and 305 s (h = 4, as the original's test requires).
CREATE TEMP TABLE power AS SELECT $${
    "apiVersion": "v1",
    "operators": [
        {
            "id": "input",
            "type": "Input",
            "portTypes": [
                "number",
                "number",
                "number"
            ]
        },
        {
            "id": "hi_input_cutoff",
            "type": "LessThanOrEqualToReplace",
            "value": 0.5,
            "replaceBy": 0.0
        },
        {
            "id": "lo_input_cutoff",
            "type": "LessThanOrEqualToReplace",
            "value": 0.5,
            "replaceBy": 0.0
        },
        {
            "id": "hiresampler",
            "type": "ResamplerConstant",
            "interval": "5 seconds"
        },
        {
            "id": "loresampler",
            "type": "ResamplerConstant",
            "interval": "5 seconds"
        },
        {
            "id": "hiresampler_cutoff",
            "type": "LessThanOrEqualToReplace",
            "value": 0.5,
            "replaceBy": 0.0
        },        
        {
            "id": "loresampler_cutoff",
            "type": "LessThanOrEqualToReplace",
            "value": 0.5,
            "replaceBy": 0.0
        },
        {
            "id": "power1",
            "type": "Scale",
            "value": 220
        },
        {
            "id": "power2",
            "type": "Scale",
            "value": 220
        },
        {
            "id": "power1_cutoff",
            "type": "LessThanOrEqualToReplace",
            "value": 0.5,
            "replaceBy": 0.0
        },
        {
            "id": "power2_cutoff",
            "type": "LessThanOrEqualToReplace",
            "value": 0.5,
            "replaceBy": 0.0
        },
        {
            "id": "total_power",
            "type": "Addition"
        },
        {
            "id": "total_power_cutoff",
            "type": "LessThanOrEqualToReplace",
            "value": 0.5,
            "replaceBy": 0.0
        },
        {
            "id": "hourly",
            "type": "Pipeline",
            "input_port_types": [
                "number"
            ],
            "output_port_types": [
                "number"
            ],
            "operators": [                
                {
                    "id": "trapezoid",
                    "type": "MovingAverage",
                    "window_size": 2
                },
                {
                    "id": "trapezoid_cutoff",
                    "type": "LessThanOrEqualToReplace",
                    "value": 0.5,
                    "replaceBy": 0.0
                },
                {
                    "id": "wh",
                    "type": "Scale",
                    "value": 0.00138888888
                },
                {
                    "id": "wh_cutoff",
                    "type": "LessThanOrEqualToReplace",
                    "value": 0.5,
                    "replaceBy": 0.0
                },                
                {
                    "id": "hourly_ms",
                    "type": "MovingSum",
                    "window_size": 10
                }
            ],
            "connections": [              
                {
                    "from": "trapezoid",
                    "to": "trapezoid_cutoff"
                },
                {
                    "from": "trapezoid_cutoff",
                    "to": "wh"
                },
                {
                    "from": "wh",
                    "to": "wh_cutoff"
                },
                {
                    "from": "wh_cutoff",
                    "to": "hourly_ms"
                }
            ],
            "entryOperator": "trapezoid",
            "outputMappings": {
                "hourly_ms": {
                    "o1": "o1"
                }
            }
        },
        {
            "id": "output",
            "type": "Output",
            "portTypes": [
                "number"                
            ]
        }
    ],
    "connections": [
        {
            "from": "input",
            "to": "hi_input_cutoff",
            "fromPort": "o1",
            "toPort": "i1"           
        },
        {
            "from": "input",
            "to": "lo_input_cutoff",
            "fromPort": "o2",
            "toPort": "i1"
        },
        {
            "from": "hi_input_cutoff",
            "to": "hiresampler"
        },
        {
            "from": "lo_input_cutoff",
            "to": "loresampler"
        },
        {
            "from": "hiresampler",
            "to": "hiresampler_cutoff"
        },
        {
            "from": "hiresampler_cutoff",
            "to": "power1"
        },        
        {
            "from": "loresampler",
            "to": "loresampler_cutoff"
        },
        {
            "from": "loresampler_cutoff",
            "to": "power2"
        },
        {
            "from": "power1",
            "to": "power1_cutoff"
        },
        {
            "from": "power2",
            "to": "power2_cutoff"
        },        
        {
            "from": "power1_cutoff",
            "to": "total_power",
            "fromPort": "o1",
            "toPort": "i1"
        },
        {
            "from": "power2_cutoff",
            "to": "total_power",
            "fromPort": "o1",
            "toPort": "i2"
        },
        {
            "from": "total_power",
            "to": "total_power_cutoff"
        },
        {
            "from": "total_power_cutoff",
            "to": "hourly"
        },
        {
            "from": "input",
            "to": "hourly",
            "fromPort": "o3",
            "toPort": "c1"
        },
        {
            "from": "hourly",
            "to": "output",
            "fromPort": "o1",
            "toPort": "i1"
        }
    ],
    "entryOperator": "input",
    "output": {
        "output": [
            "o1"
        ]
    },
    "title": "Power Consumption Monitor with Multiple Averages",
    "description": "Calculates hourly power consumption from two current inputs"
}$$::pipeline AS p;
CREATE TEMP TABLE power_rows AS
SELECT n, 5 * n AS s,
       CASE WHEN n <= 60 AND ((n - 1) / 15 + 1) % 2 = 1 THEN ARRAY[30.23, 10.5802]
            ELSE ARRAY[0.01, 0.01] END::float8[] AS v,
       CASE WHEN n > 60 THEN 5 ELSE (n - 1) / 15 + 1 END AS h
FROM generate_series(1, 61) AS n;
SELECT p::text::pipeline = p AS reads_back FROM power;
SELECT n, s, h, r FROM (
  SELECT n, s, h, segment_agg(at(s), v, h, (SELECT p FROM power)) OVER (ORDER BY n) AS r FROM power_rows) AS q
WHERE r IS NOT NULL ORDER BY n;
SELECT ts, key, port, value FROM emissions((SELECT pipeline_agg(at(s), v, h, (SELECT p FROM power) ORDER BY n)
                                            FROM power_rows));

-- Resumed after any row, through the text form: the same state and
-- emissions as the whole run, for both programs.
CREATE FUNCTION mesh_em_of(p pipeline) RETURNS text[] LANGUAGE sql
  AS $$ SELECT ARRAY(SELECT e::text FROM emissions(p) AS e) $$;
SELECT count(*) AS cuts,
       bool_and((whole::text::jsonb #- '{state,emissions}') = (resumed::text::jsonb #- '{state,emissions}')) AS same_state,
       bool_and(mesh_em_of(first) || mesh_em_of(resumed) = mesh_em_of(whole)) AS same_emissions,
       max(cardinality(mesh_em_of(whole))) AS emissions
FROM generate_series(1, 60) AS cut,
  LATERAL (SELECT pipeline_agg(at(s), v, h, (SELECT p FROM power) ORDER BY n) AS whole FROM power_rows) AS w,
  LATERAL (SELECT pipeline_agg(at(s), v, h, (SELECT p FROM power) ORDER BY n) AS first FROM power_rows WHERE n <= cut) AS f,
  LATERAL (SELECT pipeline_agg(at(s), v, h, first::text::pipeline ORDER BY n) AS resumed
           FROM power_rows WHERE n > cut) AS r;
SELECT count(*) AS cuts,
       bool_and((whole::text::jsonb #- '{state,emissions}') = (resumed::text::jsonb #- '{state,emissions}')) AS same_state,
       bool_and(mesh_em_of(first) || mesh_em_of(resumed) = mesh_em_of(whole)) AS same_emissions,
       max(cardinality(mesh_em_of(whole))) AS emissions
FROM generate_series(1, 5) AS cut,
  LATERAL (SELECT pipeline_agg(at(i), ARRAY[i]::float8[], k, (SELECT p FROM runmax) ORDER BY i) AS whole FROM runmax_rows) AS w,
  LATERAL (SELECT pipeline_agg(at(i), ARRAY[i]::float8[], k, (SELECT p FROM runmax) ORDER BY i) AS first
           FROM runmax_rows WHERE i <= cut) AS f,
  LATERAL (SELECT pipeline_agg(at(i), ARRAY[i]::float8[], k, first::text::pipeline ORDER BY i) AS resumed
           FROM runmax_rows WHERE i > cut) AS r;
-- segment_agg starts each partition from the state a spec carries: from
-- the state after row 3 (run 6, total 3, the Pipeline's open maximum 6),
-- rows 4..6 give on row 5 the maximum 10 and total 13, and with
-- close_at_end on row 6 21 and 34, as the whole run does.
SELECT i, segment_agg(ARRAY[i]::float8[], k, (SELECT pipeline_agg(at(j), ARRAY[j]::float8[], m, (SELECT p FROM runmax) ORDER BY j)
                                             FROM runmax_rows AS q(j, m) WHERE j <= 3), close_at_end => true) OVER (ORDER BY i)
FROM runmax_rows WHERE i > 3 ORDER BY i;

-- Hostile stored states are refused (22P02), naming the field: an outside
-- operator's field of the wrong kind, or missing; the Pipeline without a
-- key while its MaxTracker holds a state.
CREATE TEMP TABLE runmax_state AS
SELECT pipeline_agg(at(i), ARRAY[i]::float8[], k, (SELECT p FROM runmax) ORDER BY i)::text AS t
FROM runmax_rows WHERE i <= 5;
SELECT m, try_spec(replace(t, f, r)) FROM runmax_state,
  (VALUES ('outside field', '"run": {"sum": 15', '"run": {"sum": "x"'),
          ('outside field missing', '"total": {"sum": 13, ', '"total": {'),
          ('Pipeline without key', '"p": {"has_key": 1', '"p": {"has_key": 0')) AS x(m, f, r);

-- flush() closes the open segment: the Pipeline emits 21 (the maximum of
-- run's 15 and 21) and total becomes 34; the value keeps no key, the
-- Pipeline reset, the outside operators' sums (21, 34) kept, and reads back.
-- A later run goes on from them: rows 7 (key 4) and 8 (key 5) make run
-- 28 and 36; row 8 closes key 4's segment, maximum 28, total 62.
CREATE TEMP TABLE runmax_flushed AS
SELECT flush(pipeline_agg(at(i), ARRAY[i]::float8[], k, (SELECT p FROM runmax) ORDER BY i)) AS p
FROM runmax_rows;
SELECT ts, key, port, value FROM emissions((SELECT p FROM runmax_flushed));
SELECT p::jsonb -> 'state' -> 'operators' FROM runmax_flushed;
SELECT p::text::pipeline = p AS reads_back FROM runmax_flushed;
SELECT ts, key, port, value FROM emissions((SELECT pipeline_agg(at(i), ARRAY[i]::float8[], k, p::text::pipeline ORDER BY i)
  FROM (VALUES (7, 4), (8, 5)) AS r(i, k), runmax_flushed GROUP BY p::text));
-- Without a key, the Pipeline's operators must be reset (the outside ones
-- need not); a program buffers nothing between rows.
SELECT try_spec(replace(p::text, '"max/count": 0, "max/extreme": 0', '"max/count": 1, "max/extreme": 5')) FROM runmax_flushed;
SELECT try_spec(replace(t, '"buffer": [null, null]', '"buffer": [1, null]')) FROM runmax_state;

-- Several Pipelines fed from the same Input, keyed by the same port: each
-- resets at a boundary, the operators outside them do not.  "p" keeps the
-- segment's maximum of the running sum (3, 10, 21, as above), "q" the
-- minimum of the values themselves (1, 3, 5), and "range", after both, their
-- difference on each boundary (2, 7, 16).
CREATE TEMP TABLE two_pipes AS SELECT $${
  "operators": [
    {"type": "Input", "id": "in", "portTypes": ["number", "number"]},
    {"type": "CumulativeSum", "id": "run"},
    {"type": "Pipeline", "id": "p", "operators": [{"type": "MaxTracker", "id": "max"}]},
    {"type": "Pipeline", "id": "q", "operators": [{"type": "MinTracker", "id": "min"}]},
    {"type": "Subtraction", "id": "range"}],
  "connections": [
    {"from": "in", "to": "run"}, {"from": "run", "to": "p"}, {"from": "in", "to": "q"},
    {"from": "in", "to": "p", "fromPort": "o2", "toPort": "c1"},
    {"from": "in", "to": "q", "fromPort": "o2", "toPort": "c1"},
    {"from": "p", "to": "range", "toPort": "i1"}, {"from": "q", "to": "range", "toPort": "i2"}],
  "entryOperator": "in",
  "output": {"p": ["o1"], "q": ["o1"], "range": ["o1"]}}$$::pipeline AS p;
SELECT p::text::pipeline = p AS reads_back FROM two_pipes;
SELECT i, segment_agg(ARRAY[i]::float8[], k, (SELECT p FROM two_pipes), close_at_end => true) OVER (ORDER BY i)
FROM runmax_rows ORDER BY i;
SELECT count(*) AS cuts,
       bool_and((whole::text::jsonb #- '{state,emissions}') = (resumed::text::jsonb #- '{state,emissions}')) AS same_state,
       bool_and(mesh_em_of(first) || mesh_em_of(resumed) = mesh_em_of(whole)) AS same_emissions,
       max(cardinality(mesh_em_of(whole))) AS emissions
FROM generate_series(1, 5) AS cut,
  LATERAL (SELECT pipeline_agg(at(i), ARRAY[i]::float8[], k, (SELECT p FROM two_pipes) ORDER BY i) AS whole FROM runmax_rows) AS w,
  LATERAL (SELECT pipeline_agg(at(i), ARRAY[i]::float8[], k, (SELECT p FROM two_pipes) ORDER BY i) AS first
           FROM runmax_rows WHERE i <= cut) AS f,
  LATERAL (SELECT pipeline_agg(at(i), ARRAY[i]::float8[], k, first::text::pipeline ORDER BY i) AS resumed
           FROM runmax_rows WHERE i > cut) AS r;
-- flushed, both Pipelines reset and the value reads back
SELECT flush(pipeline_agg(at(i), ARRAY[i]::float8[], k, (SELECT p FROM two_pipes) ORDER BY i))::text::pipeline IS NOT NULL AS reads_back
FROM runmax_rows;

-- A results table maintained on insert runs a program with operators
-- outside its Pipeline, their state kept between statements: per sensor,
-- the running sum of its readings before a Pipeline of each UTC day's
-- maximum.  Day 1: 10, 14 (sums 10, 24); day 2: 12 (36), written at the
-- day-2 reading: 24.  Then 15 on day 2 (51) and 1 on day 3 (52): day 2's
-- maximum 51, written at the day-3 reading; the sum went on from 36.
SET TimeZone = 'UTC';
CREATE TABLE mesh_readings (id bigserial PRIMARY KEY, sensor_id int NOT NULL,
                            ts timestamptz NOT NULL, v float8);
INSERT INTO mesh_readings (sensor_id, ts, v) VALUES
  (1, '2026-03-01 08:00+00', 10), (1, '2026-03-01 16:00+00', 14), (1, '2026-03-02 08:00+00', 12);
SELECT segpipe_maintain('mesh_readings', 'sensor_id', 'ts', 'v', 'ts::date', $${
  "operators": [
    {"type": "Input", "id": "in", "portTypes": ["number", "number"]},
    {"type": "CumulativeSum", "id": "run"},
    {"type": "Pipeline", "id": "daily_max", "operators": [{"type": "MaxTracker", "id": "max"}]},
    {"type": "Output", "id": "out", "portTypes": ["number"]}],
  "connections": [
    {"from": "in", "to": "run", "fromPort": "o1"}, {"from": "run", "to": "daily_max"},
    {"from": "in", "to": "daily_max", "fromPort": "o2", "toPort": "c1"},
    {"from": "daily_max", "to": "out"}],
  "entryOperator": "in", "output": {"out": ["o1"]}}$$, 'mesh_daily') IS NOT NULL AS maintained;
SELECT sensor_id, ts, key, port, value FROM mesh_daily ORDER BY sensor_id, ts;
INSERT INTO mesh_readings (sensor_id, ts, v) VALUES (1, '2026-03-02 10:00+00', 15), (1, '2026-03-03 08:00+00', 1);
SELECT sensor_id, ts, key, port, value FROM mesh_daily ORDER BY sensor_id, ts;
RESET TimeZone;

-- What SQL cannot express is refused (0A000), saying why and what to write.
CREATE TEMP TABLE mesh_parts AS SELECT
  '{"type": "Input", "id": "in", "portTypes": ["number", "number"]}'::text AS input,
  '{"type": "Pipeline", "id": "p", "operators": [{"type": "MaxTracker", "id": "m"}]}'::text AS pipe,
  '{"from": "in", "to": "p", "fromPort": "o2", "toPort": "c1"}'::text AS key;
-- an operator after the Pipeline fed by the Input
SELECT try_spec(format('{"operators": [%s, %s, {"type": "Addition", "id": "a"}], "connections": [%s,
  {"from": "in", "to": "p"}, {"from": "p", "to": "a"}, {"from": "in", "to": "a", "toPort": "i2"}],
  "entryOperator": "in", "output": {"a": ["o1"]}}', input, pipe, key)) FROM mesh_parts;
-- an operator neither before nor after the Pipeline
SELECT try_spec(format('{"operators": [%s, %s, {"type": "Scale", "id": "s", "value": 2}], "connections": [%s,
  {"from": "in", "to": "p"}, {"from": "in", "to": "s"}], "entryOperator": "in", "output": {"p": ["o1"]}}',
  input, pipe, key)) FROM mesh_parts;
-- "c1" fed by an operator; the key port feeding an operator
SELECT try_spec(format('{"operators": [%s, %s, {"type": "Floor", "id": "f"}], "connections": [
  {"from": "in", "to": "f", "fromPort": "o2"}, {"from": "f", "to": "p", "toPort": "c1"}, {"from": "in", "to": "p"}],
  "entryOperator": "in", "output": {"p": ["o1"]}}', input, pipe)) FROM mesh_parts;
SELECT try_spec(format('{"operators": [%s, %s, {"type": "Scale", "id": "s", "value": 2}], "connections": [%s,
  {"from": "in", "to": "s", "fromPort": "o2"}, {"from": "s", "to": "p"}], "entryOperator": "in", "output": {"p": ["o1"]}}',
  input, pipe, key)) FROM mesh_parts;
-- an operator before the Pipeline as a program output
SELECT try_spec(format('{"operators": [%s, %s, {"type": "Scale", "id": "s", "value": 2}], "connections": [%s,
  {"from": "in", "to": "s"}, {"from": "s", "to": "p"}], "entryOperator": "in", "output": {"s": ["o1"]}}',
  input, pipe, key)) FROM mesh_parts;
-- two Pipelines keyed by different Input ports; an operator between two
-- Pipelines; a Pipeline fed by another
SELECT try_spec(format('{"operators": [{"type": "Input", "id": "in", "portTypes": ["number", "number", "number"]}, %s, %s],
  "connections": [%s, {"from": "in", "to": "p"}, {"from": "in", "to": "q"}, {"from": "in", "to": "q", "fromPort": "o3", "toPort": "c1"}],
  "entryOperator": "in", "output": {"p": ["o1"], "q": ["o1"]}}', pipe, replace(pipe, '"p"', '"q"'), key)) FROM mesh_parts;
SELECT try_spec(format('{"operators": [%s, %s, %s, {"type": "Scale", "id": "s", "value": 2}], "connections": [%s,
  {"from": "in", "to": "p"}, {"from": "p", "to": "s"}, {"from": "s", "to": "q"}, {"from": "in", "to": "q", "fromPort": "o2", "toPort": "c1"}],
  "entryOperator": "in", "output": {"q": ["o1"]}}', input, pipe, replace(pipe, '"p"', '"q"'), key)) FROM mesh_parts;
SELECT try_spec(format('{"operators": [%s, %s, %s], "connections": [%s,
  {"from": "in", "to": "p"}, {"from": "p", "to": "q"}, {"from": "in", "to": "q", "fromPort": "o2", "toPort": "c1"}],
  "entryOperator": "in", "output": {"q": ["o1"]}}', input, pipe, replace(pipe, '"p"', '"q"'), key)) FROM mesh_parts;
-- vectors outside the Pipeline
SELECT try_spec(format('{"operators": [%s, %s, {"type": "VectorCompose", "id": "c", "numPorts": 1}, {"type": "VectorExtract", "id": "x", "index": 0}],
  "connections": [%s, {"from": "in", "to": "c"}, {"from": "c", "to": "x"}, {"from": "x", "to": "p"}],
  "entryOperator": "in", "output": {"p": ["o1"]}}', input, pipe, key)) FROM mesh_parts;
-- and what is wrong (22023): an outside operator's port left unconnected,
-- its id the Input's
SELECT try_spec(format('{"operators": [%s, %s, {"type": "Addition", "id": "a"}], "connections": [%s,
  {"from": "in", "to": "a"}, {"from": "a", "to": "p"}], "entryOperator": "in", "output": {"p": ["o1"]}}',
  input, pipe, key)) FROM mesh_parts;
SELECT try_spec(format('{"operators": [%s, %s, {"type": "Scale", "id": "in", "value": 2}], "connections": [%s,
  {"from": "in", "to": "p"}], "entryOperator": "in", "output": {"p": ["o1"]}}', input, pipe, key)) FROM mesh_parts;
-- a Pipeline among outside operators closes each segment afresh: an
-- operator in it that carries values into the next segment is refused
-- (0A000), where the same Pipeline alone as the call's spec carries
SELECT try_spec(format('{"operators": [%s, {"type": "Pipeline", "id": "p", "operators": [{"type": "TimeWeightedAverage", "id": "w", "method": "locf", "carry": "locf"}]},
  {"type": "Scale", "id": "s", "value": 2}], "connections": [%s, {"from": "in", "to": "s"}, {"from": "s", "to": "p"}],
  "entryOperator": "in", "output": {"p": ["o1"]}}', input, key)) FROM mesh_parts;
SELECT try_spec('{"type": "Pipeline", "id": "p", "operators": [{"type": "TimeWeightedAverage", "id": "w", "method": "locf", "carry": "locf"}]}');
DROP FUNCTION mesh_em_of(pipeline);
