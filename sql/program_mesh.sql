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
