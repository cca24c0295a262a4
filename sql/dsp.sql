-- DSP operators (docs/reference.md, "Operators"): Difference,
-- FiniteImpulseResponse (FIR) and InfiniteImpulseResponse (IIR), each traced
-- row by row with trace() from setup.sql: after prefix n, the value the
-- output buffer holds, or '-'.  Arithmetic is float8's, errors included; the
-- FIR and IIR sums are compensated.  Runtime errors are shown with
-- segment_agg() directly (inside trace() they would carry a CONTEXT line).
-- Every expected value was computed by hand.
\pset format unaligned
\pset null 'null'

-- Difference emits newest - previous from the 2nd row on.
SELECT trace('{"type": "Difference"}', '{1, 4, 9, 16}');
SELECT trace('{"type": "Difference"}', '{5}');
SELECT trace('{"type": "Difference"}', '{3, -2, -2, 0.5}');
-- Plain float8 subtraction: 0.3 - 0.1 is 0.19999999999999998.
SELECT trace('{"type": "Difference"}', '{0.1, 0.3}');
-- NaN in either operand gives NaN; Infinity - Infinity is NaN.
SELECT trace('{"type": "Difference"}', '{1, NaN, 3, Infinity, Infinity, -Infinity}');
-- Finite operands with an infinite difference: overflow.
SELECT ts, segment_agg(v, k, '{"type": "Difference"}') OVER (ORDER BY ts)
FROM (VALUES (1, -1e308::float8, 0), (2, 1e308, 0), (3, 0, 1)) AS t(ts, v, k);

-- FiniteImpulseResponse emits once len(coeff) values are seen:
-- sum of coeff[i] * x[n-i], coeff[0] times the newest.
-- coeff [1] is the identity, [0.5, 0.5] a 2-tap average, [1, -1] a
-- difference (the same as Difference above).
SELECT trace('{"type": "FiniteImpulseResponse", "coeff": [1]}', '{3, -1.5, 0}');
SELECT trace('{"type": "FiniteImpulseResponse", "coeff": [0.5, 0.5]}', '{1, 2, 4, 8}');
SELECT trace('{"type": "FiniteImpulseResponse", "coeff": [1, -1]}', '{1, 4, 9, 16}');
-- coeff[0] multiplies the newest value: an impulse at the oldest position
-- of the first full window is multiplied by coeff[2] = 3; an impulse that
-- arrives when the window is full is read back as 1, 2, 3.
SELECT trace('{"type": "FiniteImpulseResponse", "coeff": [1, 2, 3]}', '{1, 0, 0, 0, 0}');
SELECT trace('{"type": "FiniteImpulseResponse", "coeff": [1, 2, 3]}', '{0, 0, 1, 0, 0}');
-- 1*3 + 2*2 + 3*1 = 10, then 1*4 + 2*3 + 3*2 = 16.
SELECT trace('{"type": "FiniteImpulseResponse", "coeff": [1, 2, 3]}', '{1, 2, 3, 4}');
-- Compensated: 1e16 + 1 - 1e16 is exactly 1, and 1 - 1e16 + 1 is exactly
-- -1e16 + 2.
SELECT trace('{"type": "FiniteImpulseResponse", "coeff": [1, 1, 1]}', '{1e16, 1, -1e16, 1}');
-- NaN and Infinity count while they are in the window.
SELECT trace('{"type": "FiniteImpulseResponse", "coeff": [0.5, 0.5]}', '{1, NaN, 3, 5}');
SELECT trace('{"type": "FiniteImpulseResponse", "coeff": [1, -1]}', '{1, Infinity, Infinity, 2}');
-- A zero coefficient times Infinity is NaN, as in float8.
SELECT trace('{"type": "FiniteImpulseResponse", "coeff": [1, 0]}', '{Infinity, 2, 3}');
-- An infinite input gives Infinity, not an overflow error, even when the
-- finite terms alone would overflow.
SELECT trace('{"type": "FiniteImpulseResponse", "coeff": [1, 1]}', '{1e308, Infinity}');
SELECT trace('{"type": "FiniteImpulseResponse", "coeff": [1, 1, 1]}', '{1e308, 1e308, Infinity}');
-- Finite terms whose sum overflows, and a product that overflows: errors.
SELECT ts, segment_agg(v, k, '{"type": "FiniteImpulseResponse", "coeff": [1e308, 1e308]}') OVER (ORDER BY ts)
FROM (VALUES (1, 1::float8, 0), (2, 1, 0), (3, 0, 1)) AS t(ts, v, k);
SELECT ts, segment_agg(v, k, '{"type": "FiniteImpulseResponse", "coeff": [1e308]}') OVER (ORDER BY ts)
FROM (VALUES (1, 10::float8, 0), (2, 0, 1)) AS t(ts, v, k);

-- InfiniteImpulseResponse: y[n] = sum b[i] * x[n-i] - sum a[j] * y[n-1-j],
-- from the len(b)-th input on; y values not produced yet count as 0.
-- With a_coeffs [] it is an FIR.
SELECT trace('{"type": "InfiniteImpulseResponse", "b_coeffs": [1, 2, 3], "a_coeffs": []}', '{1, 2, 3, 4}');
-- y[n] = x[n] + 0.5 y[n-1]: the step response 1, 1.5, 1.75, 1.875.
SELECT trace('{"type": "InfiniteImpulseResponse", "b_coeffs": [1], "a_coeffs": [-0.5]}', '{1, 1, 1, 1}');
-- a[0] multiplies y[n-1], a[1] y[n-2]: y[n] = x[n] + y[n-1] - 0.25 y[n-2]
-- gives 1, 1, 1 - 0.25, 0.75 - 0.25, 0.5 - 0.1875 for an impulse.
SELECT trace('{"type": "InfiniteImpulseResponse", "b_coeffs": [1], "a_coeffs": [-1, 0.25]}', '{1, 0, 0, 0, 0}');
-- b of length 2: nothing after the 1st input.  y[n] = x[n] + x[n-1] -
-- 0.5 y[n-1]: 4 + 2 - 0 = 6, 6 + 4 - 3 = 7, 8 + 6 - 3.5 = 10.5.
SELECT trace('{"type": "InfiniteImpulseResponse", "b_coeffs": [1, 1], "a_coeffs": [0.5]}', '{2, 4, 6, 8}');
-- b of length 3, a of length 2: y[3] = 3 + 0 + 0, y[4] = 3 + 3 + 0 (y[2]
-- was never produced), y[5] = 3 + 6 + 3.
SELECT trace('{"type": "InfiniteImpulseResponse", "b_coeffs": [1, 1, 1], "a_coeffs": [-1, -1]}', '{1, 1, 1, 1, 1}');
-- A NaN stays in the feedback; an Infinity alternates in sign through
-- y[n] = x[n] - 0.5 y[n-1].
SELECT trace('{"type": "InfiniteImpulseResponse", "b_coeffs": [1], "a_coeffs": [-0.5]}', '{1, NaN, 1, 1}');
SELECT trace('{"type": "InfiniteImpulseResponse", "b_coeffs": [1], "a_coeffs": [0.5]}', '{Infinity, 1, 1, 1}');
-- y[n] = x[n] + y[n-1] of finite values overflows: error.
SELECT ts, segment_agg(v, k, '{"type": "InfiniteImpulseResponse", "b_coeffs": [1], "a_coeffs": [-1]}') OVER (ORDER BY ts)
FROM (VALUES (1, 1e308::float8, 0), (2, 1e308, 0), (3, 0, 1)) AS t(ts, v, k);

-- Reset is exact: segment 2 (one row) is shorter than the warm-up of
-- Difference, FIR [1, 1] and IIR b [1, 1], so it emits nothing, and the
-- IIR y[n] = x[n] + y[n-1] starts again from 0.  With a leak, ts 4 would
-- emit 7 - 50 = -43, 7 + 50 = 57, 7 + 60 = 67 and 7 + 50 + 60 = 117, and
-- ts 6 would emit 3 + 1 + 67 = 71 in the iir column.
SELECT ts,
       segment_agg(v, k, '{"type": "Difference"}') OVER w AS diff,
       segment_agg(v, k, '{"type": "FiniteImpulseResponse", "coeff": [1, 1]}') OVER w AS fir,
       segment_agg(v, k, '{"type": "InfiniteImpulseResponse", "b_coeffs": [1], "a_coeffs": [-1]}') OVER w AS iir,
       segment_agg(v, k, '{"type": "InfiniteImpulseResponse", "b_coeffs": [1, 1], "a_coeffs": [-1]}') OVER w AS iir2
FROM (VALUES (1, 10, 1), (2, 50, 1), (3, 7, 2), (4, 1, 3), (5, 3, 3), (6, 0, 4)) AS t(ts, v, k)
WINDOW w AS (ORDER BY ts);
-- ... and a NaN in one segment does not reach the next: 2 - 1, 2 + 1,
-- 2 + 0.5 * 1.
SELECT ts,
       segment_agg(v, k, '{"type": "Difference"}') OVER w AS diff,
       segment_agg(v, k, '{"type": "FiniteImpulseResponse", "coeff": [1, 1]}') OVER w AS fir,
       segment_agg(v, k, '{"type": "InfiniteImpulseResponse", "b_coeffs": [1], "a_coeffs": [-0.5]}') OVER w AS iir
FROM (VALUES (1, 'NaN'::float8, 1), (2, 1, 2), (3, 2, 2), (4, 0, 3)) AS t(ts, v, k)
WINDOW w AS (ORDER BY ts);

-- Parameters.
SELECT try_spec('{"type": "FiniteImpulseResponse"}');
SELECT try_spec('{"type": "FiniteImpulseResponse", "id": "fir", "coeff": []}');
SELECT try_spec('{"type": "FiniteImpulseResponse", "id": "fir", "coeff": 0.5}');
SELECT try_spec('{"type": "FiniteImpulseResponse", "id": "fir", "coeff": "1, 2"}');
SELECT try_spec('{"type": "FiniteImpulseResponse", "id": "fir", "coeff": [1, "2", 3]}');
SELECT try_spec('{"type": "FiniteImpulseResponse", "id": "fir", "coeff": [0.5, 0.5, null]}');
SELECT try_spec('{"type": "FiniteImpulseResponse", "coeff": [' || repeat('1, ', 4095) || '1]}');
SELECT try_spec('{"type": "FiniteImpulseResponse", "coeff": [' || repeat('1, ', 4096) || '1]}');
SELECT try_spec('{"type": "FiniteImpulseResponse", "coeff": [1], "window_size": 1}');
SELECT try_spec('{"type": "InfiniteImpulseResponse", "id": "iir", "b_coeffs": [1]}');
SELECT try_spec('{"type": "InfiniteImpulseResponse", "id": "iir", "a_coeffs": [0.5]}');
SELECT try_spec('{"type": "InfiniteImpulseResponse", "id": "iir", "b_coeffs": [], "a_coeffs": [0.5]}');
SELECT try_spec('{"type": "InfiniteImpulseResponse", "id": "iir", "b_coeffs": [1], "a_coeffs": 0.5}');
SELECT try_spec('{"type": "InfiniteImpulseResponse", "id": "iir", "b_coeffs": [1], "a_coeffs": ["x"]}');
SELECT try_spec('{"type": "InfiniteImpulseResponse", "b_coeffs": [1], "a_coeffs": [' || repeat('0, ', 4096) || '0]}');
SELECT try_spec('{"type": "Difference", "window_size": 2}');

-- Canonical text: every parameter, in the order b_coeffs, a_coeffs;
-- numbers shortest-exact.
SELECT '{"type": "Difference"}'::pipeline;
SELECT '{"type": "FiniteImpulseResponse", "coeff": [1.0, 2.50, -3e0, 0.125]}'::pipeline;
SELECT '{"a_coeffs": [-0.5], "b_coeffs": [0.25, 0.25], "id": "lp", "type": "InfiniteImpulseResponse"}'::pipeline;
SELECT '{"type": "InfiniteImpulseResponse", "b_coeffs": [1], "a_coeffs": []}'::pipeline;
SELECT p::text::pipeline::text = p::text AS round_trips
FROM (SELECT '{"type": "InfiniteImpulseResponse", "b_coeffs": [0.1, 0.2], "a_coeffs": [-0.3]}'::pipeline AS p) AS s;
