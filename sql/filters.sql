-- Filters and comparisons (docs/reference.md, "Operators"): GreaterThan,
-- LessThan, EqualTo, NotEqualTo pass the rows that satisfy them and drop the
-- others; CompareGT, CompareLT, CompareGTE, CompareLTE, CompareEQ, CompareNEQ
-- emit a boolean on every row; BooleanToNumber turns a boolean into 1 / 0.
-- trace() (from setup.sql) shows, after prefix n, the value the output buffer
-- holds, or '-': for a filter, the last value that passed so far; booleans
-- show as 1 / 0.  Ordering is PostgreSQL's: NaN equals NaN and is greater
-- than every other value, Infinity included; -0 = 0.  Every expected value
-- was computed by hand.
\pset format unaligned
\pset null 'null'

-- GreaterThan passes x when x > value: not at the threshold itself.
SELECT trace('{"type": "GreaterThan", "value": 2}', '{1, 3, 2, 5, 0}');
-- NaN is greater than everything, so it passes; -Infinity never does.
SELECT trace('{"type": "GreaterThan", "value": 0}', '{-Infinity, NaN, 1, Infinity, -1}');
-- A fractional threshold is exact: the next float8 above -1.5 passes, and
-- -0 > -1.5 passes as -0.
SELECT trace('{"type": "GreaterThan", "value": -1.5}', '{-2, -1.5, -1.4999999999999998, -0}');
-- -0 equals 0, so it is not greater than 0.
SELECT trace('{"type": "GreaterThan", "value": 0}', '{-0, 0, 5e-324}');

-- LessThan passes x when x < value.
SELECT trace('{"type": "LessThan", "value": 2}', '{3, 2, 1, 5, -7}');
-- NaN and Infinity are not less than 0, nor is -0; -Infinity is.
SELECT trace('{"type": "LessThan", "value": 0}', '{NaN, Infinity, 0, -0, -Infinity, NaN}');
SELECT trace('{"type": "LessThan", "value": -1.5}', '{-1.5, -1.4999999999999998, -1.5000000000000002}');

-- EqualTo passes x when |x - value| <= epsilon, default 1e-10, and emits x
-- itself (not value): 1 + 1e-11 and 1 - 1e-11 pass, 1 + 1e-9 and 1.001 do
-- not.
SELECT trace('{"type": "EqualTo", "value": 1}', '{1.001, 1.000000001, 1.00000000001, 0.99999999999, 1, 0.999}');
-- NaN and the infinities are never within epsilon of a number; -0 is
-- equal to 0 and passes as -0.
SELECT trace('{"type": "EqualTo", "value": 0}', '{NaN, Infinity, -Infinity, -0, NaN}');
-- An explicit epsilon; both ends of [value - epsilon, value + epsilon]
-- pass (all values exact in binary).  |9.7 - 10| is 0.3000000000000007.
SELECT trace('{"type": "EqualTo", "value": 10, "epsilon": 0.25}', '{10.5, 10.25, 9.75, 9.5, 10, 9.7}');
-- epsilon 0 is exact equality: the neighbouring float8s of 3 do not pass,
-- while with the default epsilon they do.
SELECT trace('{"type": "EqualTo", "value": 3, "epsilon": 0}', '{3.0000000000000004, 3, 2.9999999999999996}');
SELECT trace('{"type": "EqualTo", "value": 3}', '{3.0000000000000004, 3, 2.9999999999999996}');

-- NotEqualTo passes exactly the rows EqualTo drops, NaN included.
SELECT trace('{"type": "NotEqualTo", "value": 1}', '{1, 1.00000000001, 1.001, 0.99999999999, NaN, 1}');
SELECT trace('{"type": "NotEqualTo", "value": 0}', '{-0, Infinity, 0, -Infinity}');
SELECT trace('{"type": "NotEqualTo", "value": 10, "epsilon": 0.25}', '{10.25, 9.75, 10.5, 10, 9.5}');
SELECT trace('{"type": "NotEqualTo", "value": 3, "epsilon": 0}', '{3, 3.0000000000000004, 3}');

-- The comparisons emit a boolean on every row, shown as 1 / 0.  Over
-- 1, 2, 3, NaN, Infinity, -Infinity against 2:
SELECT trace('{"type": "CompareGT", "value": 2}', '{1, 2, 3, NaN, Infinity, -Infinity}');
SELECT trace('{"type": "CompareLT", "value": 2}', '{1, 2, 3, NaN, Infinity, -Infinity}');
SELECT trace('{"type": "CompareGTE", "value": 2}', '{1, 2, 3, NaN, Infinity, -Infinity}');
SELECT trace('{"type": "CompareLTE", "value": 2}', '{1, 2, 3, NaN, Infinity, -Infinity}');
-- -0 equals 0; 5e-324 and -5e-324, the float8s nearest to 0, do not.
SELECT trace('{"type": "CompareGT", "value": 0}', '{-0, 5e-324}');
SELECT trace('{"type": "CompareLT", "value": 0}', '{-0, -5e-324, NaN}');
SELECT trace('{"type": "CompareGTE", "value": 0}', '{-0, -5e-324, NaN}');
SELECT trace('{"type": "CompareLTE", "value": 0}', '{-0, 5e-324, -Infinity}');

-- CompareEQ: |x - value| <= tolerance, default 0, so only 2 itself (not
-- its float8 neighbours) is equal to 2.  NaN and Infinity are not.
SELECT trace('{"type": "CompareEQ", "value": 2}', '{2, 2.0000000000000004, 1.9999999999999998, NaN, Infinity, -0}');
SELECT trace('{"type": "CompareEQ", "value": 0}', '{-0, 0, 1e-300, NaN}');
-- Unlike EqualTo, no tolerance for 1 + 1e-11 by default.
SELECT trace('{"type": "CompareEQ", "value": 1}', '{1.00000000001, 1}');
-- tolerance 0.5: 2.5 and 1.5 are at the edge and equal; the next float8s
-- outward (0.5000000000000004 and 0.5000000000000002 away) are not.
SELECT trace('{"type": "CompareEQ", "value": 2, "tolerance": 0.5}', '{2.5, 1.5, 2.5000000000000004, 1.4999999999999998, 2.1, NaN}');
-- CompareNEQ is the negation, NaN included.
SELECT trace('{"type": "CompareNEQ", "value": 2}', '{2, 2.0000000000000004, 1.9999999999999998, NaN, Infinity, -0}');
SELECT trace('{"type": "CompareNEQ", "value": 2, "tolerance": 0.5}', '{2.5, 1.5, 2.5000000000000004, 1.4999999999999998, 2.1, NaN}');

-- BooleanToNumber reads a boolean: as the shorthand's pipeline input port
-- is boolean, any non-zero value (NaN and the infinities included) is 1,
-- zero (and -0) is 0.
SELECT trace('{"type": "BooleanToNumber"}', '{0, 2.5, -1, NaN}');
SELECT trace('{"type": "BooleanToNumber"}', '{-0, Infinity, -Infinity, 5e-324, 0}');
-- The same as an explicit pipeline with a boolean input port.
SELECT trace('{"type": "Pipeline", "input_port_types": ["boolean"], "output_port_types": ["number"],
  "operators": [{"type": "BooleanToNumber", "id": "b2n"}],
  "entryOperator": "b2n", "outputMappings": {"b2n": {"o1": "o1"}}}', '{0, 2.5, -1, NaN}');

-- Filters at segment boundaries.  A filter's buffer keeps the last value
-- that passed in the segment, even when later rows of the segment do not
-- pass (ts 2, ts 7); a segment where nothing passed emits nothing (ts 5 for
-- GreaterThan, ts 8 for LessThan), and nothing is carried over from the
-- segment before.  The comparisons emit on every row, so a boundary emits
-- the comparison of the last row of the segment: 5 > 5 is false, 5 >= 5
-- is true.
SELECT ts,
       segment_agg(v, k, '{"type": "GreaterThan", "value": 5}') OVER w AS gt,
       segment_agg(v, k, '{"type": "LessThan", "value": 5}') OVER w AS lt,
       segment_agg(v, k, '{"type": "CompareGT", "value": 5}') OVER w AS cmp_gt,
       segment_agg(v, k, '{"type": "CompareGTE", "value": 5}') OVER w AS cmp_gte
FROM (VALUES (1, 7, 1), (2, 3, 1), (3, 1, 2), (4, 2, 2), (5, 9, 3), (6, 6, 3), (7, 5, 3),
             (8, 0, 4), (9, 10, 4), (10, 0, 5)) AS t(ts, v, k)
WINDOW w AS (ORDER BY ts);
-- The same for the equality family, with epsilon / tolerance 0.5 around 1.
-- Segment 1 (1.25, 3), segment 2 (0.5, 1.5), segment 3 (-1, NaN).
SELECT ts,
       segment_agg(v, k, '{"type": "EqualTo", "value": 1, "epsilon": 0.5}') OVER w AS eq,
       segment_agg(v, k, '{"type": "NotEqualTo", "value": 1, "epsilon": 0.5}') OVER w AS neq,
       segment_agg(v, k, '{"type": "CompareEQ", "value": 1, "tolerance": 0.5}') OVER w AS cmp_eq,
       segment_agg(v, k, '{"type": "CompareNEQ", "value": 1, "tolerance": 0.5}') OVER w AS cmp_neq
FROM (VALUES (1, 1.25::float8, 1), (2, 3, 1), (3, 0.5, 2), (4, 1.5, 2), (5, -1, 3),
             (6, 'NaN', 3), (7, 0, 4)) AS t(ts, v, k)
WINDOW w AS (ORDER BY ts);
-- A segment of a single row that does not pass emits nothing at the
-- punctuation that closes it; the one before emits its only passing value.
SELECT ts, segment_agg(v, k, '{"type": "EqualTo", "value": 4}') OVER (ORDER BY ts)
FROM (VALUES (1, 4, 1), (2, 4.5, 2), (3, NULL, 3)) AS t(ts, v, k);

-- Boolean ports.  A comparison's output is boolean and cannot feed a number
-- input: refused when the spec is read, naming the connection.
SELECT try_spec('{"type": "Pipeline",
  "operators": [{"type": "CompareGT", "id": "gt", "value": 50}, {"type": "CumulativeSum", "id": "sum"}],
  "connections": [{"from": "gt", "to": "sum"}],
  "entryOperator": "gt", "outputMappings": {"sum": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline",
  "operators": [{"type": "Identity", "id": "in"}, {"type": "CompareEQ", "id": "eq", "value": 0},
                {"type": "MovingAverage", "id": "ma", "window_size": 2}],
  "connections": [{"from": "in", "to": "eq"}, {"from": "eq", "to": "ma"}],
  "entryOperator": "in", "outputMappings": {"ma": {"o1": "o1"}}}');
-- Nor can a number output feed BooleanToNumber's boolean input.
SELECT try_spec('{"type": "Pipeline",
  "operators": [{"type": "Identity", "id": "in"}, {"type": "BooleanToNumber", "id": "num"}],
  "connections": [{"from": "in", "to": "num"}],
  "entryOperator": "in", "outputMappings": {"num": {"o1": "o1"}}}');
-- Through BooleanToNumber it is accepted.
SELECT try_spec('{"type": "Pipeline",
  "operators": [{"type": "CompareGT", "id": "gt", "value": 50}, {"type": "BooleanToNumber", "id": "num"},
                {"type": "CumulativeSum", "id": "sum"}],
  "connections": [{"from": "gt", "to": "num"}, {"from": "num", "to": "sum"}],
  "entryOperator": "gt", "outputMappings": {"sum": {"o1": "o1"}}}');
-- Counting the rows of each segment above 50 with CompareGT ->
-- BooleanToNumber -> CumulativeSum: segment 1 (40, 55, 60, 50) has 2 (50
-- is not above 50), segment 2 (70, 20) has 1, segment 3 (10, 50) has 0,
-- which is emitted (the sum ran on every row), segment 4 (51, NaN, 100)
-- has 3 (NaN is above everything), closed by punctuation.  The count
-- restarts at every boundary.  For contrast, GreaterThan -> CountNumber
-- counts the same rows, but in segment 3 nothing passed, CountNumber never
-- ran and nothing is emitted.
SELECT ts,
       segment_agg(v, k, '{"type": "Pipeline",
  "operators": [{"type": "CompareGT", "id": "hot", "value": 50}, {"type": "BooleanToNumber", "id": "num"},
                {"type": "CumulativeSum", "id": "count"}],
  "connections": [{"from": "hot", "to": "num"}, {"from": "num", "to": "count"}],
  "entryOperator": "hot", "outputMappings": {"count": {"o1": "o1"}}}') OVER w AS via_compare,
       segment_agg(v, k, '{"type": "Pipeline",
  "operators": [{"type": "GreaterThan", "id": "hot", "value": 50}, {"type": "CountNumber", "id": "count"}],
  "connections": [{"from": "hot", "to": "count"}],
  "entryOperator": "hot", "outputMappings": {"count": {"o1": "o1"}}}') OVER w AS via_filter
FROM (VALUES (1, 40::float8, 1::float8), (2, 55, 1), (3, 60, 1), (4, 50, 1), (5, 70, 2), (6, 20, 2),
             (7, 10, 3), (8, 50, 3), (9, 51, 4), (10, 'NaN', 4), (11, 100, 4),
             (12, NULL, 'Infinity')) AS t(ts, v, k)
WINDOW w AS (ORDER BY ts);
-- The running count, row by row, in one segment.
SELECT trace('{"type": "Pipeline",
  "operators": [{"type": "CompareGTE", "id": "c", "value": 0}, {"type": "BooleanToNumber", "id": "n"},
                {"type": "CumulativeSum", "id": "s"}],
  "connections": [{"from": "c", "to": "n"}, {"from": "n", "to": "s"}],
  "entryOperator": "c", "outputMappings": {"s": {"o1": "o1"}}}', '{1, -1, 0, -0, NaN, -Infinity}');

-- The pipeline's input port must match its entry operator: BooleanToNumber
-- takes a boolean, a comparison takes a number.  When input_port_types is
-- left out it defaults to the entry operator's ports (a decision in docs/design.md),
-- here ["boolean"], so the first spec is valid.
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "BooleanToNumber", "id": "b2n"}]}');
SELECT try_spec('{"type": "Pipeline", "input_port_types": ["number"], "operators": [{"type": "BooleanToNumber", "id": "b2n"}]}');
SELECT try_spec('{"type": "Pipeline", "input_port_types": ["boolean"],
  "operators": [{"type": "CompareLT", "id": "lt", "value": 1}], "output_port_types": ["boolean"]}');
SELECT try_spec('{"type": "Pipeline", "input_port_types": ["boolean"], "operators": [{"type": "BooleanToNumber", "id": "b2n"}]}');

-- Mapping a boolean output to a number pipeline output port is refused,
-- to a boolean port it works.
SELECT try_spec('{"type": "Pipeline", "output_port_types": ["number"],
  "operators": [{"type": "CompareGT", "id": "gt", "value": 0}], "outputMappings": {"gt": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "output_port_types": ["number", "number"],
  "operators": [{"type": "Identity", "id": "in"}, {"type": "CompareLT", "id": "low", "value": 0}],
  "connections": [{"from": "in", "to": "low"}],
  "entryOperator": "in", "outputMappings": {"in": {"o1": "o1"}, "low": {"o1": "o2"}}}');
SELECT try_spec('{"type": "Pipeline", "output_port_types": ["boolean"],
  "operators": [{"type": "CompareGT", "id": "gt", "value": 0}], "outputMappings": {"gt": {"o1": "o1"}}}');
-- A filter's output is a number: it cannot go to a boolean port.
SELECT try_spec('{"type": "Pipeline", "output_port_types": ["boolean"],
  "operators": [{"type": "GreaterThan", "id": "f", "value": 0}], "outputMappings": {"f": {"o1": "o1"}}}');
-- A boolean pipeline output emits 1 / 0 like any other port.  Segment 1
-- ends with -2 (below 0), segment 2 with 4, closed by punctuation.
SELECT ts, segment_agg(v, k, '{"type": "Pipeline", "output_port_types": ["boolean"],
  "operators": [{"type": "CompareGT", "id": "gt", "value": 0}], "outputMappings": {"gt": {"o1": "o1"}}}')
       OVER (ORDER BY ts)
FROM (VALUES (1, 3, 1), (2, -2, 1), (3, 4, 2), (4, NULL, 3)) AS t(ts, v, k);
-- A number and a boolean port side by side, in the array form.
SELECT ts, segment_agg(v, k, '{"type": "Pipeline", "output_port_types": ["number", "boolean"],
  "operators": [{"type": "Identity", "id": "in"}, {"type": "CompareLT", "id": "low", "value": 0}],
  "connections": [{"from": "in", "to": "low"}],
  "entryOperator": "in", "outputMappings": {"in": {"o1": "o1"}, "low": {"o1": "o2"}}}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[3]::float8[], 1), (2, ARRAY[-2], 1), (3, ARRAY[4], 2), (4, NULL, 3))
     AS t(ts, v, k);

-- Parameter errors: value is required and must be a number; epsilon and
-- tolerance must not be negative; each operator knows only its own
-- parameters.
SELECT try_spec('{"type": "GreaterThan"}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "CompareLTE", "id": "cmp"}]}');
SELECT try_spec('{"type": "EqualTo", "epsilon": 0.5}');
SELECT try_spec('{"type": "LessThan", "value": "3"}');
SELECT try_spec('{"type": "CompareGT", "value": "3"}');
SELECT try_spec('{"type": "EqualTo", "value": 1, "epsilon": "0.1"}');
SELECT try_spec('{"type": "EqualTo", "value": 1, "epsilon": -1e-10}');
SELECT try_spec('{"type": "NotEqualTo", "id": "ne", "value": 1, "epsilon": -1}');
SELECT try_spec('{"type": "CompareEQ", "value": 1, "tolerance": -0.5}');
SELECT try_spec('{"type": "CompareNEQ", "id": "cn", "value": 1, "tolerance": -2}');
SELECT try_spec('{"type": "GreaterThan", "value": 1, "epsilon": 0.1}');
SELECT try_spec('{"type": "EqualTo", "value": 1, "tolerance": 0.1}');
SELECT try_spec('{"type": "CompareEQ", "value": 1, "epsilon": 0.1}');
SELECT try_spec('{"type": "CompareGT", "value": 1, "tolerance": 0.1}');
SELECT try_spec('{"type": "BooleanToNumber", "value": 1}');
-- Zero epsilon and tolerance are allowed.
SELECT try_spec('{"type": "NotEqualTo", "value": 1, "epsilon": 0}');
SELECT try_spec('{"type": "CompareNEQ", "value": 1, "tolerance": 0}');

-- Canonical text: every parameter, defaults included, value first; a
-- comparison's shorthand has a boolean output port, BooleanToNumber's a
-- boolean input port.
SELECT '{"type": "EqualTo", "value": 3}'::pipeline;
SELECT '{"epsilon": 0.5, "value": -2, "type": "NotEqualTo", "id": "ne"}'::pipeline;
SELECT '{"type": "GreaterThan", "value": 2.5}'::pipeline;
SELECT '{"type": "CompareEQ", "value": 2.5}'::pipeline;
SELECT '{"type": "CompareNEQ", "tolerance": 0.25, "value": 0}'::pipeline;
SELECT '{"type": "CompareLTE", "value": -1}'::pipeline;
SELECT '{"type": "BooleanToNumber"}'::pipeline;
SELECT '{"type": "Pipeline",
  "operators": [{"type": "CompareGT", "id": "hot", "value": 50}, {"type": "BooleanToNumber", "id": "num"},
                {"type": "CumulativeSum", "id": "count"}],
  "connections": [{"from": "hot", "to": "num"}, {"from": "num", "to": "count"}],
  "entryOperator": "hot", "outputMappings": {"count": {"o1": "o1"}}}'::pipeline;
