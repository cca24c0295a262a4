-- What a pipeline value stores, and its text, never depend on a session
-- setting: floats are written shortest-exact whatever extra_float_digits
-- says (float8out would round to 15 digits at 0 or less, and the largest
-- float8 would then no longer read back).
\pset format unaligned
\pset null 'null'
SET extra_float_digits = 0;
SELECT '{"type": "Scale", "value": 0.30000000000000004}'::pipeline;
SELECT '{"type": "Scale", "value": 1.7976931348623157e308}'::pipeline::text::pipeline;
SET extra_float_digits = -15;
SELECT '{"type": "FiniteImpulseResponse", "coeff": [0.1, 2.5e-308, 5e-324, -0, 123456789.12345679]}'::pipeline;
-- The stored bytes are the same under every setting.
CREATE TABLE stored (setting int, p pipeline);
SET extra_float_digits = 0;
INSERT INTO stored VALUES (0, '{"type": "Linear", "coefficients": [0.1, 0.30000000000000004]}');
SET extra_float_digits = 3;
INSERT INTO stored VALUES (3, '{"type": "Linear", "coefficients": [0.1, 0.30000000000000004]}');
SET extra_float_digits = -15;
INSERT INTO stored VALUES (-15, '{"type": "Linear", "coefficients": [0.1, 0.30000000000000004]}');
RESET extra_float_digits;
SELECT count(*) AS values, count(DISTINCT pipeline_send(p)) AS distinct_bytes,
       count(DISTINCT p::text) AS distinct_texts
FROM stored;
DROP TABLE stored;
