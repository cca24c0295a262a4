-- Programs as the original writes them: an Input, one Pipeline and an
-- Output, wired at the program level with the Pipeline's control port
-- "c1".  A program is the configuration of the Pipeline it holds: the key
-- argument plays the Input port wired to "c1", the value the others.
-- Expected values by hand.
\pset format unaligned
\pset null 'null'

-- The original's "Day-Scoped Moving Average", verbatim.
CREATE TEMP TABLE day_ma_program AS SELECT $${
  "operators": [
    {"type": "Input", "id": "input1", "portTypes": ["number", "number"]},
    {
      "type": "Pipeline",
      "id": "daily_ma",
      "input_port_types": ["number"],
      "output_port_types": ["number"],
      "operators": [
        {"type": "MovingAverage", "id": "ma", "window_size": 10}
      ],
      "connections": [],
      "entryOperator": "ma",
      "outputMappings": {
        "ma": {"o1": "o1"}
      }
    },
    {"type": "Output", "id": "output1", "portTypes": ["number"]}
  ],
  "connections": [
    {"from": "input1", "to": "daily_ma", "fromPort": "o1", "toPort": "i1"},
    {"from": "input1", "to": "daily_ma", "fromPort": "o2", "toPort": "c1"},
    {"from": "daily_ma", "to": "output1", "fromPort": "o1", "toPort": "i1"}
  ],
  "entryOperator": "input1",
  "output": { "output1": ["o1"] }
}$$::text AS spec;

-- It reads as its Pipeline: the canonical text is the plain spec's, byte
-- for byte, and the two values are equal.
SELECT spec::pipeline FROM day_ma_program;
SELECT spec::pipeline::text = '{"type": "Pipeline", "id": "daily_ma",
   "input_port_types": ["number"], "output_port_types": ["number"],
   "operators": [{"type": "MovingAverage", "id": "ma", "window_size": 10}],
   "connections": [], "entryOperator": "ma",
   "outputMappings": {"ma": {"o1": "o1"}}}'::pipeline::text AS same_text,
       spec::pipeline = '{"type": "Pipeline", "id": "daily_ma",
   "operators": [{"type": "MovingAverage", "id": "ma", "window_size": 10}],
   "entryOperator": "ma"}'::pipeline AS same_value
FROM day_ma_program;

-- Day 0 holds rows 1..12 (values 1..12), day 1 rows 13..22 (values 1..10),
-- day 2 one row.  The moving average of the last 10 is emitted on the
-- first row of the next day: day 0's last window is 3..12, mean 7.5; day
-- 1's is 1..10, mean 5.5; day 2 has 1 row, not a full window: nothing,
-- at the end of the partition.  The plain spec gives the same rows.
CREATE TEMP TABLE day_rows AS
SELECT i, CASE WHEN i <= 12 THEN i ELSE i - 12 END::float8 AS v, (i - 1) / 12 + (i > 22)::int AS day
FROM generate_series(1, 23) AS i;
SELECT i, day, program, plain FROM (
  SELECT i, day, segment_agg(v, day, (SELECT spec FROM day_ma_program)::pipeline) OVER (ORDER BY i) AS program,
         segment_agg(v, day, '{"type": "Pipeline", "id": "daily_ma",
     "operators": [{"type": "MovingAverage", "id": "ma", "window_size": 10}],
     "entryOperator": "ma"}') OVER (ORDER BY i) AS plain
  FROM day_rows) AS s
WHERE program IS NOT NULL OR plain IS NOT NULL
ORDER BY i;

-- The same through pipeline_agg, the aggregate that stores its state: the
-- program's value and the plain spec's have the same bytes once run.
SELECT pipeline_agg(at(i), v, day, (SELECT spec FROM day_ma_program)::pipeline ORDER BY i)
     = pipeline_agg(at(i), v, day, '{"type": "Pipeline", "id": "daily_ma",
   "operators": [{"type": "MovingAverage", "id": "ma", "window_size": 10}],
   "entryOperator": "ma"}'::pipeline ORDER BY i) AS same_run
FROM day_rows;
SELECT ts, key, port, value FROM emissions((SELECT pipeline_agg(at(i), v, day,
  (SELECT spec FROM day_ma_program)::pipeline ORDER BY i) FROM day_rows));

-- The original's test of a Pipeline in a program: MovingAverage(3) into
-- StandardDeviation(3), values 3t on rows t = 1..5 with key 1, then key 2.
-- The averages 6, 9, 12 have sample standard deviation 3, emitted on row 6.
-- With only four rows of key 1 (averages 6 and 9) nothing is buffered, and
-- the boundary emits nothing.
CREATE TEMP TABLE ma_std AS SELECT $${
  "operators": [
    {"type": "Input", "id": "input1", "portTypes": ["number", "number"]},
    {"type": "Pipeline", "id": "pipeline1",
     "input_port_types": ["number"], "output_port_types": ["number"],
     "operators": [{"type": "MovingAverage", "id": "ma1", "window_size": 3},
                   {"type": "StandardDeviation", "id": "std1", "window_size": 3}],
     "connections": [{"from": "ma1", "to": "std1", "fromPort": "o1", "toPort": "i1"}],
     "entryOperator": "ma1", "outputMappings": {"std1": {"o1": "o1"}}},
    {"type": "Output", "id": "output1", "portTypes": ["number"]}],
  "connections": [
    {"from": "input1", "to": "pipeline1", "fromPort": "o1", "toPort": "i1"},
    {"from": "input1", "to": "pipeline1", "fromPort": "o2", "toPort": "c1"},
    {"from": "pipeline1", "to": "output1", "fromPort": "o1", "toPort": "i1"}],
  "entryOperator": "input1",
  "output": {"output1": ["o1"]}}$$::pipeline AS p;
SELECT t, segment_agg(3.0 * t, CASE WHEN t <= 5 THEN 1 ELSE 2 END, (SELECT p FROM ma_std)) OVER (ORDER BY t)
FROM generate_series(1, 6) AS t;
SELECT t, segment_agg(3.0 * t, CASE WHEN t <= 4 THEN 1 ELSE 2 END, (SELECT p FROM ma_std)) OVER (ORDER BY t)
FROM generate_series(1, 5) AS t;

-- The key port need not be the Input's last: here o1 is the key, o2 and o3
-- the data, which feed the Pipeline's i1 and i2 in that order, so the
-- value's elements do.  Without an Output, the program's output names the
-- Pipeline's ports directly, here reordered: the program's o1 is the
-- Pipeline's o2 (the count), its o2 the Pipeline's o1 (the running sum of
-- differences a - b).  Rows (5, 2), (4, 1) with key 1, then (0, 0) with
-- key 2 closing: differences 3, 3, sum 6, count 2.
CREATE TEMP TABLE reordered AS SELECT $${
  "operators": [
    {"type": "Input", "id": "in", "portTypes": ["number", "number", "number"]},
    {"type": "Pipeline", "id": "p",
     "input_port_types": ["number", "number"], "output_port_types": ["number", "number"],
     "operators": [{"type": "Subtraction", "id": "sub"}, {"type": "CumulativeSum", "id": "sum"},
                   {"type": "CountNumber", "id": "n"}],
     "connections": [{"from": "sub", "to": "sum"}, {"from": "sub", "to": "n"}],
     "entryOperator": "sub", "outputMappings": {"sum": {"o1": "o1"}, "n": {"o1": "o2"}}}],
  "connections": [
    {"from": "in", "to": "p", "fromPort": "o1", "toPort": "c1"},
    {"from": "in", "to": "p", "fromPort": "o2", "toPort": "i1"},
    {"from": "in", "to": "p", "fromPort": "o3", "toPort": "i2"}],
  "entryOperator": "in",
  "output": {"p": ["o2", "o1"]}}$$::text AS spec;
SELECT spec::pipeline FROM reordered;
SELECT t, segment_agg(v, k, (SELECT spec FROM reordered)::pipeline) OVER (ORDER BY t)
FROM (VALUES (1, ARRAY[5, 2]::float8[], 1), (2, ARRAY[4, 1], 1), (3, ARRAY[0, 0], 2)) AS r(t, v, k);

-- Through an Output whose ports cross the Pipeline's, and naming only one
-- of them: the program's one output is the Output's o2, fed by the
-- Pipeline's o1 (the sum).
SELECT replace($${
  "operators": [
    {"type": "Input", "id": "in", "portTypes": ["number", "number", "number"]},
    {"type": "Pipeline", "id": "p",
     "input_port_types": ["number", "number"], "output_port_types": ["number", "number"],
     "operators": [{"type": "Subtraction", "id": "sub"}, {"type": "CumulativeSum", "id": "sum"},
                   {"type": "CountNumber", "id": "n"}],
     "connections": [{"from": "sub", "to": "sum"}, {"from": "sub", "to": "n"}],
     "entryOperator": "sub", "outputMappings": {"sum": {"o1": "o1"}, "n": {"o1": "o2"}}},
    {"type": "Output", "id": "out", "portTypes": ["number", "number"]}],
  "connections": [
    {"from": "in", "to": "p", "fromPort": "o1", "toPort": "c1"},
    {"from": "in", "to": "p", "fromPort": "o2", "toPort": "i1"},
    {"from": "in", "to": "p", "fromPort": "o3", "toPort": "i2"},
    {"from": "p", "to": "out", "fromPort": "o1", "toPort": "i2"},
    {"from": "p", "to": "out", "fromPort": "o2", "toPort": "i1"}],
  "entryOperator": "in",
  "output": {"out": ["o2"]}}$$, E'\n', '')::pipeline;

-- What is refused, and how.  A program's SQLSTATE is 22023 when it is
-- wrong, 0A000 when it is a program of the original that segpipe does not
-- run (more than the Input, one Pipeline and an Output).
CREATE TEMP TABLE prog_parts AS SELECT
  '{"type": "Input", "id": "in", "portTypes": ["number", "number"]}'::text AS input,
  '{"type": "Pipeline", "id": "p", "operators": [{"type": "MaxTracker", "id": "m"}], "entryOperator": "m"}'::text AS pipe,
  '{"from": "in", "to": "p", "fromPort": "o1", "toPort": "i1"}'::text AS data,
  '{"from": "in", "to": "p", "fromPort": "o2", "toPort": "c1"}'::text AS control;
-- no "c1": the key has nowhere to go
SELECT try_spec(format('{"operators": [%s, %s], "connections": [%s], "entryOperator": "in", "output": {"p": ["o1"]}}',
                       input, pipe, data)) FROM prog_parts;
-- the Input's data ports out of order
SELECT try_spec(format('{"operators": [%s, %s], "connections": [%s, %s], "entryOperator": "in", "output": {"p": ["o1"]}}',
                       '{"type": "Input", "id": "in", "portTypes": ["number", "number", "number"]}',
                       '{"type": "Pipeline", "id": "p", "operators": [{"type": "Addition", "id": "a"}], "entryOperator": "a"}',
                       '{"from": "in", "to": "p", "fromPort": "o1", "toPort": "i2"}, {"from": "in", "to": "p", "fromPort": "o2", "toPort": "i1"}',
                       '{"from": "in", "to": "p", "fromPort": "o3", "toPort": "c1"}'));
-- an Input port left over
SELECT try_spec(format('{"operators": [%s, %s], "connections": [%s, %s], "entryOperator": "in", "output": {"p": ["o1"]}}',
                       '{"type": "Input", "id": "in", "portTypes": ["number", "number", "number"]}', pipe, data, control)) FROM prog_parts;
-- one Input port feeding both the data and the control
SELECT try_spec(format('{"operators": [%s, %s], "connections": [%s, %s], "entryOperator": "in", "output": {"p": ["o1"]}}',
                       input, pipe, data, '{"from": "in", "to": "p", "fromPort": "o1", "toPort": "c1"}')) FROM prog_parts;
-- "c2", and "c1" on the Output
SELECT try_spec(format('{"operators": [%s, %s], "connections": [%s, %s], "entryOperator": "in", "output": {"p": ["o1"]}}',
                       input, pipe, data, '{"from": "in", "to": "p", "fromPort": "o2", "toPort": "c2"}')) FROM prog_parts;
-- a boolean Input port on the control
SELECT try_spec(format('{"operators": [%s, %s], "connections": [%s, %s], "entryOperator": "in", "output": {"p": ["o1"]}}',
                       '{"type": "Input", "id": "in", "portTypes": ["number", "boolean"]}', pipe, data, control)) FROM prog_parts;
-- an operator outside the Pipeline that is not wired (a program may have
-- them: program_mesh); an unknown type; two Pipelines, the second without
-- its key
SELECT try_spec(format('{"operators": [%s, %s, {"type": "Scale", "id": "s", "value": 2}], "connections": [%s, %s], "entryOperator": "in", "output": {"p": ["o1"]}}',
                       input, pipe, data, control)) FROM prog_parts;
SELECT try_spec(format('{"operators": [%s, %s, {"type": "Ouptut", "id": "o", "portTypes": ["number"]}], "connections": [%s, %s], "entryOperator": "in", "output": {"p": ["o1"]}}',
                       input, pipe, data, control)) FROM prog_parts;
SELECT try_spec(format('{"operators": [%s, %s, %s], "connections": [%s, %s], "entryOperator": "in", "output": {"p": ["o1"]}}',
                       input, pipe, replace(pipe, '"p"', '"q"'), data, control)) FROM prog_parts;
-- no Pipeline; no Input
SELECT try_spec('{"operators": [{"type": "Input", "id": "in", "portTypes": ["number"]}, {"type": "Output", "id": "out", "portTypes": ["number"]}],
  "connections": [{"from": "in", "to": "out"}], "entryOperator": "in", "output": {"out": ["o1"]}}');
SELECT try_spec(format('{"operators": [%s], "connections": [], "entryOperator": "p", "output": {"p": ["o1"]}}', pipe)) FROM prog_parts;
-- a connection from the Input to the Output
SELECT try_spec(format('{"operators": [%s, %s, {"type": "Output", "id": "out", "portTypes": ["number"]}], "connections": [%s, %s, {"from": "in", "to": "out"}], "entryOperator": "in", "output": {"out": ["o1"]}}',
                       input, pipe, data, control)) FROM prog_parts;
-- the entry operator must be the Input
SELECT try_spec(format('{"operators": [%s, %s], "connections": [%s, %s], "entryOperator": "p", "output": {"p": ["o1"]}}',
                       input, pipe, data, control)) FROM prog_parts;
-- "output" missing, naming a port that does not exist, or the Input; an
-- Output port fed by nothing
SELECT try_spec(format('{"operators": [%s, %s], "connections": [%s, %s], "entryOperator": "in"}',
                       input, pipe, data, control)) FROM prog_parts;
SELECT try_spec(format('{"operators": [%s, %s], "connections": [%s, %s], "entryOperator": "in", "output": {"p": ["o2"]}}',
                       input, pipe, data, control)) FROM prog_parts;
SELECT try_spec(format('{"operators": [%s, %s], "connections": [%s, %s], "entryOperator": "in", "output": {"in": ["o1"]}}',
                       input, pipe, data, control)) FROM prog_parts;
SELECT try_spec(format('{"operators": [%s, %s, {"type": "Output", "id": "out", "portTypes": ["number", "number"]}], "connections": [%s, %s, {"from": "p", "to": "out"}], "entryOperator": "in", "output": {"out": ["o2"]}}',
                       input, pipe, data, control)) FROM prog_parts;
-- the same Pipeline port twice
SELECT try_spec(format('{"operators": [%s, %s], "connections": [%s, %s], "entryOperator": "in", "output": {"p": ["o1", "o1"]}}',
                       input, pipe, data, control)) FROM prog_parts;
-- a misspelt program field, a misspelt Input parameter, a vector port feeding a number port
SELECT try_spec(format('{"operators": [%s, %s], "connections": [%s, %s], "entryOperator": "in", "outputs": {"p": ["o1"]}}',
                       input, pipe, data, control)) FROM prog_parts;
SELECT try_spec(format('{"operators": [%s, %s], "connections": [%s, %s], "entryOperator": "in", "output": {"p": ["o1"]}}',
                       '{"type": "Input", "id": "in", "port_types": ["number", "number"]}', pipe, data, control)) FROM prog_parts;
SELECT try_spec(format('{"operators": [%s, %s], "connections": [%s, %s], "entryOperator": "in", "output": {"p": ["o1"]}}',
                       '{"type": "Input", "id": "in", "portTypes": ["vector_number", "number"]}', pipe, data, control)) FROM prog_parts;
-- an error inside the Pipeline says where it is
SELECT try_spec(format('{"operators": [%s, %s], "connections": [%s, %s], "entryOperator": "in", "output": {"p": ["o1"]}}',
                       input, replace(pipe, 'MaxTracker', 'MaxTraker'), data, control)) FROM prog_parts;

-- A results table maintained on insert takes a program as it takes a spec:
-- the maximum of each UTC day, written when the sensor's first reading of
-- a later day arrives.  Day 2026-03-01 of sensor 1 has 10 and 14: 14,
-- written at the day-2 reading (08:00); after an insert on day 3, day 2's
-- 12 and 15 give 15.
SET TimeZone = 'UTC';
CREATE TABLE prog_readings (id bigserial PRIMARY KEY, sensor_id int NOT NULL,
                            ts timestamptz NOT NULL, v float8);
INSERT INTO prog_readings (sensor_id, ts, v) VALUES
  (1, '2026-03-01 08:00+00', 10), (1, '2026-03-01 16:00+00', 14), (1, '2026-03-02 08:00+00', 12);
SELECT segpipe_maintain('prog_readings', 'sensor_id', 'ts', 'v', 'ts::date', $${
  "operators": [
    {"type": "Input", "id": "in", "portTypes": ["number", "number"]},
    {"type": "Pipeline", "id": "daily_max", "operators": [{"type": "MaxTracker", "id": "max"}]},
    {"type": "Output", "id": "out", "portTypes": ["number"]}],
  "connections": [
    {"from": "in", "to": "daily_max", "fromPort": "o1", "toPort": "i1"},
    {"from": "in", "to": "daily_max", "fromPort": "o2", "toPort": "c1"},
    {"from": "daily_max", "to": "out"}],
  "entryOperator": "in", "output": {"out": ["o1"]}}$$, 'prog_daily') IS NOT NULL AS maintained;
SELECT sensor_id, ts, key, port, value FROM prog_daily ORDER BY sensor_id, ts;
INSERT INTO prog_readings (sensor_id, ts, v) VALUES (1, '2026-03-02 10:00+00', 15), (1, '2026-03-03 08:00+00', 1);
SELECT sensor_id, ts, key, port, value FROM prog_daily ORDER BY sensor_id, ts;
RESET TimeZone;
