-- Casts between pipeline and json / jsonb, for clients that send specs as
-- JSON (psycopg's Json(dict)) and for looking inside a pipeline.
\pset null 'null'

-- json and jsonb become pipelines on assignment; pipelines become json or
-- jsonb only when asked.
SELECT castsource::regtype, casttarget::regtype, castcontext, castmethod
FROM pg_cast
WHERE castsource = 'pipeline'::regtype OR casttarget = 'pipeline'::regtype
ORDER BY castsource::regtype::text COLLATE "C", casttarget::regtype::text COLLATE "C";

CREATE TABLE specs (n int, p pipeline);
INSERT INTO specs VALUES (1, '{"type": "CountNumber"}'::json), (2, '{"type": "CountNumber"}'::jsonb);
UPDATE specs SET p = '{"type": "MovingSum", "window_size": 2}'::jsonb WHERE n = 2;
SELECT n, p::text = ('{"type": "CountNumber"}'::pipeline)::text AS count_number FROM specs ORDER BY n;
-- not implicit: a function taking a pipeline wants an explicit cast
SELECT segment_agg(1, 1, '{"type": "CountNumber"}'::jsonb) OVER ();
SELECT segment_agg(1, 1, '{"type": "CountNumber"}'::jsonb::pipeline) OVER ();
-- nor back: a jsonb column does not take a pipeline without a cast
CREATE TABLE docs (doc jsonb);
INSERT INTO docs SELECT p FROM specs;
INSERT INTO docs SELECT p::jsonb FROM specs;
SELECT doc->'operators'->0->>'type' AS type FROM docs ORDER BY 1;
SELECT NULL::json::pipeline AS from_json, NULL::jsonb::pipeline AS from_jsonb,
       NULL::pipeline::json AS to_json, NULL::pipeline::jsonb AS to_jsonb;

-- json keeps its text: json -> pipeline reads exactly what the text cast
-- reads, member order, duplicate keys and negative zero included.
SELECT '{"type": "Scale", "value": -0}'::json::pipeline = '{"type": "Scale", "value": -0}'::pipeline AS same,
       '{"type": "Scale", "value": -0}'::json::pipeline = '{"type": "Scale", "value": 0}'::pipeline AS zero;
SELECT '{"type": "MovingAverage", "window_size": 3, "window_size": 4}'::json::pipeline;
SELECT '{"type": "MovingAverage", "windowsize": 3}'::json::pipeline;

-- jsonb: arrays keep their order, so operators keep their positions (and
-- their default ids); duplicate keys were collapsed by jsonb (the last
-- one stays); negative zero is zero.
SELECT p::jsonb #>> '{operators,0,id}' AS first, p::jsonb #>> '{operators,1,id}' AS second,
       p::jsonb #>> '{connections,0,to}' AS fed
FROM (SELECT '{"operators": [{"type": "Scale", "value": 2}, {"type": "Add", "value": 1}],
              "connections": [{"from": "op1", "to": "op2"}], "entryOperator": "op1",
              "outputMappings": {"op2": {"o1": "o1"}}}'::jsonb::pipeline AS p) AS s;
SELECT '{"type": "MovingAverage", "window_size": 3, "window_size": 4}'::jsonb::pipeline
       = '{"type": "MovingAverage", "window_size": 4}'::pipeline AS last_kept;
SELECT '{"type": "Scale", "value": -0}'::jsonb::pipeline = '{"type": "Scale", "value": 0}'::pipeline AS zero;
-- Object members lose their order.  The spec reader depends on it in one
-- place: the canonical text lists "outputMappings" in the order given, so a
-- spec whose mappings are not in jsonb's key order (shorter keys first)
-- reads to a value that computes the same but is not equal.
SELECT m.p = t.p AS equal,
       m.p::jsonb->'outputMappings' = t.p::jsonb->'outputMappings' AS same_mappings,
       (SELECT array_agg(e ORDER BY i)
        FROM (SELECT i, segment_agg(ARRAY[v], k, m.p) OVER (ORDER BY i) AS e
              FROM (VALUES (1, 2, 1), (2, 3, 1), (3, 0, 2)) AS r(i, v, k)) AS x WHERE e IS NOT NULL)
       = (SELECT array_agg(e ORDER BY i)
          FROM (SELECT i, segment_agg(ARRAY[v], k, t.p) OVER (ORDER BY i) AS e
                FROM (VALUES (1, 2, 1), (2, 3, 1), (3, 0, 2)) AS r(i, v, k)) AS x WHERE e IS NOT NULL)
       AS same_results
FROM (VALUES ('{"output_port_types": ["number", "number"],
                "operators": [{"type": "Identity", "id": "in"}, {"type": "CumulativeSum", "id": "sum"},
                              {"type": "CountNumber", "id": "n"}],
                "connections": [{"from": "in", "to": "sum"}, {"from": "in", "to": "n"}],
                "entryOperator": "in", "outputMappings": {"sum": {"o1": "o1"}, "n": {"o1": "o2"}}}'))
     AS s(spec),
     LATERAL (SELECT spec::jsonb::pipeline AS p) AS m,
     LATERAL (SELECT spec::pipeline AS p) AS t;
SELECT ('{"output_port_types": ["number", "number"],
          "operators": [{"type": "Identity", "id": "in"}, {"type": "CumulativeSum", "id": "sum"},
                        {"type": "CountNumber", "id": "n"}],
          "connections": [{"from": "in", "to": "sum"}, {"from": "in", "to": "n"}],
          "entryOperator": "in", "outputMappings": {"sum": {"o1": "o1"}, "n": {"o1": "o2"}}}'::jsonb::pipeline)::json
       ->> 'outputMappings' AS jsonb_order;
-- A spec's errors are the text cast's.
SELECT '{"type": "MovingAverage", "windowsize": 3}'::jsonb::pipeline;
SELECT '[{"type": "Identity"}]'::jsonb::pipeline;
SELECT '"Identity"'::jsonb::pipeline;

-- Configurations survive pipeline -> jsonb -> pipeline exactly, floats at
-- the ends of float8's range included (jsonb numbers are numeric, which keep
-- every digit of the shortest-exact text).
SELECT spec, spec::pipeline::jsonb::pipeline = spec::pipeline AS round_trip
FROM (VALUES ('{"type": "Scale", "value": 0.1}'),
             ('{"type": "Scale", "value": 1.7976931348623157e308}'),
             ('{"type": "Scale", "value": -2.2250738585072014e-308}'),
             ('{"type": "Scale", "value": 5e-324}'),
             ('{"type": "FiniteImpulseResponse", "coeff": [0.3333333333333333, 1e-300, 123456789012345680000]}'),
             ('{"type": "Scale", "value": -0}')) AS s(spec);

-- A pipeline that carries state: json gives it back exactly (every float,
-- negative zero, NaN and the infinities); jsonb shows it, with every number
-- exact but negative zero, and does not take it back.
CREATE TABLE states AS
SELECT pipeline_agg(to_timestamp(i), v, 1, '{"type": "MovingAverage", "window_size": 9}' ORDER BY i) AS p
FROM unnest('{0.1, 1.7976931348623157e308, 5e-324, -0, NaN, Infinity, -Infinity, 1e-300}'::float8[])
     WITH ORDINALITY AS r(v, i);
SELECT p::json::pipeline = p AS json_round_trip, p::json::text = p::text AS json_text,
       p::text::json::pipeline = p AS text_json_round_trip,
       p::text LIKE '%"values": [0.1, 1.7976931348623157e+308, 5e-324, -0, "NaN", "Infinity", "-Infinity", 1e-300]%' AS ring
FROM states;
-- the window's values as jsonb shows them, and whether each reads back to
-- the same float8, bit for bit
SELECT i, CASE WHEN length(j.value #>> '{}') > 24 THEN length(j.value #>> '{}') || ' characters'
               ELSE j.value::text END AS in_jsonb,
       float8send((j.value #>> '{}')::float8) = float8send(f.v) AS bit_exact
FROM states,
     jsonb_array_elements(p::jsonb #> '{state,operators,op1,values}') WITH ORDINALITY AS j(value, i)
     JOIN unnest('{0.1, 1.7976931348623157e308, 5e-324, -0, NaN, Infinity, -Infinity, 1e-300}'::float8[])
          WITH ORDINALITY AS f(v, i) USING (i)
ORDER BY i;
SELECT p::jsonb #>> '{state,key_type}' AS key_type, p::jsonb #>> '{state,rows}' AS rows,
       p::jsonb #>> '{state,progress}' AS progress
FROM states;
SELECT p::jsonb::pipeline FROM states;
SELECT (p::jsonb - 'state')::pipeline = '{"type": "MovingAverage", "window_size": 9}'::pipeline AS config
FROM states;
-- "state" is looked for at the top only; elsewhere it is an ordinary name
SELECT '{"type": "Identity", "id": "state"}'::jsonb::pipeline = '{"type": "Identity", "id": "state"}'::pipeline AS ok;
SELECT '{"operators": [{"type": "Identity", "state": 1}]}'::jsonb::pipeline;
-- leave nothing behind for the suites that follow
DROP TABLE specs, docs, states;
