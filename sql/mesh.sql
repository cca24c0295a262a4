-- Meshes of several operators: connections, entry operator, execution in
-- dependency order, several output ports.  Expected values by hand.
\pset format unaligned
\pset null 'null'

-- Two operators in a chain: the cumulative sum of a 2-row moving average.
-- MovingAverage produces 2, 4, 6 from row 2 on; CumulativeSum runs only on
-- rows where its input produced, so it sees 2, 4, 6.
SELECT trace('{"type": "Pipeline",
  "operators": [{"type": "MovingAverage", "id": "ma", "window_size": 2},
                {"type": "CumulativeSum", "id": "sum"}],
  "connections": [{"from": "ma", "to": "sum", "fromPort": "o1", "toPort": "i1"}],
  "entryOperator": "ma", "outputMappings": {"sum": {"o1": "o1"}}}', '{1, 3, 5, 7}');

-- Three operators, listed in an order other than the data flow: the
-- standard deviation of three consecutive moving averages.  Inputs 1 3 3 5
-- give averages 2, 3, 4, whose standard deviation is 1.
SELECT trace('{"type": "Pipeline",
  "operators": [{"type": "StandardDeviation", "id": "sd", "window_size": 3},
                {"type": "MovingAverage", "id": "ma", "window_size": 2},
                {"type": "Identity", "id": "src"}],
  "connections": [{"from": "ma", "to": "sd"}, {"from": "src", "to": "ma"}],
  "entryOperator": "src", "outputMappings": {"sd": {"o1": "o1"}}}', '{1, 3, 3, 5}');

-- Fan-out to three output ports, emitted in port order whatever the order
-- of the mappings.  Segment 1 (2, 4): sum 6, count 2, last 4; segment 2
-- (6, 1): sum 7, count 2, last 1, closed by punctuation.
SELECT ts, segment_agg(v, k, '{"type": "Pipeline",
  "output_port_types": ["number", "number", "number"],
  "operators": [{"type": "Identity", "id": "in"}, {"type": "CumulativeSum", "id": "sum"},
                {"type": "CountNumber", "id": "cnt"}],
  "connections": [{"from": "in", "to": "sum"}, {"from": "in", "to": "cnt"}],
  "entryOperator": "in",
  "outputMappings": {"cnt": {"o1": "o2"}, "in": {"o1": "o3"}, "sum": {"o1": "o1"}}}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[2]::float8[], 1), (2, ARRAY[4], 1), (3, ARRAY[6], 2), (4, ARRAY[1], 2),
             (5, NULL, 3)) AS t(ts, v, k);

-- Only ports whose buffer holds a value emit: MovingAverage(3) is not full
-- in a 2-row segment, so port 1 is NULL while port 2 has the count.  In the
-- 3-row segment port 1 holds the average of the last row.
SELECT ts, segment_agg(v, k, '{"type": "Pipeline",
  "output_port_types": ["number", "number"],
  "operators": [{"type": "Identity", "id": "in"},
                {"type": "MovingAverage", "id": "ma", "window_size": 3},
                {"type": "CountNumber", "id": "cnt"}],
  "connections": [{"from": "in", "to": "ma"}, {"from": "in", "to": "cnt"}],
  "entryOperator": "in",
  "outputMappings": {"ma": {"o1": "o1"}, "cnt": {"o1": "o2"}}}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[1]::float8[], 1), (2, ARRAY[2], 1), (3, ARRAY[3], 2), (4, ARRAY[6], 2),
             (5, ARRAY[9], 2), (6, ARRAY[0], 3)) AS t(ts, v, k);

-- The scalar form returns output port 1 of a pipeline with several.
SELECT ts, segment_agg(v, k, '{"type": "Pipeline",
  "output_port_types": ["number", "number"],
  "operators": [{"type": "Identity", "id": "in"}, {"type": "CountNumber", "id": "cnt"}],
  "connections": [{"from": "in", "to": "cnt"}],
  "entryOperator": "in",
  "outputMappings": {"cnt": {"o1": "o1"}, "in": {"o1": "o2"}}}') OVER (ORDER BY ts)
FROM (VALUES (1, 10, 1), (2, 20, 1), (3, 30, 1), (4, 40, 2)) AS t(ts, v, k);

-- A chain whose first stage is not full yet feeds nothing downstream: the
-- count of moving averages is 2 after 4 rows of MovingAverage(3).
SELECT trace('{"type": "Pipeline",
  "operators": [{"type": "MovingAverage", "id": "ma", "window_size": 3},
                {"type": "CountNumber", "id": "n"}],
  "connections": [{"from": "ma", "to": "n"}],
  "entryOperator": "ma", "outputMappings": {"n": {"o1": "o1"}}}', '{1, 1, 1, 1}');

-- A moving average into a peak detector: MovingAverage(2) of 1 3 5 1 1 7 9 1
-- is 2 4 3 1 4 8 5 from row 2 on; PeakDetector(3) over those finds 4 (in
-- 2 4 3, at row 4) and 8 (in 4 8 5, at row 8).
SELECT trace('{"type": "Pipeline",
  "operators": [{"type": "MovingAverage", "id": "ma", "window_size": 2},
                {"type": "PeakDetector", "id": "peak", "window_size": 3}],
  "connections": [{"from": "ma", "to": "peak"}],
  "entryOperator": "ma", "outputMappings": {"peak": {"o1": "o1"}}}', '{1, 3, 5, 1, 1, 7, 9, 1}');

-- Five operators and a boolean stage: how often the 2-row average of |x|
-- exceeded 2.  |x| = 1 3 4 0 5, averages 2 3.5 2 2.5 from row 2, above 2:
-- 0 1 0 1, running count 0 1 1 2.
SELECT trace('{"type": "Pipeline",
  "operators": [{"type": "Abs", "id": "abs"},
                {"type": "MovingAverage", "id": "ma", "window_size": 2},
                {"type": "CompareGT", "id": "above", "value": 2},
                {"type": "BooleanToNumber", "id": "num"},
                {"type": "CumulativeSum", "id": "count"}],
  "connections": [{"from": "abs", "to": "ma"}, {"from": "ma", "to": "above"},
                  {"from": "above", "to": "num"}, {"from": "num", "to": "count"}],
  "entryOperator": "abs", "outputMappings": {"count": {"o1": "o1"}}}', '{-1, -3, 4, 0, -5}');
