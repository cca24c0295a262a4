-- Arithmetic operators (docs/reference.md, "Operators"): Scale, Add, Power,
-- the functions of one value (Abs, Sign, Floor, Ceil, Round, Sin, Cos, Tan,
-- Exp, Log, Log10), LessThanOrEqualToReplace, and the operators with several
-- data ports (Addition, Subtraction, Multiplication, Division, Linear).
-- Arithmetic follows PostgreSQL's float8 operators and functions, errors
-- included.  Single-port operators are traced row by row with trace() from
-- setup.sql; multi-port ones go through the array form of segment_agg.  Every
-- expected value was computed by hand (transcendental values with the
-- server's built-in functions).
\pset format unaligned
\pset null 'null'
-- Errors are shown as their one ERROR line.
\set VERBOSITY terse

-- Scale: x * value, on every row.  Infinities and NaN follow float8.
SELECT trace('{"type": "Scale", "value": 2}', '{1, -2.5, 0, NaN, Infinity, -Infinity}');
SELECT trace('{"type": "Scale", "value": -0.5}', '{4, -3, 1e300}');
-- Times 0: -5 * 0 is -0, and Infinity * 0 is NaN, not an error.
SELECT trace('{"type": "Scale", "value": 0}', '{5, -5, Infinity, NaN}');
-- A product of finite values that is infinite is an overflow error; one that
-- rounds to zero (1e-400) is an underflow error.
SELECT segment_agg(v, k, '{"type": "Scale", "value": 1e300}') OVER (ORDER BY ts)
FROM (VALUES (1, 1::float8, 1), (2, 1e10, 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Scale", "value": 1e-300}') OVER (ORDER BY ts)
FROM (VALUES (1, 1e-100::float8, 1)) AS t(ts, v, k);
-- A single-port operator in segments: each boundary emits the value for the
-- last row of the segment that closed.
SELECT ts, segment_agg(v, k, '{"type": "Scale", "value": 3}') OVER (ORDER BY ts)
FROM (VALUES (1, 1, 1), (2, 2, 1), (3, 5, 2), (4, NULL, 3)) AS t(ts, v, k);

-- Add: x + value.
SELECT trace('{"type": "Add", "value": 1.5}', '{1, -2.5, 0, NaN, Infinity, -Infinity}');
SELECT trace('{"type": "Add", "value": 0.1}', '{0.2, -0.1}');
-- An infinite input is not an overflow; a finite sum too large is.
SELECT trace('{"type": "Add", "value": 1e308}', '{-Infinity, Infinity, -1e308}');
SELECT segment_agg(v, k, '{"type": "Add", "value": 1e308}') OVER (ORDER BY ts)
FROM (VALUES (1, 1e308::float8, 1)) AS t(ts, v, k);

-- Power: x ^ value, as power(float8, float8).
SELECT trace('{"type": "Power", "value": 10}', '{2, -2, 0.5}');
SELECT trace('{"type": "Power", "value": 2}', '{3, -3, 0.5, Infinity, -Infinity, NaN}');
SELECT trace('{"type": "Power", "value": 0.5}', '{4, 2, 0, Infinity, NaN}');
SELECT trace('{"type": "Power", "value": 3}', '{-2, -Infinity}');
-- x ^ 0 is 1 for every x, NaN included.
SELECT trace('{"type": "Power", "value": 0}', '{5, 0, NaN, Infinity, -Infinity}');
-- A negative exponent (0 ^ -1 is an error).  -Infinity to
-- an odd negative power is -0.
SELECT trace('{"type": "Power", "value": -1}', '{2, -4, Infinity, -Infinity, NaN}');
-- Domain errors, overflow and underflow.
SELECT segment_agg(v, k, '{"type": "Power", "value": -1}') OVER (ORDER BY ts)
FROM (VALUES (1, 2::float8, 1), (2, 0, 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Power", "value": 0.5}') OVER (ORDER BY ts)
FROM (VALUES (1, -4::float8, 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Power", "value": 0.5}') OVER (ORDER BY ts)
FROM (VALUES (1, '-Infinity'::float8, 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Power", "value": 2}') OVER (ORDER BY ts)
FROM (VALUES (1, 1e200::float8, 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Power", "value": 2}') OVER (ORDER BY ts)
FROM (VALUES (1, 1e-200::float8, 1)) AS t(ts, v, k);

-- Abs and Sign.  Sign is 1, -1 or 0; -0 and NaN give 0.
SELECT trace('{"type": "Abs"}', '{-3, 2.5, 0, -0, Infinity, -Infinity, NaN}');
SELECT trace('{"type": "Sign"}', '{-3, 2.5, 0, -0, 1e-300, Infinity, -Infinity, NaN}');

-- Floor and Ceil, as floor() and ceil(): ceil(-0.5) is -0.
SELECT trace('{"type": "Floor"}', '{2.5, -2.5, 3, -0.5, -0, 1e300, Infinity, -Infinity, NaN}');
SELECT trace('{"type": "Ceil"}', '{2.5, -2.5, 3, -0.5, Infinity, -Infinity, NaN}');

-- Round is round-half-to-even, as round(float8): 2.5 -> 2, 3.5 -> 4,
-- -0.5 -> -0.  The largest double below 0.5 rounds to 0, and 2^52 + 1 stays
-- (floor(x + 0.5) would get both wrong).
SELECT trace('{"type": "Round"}', '{0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5}');
SELECT trace('{"type": "Round"}', '{0.49999999999999994, 4503599627370497, 2.6, -2.6, Infinity, -Infinity, NaN}');

-- Sin, Cos, Tan: NaN gives NaN, an infinite input is an error.
SELECT trace('{"type": "Sin"}', '{0, -0, 1, -1, NaN}');
SELECT trace('{"type": "Cos"}', '{0, -0, 1, -1, NaN}');
SELECT trace('{"type": "Tan"}', '{0, -0, 1, NaN}');
SELECT segment_agg(v, k, '{"type": "Sin"}') OVER (ORDER BY ts)
FROM (VALUES (1, 'Infinity'::float8, 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Cos"}') OVER (ORDER BY ts)
FROM (VALUES (1, '-Infinity'::float8, 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Tan"}') OVER (ORDER BY ts)
FROM (VALUES (1, 0::float8, 1), (2, 'Infinity', 1)) AS t(ts, v, k);

-- Exp: exp(-Infinity) is 0; a finite input whose result does not fit is an
-- overflow error, one whose result is 0 an underflow error.
SELECT trace('{"type": "Exp"}', '{0, 1, -1, 709, -Infinity, Infinity, NaN}');
SELECT segment_agg(v, k, '{"type": "Exp"}') OVER (ORDER BY ts)
FROM (VALUES (1, 710::float8, 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Exp"}') OVER (ORDER BY ts)
FROM (VALUES (1, -1000::float8, 1)) AS t(ts, v, k);

-- Log (natural) and Log10, traced with trace(): the logarithm of 0 (or
-- -0) and of a negative number (or -Infinity) are errors.
SELECT trace('{"type": "Log"}', '{1, 2, 10, Infinity, NaN}');
SELECT trace('{"type": "Log10"}', '{1000, 0.001, 1, 2, Infinity, NaN}');
SELECT segment_agg(v, k, '{"type": "Log"}') OVER (ORDER BY ts)
FROM (VALUES (1, 0::float8, 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Log"}') OVER (ORDER BY ts)
FROM (VALUES (1, '-0'::float8, 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Log"}') OVER (ORDER BY ts)
FROM (VALUES (1, 10::float8, 1), (2, 1, 1), (3, -5, 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Log"}') OVER (ORDER BY ts)
FROM (VALUES (1, '-Infinity'::float8, 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Log10"}') OVER (ORDER BY ts)
FROM (VALUES (1, 0::float8, 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Log10"}') OVER (ORDER BY ts)
FROM (VALUES (1, -1::float8, 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Log10"}') OVER (ORDER BY ts)
FROM (VALUES (1, '-Infinity'::float8, 1)) AS t(ts, v, k);

-- LessThanOrEqualToReplace: x <= value ? replaceBy : x.  -0 <= 0 holds;
-- NaN is not <= anything, so it passes unchanged.
SELECT trace('{"type": "LessThanOrEqualToReplace", "value": 0, "replaceBy": -1}',
             '{-2, 0, -0, 0.5, NaN, -Infinity, Infinity}');
SELECT trace('{"type": "LessThanOrEqualToReplace", "value": 2.5, "replaceBy": 100}',
             '{2.5, 2.5000000000000004, 1}');

-- Addition, through the array form: value[i] feeds data port i.  Each row
-- is a segment of its own (the key is ts), so row n + 1 emits the result of
-- row n, and the punctuation row at the end closes the last segment.
SELECT ts, segment_agg(v, ts, '{"type": "Addition"}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[6, 3]::float8[]), (2, ARRAY[-1.5, 0.25]), (3, ARRAY[0.1, 0.2]),
             (4, '{Infinity, 1}'), (5, '{Infinity, -Infinity}'), (6, '{NaN, 1}'), (7, NULL))
     AS t(ts, v);
-- Three ports, segments of several rows: a segment emits its last row's sum.
SELECT ts, segment_agg(v, k, '{"type": "Addition", "numPorts": 3}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[1, 2, 3.5]::float8[], 1), (2, ARRAY[10, 20, 30], 1),
             (3, ARRAY[-1, -1, -1], 2), (4, ARRAY[NULL, NULL, NULL]::float8[], 3))
     AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Addition"}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[1e308, 1e308]::float8[], 1)) AS t(ts, v, k);

-- Subtraction: x1 - x2 - ..., left to right: 10 - 3 - 2 is 5 (not 9) and
-- 1 - 2 - 3 is -4.
SELECT ts, segment_agg(v, ts, '{"type": "Subtraction"}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[6, 3]::float8[]), (2, ARRAY[3, 6]), (3, '{-Infinity, 1}'),
             (4, '{Infinity, Infinity}'), (5, '{1, NaN}'), (6, NULL)) AS t(ts, v);
SELECT ts, segment_agg(v, ts, '{"type": "Subtraction", "numPorts": 3}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[10, 3, 2]::float8[]), (2, ARRAY[1, 2, 3]), (3, NULL)) AS t(ts, v);
SELECT segment_agg(v, k, '{"type": "Subtraction"}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[1e308, -1e308]::float8[], 1)) AS t(ts, v, k);

-- Multiplication: x1 * x2 * ...
SELECT ts, segment_agg(v, ts, '{"type": "Multiplication"}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[6, 3]::float8[]), (2, ARRAY[-2, 0.5]), (3, ARRAY[-5, 0]),
             (4, '{Infinity, 0}'), (5, '{-Infinity, 2}'), (6, '{NaN, 0}'), (7, NULL))
     AS t(ts, v);
SELECT ts, segment_agg(v, ts, '{"type": "Multiplication", "numPorts": 3}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[2, 3, 4]::float8[]), (2, ARRAY[-1, -1, -1]), (3, ARRAY[0.5, 0.5, 0.5]),
             (4, NULL)) AS t(ts, v);
-- Overflow and underflow of finite values are errors; with three ports the
-- product is taken left to right, so 1e200 * 1e200 already overflows.
SELECT segment_agg(v, k, '{"type": "Multiplication"}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[1e200, 1e200]::float8[], 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Multiplication"}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[1e-200, 1e-200]::float8[], 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Multiplication", "numPorts": 3}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[1e200, 1e200, 1e-200]::float8[], 1)) AS t(ts, v, k);

-- Division: x1 / x2 / ..., left to right: 24 / 4 / 3 is 2 (not 18).
-- NaN / 0 is NaN; NaN / 2 / 0 is NaN too.
SELECT ts, segment_agg(v, ts, '{"type": "Division"}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[6, 3]::float8[]), (2, ARRAY[1, 4]), (3, ARRAY[1, 3]),
             (4, '{1, Infinity}'), (5, '{-1, Infinity}'), (6, '{Infinity, 2}'),
             (7, '{Infinity, Infinity}'), (8, '{NaN, 0}'), (9, NULL)) AS t(ts, v);
SELECT ts, segment_agg(v, ts, '{"type": "Division", "numPorts": 3}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[24, 4, 3]::float8[]), (2, '{NaN, 2, 0}'), (3, ARRAY[1, 2, 4]),
             (4, NULL)) AS t(ts, v);
-- A zero divisor is an error unless the dividend is NaN (0 / 0 and
-- Infinity / 0 included); a finite quotient that is infinite or 0 is an
-- overflow or underflow error.
SELECT segment_agg(v, k, '{"type": "Division"}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[1, 0]::float8[], 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Division"}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[0, 0]::float8[], 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Division"}') OVER (ORDER BY ts)
FROM (VALUES (1, '{Infinity, 0}'::float8[], 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Division", "numPorts": 3}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[6, 2, 3]::float8[], 1), (2, ARRAY[5, 1, 0], 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Division"}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[1e-300, 1e300]::float8[], 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Division"}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[1e300, 1e-300]::float8[], 1)) AS t(ts, v, k);

-- Linear: c1 * x1 + c2 * x2 + ..., one data port per coefficient.
SELECT ts, segment_agg(v, ts, '{"type": "Linear", "coefficients": [2, -1]}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[3, 4]::float8[]), (2, ARRAY[0.5, 0.25]), (3, '{Infinity, 1}'),
             (4, '{Infinity, Infinity}'), (5, '{NaN, 0}'), (6, NULL)) AS t(ts, v);
SELECT ts, segment_agg(v, ts, '{"type": "Linear", "coefficients": [0.5, 0.25, -1], "numPorts": 3}')
         OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[4, 8, 1]::float8[]), (2, ARRAY[1, 1, 1]), (3, NULL)) AS t(ts, v);
-- The sum is compensated: 1e16 + 1 - 1e16 is 1 (a plain float8 sum gives
-- 0).  A coefficient 0 times Infinity is NaN.
SELECT ts, segment_agg(v, ts, '{"type": "Linear", "coefficients": [1, 1, -1]}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[1e16, 1, 1e16]::float8[]), (2, NULL)) AS t(ts, v);
SELECT ts, segment_agg(v, ts, '{"type": "Linear", "coefficients": [0, 1]}') OVER (ORDER BY ts)
FROM (VALUES (1, '{Infinity, 5}'::float8[]), (2, NULL)) AS t(ts, v);
SELECT segment_agg(v, k, '{"type": "Linear", "coefficients": [1, 1]}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[1e308, 1e308]::float8[], 1)) AS t(ts, v, k);

-- The value array must have one element per data port, also on punctuation
\set VERBOSITY default
-- rows (SQLSTATE 2202E).
SELECT segment_agg(v, k, '{"type": "Addition"}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[1, 2, 3]::float8[], 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Pipeline", "id": "sum3", "input_port_types": ["number", "number", "number"],
  "operators": [{"type": "Addition", "numPorts": 3}]}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[1]::float8[], 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Division"}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[NULL]::float8[], 1)) AS t(ts, v, k);
-- An array with some but not all elements NULL is an error (22004) ...
SELECT segment_agg(v, k, '{"type": "Addition"}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[1, NULL]::float8[], 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Linear", "coefficients": [1, 2, 3]}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[1, 2, 3]::float8[], 1), (2, ARRAY[NULL, 2, NULL], 1)) AS t(ts, v, k);
-- ... one whose elements are all NULL is punctuation: with the same key it
-- feeds nothing (the buffer keeps 5 - 1), with a new key it closes the
-- segment.
SELECT ts, segment_agg(v, k, '{"type": "Subtraction"}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[5, 1]::float8[], 1), (2, ARRAY[NULL, NULL]::float8[], 1),
             (3, ARRAY[NULL, NULL]::float8[], 2), (4, ARRAY[7, 7], 2), (5, NULL, 3))
     AS t(ts, v, k);
-- The scalar form cannot feed a pipeline with several data ports.
SELECT segment_agg(v, k, '{"type": "Multiplication"}') OVER (ORDER BY ts)
FROM (VALUES (1, 2, 1)) AS t(ts, v, k);
SELECT segment_agg(v, k, '{"type": "Pipeline", "id": "lin", "input_port_types": ["number", "number", "number"],
  "operators": [{"type": "Linear", "coefficients": [1, 2, 3]}]}') OVER (ORDER BY ts)
FROM (VALUES (1, 2, 1)) AS t(ts, v, k);

\set VERBOSITY terse
-- In a mesh, a multi-port operator runs only on rows where every one of its
-- ports got a value.  sub = ma - x, ma the moving average of the last two:
-- on row 1 ma produces nothing, so sub does not run (had it run with the
-- missing port taken as 0, prefix 1 would show 0 - 1 = -1).  Then
-- 2 - 3, 4 - 5, 7.5 - 10.
SELECT trace('{"type": "Pipeline",
  "operators": [{"type": "Identity", "id": "in"},
                {"type": "MovingAverage", "id": "ma", "window_size": 2},
                {"type": "Subtraction", "id": "sub"}],
  "connections": [{"from": "in", "to": "ma"},
                  {"from": "ma", "to": "sub", "toPort": "i1"},
                  {"from": "in", "to": "sub", "toPort": "i2"}],
  "entryOperator": "in", "outputMappings": {"sub": {"o1": "o1"}}}', '{1, 3, 5, 10}');
-- The same the other way round (sub = x - ma, x through an Identity), with
-- a count of sub's results on port 2: segment 1 gives 1, 1, 2.5 from row 2
-- on, three results.  Segment 2 has one row: ma is empty again after the
-- reset, so sub does not run and the closing punctuation emits nothing.
SELECT ts, segment_agg(v, k, '{"type": "Pipeline",
  "output_port_types": ["number", "number"],
  "operators": [{"type": "Identity", "id": "in"},
                {"type": "MovingAverage", "id": "ma", "window_size": 2},
                {"type": "Identity", "id": "now"},
                {"type": "Subtraction", "id": "sub"},
                {"type": "CountNumber", "id": "n"}],
  "connections": [{"from": "in", "to": "ma"}, {"from": "in", "to": "now"},
                  {"from": "now", "to": "sub", "toPort": "i1"},
                  {"from": "ma", "to": "sub", "toPort": "i2"},
                  {"from": "sub", "to": "n"}],
  "entryOperator": "in",
  "outputMappings": {"sub": {"o1": "o1"}, "n": {"o1": "o2"}}}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[1]::float8[], 1), (2, ARRAY[3], 1), (3, ARRAY[5], 1), (4, ARRAY[10], 1),
             (5, ARRAY[4], 2), (6, NULL, 3)) AS t(ts, v, k);
-- Arithmetic chained with other operators: 2x - 1, summed, gives the sums
-- of the first odd numbers, 1 4 9 16.
SELECT trace('{"type": "Pipeline",
  "operators": [{"type": "Scale", "id": "twice", "value": 2},
                {"type": "Add", "id": "minus1", "value": -1},
                {"type": "CumulativeSum", "id": "sum"}],
  "connections": [{"from": "twice", "to": "minus1"}, {"from": "minus1", "to": "sum"}],
  "entryOperator": "twice", "outputMappings": {"sum": {"o1": "o1"}}}', '{1, 2, 3, 4}');
-- |x| * sign(x) gives x back (NaN: NaN * 0 is NaN).
SELECT trace('{"type": "Pipeline",
  "operators": [{"type": "Identity", "id": "in"}, {"type": "Abs", "id": "abs"},
                {"type": "Sign", "id": "sign"}, {"type": "Multiplication", "id": "mul"}],
  "connections": [{"from": "in", "to": "abs"}, {"from": "in", "to": "sign"},
                  {"from": "abs", "to": "mul", "toPort": "i1"},
                  {"from": "sign", "to": "mul", "toPort": "i2"}],
  "entryOperator": "in", "outputMappings": {"mul": {"o1": "o1"}}}', '{-3, 2.5, 0, -Infinity, NaN}');
-- A multi-port entry operator feeding a chain: x1 - x2 via Linear, summed:
-- 3, -3, 10 give 3, 0, 10.
SELECT ts, segment_agg(v, k, '{"type": "Pipeline", "input_port_types": ["number", "number"],
  "operators": [{"type": "Linear", "id": "lin", "coefficients": [1, -1]},
                {"type": "CumulativeSum", "id": "sum"}],
  "connections": [{"from": "lin", "to": "sum"}],
  "entryOperator": "lin", "outputMappings": {"sum": {"o1": "o1"}}}') OVER (ORDER BY ts)
FROM (VALUES (1, ARRAY[5, 2]::float8[], 1), (2, ARRAY[1, 4], 1), (3, ARRAY[10, 0], 1),
             (4, ARRAY[0, 0], 2)) AS t(ts, v, k);
-- numPorts decides the input ports: a 2-port Addition has no i3, and every
-- port of a 3-port one must be fed.
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}, {"type": "Addition", "id": "add"}],
  "connections": [{"from": "a", "to": "add", "toPort": "i1"}, {"from": "a", "to": "add", "toPort": "i3"}],
  "entryOperator": "a", "outputMappings": {"add": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}, {"type": "Addition", "id": "add", "numPorts": 3}],
  "connections": [{"from": "a", "to": "add", "toPort": "i1"}, {"from": "a", "to": "add", "toPort": "i3"}],
  "entryOperator": "a", "outputMappings": {"add": {"o1": "o1"}}}');

-- Canonical text: every parameter printed, defaults included, in a fixed
-- order; a shorthand spec gets one pipeline input port per data port.
SELECT '{"type": "Addition"}'::pipeline;
SELECT '{"type": "Subtraction", "id": "d", "numPorts": 3}'::pipeline;
SELECT '{"type": "Linear", "coefficients": [0.5, -2, 3]}'::pipeline;
SELECT '{"replaceBy": 0, "type": "LessThanOrEqualToReplace", "value": 1e-3}'::pipeline;
SELECT '{"type": "Scale", "value": 2.50}'::pipeline;
SELECT '{"type": "Sin"}'::pipeline;

-- Parameter errors.  Missing or ill-typed numbers:
SELECT try_spec('{"type": "Scale"}');
SELECT try_spec('{"type": "Add", "id": "a", "value": "2"}');
SELECT try_spec('{"type": "Scale", "value": true}');
SELECT try_spec('{"type": "Power"}');
SELECT try_spec('{"type": "LessThanOrEqualToReplace", "value": 0}');
SELECT try_spec('{"type": "LessThanOrEqualToReplace", "id": "r", "value": 0, "replaceBy": [1]}');
-- numPorts is an integer from 2 to 64.
SELECT try_spec('{"type": "Addition", "numPorts": 1}');
SELECT try_spec('{"type": "Subtraction", "id": "s", "numPorts": 65}');
SELECT try_spec('{"type": "Multiplication", "numPorts": 2.5}');
SELECT try_spec('{"type": "Division", "numPorts": "3"}');
SELECT try_spec('{"type": "Multiplication", "numPorts": 64}');
-- Linear: 2 to 64 numeric coefficients; numPorts, if given, must match.
SELECT try_spec('{"type": "Linear"}');
SELECT try_spec('{"type": "Linear", "coefficients": [2]}');
SELECT try_spec('{"type": "Linear", "coefficients": []}');
SELECT try_spec('{"type": "Linear", "coefficients": 2}');
SELECT try_spec('{"type": "Linear", "id": "lin", "coefficients": [1, "2", 3]}');
SELECT try_spec('{"type": "Linear", "coefficients": [1, 2, 3], "numPorts": 2}');
SELECT try_spec('{"type": "Linear", "coefficients": [1, 2], "numPorts": 3}');
SELECT try_spec('{"type": "Linear", "coefficients": [1, 2], "numPorts": 2}');
SELECT try_spec('{"type": "Linear", "coefficients": [' || array_to_string(array_fill(1, ARRAY[64]), ', ') || ']}');
SELECT try_spec('{"type": "Linear", "coefficients": [' || array_to_string(array_fill(1, ARRAY[65]), ', ') || ']}');
-- Unknown parameters.
SELECT try_spec('{"type": "Scale", "value": 2, "factor": 3}');
SELECT try_spec('{"type": "Abs", "value": 1}');
SELECT try_spec('{"type": "Addition", "coefficients": [1, 2]}');
SELECT try_spec('{"type": "Linear", "coefficients": [1, 2], "value": 1}');

